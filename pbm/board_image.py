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

Fast and small (issue 15): fonts are loaded once, text is measured once per string and
size, the picture is drawn in RGB, mapped onto a fixed palette of its own colours and their
anti-aliasing shades, and saved as an 8-bit PNG with only the colours it uses, compressed by
libdeflate (:func:`palette_png`).
"""

from __future__ import annotations

import struct
import unicodedata
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import deflate
from anyascii import anyascii
from PIL import Image, ImageDraw, ImageFont

from engine.cards import EventTitle

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


@cache
def load_font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans at ``size`` px, loaded once per process."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(FONTS / name), size)


def _covered(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in COVERED)


@lru_cache(maxsize=4096)
def drawable(text: str) -> str:
    """``text`` with every character the fonts lack folded to its base letters (NFKD,
    accents dropped) or transliterated (``anyascii``), ``?`` only as the last resort;
    control characters become spaces."""
    if all(_covered(ch) for ch in text):
        return text
    out = []
    for ch in text:
        if _covered(ch):
            out.append(ch)
        elif unicodedata.category(ch)[0] in "CZ":
            out.append(" ")
        else:
            folded = "".join(c for c in unicodedata.normalize("NFKD", ch)
                             if not unicodedata.combining(c))
            if not (folded and all(map(_covered, folded))):
                # a letter (CJK, Thai...) is transliterated; a symbol or emoji is left out
                folded = anyascii(ch) if unicodedata.category(ch)[0] in "LN" else ""
                if not folded:
                    continue
            out.append(folded if folded and all(map(_covered, folded)) else "?")
    return "".join(out)


@lru_cache(maxsize=8192)
def _width(text: str, size: int, bold: bool) -> int:
    return int(load_font(size, bold).getlength(text) + 0.999)


@lru_cache(maxsize=4096)
def wrap(text: str, size: int, bold: bool, width: int) -> tuple[str, ...]:
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
        while _width(word, size, bold) > width:  # a very long word: break it
            cut = len(word) - 1
            while cut > 1 and _width(word[:cut], size, bold) > width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    lines.append(line)
    return tuple(lines)


@lru_cache(maxsize=4096)
def _ink(text: str, size: int, bold: bool) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an anti-aliased mask, with its offset from the top left
    of the line: the same names and labels come back in every version of a game, and
    rendering glyphs is most of the cost of drawing the picture."""
    font = load_font(size, bold)
    left, top, right, bottom = (int(v) for v in font.getbbox(text))
    mask = Image.new("L", (max(0, right - left), max(0, bottom - top)), 0)
    if mask.width and mask.height:
        ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255)
    return mask, left, top


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

    def __init__(self, height: int) -> None:
        self.image = Image.new("RGB", (WIDTH, height), SEA)
        self.draw = ImageDraw.Draw(self.image)
        self.texts: list[DrawnText] = []

    def text(self, x: int, y: int, text: str, size: int, fill: Color, frame: Box,
             bold: bool = False) -> int:
        """Draw one line at (x, y), top left; returns its width."""
        mask, left, top = _ink(text, size, bold)
        box = (x + left, y + top, x + left + mask.width, y + top + mask.height)
        if mask.width and mask.height:
            self.image.paste(fill, box, mask)
        self.texts.append(DrawnText(text, size, box, frame))
        return _width(text, size, bold)

    def lines(self, x: int, y: int, lines: Sequence[str], size: int, fill: Color,
              frame: Box, bold: bool = False) -> int:
        """Draw lines one under the other; returns the y below them."""
        for line in lines:
            self.text(x, y, line, size, fill, frame, bold)
            y += _line_height(size)
        return y


def _line_height(size: int) -> int:
    return size + size // 3


# ---------------------------------------------------------------- sections
#
# Each section is measured first (``_*_height``) so the picture is made at its final
# height, then drawn (``_draw_*``) from a top y.


def _title(title: str) -> str:
    try:
        return EventTitle(title).label
    except ValueError:
        return title.replace("_", " ").title()


def _name(player: Mapping[str, Any]) -> str:
    return drawable(str(player["name"]))


def _header_lines(public: Mapping[str, Any], players: Mapping[int, Mapping[str, Any]]
                  ) -> tuple[str, ...]:
    status = public["status"]
    if status == "over":
        winner = public.get("winner")
        text = f"Game over: the {winner.capitalize()} win" if winner else "Game over"
    elif status == "playing" and public["turn_seat"] in players:
        text = f"{_name(players[public['turn_seat']])} to play"
    else:
        text = "Waiting to begin"
    if public.get("sudden_death"):
        text += " · sudden death"
    return wrap(text, 22, False, WIDTH - 2 * MARGIN)


HEADER_TOP = 52


def _draw_header(p: _Painter, public: Mapping[str, Any], lines: Sequence[str]) -> int:
    height = HEADER_TOP + len(lines) * _line_height(22) + 10
    frame = (0, 0, WIDTH, height)
    p.draw.rectangle(frame, fill=NAVY)
    p.text(MARGIN, 12, f"Tortuga 1667 · turn {public['turn_number']}", 24, CARD_TEXT, frame,
           bold=True)
    score = public["score"]
    x = WIDTH - MARGIN
    for label, color in ((f"French {score['french']}", FRENCH),
                         (f"British {score['british']}", BRITISH)):
        w = _width(label, 21, True) + 20
        pill = (x - w, 8, x, 42)
        p.draw.rounded_rectangle(pill, radius=16, fill=color)
        p.text(x - w + 10, 13, label, 21, WHITE, pill, bold=True)
        x -= w + 8
    p.lines(MARGIN, HEADER_TOP, lines, 22, WHITE, frame)
    return height


CARD_W, CARD_H, CARD_GAP = 60, 80, 8
ROW_HEIGHT = 40 + CARD_H + 10 + _line_height(21) + 8


def _draw_row(p: _Painter, y: int, public: Mapping[str, Any]) -> int:
    frame = (0, y, WIDTH, y + ROW_HEIGHT)
    p.text(MARGIN, y + 10, "Event row", 22, NAVY, frame, bold=True)
    down = set(public["row"])
    cy = y + 40
    for i in range(5):
        cx = MARGIN + i * (CARD_W + CARD_GAP)
        card = (cx, cy, cx + CARD_W, cy + CARD_H)
        label = str(i + 1)
        lx = cx + (CARD_W - _width(label, 28, True)) // 2
        if i + 1 in down:
            p.draw.rounded_rectangle(card, radius=6, fill=CARD_BACK, outline=INK)
            p.draw.rounded_rectangle((cx + 4, cy + 4, cx + CARD_W - 4, cy + CARD_H - 4),
                                     radius=4, outline=GOLD)
            p.text(lx, cy + 22, label, 28, CARD_TEXT, card, bold=True)
        else:
            p.draw.rounded_rectangle(card, radius=6, outline=SEA_LINE, width=2)
            p.text(lx, cy + 22, label, 28, SEA_LINE, card, bold=True)
    info = f"Deck: {public['deck_size']}"
    if public.get("exhausted"):
        info += ", not refilled"
    p.text(MARGIN, cy + CARD_H + 10, info, 21, MUTED, frame)
    _draw_galleon(p, MARGIN + 5 * (CARD_W + CARD_GAP) + 10, y + 10, public["galleon"])
    return y + ROW_HEIGHT


def _draw_galleon(p: _Painter, x: int, y: int, count: int) -> None:
    w = WIDTH - MARGIN - x
    frame = (x, y, x + w, y + ROW_HEIGHT - 10)
    for mx in (x + w // 4, x + w // 2, x + 3 * w // 4):
        p.draw.rectangle((mx - 2, y + 4, mx + 2, y + 40), fill=WOOD)
        p.draw.rectangle((mx - 16, y + 8, mx + 16, y + 32), fill=DECK, outline=MUTED)
    hull = (x, y + 40, x + w, y + 96)
    p.draw.polygon([(x, y + 40), (x + w, y + 40), (x + w - 20, y + 96), (x + 20, y + 96)],
                   fill=HULL, outline=INK)
    p.text(x + 24, y + 44, "Spanish", 21, WHITE, hull, bold=True)
    p.text(x + 24, y + 68, "Galleon", 21, WHITE, hull, bold=True)
    label = f"{count} treasure"
    p.text(x, y + 104, label, 21, INK, frame)
    _chests(p, x + _width(label, 21, False) + 8, y + 108, count, GOLD, x + w)


def _chests(p: _Painter, x: int, y: int, count: int, color: Color, right: int) -> None:
    """Treasure chests in a row from x, as many as fit before ``right``."""
    for i in range(count):
        cx = x + i * 19
        if cx + 16 > right:
            return
        p.draw.rounded_rectangle((cx, y, cx + 16, y + 13), radius=2, fill=color, outline=INK)
        p.draw.line((cx, y + 5, cx + 16, y + 5), fill=INK)
        p.draw.rectangle((cx + 7, y + 4, cx + 9, y + 8), fill=GOLD if color != GOLD else INK)


CREW_SIZE = 22
CIRCLE = 32


def _crew_layout(player: Mapping[str, Any], width: int
                 ) -> tuple[str, tuple[str, ...], bool]:
    """The rank tag, the name's lines and whether the tag goes below the name, for a crew
    line ``width`` px wide: the tag sits at the right of the first line and later lines
    have the whole width; when the name's first word does not fit beside the tag, the tag
    goes on a line of its own below."""
    tags = "/".join(RANK_TAGS.get(r, r) for r in player.get("ranks") or [])
    room = width - CIRCLE - 8
    name = " ".join(_name(player).split())
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


def _crew_height(player: Mapping[str, Any], width: int) -> int:
    _, lines, below = _crew_layout(player, width)
    return max(CIRCLE, (len(lines) + below) * _line_height(CREW_SIZE)) + 6


def _draw_crew(p: _Painter, x: int, y: int, player: Mapping[str, Any], width: int) -> int:
    tags, lines, below = _crew_layout(player, width)
    height = _crew_height(player, width)
    frame = (x, y, x + width, y + height)
    p.draw.ellipse((x, y, x + CIRCLE, y + CIRCLE), fill=NAVY)
    number = str(player["seat"] + 1)
    circle = (x, y, x + CIRCLE, y + CIRCLE)
    p.text(x + (CIRCLE - _width(number, MIN_TEXT, True)) // 2, y + 4, number, MIN_TEXT, WHITE,
           circle, bold=True)
    p.lines(x + CIRCLE + 8, y + 2, lines, CREW_SIZE, INK, frame)
    if tags:
        tag_w = _width(tags, MIN_TEXT, True) + 16
        ty = y + len(lines) * _line_height(CREW_SIZE) if below else y
        pill = (x + width - tag_w, ty + 1, x + width, ty + CIRCLE - 1)
        p.draw.rounded_rectangle(pill, radius=14, fill=GOLD)
        p.text(pill[0] + 8, ty + 4, tags, MIN_TEXT, INK, pill, bold=True)
    return y + height


SHIP_W = (WIDTH - 2 * MARGIN - 12) // 2
HOLD_H = 40


def _rowboat_lines(occupant: Mapping[str, Any] | None) -> tuple[str, ...]:
    who = "empty" if occupant is None else f"({occupant['seat'] + 1}) {_name(occupant)}"
    return wrap(f"Rowboat: {who}", MIN_TEXT, False, SHIP_W - 24)


def _ship_height(ship: Mapping[str, Any], players: Mapping[int, Mapping[str, Any]],
                 occupant: Mapping[str, Any] | None) -> int:
    crew = sum(_crew_height(players[s], SHIP_W - 24) for s in ship["line"]) or 40
    rowboat = len(_rowboat_lines(occupant)) * _line_height(MIN_TEXT)
    return 48 + crew + 8 + HOLD_H + 12 + rowboat + 12


def _draw_ship(p: _Painter, x: int, y: int, height: int, ship: Mapping[str, Any],
               players: Mapping[int, Mapping[str, Any]],
               occupant: Mapping[str, Any] | None) -> None:
    panel = (x, y, x + SHIP_W, y + height)
    p.draw.rounded_rectangle(panel, radius=12, fill=DECK, outline=WOOD, width=4)
    code = ship["ship"]
    p.draw.rounded_rectangle((x, y, x + SHIP_W, y + 42), radius=12, fill=WOOD)
    title = f"{SHIP_NAMES.get(code, code)} ({code})"  # the code is what replies say: ROW FD
    p.text(x + 12, y + 8, title, 22 if _width(title, 22, True) <= SHIP_W - 24 else MIN_TEXT,
           WHITE, (x, y, x + SHIP_W, y + 42), bold=True)
    cy = y + 48
    inner = SHIP_W - 24
    if not ship["line"]:
        p.text(x + 12, cy + 4, "nobody aboard", MIN_TEXT, MUTED, panel)
        cy += 40
    for seat in ship["line"]:
        cy = _draw_crew(p, x + 12, cy, players[seat], inner)
    cy += 8
    half = (inner - 8) // 2
    for i, (label, count, color) in enumerate((("British", ship["british"], BRITISH),
                                               ("French", ship["french"], FRENCH))):
        hx = x + 12 + i * (half + 8)
        hold = (hx, cy, hx + half, cy + HOLD_H)
        p.draw.rounded_rectangle(hold, radius=6, fill=WHITE, outline=color, width=2)
        text = f"{label} {count}"
        right = p.text(hx + 8, cy + 7, text, MIN_TEXT, color, hold, bold=True)
        _chests(p, hx + 14 + right, cy + 14, count, color, hx + half - 4)
    cy += HOLD_H + 12
    p.lines(x + 12, cy, _rowboat_lines(occupant), MIN_TEXT, NAVY if occupant else MUTED,
            panel)


TORTUGA_COL = (WIDTH - 2 * MARGIN - 24 - 16) // 2


def _tortuga_columns(public: Mapping[str, Any]) -> tuple[list[int], list[int]]:
    line = list(public["tortuga"])
    if len(line) <= 3:
        return line, []
    half = (len(line) + 1) // 2
    return line[:half], line[half:]


def _tortuga_height(public: Mapping[str, Any], players: Mapping[int, Mapping[str, Any]]
                    ) -> int:
    columns = _tortuga_columns(public)
    width = TORTUGA_COL if columns[1] else WIDTH - 2 * MARGIN - 24
    crew = max(sum(_crew_height(players[s], width) for s in column) for column in columns)
    return 52 + max(crew, 40) + 10


def _draw_tortuga(p: _Painter, y: int, height: int, public: Mapping[str, Any],
                  players: Mapping[int, Mapping[str, Any]]) -> None:
    panel = (MARGIN, y, WIDTH - MARGIN, y + height)
    p.draw.rounded_rectangle(panel, radius=24, fill=SAND, outline=SAND_EDGE, width=3)
    p.text(MARGIN + 16, y + 12, "Tortuga", 22, NAVY, panel, bold=True)
    x = WIDTH - MARGIN - 16
    for label, count, color in (("French", public["tortuga_french"], FRENCH),
                                ("British", public["tortuga_british"], BRITISH)):
        text = f"{label} {count}"
        x -= _width(text, MIN_TEXT, True)
        p.text(x, y + 13, text, MIN_TEXT, color, panel, bold=True)
        x -= 18
    # a palm tree, between the title and the treasure
    px = MARGIN + 150
    p.draw.line((px, y + 40, px + 4, y + 12), fill=WOOD, width=4)
    for dx, dy in ((-14, -2), (14, -2), (-10, 8), (12, 8)):
        p.draw.line((px + 4, y + 12, px + 4 + dx, y + 12 + dy), fill=GREEN, width=4)
    columns = _tortuga_columns(public)
    width = TORTUGA_COL if columns[1] else WIDTH - 2 * MARGIN - 24
    if not public["tortuga"]:
        p.text(MARGIN + 16, y + 56, "nobody ashore", MIN_TEXT, MUTED, panel)
    for i, column in enumerate(columns):
        cy = y + 52
        for seat in column:
            cy = _draw_crew(p, MARGIN + 12 + i * (width + 16), cy, players[seat], width)


def _footer_blocks(public: Mapping[str, Any]) -> list[tuple[tuple[str, ...], Color, bool]]:
    """The footer's paragraphs: (lines, colour, bold)."""
    width = WIDTH - 2 * MARGIN
    hang = width - 24
    blocks: list[tuple[tuple[str, ...], Color, bool]] = [
        (("In front of players",), NAVY, True)]
    kept = [p for p in public["players"] if p.get("kept")]
    for player in kept:
        text = f"({player['seat'] + 1}) {_name(player)}: " + ", ".join(
            _title(t) for t in player["kept"])
        first, *rest = wrap(text, MIN_TEXT, False, width)
        more = wrap(" ".join(rest), MIN_TEXT, False, hang) if rest else ()
        blocks.append(((first, *("  " + line for line in more)), INK, False))
    if not kept:
        blocks.append((("nothing",), MUTED, False))
    discard = public["discard"]
    last = ", ".join(_title(t) for t in discard[-4:]) if discard else "empty"
    more_cards = f" (+{len(discard) - 4} more)" if len(discard) > 4 else ""
    blocks.append((wrap(f"Discard pile: {last}{more_cards}", MIN_TEXT, False, width), MUTED,
                   False))
    blocks.append((wrap("Crews run from the front (top) to the back.", MIN_TEXT, False,
                        width), MUTED, False))
    return blocks


def _footer_height(blocks: Iterable[tuple[tuple[str, ...], Color, bool]]) -> int:
    return 10 + sum(len(lines) * _line_height(MIN_TEXT) + 6 for lines, _, _ in blocks) + 8


def _draw_footer(p: _Painter, y: int, height: int,
                 blocks: Iterable[tuple[tuple[str, ...], Color, bool]]) -> None:
    frame = (0, y, WIDTH, y + height)
    y += 10
    for lines, color, bold in blocks:
        size = 22 if bold else MIN_TEXT
        for line in lines:
            x = MARGIN + (24 if line.startswith("  ") else 0)
            p.text(x, y, line.strip(), size, color, frame, bold)
            y += _line_height(MIN_TEXT)
        y += 6


# ---------------------------------------------------------------- the picture


def _paint(public_view: Mapping[str, Any]) -> _Painter:
    players = {p["seat"]: p for p in public_view["players"]}
    ships = {s["ship"]: s for s in public_view["ships"]}
    rowboats = public_view["rowboats"]
    occupants = {code: None if rowboats.get(code) is None else players[rowboats[code]]
                 for code in ("FD", "JR")}
    header = _header_lines(public_view, players)
    header_h = HEADER_TOP + len(header) * _line_height(22) + 10
    ship_h = max(_ship_height(ships[c], players, occupants[c]) for c in ("FD", "JR"))
    tortuga_h = _tortuga_height(public_view, players)
    footer = _footer_blocks(public_view)
    footer_h = _footer_height(footer)
    height = header_h + ROW_HEIGHT + ship_h + 14 + tortuga_h + footer_h

    p = _Painter(height)
    y = _draw_header(p, public_view, header)
    y = _draw_row(p, y, public_view)
    for i, code in enumerate(("FD", "JR")):
        _draw_ship(p, MARGIN + i * (SHIP_W + 12), y, ship_h, ships[code], players,
                   occupants[code])
    y += ship_h + 14
    _draw_tortuga(p, y, tortuga_h, public_view, players)
    _draw_footer(p, y + tortuga_h, footer_h, footer)
    return p


def texts(public_view: Mapping[str, Any]) -> tuple[tuple[int, int], list[DrawnText]]:
    """The picture's size and every text drawn on it, with its box and the area it had to
    stay in (for tests: nothing may be cut)."""
    p = _paint(public_view)
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
def _palette() -> Image.Image:
    """A fixed palette: the picture's colours and, for anti-aliased text and edges, the
    shade halfway between the two colours of each pair that meets (:data:`_PAIRS`). More
    shades look no better at this size and make the file a tenth larger."""
    colors: list[Color] = [SEA, SEA_LINE, INK, MUTED, WOOD, DECK, SAND, SAND_EDGE, BRITISH,
                           FRENCH, GOLD, NAVY, CARD_BACK, CARD_TEXT, WHITE, GREEN, HULL]
    for bg, ink in _PAIRS:
        r, g, b = ((x + y + 1) // 2 for x, y in zip(bg, ink, strict=True))
        colors.append((r, g, b))
    unique = list(dict.fromkeys(colors))
    assert len(unique) <= 256, len(unique)
    flat = [c for color in unique for c in color]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + [0] * (768 - len(flat)))
    return palette


def draw_board(public_view: Mapping[str, Any]) -> bytes:
    """Draw the public board; returns PNG bytes (8-bit palette)."""
    image = _paint(public_view).image
    return palette_png(image.quantize(palette=_palette(), dither=Image.Dither.NONE))


#: libdeflate's level 8: about 7% smaller than zlib's level 6, in about the same time
#: (zlib's own level 8 is 2.5 times slower for the same size). Level 6 would take 1.8 ms
#: instead of 4.7 for a 5-player picture (a tenth of a reply's worker time), but the
#: mean picture would grow from 20.0 to 21.2 KB, over the 20 KB the pictures are held to.
DEFLATE_LEVEL = 8


def palette_png(image: Image.Image) -> bytes:
    """``image`` (mode ``P``) as a PNG: only the palette entries it uses, rows unfiltered
    (palette indexes are not numbers a filter could predict) and compressed by libdeflate.
    Pillow writes all 256 entries and compresses with zlib only; the container is four
    chunks (PNG specification, section 5)."""
    assert image.mode == "P", image.mode
    width, height = image.size
    highest = image.getextrema()[1]  # one band: (lowest, highest) palette index
    assert isinstance(highest, int), highest
    used = highest + 1
    palette = bytes(image.getpalette() or [])[: 3 * used]
    # each row with its filter byte (0, none) in front: a column of index 0 on the left
    framed = Image.new("P", (width + 1, height), 0)
    framed.paste(image, (1, 0))
    rows = framed.tobytes()
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8-bit indexed colour
    return b"".join((_PNG_SIGNATURE, _chunk(b"IHDR", header), _chunk(b"PLTE", palette),
                     _chunk(b"IDAT", deflate.zlib_compress(rows, DEFLATE_LEVEL)),
                     _chunk(b"IEND", b"")))


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes | bytearray) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(data, zlib.crc32(kind)))
