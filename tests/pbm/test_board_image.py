"""The board picture read on a phone: big enough text, nothing cut, every name's letters
drawn (Latin, Greek, Cyrillic), a small palette PNG."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from PIL import Image, ImageDraw

from engine import apply, new_game, pending, public_view
from engine.simulate import random_command
from pbm.board_image import (
    COVERED,
    MIN_TEXT,
    WIDTH,
    draw_board,
    drawable,
    paint,
    picture,
    png,
    sections,
    texts,
)

LONG_NAMES = [
    "Łukasz Wiśniewski", "Дмитрий Александрович Соколов", "Anne-Marie de la Fontaine-Beaumont",
    "Zoë", "Bartholomew Roberts the Younger", "José María Fernández García", "Αλέξανδρος",
    "Nguyễn Thị Minh Khai", "Hubert Blaine Wolfeschlegelsteinhausenbergerdorff",
]
PHONE_WIDTH = 358  # a 390 px screen less the mail app's margins


def _played(names: list[str], seed: int, steps: int | None) -> dict[str, Any]:
    """The public view after ``steps`` random decisions (None: the whole game)."""
    rng = random.Random(seed)
    state = new_game(names, seed)
    done = 0
    while not state.over and (steps is None or done < steps):
        decision = rng.choice(pending(state))
        state, _ = apply(state, decision.seat, random_command(rng, decision))
        done += 1
    return public_view(state).to_dict()


def _crowded() -> dict[str, Any]:
    """9 long names: both ships full-ish, the rowboats taken, the rest on Tortuga, every
    player with cards in front of him, a long discard pile."""
    view = _played(LONG_NAMES, 3, 40)
    players = view["players"]
    view["ships"][0]["line"] = [0, 1, 2]
    view["ships"][1]["line"] = [3, 4]
    view["rowboats"] = {"FD": 5, "JR": 8}
    view["tortuga"] = [6, 7]
    for i, player in enumerate(players):
        player["ranks"] = ["FIRST_MATE", "CABIN_BOY"] if i in (1, 4) else player["ranks"]
        player["kept"] = ["TREASURE_MAP", "ALBATROSS", "EL_DORADO", "FOUNTAIN_OF_YOUTH"][
            : 1 + i % 4]
    view["discard"] = ["PISTOL", "BLACK_SPOT", "LETTER_OF_MARQUE", "STORMY_SEAS",
                       "EIGHT_BELLS", "PISTOL"]
    view["status"], view["turn_seat"] = "playing", 1
    view["sudden_death"] = True
    return view


def _all_ashore() -> dict[str, Any]:
    view = _crowded()
    view["ships"][0]["line"], view["ships"][1]["line"] = [], []
    view["rowboats"] = {"FD": None, "JR": None}
    view["tortuga"] = list(range(9))
    return view


VIEWS = {
    "2 players": lambda: _played(["Ann", "Bob"], 1, 20),
    "5 players": lambda: _played(["Ann", "Bartholomew", "Cleo", "Dmitri", "Émile"], 2, 60),
    "9 players, long names": _crowded,
    "9 players, all on Tortuga": _all_ashore,
    "9 players, game over": lambda: _played(LONG_NAMES, 5, None),
}


@pytest.mark.parametrize("case", list(VIEWS))
def test_no_text_on_the_board_is_cut_or_leaves_its_place(case: str) -> None:
    view = VIEWS[case]()
    (width, height), drawn = texts(view)
    assert width == WIDTH
    for text in drawn:
        left, top, right, bottom = text.box
        f_left, f_top, f_right, f_bottom = text.frame
        assert 0 <= f_left <= left and right <= f_right <= width, text
        assert 0 <= f_top <= top and bottom <= f_bottom <= height, text
        assert "..." not in text.text and "…" not in text.text, text


@pytest.mark.parametrize("case", list(VIEWS))
def test_every_name_is_drawn_whole_letter_for_letter(case: str) -> None:
    view = VIEWS[case]()
    _, drawn = texts(view)
    ink = "".join(t.text for t in drawn).replace(" ", "")
    for player in view["players"]:
        assert player["name"].replace(" ", "") in ink, player["name"]
    assert "?" not in ink


def test_text_is_at_least_eleven_pixels_high_on_a_phone_390_pixels_wide() -> None:
    _, drawn = texts(_crowded())
    assert min(t.size for t in drawn) == MIN_TEXT
    assert MIN_TEXT * PHONE_WIDTH / WIDTH >= 11.5


def test_two_texts_never_overlap() -> None:
    _, drawn = texts(_crowded())
    boxes = [t.box for t in drawn]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, (drawn[i], b)


def test_the_fonts_draw_every_character_they_claim_and_others_are_folded() -> None:
    def ink(ch: str) -> bytes:
        return paint.text_mask(ch, MIN_TEXT, False)[0].tobytes()

    assert not ink("\U0001f600")  # an emoji: not in the fonts, draws nothing at all
    for low, high in COVERED:
        for code in {low, (low + high) // 2, high}:
            ch = chr(code)
            if ch.isprintable() and not ch.isspace() and code not in range(0x300, 0x370):
                assert ink(ch), hex(code)
    assert drawable("Дмитрий Łukasz Ελένη") == "Дмитрий Łukasz Ελένη"
    assert drawable("Ἀθῆναι") == "Αθηναι"  # polytonic Greek: accents dropped
    assert drawable("李雷 ☃") == "LiLei "  # letters transliterated, a symbol left out
    assert drawable("Ǆemal\tO\u2019Brien") == "Ǆemal O\u2019Brien"


def test_the_picture_is_a_palette_png_of_the_email_width() -> None:
    png = draw_board(_crowded())
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.mode == "P"
    assert image.width == WIDTH
    assert image.height == texts(_crowded())[0][1]


@pytest.mark.parametrize("case", sorted(VIEWS))
def test_the_png_holds_exactly_the_drawn_pixels_and_only_the_palettes_colours(case: str) -> None:
    view = VIEWS[case]()
    drawn = picture.paint_whole(view).image.quantize(
        palette=png.palette_image(), dither=Image.Dither.NONE)
    decoded = Image.open(io.BytesIO(draw_board(view)))
    decoded.load()  # checks every chunk's CRC and the zlib stream
    assert decoded.size == drawn.size
    assert decoded.tobytes() == drawn.tobytes()
    assert decoded.convert("RGB").tobytes() == drawn.convert("RGB").tobytes()
    fixed = png.palette_colours()  # the palette's colours, not Pillow's 256 entries
    assert (decoded.getpalette() or []) == [c for colour in fixed for c in colour]
    assert max(decoded.tobytes()) < len(fixed)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_text_is_edged_only_in_the_halfway_shade_of_its_two_colours(language: str) -> None:
    """A letter's anti-aliased edge is its background, its ink or the one shade halfway
    between them: no other palette colour that happens to lie near the blend (those
    scattered colours cost a fifth of the PNG)."""
    view = _crowded()
    picture = Image.open(io.BytesIO(draw_board(view, language))).convert("RGB")
    navy, white = paint.NAVY, paint.WHITE
    halfway = tuple((a + b + 1) // 2 for a, b in zip(navy, white, strict=True))
    header = [t for t in texts(view, language)[1] if t.frame[:2] == (0, 0)
              and t.box[1] >= sections.HEADER_TOP]  # whose turn: white on navy
    assert header
    for text in header:
        colours = {colour for _, colour in picture.crop(text.box).getcolors(1 << 16) or []}
        assert colours <= {navy, white, halfway}, (text.text, colours)
        assert halfway in colours, text.text


@pytest.mark.parametrize(("radius", "fill", "outline", "width"), [
    (2, paint.GOLD, paint.INK, 1), (4, None, paint.GOLD, 1),
    (6, paint.CARD_BACK, paint.INK, 1), (6, None, paint.SEA_LINE, 2),
    (6, paint.WHITE, paint.BRITISH, 2), (12, paint.DECK, paint.WOOD, 4),
    (12, paint.WOOD, None, 1), (14, paint.GOLD, None, 1),
    (16, paint.FRENCH, None, 1), (24, paint.SAND, paint.SAND_EDGE, 3),
    (5, paint.NAVY, paint.NAVY, 2), (3, paint.INK, paint.WHITE, 5),
])
def test_a_rounded_rectangle_is_drawn_as_pillow_draws_it(
        radius: int, fill: paint.Color | None, outline: paint.Color | None,
        width: int) -> None:
    """The painter's rounded rectangles (corners pasted from tiles) have every
    pixel of ``ImageDraw.rounded_rectangle``'s, at every size from corners that meet up."""
    for w in range(0, 4 * radius + 8):
        for h in (*range(0, 4 * radius + 8, 3), 120):
            box = (3, 5, 3 + w, 5 + h)
            ours = paint.Painter(140)
            ours.rounded(box, radius, fill, outline, width)
            pillows = Image.new("RGB", ours.image.size, paint.SEA)
            ImageDraw.Draw(pillows).rounded_rectangle(box, radius, fill, outline, width)
            same = ours.image.tobytes() == pillows.tobytes()  # no diff of the bytes
            assert same, (box, radius)
