"""Turn actions and their preconditions: ranks, rowboats, ship capacity, 2-player turns,
the Captain's maroon, the Cabin Boy's shift, and how bad commands are refused."""

from __future__ import annotations

import pytest

from engine import (
    DecisionKind,
    GameOverError,
    IllegalCommandError,
    NotYourDecisionError,
    apply,
    legal_commands,
    pending,
    to_json,
    view,
)
from engine.cards import Rank
from tests.engine.helpers import game, legal_texts, of_kind, play


def test_the_front_pawn_is_captain_the_second_first_mate_and_the_last_cabin_boy() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0)
    ranks = {p.seat: p.ranks for p in view(s, 0).public.players}
    assert ranks[0] == (Rank.CAPTAIN,)
    assert ranks[1] == (Rank.FIRST_MATE,)
    assert ranks[2] == (Rank.CABIN_BOY,)
    assert ranks[3] == (Rank.CAPTAIN,) and ranks[4] == (Rank.FIRST_MATE, Rank.CABIN_BOY)


def test_a_pawn_alone_on_a_ship_is_captain_and_cabin_boy_and_may_act_as_either() -> None:
    s = game(4, fd=[0], jr=[1, 2], tortuga=[3], treasure={"FD_BRITISH": 1}, turn=0)
    legal = legal_texts(s, 0)
    assert {"ATTACK", "SHIFT TO FRENCH"} <= legal
    assert not any(t.startswith(("MAROON", "MUTINY")) for t in legal)


def test_the_second_of_two_is_first_mate_and_cabin_boy_at_once() -> None:
    s = game(4, fd=[0, 1], jr=[2, 3], treasure={"FD_FRENCH": 1}, turn=1)
    legal = legal_texts(s, 1)
    assert {"MUTINY", "SHIFT TO BRITISH"} <= legal
    assert "ATTACK" not in legal


def test_the_front_pawn_on_tortuga_is_governor_and_may_call_a_brawl() -> None:
    s = game(5, fd=[0, 1], jr=[2], tortuga=[3, 4], turn=3)
    assert "BRAWL" in legal_texts(s, 3)
    s = game(5, fd=[0, 1], jr=[2], tortuga=[3, 4], turn=4)
    assert "BRAWL" not in legal_texts(s, 4)


def test_only_the_ranked_pawns_get_rank_actions() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], treasure={"FD_BRITISH": 1}, turn=1)
    legal = legal_texts(s, 1)
    assert "MUTINY" in legal
    assert not {"ATTACK", "MAROON 3", "SHIFT TO FRENCH", "BRAWL"} & legal
    with pytest.raises(IllegalCommandError, match="Captain"):
        apply(s, 1, "ATTACK")


def test_the_cabin_boy_moves_one_treasure_between_his_ships_holds() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], treasure={"FD_BRITISH": 2}, turn=2)
    assert "SHIFT TO BRITISH" not in legal_texts(s, 2)
    s, _ = apply(s, 2, "SHIFT TO FRENCH")
    assert (s.treasure["FD_BRITISH"], s.treasure["FD_FRENCH"]) == (1, 1)


def test_a_cabin_boy_cannot_shift_out_of_an_empty_hold() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], treasure={"JR_BRITISH": 2}, turn=2)
    with pytest.raises(IllegalCommandError, match="other hold is empty"):
        apply(s, 2, "SHIFT TO FRENCH")


def test_the_captain_maroons_a_crewmate_and_the_line_closes_up() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3], tortuga=[4], turn=0)
    assert {"MAROON 2", "MAROON 3"} <= legal_texts(s, 0)
    assert "MAROON 1" not in legal_texts(s, 0) and "MAROON 4" not in legal_texts(s, 0)
    s, events = apply(s, 0, "MAROON 2")
    assert s.lines["FD"] == [0, 2]
    assert s.lines["TORTUGA"] == [4, 1]
    assert of_kind(events, "pawn.marooned")[0].data["seat"] == 1


def test_rowboat_pawns_are_not_on_the_ship_and_cannot_be_marooned_by_its_captain() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], fd_rowboat=4, turn=0)
    assert "MAROON 5" not in legal_texts(s, 0)


def test_rowing_from_a_ship_to_its_rowboat_then_to_tortuga_takes_two_actions() -> None:
    s = game(4, fd=[0, 1], jr=[2, 3], turn=1)
    s, _ = apply(s, 1, "ROW")
    assert s.rowboats["FD"] == 1 and s.lines["FD"] == [0]
    s = game(4, fd=[0], jr=[2, 3], fd_rowboat=1, turn=1)
    assert legal_texts(s, 1) >= {"LAND", "BOARD"}
    s, _ = apply(s, 1, "LAND")
    assert s.lines["TORTUGA"] == [1] and s.rowboats["FD"] is None


def test_from_tortuga_a_pawn_may_row_to_either_rowboat_then_board_that_ship() -> None:
    s = game(4, fd=[0], jr=[2, 3], tortuga=[1], turn=1)
    assert {"ROW FD", "ROW JR"} <= legal_texts(s, 1)
    assert "ROW" not in legal_texts(s, 1)
    s, _ = apply(s, 1, "ROW JR")
    assert s.rowboats["JR"] == 1
    s = game(4, fd=[0], jr=[2, 3], jr_rowboat=1, turn=1)
    s, _ = apply(s, 1, "BOARD")
    assert s.lines["JR"] == [2, 3, 1]


def test_boarding_an_empty_ship_makes_the_pawn_its_captain() -> None:
    s = game(4, fd=[0, 1, 3], jr=[], jr_rowboat=2, turn=2)
    s, _ = apply(s, 2, "BOARD")
    assert s.lines["JR"] == [2]
    s, _ = play(s, (3, "VIEW 1 2"), (0, "VIEW 1 2"), (1, "VIEW 1 2"))
    assert "ATTACK" in legal_texts(s, 2)


def test_an_occupied_rowboat_blocks_everyone_else() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], fd_rowboat=4, turn=1)
    assert "ROW" not in legal_texts(s, 1)
    with pytest.raises(IllegalCommandError, match="occupied"):
        apply(s, 1, "ROW")
    s = game(5, fd=[0, 1], jr=[2], tortuga=[3], fd_rowboat=4, turn=3)
    assert "ROW JR" in legal_texts(s, 3) and "ROW FD" not in legal_texts(s, 3)


def test_a_pawn_may_sit_in_a_rowboat_and_still_view_reveal_and_force() -> None:
    s = game(4, fd=[0], jr=[2, 3], fd_rowboat=1, turn=1)
    legal = legal_texts(s, 1)
    assert {"VIEW 1 2", "REVEAL 3", "FORCE 1 2 1"} <= legal


def test_no_ship_ever_holds_a_sixth_pawn() -> None:
    s = game(9, fd=[0, 1, 2, 3, 4], jr=[5, 6, 7], fd_rowboat=8, turn=8)
    assert "BOARD" not in legal_texts(s, 8)
    with pytest.raises(IllegalCommandError, match="5 pawns"):
        apply(s, 8, "BOARD")
    assert "LAND" in legal_texts(s, 8)


def test_a_two_player_turn_has_two_actions() -> None:
    s = game(2, fd=[0], jr=[1], turn=1)
    (decision,) = pending(s)
    assert decision.context["action"] == 1 and decision.context["of"] == 2
    s, _ = apply(s, 1, "VIEW 1 2")
    (decision,) = pending(s)
    assert (decision.seat, decision.context["action"]) == (1, 2)
    s, _ = apply(s, 1, "ROW")
    (decision,) = pending(s)
    assert (decision.seat, decision.context["action"]) == (0, 1)


def test_a_two_player_game_may_repeat_the_same_kind_of_action() -> None:
    s = game(2, fd=[0], jr=[1], turn=0)
    s, _ = play(s, (0, "ROW"), (0, "LAND"))
    assert s.lines["TORTUGA"] == [0]


def test_a_seat_without_an_open_decision_is_told_so() -> None:
    s = game(4, turn=0)
    with pytest.raises(NotYourDecisionError) as caught:
        apply(s, 1, "VIEW 1 2")
    assert caught.value.code == "command/not_your_decision"


def test_an_answer_to_a_decision_that_is_not_open_is_not_your_decision() -> None:
    s = game(4, turn=0)
    with pytest.raises(NotYourDecisionError, match="VOTE"):
        apply(s, 0, "VOTE 1")


def test_an_illegal_command_is_refused_with_a_reason_that_echoes_it() -> None:
    s = game(4, turn=0)
    s = s.copy()
    s.row[2] = None
    with pytest.raises(IllegalCommandError) as caught:
        apply(s, 0, "REVEAL 3")
    assert caught.value.code == "command/illegal"
    assert "REVEAL 3" in str(caught.value) and "position 3" in str(caught.value)
    with pytest.raises(IllegalCommandError, match="yourself"):
        apply(s, 0, "FORCE 1 2 1")
    with pytest.raises(IllegalCommandError, match="no seat 9"):
        apply(s, 0, "FORCE 1 2 9")


def test_view_takes_two_cards_while_two_are_face_down() -> None:
    s = game(4, turn=0)
    with pytest.raises(IllegalCommandError, match="two positions"):
        apply(s, 0, "VIEW 1")


def test_apply_parses_text_and_never_changes_its_input() -> None:
    s = game(5, turn=0)
    before = to_json(s)
    after, _ = apply(s, 0, "REVEAL 1")
    assert to_json(s) == before
    assert after.version == s.version + 1


def test_nothing_is_accepted_once_the_game_is_over() -> None:
    from engine import EventTitle

    s = game(5, row=[EventTitle.SPANISH_ARMADA, None, None, None, None], turn=0)
    s, _ = apply(s, 0, "REVEAL 1")
    assert s.over and pending(s) == [] and legal_commands(s, 0) == []
    with pytest.raises(GameOverError) as caught:
        apply(s, 1, "VIEW 1 2")
    assert caught.value.code == "game/over"


def test_the_decision_id_changes_when_a_new_decision_opens() -> None:
    s = game(2, fd=[0], jr=[1], turn=0)
    first = s.decision_id(0)
    (decision,) = pending(s)
    assert decision.context["decision_id"] == first and s.decision_id(1) is None
    s, _ = apply(s, 0, "VIEW 1 2")
    assert s.decision_id(0) not in (None, first)
    assert pending(s)[0].kind is DecisionKind.ACTION
