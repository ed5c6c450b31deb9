"""Rules audit: scenarios for rulings of the seed rulebooks and the rules reference that the
other test files do not pin down directly (each named after the ruling it checks)."""

from __future__ import annotations

from engine import EventTitle, Loyalty, pending, view
from engine.cards import EVENT_CARDS, VOTE_DECK, Symbol
from engine.testing import started
from tests.engine.helpers import (
    VoteIds,
    check_invariants,
    game,
    legal_texts,
    of_kind,
    play,
    result,
)

C, T, W = Symbol.CANNON, Symbol.TORCH, Symbol.WATER
B, F = Symbol.BRITISH, Symbol.FRENCH
SKULL, HELM = Symbol.SKULL, Symbol.HELM
ALBATROSS = EventTitle.ALBATROSS
ATLANTIS = EventTitle.ATLANTIS
FOUNTAIN = EventTitle.FOUNTAIN_OF_YOUTH
LOM = EventTitle.LETTER_OF_MARQUE
PISTOL = EventTitle.PISTOL
BLACK_SPOT = EventTitle.BLACK_SPOT
STORMY = EventTitle.STORMY_SEAS
BELLS = EventTitle.EIGHT_BELLS
ARMADA = EventTitle.SPANISH_ARMADA
TIED = {"FD_BRITISH": 1, "JR_FRENCH": 1}


def only(title: EventTitle, second: EventTitle | None = None) -> list[EventTitle | None]:
    return [title, second, None, None, None]


# ---------------------------------------------------------------- votes


def test_the_double_skull_card_outvotes_a_single_helm_in_a_mutiny(ids: VoteIds) -> None:
    double_skull = ids.get(bottom=SKULL, special=True)
    assert VOTE_DECK[double_skull].bottom == (SKULL, SKULL)
    s = game(5, fd=[0, 1], jr=[2, 3, 4], turn=1,
             hands={1: [ids.get(bottom=HELM)]}, vote_deck_top=[double_skull])
    s, events = play(s, (1, "MUTINY"), (1, "VOTE 1"))
    assert result(events) == "SUCCESS" and s.lines["FD"] == [1]


def test_the_double_water_card_drowns_two_torches_in_an_attack(ids: VoteIds) -> None:
    double_water = ids.get(top=W, special=True)
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0,
             hands={0: [ids.get(top=C)], 1: [ids.get(top=T)], 2: [ids.get(top=T)]},
             vote_deck_top=[double_water])
    _, events = play(s, (0, "ATTACK"), (0, "VOTE 1"), (1, "VOTE 1"), (2, "VOTE 1"))
    assert result(events) == "FAILURE"


def test_vote_participants_stay_fixed_when_one_of_them_orders_atlantis_mid_vote(
        ids: VoteIds) -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], kept={2: [ATLANTIS]}, turn=0,
             hands={seat: [ids.get(top=W)] for seat in (0, 1, 2)},
             vote_deck_top=[ids.get(top=W)])
    s, _ = play(s, (0, "ATTACK"), (2, "ATLANTIS"))
    assert {d.seat for d in pending(s)} == {0, 1, 2}
    s, events = play(s, (0, "VOTE 1"), (1, "VOTE 1"))
    assert s.lines["FD"] == [0, 1, 2]  # still aboard while the vote is open
    s, events = play(s, (2, "VOTE 1"))
    assert result(events) == "FAILURE"
    # the order is carried out only once the vote and the turn are over
    assert s.lines["JR"] == [3, 4, 2] and len(s.hands[2]) == 1
    check_invariants(s)


def test_the_deck_card_joins_the_vote_and_everything_played_goes_under_the_deck(
        ids: VoteIds) -> None:
    s = game(5, fd=[0, 1], jr=[2, 3, 4], turn=0)
    top, second, third = s.vote_deck[0], s.vote_deck[1], s.vote_deck[2]
    hand0, hand1 = list(s.hands[0]), list(s.hands[1])
    s, events = play(s, (0, "ATTACK"), (0, "VOTE 2"), (1, "VOTE 3"))
    assert len(of_kind(events, "vote.result")[0].data["revealed"]) == 3
    assert set(s.vote_deck[-3:]) == {top, hand0[1], hand1[2]}
    # each participant draws one card from the top
    assert s.hands[0] == [hand0[0], hand0[2], second]
    assert s.hands[1] == [hand1[0], hand1[1], third]
    check_invariants(s)


# ---------------------------------------------------------------- marooning and ranks


def test_a_governor_shot_by_a_pistol_goes_to_the_back_and_the_next_pawn_governs() -> None:
    s = game(5, fd=[0, 1], jr=[2], tortuga=[3, 4], row=only(PISTOL), turn=0)
    s, _ = play(s, (0, "REVEAL 1"), (0, "SHOOT 4"))
    assert s.lines["TORTUGA"] == [4, 3] and len(s.hands[3]) == 2
    ranks = {p.seat: p.ranks for p in view(s, 4).public.players}
    assert [r.value for r in ranks[4]] == ["GOVERNOR"] and ranks[3] == ()


def test_a_captain_marooning_a_crewmate_makes_the_last_pawn_cabin_boy() -> None:
    s = game(6, fd=[0, 1, 2], jr=[3, 4, 5], treasure={"FD_BRITISH": 1}, turn=0)
    s, _ = play(s, (0, "MAROON 3"))
    ranks = {p.seat: p.ranks for p in view(s, 1).public.players}
    assert [r.value for r in ranks[1]] == ["FIRST_MATE", "CABIN_BOY"]


# ---------------------------------------------------------------- rowboats


def test_a_rowboat_pawn_boards_only_the_ship_its_rowboat_belongs_to() -> None:
    s = game(4, fd=[0], jr=[2], tortuga=[3], fd_rowboat=1, turn=1)
    s, _ = play(s, (1, "BOARD"))
    assert s.lines["FD"] == [0, 1] and s.lines["JR"] == [2]


def test_a_letter_of_marque_may_carry_a_rowboat_pawn_to_the_other_ship() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], fd_rowboat=4, row=only(LOM), turn=0)
    s, _ = play(s, (0, "REVEAL 1"), (0, "MARQUE 5 JR"))
    assert s.lines["JR"] == [2, 3, 4] and s.rowboats["FD"] is None


# ---------------------------------------------------------------- Event cards


def test_eight_bells_never_triggers_an_albatross_check() -> None:
    # Eight Bells changes no ship's membership, so it is not a movement that checks for
    # Albatrosses. (Two holders aboard one ship cannot arise in play; arranged here so that
    # a check would show.)
    s = game(5, fd=[0, 1, 2], jr=[3, 4], kept={1: [ALBATROSS], 2: [ALBATROSS]},
             row=only(BELLS), turn=0)
    s, events = play(s, (0, "REVEAL 1"))
    assert sorted(s.lines["FD"]) == [0, 1, 2] and not of_kind(events, "albatross.struck")


def test_fountain_of_youth_in_a_two_player_game_still_spends_the_captains_action() -> None:
    s = game(2, fd=[0, 1], jr=[], kept={1: [FOUNTAIN]}, turn=0)
    s, _ = play(s, (0, "MAROON 2"), (1, "FOUNTAIN"))
    (decision,) = pending(s)
    assert (decision.seat, decision.context["action"]) == (0, 2)
    assert s.lines["FD"] == [0, 1]


def test_stormy_seas_refills_the_galleon_so_attacks_take_from_it_again(ids: VoteIds) -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4],
             treasure={"GALLEON": 0, "JR_BRITISH": 4, "FD_FRENCH": 2},
             row=[STORMY, PISTOL, BLACK_SPOT, LOM, BELLS],
             turn=2,
             hands={0: [ids.get(top=C)], 1: [ids.get(top=T)]}, vote_deck_top=[ids.get(top=T)])
    s, _ = play(s, (2, "REVEAL 1"))
    assert s.treasure["GALLEON"] == 4
    s, _ = play(s, (3, "VIEW 1 2"), (4, "VIEW 1 2"), (0, "ATTACK"), (0, "VOTE 1"),
                (1, "VOTE 1"))
    assert legal_texts(s, 0) == {"TAKE TO BRITISH", "TAKE TO FRENCH", "TAKE NONE"}


# ---------------------------------------------------------------- the row and the end


def test_the_new_sudden_death_row_wipes_every_seats_peeks() -> None:
    s = game(4, fd=[0, 1], jr=[2, 3], treasure=TIED,
             row=[ARMADA, PISTOL, BLACK_SPOT, LOM, STORMY], deck=[], turn=0)
    s, _ = play(s, (0, "VIEW 2 3"), (1, "VIEW 4 5"), (2, "REVEAL 1"))
    assert s.sudden_death and all(not view(s, i).peeks for i in range(4))


def test_in_sudden_death_a_brawl_that_breaks_the_tie_wins_at_once(ids: VoteIds) -> None:
    s = game(4, fd=[0, 1], jr=[2], tortuga=[3], treasure=TIED,
             row=[ARMADA, PISTOL, BLACK_SPOT, LOM, STORMY], deck=[], turn=2,
             hands={3: [ids.get(middle=F)]}, vote_deck_top=[ids.get(middle=F)])
    s, _ = play(s, (2, "REVEAL 1"))
    assert s.sudden_death
    s, events = play(s, (3, "BRAWL"), (3, "VOTE 1"))
    assert s.over and s.winner is Loyalty.FRENCH and of_kind(events, "game.over")


def test_in_sudden_death_plundering_the_galleon_wins_at_once(ids: VoteIds) -> None:
    s = game(4, fd=[0, 1], jr=[2, 3], treasure=TIED,
             row=[ARMADA, PISTOL, BLACK_SPOT, LOM, STORMY], deck=[], turn=3,
             hands={0: [ids.get(top=C)], 1: [ids.get(top=T)]}, vote_deck_top=[ids.get(top=T)])
    s, _ = play(s, (3, "REVEAL 1"), (0, "ATTACK"), (0, "VOTE 1"), (1, "VOTE 1"),
                (0, "TAKE TO BRITISH"))
    assert s.over and s.winner is Loyalty.BRITISH


def test_in_sudden_death_stormy_seas_emptying_one_side_wins_at_once() -> None:
    s = game(4, fd=[0, 1], jr=[2, 3], treasure=TIED,
             row=[ARMADA, STORMY, PISTOL, BLACK_SPOT, LOM], deck=[], turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert s.sudden_death
    position = 1 + next(i for i, c in enumerate(s.row) if c is not None
                        and EVENT_CARDS[c] is STORMY)
    s, _ = play(s, (1, f"REVEAL {position}"))
    assert s.over and s.winner is Loyalty.FRENCH


def test_after_exhaustion_a_forced_reveal_leaves_its_spot_empty_and_the_other_in_place(
) -> None:
    s = game(5, row=[PISTOL, BLACK_SPOT, LOM, STORMY, ARMADA], deck=[], turn=0)
    s = s.copy()
    s.exhausted = True
    s, _ = play(s, (0, "FORCE 1 2 4"), (3, "CHOOSE 2"))
    assert s.row[1] is None and s.row[0] is not None and EVENT_CARDS[s.row[0]] is PISTOL


def test_a_two_player_game_opens_with_the_roger_captain_taking_two_actions() -> None:
    s = started(2, seed=9)
    (decision,) = pending(s)
    assert decision.seat == s.lines["JR"][0]
    assert (decision.context["action"], decision.context["of"]) == (1, 2)
