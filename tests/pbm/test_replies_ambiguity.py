"""A reply the parser calls ambiguous never changes the game; names are never guessed."""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.errors import EngineError
from engine.simulate import random_command
from pbm.replies import read_sms_reply
from tests.fixtures.seatviews import seat_view

#: Names that share prefixes and spellings on purpose.
NAMES = ("Cleo", "Clementine", "Bart", "Bartholomew", "Dmitri", "Dimitra")


@cache
def game_states() -> list[tuple[engine.GameState, int]]:
    """(state, seat with a pending decision) along a few random games of these players."""
    import random

    found: list[tuple[engine.GameState, int]] = []
    for seed in (3, 11, 29):
        rng = random.Random(seed)
        state = engine.new_game(list(NAMES), seed)
        for _ in range(120):
            if state.over:
                break
            decisions = engine.pending(state)
            found.extend((state, d.seat) for d in decisions)
            decision = rng.choice(decisions)
            state, _ = engine.apply(state, decision.seat, random_command(rng, decision))
    return found


FRAGMENTS = st.sampled_from([
    "maroon", "shoot", "give", "force", "marque", "vote", "reveal", "view", "row", "go",
    "move", "board", "land", "choose", "take", "place", "attack", "mutiny", "brawl",
    "cl", "cle", "clem", "bart", "bar", "b", "dim", "dmi", "d", "cleo", "clementine",
    "1", "2", "3", "4", "5", "6", "one", "two", "second", "the", "or", "and", ",", ".",
    "?", "not", "torch", "cannon", "skull", "fd", "jr", "british", "french", "please",
    "maybe", "either", "to", "card", "\n",
])


def apply_all(state: engine.GameState, seat: int, commands: list[Any]) -> engine.GameState:
    for command in commands:
        try:
            state, _ = engine.apply(state, seat, command)
        except EngineError:
            break
    return state


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(min_value=0), words=st.lists(FRAGMENTS, min_size=1, max_size=7))
def test_no_reply_called_ambiguous_ever_changes_the_game(index: int, words: list[str]) -> None:
    states = game_states()
    state, seat = states[index % len(states)]
    view = engine.view(state, seat).to_dict()
    body = " ".join(words)

    result = read_sms_reply(body, view)

    if any(n.ambiguous for n in result.not_understood):
        assert result.commands == []
        assert engine.to_json(apply_all(state, seat, result.commands)) == engine.to_json(state)
        asked = next(n for n in result.not_understood if n.ambiguous)
        assert len(asked.candidates) >= 2
        assert all(c in (asked.suggestion or "") for c in asked.candidates)


@settings(max_examples=200, deadline=None)
@given(verb=st.sampled_from(["maroon", "shoot", "give"]),
       prefix=st.sampled_from(["c", "cl", "cle", "b", "ba", "bar", "d"]),
       target_seat=st.integers(min_value=0, max_value=5))
def test_a_name_prefix_that_fits_two_players_is_never_resolved_to_one(
        verb: str, prefix: str, target_seat: int) -> None:
    keyword = verb.upper()
    legal = [f"{keyword} {s + 1}" for s in range(len(NAMES)) if s != target_seat]
    view = seat_view(target_seat, names=NAMES, pending=[("ACTION", legal)])

    result = read_sms_reply(f"{verb} {prefix}", view)

    fits = [n for n in NAMES if n.lower().startswith(prefix)]
    assert len(fits) >= 2 and prefix not in {n.lower() for n in NAMES}  # not a whole name
    assert result.commands == []
    [asked] = result.not_understood
    assert asked.ambiguous and set(asked.candidates) <= {f"{keyword} {n}" for n in NAMES}
    others = {n for n in fits if NAMES.index(n) != target_seat}
    assert all(any(n in c for c in asked.candidates) for n in others)
