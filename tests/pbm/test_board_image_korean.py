"""The board picture in Korean: labelled in the glossary's words with the bundled
Hangul font, Hangul names drawn as written, legible on a phone, nothing cut, as small as
the English picture; the English picture is unchanged (tests/golden/board.png)."""

from __future__ import annotations

import io
import random
import re
from typing import Any

import pytest
from PIL import Image

from engine import apply, new_game, pending, public_view
from engine.simulate import random_command
from pbm.board_image import (
    HANGUL_COVERED,
    KOREAN_MIN_TEXT,
    MIN_TEXT,
    WIDTH,
    draw_board,
    paint,
    texts,
)
from pbm.i18n.glossary import term

KOREAN = ["민준", "서연", "지우", "하준", "서윤", "도윤", "하은", "시우", "지아"]
MIXED = ["민준", "Bartholomew", "남궁 서연", "Дмитрий", "똠양꿍", "Émile", "황보 지우",
         "José María Fernández García", "김 하은 엘리자베스"]
PHONE_WIDTH = 358  # a 390 px screen less the mail app's margins
SHOWN_ON_PHONE = 330  # the picture's width in our email on a 390 px screen (Chromium)
ENGLISH_LABELS = re.compile(r"\b(?:Flying|Dutchman|Jolly|Roger|Tortuga|Spanish|Galleon|"
                            r"Capt|Mate|Boy|Gov|British|French|treasure|Event row|Deck|"
                            r"Rowboat|empty|nobody|Discard|front|Game over|turn)\b")


def _played(names: list[str], seed: int, steps: int | None) -> dict[str, Any]:
    rng = random.Random(seed)
    state = new_game(names, seed)
    done = 0
    while not state.over and (steps is None or done < steps):
        decision = rng.choice(pending(state))
        state, _ = apply(state, decision.seat, random_command(rng, decision))
        done += 1
    return public_view(state).to_dict()


def _crowded() -> dict[str, Any]:
    """9 players, ranks doubled up, both rowboats taken, cards in front of everyone."""
    view = _played(MIXED, 3, 40)
    view["ships"][0]["line"], view["ships"][1]["line"] = [0, 1, 2], [3, 4]
    view["rowboats"] = {"FD": 5, "JR": 8}
    view["tortuga"] = [6, 7]
    for i, player in enumerate(view["players"]):
        player["ranks"] = ["FIRST_MATE", "CABIN_BOY"] if i in (1, 4) else player["ranks"]
        player["kept"] = ["TREASURE_MAP", "ALBATROSS", "EL_DORADO", "FOUNTAIN_OF_YOUTH"][
            : 1 + i % 4]
    view["discard"] = ["PISTOL", "BLACK_SPOT", "LETTER_OF_MARQUE", "STORMY_SEAS",
                       "EIGHT_BELLS", "PISTOL"]
    view["status"], view["turn_seat"], view["sudden_death"] = "playing", 1, True
    return view


VIEWS = {
    "2 Korean players": lambda: _played(KOREAN[:2], 1, 20),
    "5 Korean players": lambda: _played(KOREAN[:5], 2, 60),
    "9 mixed names, crowded": _crowded,
    "9 mixed names, game over": lambda: _played(MIXED, 5, None),
}


@pytest.mark.parametrize("case", list(VIEWS))
def test_the_korean_picture_cuts_nothing_and_draws_every_name_as_written(case: str) -> None:
    view = VIEWS[case]()
    (width, height), drawn = texts(view, "ko")
    assert width == WIDTH
    for text in drawn:
        left, top, right, bottom = text.box
        f_left, f_top, f_right, f_bottom = text.frame
        assert 0 <= f_left <= left and right <= f_right <= width, text
        assert 0 <= f_top <= top and bottom <= f_bottom <= height, text
    ink = "".join(t.text for t in drawn).replace(" ", "")
    for player in view["players"]:
        assert player["name"].replace(" ", "") in ink, player["name"]
    assert "?" not in ink


@pytest.mark.parametrize("case", list(VIEWS))
def test_its_labels_are_the_glossary_s_korean_words_and_none_english(case: str) -> None:
    view = VIEWS[case]()
    _, drawn = texts(view, "ko")
    names = [p["name"] for p in view["players"]]
    labels = " ".join(t.text for t in drawn)
    for name in names:
        labels = labels.replace(name, "")
    assert not ENGLISH_LABELS.search(labels), ENGLISH_LABELS.search(labels)
    for section, key in (("ships", "FD"), ("ships", "JR"), ("places", "TORTUGA"),
                         ("teams", "BRITISH"), ("teams", "FRENCH")):
        assert term(section, key, "ko") in labels, (section, key)
    assert "스페인" in labels and "갈레온" in labels and "보물" in labels


def test_ranks_and_event_cards_are_named_in_korean() -> None:
    _, drawn = texts(_crowded(), "ko")
    labels = " ".join(t.text for t in drawn)
    for rank in ("CAPTAIN", "FIRST_MATE", "CABIN_BOY"):
        assert term("ranks", rank, "ko") in labels, rank
    for card in ("TREASURE_MAP", "PISTOL", "LETTER_OF_MARQUE"):
        assert term("events", card, "ko") in labels, card


def test_korean_text_is_at_least_eleven_pixels_high_on_a_phone_and_never_overlaps() -> None:
    _, drawn = texts(_crowded(), "ko")
    assert min(t.size for t in drawn) == KOREAN_MIN_TEXT > MIN_TEXT
    # the email shows the picture 330 px wide on a 390 px phone (tests/web/test_prompt_korean)
    assert KOREAN_MIN_TEXT * SHOWN_ON_PHONE / WIDTH >= 11
    hangul = [t for t in drawn if re.search(r"[가-힣]", t.text)]
    assert hangul
    # the ink of a line of Hangul (not only its font size): at least 9 px tall on the phone
    assert min(t.box[3] - t.box[1] for t in hangul) * SHOWN_ON_PHONE / WIDTH >= 9
    boxes = [t.box for t in drawn]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (drawn[i], b)


def test_the_hangul_font_draws_every_syllable_it_claims() -> None:
    def ink(ch: str) -> bytes:
        with paint.drawing_in("ko"):
            return paint.text_mask(ch, MIN_TEXT, False)[0].tobytes()

    for low, high in HANGUL_COVERED:
        for code in {low, (low + high) // 2, high}:
            if chr(code).isprintable() and not chr(code).isspace():
                assert ink(chr(code)), hex(code)
    for ch in "똠뷁햏갂힣":  # outside KS X 1001: drawn, not folded
        with paint.drawing_in("ko"):
            assert ink(ch) and paint.drawable(ch) == ch
    with paint.drawing_in("en"):
        assert paint.drawable("민준").isascii()  # English: transliterated


def test_the_english_picture_is_the_one_it_always_was() -> None:
    view = _played(["Ann", "Bob", "Cleo", "Dmitri", "Émile"], 2, 60)
    english = draw_board(view)
    assert draw_board(view, "en") == english
    korean = draw_board(view, "ko")
    assert korean != english
    assert draw_board(view) == english  # drawing Korean changed nothing for English


def _mean_png_size(names: list[str], language: str) -> float:
    """Mean bytes of every 4th version's picture of 3 random games (as bench_board.py)."""
    sizes = []
    for seed in (7, 8, 9):
        rng = random.Random(seed)
        state = new_game(names, seed)
        while not state.over:
            decision = rng.choice(pending(state))
            state, _ = apply(state, decision.seat, random_command(rng, decision))
            if state.version % 4 == 0 or state.over:
                png = draw_board(public_view(state).to_dict(), language)
                image = Image.open(io.BytesIO(png))
                image.load()
                assert image.format == "PNG" and image.mode == "P" and image.width == WIDTH
                sizes.append(len(png))
    return sum(sizes) / len(sizes)


@pytest.mark.slow
def test_the_korean_picture_is_a_palette_png_as_small_as_the_english_one() -> None:
    korean = _mean_png_size(KOREAN[:5], "ko")
    english = _mean_png_size(["Anne", "Bart", "Cleo", "Dirk", "Esme"], "en")
    assert korean <= 20 * 1024, korean  # measured: 16.1 KB (English: 17.1 KB)
    assert korean <= english * 1.02, (korean, english)
