"""The engine's fast paths play the same games as the plain ones (issue 26).

``benchmarks/engine_oracle.py`` compares this engine with another commit's; these tests
pin the two shortcuts that make a random playout cheaper inside one engine:

- a playout without an observer builds no events (:data:`engine.board.UNREAD`), and must
  reach the same states as one whose events are all built and read;
- :func:`engine.board.rng` and :func:`engine.board.shuffle` seed and draw without
  ``random.Random``'s Python layers, and must give the draws ``random.Random(text)`` gives.
"""

from __future__ import annotations

import random

import pytest

from engine import Event, GameState, apply, to_json
from engine.board import UNREAD, rng, shuffle
from engine.setup import new_game
from engine.simulate import player_names, random_game


@pytest.mark.parametrize("players", [2, 3, 5, 9])
def test_a_playout_without_events_is_the_same_game(players: int) -> None:
    seen: list[tuple[GameState, int, object, GameState, list[Event]]] = []

    def observe(before: GameState, seat: int, command: object, after: GameState,
                events: list[Event]) -> None:
        seen.append((before, seat, command, after, events))

    for seed in range(12):
        seen.clear()
        plain_end, plain_log = random_game(players, seed)
        told_end, told_log = random_game(players, seed, observe=observe)
        assert plain_log == told_log
        assert to_json(plain_end) == to_json(told_end)
        # The observed game's events are the ones apply gives for the same commands.
        for before, seat, command, after, events in seen:
            again, again_events = apply(before, seat, command)  # type: ignore[arg-type]
            assert to_json(again) == to_json(after)
            assert [e.to_dict() for e in again_events] == [e.to_dict() for e in events]
        assert sum(len(events) for *_, events in seen) > len(seen)  # events were built
    assert UNREAD == []  # nothing was ever added to the shared list


def test_the_unread_list_gets_no_events() -> None:
    state = new_game(player_names(4), 11)
    start = to_json(state)
    _, log = random_game(4, 11)
    assert log and UNREAD == []
    assert to_json(state) == start


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
