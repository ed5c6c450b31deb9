"""JSON snapshots, replay from seed + log, versions and the timeout default."""

from __future__ import annotations

import json

from engine import (
    Command,
    GameOptions,
    from_json,
    new_game,
    pending,
    replay,
    to_json,
)
from engine.simulate import player_names, random_game
from tests.engine.helpers import game, play


def test_a_state_round_trips_through_json_exactly() -> None:
    s = game(6, turn=0)
    s, _ = play(s, (0, "VIEW 1 2"), (1, "ATTACK") if s.lines["FD"][0] == 1 else (1, "VIEW 1 2"))
    text = to_json(s)
    assert json.loads(text)["format"] == 1
    assert from_json(text) == s
    assert to_json(from_json(text)) == text


def test_a_mid_vote_state_round_trips_with_the_secret_answers() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0)
    s, _ = play(s, (0, "ATTACK"), (2, "VOTE 1"))
    restored = from_json(to_json(s))
    assert restored == s and restored.stage == s.stage
    assert pending(restored) == pending(s)


def test_replaying_seed_and_log_gives_the_same_state() -> None:
    options = GameOptions(pawn_order=(4, 3, 2, 1, 0))
    final, log = random_game(5, 99, options)
    assert replay(player_names(5), 99, options, log) == final
    texts: list[tuple[int, Command | str]] = [(seat, str(c)) for seat, c in log]
    assert replay(player_names(5), 99, options, texts) == final


def test_the_version_counts_applied_commands() -> None:
    final, log = random_game(4, 5)
    assert final.version == len(log)
    assert new_game(player_names(4), 5).version == 0


def test_copies_and_pickles_of_a_state_are_independent_and_equal() -> None:
    import copy
    import pickle

    s = game(5, turn=0)
    pending(s)  # memoises legal moves on s
    for other in (copy.copy(s), copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert other == s and other is not s
        other.row[0] = None
        assert "REVEAL 1" not in {str(c) for c in pending(other)[0].legal}
    assert "REVEAL 1" in {str(c) for c in pending(s)[0].legal}
