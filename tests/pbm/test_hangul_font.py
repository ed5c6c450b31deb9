"""The bundled Hangul font for the board picture: it loads with Pillow, draws every
Korean term of the glossary, every Hangul syllable players' names are written in, digits
and Latin, and it carries its OFL licence under a name that is not a Reserved Font Name."""

from __future__ import annotations

from pathlib import Path

import pytest
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

from pbm.i18n.glossary import all_words

FONTS = Path(__file__).resolve().parents[2] / "pbm" / "fonts"
HANGUL = FONTS / "TortugaHangul-Regular.ttf"


def ks_x_1001_syllables() -> list[int]:
    """The 2,350 precomposed syllables of KS X 1001 (two-byte EUC-KR, rows 0xB0-0xC8)."""
    return [code for code in range(0xAC00, 0xD7A4)
            if len(encoded := chr(code).encode("cp949")) == 2
            and 0xB0 <= encoded[0] <= 0xC8 and encoded[1] >= 0xA1]


def missing(font_path: Path, text: str) -> set[str]:
    """The characters of ``text`` (spaces aside) the font has no glyph for."""
    cmap = TTFont(str(font_path)).getBestCmap()
    return {ch for ch in text if not ch.isspace() and ord(ch) not in cmap}


def ink(font: ImageFont.FreeTypeFont, text: str) -> int:
    image = Image.new("L", (40 * len(text) + 20, 60), 0)
    ImageDraw.Draw(image).text((5, 5), text, font=font, fill=255)
    bbox = image.getbbox()
    return 0 if bbox is None else sum(image.crop(bbox).histogram()[1:])


def test_the_font_loads_with_pillow_and_draws_hangul() -> None:
    font = ImageFont.truetype(str(HANGUL), 24)
    assert ink(font, "선장") > 50
    assert font.getname() == ("Tortuga Hangul", "Regular")  # not the reserved name


@pytest.mark.parametrize("word", all_words("ko"))
def test_every_korean_glossary_term_has_its_glyphs(word: str) -> None:
    assert missing(HANGUL, word) == set()
    assert ink(ImageFont.truetype(str(HANGUL), 20), word) > 0


def test_names_digits_and_latin_are_covered() -> None:
    syllables = "".join(map(chr, ks_x_1001_syllables()))
    assert len(syllables) == 2350
    assert missing(HANGUL, syllables + "0123456789 ABCxyz ㅋㅎㅠ") == set()
    assert missing(HANGUL, "민준 서연 지호 하은 도윤 김철수") == set()


def test_every_hangul_syllable_is_covered_so_any_korean_name_is_drawn() -> None:
    # 11,172 syllables: names outside KS X 1001's 2,350 (똠, 뷁, 햏) are drawn as written
    assert missing(HANGUL, "".join(map(chr, range(0xAC00, 0xD7A4)))) == set()
    assert ink(ImageFont.truetype(str(HANGUL), 21), "똠뷁햏") > 0


def test_the_latin_fonts_alone_could_not_draw_korean() -> None:
    # Why the font is bundled: DejaVu Sans has no Hangul at all.
    assert missing(FONTS / "DejaVuSans.ttf", "선장") == {"선", "장"}


def test_the_font_ships_with_its_licence_and_stays_small() -> None:
    licence = (FONTS / "OFL-TortugaHangul.txt").read_text(encoding="utf-8")
    assert "SIL Open Font License" in licence and "NAVER" in licence
    assert HANGUL.stat().st_size < 1_400_000  # 1.32 MB: every syllable, no hinting
