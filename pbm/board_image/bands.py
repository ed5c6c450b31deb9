"""Bands of the board picture kept per process as the PNG's rows, for exactly what each
shows (a bounded ``cachetools`` cache, sized in bytes): a move changes a band or two, and
the next version's picture draws only those; :func:`joined_rows` lays the bands' rows
together."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache, cached
from PIL import Image

from pbm.board_image.paint import SEA, WIDTH, Painter
from pbm.board_image.png import palette_image
from pbm.board_image.sections import Band

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
ROW_BYTES = WIDTH + 1  # a row as the PNG holds it: a filter byte (0, none), then the indexes
SEA_ROW = bytes(ROW_BYTES)  # SEA is the palette's colour 0

#: bytes of bands' rows kept per process (a band is 60 to 400 KB; the five bands of one
#: 5-player picture are about 550 KB): what the pictures of about a dozen games' last
#: versions show.
BANDS_KEPT = 8 << 20


@dataclass(frozen=True)
class DrawnBand:
    """A band's rows as the PNG holds them, and the rows it painted beyond its edges (their
    row numbers from its top: negative above it)."""

    rows: bytes
    spilled: tuple[tuple[int, bytes], ...]


def _size(drawn: DrawnBand) -> int:
    return len(drawn.rows) + sum(len(row) for _, row in drawn.spilled)


_DRAWN: LRUCache[tuple[Any, ...], DrawnBand] = LRUCache(maxsize=BANDS_KEPT, getsizeof=_size)
_DRAWN_LOCK = threading.Lock()  # a worker may draw in threads


def clear_cache() -> None:
    """Forget every band drawn (tests, benchmarks: start as a new process would)."""
    with _DRAWN_LOCK:
        _DRAWN.clear()


def kept_bytes() -> int:
    """Bytes of bands' rows this process keeps (at most :data:`BANDS_KEPT`)."""
    with _DRAWN_LOCK:
        return int(_DRAWN.currsize)


def _band_key(band: Band, language: str) -> tuple[Any, ...]:
    return language, band.draw.__name__, band.height, band.shows


@cached(_DRAWN, key=_band_key, lock=_DRAWN_LOCK)
def drawn_band(band: Band, language: str) -> DrawnBand:
    """``band`` drawn in ``language``, once per process for what it shows (kept while
    :data:`BANDS_KEPT` allows)."""
    # one column more on the right, made sea again after drawing (the picture ends before
    # it): the bytes of its palette indexes are then the PNG's rows shifted by one byte
    p = Painter(_SPILL + band.height + _SPILL, ROW_BYTES)
    band.draw(p, _SPILL, *band.shows)
    p.image.paste(SEA, (WIDTH, 0, ROW_BYTES, p.image.height))
    rows = b"\0" + p.image.quantize(palette=palette_image(),
                                    dither=Image.Dither.NONE).tobytes()[:-1]
    own = range(_SPILL, _SPILL + band.height)
    spilled = tuple((i - _SPILL, row) for i in range(len(rows) // ROW_BYTES) if i not in own
                    for row in (rows[i * ROW_BYTES:(i + 1) * ROW_BYTES],) if row != SEA_ROW)
    return DrawnBand(rows[own.start * ROW_BYTES:own.stop * ROW_BYTES], spilled)


def joined_rows(bands: Sequence[DrawnBand], heights: Sequence[int]) -> bytes | None:
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
            if rows[y * ROW_BYTES:(y + 1) * ROW_BYTES] != SEA_ROW:
                return None
            pieces += (rows[start * ROW_BYTES:y * ROW_BYTES], laid[top + y])
            start = y + 1
        pieces.append(rows[start * ROW_BYTES:])
        top += height
    return b"".join(pieces)
