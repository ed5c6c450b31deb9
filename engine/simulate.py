"""Random playouts (OpenSpiel's ``random_sim_test`` style): whole games of random legal
commands, from the driver's own seeded RNG. Used by the tests and the benchmark."""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import chain, groupby

from engine.actions import _ACTIONS, _HANDLERS, KEEPS_STAGE
from engine.board import UNREAD
from engine.cards import EVENT_CARDS, EventTitle
from engine.commands import Command, UseAtlantis
from engine.events import Decision, Event
from engine.legal import _compute_legal, turn_runs
from engine.rules import _applied, _finish_action, apply, may_order_atlantis
from engine.setup import new_game
from engine.state import ActionStage, GameOptions, GameState, OverStage, VoteStage

Log = list[tuple[int, Command]]
_ATLANTIS = EVENT_CARDS.index(EventTitle.ATLANTIS)
Observer = Callable[[GameState, int, Command, GameState, list[Event]], None]


def player_names(n_players: int) -> list[str]:
    """Neutral seat names for simulated games (OQ-13: no invented characters)."""
    return [f"Player {i + 1}" for i in range(n_players)]


def random_command(rng: random.Random, decision: Decision) -> Command:
    """A random legal answer: first a random kind of command, then one of that kind, so
    that rare actions (votes, moves) are played as often as the many FORCE variants."""
    groups = [list(g) for _, g in groupby(decision.legal, key=type)]
    return rng.choice(rng.choice(groups))


Run = tuple[Command, ...]

#: The runs of one command type in a legal tuple (as ``random_command`` groups them), by
#: the tuple's id: legal tuples are mostly memoised and shared (each entry keeps its
#: tuple, and so its id).
_RUNS: dict[int, tuple[tuple[Command, ...], tuple[Run, ...]]] = {}


def _runs(legal: tuple[Command, ...]) -> tuple[Run, ...]:
    if len(_RUNS) >= 4096:
        _RUNS.clear()
    runs = tuple(tuple(group) for _, group in groupby(legal, type))
    _RUNS[id(legal)] = (legal, runs)
    return runs


def _pick(bits: Callable[[int], int], legal: tuple[Command, ...]) -> Command:
    """``random_command``'s choice among ``legal``: the draws of its two ``rng.choice``
    calls on sequences of the same lengths, without building the groups. ``bits`` is the
    generator's ``getrandbits``: ``choice(seq)`` is ``seq[_randbelow(len(seq))]``, and
    ``_randbelow(n)`` (CPython 3.11+) draws ``getrandbits(n.bit_length())`` until the
    number is below ``n``; it is written out here (a Python call fewer per draw)."""
    entry = _RUNS.get(id(legal))
    runs = entry[1] if entry is not None and entry[0] is legal else _runs(legal)
    n = len(runs)
    if not n:
        raise IndexError("Cannot choose from an empty sequence")  # as rng.choice
    k = n.bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    run = runs[r]
    n = len(run)
    k = n.bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    return run[r]


def _pick_action(bits: Callable[[int], int], state: GameState, seat: int) -> Command:
    """:func:`_pick` among the turn actions of ``seat``, from their runs (see
    :func:`engine.legal.turn_runs`) without joining them. ``bits`` as for :func:`_pick`."""
    (_, row_runs), out_runs = turn_runs(state, seat)
    n_row = len(row_runs)
    n = n_row + len(out_runs)
    if not n:
        raise IndexError("Cannot choose from an empty sequence")  # as rng.choice
    k = n.bit_length()
    i = bits(k)
    while i >= n:
        i = bits(k)
    run = row_runs[i] if i < n_row else out_runs[i - n_row]
    n = len(run)
    k = n.bit_length()
    i = bits(k)
    while i >= n:
        i = bits(k)
    return run[i]


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

    The game uses ``seed``; the driver's choices come from ``random.Random(seed)``.
    ``observe(before, seat, command, after, events)`` is called after every command.
    Raises ``RuntimeError`` if the game has not ended after ``max_commands`` commands.

    Each step draws as it always has: ``rng.random()`` against ``atlantis_rate`` when an
    Atlantis owner may give the order, else ``rng.choice`` of the pending decisions, then
    :func:`random_command`'s two choices. It asks the engine only for what it needs (the
    awaited seats, the chosen seat's legal answers) instead of whole :func:`pending`
    decisions, and applies the chosen answer as :func:`apply` would (it is one of the
    memoised legal answers). Without an observer nobody sees the states in between: the
    game is played on one state changed in place (:func:`_play_alone`).
    """
    rng = random.Random(seed)
    state = new_game(player_names(n_players), seed, options)
    if observe is None:
        return _play_alone(rng, state, n_players, seed, max_commands, atlantis_rate)
    # random.Random.choice(seq) is ``seq[self._randbelow(len(seq))]`` (CPython 3.11+):
    # the driver draws the same numbers without the extra call.
    below: Callable[[int], int] = rng._randbelow  # type: ignore[attr-defined]
    bits = rng.getrandbits  # (for _pick: _randbelow written out)
    log: Log = []
    append = log.append
    # Who may give an Atlantis order depends only on ``kept`` and ``atlantis_ordered``
    # while the game runs; a returned state is never changed, so the answer is kept
    # while both lists are the same objects.
    kept: list[list[int]] | None = None
    ordered: list[bool] | None = None
    owners: list[int] = []
    while True:
        stage = state.stage
        if type(stage) is OverStage:
            break
        assert stage is not None
        if len(log) >= max_commands:
            raise RuntimeError(f"game {n_players}p/{seed} did not end in {max_commands} commands")
        if state.kept is not kept or state.atlantis_ordered is not ordered:
            kept, ordered = state.kept, state.atlantis_ordered
            owners = [
                s for s, cards in enumerate(kept)
                if _ATLANTIS in cards and may_order_atlantis(state, s)
            ] if _ATLANTIS in chain.from_iterable(kept) else []
        if owners and rng.random() < atlantis_rate:
            seat: int = owners[0]
            command: Command = UseAtlantis()
            after, events = apply(state, seat, command)
        else:
            if type(stage) is ActionStage:  # awaiting() is (stage.seat,): one seat to draw
                while bits(1):  # choice((seat,)): _randbelow(1) draws 1 bit until it is 0
                    pass
                seat = stage.seat
                command = _pick_action(bits, state, seat)
            else:
                awaiting = stage.awaiting()
                if not awaiting:
                    raise IndexError("Cannot choose from an empty sequence")  # as rng.choice
                seat = awaiting[below(len(awaiting))]
                command = _pick(bits, _compute_legal(state, stage, seat))
            after, events = _applied(state, seat, command, stage)
        observe(state, seat, command, after, events)
        append((seat, command))
        state = after
    return state, log


def _play_alone(rng: random.Random, state: GameState, n_players: int, seed: int,
                max_commands: int, atlantis_rate: float) -> tuple[GameState, Log]:
    """:func:`random_game` without an observer: the same draws and commands, on one state
    changed in place (nobody sees the states in between: no fork per command, no state to
    free) and without events (:data:`engine.board.UNREAD`: nobody reads them). Each command is
    carried out as :func:`engine.rules._applied` does it, without the fork."""
    bits = rng.getrandbits
    log: Log = []
    append = log.append
    unread = UNREAD
    actions, handlers, keeps_stage = _ACTIONS, _HANDLERS, KEEPS_STAGE
    kept: list[list[int]] | None = None
    ordered: list[bool] | None = None
    owners: list[int] = []
    while True:
        stage = state.stage
        kind = type(stage)
        if kind is OverStage:
            break
        assert stage is not None
        if len(log) >= max_commands:
            raise RuntimeError(f"game {n_players}p/{seed} did not end in {max_commands} commands")
        # Who may give an Atlantis order depends only on what ``kept`` and
        # ``atlantis_ordered`` hold; they change in place here, so copies of both are kept
        # (comparing lists of the same seats' lists is mostly identity checks).
        if state.kept != kept or state.atlantis_ordered != ordered:
            kept, ordered = [*state.kept], [*state.atlantis_ordered]
            # may_order_atlantis(state, s) for a seat holding it, while the game runs
            owners = [s for s, cards in enumerate(kept) if _ATLANTIS in cards
                      and not ordered[s]] if _ATLANTIS in chain.from_iterable(kept) else []
        if owners and rng.random() < atlantis_rate:
            seat = owners[0]
            command: Command = UseAtlantis()
            # apply returns a fork sharing the containers of ``state``, which nobody holds
            # after this: the fork is changed in place from now on.
            state = apply(state, seat, command)[0]
            append((seat, command))
            continue
        if kind is ActionStage:  # awaiting() is (stage.seat,): one seat to draw
            while bits(1):  # choice((seat,)): _randbelow(1) draws 1 bit until it is 0
                pass
            seat = stage.seat  # type: ignore[union-attr]  # (an ActionStage)
            command = _pick_action(bits, state, seat)
            state.stage = None
            actions[type(command)](state, unread, seat, command)
        else:
            if kind is VoteStage:
                awaiting = stage.awaiting()
                n = len(awaiting)
                if not n:
                    raise IndexError("Cannot choose from an empty sequence")  # as rng.choice
                k = n.bit_length()
                i = bits(k)
                while i >= n:
                    i = bits(k)
                seat = awaiting[i]
            else:  # every other stage awaits its one ``seat``
                while bits(1):
                    pass
                seat = stage.seat  # type: ignore[union-attr]
            command = _pick(bits, _compute_legal(state, stage, seat))
            if kind is not keeps_stage:
                state.stage = None
            handlers[kind](state, unread, seat, command, stage)
        if state.stage is None:
            _finish_action(state, unread)
        state.version += 1
        append((seat, command))
    return state, log


__all__ = ["player_names", "random_command", "random_game"]
