"""Marooning by location, Tortuga's line, losing Vote cards, simultaneous maroons."""

from __future__ import annotations

from engine import EventTitle
from tests.engine.helpers import check_invariants, game, of_kind, play

PISTOL, BLACK_SPOT = EventTitle.PISTOL, EventTitle.BLACK_SPOT


def test_a_pawn_marooned_from_a_ship_goes_to_the_back_of_tortuga_and_keeps_its_cards() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3], tortuga=[4], turn=0)
    s, events = play(s, (0, "MAROON 3"))
    assert s.lines["TORTUGA"] == [4, 2]
    assert len(s.hands[2]) == 3
    assert not of_kind(events, "vote_card.lost")


def test_marooned_again_on_tortuga_a_player_goes_to_the_back_and_loses_a_vote_card() -> None:
    s = game(5, fd=[0, 1], jr=[2], tortuga=[3, 4], row=[PISTOL, None, None, None, None],
             turn=0)
    hand = list(s.hands[3])
    deck_size = len(s.vote_deck)
    s, events = play(s, (0, "REVEAL 1"), (0, "SHOOT 4"))
    assert s.lines["TORTUGA"] == [4, 3]
    assert len(s.hands[3]) == 2
    (lost_card,) = set(hand) - set(s.hands[3])
    assert s.vote_deck[-1] == lost_card and len(s.vote_deck) == deck_size + 1
    public, private = of_kind(events, "vote_card.lost")
    assert public.audience is None and "card" not in public.data
    assert private.audience == frozenset({3}) and private.data["card"] == lost_card
    check_invariants(s)


def test_a_lone_pawn_on_tortuga_stays_put_but_still_loses_a_card_each_time() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3], tortuga=[4],
             row=[BLACK_SPOT, BLACK_SPOT, None, None, None], turn=4)
    s, _ = play(s, (4, "REVEAL 1"))
    assert s.lines["TORTUGA"] == [4] and len(s.hands[4]) == 2
    s, _ = play(s, (0, "VIEW 1 2"), (1, "VIEW 1 2"), (2, "VIEW 1 2"), (3, "VIEW 1 2"))
    s, _ = play(s, (4, "REVEAL 2"))
    assert len(s.hands[4]) == 1


def test_a_pawn_marooned_from_a_rowboat_lands_on_tortuga_without_losing_a_card() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], fd_rowboat=4, row=[PISTOL, None, None, None, None],
             turn=0)
    s, events = play(s, (0, "REVEAL 1"), (0, "SHOOT 5"))
    assert s.rowboats["FD"] is None and s.lines["TORTUGA"] == [4]
    assert len(s.hands[4]) == 3 and not of_kind(events, "vote_card.lost")


def test_a_player_with_no_vote_cards_left_loses_nothing_more() -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], hands={4: []},
             row=[BLACK_SPOT, None, None, None, None], turn=4)
    s, events = play(s, (4, "REVEAL 1"))
    (lost,) = of_kind(events, "vote_card.lost")
    assert lost.data["lost"] is False
    check_invariants(s)


def test_when_the_captain_leaves_the_first_mate_becomes_captain() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], row=[BLACK_SPOT, None, None, None, None], turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert s.lines["FD"] == [1, 2]


def test_an_emptied_ship_keeps_its_treasure() -> None:
    s = game(5, fd=[0], jr=[1, 2], tortuga=[3, 4], treasure={"FD_BRITISH": 2},
             row=[BLACK_SPOT, None, None, None, None], turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert s.lines["FD"] == [] and s.treasure["FD_BRITISH"] == 2
