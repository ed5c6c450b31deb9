"""The languages messages are written in: each one is a folder of data, never Python.

A language ``<lang>`` is the folder ``<locale dir>/<lang>/`` holding:

- ``LC_MESSAGES/messages.mo`` (and its ``.po``): the catalogue, every sentence we send;
- ``language.toml``: its :class:`Traits` (how its SMS are counted and ordered, its CLDR
  locale, its own name and the names a player may type after ``LANG``);
- optionally ``replies.toml`` (its reply words, ``pbm.replies.reply_words``),
  ``glossary.toml`` (its game terms) and ``help/`` (its HELP texts).

The locale dirs are ``pbm/locale`` (shipped) and every folder named in the ``LOCALE_PATH``
environment variable (``os.pathsep``-separated): an operator, or a test, adds a language
by adding a folder. English is the source language: the message ids themselves, with the
default traits and the names in ``pbm/locale/en/language.toml``. :func:`refresh` forgets
what was read (after ``LOCALE_PATH`` changed).
"""

from __future__ import annotations

import gettext
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path

#: The shipped catalogues (``./dev i18n`` writes them).
LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"
DOMAIN = "messages"
SOURCE_LANGUAGE = "en"


@dataclass(frozen=True)
class Traits:
    """What the renderer and the reader need to know of a language besides its words.

    A field's default is English's; ``language.toml`` names only what differs.
    """

    #: The language's name in its own words (the answer to ``LANG``; else its code).
    own_name: str = ""
    #: The names a player may write after ``LANG`` for this language (lower case).
    names: tuple[str, ...] = ()
    #: How an SMS in this language is counted: ``"gsm7"`` (septets) or ``"ucs2"``.
    sms_alphabet: str = "gsm7"
    #: How many parts one SMS may take (GSM-7 parts of 153 septets, UCS-2 parts of 67
    #: units): as many as it takes to say what English says in two GSM-7 parts.
    sms_parts: int = 2
    #: How a sentence names another player (``{name}``: the name they chose).
    player_name: str = "{name}"
    #: The CLDR locale Babel formats dates and lengths of time in.
    cldr_locale: str = "en"
    #: A length of time counts days from this many hours on ("36 hours", "2 days").
    days_from_hours: int = 48
    #: Board lines say where a player is in the short form ("FD Captain") in email too.
    short_places: bool = False
    #: Commands are shown in the reader's words (the glossary's verbs, ``command_words``),
    #: which the reply reader of this language reads back.
    own_command_words: bool = False
    #: The words of commands the glossary has no action for, in this language.
    command_words: dict[str, str] = field(default_factory=dict)
    #: A prompt by SMS fits its menu before its headline (else the headline first).
    sms_menu_first: bool = False
    #: A prompt by SMS spells out FD/JR before its news (else after it).
    sms_legend_first: bool = False
    #: A prompt by SMS tries shorter menus (4-letter names, then numbers and verbs only)
    #: before it gives up the menu for "Reply STATUS".
    sms_terse_menus: bool = False
    #: How an SMS marks the section of a Vote card a vote counts: ``"capitals"``
    #: (``TORCH/Brit/Skull``) or ``"brackets"`` (for a script without capitals).
    sms_card_mark: str = "capitals"
    #: An answer too long for an SMS is first tried without its asides in brackets.
    sms_drop_asides: bool = False


def locale_dirs() -> tuple[Path, ...]:
    """Where catalogues are looked for: ``LOCALE_PATH``'s folders first, then the shipped."""
    extra = [Path(p) for p in os.environ.get("LOCALE_PATH", "").split(os.pathsep) if p]
    return (*extra, LOCALE_DIR)


@cache
def _folders() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for base in reversed(locale_dirs()):  # the first dir named wins
        if not base.is_dir():
            continue
        for folder in base.iterdir():
            if (folder / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file():
                found[folder.name] = folder
    return found


def languages() -> tuple[str, ...]:
    """Every message language: English first, then each language with a catalogue."""
    return (SOURCE_LANGUAGE, *sorted(k for k in _folders() if k != SOURCE_LANGUAGE))


def folder_of(lang: str) -> Path | None:
    """The folder holding ``lang``'s catalogue and data (None for English)."""
    return _folders().get(lang) if lang != SOURCE_LANGUAGE else None


@cache
def traits(lang: str) -> Traits:
    """The traits of ``lang`` (English's defaults for a language without ``language.toml``)."""
    folder = folder_of(lang) or (LOCALE_DIR / lang if lang == SOURCE_LANGUAGE else None)
    path = folder / "language.toml" if folder else None
    if path is None or not path.is_file():
        return Traits()
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    known = {f.name for f in fields(Traits)}
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"{path}: unknown keys {sorted(unknown)} (known: {sorted(known)})")
    if "names" in data:
        data["names"] = tuple(str(n).lower() for n in data["names"])
    return Traits(**data)


def language_named(text: str) -> str | None:
    """The language a player means by ``text`` (its code or one of its names), or None."""
    word = text.strip().lower()
    for lang in languages():
        if word == lang or word in traits(lang).names:
            return lang
    return None


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``lang`` (English, or a language we do not have: the
    message ids themselves)."""
    folder = folder_of(lang)
    if folder is None:
        return gettext.NullTranslations()
    from babel.support import Translations  # here: babel only when a catalogue is read

    return Translations.load(str(folder.parent), [folder.name], domain=DOMAIN)


#: What else was read from the language folders, forgotten by :func:`refresh` too
#: (registered by the modules that read them: :func:`forget_on_refresh`).
_FORGET: list[Callable[[], None]] = []


def forget_on_refresh(clear: Callable[[], None]) -> None:
    """Call ``clear`` at every :func:`refresh` (a cache of something read from the folders)."""
    _FORGET.append(clear)


def refresh() -> None:
    """Forget the languages read (after ``LOCALE_PATH`` or a catalogue changed)."""
    _folders.cache_clear()
    traits.cache_clear()
    translations.cache_clear()
    for clear in _FORGET:
        clear()
