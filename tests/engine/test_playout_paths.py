"""Random playouts and the engine's own shortcuts play the same games as the plain API.

``benchmarks/engine_oracle.py`` compares this engine with another commit's; these tests
pin, inside one engine:

- a random playout is a sequence of public ``apply`` calls (what an observer sees);
- :func:`engine.board.rng` and :func:`engine.board.shuffle` seed and draw without
  ``random.Random``'s Python layers, and must give the draws ``random.Random(text)`` gives;
- :func:`engine.legal.turn_runs` (behind ``turn_actions``) gives the runs of
  ``turn_actions`` by command type.
"""

from __future__ import annotations

import random
from itertools import groupby

import pytest

from engine import Event, GameState, apply, to_json
from engine.board import rng, shuffle
from engine.legal import turn_actions, turn_runs
from engine.setup import new_game
from engine.simulate import player_names, random_game
from engine.state import ActionStage


@pytest.mark.parametrize("players", [2, 3, 5, 9])
def test_an_observed_playout_sees_what_apply_gives(players: int) -> None:
    """Every step of a random playout is the public ``apply``: the observer sees the
    states and events ``apply`` gives for the same command, and watching changes nothing."""
    seen: list[tuple[GameState, int, object, GameState, list[Event]]] = []

    def observe(before: GameState, seat: int, command: object, after: GameState,
                events: list[Event]) -> None:
        seen.append((before, seat, command, after, events))

    for seed in range(6):
        seen.clear()
        plain_end, plain_log = random_game(players, seed)
        told_end, told_log = random_game(players, seed, observe=observe)
        assert plain_log == told_log
        assert to_json(plain_end) == to_json(told_end)
        for before, seat, command, after, events in seen:
            again, again_events = apply(before, seat, command)  # type: ignore[arg-type]
            assert to_json(again) == to_json(after)
            assert [e.to_dict() for e in again_events] == [e.to_dict() for e in events]
        assert sum(len(events) for *_, events in seen) > len(seen)


@pytest.mark.parametrize("seed", [0, 1, 7, 123456789, 2**40 + 3])
def test_rng_and_shuffle_draw_as_random_random(seed: int) -> None:
    state = new_game(player_names(3), seed)
    for length in range(0, 40):
        counter = state.rng_counter
        mine = list(range(length))
        shuffle(state, mine)
        theirs = list(range(length))
        random.Random(f"{seed}:{counter + 1}").shuffle(theirs)
        assert mine == theirs
        assert state.rng_counter == counter + 1
        drawn = rng(state).randrange(length + 1)
        assert drawn == random.Random(f"{seed}:{counter + 2}").randrange(length + 1)


@pytest.mark.parametrize("players", [2, 3, 5, 9])
def test_turn_runs_are_the_runs_of_turn_actions(players: int) -> None:
    """``turn_runs`` must give exactly ``random_command``'s groups of ``turn_actions``,
    for every seat."""
    states: list[GameState] = []

    def observe(before: GameState, seat: int, command: object, after: GameState,
                events: list[Event]) -> None:
        if isinstance(before.stage, ActionStage):
            states.append(before)

    for seed in range(6):
        random_game(players, seed, observe=observe)
    assert len(states) > 50
    kinds_seen: set[type] = set()
    for state in states:
        for seat in range(players):
            (flat, row_runs), out_runs = turn_runs(state, seat)
            actions = turn_actions(state, seat)
            assert [c for run in row_runs for c in run] == list(flat)
            runs = [list(run) for run in (*row_runs, *out_runs)]
            assert all(runs)
            assert runs == [list(group) for _, group in groupby(actions, key=type)]
            kinds_seen.update(map(type, actions))
    assert len(kinds_seen) >= 10  # rowboats, ships, Tortuga, the row all took part
