"""The board picture: a PNG drawn from the *public* view only (never a seat's secrets).

One picture per game version, shared by every recipient's email (``cid:board``).
Layout: the Event row and the Spanish Galleon on top, the Flying Dutchman (left) and the
Jolly Roger (right) with their crews, holds and rowboats, Tortuga between them, the score
and the cards lying in front of players below.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from anyascii import anyascii
from PIL import Image, ImageDraw, ImageFont

from engine.cards import EventTitle

WIDTH, HEIGHT = 760, 470

SEA = (197, 223, 236)
SEA_LINE = (176, 207, 224)
INK = (42, 33, 24)
MUTED = (110, 100, 86)
WOOD = (122, 82, 48)
WOOD_LIGHT = (236, 220, 190)
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

RANK_TAGS = {"CAPTAIN": "Capt", "FIRST_MATE": "Mate", "CABIN_BOY": "Boy", "GOVERNOR": "Gov"}
SHIP_NAMES = {"FD": "Flying Dutchman", "JR": "Jolly Roger"}


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


_PUNCTUATION = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                              "\u2013": "-", "\u2014": "-", "\u2026": "..."})


def _ascii(text: str) -> str:
    """Text the built-in font can draw: other letters transliterated (``anyascii``), never
    a ``?`` for a letter."""
    text = text.translate(_PUNCTUATION)
    out = "".join(ch if " " <= ch <= "~" else anyascii(ch) for ch in text)
    return "".join(ch for ch in out if " " <= ch <= "~")


def _text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, font: Any,
          fill: tuple[int, int, int]) -> None:
    """Draw ``text`` (made drawable; spaces widened, the built-in font's are very thin)."""
    draw.text(xy, _spaced(text), font=font, fill=fill)


def _spaced(text: str) -> str:
    return _ascii(text).replace(" ", "  ")


def _text_width(draw: ImageDraw.ImageDraw, text: str, font: Any) -> int:
    left, _top, right, _bottom = draw.textbbox((0, 0), _spaced(text), font=font)
    return int(right - left)


def _fit(draw: ImageDraw.ImageDraw, text: str, font: Any, width: int) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels (the longest prefix that fits,
    found by bisection: measuring text is the slow part of drawing)."""
    if _text_width(draw, text, font) <= width:
        return text
    fits, most = 0, len(text)  # the answer lies in [fits, most]
    while fits < most:
        middle = (fits + most + 1) // 2
        if _text_width(draw, text[:middle] + "...", font) <= width:
            fits = middle
        else:
            most = middle - 1
    return text[:fits].rstrip() + "..."


def _chests(draw: ImageDraw.ImageDraw, x: int, y: int, count: int, color: tuple[int, int, int],
            max_shown: int = 6) -> int:
    """Small treasure chests in a row; returns the x after them."""
    for i in range(min(count, max_shown)):
        cx = x + i * 15
        draw.rounded_rectangle((cx, y, cx + 12, y + 10), radius=2, fill=color, outline=INK)
        draw.line((cx, y + 4, cx + 12, y + 4), fill=INK)
        draw.rectangle((cx + 5, y + 3, cx + 7, y + 6), fill=GOLD)
    return x + min(count, max_shown) * 15


def _hold(draw: ImageDraw.ImageDraw, x: int, y: int, label: str, count: int,
          color: tuple[int, int, int], width: int) -> None:
    font = _font(13)
    draw.rounded_rectangle((x, y, x + width, y + 22), radius=4, fill=WHITE, outline=color,
                           width=2)
    _text(draw, (x + 6, y + 4), f"{label} {count}", font=font, fill=color)
    _chests(draw, x + 78, y + 6, count, color, max_shown=max(1, (width - 84) // 15))


def _crew_line(draw: ImageDraw.ImageDraw, x: int, y: int, player: Mapping[str, Any],
               width: int) -> None:
    font = _font(14)
    small = _font(11)
    draw.ellipse((x, y, x + 20, y + 20), fill=NAVY)
    label = str(player["seat"] + 1)
    _text(draw, (x + 10 - _text_width(draw, label, small) // 2, y + 3), label, font=small,
              fill=WHITE)
    tags = "/".join(RANK_TAGS.get(r, r) for r in player.get("ranks") or [])
    tag_width = _text_width(draw, tags, small) + 10 if tags else 0
    name = _fit(draw, player["name"], font, width - 28 - tag_width)
    _text(draw, (x + 26, y + 2), name, font=font, fill=INK)
    if tags:
        tx = x + width - tag_width
        draw.rounded_rectangle((tx, y + 2, tx + tag_width - 2, y + 18), radius=7,
                               fill=GOLD)
        _text(draw, (tx + 4, y + 4), tags, font=small, fill=INK)


def _ship(draw: ImageDraw.ImageDraw, x: int, y: int, ship: Mapping[str, Any],
          players: Mapping[int, Mapping[str, Any]]) -> None:
    w, h = 240, 190
    title = _font(16)
    # hull
    draw.polygon([(x, y + 34), (x + w, y + 34), (x + w - 22, y + h), (x + 22, y + h)],
                 fill=WOOD, outline=INK)
    draw.rounded_rectangle((x + 8, y + 40, x + w - 8, y + h - 8), radius=6, fill=DECK)
    # mast and flag, at the stern end so the name stays clear
    mx = x + w - 40
    draw.rectangle((mx - 2, y - 10, mx + 2, y + 34), fill=WOOD)
    draw.polygon([(mx + 2, y - 10), (mx + 32, y - 2), (mx + 2, y + 6)], fill=INK)
    code = ship["ship"]
    name = f"{SHIP_NAMES.get(code, code)} ({code})"
    _text(draw, (x + 6, y + 12), name, font=title, fill=NAVY)
    line = ship["line"]
    if not line:
        _text(draw, (x + 20, y + 52), "nobody aboard", font=_font(13), fill=MUTED)
    for i, seat in enumerate(line[:5]):
        _crew_line(draw, x + 16, y + 46 + i * 23, players[seat], w - 32)
    hy = y + h + 6
    _hold(draw, x + 4, hy, "British", ship["british"], BRITISH, 116)
    _hold(draw, x + 124, hy, "French", ship["french"], FRENCH, 116)


def _rowboat(draw: ImageDraw.ImageDraw, x: int, y: int, label: str,
             occupant: Mapping[str, Any] | None) -> None:
    font = _font(12)
    w = 104
    draw.chord((x, y - 14, x + w, y + 22), start=0, end=180, fill=WOOD, outline=INK)
    _text(draw, (x + w // 2 - _text_width(draw, label, _font(11)) // 2, y - 18), label,
              font=_font(11), fill=MUTED)
    text = "empty" if occupant is None else f"({occupant['seat'] + 1}) {occupant['name']}"
    text = _fit(draw, text, font, w - 8)
    _text(draw, (x + w // 2 - _text_width(draw, text, font) // 2, y + 2), text, font=font,
              fill=WHITE if occupant else WOOD_LIGHT)


def _tortuga(draw: ImageDraw.ImageDraw, x: int, y: int, public: Mapping[str, Any],
             players: Mapping[int, Mapping[str, Any]]) -> None:
    w = 200
    line = list(public["tortuga"])
    rows = max(1, len(line))
    h = 64 + rows * 22
    draw.rounded_rectangle((x, y, x + w, y + h), radius=40, fill=SAND, outline=SAND_EDGE,
                           width=3)
    # a palm tree
    draw.line((x + w - 30, y + 26, x + w - 26, y + 4), fill=WOOD, width=3)
    for dx, dy in ((-12, -2), (12, -2), (-8, 6), (10, 6)):
        draw.line((x + w - 26, y + 4, x + w - 26 + dx, y + 4 + dy), fill=(60, 130, 60), width=3)
    _text(draw, (x + 18, y + 8), "Tortuga", font=_font(16), fill=NAVY)
    if not line:
        _text(draw, (x + 24, y + 34), "nobody ashore", font=_font(13), fill=MUTED)
    for i, seat in enumerate(line):
        _crew_line(draw, x + 14, y + 32 + i * 22, players[seat], w - 28)
    ay = y + h - 28
    small = _font(12)
    _text(draw, (x + 18, ay + 2), f"Brit {public['tortuga_british']}", font=small, fill=BRITISH)
    _chests(draw, x + 60, ay + 4, public["tortuga_british"], BRITISH, 2)
    _text(draw, (x + 104, ay + 2), f"Fr {public['tortuga_french']}", font=small, fill=FRENCH)
    _chests(draw, x + 134, ay + 4, public["tortuga_french"], FRENCH, 2)


def _event_row(draw: ImageDraw.ImageDraw, x: int, y: int, public: Mapping[str, Any]) -> None:
    font = _font(12)
    big = _font(20)
    down = set(public["row"])
    _text(draw, (x, y - 18), "Event row", font=_font(13), fill=NAVY)
    for p in range(1, 6):
        cx = x + (p - 1) * 52
        if p in down:
            draw.rounded_rectangle((cx, y, cx + 44, y + 60), radius=5, fill=CARD_BACK,
                                   outline=INK)
            draw.rounded_rectangle((cx + 4, y + 4, cx + 40, y + 56), radius=3, outline=GOLD)
            _text(draw, (cx + 22 - _text_width(draw, str(p), big) // 2, y + 18), str(p), font=big,
                      fill=CARD_TEXT)
        else:
            draw.rounded_rectangle((cx, y, cx + 44, y + 60), radius=5, outline=SEA_LINE,
                                   width=2)
            _text(draw, (cx + 22 - _text_width(draw, str(p), font) // 2, y + 22), str(p),
                      font=font, fill=MUTED)
    info = f"deck {public['deck_size']}"
    if public.get("exhausted"):
        info += ", not refilled"
    _text(draw, (x, y + 64), info, font=_font(11), fill=MUTED)


def _galleon(draw: ImageDraw.ImageDraw, x: int, y: int, count: int) -> None:
    w = 210
    draw.polygon([(x, y + 26), (x + w, y + 26), (x + w - 18, y + 62), (x + 18, y + 62)],
                 fill=(150, 110, 60), outline=INK)
    for mx in (x + 60, x + 105, x + 150):
        draw.rectangle((mx - 2, y - 8, mx + 2, y + 26), fill=WOOD)
        draw.rectangle((mx - 14, y - 4, mx + 14, y + 16), fill=DECK, outline=MUTED)
    _text(draw, (x + 24, y + 30), "Spanish Galleon", font=_font(13), fill=WHITE)
    _text(draw, (x + 24, y + 45), f"{count} treasure", font=_font(11), fill=CARD_TEXT)
    _chests(draw, x + 124, y + 46, count, GOLD, 4)


def _footer(draw: ImageDraw.ImageDraw, y: int, public: Mapping[str, Any]) -> None:
    font = _font(13)
    kept = [f"({p['seat'] + 1}) {p['name']}: "
            + ", ".join(_title(t) for t in p["kept"])
            for p in public["players"] if p.get("kept")]
    text = "In front of players: " + ("; ".join(kept) if kept else "nothing")
    _text(draw, (16, y), _fit(draw, text, font, WIDTH - 32), font=font, fill=INK)
    discard = public["discard"]
    last = ", ".join(_title(t) for t in discard[-4:]) if discard else "empty"
    more = f" (+{len(discard) - 4} more)" if len(discard) > 4 else ""
    _text(draw, (16, y + 20), _fit(draw, f"Discard pile: {last}{more}", font, WIDTH - 32),
              font=font, fill=MUTED)
    _text(draw, (16, y + 40), "Circles show seat numbers; each line runs from the front "
          "(top) to the back.", font=_font(12), fill=MUTED)


def _title(title: str) -> str:
    try:
        return EventTitle(title).label
    except ValueError:
        return title.replace("_", " ").title()


def _header(draw: ImageDraw.ImageDraw, public: Mapping[str, Any],
            players: Mapping[int, Mapping[str, Any]]) -> None:
    draw.rectangle((0, 0, WIDTH, 32), fill=NAVY)
    status = public["status"]
    left = f"Tortuga 1667  -  turn {public['turn_number']}"
    if status == "playing" and public["turn_seat"] in players:
        left += f"  -  {players[public['turn_seat']]['name']} to play"
    elif status == "over":
        winner = public.get("winner")
        left += f"  -  game over{', ' + winner.capitalize() + ' win' if winner else ''}"
    _text(draw, (12, 8), _fit(draw, left, _font(15), 470), font=_font(15), fill=CARD_TEXT)
    score = public["score"]
    bx = WIDTH - 230
    draw.rounded_rectangle((bx, 5, bx + 100, 27), radius=10, fill=BRITISH)
    _text(draw, (bx + 10, 9), f"British {score['british']}", font=_font(13), fill=WHITE)
    draw.rounded_rectangle((bx + 110, 5, bx + 215, 27), radius=10, fill=FRENCH)
    _text(draw, (bx + 120, 9), f"French {score['french']}", font=_font(13), fill=WHITE)
    if public.get("sudden_death"):
        _text(draw, (bx - 110, 9), "SUDDEN DEATH", font=_font(13), fill=GOLD)


def draw_board(public_view: Mapping[str, Any]) -> bytes:
    """Draw the public board; returns PNG bytes."""
    players = {p["seat"]: p for p in public_view["players"]}
    tortuga_rows = max(1, len(public_view["tortuga"]))
    height = max(HEIGHT, 240 + 64 + tortuga_rows * 22 + 90)
    image = Image.new("RGB", (WIDTH, height), SEA)
    draw = ImageDraw.Draw(image)
    for wy in range(60, height, 34):  # gentle waves
        for wx in range(0, WIDTH, 60):
            draw.arc((wx, wy, wx + 30, wy + 10), start=200, end=340, fill=SEA_LINE, width=2)
    _header(draw, public_view, players)
    _event_row(draw, 16, 62, public_view)
    _galleon(draw, WIDTH - 240, 58, public_view["galleon"])
    ships = {s["ship"]: s for s in public_view["ships"]}
    _ship(draw, 16, 160, ships["FD"], players)
    _ship(draw, WIDTH - 256, 160, ships["JR"], players)
    rowboats = public_view["rowboats"]
    fd_row, jr_row = rowboats.get("FD"), rowboats.get("JR")
    _rowboat(draw, 268, 200, "FD rowboat", None if fd_row is None else players[fd_row])
    _rowboat(draw, WIDTH - 372, 200, "JR rowboat", None if jr_row is None else players[jr_row])
    _tortuga(draw, WIDTH // 2 - 100, 240, public_view, players)
    _footer(draw, height - 68, public_view)
    out = io.BytesIO()
    # zlib's default level, not optimize=True: measured 16 ms instead of 63 ms to encode,
    # for files 5% larger (40 KiB instead of 38).
    image.save(out, format="PNG")
    return out.getvalue()
