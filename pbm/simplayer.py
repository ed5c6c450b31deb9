"""A simulated player: reads its own messages as a person would and answers them.

It sees only what reaches it: the text part of its emails, or the bodies of its SMS. From
the newest message that asks something it reads the numbered menu ("WHAT YOU CAN DO NOW"
in email, ``Reply 1=... 2=...`` in SMS), the face-down Event positions, the names at the
table and its own loyalty; it picks an answer with its own seeded RNG and writes it the
way people do: upper or lower case, a bare option number, a signature, now and then a
typo or a word to the table. When the service answers "not understood" or "not done", it
tries again, more carefully (the "did you mean", the example, then a plain option).

A Korean player (``language="ko"``, issue 24) reads Korean messages and answers in Korean
("3번 공개", "1번이랑 3번 확인", "1번에 투표", "민준 고립시킬게요", "참가"). It keys on what
does not change with the wording: the numbered menu (``N = ...`` in email, ``N=...`` in
SMS), the command words of ``pbm/i18n/glossary.toml`` that the menus show, the Event row's
``[1: ?]`` cells, and the few phrases it reads (the reply prompt, "did you mean", "not
understood") taken from the Korean catalogue; it also reads the English form of every
message, so a message not yet translated is still understood.

Nothing here touches the database or the service: ``pbm.mailroom`` carries the text.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from pbm.i18n.glossary import section, term
from pbm.i18n.translate import translations
from pbm.messages import Channel
from pbm.render.names import KOREAN_COMMAND_WORDS, korean_word

TEMPLATE_TOKENS = ("_", "name", "FD/JR")

#: How much a person likes each kind of option (unlisted verbs: 1). Revealing and forcing
#: move the game towards the Spanish Armada, so they are favoured a little.
VERB_WEIGHTS: dict[str, float] = {
    "REVEAL": 6.0, "FORCE": 3.0, "VIEW": 2.0, "ROW": 1.0, "BOARD": 2.0, "LAND": 0.7,
    "ATTACK": 2.5, "MAROON": 1.0, "MUTINY": 1.2, "SHIFT": 1.0, "BRAWL": 1.0, "MARQUE": 2.0,
    "SAVE": 1.0, "MAP": 1.5, "ATLANTIS": 0.1,
}

SIGNATURES = (
    "\n\n-- \n{name}",
    "\n\nCheers,\n{name}",
    "\n\nSent from my phone",
    "\n\nthanks!\n{name}",
)
GREETINGS = ("Hi all,\n\n", "Ahoy!\n\n", "Hello,\n\n")
TABLE_TALK = (
    "SAY Arr, good luck all",
    "SAY Trust me, mates",
    "SAY Nothing to see here",
    "SAY I know where the treasure is",
)
ATLANTIS_RATE = 0.15  # how often a player orders Atlantis when nothing else is asked
JOIN_WORDS = ("JOIN", "join", "Join", "yes", "JOIN please")

LANGUAGES = ("en", "ko")
KOREAN_JOIN_WORDS = ("참가", "참가할게요", "네 참가합니다", "참여할게요", "네, 참가!")
KOREAN_SIGNATURES = (
    "\n\n-- \n{name}",
    "\n\n감사합니다.\n{name} 드림",
    "\n\n수고하세요!",
)
KOREAN_GREETINGS = ("안녕하세요,\n\n", "안녕하세요!\n\n")
KOREAN_TABLE_TALK = (
    "말: 다들 행운을 빌어요",
    "말: 저만 믿으세요",
    "말: 보물은 제가 지킵니다",
)
#: Endings a Korean player puts after a command (polite, plain, or none).
KOREAN_ENDINGS = ("", "", "할게요", "합니다")


# ------------------------------------------------------------------ reading a message


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
    words.update({ko: en for en, ko in KOREAN_COMMAND_WORDS.items()})
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


# ------------------------------------------------------------------ deciding and writing


@dataclass
class SimPlayer:
    """One simulated person at the table, with its own seeded RNG.

    ``receive`` every message addressed to it, in order; ``next_reply`` then answers the
    newest message that asks something (or returns None). Same seed and same messages give
    the same replies.
    """

    name: str
    channel: str  # "email" or "sms"
    seed: int | str
    friends: tuple[str, ...] = ()  # the names of the people it plays with
    language: str = "en"  # the language it reads and writes ("ko": Korean)
    rng: random.Random = field(init=False)
    inbox: list[tuple[object, Reading]] = field(default_factory=list)
    seen: int = 0
    attempts: int = 0
    asked: tuple[object, Reading] | None = None  # the last message that asked it something
    loyalty: str | None = None
    done: bool = False

    def __post_init__(self) -> None:
        self.rng = random.Random(f"tortuga-sim:{self.seed}:{self.name}")

    def receive(self, message: object, text: str) -> Reading:
        """Read one arriving message (the caller keeps ``message`` to quote it later)."""
        reading = read_sms(text, self.friends, self.language) if self.channel == Channel.SMS \
            else read_email(text, self.friends, self.language)
        self.loyalty = reading.loyalty or self.loyalty
        self.done = self.done or reading.game_over
        self.inbox.append((message, reading))
        return reading

    def next_reply(self) -> tuple[object, str] | None:
        """(message answered, reply text) for the newest actionable message, or None."""
        new = self.inbox[self.seen:]
        self.seen = len(self.inbox)
        if self.done:
            return None
        actionable = [(m, r) for m, r in new if r.actionable]
        if not actionable:
            return self._try_again(new)
        message, reading = actionable[-1]
        self.asked = (message, reading)
        if all(o.verb == "ATLANTIS" for o in reading.options) and not reading.invitation \
                and self.rng.random() > ATLANTIS_RATE:
            return None  # only the standing order is possible: usually not worth it
        self.attempts = self.attempts + 1 if reading.rejected else 0
        return message, self.compose(reading)

    def _try_again(self, new: Sequence[tuple[object, Reading]]) -> tuple[object, str] | None:
        """A Korean player whose answer was refused by a text without a menu (an SMS has
        room for no more) answers the question it was asked again: with the command the
        refusal offers, else with another choice from the menu it read."""
        refused = [(m, r) for m, r in new if r.rejected]
        if self.language != "ko" or not refused or self.asked is None or self.attempts >= 6:
            return None
        message, refusal = refused[-1]
        self.attempts += 1
        asked = self.asked[1]
        if refusal.suggestion and not any(t in refusal.suggestion.split()
                                          for t in TEMPLATE_TOKENS):
            return message, korean_command(refusal.suggestion, self.rng, careful=True)
        return message, self.compose(asked)

    def status_request(self) -> tuple[object, str] | None:
        """Ask for the full picture again (a person who thinks a message went missing)."""
        if not self.inbox or self.done:
            return None
        return self.inbox[-1][0], "상태" if self.language == "ko" else "STATUS"

    # -- choosing

    def compose(self, reading: Reading) -> str:
        """The whole text of a reply to ``reading``."""
        korean = self.language == "ko"
        if reading.invitation and not reading.options:
            words = KOREAN_JOIN_WORDS if korean else JOIN_WORDS
            return self._decorate(self.rng.choice(words), careful=False)
        careful = self.attempts > 0
        command, option = self.choose(reading)
        text = self._style_korean(command, option, careful) if korean \
            else self._style(command, option, careful)
        return self._decorate(text, careful)

    def choose(self, reading: Reading) -> tuple[str, Option | None]:
        """A command (display form) and the option it came from."""
        options = list(reading.options)
        if self.attempts >= 2 and reading.suggestion and not any(
                t in reading.suggestion.split() for t in TEMPLATE_TOKENS):
            return reading.suggestion, None
        if self.attempts >= 3:
            plain = [o for o in options if not o.is_template]
            options = plain or options
        weights = [VERB_WEIGHTS.get(o.verb, 1.0) for o in options]
        option = self.rng.choices(options, weights=weights)[0]
        if not option.is_template:
            option = self._prefer_team(option, options)
            return option.command, option
        if self.attempts >= 2 and option.example:
            return option.example, option
        return self.fill(option, reading), option

    def _prefer_team(self, option: Option, options: Sequence[Option]) -> Option:
        """A hold choice leans towards the player's own team, as a person's would."""
        team = (self.loyalty or "").upper()
        if team in ("BRITISH", "FRENCH") and option.verb in ("PLACE", "TAKE", "SHIFT", "MAP"):
            mine = [o for o in options if o.verb == option.verb and
                    o.command.upper().endswith(team)]
            if mine and self.rng.random() < 0.8:
                return self.rng.choice(mine)
        return option

    def fill(self, option: Option, reading: Reading) -> str:
        """Fill a template's blanks from what the messages showed."""
        positions = list(reading.face_down) or [1, 2, 3, 4, 5]
        unknown = [p for p in positions if p not in reading.known] or positions
        names = [n for n in (reading.names or self.friends) if n.casefold() !=
                 self.name.casefold()] or ["1"]
        verb = option.verb
        pool = unknown if verb == "VIEW" else positions
        need = option.command.split().count("_")
        picks = self.rng.sample(pool, k=min(len(pool), need))
        if verb == "VIEW" and len(picks) < need:  # one unseen card left: and a seen one
            rest = [p for p in positions if p not in picks]
            picks += self.rng.sample(rest, k=min(len(rest), need - len(picks)))
        if verb == "VOTE":
            picks = self.rng.sample([1, 2, 3], k=2)
        words: list[str] = []
        for tok in option.command.split():
            if tok == "_":
                words.append(str(picks.pop(0)) if picks else str(self.rng.choice(positions)))
            elif tok == "name":
                words.append(self.rng.choice(names))
            elif tok == "FD/JR":
                words.append(self.rng.choice(["FD", "JR"]))
            else:
                words.append(tok)
        return " ".join(words)

    # -- writing

    def _style(self, command: str, option: Option | None, careful: bool) -> str:
        sms = self.channel == Channel.SMS
        roll = self.rng.random()
        if option is not None and not careful:
            if not option.is_template and roll < (0.5 if sms else 0.25):
                return str(option.number)
            if option.is_template and sms and roll < 0.3:
                args = command.split()[1:]
                return " ".join([str(option.number), *args])
        case = self.rng.random()
        if case < 0.35:
            command = command.lower()
        elif case < 0.45:
            command = command.capitalize()
        if not careful and self.rng.random() < 0.08:
            command = typo(command, self.rng)
        return command

    def _style_korean(self, command: str, option: Option | None, careful: bool) -> str:
        """``command`` (English words) written as a Korean player writes it: the option
        number ("2", "2번이요"), or the command in Korean ("3번 공개할게요")."""
        sms = self.channel == Channel.SMS
        roll = self.rng.random()
        if option is not None and not option.is_template and (
                careful or roll < (0.5 if sms else 0.3) or option.verb not in KOREAN_FORMS):
            return self.rng.choice(("{n}", "{n}", "{n}번", "{n}번이요", "{n}번으로 할게요")
                                   ).format(n=option.number)
        return korean_command(command, self.rng, careful=careful)

    def _decorate(self, text: str, careful: bool) -> str:
        if self.channel == Channel.SMS:
            return text
        korean = self.language == "ko"
        if not careful and self.rng.random() < 0.03:
            text += "\n" + self.rng.choice(KOREAN_TABLE_TALK if korean else TABLE_TALK)
        if self.rng.random() < 0.1:
            text = self.rng.choice(KOREAN_GREETINGS if korean else GREETINGS) + text
        if self.rng.random() < 0.3:
            text += self.rng.choice(KOREAN_SIGNATURES if korean else SIGNATURES).format(
                name=self.name)
        return text


def typo(command: str, rng: random.Random) -> str:
    """The command with one slip of the finger in its first word."""
    verb, _, rest = command.partition(" ")
    if len(verb) < 3:
        return command
    i = rng.randrange(1, len(verb) - 1)
    kind = rng.randrange(3)
    if kind == 0:
        slipped = verb[:i] + verb[i + 1] + verb[i] + verb[i + 2:]
    elif kind == 1:
        slipped = verb[:i] + verb[i + 1:]
    else:
        slipped = verb[:i] + verb[i] + verb[i:]
    return f"{slipped} {rest}".strip()


#: How a Korean player writes each command it knows by heart (numbers are written "3번";
#: ``{n}`` the numbers, ``{name}`` a player, ``{ship}`` a ship, ``{end}`` an ending).
#: Every form is one ``pbm.replies.korean`` reads back (tests/demo/test_simplayer_korean.py).
KOREAN_FORMS: dict[str, tuple[str, ...]] = {
    "REVEAL": ("{n} 공개{end}", "공개 {n}", "{n} 카드 공개{end}"),
    "VIEW": ("{n} 확인{end}", "확인 {n}", "{n} 확인해 주세요"),
    "FORCE": ("{n} {name} 지목{end}", "지목 {n} {name}"),
    "VOTE": ("{n}에 투표", "{n} 낼게요", "{n} 투표{end}", "투표 {n}"),
    "CHOOSE": ("{n} 선택{end}",),
    "MAROON": ("{name} 고립{end}", "{name} 고립시킬게요", "고립 {name}"),
    "SHOOT": ("{name} 쏘기", "쏘기 {name}"),
    "GIVE": ("{name}한테 주기", "주기 {name}"),
    "MARQUE": ("허가증 {name} {ship}",),
    "ATTACK": ("공격{end}", "공격"),
    "MUTINY": ("반란{end}", "반란"),
    "BRAWL": ("전투{end}", "전투"),
    "ROW": ("보트 이동", "보트로 이동할게요"),
    "BOARD": ("승선", "승선할게요"),
    "LAND": ("상륙", "상륙할게요"),
}


def korean_command(command: str, rng: random.Random, careful: bool = False) -> str:
    """One command (English words: ``VIEW 1 3``, ``MAROON 민준``) as a Korean player
    writes it: ``1번이랑 3번 확인``, ``민준 고립시킬게요``. A verb it has no form for is
    written in the menu's words (``놓기 영국``), which the service reads back as well."""
    verb, *args = command.split()
    verb = verb.upper()
    numbers = [a for a in args if a.isdigit()]
    ships = [a.upper() for a in args if a.upper() in ("FD", "JR")]
    names = [a for a in args if not a.isdigit() and a.upper() not in ("FD", "JR")]
    forms = KOREAN_FORMS.get(verb)
    shape_ok = forms is not None and (verb != "MARQUE" or (names and ships)) and (
        verb not in ("MAROON", "SHOOT", "GIVE", "FORCE") or len(names) == 1)
    form = (forms[0] if careful else rng.choice(forms)) if forms and shape_ok else None
    if form is None or ("{n}" in form and not numbers):
        return " ".join([korean_word(verb), *args])
    if form.startswith(("공개 {n}", "확인 {n}", "지목 {n}", "투표 {n}")):
        n_text = " ".join(numbers)  # the menu's own order: "공개 3", "지목 1 2 민준"
    else:  # "3번", "1번이랑 3번", "1번과 3번", "1번, 3번"
        joiner = " " if careful else rng.choice(("이랑 ", "과 ", ", ", " "))
        n_text = joiner.join(f"{n}번" for n in numbers)
    return form.format(n=n_text, name=names[0] if names else "", ship=ships[0] if ships else "",
                       end=rng.choice(KOREAN_ENDINGS) if not careful else "").strip()
