"""Static game facts as data: ships, holds, loyalties, the Event cards and the Vote deck.

Everything here is immutable. Cards are identified by small integer ids so that the
game state stays plain JSON: Event card ids index :data:`EVENT_CARDS`, Vote card ids index
:data:`VOTE_DECK`. The two tables below are the only place where the card lists live
(rules reference section 6.6 and section 9.1); replace a table, not the code, when the
printed cards are verified (OQ-10).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property


class Ship(StrEnum):
    """The two pirate ships. ``FD`` = Flying Dutchman, ``JR`` = Jolly Roger."""

    FD = "FD"
    JR = "JR"

    @property
    def other(self) -> Ship:
        """The other pirate ship."""
        return Ship.JR if self is Ship.FD else Ship.FD

    @property
    def label(self) -> str:
        """The ship's full name."""
        return "Flying Dutchman" if self is Ship.FD else "Jolly Roger"


class Hold(StrEnum):
    """A treasure hold of a ship, a treasure area of Tortuga, and a team."""

    BRITISH = "BRITISH"
    FRENCH = "FRENCH"

    @property
    def other(self) -> Hold:
        """The other hold."""
        return Hold.FRENCH if self is Hold.BRITISH else Hold.BRITISH


class Loyalty(StrEnum):
    """A player's secret team."""

    BRITISH = "BRITISH"
    FRENCH = "FRENCH"
    DUTCH = "DUTCH"


class Location(StrEnum):
    """Where a pawn can be."""

    FD = "FD"
    JR = "JR"
    TORTUGA = "TORTUGA"
    FD_ROWBOAT = "FD_ROWBOAT"
    JR_ROWBOAT = "JR_ROWBOAT"

    @property
    def ship(self) -> Ship | None:
        """The ship this location is, or belongs to (rowboats); ``None`` for Tortuga."""
        if self is Location.FD or self is Location.FD_ROWBOAT:
            return Ship.FD
        if self is Location.JR or self is Location.JR_ROWBOAT:
            return Ship.JR
        return None

    @property
    def is_rowboat(self) -> bool:
        """True for the two rowboats."""
        return self is Location.FD_ROWBOAT or self is Location.JR_ROWBOAT

    @property
    def is_ship(self) -> bool:
        """True for the two ships (not their rowboats)."""
        return self is Location.FD or self is Location.JR

    @staticmethod
    def rowboat_of(ship: Ship) -> Location:
        """The rowboat belonging to ``ship``."""
        return Location.FD_ROWBOAT if ship is Ship.FD else Location.JR_ROWBOAT

    @staticmethod
    def of_ship(ship: Ship) -> Location:
        """The location of ``ship`` itself."""
        return Location.FD if ship is Ship.FD else Location.JR


class Rank(StrEnum):
    """Ranks derived from line order (rules reference 2.2)."""

    CAPTAIN = "CAPTAIN"
    FIRST_MATE = "FIRST_MATE"
    CABIN_BOY = "CABIN_BOY"
    GOVERNOR = "GOVERNOR"


class Symbol(StrEnum):
    """Symbols printed on Vote cards. Top: cannon/torch/water; middle: flags; bottom."""

    CANNON = "CANNON"
    TORCH = "TORCH"
    WATER = "WATER"
    BRITISH = "BRITISH"
    FRENCH = "FRENCH"
    SKULL = "SKULL"
    HELM = "HELM"


class VoteKind(StrEnum):
    """The three kinds of vote and the card section each one counts."""

    ATTACK = "ATTACK"
    BRAWL = "BRAWL"
    MUTINY = "MUTINY"


class EventTitle(StrEnum):
    """The 14 Event card titles."""

    SPANISH_ARMADA = "SPANISH_ARMADA"
    LETTER_OF_MARQUE = "LETTER_OF_MARQUE"
    PISTOL = "PISTOL"
    ALBATROSS = "ALBATROSS"
    BLACK_SPOT = "BLACK_SPOT"
    TREASURE_MAP = "TREASURE_MAP"
    STORMY_SEAS = "STORMY_SEAS"
    EIGHT_BELLS = "EIGHT_BELLS"
    ATLANTIS = "ATLANTIS"
    FOUNTAIN_OF_YOUTH = "FOUNTAIN_OF_YOUTH"
    EL_DORADO = "EL_DORADO"
    CABIN_FEVER = "CABIN_FEVER"
    FACADE = "FACADE"
    CROWS_NEST = "CROWS_NEST"

    @property
    def label(self) -> str:
        """The title as printed on the card."""
        return EVENT_INFO[self].name

    @property
    def info(self) -> EventCardInfo:
        """The card's row of :data:`EVENT_CARD_TABLE`."""
        return EVENT_INFO[self]


@dataclass(frozen=True)
class EventCardInfo:
    """One Event title: copies in the box, starred status, whether the engine knows its text."""

    title: EventTitle
    name: str
    copies: int
    starred: bool
    implemented: bool
    kept: bool  # stays face-up in front of a player after resolution (when not used at once)
    summary: str


# Rules reference 9.1; starred status of the single cards per OQ-3.
EVENT_CARD_TABLE: tuple[EventCardInfo, ...] = (
    EventCardInfo(EventTitle.SPANISH_ARMADA, "Spanish Armada", 1, False, True, False,
                  "The game ends at once; the team with more treasure wins."),
    EventCardInfo(EventTitle.LETTER_OF_MARQUE, "Letter of Marque", 3, False, True, True,
                  "Move any player from Tortuga or a rowboat to the back of either ship, "
                  "or save this card to do so later as a whole action."),
    EventCardInfo(EventTitle.PISTOL, "Pistol", 3, False, True, False,
                  "Shoot another player: they are marooned."),
    EventCardInfo(EventTitle.ALBATROSS, "Albatross", 3, False, True, True,
                  "Keep it. Two Albatrosses aboard one ship maroon everyone on it."),
    EventCardInfo(EventTitle.BLACK_SPOT, "Black Spot", 3, False, True, False,
                  "The revealer is marooned."),
    EventCardInfo(EventTitle.TREASURE_MAP, "Treasure Map", 3, False, True, True,
                  "Give it to any player. Provisional: its holder may later, as an action, "
                  "move 1 treasure from the Spanish Galleon into a hold of their ship."),
    EventCardInfo(EventTitle.STORMY_SEAS, "Stormy Seas", 1, False, True, False,
                  "On a ship: its treasure returns to the Galleon. On Tortuga: Tortuga's "
                  "treasure returns to 1 British and 1 French."),
    EventCardInfo(EventTitle.EIGHT_BELLS, "Eight Bells", 1, False, True, False,
                  "The revealer's line (ship or Tortuga) is redrawn in random order."),
    EventCardInfo(EventTitle.ATLANTIS, "Atlantis", 1, True, True, True,
                  "Once, just before a turn, move from your ship to the back of the other."),
    EventCardInfo(EventTitle.FOUNTAIN_OF_YOUTH, "Fountain of Youth", 1, True, True, True,
                  "Once, refuse to be marooned by a Black Spot, a Pistol, a Captain or a "
                  "Mutiny."),
    EventCardInfo(EventTitle.EL_DORADO, "El Dorado", 1, True, True, True,
                  "Draw 1 extra Vote card now; once, play 2 Vote cards in one vote."),
    EventCardInfo(EventTitle.CABIN_FEVER, "Cabin Fever", 1, True, False, False,
                  "Text not verified; not playable."),
    EventCardInfo(EventTitle.FACADE, "Facade", 1, True, False, False,
                  "Text not verified; not playable."),
    EventCardInfo(EventTitle.CROWS_NEST, "Crow's Nest", 1, True, False, False,
                  "Text not verified; not playable."),
)

EVENT_INFO: dict[EventTitle, EventCardInfo] = {info.title: info for info in EVENT_CARD_TABLE}

#: Event card id -> title, 24 cards, expanded from :data:`EVENT_CARD_TABLE`.
EVENT_CARDS: tuple[EventTitle, ...] = tuple(
    info.title for info in EVENT_CARD_TABLE for _ in range(info.copies)
)

#: The starred titles (OQ-3) and those the engine can play.
STARRED_POOL: tuple[EventTitle, ...] = tuple(i.title for i in EVENT_CARD_TABLE if i.starred)
SELECTABLE_STARRED: tuple[EventTitle, ...] = tuple(
    i.title for i in EVENT_CARD_TABLE if i.starred and i.implemented
)
DEFAULT_STARRED: tuple[EventTitle, EventTitle, EventTitle] = (
    EventTitle.ATLANTIS,
    EventTitle.EL_DORADO,
    EventTitle.FOUNTAIN_OF_YOUTH,
)


@dataclass(frozen=True)
class VoteCard:
    """One Vote card: its symbols in each of the three sections (a special card has two)."""

    id: int
    top: tuple[Symbol, ...]
    middle: tuple[Symbol, ...]
    bottom: tuple[Symbol, ...]

    @property
    def special(self) -> bool:
        """True for the two double-symbol cards."""
        return len(self.top) > 1

    def section(self, kind: VoteKind) -> tuple[Symbol, ...]:
        """The symbols counted by a vote of ``kind``."""
        if kind is VoteKind.ATTACK:
            return self.top
        if kind is VoteKind.BRAWL:
            return self.middle
        return self.bottom

    def describe(self) -> str:
        """E.g. ``"Cannon / British / Skull"`` or ``"2 Torch / 2 French / 2 Skull"``."""
        return self._description

    @cached_property
    def _description(self) -> str:
        # Worked out once per card (the vote texts ask for it on every vote).
        parts = []
        for symbols in (self.top, self.middle, self.bottom):
            name = symbols[0].value.capitalize()
            parts.append(name if len(symbols) == 1 else f"{len(symbols)} {name}")
        return " / ".join(parts)


_C, _T, _W = Symbol.CANNON, Symbol.TORCH, Symbol.WATER
_B, _F = Symbol.BRITISH, Symbol.FRENCH
_S, _H = Symbol.SKULL, Symbol.HELM

# Rules reference 6.6 (provisional split, OQ-10): (top, middle, bottom, copies).
# 30 regular cards: 9 Cannon, 12 Torch, 9 Water; 15 British / 15 French; 15 Skull / 15 Helm.
# Then the two special cards: A (2 Torch, 2 French, 2 Skull) and B (2 Water, 2 British, 2 Helm).
VOTE_DECK_TABLE: tuple[tuple[tuple[Symbol, ...], tuple[Symbol, ...], tuple[Symbol, ...], int],
                       ...] = (
    ((_C,), (_B,), (_S,), 3),
    ((_C,), (_F,), (_S,), 2),
    ((_C,), (_B,), (_H,), 2),
    ((_C,), (_F,), (_H,), 2),
    ((_T,), (_B,), (_S,), 3),
    ((_T,), (_F,), (_S,), 3),
    ((_T,), (_B,), (_H,), 3),
    ((_T,), (_F,), (_H,), 3),
    ((_W,), (_B,), (_S,), 2),
    ((_W,), (_F,), (_S,), 2),
    ((_W,), (_B,), (_H,), 2),
    ((_W,), (_F,), (_H,), 3),
    ((_T, _T), (_F, _F), (_S, _S), 1),
    ((_W, _W), (_B, _B), (_H, _H), 1),
)


def _expand_vote_deck() -> tuple[VoteCard, ...]:
    cards: list[VoteCard] = []
    for top, middle, bottom, copies in VOTE_DECK_TABLE:
        for _ in range(copies):
            cards.append(VoteCard(len(cards), top, middle, bottom))
    return tuple(cards)


#: Vote card id -> card, 32 cards.
VOTE_DECK: tuple[VoteCard, ...] = _expand_vote_deck()

#: Loyalty cards dealt per player count (rules reference 3.1): (British, French, Dutch).
LOYALTY_TABLE: dict[int, tuple[int, int, int]] = {
    2: (1, 1, 0),
    3: (1, 1, 1),
    4: (2, 2, 0),
    5: (2, 2, 1),
    6: (3, 3, 0),
    7: (3, 3, 1),
    8: (4, 4, 0),
    9: (4, 4, 1),
}

MIN_PLAYERS = 2
MAX_PLAYERS = 9
SHIP_CAPACITY = 5
ROW_SIZE = 5
HAND_SIZE = 3
GALLEON_START = 4
TREASURE_TOKENS = 8
