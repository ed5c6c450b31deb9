"""JSON snapshots, replay from seed + log, versions and the timeout default."""

from __future__ import annotations

import json

import pytest

from engine import (
    Command,
    DecisionKind,
    GameOptions,
    NotYourDecisionError,
    Save,
    Vote,
    default_command,
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


def test_the_default_for_a_vote_is_a_single_card_of_the_hand() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0)
    s, _ = play(s, (0, "ATTACK"))
    chosen = default_command(s, 1)
    assert isinstance(chosen, Vote) and len(chosen.cards) == 1
    assert chosen == default_command(s, 1)


def test_the_default_turn_action_is_a_view() -> None:
    s = game(5, turn=0)
    assert str(default_command(s, 0)).startswith("VIEW")


def test_the_default_saves_a_letter_of_marque_and_drinks_from_the_fountain() -> None:
    from engine import EventTitle

    s = game(5, fd=[0, 1, 2], jr=[3], tortuga=[4],
             row=[EventTitle.LETTER_OF_MARQUE, None, None, None, None],
             kept={2: [EventTitle.FOUNTAIN_OF_YOUTH]}, turn=0)
    after, _ = play(s, (0, "REVEAL 1"))
    assert default_command(after, 0) == Save()
    after, _ = play(s, (0, "MAROON 3"))
    assert pending(after)[0].kind is DecisionKind.FOUNTAIN
    assert str(default_command(after, 2)) == "FOUNTAIN"


def test_there_is_no_default_for_a_seat_that_owes_nothing() -> None:
    with pytest.raises(NotYourDecisionError):
        default_command(game(5, turn=0), 3)


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
