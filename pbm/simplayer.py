"""A simulated player: reads its own messages as a person would and answers them.

It sees only what reaches it: the text part of its emails, or the bodies of its SMS. From
the newest message that asks something it reads the numbered menu ("WHAT YOU CAN DO NOW"
in email, ``Reply 1=... 2=...`` in SMS), the face-down Event positions, the names at the
table and its own loyalty; it picks an answer with its own seeded RNG and writes it the
way people do: upper or lower case, a bare option number, a signature, now and then a
typo or a word to the table. When the service answers "not understood" or "not done", it
tries again, more carefully (the "did you mean", the example, then a plain option).

Nothing here touches the database or the service: ``pbm.mailroom`` carries the text.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

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


def read_email(text: str, names: Sequence[str] = ()) -> Reading:
    """Read the text part of one of our emails (see ``templates/email/message.txt``)."""
    lines = text.splitlines()
    headline = next((ln.strip() for ln in lines
                     if ln.strip() and "reply above this line" not in ln.lower()), "")
    seen_names = list(dict.fromkeys([*_table_names(text), *names]))
    options: list[Option] = []
    if "WHAT YOU CAN DO NOW" in text:
        section = text.split("WHAT YOU CAN DO NOW", 1)[1]
        for line in section.splitlines():
            match = _MENU_LINE.match(line)
            if not match:
                if options and not line.strip():
                    break
                continue
            rest = match.group(2)
            example = None
            found = _EXAMPLE.search(rest)
            if found:
                example = found.group(1).strip()
                rest = rest[: found.start()]
            display = re.split(r"\s{2,}", rest.strip())[0]
            command = _command_tokens(display, seen_names)
            if command:
                options.append(Option(int(match.group(1)), command, example))
    face_down: list[int] = []
    known: dict[int, str] = {}
    row = re.search(r"Event row: (.*)", text)
    if row:
        for pos, shown in _ROW.findall(row.group(1)):
            if shown.strip() == "-":
                continue
            face_down.append(int(pos))
            if shown.strip() != "?":
                known[int(pos)] = shown.strip().rstrip("*")
    suggestion = _DID_YOU_MEAN.search(text)
    loyalty = _LOYALTY.search(text)
    return Reading(
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


def read_sms(body: str, names: Sequence[str] = ()) -> Reading:
    """Read one of our text messages (``pbm.render``'s SMS form)."""
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
    loyalty = re.search(r"You are (British|French|Dutch)", body)
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
    rng: random.Random = field(init=False)
    inbox: list[tuple[object, Reading]] = field(default_factory=list)
    seen: int = 0
    attempts: int = 0
    loyalty: str | None = None
    done: bool = False

    def __post_init__(self) -> None:
        self.rng = random.Random(f"tortuga-sim:{self.seed}:{self.name}")

    def receive(self, message: object, text: str) -> Reading:
        """Read one arriving message (the caller keeps ``message`` to quote it later)."""
        reading = read_sms(text, self.friends) if self.channel == "sms" \
            else read_email(text, self.friends)
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
            return None
        message, reading = actionable[-1]
        if all(o.verb == "ATLANTIS" for o in reading.options) and not reading.invitation \
                and self.rng.random() > ATLANTIS_RATE:
            return None  # only the standing order is possible: usually not worth it
        self.attempts = self.attempts + 1 if reading.rejected else 0
        return message, self.compose(reading)

    def status_request(self) -> tuple[object, str] | None:
        """Ask for the full picture again (a person who thinks a message went missing)."""
        if not self.inbox or self.done:
            return None
        return self.inbox[-1][0], "STATUS"

    # -- choosing

    def compose(self, reading: Reading) -> str:
        """The whole text of a reply to ``reading``."""
        if reading.invitation and not reading.options:
            return self._decorate(self.rng.choice(JOIN_WORDS), careful=False)
        careful = self.attempts > 0
        command, option = self.choose(reading)
        text = self._style(command, option, careful)
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
        picks = self.rng.sample(pool, k=min(len(pool), option.command.split().count("_")))
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
        sms = self.channel == "sms"
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

    def _decorate(self, text: str, careful: bool) -> str:
        if self.channel == "sms":
            return text
        if not careful and self.rng.random() < 0.03:
            text += "\n" + self.rng.choice(TABLE_TALK)
        if self.rng.random() < 0.1:
            text = self.rng.choice(GREETINGS) + text
        if self.rng.random() < 0.3:
            text += self.rng.choice(SIGNATURES).format(name=self.name)
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
