"""The board picture drawn band by band, each band remembered for what it shows,
is the picture drawn whole: the same PNG bytes, version after version of random games, in
English and Korean."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine import apply, new_game, pending, public_view
from engine.simulate import random_command
from pbm.board_image import BANDS_KEPT, WIDTH, bands, clear_cache, draw_board, draw_whole

LATIN = ["Ann", "Bartholomew", "Cleo", "Dmitri", "Émile", "Łukasz Wiśniewski", "Дмитрий",
         "Nguyễn Thị Minh Khai", "Hubert Blaine Wolfeschlegelsteinhausenbergerdorff"]
KOREAN = ["민준", "서연", "도윤", "하은 박", "Zoë", "지호", "Дмитрий", "시우",
          "아주 긴 이름의 선장님"]


def _versions(names: list[str], seed: int) -> Iterator[dict[str, Any]]:
    """The public view of every version of one random game, in turn."""
    rng = random.Random(seed)
    state = new_game(names, seed)
    yield public_view(state).to_dict()
    while not state.over:
        decision = rng.choice(pending(state))
        state, _ = apply(state, decision.seat, random_command(rng, decision))
        yield public_view(state).to_dict()


@pytest.fixture
def no_bands_drawn() -> Iterator[None]:
    clear_cache()
    yield
    clear_cache()


@pytest.mark.usefixtures("no_bands_drawn")
@pytest.mark.parametrize(("names", "seed"), [(LATIN[:2], 1), (LATIN[:5], 2), (KOREAN[:6], 3),
                                             (LATIN, 4)])
def test_every_version_s_picture_is_the_picture_drawn_whole(names: list[str], seed: int
                                                           ) -> None:
    """Both languages of each version in turn, so a band one version left unchanged is
    reused by the next, and a band of one language is there when the other is drawn."""
    for view in _versions(names, seed):
        for language in ("en", "ko"):
            same = draw_board(view, language) == draw_whole(view, language)  # no diff
            assert same, (view["version"], language)


@pytest.mark.usefixtures("no_bands_drawn")
def test_the_bands_kept_stay_within_their_bound() -> None:
    most = 0
    for names, seed in ((LATIN, 5), (LATIN[:4], 6), (KOREAN, 7)):
        for view in _versions(names, seed):
            draw_board(view)
            draw_board(view, "ko")
            most = max(most, bands.kept_bytes())
    assert BANDS_KEPT // 2 < most <= BANDS_KEPT  # filled, and no further


def test_a_row_two_bands_paint_is_no_picture_of_bands() -> None:
    sea, ink = bands.SEA_ROW, bytes([0] + [2] * WIDTH)
    upper = bands.DrawnBand(ink + sea, ((2, ink),))  # spills onto the next band's top
    assert bands.joined_rows([upper, bands.DrawnBand(sea + sea, ())], [2, 2]) == (
        ink + sea + ink + sea)
    assert bands.joined_rows([upper, bands.DrawnBand(ink + sea, ())], [2, 2]) is None
    below_the_picture = bands.DrawnBand(ink, ((1, ink), (-1, ink)))
    assert bands.joined_rows([below_the_picture], [1]) == ink  # cut, as on one canvas
