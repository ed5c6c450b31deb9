"""Properties over many random games of 2 to 9 players (OpenSpiel-style random playouts).

Set ``TORTUGA_LONG_PLAYOUTS=10000`` to also run that many extra games (slow); the
benchmark script (``benchmarks/bench_engine.py --full``) does the same with timings.
"""

from __future__ import annotations

import itertools
import json
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Command,
    Event,
    EventTitle,
    GameOptions,
    GameState,
    default_command,
    from_json,
    legal_commands,
    parse_command,
    pending,
    replay,
    to_json,
    view,
)
from engine.cards import DEFAULT_STARRED, LOYALTY_TABLE, Loyalty
from engine.setup import cards_in_play
from engine.simulate import player_names, random_game
from tests.engine.helpers import check_invariants

ROUND_TRIPPED: set[Command] = set()
SECRET_KEYS = {"card", "cards"}


def check_step(before: GameState, seat: int, command: Command, after: GameState,
               events: list[Event]) -> None:
    """Everything that must hold after every single command."""
    check_invariants(after)
    assert after.version == before.version + 1
    for decision in pending(after):
        for legal in decision.legal:
            if legal not in ROUND_TRIPPED:
                assert parse_command(str(legal)) == legal
                ROUND_TRIPPED.add(legal)
    for event in events:
        if event.audience is None:
            assert not SECRET_KEYS & set(event.data), event
        else:
            assert event.audience and all(0 <= s < after.n for s in event.audience)
        json.dumps(event.to_dict())
    check_view(after, after.version % after.n)


def check_view(state: GameState, seat: int) -> None:
    """``view(seat)`` holds that seat's secrets and nobody else's."""
    seen = view(state, seat)
    data = seen.to_dict()
    json.dumps(data)
    assert seen.loyalty is state.loyalties[seat]
    assert [c.id for c in seen.hand] == state.hands[seat]
    assert set(seen.peeks) == set(state.peeks[seat])
    assert all(d.seat == seat for d in seen.pending)
    public = data["public"]
    if not state.over:
        assert public["loyalties"] is None
    for player in public["players"]:
        assert set(player) == {"seat", "name", "location", "position", "ranks", "kept",
                               "hand_size"}


def random_options(rng: random.Random, n: int) -> GameOptions:
    """Random explicit options: starred order, event and vote decks, pawns, loyalties."""
    starred = tuple(rng.sample(DEFAULT_STARRED, 3))
    titles = cards_in_play(n, starred)
    titles.remove(EventTitle.SPANISH_ARMADA)
    rng.shuffle(titles)
    british, french, dutch = LOYALTY_TABLE[n]
    loyalties = [Loyalty.BRITISH] * british + [Loyalty.FRENCH] * french + [Loyalty.DUTCH] * dutch
    rng.shuffle(loyalties)
    return GameOptions(
        starred=starred,
        event_deck=(*titles, EventTitle.SPANISH_ARMADA),
        vote_deck=tuple(rng.sample(range(32), 32)),
        pawn_order=tuple(rng.sample(range(n), n)),
        loyalties=tuple(loyalties),
    )


@settings(max_examples=160, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(min_value=2, max_value=9), seed=st.integers(min_value=0, max_value=2**31),
       explicit=st.booleans())
def test_every_step_of_a_random_game_keeps_every_invariant(n: int, seed: int,
                                                           explicit: bool) -> None:
    options = random_options(random.Random(seed), n) if explicit else None
    final, log = random_game(n, seed, options, observe=check_step)
    assert final.over and final.winner is not None
    assert replay(player_names(n), seed, options, log) == final
    assert from_json(to_json(final)) == final


@pytest.mark.parametrize("n", range(2, 10))
def test_hundreds_of_random_games_end_with_cards_and_treasure_accounted_for(n: int) -> None:
    for seed in range(220):
        final, log = random_game(n, 10_000 + seed)
        assert final.over
        check_invariants(final)
        if seed % 20 == 0:
            assert replay(player_names(n), 10_000 + seed, None, log) == final


@pytest.mark.parametrize("n", [2, 5, 9])
def test_apply_never_changes_the_state_it_is_given(n: int) -> None:
    def observe(before: GameState, seat: int, command: Command, after: GameState,
                events: list[Event]) -> None:
        assert to_json(before) == snapshot[0]
        snapshot[0] = to_json(after)

    for seed in range(5):
        snapshot = [to_json(random_game_start(n, seed))]
        random_game(n, seed, observe=observe)


@pytest.mark.parametrize("n", [3, 6, 9])
def test_no_earlier_state_of_a_game_changes_while_later_commands_are_applied(n: int) -> None:
    # apply shares the containers it does not change with the state it was given
    # (copy-on-write): every state of a whole game, timeouts, Atlantis orders and states
    # reloaded from JSON included, must still read as it did when it was made.
    from engine import apply

    for seed in range(3):
        rng = random.Random(seed)
        state = random_game_start(n, seed)
        made: list[tuple[GameState, str]] = [(state, to_json(state))]
        while not state.over and len(made) < 400:
            decision = rng.choice(pending(state))
            roll = rng.random()
            owners = [s for s in range(n) if "ATLANTIS" in
                      {str(c) for c in legal_commands(state, s)}]
            if owners and roll < 0.1:
                seat, command = owners[0], "ATLANTIS"
            elif roll < 0.2:
                seat, command = decision.seat, "TIMEOUT"
            else:
                seat, command = decision.seat, str(rng.choice(decision.legal))
            state = apply(state, seat, command)[0]
            if len(made) % 9 == 0:
                state = from_json(to_json(state))
            made.append((state, to_json(state)))
        assert all(to_json(earlier) == text for earlier, text in made)


def random_game_start(n: int, seed: int) -> GameState:
    from engine import new_game

    return new_game(player_names(n), seed)


@pytest.mark.parametrize("n", [2, 4, 7])
def test_every_state_of_a_game_survives_a_json_round_trip(n: int) -> None:
    def observe(before: GameState, seat: int, command: Command, after: GameState,
                events: list[Event]) -> None:
        restored = from_json(to_json(after))
        assert restored == after
        assert pending(restored) == pending(after)

    random_game(n, 77, observe=observe)


@pytest.mark.parametrize("n", range(2, 10))
def test_the_default_command_is_always_legal_and_deterministic(n: int) -> None:
    def observe(before: GameState, seat: int, command: Command, after: GameState,
                events: list[Event]) -> None:
        restored = from_json(to_json(after)) if after.version % 16 == 0 else after.copy()
        for decision in pending(after):
            chosen = default_command(after, decision.seat)
            assert chosen in decision.legal
            assert chosen == default_command(restored, decision.seat)

    for seed in range(4):
        random_game(n, seed, observe=observe)


LONG = int(os.environ.get("TORTUGA_LONG_PLAYOUTS", "0"))


@pytest.mark.slow
@pytest.mark.skipif(not LONG, reason="set TORTUGA_LONG_PLAYOUTS=10000 to run")
def test_a_long_run_of_random_games_always_ends() -> None:
    for i, n in zip(range(LONG), itertools.cycle(range(2, 10)), strict=False):
        final, _ = random_game(n, 1_000_000 + i)
        check_invariants(final)
