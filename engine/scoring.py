"""The score: each team's treasure (ship holds plus Tortuga's areas) and the result.
The bottom of the rules: board, eventcards and views count treasure with it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import Loyalty
from engine.state import GameState


@dataclass(frozen=True)
class Score:
    """Team totals (ship holds + Tortuga areas; the Galleon counts for nobody) and result."""

    british: int
    french: int
    galleon: int
    over: bool
    winner: Loyalty | None
    sudden_death: bool
    reason: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "british": self.british,
            "french": self.french,
            "galleon": self.galleon,
            "over": self.over,
            "winner": None if self.winner is None else self.winner.value,
            "sudden_death": self.sudden_death,
            "reason": self.reason,
        }


def team_totals(state: GameState) -> tuple[int, int]:
    """(British, French) treasure: both ships' holds plus Tortuga's areas."""
    t = state.treasure
    british = t["FD_BRITISH"] + t["JR_BRITISH"] + t["TORTUGA_BRITISH"]
    french = t["FD_FRENCH"] + t["JR_FRENCH"] + t["TORTUGA_FRENCH"]
    return british, french


def score(state: GameState) -> Score:
    """Team totals and, once the game is over, the winner."""
    british, french = team_totals(state)
    return Score(
        british=british,
        french=french,
        galleon=state.treasure["GALLEON"],
        over=state.over,
        winner=state.winner,
        sudden_death=state.sudden_death,
        reason=state.end_reason,
    )
