"""The board picture: a PNG drawn from the *public* view only (never a seat's secrets).

One picture per game version and language, shared by every recipient's email
(``cid:board``).

Made to be read on a phone: email clients scale a picture to the screen's width, so the
picture is narrow and tall (:data:`WIDTH` = 640 px, the width the email shows it at) and no
text is smaller than 21 px: about 12 px on a 390 px wide phone screen. Top to bottom: the
header (turn, whose turn, score), the Event row and the Spanish Galleon, the Flying
Dutchman and the Jolly Roger side by side (crews front to back, holds, rowboats), Tortuga,
then the cards in front of players and the discard pile. Text is wrapped, never cut: the
picture grows as tall as it must (9 players with long names fit).

Names are drawn with DejaVu Sans (``pbm/fonts``: Latin, Greek and Cyrillic); a character
outside it is folded to its base letter (accents dropped) or shown as ``?``.
``draw_board(view, "ko")`` writes every label in Korean (the glossary's words) with the
bundled Hangul font (``TortugaHangul-Regular.ttf``, a NanumGothic subset: every Hangul
syllable, Latin-1), and draws Hangul names as written; a character that font lacks is
drawn with DejaVu Sans.

The modules, in the order they build on each other:

- :mod:`~pbm.board_image.paint`: sizes, colours, words, fonts, text and the painter;
- :mod:`~pbm.board_image.sections`: each section laid out and drawn, as a band;
- :mod:`~pbm.board_image.png`: the fixed palette and the PNG container (libdeflate);
- :mod:`~pbm.board_image.bands`: bands kept per process as the PNG's rows;
- :mod:`~pbm.board_image.picture`: the picture, band by band or on one canvas.
"""

from pbm.board_image.bands import BANDS_KEPT, clear_cache
from pbm.board_image.paint import (
    COVERED,
    HANGUL_COVERED,
    KOREAN_MIN_TEXT,
    MIN_TEXT,
    WIDTH,
    DrawnText,
    drawable,
    load_font,
    wrap,
)
from pbm.board_image.picture import draw_board, draw_whole, texts
from pbm.board_image.png import DEFLATE_LEVEL, palette_png

__all__ = [
    "BANDS_KEPT",
    "COVERED",
    "DEFLATE_LEVEL",
    "HANGUL_COVERED",
    "KOREAN_MIN_TEXT",
    "MIN_TEXT",
    "WIDTH",
    "DrawnText",
    "clear_cache",
    "draw_board",
    "draw_whole",
    "drawable",
    "load_font",
    "palette_png",
    "texts",
    "wrap",
]
