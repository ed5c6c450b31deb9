"""The board picture's ink: its sizes and colours, its words in each language, the fonts,
text measured, wrapped and drawn in three shades, and the painter that draws boxes and text
on a canvas (:class:`Painter`)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from anyascii import anyascii
from PIL import Image, ImageChops, ImageDraw, ImageFont

from pbm.i18n.glossary import term

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
#: kept); game terms come from the glossary (:func:`game_word`).
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


def translated_label(english: str, **fields: object) -> str:
    """One label of the picture in its language, ``fields`` filled in."""
    text = english if DRAWING_LANGUAGE.get() == "en" else KOREAN_LABELS[english]
    return text.format(**fields) if fields else text


def game_word(section: str, key: str, english: str) -> str:
    """A game term: ``english`` in the English picture (as it always was), the glossary's
    word in a Korean one (``ranks``/``CAPTAIN`` -> 선장)."""
    language = DRAWING_LANGUAGE.get()
    return english if language == "en" else term(section, key, language)


def rank_tag(rank: str) -> str:
    return game_word("ranks", rank, RANK_TAGS.get(rank, rank)) if rank in RANK_TAGS else rank


def team_name(team: str) -> str:
    """``"British"`` / ``"French"`` (a hold, a score) in the picture's language."""
    return game_word("teams", team.upper(), team)

FONTS = Path(__file__).resolve().parents[1] / "fonts"

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

#: The language of the picture being drawn ("en" or "ko"); set by :func:`paint_whole` only.
DRAWING_LANGUAGE: ContextVar[str] = ContextVar("board_language", default="en")


@contextmanager
def drawing_in(language: str) -> Iterator[None]:
    token = DRAWING_LANGUAGE.set(language)
    try:
        yield
    finally:
        DRAWING_LANGUAGE.reset(token)


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
    return _drawable(text, DRAWING_LANGUAGE.get())


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


def text_width(text: str, size: int, bold: bool) -> int:
    return _width_in(text, size, bold, DRAWING_LANGUAGE.get())


@lru_cache(maxsize=8192)
def _width_in(text: str, size: int, bold: bool, language: str) -> int:
    if language == "en":
        return int(load_font(size, bold).getlength(text) + 0.999)
    return int(sum(_run_length(run, hangul, size, bold) for run, hangul in _runs(text))
               + 0.999)


def wrap(text: str, size: int, bold: bool, width: int) -> tuple[str, ...]:
    """``text`` broken into lines no wider than ``width`` px: at spaces, and inside a word
    only when the word alone is too wide. Nothing is dropped."""
    return _wrap(text, size, bold, width, DRAWING_LANGUAGE.get())


@lru_cache(maxsize=4096)
def _wrap(text: str, size: int, bold: bool, width: int, language: str
          ) -> tuple[str, ...]:
    """``text`` broken into lines no wider than ``width`` px: at spaces, and inside a word
    only when the word alone is too wide. Nothing is dropped."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if text_width(candidate, size, bold) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        while len(word) > 1 and text_width(word, size, bold) > width:  # a long word: break it
            cut = len(word) - 1
            while cut > 1 and text_width(word[:cut], size, bold) > width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    lines.append(line)
    return tuple(lines)


def text_mask(text: str, size: int, bold: bool) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an anti-aliased mask, with its offset from the top left
    of the line: the same names and labels come back in every version of a game, and
    rendering glyphs is most of the cost of drawing the picture."""
    language = DRAWING_LANGUAGE.get()
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
#: the palette has for each pair that meets (:data:`pbm.board_image.png._PAIRS`). Blending
#: every coverage and mapping it to the nearest palette colour would edge a letter with
#: whatever colours lie near the blend, 4 to 15 between a pair, many of them other pairs'
#: shades: noise the eye does not see at this size, but a fifth of the compressed PNG
#: (19.8 KB at libdeflate level 8, against 17.2 KB at level 5 with three shades).
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


class Painter:
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
        mask, left, top = text_mask(text, size, bold)
        box = (x + left, y + top, x + left + mask.width, y + top + mask.height)
        if mask.width and mask.height:
            self._paste(fill, box, mask.im)
        shown = size if DRAWING_LANGUAGE.get() == "en" else _korean_px(size)
        self.texts.append(DrawnText(text, shown, box, frame))
        return text_width(text, size, bold)

    def lines(self, x: int, y: int, lines: Sequence[str], size: int, fill: Color,
              frame: Box, bold: bool = False) -> int:
        """Draw lines one under the other; returns the y below them."""
        for line in lines:
            self.text(x, y, line, size, fill, frame, bold)
            y += line_height(size)
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


def line_height(size: int) -> int:
    return size + size // 3
