"""The game's terms in every language we speak, read once from ``glossary.toml``.

One table for the reply parser (Korean words -> commands) and the renderer (terms in the
player's language). Each term has a section (``ships``, ``ranks``, ``teams``, ``things``,
``actions``, ``symbols``, ``events``), a key (``FD``, ``CAPTAIN``, ``PISTOL`` ...), its
words by language, and where the Korean word comes from (``rulebook`` or ``chosen``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

GLOSSARY_PATH = Path(__file__).with_name("glossary.toml")


@dataclass(frozen=True)
class Term:
    """One game term: ``words["ko"]`` is its Korean, ``source`` where that comes from."""

    section: str
    key: str
    words: dict[str, str]
    source: str

    def word(self, lang: str) -> str:
        """The term in ``lang`` (English when that language has none)."""
        return self.words.get(lang) or self.words["en"]


@cache
def terms() -> dict[tuple[str, str], Term]:
    """Every term by (section, key), in file order."""
    data = tomllib.loads(GLOSSARY_PATH.read_text(encoding="utf-8"))
    return {
        (section, key): Term(section, key, {lang: word for lang, word in entry.items()
                                             if lang != "source"}, entry.get("source", ""))
        for section, entries in data.items()
        for key, entry in entries.items()
    }


def term(section: str, key: str, lang: str = "en") -> str:
    """``term("ranks", "CAPTAIN", "ko")`` -> ``"선장"``; KeyError for an unknown term."""
    return terms()[(section, key)].word(lang)


def section(name: str) -> dict[str, Term]:
    """The terms of one section by key (``section("events")["PISTOL"]``)."""
    return {key: t for (sec, key), t in terms().items() if sec == name}


def event_name(title: str, lang: str = "en") -> str:
    """An Event card's name (``EventTitle`` value, e.g. ``"BLACK_SPOT"``) in ``lang``."""
    return term("events", title, lang)


def all_words(lang: str) -> list[str]:
    """Every term's word in ``lang`` (for fonts and tests)."""
    return [t.word(lang) for t in terms().values()]
