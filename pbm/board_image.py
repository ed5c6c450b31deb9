"""The board picture: a PNG drawn from the *public* view only (never a seat's secrets).

One picture per game version, shared by every recipient's email (``cid:board``).

Made to be read on a phone: email clients scale a picture to the screen's width, so the
picture is narrow and tall (:data:`WIDTH` = 640 px, the width the email shows it at) and no
text is smaller than 21 px: about 12 px on a 390 px wide phone screen. Top to bottom: the
header (turn, whose turn, score), the Event row and the Spanish Galleon, the Flying
Dutchman and the Jolly Roger side by side (crews front to back, holds, rowboats), Tortuga,
then the cards in front of players and the discard pile. Text is wrapped, never cut: the
picture grows as tall as it must (9 players with long names fit).

Names are drawn with DejaVu Sans (``pbm/fonts``: Latin, Greek and Cyrillic); a character
outside it is folded to its base letter (accents dropped) or shown as ``?``.

One picture per language (issue 24): ``draw_board(view, "ko")`` writes every label in
Korean (the glossary's words: 플라잉 더치맨, 선장, 영국 ...) with the bundled Hangul font
(``TortugaHangul-Regular.ttf``, a NanumGothic subset: every Hangul syllable, Latin-1), and
draws Hangul names as written; a character that font lacks is drawn with DejaVu Sans. The
English picture is drawn exactly as before.

Fast and small (issue 15): fonts are loaded once, text is measured once per string and
size, the picture is drawn in RGB, mapped onto a fixed palette of its own colours and their
anti-aliasing shades, and saved as an 8-bit PNG with only the palette's colours, compressed by
libdeflate (:func:`palette_png`). Issue 26: text is anti-aliased in three shades
(background, halfway, ink: :data:`_SHADES`), which makes the PNG small enough for a fast
compression level; the picture is drawn in bands as wide as it (the header, the Event row,
the ships, Tortuga, the footer), each remembered per process as the PNG's rows for exactly
what it shows (:func:`_drawn_band`): a move changes a band or two, and the next version's
picture draws only those (:func:`draw_whole` draws it on one canvas, as before).
"""

from __future__ import annotations

import struct
import threading
import unicodedata
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import deflate
from anyascii import anyascii
from PIL import Image, ImageChops, ImageDraw, ImageFont

from engine.cards import EventTitle
from pbm.i18n.glossary import event_name, term

WIDTH = 640
MARGIN = 14
MIN_TEXT = 21  # px at WIDTH: about 12 px on a phone 390 px wide

Color = tuple[int, int, int]
Box = tuple[int, int, int, int]

SEA = (206, 228, 240)
SEA_LINE = (176, 207, 224)
INK = (42, 33, 24)
MUTED = (96, 86, 72)
WOOD = (122, 82, 48)
DECK = (250, 244, 230)
SAND = (238, 214, 160)
SAND_EDGE = (205, 172, 110)
BRITISH = (179, 32, 46)
FRENCH = (31, 79, 160)
GOLD = (224, 178, 52)
NAVY = (29, 43, 58)
CARD_BACK = (59, 42, 26)
CARD_TEXT = (243, 217, 139)
WHITE = (255, 255, 255)
GREEN = (60, 130, 60)
HULL = (150, 110, 60)

RANK_TAGS = {"CAPTAIN": "Capt", "FIRST_MATE": "Mate", "CABIN_BOY": "Boy", "GOVERNOR": "Gov"}
SHIP_NAMES = {"FD": "Flying Dutchman", "JR": "Jolly Roger"}

#: The picture's words for a Korean reader, by their English form (``str.format`` fields
#: kept); game terms come from the glossary (:func:`_word`).
KOREAN_LABELS: dict[str, str] = {
    "Game over: the {team} win": "게임 종료: {team} 승리",
    "Game over": "게임 종료",
    "{name} to play": "{name} 차례",
    "Waiting to begin": "시작을 기다리는 중",
    " · sudden death": " · 서든 데스",
    "Tortuga 1667 · turn {n}": "토르투가 1667 · {n}턴",
    "Event row": "이벤트 줄",
    "Deck: {n}": "더미: {n}장",
    ", not refilled": ", 보충 안 됨",
    "{n} treasure": "보물 {n}개",
    "Rowboat: {who}": "보트: {who}",
    "empty": "비어 있음",
    "nobody aboard": "승선한 사람 없음",
    "nobody ashore": "상륙한 사람 없음",
    "In front of players": "플레이어 앞의 카드",
    "nothing": "없음",
    "Discard pile: {cards}{more}": "버린 카드: {cards}{more}",
    " (+{n} more)": " (외 {n}장)",
    "Crews run from the front (top) to the back.": "선원은 앞(위)에서 뒤 순서입니다.",
}


def _label(english: str, **fields: object) -> str:
    """One label of the picture in its language, ``fields`` filled in."""
    text = english if _LANGUAGE.get() == "en" else KOREAN_LABELS[english]
    return text.format(**fields) if fields else text


def _word(section: str, key: str, english: str) -> str:
    """A game term: ``english`` in the English picture (as it always was), the glossary's
    word in a Korean one (``ranks``/``CAPTAIN`` -> 선장)."""
    language = _LANGUAGE.get()
    return english if language == "en" else term(section, key, language)


def _rank_tag(rank: str) -> str:
    return _word("ranks", rank, RANK_TAGS.get(rank, rank)) if rank in RANK_TAGS else rank


def _team(team: str) -> str:
    """``"British"`` / ``"French"`` (a hold, a score) in the picture's language."""
    return _word("teams", team.upper(), team)

FONTS = Path(__file__).resolve().parent / "fonts"

#: Code points both bundled fonts draw: their character maps, read with fontTools when
#: the subsets were made (pbm/fonts/LICENSE); tests check each range draws.
COVERED: tuple[tuple[int, int], ...] = (
    (0x20, 0x7E), (0xA0, 0x24F), (0x259, 0x259), (0x2BB, 0x2BC), (0x2C6, 0x2DD),
    (0x300, 0x34F), (0x351, 0x353), (0x357, 0x358), (0x35A, 0x35A), (0x35C, 0x362),
    (0x370, 0x377), (0x37A, 0x37F), (0x384, 0x38A), (0x38C, 0x38C), (0x38E, 0x3A1),
    (0x3A3, 0x525), (0x1E00, 0x1EFB), (0x2010, 0x2027), (0x2030, 0x205E), (0x20A0, 0x20B5),
    (0x20B8, 0x20BA), (0x20BD, 0x20BD), (0x2116, 0x2116), (0x2122, 0x2122),
    (0x2190, 0x2193), (0x2212, 0x2212), (0xFFFD, 0xFFFD),
)


# ---------------------------------------------------------------- fonts and text


#: Code points the Hangul font draws: its character map, read with fontTools when
#: tools/hangul_font.py made it (ASCII, most of Latin-1, punctuation, arrows, the
#: compatibility letters ㅋㅋ and all 11,172 Hangul syllables); anything else in a Korean
#: picture is drawn with DejaVu Sans (tests check each range draws).
HANGUL_COVERED: tuple[tuple[int, int], ...] = (
    (0x20, 0x7E), (0xA0, 0xA5), (0xA7, 0xAE), (0xB0, 0xB4), (0xB6, 0xC2), (0xC6, 0xCB),
    (0xCD, 0xD1), (0xD3, 0xD4), (0xD7, 0xDC), (0xDE, 0xE2), (0xE4, 0xE4), (0xE6, 0xEB),
    (0xED, 0xF1), (0xF3, 0xF4), (0xF6, 0xFC), (0xFE, 0xFE), (0x2010, 0x2010),
    (0x2013, 0x2016), (0x2018, 0x2019), (0x201B, 0x201D), (0x201F, 0x2022),
    (0x2025, 0x2026), (0x2190, 0x2193), (0x3131, 0x318E), (0xAC00, 0xD7A3),
)
HANGUL_FONT = "TortugaHangul-Regular.ttf"
#: Bold Hangul drawn twice 1 px apart? No: it made the PNG 3% larger and the strokes of
#: dense syllables run together; a Korean picture's bold labels are the regular weight.
BOLD_STRIKE = False
#: A Korean picture's smallest text is 22 px, not 21: the email shows the picture 330 px
#: wide on a 390 px phone, where 22 px is 11.3 px (larger text stays as in English: each
#: px more makes the PNG larger).
KOREAN_MIN_TEXT = 22


def _korean_px(size: int) -> int:
    """The px a Korean picture draws text of ``size`` (the English picture's px) at."""
    return max(size, KOREAN_MIN_TEXT)

#: The language of the picture being drawn ("en" or "ko"); set by :func:`_paint` only.
_LANGUAGE: ContextVar[str] = ContextVar("board_language", default="en")


@contextmanager
def _drawing_in(language: str) -> Iterator[None]:
    token = _LANGUAGE.set(language)
    try:
        yield
    finally:
        _LANGUAGE.reset(token)


@cache
def load_font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans at ``size`` px, loaded once per process."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(FONTS / name), size)


@cache
def _hangul_font(size: int) -> ImageFont.FreeTypeFont:
    """The bundled Hangul font at ``size`` px (one weight, see :data:`BOLD_STRIKE`)."""
    return ImageFont.truetype(str(FONTS / HANGUL_FONT), size)


def _covered(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in COVERED)


def _hangul_covered(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in HANGUL_COVERED)


def _covered_in(language: str) -> Callable[[str], bool]:
    if language == "en":
        return _covered
    return lambda ch: _hangul_covered(ch) or _covered(ch)


def drawable(text: str) -> str:
    """``text`` with every character the fonts lack folded to its base letters (NFKD,
    accents dropped) or transliterated (``anyascii``), ``?`` only as the last resort;
    control characters become spaces. In a Korean picture Hangul is drawn as written."""
    return _drawable(text, _LANGUAGE.get())


@lru_cache(maxsize=4096)
def _drawable(text: str, language: str) -> str:
    covered = _covered_in(language)
    if all(covered(ch) for ch in text):
        return text
    out = []
    for ch in text:
        if covered(ch):
            out.append(ch)
        elif unicodedata.category(ch)[0] in "CZ":
            out.append(" ")
        else:
            folded = "".join(c for c in unicodedata.normalize("NFKD", ch)
                             if not unicodedata.combining(c))
            if not (folded and all(map(covered, folded))):
                # a letter (CJK, Thai...) is transliterated; a symbol or emoji is left out
                folded = anyascii(ch) if unicodedata.category(ch)[0] in "LN" else ""
                if not folded:
                    continue
            out.append(folded if folded and all(map(covered, folded)) else "?")
    return "".join(out)


def _runs(text: str) -> list[tuple[str, bool]]:
    """A Korean picture's ``text`` cut into runs of one font: (run, drawn by the Hangul
    font). What that font lacks (Greek, Cyrillic, Latin Extended) is drawn by DejaVu."""
    runs: list[tuple[str, bool]] = []
    for ch in text:
        hangul = _hangul_covered(ch) or not _covered(ch)
        if runs and runs[-1][1] == hangul:
            runs[-1] = (runs[-1][0] + ch, hangul)
        else:
            runs.append((ch, hangul))
    return runs


def _run_length(run: str, hangul: bool, size: int, bold: bool) -> float:
    size = _korean_px(size)
    if hangul:
        return _hangul_font(size).getlength(run) + (1 if bold and BOLD_STRIKE else 0)
    return load_font(size, bold).getlength(run)


def _width(text: str, size: int, bold: bool) -> int:
    return _width_in(text, size, bold, _LANGUAGE.get())


@lru_cache(maxsize=8192)
def _width_in(text: str, size: int, bold: bool, language: str) -> int:
    if language == "en":
        return int(load_font(size, bold).getlength(text) + 0.999)
    return int(sum(_run_length(run, hangul, size, bold) for run, hangul in _runs(text))
               + 0.999)


def wrap(text: str, size: int, bold: bool, width: int) -> tuple[str, ...]:
    """``text`` broken into lines no wider than ``width`` px: at spaces, and inside a word
    only when the word alone is too wide. Nothing is dropped."""
    return _wrap(text, size, bold, width, _LANGUAGE.get())


@lru_cache(maxsize=4096)
def _wrap(text: str, size: int, bold: bool, width: int, language: str
          ) -> tuple[str, ...]:
    """``text`` broken into lines no wider than ``width`` px: at spaces, and inside a word
    only when the word alone is too wide. Nothing is dropped."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if _width(candidate, size, bold) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        while len(word) > 1 and _width(word, size, bold) > width:  # a long word: break it
            cut = len(word) - 1
            while cut > 1 and _width(word[:cut], size, bold) > width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    lines.append(line)
    return tuple(lines)


def _ink(text: str, size: int, bold: bool) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an anti-aliased mask, with its offset from the top left
    of the line: the same names and labels come back in every version of a game, and
    rendering glyphs is most of the cost of drawing the picture."""
    language = _LANGUAGE.get()
    return _ink_en(text, size, bold) if language == "en" else _ink_runs(text, size, bold)


#: drawn lines of text kept per process (each an image of some kilobytes, outside Python's
#: heap): 4096 grew a worker by about 10 MB over 5,000 replies without filling (every
#: new event line, name and number is a new entry); 512 keep the recurring ones (1,001 lines
#: drawn instead of 900 over 1,600 pictures, no time measured) and bound them at a few MB
INKS_KEPT = 512


@lru_cache(maxsize=INKS_KEPT)
def _ink_runs(text: str, size: int, bold: bool) -> tuple[Image.Image, int, int]:
    """A Korean picture's line: each run in its font on one baseline (the Hangul font's)."""
    ascent, descent = _hangul_font(_korean_px(size)).getmetrics()
    pad = size
    canvas = Image.new("L", (_width_in(text, size, bold, "ko") + 2 * pad,
                             ascent + descent + 2 * pad), 0)
    draw = ImageDraw.Draw(canvas)
    x = float(pad)
    for run, hangul in _runs(text):
        font = _hangul_font(_korean_px(size)) if hangul else load_font(_korean_px(size), bold)
        for dx in ((0, 1) if hangul and bold and BOLD_STRIKE else (0,)):
            draw.text((x + dx, pad + ascent), run, font=font, fill=255, anchor="ls")
        x += _run_length(run, hangul, size, bold)
    box = canvas.getbbox()
    if box is None:
        return Image.new("L", (0, 0), 0), 0, 0
    return _three_shades(canvas.crop(box)), box[0] - pad, box[1] - pad


@lru_cache(maxsize=INKS_KEPT)
def _ink_en(text: str, size: int, bold: bool) -> tuple[Image.Image, int, int]:
    font = load_font(size, bold)
    left, top, right, bottom = (int(v) for v in font.getbbox(text))
    mask = Image.new("L", (max(0, right - left), max(0, bottom - top)), 0)
    if mask.width and mask.height:
        ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255)
    return _three_shades(mask), left, top


#: a text mask's coverage (0-255) rounded to background, halfway and ink, the three colours
#: the palette has for each pair that meets (:data:`_PAIRS`). Blending every coverage and
#: mapping it to the nearest palette colour (before issue 26) edged a letter with whatever
#: colours lay near the blend, 4 to 15 between a pair, many of them other pairs' shades (a
#: brown on a navy and white edge): noise the eye does not see at this size (the same picture at
#: 1:1, the old one a shade softer at 4x) but that took a fifth of the compressed PNG:
#: 19.8 KB at libdeflate level 8 then, 17.2 KB at level 5 now. 3% of the pixels changed.
_SHADES = [0] * 64 + [128] * 128 + [255] * 64


def _three_shades(mask: Image.Image) -> Image.Image:
    return mask.point(_SHADES)


@dataclass(frozen=True)
class DrawnText:
    """One piece of text as drawn: its size in px, its ink box and the area it had to
    stay in."""

    text: str
    size: int
    box: Box
    frame: Box


class _Painter:
    """Draws on the picture and records every text with its box (:func:`texts`)."""

    def __init__(self, height: int, width: int = WIDTH) -> None:
        self.image = Image.new("RGB", (width, height), SEA)
        self.draw = ImageDraw.Draw(self.image)
        self.texts: list[DrawnText] = []
        # Pillow's own paste, without ``Image.paste``'s checks of its arguments (the
        # picture's boxes are 4-tuples and its colours RGB): those took more than the
        # pasting of the picture's 300 small pieces
        self._paste = self.image.im.paste

    def text(self, x: int, y: int, text: str, size: int, fill: Color, frame: Box,
             bold: bool = False) -> int:
        """Draw one line at (x, y), top left; returns its width."""
        mask, left, top = _ink(text, size, bold)
        box = (x + left, y + top, x + left + mask.width, y + top + mask.height)
        if mask.width and mask.height:
            self._paste(fill, box, mask.im)
        shown = size if _LANGUAGE.get() == "en" else _korean_px(size)
        self.texts.append(DrawnText(text, shown, box, frame))
        return _width(text, size, bold)

    def lines(self, x: int, y: int, lines: Sequence[str], size: int, fill: Color,
              frame: Box, bold: bool = False) -> int:
        """Draw lines one under the other; returns the y below them."""
        for line in lines:
            self.text(x, y, line, size, fill, frame, bold)
            y += _line_height(size)
        return y

    def rounded(self, box: Box, radius: int, fill: Color | None = None,
                outline: Color | None = None, width: int = 1) -> None:
        """``ImageDraw.rounded_rectangle`` pixel for pixel (tests compare them), faster:
        Pillow draws each corner as a pie slice and an arc, most of the time the picture's
        painting took (1.3 of 2.7 ms); here the corners are pasted from tiles drawn once
        and the straight parts filled by ``paste`` (corners are ``radius + 1`` px square:
        every rectangle wider and taller than two of them is drawn this way). A small one
        (a card, a chest, a pill) is pasted whole from a tile drawn once (:func:`_whole`)."""
        x0, y0, x1, y1 = box
        r = radius
        if min(x1 - x0, y1 - y0) <= 2 * r + 1:  # corners that meet: Pillow's other cases
            self.draw.rounded_rectangle(box, radius, fill, outline, width)
            return
        if (x1 - x0 + 1) * (y1 - y0 + 1) <= WHOLE_TILE:
            tile, mask = _whole(x1 - x0, y1 - y0, radius, fill, outline, width)
            self._paste(tile.im, (x0, y0, x1 + 1, y1 + 1), mask.im)
            return
        if fill is not None:  # the middle top to bottom, then left and right of it
            self._paste(fill, (x0 + r + 1, y0, x1 - r, y1 + 1))
            self._paste(fill, (x0, y0 + r + 1, x0 + r + 1, y1 - r))
            self._paste(fill, (x1 - r, y0 + r + 1, x1 + 1, y1 - r))
        if outline is not None and outline != fill and width:
            for side in ((x0 + r + 1, y0, x1 - r, y0 + width),
                         (x0 + r + 1, y1 - width + 1, x1 - r, y1 + 1),
                         (x0, y0 + r + 1, x0 + width, y1 - r),
                         (x1 - width + 1, y0 + r + 1, x1 + 1, y1 - r)):
                self._paste(outline, side)
        for (tile, mask), (x, y) in zip(_corners(r, fill, outline, width),
                                        ((x0, y0), (x1 - r, y0), (x0, y1 - r), (x1 - r, y1 - r)),
                                        strict=True):
            self._paste(tile.im, (x, y, x + r + 1, y + r + 1), mask.im)


#: the largest rounded rectangle (in px) pasted whole from a tile (:func:`_whole`): a
#: ship's title bar (301 x 43) and everything smaller (cards, holds, pills, chests); the
#: panels, as tall as their crews, are drawn in pieces
WHOLE_TILE = 301 * 43


@lru_cache(maxsize=64)  # about 40 in use (cards, chests, holds, score and rank pills)
def _whole(w: int, h: int, radius: int, fill: Color | None, outline: Color | None,
           width: int) -> tuple[Image.Image, Image.Image]:
    """A rounded rectangle from (0, 0) to (``w``, ``h``) as Pillow draws it (its corners
    apart: it paints nothing outside that box then): its pixels and a mask of those it
    paints."""
    drawn = []
    for background in ((0, 0, 0), (1, 2, 3)):  # painted pixels are the same on both
        canvas = Image.new("RGB", (w + 1, h + 1), background)
        ImageDraw.Draw(canvas).rounded_rectangle((0, 0, w, h), radius, fill, outline, width)
        drawn.append(canvas)
    unpainted = ImageChops.difference(*drawn).convert("L")
    return drawn[0], unpainted.point([255] + [0] * 255)


@cache
def _corners(radius: int, fill: Color | None, outline: Color | None, width: int
             ) -> tuple[tuple[Image.Image, Image.Image], ...]:
    """The four corners (top left, top right, bottom left, bottom right) of a rounded
    rectangle as Pillow draws it: each its pixels and a mask of those it paints."""
    side = 4 * radius + 3  # a square whose corners do not meet
    drawn = []
    for background in ((0, 0, 0), (1, 2, 3)):  # painted pixels are the same on both
        canvas = Image.new("RGB", (side, side), background)
        ImageDraw.Draw(canvas).rounded_rectangle((0, 0, side - 1, side - 1), radius, fill,
                                                 outline, width)
        drawn.append(canvas)
    unpainted = ImageChops.difference(*drawn).convert("L")
    painted = unpainted.point([255] + [0] * 255)
    far = side - 1 - radius
    return tuple((drawn[0].crop(box), painted.crop(box)) for box in (
        (x, y, x + radius + 1, y + radius + 1) for y in (0, far) for x in (0, far)))


def _line_height(size: int) -> int:
    return size + size // 3


# ---------------------------------------------------------------- sections
#
# Each section is measured first (``_*_height``) so the picture is made at its final
# height, then drawn (``_draw_*``) from a top y, from nothing but its arguments (what a
# band of the picture shows is its key in :func:`_drawn_band`'s memo).


def _title(title: str) -> str:
    try:
        label = EventTitle(title).label
    except ValueError:
        return title.replace("_", " ").title()
    language = _LANGUAGE.get()
    return label if language == "en" else event_name(title, language)


def _name(player: Mapping[str, Any]) -> str:
    return drawable(str(player["name"]))


class _Crew(NamedTuple):
    """What a crew line shows of a player (:func:`_draw_crew`)."""

    seat: int
    name: str
    ranks: tuple[str, ...]


def _crew(player: Mapping[str, Any]) -> _Crew:
    return _Crew(player["seat"], str(player["name"]), tuple(player.get("ranks") or ()))


class _Rower(NamedTuple):
    """What a rowboat's line shows of the player in it (:func:`_rowboat_lines`)."""

    seat: int
    name: str


class _Ship(NamedTuple):
    """What a ship's panel shows (:func:`_draw_ship`): its crew front to back, its holds
    and who is in its rowboat."""

    code: str
    crew: tuple[_Crew, ...]
    british: int
    french: int
    rower: _Rower | None


def _header_lines(public: Mapping[str, Any], players: Mapping[int, Mapping[str, Any]]
                  ) -> tuple[str, ...]:
    status = public["status"]
    if status == "over":
        winner = public.get("winner")
        text = _label("Game over: the {team} win", team=_team(winner.capitalize())) \
            if winner else _label("Game over")
    elif status == "playing" and public["turn_seat"] in players:
        text = _label("{name} to play", name=_name(players[public['turn_seat']]))
    else:
        text = _label("Waiting to begin")
    if public.get("sudden_death"):
        text += _label(" · sudden death")
    return wrap(text, 22, False, WIDTH - 2 * MARGIN)


HEADER_TOP = 52


def _header_height(lines: Sequence[str]) -> int:
    return HEADER_TOP + len(lines) * _line_height(22) + 10


def _draw_header(p: _Painter, y: int, turn_number: int, french: int, british: int,
                 lines: tuple[str, ...]) -> None:
    frame = (0, y, WIDTH, y + _header_height(lines))
    p.draw.rectangle(frame, fill=NAVY)
    p.text(MARGIN, y + 12, _label("Tortuga 1667 · turn {n}", n=turn_number), 24,
           CARD_TEXT, frame, bold=True)
    x = WIDTH - MARGIN
    for label, color in ((f"{_team('French')} {french}", FRENCH),
                         (f"{_team('British')} {british}", BRITISH)):
        w = _width(label, 21, True) + 20
        pill = (x - w, y + 8, x, y + 42)
        p.rounded(pill, radius=16, fill=color)
        p.text(x - w + 10, y + 13, label, 21, WHITE, pill, bold=True)
        x -= w + 8
    p.lines(MARGIN, y + HEADER_TOP, lines, 22, WHITE, frame)


CARD_W, CARD_H, CARD_GAP = 60, 80, 8
ROW_HEIGHT = 40 + CARD_H + 10 + _line_height(21) + 8


def _draw_row(p: _Painter, y: int, down: frozenset[int], deck_size: int, exhausted: bool,
              galleon: int) -> None:
    """The Event row: the cards face down (``down``, 1 to 5) and the deck; the Galleon."""
    frame = (0, y, WIDTH, y + ROW_HEIGHT)
    p.text(MARGIN, y + 10, _label("Event row"), 22, NAVY, frame, bold=True)
    cy = y + 40
    for i in range(5):
        cx = MARGIN + i * (CARD_W + CARD_GAP)
        card = (cx, cy, cx + CARD_W, cy + CARD_H)
        label = str(i + 1)
        lx = cx + (CARD_W - _width(label, 28, True)) // 2
        if i + 1 in down:
            p.rounded(card, radius=6, fill=CARD_BACK, outline=INK)
            p.rounded((cx + 4, cy + 4, cx + CARD_W - 4, cy + CARD_H - 4),
                                     radius=4, outline=GOLD)
            p.text(lx, cy + 22, label, 28, CARD_TEXT, card, bold=True)
        else:
            p.rounded(card, radius=6, outline=SEA_LINE, width=2)
            p.text(lx, cy + 22, label, 28, SEA_LINE, card, bold=True)
    info = _label("Deck: {n}", n=deck_size)
    if exhausted:
        info += _label(", not refilled")
    p.text(MARGIN, cy + CARD_H + 10, info, 21, MUTED, frame)
    _draw_galleon(p, MARGIN + 5 * (CARD_W + CARD_GAP) + 10, y + 10, galleon)


def _draw_galleon(p: _Painter, x: int, y: int, count: int) -> None:
    w = WIDTH - MARGIN - x
    frame = (x, y, x + w, y + ROW_HEIGHT - 10)
    for mx in (x + w // 4, x + w // 2, x + 3 * w // 4):
        p.draw.rectangle((mx - 2, y + 4, mx + 2, y + 40), fill=WOOD)
        p.draw.rectangle((mx - 16, y + 8, mx + 16, y + 32), fill=DECK, outline=MUTED)
    hull = (x, y + 40, x + w, y + 96)
    p.draw.polygon([(x, y + 40), (x + w, y + 40), (x + w - 20, y + 96), (x + 20, y + 96)],
                   fill=HULL, outline=INK)
    first, second = _word("ships", "GALLEON", "Spanish Galleon").split(" ", 1)
    p.text(x + 24, y + 44, first, 21, WHITE, hull, bold=True)
    p.text(x + 24, y + 68, second, 21, WHITE, hull, bold=True)
    label = _label("{n} treasure", n=count)
    p.text(x, y + 104, label, 21, INK, frame)
    _chests(p, x + _width(label, 21, False) + 8, y + 108, count, GOLD, x + w)


def _chests(p: _Painter, x: int, y: int, count: int, color: Color, right: int) -> None:
    """Treasure chests in a row from x, as many as fit before ``right``."""
    for i in range(count):
        cx = x + i * 19
        if cx + 16 > right:
            return
        p.rounded((cx, y, cx + 16, y + 13), radius=2, fill=color, outline=INK)
        p.draw.line((cx, y + 5, cx + 16, y + 5), fill=INK)
        p.draw.rectangle((cx + 7, y + 4, cx + 9, y + 8), fill=GOLD if color != GOLD else INK)


CREW_SIZE = 22
CIRCLE = 32


def _crew_layout(player: _Crew, width: int) -> tuple[str, tuple[str, ...], bool]:
    """The rank tag, the name's lines and whether the tag goes below the name, for a crew
    line ``width`` px wide: the tag sits at the right of the first line and later lines
    have the whole width; when the name's first word does not fit beside the tag, the tag
    goes on a line of its own below."""
    tags = "/".join(_rank_tag(r) for r in player.ranks)
    room = width - CIRCLE - 8
    name = " ".join(drawable(player.name).split())
    whole = wrap(name, CREW_SIZE, False, room)
    if not tags:
        return tags, whole, False
    beside = room - _width(tags, MIN_TEXT, True) - 24
    first = wrap(name, CREW_SIZE, False, beside)
    if len(first) == 1:
        return tags, first, False
    if _width(name.split(" ")[0], CREW_SIZE, False) > beside:
        return tags, whole, True
    head = wrap(whole[0], CREW_SIZE, False, beside)[0]  # the words that fit beside the tag
    return tags, (head, *wrap(name[len(head):].strip(), CREW_SIZE, False, room)), False


def _crew_height(player: _Crew, width: int) -> int:
    _, lines, below = _crew_layout(player, width)
    return max(CIRCLE, (len(lines) + below) * _line_height(CREW_SIZE)) + 6


def _draw_crew(p: _Painter, x: int, y: int, player: _Crew, width: int) -> int:
    tags, lines, below = _crew_layout(player, width)
    height = _crew_height(player, width)
    frame = (x, y, x + width, y + height)
    p.draw.ellipse((x, y, x + CIRCLE, y + CIRCLE), fill=NAVY)
    number = str(player.seat + 1)
    circle = (x, y, x + CIRCLE, y + CIRCLE)
    p.text(x + (CIRCLE - _width(number, MIN_TEXT, True)) // 2, y + 4, number, MIN_TEXT, WHITE,
           circle, bold=True)
    p.lines(x + CIRCLE + 8, y + 2, lines, CREW_SIZE, INK, frame)
    if tags:
        tag_w = _width(tags, MIN_TEXT, True) + 16
        ty = y + len(lines) * _line_height(CREW_SIZE) if below else y
        pill = (x + width - tag_w, ty + 1, x + width, ty + CIRCLE - 1)
        p.rounded(pill, radius=14, fill=GOLD)
        p.text(pill[0] + 8, ty + 4, tags, MIN_TEXT, INK, pill, bold=True)
    return y + height


SHIP_W = (WIDTH - 2 * MARGIN - 12) // 2
HOLD_H = 40


def _rowboat_lines(occupant: _Rower | None) -> tuple[str, ...]:
    who = (_label("empty") if occupant is None
           else f"({occupant.seat + 1}) {drawable(occupant.name)}")
    return wrap(_label("Rowboat: {who}", who=who), MIN_TEXT, False, SHIP_W - 24)


def _ship_height(ship: _Ship) -> int:
    crew = sum(_crew_height(player, SHIP_W - 24) for player in ship.crew) or 40
    rowboat = len(_rowboat_lines(ship.rower)) * _line_height(MIN_TEXT)
    return 48 + crew + 8 + HOLD_H + 12 + rowboat + 12


def _draw_ships(p: _Painter, y: int, height: int, ships: tuple[_Ship, ...]) -> None:
    """The ships side by side, each panel ``height`` px tall (the band is 14 px more)."""
    for i, ship in enumerate(ships):
        _draw_ship(p, MARGIN + i * (SHIP_W + 12), y, height, ship)


def _draw_ship(p: _Painter, x: int, y: int, height: int, ship: _Ship) -> None:
    panel = (x, y, x + SHIP_W, y + height)
    p.rounded(panel, radius=12, fill=DECK, outline=WOOD, width=4)
    code = ship.code
    p.rounded((x, y, x + SHIP_W, y + 42), radius=12, fill=WOOD)
    name = _word("ships", code, SHIP_NAMES[code]) if code in SHIP_NAMES else code
    title = f"{name} ({code})"  # the code is what replies say: ROW FD
    p.text(x + 12, y + 8, title, 22 if _width(title, 22, True) <= SHIP_W - 24 else MIN_TEXT,
           WHITE, (x, y, x + SHIP_W, y + 42), bold=True)
    cy = y + 48
    inner = SHIP_W - 24
    if not ship.crew:
        p.text(x + 12, cy + 4, _label("nobody aboard"), MIN_TEXT, MUTED, panel)
        cy += 40
    for player in ship.crew:
        cy = _draw_crew(p, x + 12, cy, player, inner)
    cy += 8
    half = (inner - 8) // 2
    for i, (label, count, color) in enumerate((("British", ship.british, BRITISH),
                                               ("French", ship.french, FRENCH))):
        hx = x + 12 + i * (half + 8)
        hold = (hx, cy, hx + half, cy + HOLD_H)
        p.rounded(hold, radius=6, fill=WHITE, outline=color, width=2)
        text = f"{_team(label)} {count}"
        right = p.text(hx + 8, cy + 7, text, MIN_TEXT, color, hold, bold=True)
        _chests(p, hx + 14 + right, cy + 14, count, color, hx + half - 4)
    cy += HOLD_H + 12
    p.lines(x + 12, cy, _rowboat_lines(ship.rower), MIN_TEXT, NAVY if ship.rower else MUTED,
            panel)


TORTUGA_COL = (WIDTH - 2 * MARGIN - 24 - 16) // 2


def _tortuga_columns(ashore: tuple[_Crew, ...]
                     ) -> tuple[tuple[_Crew, ...], tuple[_Crew, ...]]:
    if len(ashore) <= 3:
        return ashore, ()
    half = (len(ashore) + 1) // 2
    return ashore[:half], ashore[half:]


def _tortuga_height(ashore: tuple[_Crew, ...]) -> int:
    columns = _tortuga_columns(ashore)
    width = TORTUGA_COL if columns[1] else WIDTH - 2 * MARGIN - 24
    crew = max(sum(_crew_height(player, width) for player in column) for column in columns)
    return 52 + max(crew, 40) + 10


def _draw_tortuga(p: _Painter, y: int, height: int, ashore: tuple[_Crew, ...], french: int,
                  british: int) -> None:
    """Tortuga: who is ashore (front to back, in two columns past three) and its
    treasure."""
    panel = (MARGIN, y, WIDTH - MARGIN, y + height)
    p.rounded(panel, radius=24, fill=SAND, outline=SAND_EDGE, width=3)
    title = _word("places", "TORTUGA", "Tortuga")
    p.text(MARGIN + 16, y + 12, title, 22, NAVY, panel, bold=True)
    x = WIDTH - MARGIN - 16
    for label, count, color in (("French", french, FRENCH), ("British", british, BRITISH)):
        text = f"{_team(label)} {count}"
        x -= _width(text, MIN_TEXT, True)
        p.text(x, y + 13, text, MIN_TEXT, color, panel, bold=True)
        x -= 18
    # a palm tree, between the title and the treasure
    px = max(MARGIN + 150, MARGIN + 16 + _width(title, 22, True) + 24)
    p.draw.line((px, y + 40, px + 4, y + 12), fill=WOOD, width=4)
    for dx, dy in ((-14, -2), (14, -2), (-10, 8), (12, 8)):
        p.draw.line((px + 4, y + 12, px + 4 + dx, y + 12 + dy), fill=GREEN, width=4)
    columns = _tortuga_columns(ashore)
    width = TORTUGA_COL if columns[1] else WIDTH - 2 * MARGIN - 24
    if not ashore:
        p.text(MARGIN + 16, y + 56, _label("nobody ashore"), MIN_TEXT, MUTED, panel)
    for i, column in enumerate(columns):
        cy = y + 52
        for player in column:
            cy = _draw_crew(p, MARGIN + 12 + i * (width + 16), cy, player, width)


Block = tuple[tuple[str, ...], Color, bool]  # a paragraph of the footer: lines, colour, bold


def _footer_blocks(public: Mapping[str, Any]) -> tuple[Block, ...]:
    """The footer's paragraphs: (lines, colour, bold)."""
    width = WIDTH - 2 * MARGIN
    hang = width - 24
    blocks: list[Block] = [
        ((_label("In front of players"),), NAVY, True)]
    kept = [p for p in public["players"] if p.get("kept")]
    for player in kept:
        text = f"({player['seat'] + 1}) {_name(player)}: " + ", ".join(
            _title(t) for t in player["kept"])
        first, *rest = wrap(text, MIN_TEXT, False, width)
        more = wrap(" ".join(rest), MIN_TEXT, False, hang) if rest else ()
        blocks.append(((first, *("  " + line for line in more)), INK, False))
    if not kept:
        blocks.append(((_label("nothing"),), MUTED, False))
    discard = public["discard"]
    last = ", ".join(_title(t) for t in discard[-4:]) if discard else _label("empty")
    more_cards = _label(" (+{n} more)", n=len(discard) - 4) if len(discard) > 4 else ""
    blocks.append((wrap(_label("Discard pile: {cards}{more}", cards=last, more=more_cards),
                        MIN_TEXT, False, width), MUTED, False))
    blocks.append((wrap(_label("Crews run from the front (top) to the back."), MIN_TEXT,
                        False, width), MUTED, False))
    return tuple(blocks)


def _footer_height(blocks: Iterable[Block]) -> int:
    return 10 + sum(len(lines) * _line_height(MIN_TEXT) + 6 for lines, _, _ in blocks) + 8


def _draw_footer(p: _Painter, y: int, blocks: tuple[Block, ...]) -> None:
    frame = (0, y, WIDTH, y + _footer_height(blocks))
    y += 10
    for lines, color, bold in blocks:
        size = 22 if bold else MIN_TEXT
        for line in lines:
            x = MARGIN + (24 if line.startswith("  ") else 0)
            p.text(x, y, line.strip(), size, color, frame, bold)
            y += _line_height(MIN_TEXT)
        y += 6


# ---------------------------------------------------------------- the picture


class _Band(NamedTuple):
    """A band of the picture, as wide as it (the header, the Event row, the ships, Tortuga,
    the footer): its height and how it is drawn, ``draw(painter, top, *shows)``, from
    ``shows`` alone (and the picture's language)."""

    height: int
    draw: Callable[..., None]
    shows: tuple[Any, ...]


def _bands(public_view: Mapping[str, Any]) -> tuple[_Band, ...]:
    """The picture's bands top to bottom, each with exactly what it shows."""
    players = {p["seat"]: p for p in public_view["players"]}
    ships = {s["ship"]: s for s in public_view["ships"]}
    rowboats = public_view["rowboats"]
    rowers = {code: None if rowboats.get(code) is None
              else _Rower(players[rowboats[code]]["seat"], str(players[rowboats[code]]["name"]))
              for code in ("FD", "JR")}
    header = _header_lines(public_view, players)
    score = public_view["score"]
    shown = tuple(_Ship(code, tuple(_crew(players[s]) for s in ships[code]["line"]),
                        ships[code]["british"], ships[code]["french"], rowers[code])
                  for code in ("FD", "JR"))
    ship_h = max(_ship_height(ship) for ship in shown)
    ashore = tuple(_crew(players[s]) for s in public_view["tortuga"])
    tortuga_h = _tortuga_height(ashore)
    footer = _footer_blocks(public_view)
    return (
        _Band(_header_height(header), _draw_header,
              (public_view["turn_number"], score["french"], score["british"], header)),
        _Band(ROW_HEIGHT, _draw_row, (frozenset(public_view["row"]), public_view["deck_size"],
                                      bool(public_view.get("exhausted")),
                                      public_view["galleon"])),
        _Band(ship_h + 14, _draw_ships, (ship_h, shown)),
        _Band(tortuga_h, _draw_tortuga, (tortuga_h, ashore, public_view["tortuga_french"],
                                         public_view["tortuga_british"])),
        _Band(_footer_height(footer), _draw_footer, (footer,)),
    )


def _paint(public_view: Mapping[str, Any], language: str = "en") -> _Painter:
    """The whole picture drawn on one canvas (:func:`texts`; :func:`draw_board` draws it
    band by band)."""
    with _drawing_in(language):
        bands = _bands(public_view)
        p = _Painter(sum(band.height for band in bands))
        y = 0
        for band in bands:
            band.draw(p, y, *band.shows)
            y += band.height
        return p


def texts(public_view: Mapping[str, Any], language: str = "en"
          ) -> tuple[tuple[int, int], list[DrawnText]]:
    """The picture's size and every text drawn on it, with its box and the area it had to
    stay in (for tests: nothing may be cut)."""
    p = _paint(public_view, language)
    return p.image.size, p.texts


#: (background, ink) pairs that meet in the picture: text, outlines and edges.
_PAIRS: tuple[tuple[Color, Color], ...] = (
    *((SEA, ink) for ink in (INK, MUTED, NAVY, SEA_LINE, WOOD, DECK, HULL, SAND_EDGE,
                             BRITISH, FRENCH, NAVY, WHITE)),
    (NAVY, CARD_TEXT), (NAVY, WHITE), (NAVY, BRITISH), (NAVY, FRENCH),
    (BRITISH, WHITE), (FRENCH, WHITE),
    (CARD_BACK, CARD_TEXT), (CARD_BACK, GOLD), (CARD_BACK, INK),
    (HULL, WHITE), (HULL, INK), (DECK, MUTED),
    *((DECK, ink) for ink in (INK, MUTED, NAVY, WOOD, GOLD, WHITE)),
    (GOLD, INK), (WOOD, WHITE), (WHITE, BRITISH), (WHITE, FRENCH), (WHITE, INK),
    (BRITISH, INK), (FRENCH, INK), (GOLD, WHITE),
    *((SAND, ink) for ink in (INK, MUTED, NAVY, BRITISH, FRENCH, WOOD, GREEN, SAND_EDGE,
                              GOLD)),
)


@cache
def _colours() -> tuple[Color, ...]:
    """A fixed palette: the picture's colours and, for anti-aliased text and edges, the
    shade halfway between the two colours of each pair that meets (:data:`_PAIRS`). More
    shades look no better at this size and make the file a tenth larger."""
    colors: list[Color] = [SEA, SEA_LINE, INK, MUTED, WOOD, DECK, SAND, SAND_EDGE, BRITISH,
                           FRENCH, GOLD, NAVY, CARD_BACK, CARD_TEXT, WHITE, GREEN, HULL]
    for bg, ink in _PAIRS:
        r, g, b = ((x + y + 1) // 2 for x, y in zip(bg, ink, strict=True))
        colors.append((r, g, b))
    unique = tuple(dict.fromkeys(colors))
    assert len(unique) <= 256, len(unique)
    return unique


@cache
def _palette() -> Image.Image:
    """:func:`_colours` as the palette ``Image.quantize`` maps onto."""
    flat = [c for color in _colours() for c in color]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + [0] * (768 - len(flat)))
    return palette


def draw_board(public_view: Mapping[str, Any], language: str = "en") -> bytes:
    """Draw the public board for a reader of ``language`` ("en", "ko"); returns PNG bytes
    (8-bit palette).

    Drawn band by band (:func:`_bands`), each band remembered as the PNG's rows for what it
    shows (:func:`_drawn_band`): a move changes a band or two of the picture before it."""
    with _drawing_in(language):
        bands = _bands(public_view)
        rows = _joined([_drawn_band(band, language) for band in bands],
                       [band.height for band in bands])
    if rows is None:
        return draw_whole(public_view, language)
    return _png(WIDTH, len(rows) // (WIDTH + 1), _palette_bytes(), rows)


def draw_whole(public_view: Mapping[str, Any], language: str = "en") -> bytes:
    """:func:`draw_board`'s picture drawn on one canvas, nothing remembered (tests compare
    them; the way when two bands paint one row)."""
    image = _paint(public_view, language).image
    return palette_png(image.quantize(palette=_palette(), dither=Image.Dither.NONE),
                       len(_colours()))


# ---------------------------------------------------------------- bands remembered
#
# A band is drawn on a canvas of its own, with :data:`_SPILL` rows above and below it to
# catch what its drawing paints beyond its edges (the header's and Tortuga's frames reach
# one row into the next band), mapped onto the palette (pixel by pixel: the same indexes as
# the whole picture mapped at once) and kept as the PNG's rows. The picture's rows are the
# bands' rows in turn, with the rows they spilled laid over a neighbour's row that nothing
# painted; a row that two bands paint is drawn whole instead (:func:`draw_whole`). Nothing
# paints the sea's colour, so a row of sea is one nothing painted.

_SPILL = 8
_ROW = WIDTH + 1  # a row as the PNG holds it: a filter byte (0, none), then the indexes
_SEA_ROW = bytes(_ROW)  # SEA is the palette's colour 0

#: bytes of bands' rows kept per process (a band is 60 to 400 KB; the five bands of one
#: 5-player picture are about 550 KB): what the pictures of about a dozen games' last
#: versions show.
BANDS_KEPT = 8 << 20


@dataclass(frozen=True)
class _DrawnBand:
    """A band's rows as the PNG holds them, and the rows it painted beyond its edges (their
    row numbers from its top: negative above it)."""

    rows: bytes
    spilled: tuple[tuple[int, bytes], ...]


_drawn: OrderedDict[tuple[Any, ...], _DrawnBand] = OrderedDict()
_drawn_size = 0
_drawn_lock = threading.Lock()  # a worker may draw in threads


def forget_bands() -> None:
    """Forget every band drawn (benchmarks: a round starts as a new process would)."""
    global _drawn_size
    with _drawn_lock:
        _drawn.clear()
        _drawn_size = 0


def _drawn_band(band: _Band, language: str) -> _DrawnBand:
    """``band`` drawn in ``language``, once per process for what it shows (kept while
    :data:`BANDS_KEPT` allows)."""
    global _drawn_size
    key = (language, band.draw.__name__, band.height, band.shows)
    with _drawn_lock:
        drawn = _drawn.get(key)
        if drawn is not None:
            _drawn.move_to_end(key)
            return drawn
    # one column more on the right, made sea again after drawing (the picture ends before
    # it): the bytes of its palette indexes are then the PNG's rows shifted by one byte
    p = _Painter(_SPILL + band.height + _SPILL, _ROW)
    band.draw(p, _SPILL, *band.shows)
    p.image.paste(SEA, (WIDTH, 0, _ROW, p.image.height))
    rows = b"\0" + p.image.quantize(palette=_palette(), dither=Image.Dither.NONE).tobytes()[:-1]
    own = range(_SPILL, _SPILL + band.height)
    spilled = tuple((i - _SPILL, row) for i in range(len(rows) // _ROW) if i not in own
                    for row in (rows[i * _ROW:(i + 1) * _ROW],) if row != _SEA_ROW)
    drawn = _DrawnBand(rows[own.start * _ROW:own.stop * _ROW], spilled)
    with _drawn_lock:
        if key not in _drawn:
            _drawn[key] = drawn
            _drawn_size += len(drawn.rows) + sum(len(row) for _, row in spilled)
            while _drawn_size > BANDS_KEPT:
                _, old = _drawn.popitem(last=False)
                _drawn_size -= len(old.rows) + sum(len(row) for _, row in old.spilled)
    return drawn


def _joined(bands: Sequence[_DrawnBand], heights: Sequence[int]) -> bytes | None:
    """The picture's rows: the bands' rows top to bottom, each spilled row laid over the
    row it falls on when nothing painted that row (a spill past the picture's top or
    bottom is cut, as on one canvas); None when a painted row would be covered."""
    end = sum(heights)
    laid: dict[int, bytes] = {}
    top = 0
    for band, height in zip(bands, heights, strict=True):
        for dy, row in band.spilled:
            if 0 <= top + dy < end:
                if top + dy in laid:
                    return None
                laid[top + dy] = row
        top += height
    pieces: list[bytes | memoryview] = []
    top = 0
    for band, height in zip(bands, heights, strict=True):
        rows = memoryview(band.rows)
        start = 0
        for y in sorted(y - top for y in laid if top <= y < top + height):
            if rows[y * _ROW:(y + 1) * _ROW] != _SEA_ROW:
                return None
            pieces += (rows[start * _ROW:y * _ROW], laid[top + y])
            start = y + 1
        pieces.append(rows[start * _ROW:])
        top += height
    return b"".join(pieces)


@cache
def _palette_bytes() -> bytes:
    """The PNG's palette: :func:`_colours` (as :func:`palette_png` writes a picture mapped
    onto :func:`_palette`)."""
    return bytes(c for colour in _colours() for c in colour)


#: libdeflate's level 5, for both languages: with text in three shades (:data:`_SHADES`)
#: a 5-player picture is 17.2 KB mean at level 5 in 1.3 ms (Korean 16.6 KB), where the
#: shades mapped by nearest colour made 19.8 KB at level 8 in 4.0 ms (Korean 20.5 KB at
#: level 9 in 5.7 ms). Level 6 would be 16.3 KB in 1.5 ms; level 4 18.1 KB for 0.1 ms
#: less (benchmarks/README.md, issue 26).
DEFLATE_LEVEL = 5


def palette_png(image: Image.Image, colours: int, level: int = DEFLATE_LEVEL) -> bytes:
    """``image`` (mode ``P``) as a PNG: the first ``colours`` entries of its palette (the
    fixed palette's 61, where Pillow writes 256; the 56 to 58 a picture uses would save 12
    bytes but finding them took 0.3 ms), rows unfiltered (palette indexes are not numbers a
    filter could predict) and compressed by libdeflate. Pillow compresses with zlib only;
    the container is four chunks (PNG specification, section 5)."""
    assert image.mode == "P", image.mode
    width, height = image.size
    palette = bytes(image.getpalette() or [])[: 3 * colours]
    # each row with its filter byte (0, none) in front: a column of index 0 on the left
    framed = Image.new("P", (width + 1, height), 0)
    framed.paste(image, (1, 0))
    return _png(width, height, palette, framed.tobytes(), level)


def _png(width: int, height: int, palette: bytes, rows: bytes | bytearray,
         level: int = DEFLATE_LEVEL) -> bytes:
    """A PNG of 8-bit palette indexes: ``rows`` each with its filter byte in front."""
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8-bit indexed colour
    return b"".join((_PNG_SIGNATURE, _chunk(b"IHDR", header), _chunk(b"PLTE", palette),
                     _chunk(b"IDAT", deflate.zlib_compress(rows, level)),
                     _chunk(b"IEND", b"")))


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes | bytearray) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(data, zlib.crc32(kind)))
