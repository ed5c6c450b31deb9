"""The game state: plain data (ints, strings, lists), JSON-able.

:class:`GameState` is treated as immutable by every public function: :func:`engine.apply`
changes a fork of it (:meth:`GameState.fork`: copy-on-write, the containers it does not
change stay shared) and returns that. Anyone else who changes a state changes a
:meth:`GameState.copy` (which copies every container). Event cards and Vote cards are
integer ids into :data:`engine.cards.EVENT_CARDS` and :data:`engine.cards.VOTE_DECK`.
The "stage" says what the game is waiting for; there is exactly one at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from engine.cards import (
    DEFAULT_STARRED,
    EventTitle,
    Hold,
    Location,
    Loyalty,
    Ship,
    VoteKind,
)
from engine.events import DecisionKind


@dataclass(frozen=True)
class GameOptions:
    """Options of :func:`engine.new_game`.

    ``starred``: the 3 starred Event titles used (default Atlantis, El Dorado, Fountain of
    Youth). For tests and puzzles: ``event_deck`` (explicit order of the game's Event cards,
    top first, Spanish Armada last), ``vote_deck`` (an order of the 32 Vote card ids, top
    first; the first 3 go to seat 0, the next 3 to seat 1, ..., the rest is the deck),
    ``pawn_order`` (seats in the order their pawns are drawn: FD, JR, FD, ...),
    ``loyalties`` (one per seat).
    """

    starred: tuple[EventTitle, ...] = DEFAULT_STARRED
    event_deck: tuple[EventTitle, ...] | None = None
    vote_deck: tuple[int, ...] | None = None
    pawn_order: tuple[int, ...] | None = None
    loyalties: tuple[Loyalty, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "starred": [t.value for t in self.starred],
            "event_deck": None if self.event_deck is None else [t.value for t in self.event_deck],
            "vote_deck": None if self.vote_deck is None else list(self.vote_deck),
            "pawn_order": None if self.pawn_order is None else list(self.pawn_order),
            "loyalties": None if self.loyalties is None else [x.value for x in self.loyalties],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameOptions:
        """Inverse of :meth:`to_dict` (missing keys take their defaults)."""
        starred = data.get("starred")
        deck = data.get("event_deck")
        votes = data.get("vote_deck")
        pawns = data.get("pawn_order")
        loyalties = data.get("loyalties")
        return cls(
            starred=DEFAULT_STARRED if starred is None else tuple(EventTitle(t) for t in starred),
            event_deck=None if deck is None else tuple(EventTitle(t) for t in deck),
            vote_deck=None if votes is None else tuple(int(v) for v in votes),
            pawn_order=None if pawns is None else tuple(int(p) for p in pawns),
            loyalties=None if loyalties is None else tuple(Loyalty(x) for x in loyalties),
        )


# ---------------------------------------------------------------- stages


@dataclass(frozen=True)
class PlaceStage:
    """An opening Captain places his treasure token."""

    seat: int
    ship: Ship
    kind: ClassVar[DecisionKind] = DecisionKind.PLACE

    def awaiting(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True)
class ActionStage:
    """A turn action (``action`` of ``of``: 2-player games have 2 per turn)."""

    seat: int
    action: int
    of: int
    kind: ClassVar[DecisionKind] = DecisionKind.ACTION

    def awaiting(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True)
class VoteStage:
    """A vote in progress. ``played`` holds (seat, card ids) of those who answered: secret.
    ``hands`` holds (seat, card ids) of each answered seat's hand as it was when it first
    answered, in order: ``REVOTE n`` numbers cards as that hand did (the prompt's numbers)."""

    vote: VoteKind
    caller: int
    participants: tuple[int, ...]
    played: tuple[tuple[int, tuple[int, ...]], ...] = ()
    hands: tuple[tuple[int, tuple[int, ...]], ...] = ()
    kind: ClassVar[DecisionKind] = DecisionKind.VOTE

    def answered(self) -> tuple[int, ...]:
        return tuple(seat for seat, _ in self.played)

    def hand_before(self, seat: int) -> tuple[int, ...] | None:
        """``seat``'s hand as it was when it answered (None: it has not answered)."""
        return next((hand for s, hand in self.hands if s == seat), None)

    def awaiting(self) -> tuple[int, ...]:
        if not self.played:
            return self.participants
        done = {seat for seat, _ in self.played}
        return tuple([s for s in self.participants if s not in done])


@dataclass(frozen=True)
class ChooseStage:
    """A forced seat must pick one of two face-down Event cards."""

    seat: int
    positions: tuple[int, int]
    by: int
    kind: ClassVar[DecisionKind] = DecisionKind.CHOOSE

    def awaiting(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True)
class MarqueStage:
    """A revealed Letter of Marque: use it now or save it."""

    seat: int
    card: int
    kind: ClassVar[DecisionKind] = DecisionKind.LETTER_OF_MARQUE

    def awaiting(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True)
class ShootStage:
    """A revealed Pistol: pick the target."""

    seat: int
    card: int
    kind: ClassVar[DecisionKind] = DecisionKind.SHOOT

    def awaiting(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True)
class GiveStage:
    """A revealed Treasure Map: pick who gets it."""

    seat: int
    card: int
    kind: ClassVar[DecisionKind] = DecisionKind.GIVE

    def awaiting(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True)
class TakeStage:
    """A successful Attack: the Captain picks source and destination holds."""

    seat: int
    kind: ClassVar[DecisionKind] = DecisionKind.TAKE

    def awaiting(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True)
class FountainStage:
    """The Fountain of Youth owner is about to be marooned (``cause``, by seat ``by``)."""

    seat: int
    cause: str
    by: int | None
    kind: ClassVar[DecisionKind] = DecisionKind.FOUNTAIN

    def awaiting(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True)
class OverStage:
    """The game has ended."""

    kind: ClassVar[None] = None

    def awaiting(self) -> tuple[int, ...]:
        return ()


Stage = (
    PlaceStage
    | ActionStage
    | VoteStage
    | ChooseStage
    | MarqueStage
    | ShootStage
    | GiveStage
    | TakeStage
    | FountainStage
    | OverStage
)

STAGE_TYPES: dict[str, type[Stage]] = {
    cls.__name__: cls
    for cls in (
        PlaceStage,
        ActionStage,
        VoteStage,
        ChooseStage,
        MarqueStage,
        ShootStage,
        GiveStage,
        TakeStage,
        FountainStage,
        OverStage,
    )
}

TREASURE_KEYS: tuple[str, ...] = (
    "GALLEON",
    "FD_BRITISH",
    "FD_FRENCH",
    "JR_BRITISH",
    "JR_FRENCH",
    "TORTUGA_BRITISH",
    "TORTUGA_FRENCH",
    "UNPLACED",  # the two opening Captains' tokens until they are placed
)


def hold_key(place: Ship | str, hold: Hold) -> str:
    """Treasure key of a ship hold or Tortuga area: ``hold_key(Ship.FD, Hold.BRITISH)``."""
    return _HOLD_KEYS.get((place, hold)) or f"{place}_{hold}"


#: ``hold_key`` of every ship and Tortuga (formatting enums is slow; str enums hash and
#: compare as their values, so ``(Ship.FD, Hold.BRITISH)`` finds ``("FD", "BRITISH")``).
_HOLD_KEYS: dict[tuple[str, str], str] = {
    (place, hold.value): f"{place}_{hold.value}" for place in ("FD", "JR", "TORTUGA")
    for hold in Hold}


# ---------------------------------------------------------------- the state

_LINE_LOCATIONS = (("FD", Location.FD), ("JR", Location.JR), ("TORTUGA", Location.TORTUGA))
_ROWBOAT_LOCATIONS = (("FD", Location.FD_ROWBOAT), ("JR", Location.JR_ROWBOAT))


@dataclass
class GameState:
    """One game of Tortuga 1667. Plain data; see the module docstring.

    Pawn lines are front to back: ``lines["FD"][0]`` is the Flying Dutchman's Captain,
    ``lines["TORTUGA"][0]`` the Governor. ``row[i]`` is the card at position ``i + 1``
    (``None`` = empty spot). ``peeks[seat]`` maps positions to the card ids that seat has
    looked at there. ``stage`` is ``None`` only transiently inside :func:`engine.apply`.
    """

    names: tuple[str, ...]
    seed: int
    options: GameOptions
    loyalties: list[Loyalty]
    hands: list[list[int]]
    vote_deck: list[int]
    lines: dict[str, list[int]]
    rowboats: dict[str, int | None]
    treasure: dict[str, int]
    event_deck: list[int]
    row: list[int | None]
    discard: list[int]
    box: list[int]
    kept: list[list[int]]
    peeks: list[dict[int, int]]
    seen: list[list[int]]
    atlantis_ordered: list[bool]
    pawn_order: tuple[int, ...]
    turn_seat: int = 0
    turn_number: int = 0
    turn_action: int = 0
    stage: Stage | None = None
    stage_serial: int = 0
    refill_position: int | None = None
    exhausted: bool = False
    sudden_death: bool = False
    winner: Loyalty | None = None
    end_reason: str | None = None
    version: int = 0
    rng_counter: int = 0
    explosion_token: str | None = None  # OQ-4: a generic marker no implemented card uses
    extra: dict[str, Any] = field(default_factory=dict)  # OQ-11: hook for optional rules

    @property
    def n(self) -> int:
        """Number of players."""
        return len(self.names)

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return isinstance(self.stage, OverStage)

    def location(self, seat: int) -> Location:
        """Where ``seat``'s pawn is."""
        for key, loc in _LINE_LOCATIONS:
            if seat in self.lines[key]:
                return loc
        for key, loc in _ROWBOAT_LOCATIONS:
            if self.rowboats[key] == seat:
                return loc
        raise AssertionError(f"seat {seat} has no pawn on the board")

    def locations(self) -> list[Location]:
        """Every seat's location, by seat."""
        where: list[Location | None] = [None] * len(self.names)
        for key, loc in _LINE_LOCATIONS:
            for seat in self.lines[key]:
                where[seat] = loc
        for key, loc in _ROWBOAT_LOCATIONS:
            rower = self.rowboats[key]
            if rower is not None:
                where[rower] = loc
        assert None not in where, "every pawn is on the board"
        return [loc for loc in where if loc is not None]

    def decision_id(self, seat: int) -> str | None:
        """An id of the decision open for ``seat``, or ``None`` if nothing is awaited.

        A reply carrying an older id answers a decision that is already closed.
        """
        if self.stage is None or seat not in self.stage.awaiting():
            return None
        return f"{self.stage_serial}.{seat}"

    def __copy__(self) -> GameState:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> GameState:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        # Leave out memoised legal moves (engine.rules keeps them in __dict__).
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def copy(self) -> GameState:
        """An independent copy (stages are immutable and shared); memoised data is not
        copied, so the copy may be changed freely.

        Built without ``__init__`` (a copy is the hottest path of :func:`engine.apply`):
        immutable fields are shared, each mutable container is copied one level deep
        (``list``/``dict``, as the fields are typed).
        """
        d = self.__dict__
        data = d.copy()
        if len(data) != _FIELD_COUNT:  # memoised data (``_`` names) stays behind
            data.pop("_legal_cache", None)  # the usual one (engine.rules), then any other
            if len(data) != _FIELD_COUNT:
                for key in [k for k in data if k.startswith("_")]:
                    del data[key]
        data["loyalties"] = list(d["loyalties"])
        data["hands"] = [list(h) for h in d["hands"]]
        data["vote_deck"] = list(d["vote_deck"])
        data["lines"] = {k: list(v) for k, v in d["lines"].items()}
        data["rowboats"] = dict(d["rowboats"])
        data["treasure"] = dict(d["treasure"])
        data["event_deck"] = list(d["event_deck"])
        data["row"] = list(d["row"])
        data["discard"] = list(d["discard"])
        data["box"] = list(d["box"])
        data["kept"] = [list(k) for k in d["kept"]]
        data["peeks"] = [dict(p) for p in d["peeks"]]
        data["seen"] = [list(x) for x in d["seen"]]
        data["atlantis_ordered"] = list(d["atlantis_ordered"])
        data["extra"] = dict(d["extra"])
        new = object.__new__(GameState)
        new.__dict__ = data
        return new

    def fork(self) -> GameState:
        """A copy for :func:`engine.apply` that shares every container with this state
        until the first change (copy-on-write): the rule modules change a container only
        through :func:`writable`, which copies it if it is still shared. Only apply
        changes a fork, and :func:`release` ends the sharing bookkeeping before apply
        returns it; anyone else who wants to change a state changes a :meth:`copy`.
        """
        d = self.__dict__
        data = d.copy()
        if len(data) != _FIELD_COUNT:  # memoised data (``_`` names) stays behind
            data.pop("_legal_cache", None)
            if len(data) != _FIELD_COUNT:
                for key in [k for k in data if k.startswith("_")]:
                    del data[key]
        data["_parent"] = d
        new = object.__new__(GameState)
        new.__dict__ = data
        return new


def _copy_lines(lines: dict[str, list[int]]) -> dict[str, list[int]]:
    return {key: [*line] for key, line in lines.items()}


#: How each container field is copied on its first change in a fork (per-seat lists of
#: lists or dicts: the outer list only; the rule modules replace a seat's own list).
_COPIERS: dict[str, Callable[[Any], Any]] = {
    "loyalties": list.copy, "hands": list.copy, "vote_deck": list.copy, "lines": _copy_lines,
    "rowboats": dict.copy, "treasure": dict.copy, "event_deck": list.copy, "row": list.copy,
    "discard": list.copy, "box": list.copy, "kept": list.copy, "peeks": list.copy,
    "seen": list.copy, "atlantis_ordered": list.copy, "extra": dict.copy,
}


def writable(s: GameState, field: str) -> Any:
    """The container ``field`` of ``s``, safe to change in place: a fork's container still
    shared with the state it came from is copied first (see :meth:`GameState.fork`).
    Per-seat lists (``hands``, ``kept``, ``peeks``, ``seen``) are copied one level deep:
    replace a seat's own list or dict, never change it in place."""
    d = s.__dict__
    parent = d.get("_parent")
    if parent is None:  # not a fork (or a released one): every container is its own
        return d[field]
    value = d[field]
    if parent[field] is value:
        value = d[field] = _COPIERS[field](value)
    return value


def release(s: GameState) -> None:
    """End a fork's copy-on-write bookkeeping (its containers are now its own or shared
    with states nobody changes)."""
    s.__dict__.pop("_parent", None)


_FIELD_COUNT = len(fields(GameState))
