"""A simulated player: reads its own messages as a person would and answers them.

It sees only what reaches it: the text part of its emails, or the bodies of its SMS, read
as a person reads them (``pbm.demo.reading``: the numbered menu, the face-down Event
positions, the names at the table, its own loyalty). It picks an answer with its own
seeded RNG and writes it the way people do: upper or lower case, a bare option number, a
signature, now and then a typo or a word to the table. When the service answers "not
understood" or "not done", it tries again, more carefully (the "did you mean", the
example, then a plain option). A Korean player (``language="ko"``) answers in Korean
("3번 공개", "1번이랑 3번 확인", "1번에 투표", "민준 고립시킬게요", "참가").

Nothing here touches the database or the service: ``pbm.demo.mailroom`` carries the text.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from pbm.demo.reading import TEMPLATE_TOKENS, Option, Reading, read_email, read_sms
from pbm.messages import Channel
from pbm.render.names import own_word

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
        return " ".join([own_word(verb, "ko"), *args])
    if form.startswith(("공개 {n}", "확인 {n}", "지목 {n}", "투표 {n}")):
        n_text = " ".join(numbers)  # the menu's own order: "공개 3", "지목 1 2 민준"
    else:  # "3번", "1번이랑 3번", "1번과 3번", "1번, 3번"
        joiner = " " if careful else rng.choice(("이랑 ", "과 ", ", ", " "))
        n_text = joiner.join(f"{n}번" for n in numbers)
    return form.format(n=n_text, name=names[0] if names else "", ship=ships[0] if ships else "",
                       end=rng.choice(KOREAN_ENDINGS) if not careful else "").strip()
