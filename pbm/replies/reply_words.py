"""A language's reply words, read from ``<language folder>/replies.toml``.

A language whose folder (:mod:`pbm.i18n.languages`) holds ``replies.toml`` has its replies
read by :mod:`pbm.replies.native`: the file names the letters of its script, its command
words, number markers, particles and endings to drop, chatter, self-corrections, "or" /
"and" words, the whole-line forms of its settings and HELP questions, and the answers to an
invitation. ``pbm/locale/ko/replies.toml`` is Korean's and documents every key; a key a
language leaves out reads nothing. The glossary's words of the language
(``pbm/i18n/glossary.toml``) are read as well. English has no such file: the parser reads it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pbm.i18n import languages
from pbm.i18n.glossary import section

FILE_NAME = "replies.toml"


@dataclass(frozen=True)
class LineForm:
    """A whole-line form: ``pattern`` matched at the start of the line gives ``reply``."""

    pattern: re.Pattern[str]
    #: ``{}`` is the first group that matched (through ``map``); "" with ``as_written``.
    reply: str = ""
    #: A table of :class:`ReplyWords` ``tables`` or ``"language"`` (the language named).
    map: str = ""
    #: The line is kept as written (courtesy the parser ignores).
    as_written: bool = False


@dataclass(frozen=True)
class HelpForms:
    """How a HELP request and a question about the rules are written."""

    first: re.Pattern[str] | None = None
    last: re.Pattern[str] | None = None
    polite: re.Pattern[str] | None = None
    asking: re.Pattern[str] | None = None
    #: (words, topic): a question naming one of the words asks HELP about the topic.
    settings: tuple[tuple[tuple[str, ...], str], ...] = ()


@dataclass(frozen=True)
class ReplyWords:
    """Everything language-specific the native reader reads (see ``replies.toml``)."""

    lang: str
    script: re.Pattern[str]
    letters: str
    #: Words are glued together (Korean "3번공개", "공개할게요"): a word is looked for
    #: inside another; otherwise a word (less its particle) is read only whole.
    glued: bool
    chatter: re.Pattern[str] | None
    glossary_min_length: int
    then_ending: re.Pattern[str] | None
    verb_prefixes: tuple[str, ...]
    treasure_words: frozenset[str]
    counters: tuple[str, ...]
    count_counters: frozenset[str]
    joined_counters: tuple[str, ...]
    sino_marker: str
    sino_counters: tuple[str, ...]
    bare_numbers: frozenset[str]
    polite_tails: frozenset[str]
    particles: tuple[str, ...]  # longest first
    to_particles: tuple[str, ...]
    or_particles: tuple[str, ...]
    copulas: tuple[str, ...]
    or_words: frozenset[str]
    and_words: frozenset[str]
    and_particles: frozenset[str]
    instead_words: frozenset[str]
    neg_words: frozenset[str]
    do_forms: tuple[str, ...]
    neg_endings: tuple[str, ...]
    filler: frozenset[str]
    filler_stems: tuple[str, ...]
    weak_commands: frozenset[str]
    respell: tuple[tuple[re.Pattern[str], str], ...]
    corrections: Mapping[str, str]
    commands: Mapping[str, str]
    meta: Mapping[str, str]
    things: Mapping[str, str]
    short_things: Mapping[str, str]
    native_numbers: Mapping[str, int]
    sino_numbers: Mapping[str, int]
    help_topics: Mapping[str, str]
    help: HelpForms
    invite_yes: re.Pattern[str] | None
    invite_no: re.Pattern[str] | None
    tables: Mapping[str, Mapping[str, str]]
    lines: tuple[LineForm, ...]
    last_lines: tuple[LineForm, ...]
    #: (surface, kind, English) of every word matched inside a word, longest first.
    lexicon: tuple[tuple[str, str, str], ...]
    #: Built from the words above once: a digit number with its counter; the numerals
    #: (native, and sino with their marker); "3 번" -> "3번" joins; words with a space.
    number_pattern: re.Pattern[str]
    numerals: Mapping[str, int]
    joins: tuple[re.Pattern[str], ...]
    phrases: tuple[str, ...]


def _pattern(text: str | None, flags: int = 0) -> re.Pattern[str] | None:
    return re.compile(text, flags) if text else None


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in words)


def _line_forms(entries: list[dict[str, Any]], tables: Mapping[str, Mapping[str, str]]
                ) -> tuple[LineForm, ...]:
    names = sorted({n for lang in languages.languages()
                    for n in (lang, *languages.traits(lang).names)}, key=lambda n: -len(n))
    fills = {f"{{{name}}}": _alternation(list(table)) for name, table in tables.items()}
    fills["{languages}"] = _alternation(names)
    forms = []
    for entry in entries:
        text = entry["pattern"]
        for key, alternation in fills.items():
            text = text.replace(key, alternation)
        flags = (re.IGNORECASE if entry.get("ignore_case") else 0) | (
            re.DOTALL if entry.get("dot_all") else 0)
        forms.append(LineForm(re.compile(text, flags), entry.get("reply", ""),
                              entry.get("map", ""), bool(entry.get("as_written"))))
    return tuple(forms)


def _joins(data: Mapping[str, Any]) -> tuple[re.Pattern[str], ...]:
    """Patterns whose two groups are a number and its counter written apart ("세 번째")."""
    letters = data.get("letters", r"\w")
    joined = _alternation(data.get("joined_counters", []))
    sino = _alternation(list(data.get("sino_numbers", {})))
    sino_counters = _alternation(data.get("sino_counters", []))
    natives = _alternation(list(data.get("native_numbers", {})))
    found = [rf"(\d)\s+({joined})"] if joined else []
    if sino and sino_counters:
        found.append(rf"(?<![{letters}])({sino})\s+({sino_counters})")
    if natives and joined:
        found.append(rf"(?<![{letters}])({natives})\s+({joined})")
    return tuple(re.compile(p) for p in found)


def _glossary_words(lang: str, min_length: int) -> list[tuple[str, str, str]]:
    """The glossary's words of ``lang`` as (surface, kind, English): its actions, ships,
    holds, symbols and cards, so a word the messages use is always understood back."""
    kinds = {"actions": "verb", "ships": "thing", "teams": "thing", "symbols": "thing",
             "events": "thing"}
    english = {"ships": {"FD": "FD", "JR": "JR"},
               "teams": {"BRITISH": "BRITISH", "FRENCH": "FRENCH"},
               "symbols": {"BRITISH": "BRITISH", "FRENCH": "FRENCH"}}
    found = []
    for sec, kind in kinds.items():
        for key, term in section(sec).items():
            if sec == "actions":
                word = key
            elif sec == "events":
                word = term.word("en")
            elif sec == "symbols" and key not in english[sec]:
                word = key.lower()
            else:
                word = english[sec].get(key, "")
            native = term.words.get(lang, "")
            if not word or len(native.replace(" ", "")) < min_length:
                continue  # too short to find inside a word: whole words only (short_things)
            found += [(surface, kind, word) for surface in {native, native.replace(" ", "")}]
    return found


def _lexicon(lang: str, data: Mapping[str, Any]) -> tuple[tuple[str, str, str], ...]:
    entries = [(w, "verb", e) for w, e in data.get("commands", {}).items()]
    entries += [(w, "meta", e) for w, e in data.get("meta", {}).items()]
    entries += [(w, "thing", e) for w, e in data.get("things", {}).items()]
    known = {w for w, _, _ in entries}
    entries += [e for e in _glossary_words(lang, data.get("glossary_min_length", 1))
                if e[0] not in known]
    return tuple(sorted(entries, key=lambda e: -len(e[0])))


#: The keys a ``replies.toml`` may hold (``pbm/locale/ko/replies.toml`` documents each).
KEYS = frozenset({
    "script", "letters", "glued", "chatter", "glossary_min_length", "then_ending",
    "verb_prefixes", "treasure_words", "counters", "count_counters", "joined_counters",
    "sino_marker", "sino_counters", "bare_numbers", "polite_tails", "particles",
    "to_particles", "or_particles", "copulas", "or_words", "and_words", "and_particles",
    "instead_words", "neg_words", "do_forms", "neg_endings", "filler", "filler_stems",
    "weak_commands", "respell", "corrections", "commands", "meta", "things", "short_things",
    "native_numbers", "sino_numbers", "help_topics", "help", "invite", "tables", "lines",
    "last_lines",
})


def parse(lang: str, data: Mapping[str, Any]) -> ReplyWords:
    """The reply words of ``lang`` from the contents of its ``replies.toml`` (ValueError
    for a key it does not know: a misspelt key would read nothing)."""
    unknown = set(data) - KEYS
    if unknown or "script" not in data:
        raise ValueError(f"{lang} {FILE_NAME}: unknown keys {sorted(unknown)}"
                         if unknown else f"{lang} {FILE_NAME}: no script")
    words: dict[str, list[str]] = {k: v for k, v in data.items() if isinstance(v, list)}

    def tup(key: str) -> tuple[str, ...]:
        return tuple(words.get(key, ()))

    def table(key: str) -> dict[str, Any]:
        return dict(data.get(key, {}))

    tables = {name: dict(words) for name, words in data.get("tables", {}).items()}
    lexicon = _lexicon(lang, data)
    counters = _alternation(words.get("counters", []))
    marker = data.get("sino_marker", "")
    numerals = {**table("native_numbers"),
                **{k + marker: v for k, v in table("sino_numbers").items()}}
    help_data = data.get("help", {})
    return ReplyWords(
        lang=lang, script=re.compile(data["script"]), letters=data.get("letters", r"\w"),
        glued=bool(data.get("glued", False)),
        chatter=_pattern(data.get("chatter")),
        glossary_min_length=data.get("glossary_min_length", 1),
        then_ending=_pattern(data.get("then_ending")), verb_prefixes=tup("verb_prefixes"),
        treasure_words=frozenset(tup("treasure_words")), counters=tup("counters"),
        count_counters=frozenset(tup("count_counters")), joined_counters=tup("joined_counters"),
        sino_marker=data.get("sino_marker", ""), sino_counters=tup("sino_counters"),
        bare_numbers=frozenset(tup("bare_numbers")),
        polite_tails=frozenset(tup("polite_tails")),
        particles=tuple(sorted(tup("particles"), key=len, reverse=True)),
        to_particles=tup("to_particles"), or_particles=tup("or_particles"),
        copulas=tup("copulas"), or_words=frozenset(tup("or_words")),
        and_words=frozenset(tup("and_words")), and_particles=frozenset(tup("and_particles")),
        instead_words=frozenset(tup("instead_words")), neg_words=frozenset(tup("neg_words")),
        do_forms=tup("do_forms"), neg_endings=tup("neg_endings"),
        filler=frozenset(tup("filler")), filler_stems=tup("filler_stems"),
        weak_commands=frozenset(tup("weak_commands")),
        respell=tuple((re.compile(r["pattern"]), r["replace"]) for r in data.get("respell", [])),
        corrections=table("corrections"), commands=table("commands"), meta=table("meta"),
        things=table("things"), short_things=table("short_things"),
        native_numbers=table("native_numbers"), sino_numbers=table("sino_numbers"),
        help_topics=table("help_topics"),
        help=HelpForms(_pattern(help_data.get("first")), _pattern(help_data.get("last")),
                       _pattern(help_data.get("polite")), _pattern(help_data.get("asking")),
                       tuple((tuple(s["words"]), s["topic"])
                             for s in help_data.get("settings", []))),
        invite_yes=_pattern(data.get("invite", {}).get("yes")),
        invite_no=_pattern(data.get("invite", {}).get("no")),
        tables=tables, lines=_line_forms(data.get("lines", []), tables),
        last_lines=_line_forms(data.get("last_lines", []), tables),
        lexicon=lexicon,
        number_pattern=re.compile(rf"^(\d{{1,2}})\s*({counters})?(.*)$" if counters
                                  else r"^(\d{1,2})()(.*)$"),
        numerals=numerals, joins=_joins(data),
        phrases=tuple(w for w in [w for w, _, _ in lexicon] + list(table("corrections"))
                      + words.get("and_words", []) if " " in w),
    )


@cache
def _load(lang: str, path: Path, known: tuple[str, ...]) -> ReplyWords | None:
    """``known`` (every language) is part of the key: the LANG form names them all."""
    if not path.is_file():
        return None
    return parse(lang, tomllib.loads(path.read_text(encoding="utf-8")))


def reply_words(lang: str) -> ReplyWords | None:
    """The reply words of ``lang``; None for a language without ``replies.toml``."""
    folder = languages.folder_of(lang)
    return _load(lang, folder / FILE_NAME, languages.languages()) if folder else None


def readers() -> tuple[ReplyWords, ...]:
    """The reply words of every language that has them, in :func:`languages` order."""
    found = (reply_words(lang) for lang in languages.languages())
    return tuple(w for w in found if w is not None)
