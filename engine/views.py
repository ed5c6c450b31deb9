"""Observers: what everyone may know (:func:`public_view`), what one seat may know
(:func:`view`). Secrets (loyalties, hands, peeks, vote answers) are stripped here, before
anything leaves the engine; the score comes from :mod:`engine.scoring`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import (
    EVENT_CARDS,
    VOTE_DECK,
    EventTitle,
    Hold,
    Location,
    Loyalty,
    Rank,
    Ship,
    Symbol,
)
from engine.events import Decision
from engine.rules import pending
from engine.scoring import Score, score
from engine.scoring import team_totals as team_totals  # its old home: callers import it here
from engine.state import ActionStage, GameState, OverStage, PlaceStage, VoteStage, hold_key


@dataclass(frozen=True)
class PlayerInfo:
    """Public facts about one seat."""

    seat: int
    name: str
    location: Location
    position: int | None  # 1-based place in its line; None in a rowboat
    ranks: tuple[Rank, ...]
    kept: tuple[EventTitle, ...]
    hand_size: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "location": self.location.value,
            "position": self.position,
            "ranks": [r.value for r in self.ranks],
            "kept": [t.value for t in self.kept],
            "hand_size": self.hand_size,
        }


@dataclass(frozen=True)
class ShipInfo:
    """One ship: its line front to back and its two holds."""

    ship: Ship
    line: tuple[int, ...]
    british: int
    french: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "ship": self.ship.value,
            "line": list(self.line),
            "british": self.british,
            "french": self.french,
        }


@dataclass(frozen=True)
class VoteInfo:
    """A vote in progress: who takes part and who has answered (never what)."""

    kind: str
    caller: int
    participants: tuple[int, ...]
    answered: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "caller": self.caller,
            "participants": list(self.participants),
            "answered": list(self.answered),
        }


@dataclass(frozen=True)
class PublicView:
    """Everything every player may know: the board picture."""

    version: int
    players: tuple[PlayerInfo, ...]
    ships: tuple[ShipInfo, ...]
    tortuga: tuple[int, ...]
    tortuga_british: int
    tortuga_french: int
    rowboats: Mapping[str, int | None]
    galleon: int
    row: tuple[int, ...]  # positions (1..5) holding a face-down card
    deck_size: int
    discard: tuple[EventTitle, ...]
    starred: tuple[EventTitle, ...]
    vote_deck_size: int
    turn_seat: int
    turn_number: int
    action: int
    actions_per_turn: int
    vote: VoteInfo | None
    awaiting: tuple[tuple[int, str], ...]  # (seat, decision kind) pairs
    exhausted: bool
    sudden_death: bool
    score: Score
    status: str  # "setup", "playing" or "over"
    winner: Loyalty | None
    loyalties: tuple[Loyalty, ...] | None  # only once the game is over

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form for templates."""
        return {
            "version": self.version,
            "players": [p.to_dict() for p in self.players],
            "ships": [s.to_dict() for s in self.ships],
            "tortuga": list(self.tortuga),
            "tortuga_british": self.tortuga_british,
            "tortuga_french": self.tortuga_french,
            "rowboats": dict(self.rowboats),
            "galleon": self.galleon,
            "row": list(self.row),
            "deck_size": self.deck_size,
            "discard": [t.value for t in self.discard],
            "starred": [t.value for t in self.starred],
            "vote_deck_size": self.vote_deck_size,
            "turn_seat": self.turn_seat,
            "turn_number": self.turn_number,
            "action": self.action,
            "actions_per_turn": self.actions_per_turn,
            "vote": None if self.vote is None else self.vote.to_dict(),
            "awaiting": [[seat, kind] for seat, kind in self.awaiting],
            "exhausted": self.exhausted,
            "sudden_death": self.sudden_death,
            "score": self.score.to_dict(),
            "status": self.status,
            "winner": None if self.winner is None else self.winner.value,
            "loyalties": None if self.loyalties is None else [x.value for x in self.loyalties],
        }


@dataclass(frozen=True)
class HandCard:
    """A Vote card in a hand, numbered as ``VOTE n`` expects."""

    number: int
    id: int
    top: tuple[Symbol, ...]
    middle: tuple[Symbol, ...]
    bottom: tuple[Symbol, ...]
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "id": self.id,
            "top": [s.value for s in self.top],
            "middle": [s.value for s in self.middle],
            "bottom": [s.value for s in self.bottom],
            "text": self.text,
        }


@dataclass(frozen=True)
class CastVote:
    """The seat's own answer in the vote still open: it may change it (``REVOTE n``)."""

    vote: str
    hand: tuple[HandCard, ...]  # the hand it voted from, numbered as its prompt was
    cards: tuple[int, ...]  # the numbers it played

    def to_dict(self) -> dict[str, Any]:
        return {"vote": self.vote, "hand": [c.to_dict() for c in self.hand],
                "cards": list(self.cards)}


@dataclass(frozen=True)
class SeatView:
    """What one seat may know: the public view plus its own secrets and decisions."""

    public: PublicView
    seat: int
    name: str
    loyalty: Loyalty
    hand: tuple[HandCard, ...]
    peeks: Mapping[int, EventTitle]
    seen: tuple[EventTitle, ...]
    kept: tuple[EventTitle, ...]
    atlantis_ordered: bool
    pending: tuple[Decision, ...]
    cast_vote: CastVote | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form for templates."""
        return {
            "public": self.public.to_dict(),
            "seat": self.seat,
            "name": self.name,
            "loyalty": self.loyalty.value,
            "hand": [c.to_dict() for c in self.hand],
            "peeks": {str(p): t.value for p, t in sorted(self.peeks.items())},
            "seen": [t.value for t in self.seen],
            "kept": [t.value for t in self.kept],
            "atlantis_ordered": self.atlantis_ordered,
            "pending": [d.to_dict() for d in self.pending],
            "cast_vote": None if self.cast_vote is None else self.cast_vote.to_dict(),
        }


def ranks_of(state: GameState, seat: int, loc: Location | None = None) -> tuple[Rank, ...]:
    """The ranks ``seat`` holds now (a pawn may hold two)."""
    loc = loc or state.location(seat)
    if loc is Location.TORTUGA:
        return (Rank.GOVERNOR,) if state.lines["TORTUGA"][0] == seat else ()
    if not loc.is_ship:
        return ()
    line = state.lines[loc.value]
    i = line.index(seat)
    ranks: list[Rank] = []
    if i == 0:
        ranks.append(Rank.CAPTAIN)
    if i == 1:
        ranks.append(Rank.FIRST_MATE)
    if i == len(line) - 1:
        ranks.append(Rank.CABIN_BOY)
    return tuple(ranks)


def _player(state: GameState, seat: int, loc: Location) -> PlayerInfo:
    position = None if loc.is_rowboat else state.lines[loc.value].index(seat) + 1
    return PlayerInfo(
        seat=seat,
        name=state.names[seat],
        location=loc,
        position=position,
        ranks=ranks_of(state, seat, loc),
        kept=tuple(EVENT_CARDS[c] for c in state.kept[seat]),
        hand_size=len(state.hands[seat]),
    )


def public_view(state: GameState) -> PublicView:
    """What everyone may know (board picture, admin)."""
    stage = state.stage
    vote = None
    if isinstance(stage, VoteStage):
        vote = VoteInfo(stage.vote.value, stage.caller, stage.participants, stage.answered())
    action, of = 0, 2 if state.n == 2 else 1
    if isinstance(stage, ActionStage):
        action, of = stage.action, stage.of
    over = isinstance(stage, OverStage)
    status = "over" if over else ("setup" if isinstance(stage, PlaceStage) else "playing")
    return PublicView(
        version=state.version,
        players=tuple(_player(state, s, loc) for s, loc in enumerate(state.locations())),
        ships=tuple(
            ShipInfo(
                ship,
                tuple(state.lines[ship.value]),
                state.treasure[hold_key(ship, Hold.BRITISH)],
                state.treasure[hold_key(ship, Hold.FRENCH)],
            )
            for ship in Ship
        ),
        tortuga=tuple(state.lines["TORTUGA"]),
        tortuga_british=state.treasure["TORTUGA_BRITISH"],
        tortuga_french=state.treasure["TORTUGA_FRENCH"],
        rowboats=dict(state.rowboats),
        galleon=state.treasure["GALLEON"],
        row=tuple(i + 1 for i, c in enumerate(state.row) if c is not None),
        deck_size=len(state.event_deck),
        discard=tuple(EVENT_CARDS[c] for c in state.discard),
        starred=tuple(state.options.starred),
        vote_deck_size=len(state.vote_deck),
        turn_seat=state.turn_seat,
        turn_number=state.turn_number,
        action=action,
        actions_per_turn=of,
        vote=vote,
        awaiting=tuple((d.seat, d.kind.value) for d in pending(state)),
        exhausted=state.exhausted,
        sudden_death=state.sudden_death,
        score=score(state),
        status=status,
        winner=state.winner,
        loyalties=tuple(state.loyalties) if over else None,
    )


def view(state: GameState, seat: int) -> SeatView:
    """Exactly what ``seat`` may know: the public view, its loyalty, hand, peeks and
    decisions."""
    if not 0 <= seat < state.n:
        raise ValueError(f"no seat {seat} in a {state.n}-player game")
    return SeatView(
        public=public_view(state),
        seat=seat,
        name=state.names[seat],
        loyalty=state.loyalties[seat],
        hand=_hand(state.hands[seat]),
        peeks={p: EVENT_CARDS[c] for p, c in sorted(state.peeks[seat].items())},
        seen=tuple(EVENT_CARDS[c] for c in state.seen[seat]),
        kept=tuple(EVENT_CARDS[c] for c in state.kept[seat]),
        atlantis_ordered=state.atlantis_ordered[seat],
        pending=tuple(d for d in pending(state) if d.seat == seat),
        cast_vote=_cast_vote(state, seat),
    )


def _hand(card_ids: Sequence[int]) -> tuple[HandCard, ...]:
    hand = []
    for number, card_id in enumerate(card_ids, start=1):
        card = VOTE_DECK[card_id]
        hand.append(HandCard(number, card_id, card.top, card.middle, card.bottom,
                             card.describe()))
    return tuple(hand)


def _cast_vote(state: GameState, seat: int) -> CastVote | None:
    """``seat``'s answer in the open vote, if it gave one (its own secret)."""
    stage = state.stage
    if not isinstance(stage, VoteStage):
        return None
    before = stage.hand_before(seat)
    if before is None:
        return None
    played = dict(stage.played)[seat]
    return CastVote(stage.vote.value, _hand(before),
                    tuple(sorted(before.index(card) + 1 for card in played)))
