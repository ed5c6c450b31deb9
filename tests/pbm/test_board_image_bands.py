"""The board picture drawn band by band, each band remembered for what it shows (issue 26),
is the picture drawn whole: the same PNG bytes, version after version of random games, in
English and Korean."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine import apply, new_game, pending, public_view
from engine.simulate import random_command
from pbm import board_image
from pbm.board_image import draw_board, draw_whole

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
    board_image.forget_bands()
    yield
    board_image.forget_bands()


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
def test_the_bands_kept_stay_within_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(board_image, "BANDS_KEPT", 1 << 20)
    for view in _versions(LATIN, 5):
        draw_board(view)
        kept = sum(len(band.rows) + sum(len(row) for _, row in band.spilled)
                   for band in board_image._drawn.values())
        assert kept == board_image._drawn_size <= 1 << 20


def test_a_row_two_bands_paint_is_no_picture_of_bands() -> None:
    sea, ink = board_image._SEA_ROW, bytes([0] + [2] * board_image.WIDTH)
    upper = board_image._DrawnBand(ink + sea, ((2, ink),))  # spills onto the next band's top
    assert board_image._joined([upper, board_image._DrawnBand(sea + sea, ())], [2, 2]) == (
        ink + sea + ink + sea)
    assert board_image._joined([upper, board_image._DrawnBand(ink + sea, ())], [2, 2]) is None
    below_the_picture = board_image._DrawnBand(ink, ((1, ink), (-1, ink)))
    assert board_image._joined([below_the_picture], [1]) == ink  # cut, as on one canvas
