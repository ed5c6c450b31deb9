"""The board picture drawn from a public view: band by band (:func:`draw_board`), or on
one canvas (:func:`draw_whole`); the texts drawn, for tests (:func:`texts`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PIL import Image

from pbm.board_image.bands import drawn_band, joined_rows
from pbm.board_image.paint import WIDTH, DrawnText, Painter, drawing_in
from pbm.board_image.png import (
    palette_bytes,
    palette_colours,
    palette_image,
    palette_png,
    png_of_rows,
)
from pbm.board_image.sections import picture_bands


def paint_whole(public_view: Mapping[str, Any], language: str = "en") -> Painter:
    """The whole picture drawn on one canvas (:func:`texts`; :func:`draw_board` draws it
    band by band)."""
    with drawing_in(language):
        bands = picture_bands(public_view)
        p = Painter(sum(band.height for band in bands))
        y = 0
        for band in bands:
            band.draw(p, y, *band.shows)
            y += band.height
        return p


def texts(public_view: Mapping[str, Any], language: str = "en"
          ) -> tuple[tuple[int, int], list[DrawnText]]:
    """The picture's size and every text drawn on it, with its box and the area it had to
    stay in (for tests: nothing may be cut)."""
    p = paint_whole(public_view, language)
    return p.image.size, p.texts


def draw_board(public_view: Mapping[str, Any], language: str = "en") -> bytes:
    """Draw the public board for a reader of ``language`` ("en", "ko"); returns PNG bytes
    (8-bit palette).

    Drawn band by band (:func:`picture_bands`), each band remembered as the PNG's rows for what it
    shows (:func:`drawn_band`): a move changes a band or two of the picture before it."""
    with drawing_in(language):
        bands = picture_bands(public_view)
        rows = joined_rows([drawn_band(band, language) for band in bands],
                       [band.height for band in bands])
    if rows is None:
        return draw_whole(public_view, language)
    return png_of_rows(WIDTH, len(rows) // (WIDTH + 1), palette_bytes(), rows)


def draw_whole(public_view: Mapping[str, Any], language: str = "en") -> bytes:
    """:func:`draw_board`'s picture drawn on one canvas, nothing remembered (tests compare
    them; the way when two bands paint one row)."""
    image = paint_whole(public_view, language).image
    return palette_png(image.quantize(palette=palette_image(), dither=Image.Dither.NONE),
                       len(palette_colours()))
