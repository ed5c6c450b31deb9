"""Factories and helpers for engine tests: exact positions and short command scripts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import EVENT_CARDS, VOTE_DECK, Event, GameState, apply, pending
from engine.cards import TREASURE_TOKENS, Symbol
from engine.state import VoteStage
from engine.testing import arrange, started, vote_cards


def game(n: int = 5, seed: int = 0, **position: Any) -> GameState:
    """A started ``n``-player game (opening tokens placed British), then arranged."""
    return arrange(started(n, seed), **position)


def play(state: GameState, *moves: tuple[int, str]) -> tuple[GameState, list[Event]]:
    """Apply ``(seat, text)`` moves in order; return the final state and all events."""
    events: list[Event] = []
    for seat, text in moves:
        state, ev = apply(state, seat, text)
        events += ev
    return state, events


def of_kind(events: Iterable[Event], kind: str) -> list[Event]:
    """The events of one kind."""
    return [e for e in events if e.kind == kind]


def result(events: Iterable[Event]) -> str:
    """The outcome of the (single) vote among ``events``."""
    (event,) = of_kind(events, "vote.result")
    return str(event.data["outcome"])


def legal_texts(state: GameState, seat: int) -> set[str]:
    """The canonical text of every answer to ``seat``'s open decision."""
    return {str(c) for d in pending(state) if d.seat == seat for c in d.legal}


class VoteIds:
    """Hands out distinct Vote card ids by symbol: ``ids.get(top=Symbol.CANNON)``."""

    def __init__(self) -> None:
        self.used: set[int] = set()

    def get(self, top: Symbol | None = None, middle: Symbol | None = None,
            bottom: Symbol | None = None, *, special: bool = False) -> int:
        for card in vote_cards(top, middle, bottom, special=special):
            if card not in self.used:
                self.used.add(card)
                return card
        raise AssertionError("no such Vote card left")


def check_invariants(s: GameState) -> None:
    """Everything section 16 of the rules reference says always holds."""
    assert sum(s.treasure.values()) == TREASURE_TOKENS
    assert s.treasure["TORTUGA_BRITISH"] + s.treasure["TORTUGA_FRENCH"] == 2
    assert min(s.treasure.values()) >= 0
    cards = [c for h in s.hands for c in h] + s.vote_deck
    if isinstance(s.stage, VoteStage):
        cards += [c for _, played in s.stage.played for c in played]
    assert sorted(cards) == list(range(len(VOTE_DECK)))
    events = [*s.event_deck, *(c for c in s.row if c is not None), *s.discard, *s.box,
              *(c for k in s.kept for c in k)]
    if s.stage is not None and hasattr(s.stage, "card"):
        events.append(s.stage.card)
    assert sorted(events) == list(range(len(EVENT_CARDS)))
    pawns = [*s.lines["FD"], *s.lines["JR"], *s.lines["TORTUGA"],
             *(p for p in s.rowboats.values() if p is not None)]
    assert sorted(pawns) == list(range(s.n))
    assert len(s.lines["FD"]) <= 5 and len(s.lines["JR"]) <= 5
    assert len(s.row) == 5
