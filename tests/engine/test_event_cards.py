"""One scenario per Event card and per ruling (rules reference section 9)."""

from __future__ import annotations

import pytest

from engine import (
    DecisionKind,
    EventTitle,
    IllegalCommandError,
    UseAtlantis,
    legal_commands,
    pending,
    view,
)
from engine.cards import EVENT_CARDS
from tests.engine.helpers import check_invariants, game, legal_texts, of_kind, play

LOM = EventTitle.LETTER_OF_MARQUE
PISTOL = EventTitle.PISTOL
ALBATROSS = EventTitle.ALBATROSS
BLACK_SPOT = EventTitle.BLACK_SPOT
MAP = EventTitle.TREASURE_MAP
STORMY = EventTitle.STORMY_SEAS
BELLS = EventTitle.EIGHT_BELLS
ATLANTIS = EventTitle.ATLANTIS
FOUNTAIN = EventTitle.FOUNTAIN_OF_YOUTH
EL_DORADO = EventTitle.EL_DORADO


def first(title: EventTitle, second: EventTitle | None = None) -> list[EventTitle | None]:
    """A row with ``title`` at position 1 (and ``second`` at 2); other spots empty."""
    return [title, second, None, None, None]


def kept_titles(state, seat: int) -> list[EventTitle]:  # type: ignore[no-untyped-def]
    return [EVENT_CARDS[c] for c in state.kept[seat]]


def discarded(state) -> list[EventTitle]:  # type: ignore[no-untyped-def]
    return [EVENT_CARDS[c] for c in state.discard]


# ---------------------------------------------------------------- Letter of Marque


def test_letter_of_marque_used_at_once_moves_a_tortuga_pawn_to_the_back_of_a_ship() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], row=first(LOM), turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    (decision,) = pending(s)
    assert decision.kind is DecisionKind.LETTER_OF_MARQUE
    assert {str(c) for c in decision.legal} == {"MARQUE 5 FD", "MARQUE 5 JR", "SAVE"}
    s, _ = play(s, (0, "MARQUE 5 JR"))
    assert s.lines["JR"] == [2, 3, 4] and s.lines["TORTUGA"] == []
    assert discarded(s) == [LOM]


def test_letter_of_marque_may_move_its_revealer_from_a_rowboat() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], jr_rowboat=4, row=first(LOM), turn=4)
    s, _ = play(s, (4, "REVEAL 1"), (4, "MARQUE 5 FD"))
    assert s.lines["FD"] == [0, 1, 4] and s.rowboats["JR"] is None


def test_letter_of_marque_cannot_move_anyone_who_is_on_a_ship() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], row=first(LOM), turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    with pytest.raises(IllegalCommandError):
        play(s, (0, "MARQUE 2 JR"))


def test_a_saved_letter_of_marque_is_kept_and_used_later_as_a_whole_action() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], row=first(LOM), turn=0)
    s, _ = play(s, (0, "REVEAL 1"), (0, "SAVE"))
    assert kept_titles(s, 0) == [LOM]
    assert view(s, 3).public.players[0].kept == (LOM,)  # kept cards are public
    s, _ = play(s, (1, "VIEW 1"), (2, "VIEW 1"), (3, "VIEW 1"), (4, "VIEW 1"))
    assert "MARQUE 5 FD" in legal_texts(s, 0)
    s, _ = play(s, (0, "MARQUE 5 FD"))
    assert s.lines["FD"] == [0, 1, 4] and kept_titles(s, 0) == [] and discarded(s) == [LOM]
    assert pending(s)[0].seat == 1


def test_with_nobody_to_move_a_letter_of_marque_is_saved_or_let_go_without_effect() -> None:
    # OQ-8: nobody on Tortuga or in a rowboat: keep it, or it resolves with no effect.
    s = game(4, fd=[0, 1], jr=[2, 3], row=first(LOM), turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert legal_texts(s, 0) == {"SAVE", "DISCARD"}
    let_go, events = play(s, (0, "DISCARD"))
    assert kept_titles(let_go, 0) == [] and discarded(let_go) == [LOM]
    assert let_go.lines == s.lines and let_go.treasure == s.treasure
    assert events[0].kind == "card.discarded"
    assert pending(let_go)[0].seat == 1
    saved, _ = play(s, (0, "SAVE"))
    assert kept_titles(saved, 0) == [LOM]


def test_a_letter_of_marque_is_not_let_go_while_someone_could_be_moved() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], row=first(LOM), turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert "DISCARD" not in legal_texts(s, 0)
    with pytest.raises(IllegalCommandError, match="use the Letter of Marque or SAVE it"):
        play(s, (0, "DISCARD"))


def test_a_letter_of_marque_never_fills_a_sixth_place_on_a_ship() -> None:
    s = game(9, fd=[0, 1, 2, 3, 4], jr=[5, 6, 7], tortuga=[8], row=first(LOM), turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert legal_texts(s, 0) == {"MARQUE 9 JR", "SAVE"}


def test_in_a_two_player_game_revealing_and_using_a_letter_of_marque_is_one_action() -> None:
    s = game(2, fd=[0], jr=[], tortuga=[1], row=first(LOM), turn=0)
    s, _ = play(s, (0, "REVEAL 1"), (0, "MARQUE 2 JR"))
    (decision,) = pending(s)
    assert (decision.seat, decision.context["action"]) == (0, 2)


def test_in_a_two_player_game_revealing_and_saving_is_one_action_and_later_use_another() -> None:
    s = game(2, fd=[0], jr=[], tortuga=[1], row=first(LOM), turn=0)
    s, _ = play(s, (0, "REVEAL 1"), (0, "SAVE"))
    assert pending(s)[0].context["action"] == 2
    s, _ = play(s, (0, "MARQUE 2 JR"))
    (decision,) = pending(s)
    assert (decision.seat, decision.context["action"]) == (1, 1)


def test_a_forced_player_who_reveals_a_letter_of_marque_may_save_it() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], row=first(LOM, PISTOL), turn=0)
    s, _ = play(s, (0, "FORCE 1 2 4"))
    (decision,) = pending(s)
    assert (decision.seat, decision.kind) == (3, DecisionKind.CHOOSE)
    assert decision.context["positions"] == [1, 2] and decision.context["forced_by"] == 0
    s, _ = play(s, (3, "CHOOSE 1"))
    (decision,) = pending(s)
    assert (decision.seat, decision.kind) == (3, DecisionKind.LETTER_OF_MARQUE)
    s, _ = play(s, (3, "SAVE"))
    assert kept_titles(s, 3) == [LOM]
    assert pending(s)[0].seat == 1  # the forcer's turn is over


# ---------------------------------------------------------------- Pistol


def test_the_pistol_maroons_another_player_wherever_he_is() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], row=first(PISTOL), turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert legal_texts(s, 0) == {"SHOOT 2", "SHOOT 3", "SHOOT 4", "SHOOT 5"}
    s, _ = play(s, (0, "SHOOT 3"))
    assert s.lines["JR"] == [3] and s.lines["TORTUGA"] == [4, 2]
    assert discarded(s) == [PISTOL]


def test_a_pistol_shot_at_a_player_on_tortuga_costs_him_a_vote_card() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], row=first(PISTOL), turn=0)
    s, events = play(s, (0, "REVEAL 1"), (0, "SHOOT 5"))
    assert len(s.hands[4]) == 2 and of_kind(events, "vote_card.lost")


# ---------------------------------------------------------------- Albatross


def test_first_mate_with_an_albatross_and_a_second_revealed_aboard_maroons_the_whole_ship(
) -> None:
    # Clarification example: the First Mate holds one Albatross; a second one revealed by
    # someone on his ship maroons everyone aboard, holders or not, Cabin Boy first.
    s = game(6, fd=[0, 1, 2, 3], jr=[4], tortuga=[5], kept={1: [ALBATROSS]},
             row=first(ALBATROSS), turn=3)
    s, events = play(s, (3, "REVEAL 1"))
    assert s.lines["FD"] == []
    assert s.lines["TORTUGA"] == [5, 3, 2, 1, 0]
    assert kept_titles(s, 1) == [ALBATROSS] and kept_titles(s, 3) == [ALBATROSS]
    assert of_kind(events, "albatross.struck")
    assert not of_kind(events, "vote_card.lost")
    check_invariants(s)


def test_a_holder_of_two_albatrosses_boarding_a_ship_maroons_everyone_including_himself(
) -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], jr_rowboat=4, kept={4: [ALBATROSS, ALBATROSS]},
             turn=4)
    s, _ = play(s, (4, "BOARD"))
    assert s.lines["JR"] == [] and s.lines["TORTUGA"] == [4, 3, 2]


def test_albatrosses_have_no_effect_on_tortuga_or_in_rowboats() -> None:
    s = game(5, fd=[0, 1], jr=[2], tortuga=[3], jr_rowboat=4, kept={3: [ALBATROSS]},
             row=first(ALBATROSS, ALBATROSS), turn=3)
    s, events = play(s, (3, "REVEAL 1"))
    assert s.lines["TORTUGA"] == [3] and not of_kind(events, "albatross.struck")
    s, _ = play(s, (4, "REVEAL 2"))
    assert s.rowboats["JR"] == 4 and kept_titles(s, 4) == [ALBATROSS]


def test_a_letter_of_marque_bringing_a_second_albatross_aboard_maroons_the_ship() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], kept={1: [ALBATROSS], 4: [ALBATROSS]},
             row=first(LOM), turn=0)
    s, _ = play(s, (0, "REVEAL 1"), (0, "MARQUE 5 FD"))
    assert s.lines["FD"] == [] and s.lines["TORTUGA"] == [4, 1, 0]


# ---------------------------------------------------------------- Black Spot


def test_the_black_spot_maroons_its_revealer() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], row=first(BLACK_SPOT), turn=2)
    s, _ = play(s, (2, "REVEAL 1"))
    assert s.lines["JR"] == [3] and s.lines["TORTUGA"] == [4, 2]


def test_a_forced_player_who_reveals_the_black_spot_is_the_one_marooned() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], row=first(BLACK_SPOT, PISTOL), turn=0)
    s, _ = play(s, (0, "FORCE 1 2 3"), (2, "CHOOSE 1"))
    assert s.lines["FD"] == [0, 1] and s.lines["TORTUGA"] == [4, 2]


# ---------------------------------------------------------------- Treasure Map


def test_the_treasure_map_is_given_to_any_player_and_stays_in_front_of_him() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], row=first(MAP), turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert legal_texts(s, 0) == {f"GIVE {i}" for i in range(1, 6)}
    s, _ = play(s, (0, "GIVE 3"))
    assert kept_titles(s, 2) == [MAP]


def test_the_provisional_treasure_map_moves_a_galleon_treasure_into_its_holders_ship() -> None:
    # OQ-1 provisional effect.
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], kept={2: [MAP]}, turn=2)
    assert {"MAP BRITISH", "MAP FRENCH"} <= legal_texts(s, 2)
    s, events = play(s, (2, "MAP FRENCH"))
    assert s.treasure["GALLEON"] == 3 and s.treasure["JR_FRENCH"] == 1
    assert kept_titles(s, 2) == [] and discarded(s) == [MAP]
    assert "provisional" in of_kind(events, "treasure.moved")[0].text


def test_in_a_two_player_game_a_map_given_to_oneself_waits_for_a_later_turn() -> None:
    # Rules reference 9.3: the map is used "on a later turn", not by the second action of
    # the turn in which its revealer gave it to himself.
    s = game(2, fd=[0], jr=[1], row=[MAP, None, None, STORMY, BELLS], turn=0)
    s, _ = play(s, (0, "REVEAL 1"), (0, "GIVE 1"))
    assert kept_titles(s, 0) == [MAP] and pending(s)[0].context["action"] == 2
    assert not any(t.startswith("MAP") for t in legal_texts(s, 0))
    with pytest.raises(IllegalCommandError, match="given before this turn"):
        play(s, (0, "MAP BRITISH"))
    s, _ = play(s, (0, "VIEW 4 5"), (1, "VIEW 4 5"), (1, "VIEW 4 5"))
    assert pending(s)[0].seat == 0
    assert {"MAP BRITISH", "MAP FRENCH"} <= legal_texts(s, 0)
    s, _ = play(s, (0, "MAP FRENCH"))
    assert s.treasure["FD_FRENCH"] == 1 and kept_titles(s, 0) == []


def test_a_map_forced_on_the_turn_player_by_the_other_seat_also_waits() -> None:
    # 2 players: seat 0 forces seat 1, who reveals a map and gives it to seat 0.
    s = game(2, fd=[0], jr=[1], row=[MAP, STORMY, None, None, BELLS], turn=0)
    s, _ = play(s, (0, "FORCE 1 2 2"), (1, "CHOOSE 1"), (1, "GIVE 1"))
    assert pending(s)[0].seat == 0 and pending(s)[0].context["action"] == 2
    assert not any(t.startswith("MAP") for t in legal_texts(s, 0))


def test_the_treasure_map_is_useless_off_a_ship_or_with_the_galleon_empty() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], kept={4: [MAP]}, turn=4)
    assert not any(t.startswith("MAP") for t in legal_texts(s, 4))
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], kept={2: [MAP]},
             treasure={"GALLEON": 0, "FD_BRITISH": 6}, turn=2)
    assert not any(t.startswith("MAP") for t in legal_texts(s, 2))


# ---------------------------------------------------------------- Stormy Seas


def test_stormy_seas_on_a_ship_returns_its_treasure_to_the_galleon() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4],
             treasure={"FD_BRITISH": 2, "FD_FRENCH": 1, "JR_FRENCH": 1},
             row=first(STORMY), turn=1)
    s, _ = play(s, (1, "REVEAL 1"))
    assert (s.treasure["FD_BRITISH"], s.treasure["FD_FRENCH"]) == (0, 0)
    assert s.treasure["GALLEON"] == 2 + 3 and s.treasure["JR_FRENCH"] == 1


def test_stormy_seas_on_tortuga_resets_its_treasure_to_one_and_one() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4],
             treasure={"TORTUGA_BRITISH": 0, "TORTUGA_FRENCH": 2}, row=first(STORMY), turn=4)
    s, _ = play(s, (4, "REVEAL 1"))
    assert (s.treasure["TORTUGA_BRITISH"], s.treasure["TORTUGA_FRENCH"]) == (1, 1)


def test_stormy_seas_in_a_rowboat_has_no_effect_and_says_so() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], fd_rowboat=4, treasure={"FD_BRITISH": 2},
             row=first(STORMY), turn=4)
    s, events = play(s, (4, "REVEAL 1"))
    assert s.treasure["FD_BRITISH"] == 2 and of_kind(events, "card.no_effect")


# ---------------------------------------------------------------- Eight Bells


def test_eight_bells_redraws_the_revealers_line_in_random_order() -> None:
    orders = set()
    for seed in range(12):
        s = game(9, seed, fd=[0, 1, 2, 3, 4], jr=[5, 6, 7, 8], row=first(BELLS), turn=0)
        s, events = play(s, (0, "REVEAL 1"))
        assert sorted(s.lines["FD"]) == [0, 1, 2, 3, 4] and s.lines["JR"] == [5, 6, 7, 8]
        assert of_kind(events, "pawn.reordered")[0].data["line"] == s.lines["FD"]
        orders.add(tuple(s.lines["FD"]))
    assert len(orders) > 1


def test_eight_bells_also_reorders_tortuga() -> None:
    s = game(5, 3, fd=[0], jr=[1], tortuga=[2, 3, 4], row=first(BELLS), turn=3)
    s, events = play(s, (3, "REVEAL 1"))
    assert sorted(s.lines["TORTUGA"]) == [2, 3, 4] and of_kind(events, "pawn.reordered")


def test_eight_bells_alone_or_in_a_rowboat_has_no_effect() -> None:
    s = game(5, fd=[0], jr=[1, 2, 3], tortuga=[4], row=first(BELLS), turn=0)
    s, events = play(s, (0, "REVEAL 1"))
    assert of_kind(events, "card.no_effect") and s.lines["FD"] == [0]


# ---------------------------------------------------------------- Atlantis


def test_atlantis_is_a_standing_order_carried_out_before_the_next_turn_begins() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3], tortuga=[4], kept={1: [ATLANTIS]}, turn=0)
    assert UseAtlantis() in legal_commands(s, 1)
    assert all(d.seat != 1 for d in pending(s))  # never a pending decision
    s, events = play(s, (1, "ATLANTIS"))
    assert events[0].audience == frozenset({1})
    assert s.lines["FD"] == [0, 1, 2]
    assert view(s, 1).atlantis_ordered and UseAtlantis() not in legal_commands(s, 1)
    s, events = play(s, (0, "VIEW 1 2"))
    assert s.lines["FD"] == [0, 2] and s.lines["JR"] == [3, 1]
    assert kept_titles(s, 1) == [] and discarded(s) == [ATLANTIS]  # OQ-5: single use
    moved = of_kind(events, "pawn.moved")[0]
    turn = of_kind(events, "turn.started")[0]
    assert events.index(moved) < events.index(turn)


def test_atlantis_needs_its_owner_on_a_ship_and_room_on_the_other() -> None:
    s = game(9, fd=[0, 1, 2, 3], jr=[4, 5, 6, 7, 8], kept={1: [ATLANTIS]}, turn=0)
    s, _ = play(s, (1, "ATLANTIS"), (0, "VIEW 1 2"))
    assert s.lines["FD"] == [0, 1, 2, 3] and kept_titles(s, 1) == [ATLANTIS]
    assert not s.atlantis_ordered[1]


def test_atlantis_owned_on_tortuga_lapses_and_the_card_is_kept() -> None:
    s = game(5, fd=[0, 1], jr=[3], tortuga=[2, 4], kept={4: [ATLANTIS]}, turn=0)
    s, events = play(s, (4, "ATLANTIS"), (0, "VIEW 1 2"))
    assert kept_titles(s, 4) == [ATLANTIS]
    (lapsed,) = of_kind(events, "atlantis.lapsed")
    assert lapsed.audience == frozenset({4})


def test_an_albatross_check_follows_an_atlantis_move() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3, 4], kept={1: [ATLANTIS, ALBATROSS], 3: [ALBATROSS]},
             turn=0)
    s, _ = play(s, (1, "ATLANTIS"), (0, "VIEW 1 2"))
    assert s.lines["JR"] == [] and s.lines["TORTUGA"] == [1, 4, 3, 2]


def test_ordering_atlantis_without_the_card_is_illegal() -> None:
    s = game(5, turn=0)
    with pytest.raises(IllegalCommandError, match="Atlantis"):
        play(s, (2, "ATLANTIS"))


# ---------------------------------------------------------------- Fountain of Youth


def test_fountain_of_youth_against_a_captains_maroon_still_spends_the_captains_turn() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], kept={2: [FOUNTAIN]}, turn=0)
    s, _ = play(s, (0, "MAROON 3"))
    (decision,) = pending(s)
    assert (decision.seat, decision.kind) == (2, DecisionKind.FOUNTAIN)
    assert decision.context["cause"] == "MAROON" and decision.context["by"] == 0
    s, _ = play(s, (2, "FOUNTAIN"))
    assert s.lines["FD"] == [0, 1, 2] and discarded(s) == [FOUNTAIN]
    (decision,) = pending(s)
    assert (decision.seat, decision.kind) == (1, DecisionKind.ACTION)


def test_accepting_the_maroon_keeps_the_fountain_for_later() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], kept={2: [FOUNTAIN]}, turn=0)
    s, _ = play(s, (0, "MAROON 3"), (2, "ACCEPT"))
    assert s.lines["TORTUGA"] == [2] and kept_titles(s, 2) == [FOUNTAIN]


@pytest.mark.parametrize("card", [BLACK_SPOT, PISTOL])
def test_fountain_of_youth_protects_against_black_spot_and_pistol(card: EventTitle) -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], kept={3: [FOUNTAIN]}, row=first(card),
             turn=3 if card is BLACK_SPOT else 0)
    revealer = 3 if card is BLACK_SPOT else 0
    s, _ = play(s, (revealer, "REVEAL 1"))
    if card is PISTOL:
        s, _ = play(s, (0, "SHOOT 4"))
    (decision,) = pending(s)
    assert decision.kind is DecisionKind.FOUNTAIN and decision.context["cause"] == card.value
    s, _ = play(s, (3, "FOUNTAIN"))
    assert s.lines["JR"] == [2, 3]


def test_fountain_of_youth_protects_a_captain_from_a_mutiny(ids) -> None:  # type: ignore[no-untyped-def]
    from engine.cards import Symbol

    s = game(5, fd=[0, 1, 2], jr=[3, 4], kept={0: [FOUNTAIN]}, turn=1,
             hands={1: [ids.get(bottom=Symbol.SKULL)], 2: [ids.get(bottom=Symbol.SKULL)]},
             vote_deck_top=[ids.get(bottom=Symbol.SKULL)])
    s, _ = play(s, (1, "MUTINY"), (1, "VOTE 1"), (2, "VOTE 1"))
    (decision,) = pending(s)
    assert (decision.seat, decision.context["cause"]) == (0, "MUTINY")
    s, _ = play(s, (0, "FOUNTAIN"))
    assert s.lines["FD"] == [0, 1, 2]
    check_invariants(s)


def test_fountain_of_youth_does_not_help_against_albatrosses() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], kept={0: [FOUNTAIN, ALBATROSS]},
             row=first(ALBATROSS), turn=2)
    s, events = play(s, (2, "REVEAL 1"))
    assert s.lines["FD"] == [] and not of_kind(events, "fountain.window")


# ---------------------------------------------------------------- El Dorado


def test_el_dorado_draws_an_extra_card_and_once_lets_its_owner_play_two() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], row=first(EL_DORADO), turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert len(s.hands[0]) == 4 and kept_titles(s, 0) == [EL_DORADO]
    s, _ = play(s, (1, "VIEW 1"), (2, "VIEW 1"), (3, "VIEW 1"), (4, "VIEW 1"))
    s, _ = play(s, (0, "ATTACK"))
    assert "VOTE 1 3" in legal_texts(s, 0) and "VOTE 1 3" not in legal_texts(s, 1)
    s, events = play(s, (0, "VOTE 1 3"), (1, "VOTE 1"), (2, "VOTE 1"))
    assert len(of_kind(events, "vote.result")[0].data["symbols"]) >= 5
    assert len(s.hands[0]) == 3  # played two, still drew one
    assert kept_titles(s, 0) == [] and EL_DORADO in discarded(s)
    check_invariants(s)


def test_el_dorado_is_kept_when_its_owner_plays_a_single_card() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], kept={0: [EL_DORADO]}, turn=0)
    s, _ = play(s, (0, "ATTACK"), (0, "VOTE 1"), (1, "VOTE 1"), (2, "VOTE 1"))
    assert kept_titles(s, 0) == [EL_DORADO]


# ---------------------------------------------------------------- the row


def test_a_view_is_private_knowledge_tracked_by_position_until_the_card_leaves() -> None:
    s = game(5, row=[PISTOL, MAP, BLACK_SPOT, LOM, STORMY], turn=0)
    s, events = play(s, (0, "VIEW 1 4"))
    public, private = of_kind(events, "event.viewed")
    assert public.audience is None and "cards" not in public.data
    assert private.audience == frozenset({0}) and private.data["cards"] == {
        "1": "PISTOL", "4": "LETTER_OF_MARQUE"}
    assert view(s, 0).peeks == {1: PISTOL, 4: LOM}
    assert view(s, 1).peeks == {}
    s, _ = play(s, (1, "REVEAL 1"), (1, "SHOOT 3"))
    assert view(s, 0).peeks == {4: LOM}
    assert set(view(s, 0).seen) == {PISTOL, LOM}


def test_view_of_a_single_card_is_allowed_only_when_one_is_left() -> None:
    # OQ-14: view the last face-down card alone; Force needs two.
    s = game(5, row=[None, None, PISTOL, None, None], deck=[], turn=0)
    legal = legal_texts(s, 0)
    assert "VIEW 3" in legal and "REVEAL 3" in legal
    assert not any(t.startswith("FORCE") for t in legal)


def test_when_the_deck_runs_out_the_row_is_reshuffled_and_no_longer_refilled() -> None:
    s = game(5, row=[PISTOL, MAP, BLACK_SPOT, LOM, STORMY], deck=[EventTitle.SPANISH_ARMADA],
             turn=0)
    s, _ = play(s, (0, "VIEW 2 3"))
    s, events = play(s, (1, "REVEAL 1"), (1, "SHOOT 3"))
    assert of_kind(events, "event.row_reshuffled") and s.exhausted
    assert s.event_deck == [] and view(s, 0).peeks == {}
    assert sorted(EVENT_CARDS[c] for c in s.row if c is not None) == sorted(
        [MAP, BLACK_SPOT, LOM, STORMY, EventTitle.SPANISH_ARMADA])
    position = next(i + 1 for i, c in enumerate(s.row)
                    if c is not None and EVENT_CARDS[c] is not EventTitle.SPANISH_ARMADA
                    and EVENT_CARDS[c] is not LOM and EVENT_CARDS[c] is not MAP)
    s, _ = play(s, (2, f"REVEAL {position}"))
    assert s.row[position - 1] is None
