"""The board picture's fixed palette (its colours and the shades where two meet) and the
PNG container written around 8-bit palette indexes, compressed by libdeflate."""

from __future__ import annotations

import struct
import zlib
from functools import cache

import deflate
from PIL import Image

from pbm.board_image.paint import (
    BRITISH,
    CARD_BACK,
    CARD_TEXT,
    DECK,
    FRENCH,
    GOLD,
    GREEN,
    HULL,
    INK,
    MUTED,
    NAVY,
    SAND,
    SAND_EDGE,
    SEA,
    SEA_LINE,
    WHITE,
    WOOD,
    Color,
)

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
def palette_colours() -> tuple[Color, ...]:
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
def palette_image() -> Image.Image:
    """:func:`palette_colours` as the palette ``Image.quantize`` maps onto."""
    flat = [c for color in palette_colours() for c in color]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + [0] * (768 - len(flat)))
    return palette



@cache
def palette_bytes() -> bytes:
    """The PNG's palette: :func:`palette_colours` (as :func:`palette_png` writes a picture mapped
    onto :func:`palette_image`)."""
    return bytes(c for colour in palette_colours() for c in colour)


#: libdeflate's level 5, for both languages: with text in three shades
#: (:data:`pbm.board_image.paint._SHADES`) a 5-player picture is 17.2 KB mean at level 5
#: in 1.3 ms (Korean 16.6 KB), where the shades mapped by nearest colour made 19.8 KB at
#: level 8 in 4.0 ms (Korean 20.5 KB at level 9 in 5.7 ms). Level 6 would be 16.3 KB in
#: 1.5 ms; level 4 18.1 KB for 0.1 ms less.
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
    return png_of_rows(width, height, palette, framed.tobytes(), level)


def png_of_rows(width: int, height: int, palette: bytes, rows: bytes | bytearray,
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
