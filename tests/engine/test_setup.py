"""Setting up a game: loyalties, decks, pawns, treasure, the opening and the options."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import (
    EVENT_CARDS,
    DecisionKind,
    EventTitle,
    GameOptions,
    Loyalty,
    SetupError,
    apply,
    new_game,
    pending,
)
from engine.cards import LOYALTY_TABLE
from engine.setup import cards_in_play
from engine.simulate import player_names
from tests.engine.helpers import check_invariants


@pytest.mark.parametrize("n", range(2, 10))
def test_loyalties_follow_the_table_and_a_dutch_player_exists_only_in_odd_games(n: int) -> None:
    state = new_game(player_names(n), seed=n)
    counts = Counter(state.loyalties)
    british, french, dutch = LOYALTY_TABLE[n]
    assert (counts[Loyalty.BRITISH], counts[Loyalty.FRENCH], counts[Loyalty.DUTCH]) == (
        british, french, dutch)
    assert (dutch == 1) == (n % 2 == 1)


@pytest.mark.parametrize("n", range(2, 10))
def test_every_seat_gets_three_vote_cards_and_the_rest_form_the_deck(n: int) -> None:
    state = new_game(player_names(n), seed=1)
    assert all(len(hand) == 3 for hand in state.hands)
    assert len(state.vote_deck) == 32 - 3 * n
    check_invariants(state)


@pytest.mark.parametrize("n", range(2, 10))
def test_the_event_deck_holds_the_right_cards_with_the_armada_at_the_bottom(n: int) -> None:
    state = new_game(player_names(n), seed=2)
    in_play = [*(c for c in state.row if c is not None), *state.event_deck]
    titles = Counter(EVENT_CARDS[c] for c in in_play)
    assert len(in_play) == (18 if n <= 3 else 21)
    assert len(state.event_deck) == len(in_play) - 5
    assert EVENT_CARDS[state.event_deck[-1]] is EventTitle.SPANISH_ARMADA
    assert titles[EventTitle.ALBATROSS] == (0 if n <= 3 else 3)
    for title in (EventTitle.ATLANTIS, EventTitle.EL_DORADO, EventTitle.FOUNTAIN_OF_YOUTH,
                  EventTitle.STORMY_SEAS, EventTitle.EIGHT_BELLS):
        assert titles[title] == 1
    for title in (EventTitle.CABIN_FEVER, EventTitle.FACADE, EventTitle.CROWS_NEST):
        assert titles[title] == 0
    assert len(state.box) + len(in_play) == 24


@pytest.mark.parametrize("n", range(2, 10))
def test_pawns_are_drawn_alternately_onto_the_dutchman_and_the_roger(n: int) -> None:
    order = tuple(reversed(range(n)))
    state = new_game(player_names(n), seed=3, options=GameOptions(pawn_order=order))
    assert state.lines["FD"] == list(order[0::2])
    assert state.lines["JR"] == list(order[1::2])
    assert len(state.lines["FD"]) == (n + 1) // 2
    assert state.lines["TORTUGA"] == []


def test_treasure_starts_four_on_the_galleon_and_one_per_tortuga_area() -> None:
    state = new_game(player_names(4), seed=4)
    t = state.treasure
    assert (t["GALLEON"], t["TORTUGA_BRITISH"], t["TORTUGA_FRENCH"]) == (4, 1, 1)
    assert t["UNPLACED"] == 2


def test_the_dutchman_captain_places_first_then_the_roger_captain_who_then_plays_first() -> None:
    state = new_game(player_names(5), seed=5, options=GameOptions(pawn_order=(3, 1, 4, 0, 2)))
    (decision,) = pending(state)
    assert (decision.seat, decision.kind, decision.context["ship"]) == (3, DecisionKind.PLACE,
                                                                         "FD")
    state, _ = apply(state, 3, "PLACE FRENCH")
    (decision,) = pending(state)
    assert (decision.seat, decision.context["ship"]) == (1, "JR")
    state, events = apply(state, 1, "PLACE BRITISH")
    assert state.treasure["FD_FRENCH"] == 1 and state.treasure["JR_BRITISH"] == 1
    assert state.treasure["UNPLACED"] == 0
    (decision,) = pending(state)
    assert (decision.seat, decision.kind) == (1, DecisionKind.ACTION)
    assert any(e.kind == "turn.started" for e in events)


def test_turns_follow_seating_order_from_the_roger_captain() -> None:
    state = new_game(player_names(4), seed=6, options=GameOptions(pawn_order=(0, 2, 1, 3)))
    state, _ = apply(state, 0, "PLACE BRITISH")
    state, _ = apply(state, 2, "PLACE BRITISH")
    seen = []
    for _ in range(5):
        (decision,) = pending(state)
        seen.append(decision.seat)
        state, _ = apply(state, decision.seat, "VIEW 1 2")
    assert seen == [2, 3, 0, 1, 2]


def test_explicit_options_set_up_an_exact_position() -> None:
    titles = cards_in_play(4, GameOptions().starred)
    others = sorted((t for t in titles if t is not EventTitle.SPANISH_ARMADA),
                    key=lambda t: t.value)
    deck = (*others, EventTitle.SPANISH_ARMADA)
    votes = tuple(reversed(range(32)))
    loyalties = (Loyalty.FRENCH, Loyalty.BRITISH, Loyalty.BRITISH, Loyalty.FRENCH)
    options = GameOptions(event_deck=deck, vote_deck=votes, pawn_order=(1, 0, 3, 2),
                          loyalties=loyalties)
    state = new_game(player_names(4), seed=7, options=options)
    assert [EVENT_CARDS[c] for c in state.row] == list(deck[:5])
    assert [EVENT_CARDS[c] for c in state.event_deck] == list(deck[5:])
    assert state.hands[0] == [31, 30, 29] and state.hands[3] == [22, 21, 20]
    assert state.vote_deck[0] == 19
    assert state.loyalties == list(loyalties)
    assert state.lines == {"FD": [1, 3], "JR": [0, 2], "TORTUGA": []}


def test_options_round_trip_through_a_dict() -> None:
    options = GameOptions(vote_deck=tuple(range(32)), pawn_order=(1, 0),
                          loyalties=(Loyalty.BRITISH, Loyalty.FRENCH))
    assert GameOptions.from_dict(options.to_dict()) == options


def test_the_same_seed_gives_the_same_game() -> None:
    assert new_game(player_names(6), 42) == new_game(player_names(6), 42)
    assert new_game(player_names(6), 42) != new_game(player_names(6), 43)


@pytest.mark.parametrize("title", [EventTitle.CABIN_FEVER, EventTitle.FACADE,
                                   EventTitle.CROWS_NEST])
def test_unverified_starred_cards_cannot_be_selected(title: EventTitle) -> None:
    options = GameOptions(starred=(EventTitle.ATLANTIS, EventTitle.EL_DORADO, title))
    with pytest.raises(SetupError) as caught:
        new_game(player_names(4), 1, options)
    assert caught.value.code == "setup/invalid"
    assert title.label in str(caught.value) and "not been verified" in str(caught.value)


@pytest.mark.parametrize(
    ("names", "options", "message"),
    [
        (["A"], None, "2 to 9 players"),
        ([f"P{i}" for i in range(10)], None, "2 to 9 players"),
        (["A", "A"], None, "different"),
        (["A", ""], None, "non-empty"),
        (["A", "B"], GameOptions(starred=(EventTitle.ATLANTIS,)), "exactly 3"),
        (["A", "B"], GameOptions(starred=(EventTitle.PISTOL, EventTitle.ATLANTIS,
                                          EventTitle.EL_DORADO)), "not a starred"),
        (["A", "B"], GameOptions(pawn_order=(0, 0)), "pawn_order"),
        (["A", "B"], GameOptions(vote_deck=(1, 2, 3)), "vote_deck"),
        (["A", "B"], GameOptions(loyalties=(Loyalty.BRITISH, Loyalty.BRITISH)), "loyalties"),
        (["A", "B", "C"], GameOptions(loyalties=(Loyalty.BRITISH, Loyalty.FRENCH,
                                                 Loyalty.FRENCH)), "Dutch"),
        (["A", "B"], GameOptions(event_deck=(EventTitle.SPANISH_ARMADA,)), "event_deck"),
    ],
)
def test_invalid_setups_raise_a_setup_error_saying_why(names: list[str],
                                                       options: GameOptions | None,
                                                       message: str) -> None:
    with pytest.raises(SetupError, match=message):
        new_game(names, 1, options)


def test_an_explicit_event_deck_must_end_with_the_armada() -> None:
    titles = cards_in_play(2, GameOptions().starred)
    deck = (EventTitle.SPANISH_ARMADA, *(t for t in titles if t is not EventTitle.SPANISH_ARMADA))
    with pytest.raises(SetupError, match="end with the Spanish Armada"):
        new_game(["A", "B"], 1, GameOptions(event_deck=deck))


def test_albatrosses_cannot_be_put_into_a_three_player_deck() -> None:
    titles = [*cards_in_play(4, GameOptions().starred)]
    titles.remove(EventTitle.SPANISH_ARMADA)
    deck = (*titles, EventTitle.SPANISH_ARMADA)
    with pytest.raises(SetupError):
        new_game(["A", "B", "C"], 1, GameOptions(event_deck=deck))
