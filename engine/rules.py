"""Legal moves and applying commands (stub: implemented in the next commit)."""

from __future__ import annotations

from engine.commands import Command
from engine.events import Decision, Event
from engine.state import GameOptions, GameState


def new_game(names: list[str] | tuple[str, ...], seed: int,
             options: GameOptions | None = None) -> GameState:
    """Set up a new game."""
    raise NotImplementedError


def pending(state: GameState) -> list[Decision]:
    """Who must answer what, with legal choices."""
    raise NotImplementedError


def legal_commands(state: GameState, seat: int) -> list[Command]:
    """What ``seat`` may send now."""
    raise NotImplementedError


def apply(state: GameState, seat: int, command: Command | str) -> tuple[GameState, list[Event]]:
    """Apply one command; never mutates ``state``."""
    raise NotImplementedError


def to_json(state: GameState) -> str:
    raise NotImplementedError


def from_json(text: str) -> GameState:
    raise NotImplementedError
