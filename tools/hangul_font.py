"""Regenerate the board picture's Hangul font: a subset of NanumGothic (OFL 1.1).

    apt-get install fonts-nanum          # NanumGothic.ttf (Debian, OFL)
    ./dev font [path/to/NanumGothic.ttf]

Writes pbm/fonts/TortugaHangul-Regular.ttf: ASCII and Latin-1, general punctuation,
Hangul compatibility letters (ㅋㅋ) and all 11,172 precomposed Hangul syllables
(U+AC00-U+D7A3), so any Korean name is drawn as written: 1.32 MB unhinted. The 2,350
syllables of KS X 1001 alone (the set every legacy Korean encoding has) made 0.76 MB, but
a name outside them (똠, 뷁) was then drawn as a box. NanumGothic is a Reserved Font Name
of the OFL: the modified (subset) font is renamed "Tortuga Hangul", as the licence asks.
fontTools is a dev dependency; only the subset ships.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset  # type: ignore[import-untyped]
from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbm.i18n.glossary import all_words  # noqa: E402

SOURCE = Path("/usr/share/fonts/truetype/nanum/NanumGothic.ttf")
TARGET = ROOT / "pbm" / "fonts" / "TortugaHangul-Regular.ttf"
FAMILY = "Tortuga Hangul"


def ks_x_1001_syllables() -> list[int]:
    """The 2,350 precomposed syllables of KS X 1001 (two-byte EUC-KR, rows 0xB0-0xC8)."""
    found = []
    for code in range(0xAC00, 0xD7A4):
        encoded = chr(code).encode("cp949")
        if len(encoded) == 2 and 0xB0 <= encoded[0] <= 0xC8 and encoded[1] >= 0xA1:
            found.append(code)
    return found


def wanted() -> list[int]:
    """Every code point the subset keeps."""
    codes = set(range(0x20, 0x7F)) | set(range(0xA0, 0x100)) | set(range(0x2010, 0x2027))
    codes |= set(range(0x3131, 0x318F)) | {0x2190, 0x2191, 0x2192, 0x2193, 0xFFFD}
    codes |= set(ks_x_1001_syllables()) | set(range(0xAC00, 0xD7A4))  # every syllable
    codes |= {ord(ch) for word in all_words("ko") for ch in word if not ch.isspace()}
    return sorted(codes)


def rename(font: TTFont) -> None:
    """The OFL's Reserved Font Name rule: the subset is not called NanumGothic."""
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 16):
            names.setName(FAMILY, record.nameID, record.platformID, record.platEncID,
                          record.langID)
        elif record.nameID in (3, 4):
            names.setName(f"{FAMILY} Regular", record.nameID, record.platformID,
                          record.platEncID, record.langID)
        elif record.nameID == 6:
            names.setName("TortugaHangul-Regular", record.nameID, record.platformID,
                          record.platEncID, record.langID)
        elif record.nameID in (17,):
            names.setName("Regular", record.nameID, record.platformID, record.platEncID,
                          record.langID)


def main(source: Path = SOURCE, target: Path = TARGET) -> int:
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.hinting = False  # the picture is drawn large enough; hints double the size
    font = subset.load_font(str(source), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted())
    subsetter.subset(font)
    rename(font)
    subset.save_font(font, str(target), options)
    print(f"{target.relative_to(ROOT)}: {target.stat().st_size:,} bytes, "
          f"{len(TTFont(str(target)).getBestCmap()):,} code points")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE))
