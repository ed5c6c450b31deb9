"""How a simulated player reads a message it received, as a person reads it.

From the text part of an email (:func:`read_email`) or the body of an SMS (:func:`read_sms`)
it takes the numbered menu ("WHAT YOU CAN DO NOW" in email, ``Reply 1=... 2=...`` in SMS),
the face-down Event positions, the names at the table, its own loyalty, and whether the
service answered "not understood" or "not done" (with its "did you mean"). A Korean reader
keys on what does not change with the wording: the numbered menu, the command words of
``pbm/i18n/glossary.toml`` that the menus show, the Event row's ``[1: ?]`` cells, and the
few phrases taken from the Korean catalogue; it also reads the English form of every
message, so a message not yet translated is still understood. ``pbm.demo.simplayer``
decides and writes the answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from pbm.i18n.glossary import section, term
from pbm.i18n.languages import traits, translations

#: Placeholders a suggestion may show instead of a real argument (never typed back).
TEMPLATE_TOKENS = ("_", "name", "FD/JR")


@dataclass(frozen=True)
class Option:
    """One numbered option as the player reads it (``REVEAL _``, ``MAROON Cleo``)."""

    number: int
    command: str
    example: str | None = None

    @property
    def verb(self) -> str:
        return self.command.split()[0].upper()

    @property
    def is_template(self) -> bool:
        return any(tok in TEMPLATE_TOKENS for tok in self.command.split())


@dataclass(frozen=True)
class Reading:
    """What a person takes from one message."""

    headline: str
    options: tuple[Option, ...] = ()
    invitation: bool = False
    rejected: bool = False
    suggestion: str | None = None
    face_down: tuple[int, ...] = ()
    known: dict[int, str] = field(default_factory=dict)  # position -> title seen there
    names: tuple[str, ...] = ()
    loyalty: str | None = None
    game_over: bool = False

    @property
    def actionable(self) -> bool:
        """True when the message asks this player for an answer."""
        return bool(self.options) or self.invitation


_MENU_LINE = re.compile(r"^\s*(\d+) = (.+?)\s*$")
_EXAMPLE = re.compile(r"\s*\(e\.g\. (.+)\)\s*$")
_KO_EXAMPLE = re.compile(r"\s*\((?:e\.g\.|예:) (.+)\)\s*$")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


@cache
def _korean_command_words() -> tuple[tuple[str, str], ...]:
    """Korean words of commands as the menus show them -> the English word, longest
    first: the glossary's verbs (공개 -> REVEAL, 보트 이동 -> ROW) and the menus' other
    words (이름 -> name, 영국 -> BRITISH)."""
    words = {t.word("ko"): key for key, t in section("actions").items() if t.word("ko")}
    words.update({ko: en for en, ko in traits("ko").command_words.items()})
    return tuple(sorted(words.items(), key=lambda kv: -len(kv[0])))


@cache
def _korean(msgid: str) -> str:
    """The Korean catalogue's form of one phrase the player looks for."""
    return translations("ko").gettext(msgid)


def _phrase(msgid: str, **groups: str) -> re.Pattern[str]:
    """A regular expression of the Korean form of ``msgid``, its fields (``{name}`` in
    Python's sentences, ``%(name)s`` in the templates') as groups."""
    pattern = re.escape(_korean(msgid).strip())
    for name, group in groups.items():
        for spelled in ("{" + name + "}", f"%({name})s"):
            pattern = pattern.replace(re.escape(spelled), group)
    return re.compile(re.sub(r"\\\{\w+\\\}|%\\\(\w+\\\)s", ".*?", pattern))


def english_words(display: str) -> str:
    """A Korean menu's command in the English words the player thinks in: its leading
    verb and the menus' other words (``지목 _ _ 이름`` -> ``FORCE _ _ name``); names,
    numbers and English words are kept, and a verb after the first word is left as it is
    (a label has begun)."""
    rest = " ".join(display.split())
    out: list[str] = []
    while rest:
        for ko, en in _korean_command_words():
            if not (rest == ko or rest.startswith(ko + " ")):
                continue
            if out and en.isupper() and en not in _ARGUMENT_WORDS:
                continue
            out.append(en)
            rest = rest[len(ko):].lstrip()
            break
        else:
            word, _sep, rest = rest.partition(" ")
            out.append(word)
    return " ".join(out)


#: English words of the menus that are arguments, not verbs.
_ARGUMENT_WORDS = frozenset({"BRITISH", "FRENCH", "NONE", "TO"})

_ROW = re.compile(r"\[(\d): ([^\]]*)\]")
_DID_YOU_MEAN = re.compile(r"[Dd]id you mean (.+?)\?")
_LOYALTY = re.compile(r"Loyalty: (British|French|Dutch)")
_INVITED = re.compile(r"Players invited: (.+?)\.\s*$", re.MULTILINE)
_SEAT_LINE = re.compile(r"^\s+\d+\. ([^(\n]+?)(?: \(|  <-|  \[|\s*$| - )", re.MULTILINE)
_SMS_OPTIONS = re.compile(r"(?:Reply|Still awaited:) (?:([A-Z]+): )?((?:\d+=.*)$)", re.DOTALL)
_SMS_OPTION = re.compile(r"(?:^|\s)(\d+)=")
_SMS_OPTIONS_END = re.compile(r"\s(?:Face down:|You saw|By [A-Z][a-z]{2} |STATUS=|HELP=|LOG=)")


def _command_tokens(text: str, names: Sequence[str]) -> str:
    """The command at the start of ``text``: its verb and argument-like words only."""
    known = {n.casefold() for n in names}
    out: list[str] = []
    for raw in text.split():
        tok = raw.rstrip(".,;")
        if not tok:
            break
        argument = (tok in TEMPLATE_TOKENS or tok.isdigit() or (tok.isupper() and tok.isalpha())
                    or tok.casefold() in known)
        if not argument:
            break
        out.append(tok)
        if tok != raw:  # the word ended a sentence
            break
    return " ".join(out)


def read_email(text: str, names: Sequence[str] = (), language: str = "en") -> Reading:
    """Read the text part of one of our emails (see ``templates/email/message.txt``), as
    a reader of ``language`` ("ko" reads the Korean form and the English one)."""
    korean = language == "ko"
    lines = text.splitlines()
    headline = next((ln.strip() for ln in lines
                     if ln.strip() and "reply above this line" not in ln.lower()), "")
    seen_names = list(dict.fromkeys([*_table_names(text), *names]))
    options: list[Option] = []
    section: str | None = None
    if "WHAT YOU CAN DO NOW" in text:
        section = text.split("WHAT YOU CAN DO NOW", 1)[1]
    elif korean:
        section = text  # the first numbered menu (``  1 = 공개 _``), whatever its heading
    if section is not None:
        for line in section.splitlines():
            match = _MENU_LINE.match(line)
            if not match:
                if options and not line.strip():
                    break
                continue
            rest = match.group(2)
            example = None
            found = (_KO_EXAMPLE if korean else _EXAMPLE).search(rest)
            if found:
                example = found.group(1).strip()
                rest = rest[: found.start()]
            display = re.split(r"\s{2,}", rest.strip())[0]
            if korean:
                display = english_words(display)
                example = english_words(example) if example else None
            command = _command_tokens(display, seen_names)
            if command:
                options.append(Option(int(match.group(1)), command, example))
    face_down: list[int] = []
    known: dict[int, str] = {}
    row = re.search(r"Event row: (.*)", text)
    if row is None and korean:
        row = re.search(r"^[^\[\n]*((?:\[\d: [^\]]*\]\s*){2,})", text, re.MULTILINE)
    if row:
        for pos, shown in _ROW.findall(row.group(1)):
            if shown.strip() == "-":
                continue
            face_down.append(int(pos))
            if shown.strip() != "?":
                known[int(pos)] = shown.strip().rstrip("*")
    suggestion = _DID_YOU_MEAN.search(text)
    loyalty = _LOYALTY.search(text)
    reading = Reading(
        headline=headline,
        options=tuple(options),
        invitation=bool(re.search(r"reply with:\s+JOIN", text)),
        rejected=headline.startswith("Nothing was changed") or "NOT UNDERSTOOD" in text
        or "NOT DONE" in text,
        suggestion=suggestion.group(1).strip() if suggestion else None,
        face_down=tuple(face_down),
        known=known,
        names=tuple(seen_names),
        loyalty=loyalty.group(1) if loyalty else None,
        game_over=headline.startswith("Game over"),
    )
    return _korean_reading(reading, text, headline) if korean else reading


def _invited(text: str) -> bool:
    """An invitation in either language: it offers both the join and the decline words
    (``JOIN`` / ``DECLINE``, ``참가`` / ``거절``) and no numbered menu."""
    english = re.search(r"\bJOIN\b", text) and re.search(r"\bDECLINE\b", text)
    korean = re.search(r"(?<![가-힣])(?:참가|참여)(?![자한했하])", text) and \
        re.search(r"(?<![가-힣])(?:거절|불참)(?![했한])", text)
    return bool(english or korean)


#: A command in a refusal: an English or Korean command word and its numbers ("VIEW 2 5",
#: "확인 2 5"); the last one offered is the one to try (the first is the refused one).
_OFFERED = re.compile(r"(?:^|[\s:])((?:[A-Z]{3,}|[가-힣]{2,4})(?: \d){1,3})(?=[\s.,;)]|$)")


def _offered(text: str) -> str | None:
    """The command a refusal offers in its place, in English words (or None)."""
    found = [english_words(m) for m in _OFFERED.findall(text)]
    found = [f for f in found if f.split()[0].isupper()]
    if len(found) < 2:
        return None
    return found[-1] if found[-1] != found[0] else None


def _rejected_ko(text: str) -> bool:
    markers = [re.split(r"\{|%\(", _korean(m))[0].strip(" .:(") for m in (
        "NOT UNDERSTOOD (nothing was changed by these)", "NOT DONE (nothing was changed by these)",
        "Nothing was changed", "Not understood.%(hint)s", "Not done: %(command)s.")]
    return any(m and m in text for m in markers)


def _korean_reading(reading: Reading, text: str, headline: str) -> Reading:
    """What a Korean reader adds to the English reading of ``text``."""
    suggestion = reading.suggestion
    if suggestion is None:
        found = _phrase(" Did you mean %(suggestion)s?", suggestion=r"(.+?)").search(text)
        suggestion = english_words(found.group(1).strip()) if found else None
    loyalty = reading.loyalty
    if loyalty is None:
        teams = {_team_ko(t): t for t in ("British", "French", "Dutch")}
        found = re.search(re.escape(_korean("Loyalty:")) + r"\s*(\S+?)[:.,\s]", text) or \
            _phrase("You are %(team)s.", team=r"(\S+)").search(text)
        loyalty = teams.get(found.group(1)) if found else None
    over = _korean("Game over")
    return Reading(
        headline=headline,
        options=reading.options,
        invitation=reading.invitation or (not reading.options and _invited(text)),
        rejected=reading.rejected or _rejected_ko(text),
        suggestion=suggestion,
        face_down=reading.face_down,
        known=reading.known,
        names=reading.names,
        loyalty=loyalty,
        game_over=reading.game_over or headline.startswith(over) or
        f": {over}" in headline[:60],
    )


def _team_ko(team: str) -> str:
    return term("teams", team.upper(), "ko")


def _table_names(text: str) -> list[str]:
    names: list[str] = []
    invited = _INVITED.search(text)
    if invited:
        names += [n.strip() for n in invited.group(1).split(",") if n.strip()]
    for match in _SEAT_LINE.finditer(text):
        name = match.group(1).strip()
        if name and not name[0].isdigit() and len(name) <= 40:
            names.append(name)
    return list(dict.fromkeys(names))


def read_sms(body: str, names: Sequence[str] = (), language: str = "en") -> Reading:
    """Read one of our text messages (``pbm.render``'s SMS form), as a reader of
    ``language`` ("ko" reads the Korean form and the English one)."""
    if language == "ko" and _HANGUL.search(body):
        return _read_korean_sms(body, names)
    options: list[Option] = []
    found = _SMS_OPTIONS.search(body)
    if found:
        verb = found.group(1)  # "Reply SHOOT: 1=Zed 2=Bart"
        part = _SMS_OPTIONS_END.split(found.group(2), maxsplit=1)[0]
        starts = list(_SMS_OPTION.finditer(part))
        for i, start in enumerate(starts):
            end = starts[i + 1].start() if i + 1 < len(starts) else len(part)
            command = _command_tokens(part[start.end():end], names)
            if command and verb and not command.split()[0].isupper():
                command = f"{verb} {command}"
            # "1=Helm" (a vote card shown by its symbol): the number is the answer
            options.append(Option(int(start.group(1)), command or start.group(1)))
    face_down: tuple[int, ...] = ()
    down = re.search(r"Face down: ([\d ]+)\.", body)
    if down:
        face_down = tuple(int(x) for x in down.group(1).split())
    known = {int(p): t for p, t in re.findall(r"(\d)=([A-Z][A-Za-z' ]+?)(?=[,.])",
                                              body.split("You saw", 1)[1])} \
        if "You saw" in body else {}
    if not options and "Your turn" in body:
        # The options did not fit in the text; a player knows the basic moves anyway.
        options = [Option(1, "REVEAL _"), Option(2, "VIEW _ _")]
    elif not options and "Play a card" in body:
        options = [Option(n, str(n)) for n in (1, 2, 3)]
    suggestion = re.search(r"Did you mean (.+?)\?", body)
    loyalty = re.search(r"\b[Yy]ou are (British|French|Dutch)", body)  # "Seat 3: you are"
    headline = body.split(":", 1)[1].strip() if ":" in body else body
    headline = headline.split(" Reply ", 1)[0]
    return Reading(
        headline=headline,
        options=tuple(options),
        invitation="Reply JOIN" in body,
        rejected="Not understood" in body or "Not done" in body,
        suggestion=suggestion.group(1).strip() if suggestion else None,
        face_down=face_down,
        known=known,
        names=tuple(names),
        loyalty=loyalty.group(1) if loyalty else None,
        game_over="Game over" in body,
    )


_KO_SMS_OPTION = re.compile(r"(?:^|\s)(\d+)=")


def _read_korean_sms(body: str, names: Sequence[str]) -> Reading:
    """A Korean SMS: ``답장 1=확인 _ _ 2=공개 _ ...`` (or ``답장 쏘기: 1=Ann 3=Cleo``),
    the face-down cards, what the reader saw; the English reading's fallbacks."""
    options: list[Option] = []
    reply = re.escape(_korean("Reply ").strip())
    found = re.search(rf"(?:{reply}|Reply|Still awaited:)\s+(?:([^\d=:\s][^\d=:]*?):\s*)?"
                      r"((?:\d+=.*)$)", body, re.DOTALL)
    if found:
        verb = english_words(found.group(1)) if found.group(1) else None
        part = found.group(2)
        ends = [_korean(m).split("{")[0].strip() for m in (
            "Face down: {cards}.", " You saw {cards}.", "STATUS=full picture",
            "NEWS/STATUS=more", "STATUS=all")]
        for marker in [e for e in ends if e]:
            part = part.split(" " + marker, 1)[0]
        starts = list(_KO_SMS_OPTION.finditer(part))
        for i, start in enumerate(starts):
            end = starts[i + 1].start() if i + 1 < len(starts) else len(part)
            command = _command_tokens(english_words(part[start.end():end]), names)
            if command and verb and not command.split()[0].isupper():
                command = f"{verb} {command}"
            options.append(Option(int(start.group(1)), command or start.group(1)))
    face_down: tuple[int, ...] = ()
    down = _phrase("Face down: {cards}.", cards=r"([\d ]+)").search(body) or \
        re.search(r"Face down: ([\d ]+)\.", body)
    if down:
        face_down = tuple(int(x) for x in down.group(1).split())
    known: dict[int, str] = {}
    saw = _phrase(" You saw {cards}.", cards=r"(.+?)").search(body)
    if saw:
        known = {int(p): t for p, t in re.findall(r"(\d)=([^,.]+)", saw.group(1))}
    turn = _korean("Your turn{step}.").split("{")[0]
    if not options and (turn in body or "Your turn" in body):
        options = [Option(1, "REVEAL _"), Option(2, "VIEW _ _")]
    suggestion = _phrase(" Did you mean %(suggestion)s?", suggestion=r"(.+?)").search(body)
    loyalty = None
    team = _phrase("You are %(team)s.", team=r"(\S+)").search(body)
    if team:
        loyalty = {_team_ko(t): t for t in ("British", "French", "Dutch")}.get(team.group(1))
    headline = body.split(":", 1)[1].strip() if ":" in body else body
    return Reading(
        headline=headline,
        options=tuple(options),
        invitation=not options and (_invited(body) or "Reply JOIN" in body),
        rejected=_rejected_ko(body) or "Not understood" in body or "Not done" in body,
        suggestion=english_words(suggestion.group(1).strip()) if suggestion else
        _offered(body),
        face_down=face_down,
        known=known,
        names=tuple(names),
        loyalty=loyalty,
        game_over=_korean("Game over") in body or "Game over" in body,
    )
