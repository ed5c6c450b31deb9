"""The game's terms in every language we speak, read once from ``glossary.toml``.

One table for the reply parser (Korean words -> commands) and the renderer (terms in the
player's language). Each term has a section (``ships``, ``ranks``, ``teams``, ``things``,
``actions``, ``symbols``, ``events``), a key (``FD``, ``CAPTAIN``, ``PISTOL`` ...), its
words by language, and where the Korean word comes from (``rulebook`` or ``chosen``).

A language folder (``pbm.i18n.languages``) may carry its own ``glossary.toml``, its words by
section and key (``[ships]`` ``FD = "..."``): a language added as a folder brings its terms.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pbm.i18n import languages

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
    """Every term by (section, key), in file order, with the words of every language
    folder's own ``glossary.toml``."""
    data = tomllib.loads(GLOSSARY_PATH.read_text(encoding="utf-8"))
    found = {
        (section, key): Term(section, key, {lang: word for lang, word in entry.items()
                                             if lang != "source"}, entry.get("source", ""))
        for section, entries in data.items()
        for key, entry in entries.items()
    }
    for lang in languages.languages():
        folder = languages.folder_of(lang)
        path = folder / "glossary.toml" if folder else None
        if path is None or not path.is_file():
            continue
        for section_name, words in tomllib.loads(path.read_text(encoding="utf-8")).items():
            for key, word in words.items():
                if (section_name, key) in found:
                    found[(section_name, key)].words[lang] = str(word)
    return found


languages.forget_on_refresh(terms.cache_clear)


def term(section: str, key: str, lang: str = "en") -> str:
    """``term("ranks", "CAPTAIN", "ko")`` -> ``"선장"``; KeyError for an unknown term."""
    return terms()[(section, key)].word(lang)


def own_word(section: str, key: str, lang: str) -> str | None:
    """The term in ``lang`` if that language has its own word for it, else None."""
    found = terms().get((section, key))
    return found.words.get(lang) if found is not None else None


def section(name: str) -> dict[str, Term]:
    """The terms of one section by key (``section("events")["PISTOL"]``)."""
    return {key: t for (sec, key), t in terms().items() if sec == name}


def event_name(title: str, lang: str = "en") -> str:
    """An Event card's name (``EventTitle`` value, e.g. ``"BLACK_SPOT"``) in ``lang``."""
    return term("events", title, lang)


def all_words(lang: str) -> list[str]:
    """Every term's word in ``lang`` (for fonts and tests)."""
    return [t.word(lang) for t in terms().values()]
