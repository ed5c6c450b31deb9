"""Random playouts (OpenSpiel's ``random_sim_test`` style): whole games of random legal
commands, from the driver's own seeded RNG, through the engine's public API (``pending``,
``apply``) as the service plays. Used by the tests and the benchmarks."""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import groupby

from engine.commands import Command, UseAtlantis
from engine.events import Decision, Event
from engine.rules import apply, may_order_atlantis, pending
from engine.setup import new_game
from engine.state import GameOptions, GameState

Log = list[tuple[int, Command]]
Observer = Callable[[GameState, int, Command, GameState, list[Event]], None]


def player_names(n_players: int) -> list[str]:
    """Neutral seat names for simulated games (OQ-13: no invented characters)."""
    return [f"Player {i + 1}" for i in range(n_players)]


def random_command(rng: random.Random, decision: Decision) -> Command:
    """A random legal answer: first a random kind of command, then one of that kind, so
    that rare actions (votes, moves) are played as often as the many FORCE variants."""
    groups = [list(g) for _, g in groupby(decision.legal, key=type)]
    return rng.choice(rng.choice(groups))


def random_game(
    n_players: int,
    seed: int,
    options: GameOptions | None = None,
    *,
    max_commands: int = 20_000,
    atlantis_rate: float = 0.05,
    observe: Observer | None = None,
) -> tuple[GameState, Log]:
    """Play one whole game of random legal commands; return the final state and the log.

    The game uses ``seed``; the driver's choices come from ``random.Random(seed)``: when an
    Atlantis owner may give the order, ``rng.random()`` against ``atlantis_rate`` decides
    whether the first such owner gives it; otherwise ``rng.choice`` picks one of the
    :func:`~engine.rules.pending` decisions and :func:`random_command` one of its answers.
    Every command goes through :func:`~engine.rules.apply`, as the service's do.
    ``observe(before, seat, command, after, events)`` is called after every command.
    Raises ``RuntimeError`` if the game has not ended after ``max_commands`` commands.
    """
    rng = random.Random(seed)
    state = new_game(player_names(n_players), seed, options)
    log: Log = []
    while not state.over:
        if len(log) >= max_commands:
            raise RuntimeError(f"game {n_players}p/{seed} did not end in {max_commands} commands")
        owners = [s for s in range(state.n) if may_order_atlantis(state, s)]
        if owners and rng.random() < atlantis_rate:
            seat: int = owners[0]
            command: Command = UseAtlantis()
        else:
            decision = rng.choice(pending(state))
            seat = decision.seat
            command = random_command(rng, decision)
        after, events = apply(state, seat, command)
        if observe is not None:
            observe(state, seat, command, after, events)
        log.append((seat, command))
        state = after
    return state, log


__all__ = ["player_names", "random_command", "random_game"]
