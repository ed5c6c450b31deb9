"""Why something was refused or not understood, in the reader's language.

The engine (``engine.reasons``), the reply reader (``pbm.replies.reasons``) and the service
say why with a :class:`~engine.reasons.Reason`: a code and its parameters, stored with the
reply's outcome as ``{"code", "params"}``. Every language, English included, says a reason
from its code: the code's English template is the catalogue's message id, filled with the
parameters, each converted for the reader by its name (:data:`_CONVERT`: commands in the
reader's words, the parser's words from the catalogue, a nested ``reason`` said the same
way; numbers, names and the player's own words as they are). A moment or a length is a
parameter twice, its English words and itself (``until`` and ``until_at``, ``span`` and
``span_seconds``): another language writes it from the second with Babel.

Why the templates are English text in the code that gives the reason (``engine.reasons``,
``pbm.replies.reasons``) rather than a table here: a new reason is one line where it is
given, its English is the same string whoever prints it (logs, the CLI, English readers),
and Babel extracts it from there (``babel.cfg`` reads ``engine/reasons.py``, whose ``N_``
only marks).

An outcome stored as a plain English sentence (before reasons were data, or from a reader
that does not give codes yet) is shown as it is to an English reader and as
:data:`UNKNOWN` to any other: it is never parsed back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from babel.dates import format_datetime

from engine import reasons as engine_reasons
from engine.reasons import Reason, as_reason
from pbm.i18n import glossary
from pbm.i18n.dates import length_text
from pbm.i18n.languages import SOURCE_LANGUAGE, traits
from pbm.i18n.translate import N_, _, current, pgettext
from pbm.render.names import command_words
from pbm.replies import reasons as reply_reasons

#: The modules that declare codes (imported for their codes: a stored reason is read back
#: by its code).
DECLARING = (engine_reasons, reply_reasons)

#: A reason stored as a sentence, for a reader who does not read English.
UNKNOWN = N_("that cannot be done now")

#: An argument kind the parser did not expect (``unexpected number 3``).
_KINDS = {"number": N_("number"), "seat": N_("player"), "ship": N_("ship"),
          "hold": N_("hold"), "symbol": N_("symbol")}
#: What a command misses or must be (``engine.commands``: ``missing position``).
_WHATS = {"position": N_("position"), "positions": N_("positions"), "player": N_("player"),
          "seat": N_("seat"), "card": N_("card"), "cards": N_("cards"), "ship": N_("ship"),
          "hold": N_("hold"), "choice": N_("choice"), "Vote card": N_("Vote card"),
          "number": N_("number"), "an Event card position": N_("an Event card position"),
          "a seat number": N_("a seat number"), "a card number": N_("a card number"),
          "card numbers": N_("card numbers")}


def _cmd(value: str) -> str:
    """A command (or "A or B") in the reader's words."""
    return command_words(value)


def _what(value: str) -> str:
    return _(_WHATS[value]) if value in _WHATS else _cmd(value)


def _kind(value: str) -> str:
    return _(_KINDS.get(value, value))


_SYMBOLS_EN = {"Cannon": "CANNON", "Torch": "TORCH", "Water": "WATER", "Skull": "SKULL",
               "Helm": "HELM", "British": "BRITISH", "French": "FRENCH"}


def _vote_card(text: str) -> str:
    """A Vote card's symbols as ``engine.views`` writes them (``2 Cannon / British /
    Skull``) in the reader's words (the glossary's symbol names)."""
    def word(part: str) -> str:
        count, _sp, name = part.strip().rpartition(" ")
        key = _SYMBOLS_EN.get(name)
        said = glossary.term("symbols", key, current()) if key else name
        if key and said == glossary.term("symbols", key, "en"):
            said = name  # the reader's glossary word is English's: the card's own word
        return _("{count} {symbol}").format(count=count, symbol=said) if count else said

    return " / ".join(word(p) for p in text.split(" / "))


#: A parameter's name -> how its value is said to the reader (else as it is).
_CONVERT: dict[str, Callable[[str], str]] = {
    "cmd": _cmd, "stop": _cmd, "start": _cmd, "verb": _cmd, "kind": _kind, "what": _what,
    "away": _, "symbols": _vote_card, "other_symbols": _vote_card}


#: Babel patterns of a moment without its year, and of a weekday and clock, by language
#: (a language without one reads the English words).

def _at(value: str) -> tuple[datetime, str]:
    """A moment parameter (``pbm.replies.reasons.moment``) in its reader's zone."""
    when, _sp, zone = value.partition(" ")
    return datetime.fromisoformat(when).astimezone(ZoneInfo(zone)), zone


def say_moment(words: str, at: str, clock: bool = False) -> str:
    """A moment in the reader's language ("3월 3일 (월) 오후 2:00 CET"; ``clock``: a weekday
    and a time, "월요일 오후 2:00 CET"); ``words`` (the English the moment was stored with)
    for an English reader. The CLDR patterns are catalogue entries, as in
    ``pbm.i18n.dates``."""
    if current() == SOURCE_LANGUAGE or not at:
        return words
    local, _zone = _at(at)
    pattern = pgettext("date pattern", "EEE HH:mm") if clock else \
        pgettext("date pattern", "EEE dd MMM HH:mm")
    moment = format_datetime(local, pattern, locale=traits(current()).cldr_locale)
    return f"{moment} {local.tzname()}"


def say_span(words: str, span_seconds: int | str) -> str:
    """A length in the reader's language ("3일"); ``words`` (English) for English."""
    if current() == "en":
        return words
    return length_text(timedelta(seconds=int(span_seconds)), current()) or words


def _moments(params: Mapping[str, Any]) -> dict[str, str]:
    """The moments and lengths of a reason's parameters, in the reader's words."""
    out = {}
    for name in ("until", "end"):
        if name in params:
            out[name] = say_moment(str(params[name]), str(params.get(f"{name}_at", "")))
    if "now" in params:
        out["now"] = say_moment(str(params["now"]), str(params.get("now_at", "")),
                                clock=True)
    if "span" in params and "span_seconds" in params:
        out["span"] = say_span(str(params["span"]), params["span_seconds"])
    return out



def say(value: Any) -> str:
    """A reason (or its stored form) in the current reader's language; a stored sentence
    as it is for an English reader, :data:`UNKNOWN` for any other."""
    reason = as_reason(value)
    if reason is None:
        text = str(value or "")
        return text if current() == "en" or not text else _(UNKNOWN)
    words = {key: say(param) if isinstance(param, Reason) else
             _CONVERT.get(key, str)(str(param)) for key, param in reason.params.items()}
    words.update(_moments(reason.params))
    return _(engine_reasons.TEMPLATES[reason.code]).format(**words)


def say_note(note: Any) -> str:
    """How a line was read (``read 'revael' as REVEAL; option 2``) in the reader's words; a
    note stored as a plain sentence is left out for a reader who does not read English."""
    if as_reason(note) is None and current() != "en":
        return ""
    return say(note) if note else ""


def say_done(value: Any) -> Any:
    """A line of what was done: a reason (a changed vote: "Your vote is now card 3 (...)")
    in the reader's words; a command is shown as it is (the templates say commands in the
    reader's words)."""
    return say(value) if as_reason(value) is not None else value


#: The name the message model calls it by.
say_reason = say
