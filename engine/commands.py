"""Commands: small frozen value types with a canonical text form that round-trips.

``parse_command(str(cmd)) == cmd`` for every command. Seats are 0-based in data and
1-based *seat numbers* in text (``MAROON 3`` is ``Maroon(target=2)``); this module is the
only place that converts. Event-row positions and vote-hand card numbers are 1-based in
both. The forgiving player-facing parser lives in ``pbm/replies/`` and produces these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine import reasons as R
from engine.cards import Hold, Ship
from engine.errors import CommandParseError


@dataclass(frozen=True)
class Command:
    """Base class of every command."""

    keyword = ""

    def __str__(self) -> str:
        return self.keyword


# ---------------------------------------------------------------- turn actions


@dataclass(frozen=True)
class View(Command):
    """Secretly look at Event cards: ``VIEW 1 4`` (``VIEW 2`` when only one is face down)."""

    positions: tuple[int, ...]
    keyword = "VIEW"

    def __post_init__(self) -> None:
        object.__setattr__(self, "positions", tuple(sorted(self.positions)))

    def __str__(self) -> str:
        return " ".join(["VIEW", *map(str, self.positions)])


@dataclass(frozen=True)
class Reveal(Command):
    """Reveal and resolve one Event card: ``REVEAL 3``."""

    position: int
    keyword = "REVEAL"

    def __str__(self) -> str:
        return f"REVEAL {self.position}"


@dataclass(frozen=True)
class Force(Command):
    """Make another seat reveal one of two Event cards: ``FORCE 1 4 3`` (last = seat number)."""

    positions: tuple[int, int]
    target: int
    keyword = "FORCE"

    def __post_init__(self) -> None:
        a, b = sorted(self.positions)
        object.__setattr__(self, "positions", (a, b))

    def __str__(self) -> str:
        return f"FORCE {self.positions[0]} {self.positions[1]} {self.target + 1}"


@dataclass(frozen=True)
class Row(Command):
    """Move into a rowboat: ``ROW`` from a ship, ``ROW FD`` / ``ROW JR`` from Tortuga."""

    ship: Ship | None = None
    keyword = "ROW"

    def __str__(self) -> str:
        return "ROW" if self.ship is None else f"ROW {self.ship.value}"


@dataclass(frozen=True)
class Board(Command):
    """From a rowboat to the back of its ship: ``BOARD``."""

    keyword = "BOARD"


@dataclass(frozen=True)
class Land(Command):
    """From a rowboat to the back of Tortuga: ``LAND``."""

    keyword = "LAND"


@dataclass(frozen=True)
class Attack(Command):
    """Captain: call an Attack vote."""

    keyword = "ATTACK"


@dataclass(frozen=True)
class Mutiny(Command):
    """First Mate: call a Mutiny vote."""

    keyword = "MUTINY"


@dataclass(frozen=True)
class Brawl(Command):
    """Governor of Tortuga: call a Brawl vote."""

    keyword = "BRAWL"


@dataclass(frozen=True)
class Maroon(Command):
    """Captain: maroon a crewmate: ``MAROON 3``."""

    target: int
    keyword = "MAROON"

    def __str__(self) -> str:
        return f"MAROON {self.target + 1}"


@dataclass(frozen=True)
class Shift(Command):
    """Cabin Boy: move 1 treasure into hold ``to`` from the other hold: ``SHIFT TO BRITISH``."""

    to: Hold
    keyword = "SHIFT"

    def __str__(self) -> str:
        return f"SHIFT TO {self.to.value}"


@dataclass(frozen=True)
class Marque(Command):
    """Letter of Marque: move ``target`` to the back of ``ship``: ``MARQUE 3 JR``."""

    target: int
    ship: Ship
    keyword = "MARQUE"

    def __str__(self) -> str:
        return f"MARQUE {self.target + 1} {self.ship.value}"


@dataclass(frozen=True)
class UseMap(Command):
    """Treasure Map holder (provisional, OQ-1): ``MAP BRITISH``."""

    hold: Hold
    keyword = "MAP"

    def __str__(self) -> str:
        return f"MAP {self.hold.value}"


# ---------------------------------------------------------------- answers


@dataclass(frozen=True)
class Save(Command):
    """Keep a just-revealed Letter of Marque for later: ``SAVE``."""

    keyword = "SAVE"


@dataclass(frozen=True)
class Vote(Command):
    """Play hand card(s) in a vote: ``VOTE 2`` or, with El Dorado, ``VOTE 1 3``."""

    cards: tuple[int, ...]
    keyword = "VOTE"

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))

    def __str__(self) -> str:
        return " ".join(["VOTE", *map(str, self.cards)])


@dataclass(frozen=True)
class ChangeVote(Command):
    """Change one's secret answer while the vote is open: ``REVOTE 3``. Cards are numbered
    as in the hand the seat voted from (the vote prompt's numbers)."""

    cards: tuple[int, ...]
    keyword = "REVOTE"

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))

    def __str__(self) -> str:
        return " ".join(["REVOTE", *map(str, self.cards)])


@dataclass(frozen=True)
class Choose(Command):
    """Forced seat: reveal the card at ``position``: ``CHOOSE 4``."""

    position: int
    keyword = "CHOOSE"

    def __str__(self) -> str:
        return f"CHOOSE {self.position}"


@dataclass(frozen=True)
class Shoot(Command):
    """Pistol revealer: ``SHOOT 3``."""

    target: int
    keyword = "SHOOT"

    def __str__(self) -> str:
        return f"SHOOT {self.target + 1}"


@dataclass(frozen=True)
class Give(Command):
    """Treasure Map revealer: ``GIVE 3``."""

    target: int
    keyword = "GIVE"

    def __str__(self) -> str:
        return f"GIVE {self.target + 1}"


@dataclass(frozen=True)
class Take(Command):
    """Successful Attack: ``TAKE TO FRENCH`` (Galleon) / ``TAKE BRITISH TO FRENCH`` (other ship)."""

    to: Hold
    source: Hold | None = None
    keyword = "TAKE"

    def __str__(self) -> str:
        if self.source is None:
            return f"TAKE TO {self.to.value}"
        return f"TAKE {self.source.value} TO {self.to.value}"


@dataclass(frozen=True)
class TakeNone(Command):
    """Successful Attack: the Captain takes no treasure (he *may* take one): ``TAKE NONE``."""

    keyword = "TAKE"

    def __str__(self) -> str:
        return "TAKE NONE"


@dataclass(frozen=True)
class Discard(Command):
    """A revealed Letter of Marque with nobody to move: resolve it with no effect and
    discard it (OQ-8): ``DISCARD``."""

    keyword = "DISCARD"


@dataclass(frozen=True)
class Timeout(Command):
    """Sent by the service, never by a player: the seat ran out of time, so the default of
    :mod:`engine.defaults` is drawn and played (replaying ``TIMEOUT`` draws it again)."""

    keyword = "TIMEOUT"


@dataclass(frozen=True)
class Place(Command):
    """Opening Captain: where the starting treasure goes: ``PLACE BRITISH``."""

    hold: Hold
    keyword = "PLACE"

    def __str__(self) -> str:
        return f"PLACE {self.hold.value}"


@dataclass(frozen=True)
class Fountain(Command):
    """Fountain of Youth owner about to be marooned: stay."""

    keyword = "FOUNTAIN"


@dataclass(frozen=True)
class Accept(Command):
    """Fountain of Youth owner about to be marooned: go."""

    keyword = "ACCEPT"


@dataclass(frozen=True)
class UseAtlantis(Command):
    """Atlantis owner: standing order, applied before the next turn begins."""

    keyword = "ATLANTIS"


# ---------------------------------------------------------------- parsing


def _int(text: str, tokens: list[str], i: int, what: str, low: int, high: int | None) -> int:
    if i >= len(tokens):
        raise CommandParseError(text, R.MISSING(what=what))
    token = tokens[i]
    # isdecimal, not isdigit: "④" and "❹" are digits that int() refuses; int() also
    # refuses a token of thousands of digits.
    if not token.isdecimal():
        raise CommandParseError(text, R.NOT_A_NUMBER(what=what, value=token))
    if len(token) > 9:
        raise CommandParseError(text, R.NUMBER_TOO_LONG(what=what, value=token[:12]))
    value = int(token)
    if value < low or (high is not None and value > high):
        raise CommandParseError(text, R.OUT_OF_RANGE(what=what, low=low, high=high, value=value)
                                if high is not None else
                                R.TOO_SMALL(what=what, low=low, value=value))
    return value


def _position(text: str, tokens: list[str], i: int) -> int:
    return _int(text, tokens, i, "an Event card position", 1, 5)


def _seat(text: str, tokens: list[str], i: int) -> int:
    return _int(text, tokens, i, "a seat number", 1, None) - 1


def _hold(text: str, tokens: list[str], i: int) -> Hold:
    if i >= len(tokens):
        raise CommandParseError(text, R.MISSING(what="BRITISH or FRENCH"))
    try:
        return Hold(tokens[i])
    except ValueError:
        raise CommandParseError(text, R.NOT_A_HOLD(value=tokens[i])) from None


def _ship(text: str, tokens: list[str], i: int) -> Ship:
    if i >= len(tokens):
        raise CommandParseError(text, R.MISSING(what="FD or JR"))
    try:
        return Ship(tokens[i])
    except ValueError:
        raise CommandParseError(text, R.NOT_A_SHIP(value=tokens[i])) from None


def _arity(text: str, tokens: list[str], *counts: int) -> None:
    if len(tokens) - 1 not in counts:
        expected = " or ".join(str(c) for c in counts)
        raise CommandParseError(text, R.ARITY(cmd=tokens[0], expected=expected,
                                              n=len(tokens) - 1))


def _distinct(text: str, values: tuple[int, ...], what: str) -> tuple[int, ...]:
    if len(set(values)) != len(values):
        raise CommandParseError(text, R.NOT_DISTINCT(what=what))
    return values


def _parse_view(text: str, t: list[str]) -> Command:
    _arity(text, t, 1, 2)
    return View(_distinct(text, tuple(_position(text, t, i) for i in range(1, len(t))),
                          "positions"))


def _parse_force(text: str, t: list[str]) -> Command:
    _arity(text, t, 3)
    a, b = _distinct(text, (_position(text, t, 1), _position(text, t, 2)), "positions")
    return Force((a, b), _seat(text, t, 3))


def _parse_row(text: str, t: list[str]) -> Command:
    _arity(text, t, 0, 1)
    return Row(_ship(text, t, 1) if len(t) == 2 else None)


def _parse_shift(text: str, t: list[str]) -> Command:
    _arity(text, t, 2)
    if t[1] != "TO":
        raise CommandParseError(text, R.SHIFT_TO())
    return Shift(_hold(text, t, 2))


def _parse_marque(text: str, t: list[str]) -> Command:
    _arity(text, t, 2)
    return Marque(_seat(text, t, 1), _ship(text, t, 2))


def _parse_vote(text: str, t: list[str]) -> Command:
    _arity(text, t, 1, 2)
    numbers = tuple(_int(text, t, i, "a card number", 1, None) for i in range(1, len(t)))
    return Vote(_distinct(text, numbers, "card numbers"))


def _parse_revote(text: str, t: list[str]) -> Command:
    vote = _parse_vote(text, t)
    assert isinstance(vote, Vote)
    return ChangeVote(vote.cards)


def _parse_take(text: str, t: list[str]) -> Command:
    if t[1:] == ["NONE"]:
        return TakeNone()
    _arity(text, t, 2, 3)
    if len(t) == 3:
        if t[1] != "TO":
            raise CommandParseError(text, R.TAKE_TO())
        return Take(_hold(text, t, 2))
    if t[2] != "TO":
        raise CommandParseError(text, R.TAKE_FROM_TO())
    return Take(_hold(text, t, 3), _hold(text, t, 1))


def _no_args(cls: type[Command]) -> Callable[[str, list[str]], Command]:
    def parse(text: str, t: list[str]) -> Command:
        _arity(text, t, 0)
        return cls()

    return parse


def _one(
    build: Callable[[str, list[str]], Command],
) -> Callable[[str, list[str]], Command]:
    def parse(text: str, t: list[str]) -> Command:
        _arity(text, t, 1)
        return build(text, t)

    return parse


_PARSERS: dict[str, Callable[[str, list[str]], Command]] = {
    "VIEW": _parse_view,
    "REVEAL": _one(lambda s, t: Reveal(_position(s, t, 1))),
    "FORCE": _parse_force,
    "ROW": _parse_row,
    "BOARD": _no_args(Board),
    "LAND": _no_args(Land),
    "ATTACK": _no_args(Attack),
    "MUTINY": _no_args(Mutiny),
    "BRAWL": _no_args(Brawl),
    "MAROON": _one(lambda s, t: Maroon(_seat(s, t, 1))),
    "SHIFT": _parse_shift,
    "MARQUE": _parse_marque,
    "MAP": _one(lambda s, t: UseMap(_hold(s, t, 1))),
    "SAVE": _no_args(Save),
    "VOTE": _parse_vote,
    "REVOTE": _parse_revote,
    "CHOOSE": _one(lambda s, t: Choose(_position(s, t, 1))),
    "SHOOT": _one(lambda s, t: Shoot(_seat(s, t, 1))),
    "GIVE": _one(lambda s, t: Give(_seat(s, t, 1))),
    "TAKE": _parse_take,
    "DISCARD": _no_args(Discard),
    "TIMEOUT": _no_args(Timeout),
    "PLACE": _one(lambda s, t: Place(_hold(s, t, 1))),
    "FOUNTAIN": _no_args(Fountain),
    "ACCEPT": _no_args(Accept),
    "ATLANTIS": _no_args(UseAtlantis),
}

#: Every command keyword of the canonical language.
KEYWORDS: tuple[str, ...] = tuple(_PARSERS)


def parse_command(text: str) -> Command:
    """Parse canonical command text (case and spacing are ignored).

    Raises :class:`~engine.errors.CommandParseError` with a message echoing ``text``.
    Numbers are checked for form only (a seat number that does not exist is an illegal
    command, reported by :func:`engine.apply`).
    """
    tokens = text.upper().split()
    if not tokens:
        raise CommandParseError(text, R.EMPTY())
    parser = _PARSERS.get(tokens[0])
    if parser is None:
        raise CommandParseError(text, R.UNKNOWN_COMMAND(value=tokens[0]))
    return parser(text, tokens)
