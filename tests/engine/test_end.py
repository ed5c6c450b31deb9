"""The Spanish Armada, scoring, ties and sudden death (rules reference section 10)."""

from __future__ import annotations

from engine import EventTitle, Loyalty, pending, public_view, score
from engine.cards import EVENT_CARDS
from tests.engine.helpers import check_invariants, game, of_kind, play

ARMADA = EventTitle.SPANISH_ARMADA
ROW = [ARMADA, EventTitle.PISTOL, EventTitle.BLACK_SPOT, EventTitle.LETTER_OF_MARQUE,
       EventTitle.STORMY_SEAS]


def test_the_armada_ends_the_game_and_five_french_beat_three_british() -> None:
    # Rulebook example: French 3 on the Jolly Roger + 2 on Tortuga; British 2 on the
    # Flying Dutchman + 1 on the Jolly Roger.
    s = game(5, treasure={"JR_FRENCH": 3, "TORTUGA_FRENCH": 2, "TORTUGA_BRITISH": 0,
                          "FD_BRITISH": 2, "JR_BRITISH": 1}, row=ROW, turn=0)
    assert (score(s).british, score(s).french) == (3, 5)
    s, events = play(s, (0, "REVEAL 1"))
    assert s.over and s.winner is Loyalty.FRENCH
    assert score(s).over and score(s).winner is Loyalty.FRENCH
    (over,) = of_kind(events, "game.over")
    assert over.audience is None and over.data["loyalties"] == [x.value for x in s.loyalties]
    assert public_view(s).loyalties == tuple(s.loyalties)
    assert pending(s) == []


def test_galleon_treasure_counts_for_nobody() -> None:
    s = game(4, treasure={"GALLEON": 4, "FD_BRITISH": 2}, row=ROW, turn=0)
    assert (score(s).british, score(s).french, score(s).galleon) == (3, 1, 4)


def test_a_tie_in_an_odd_game_goes_to_the_dutch_player() -> None:
    s = game(3, treasure={"FD_BRITISH": 1, "JR_FRENCH": 1}, row=ROW, turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert s.over and s.winner is Loyalty.DUTCH


def test_a_tie_in_an_even_game_starts_sudden_death_without_the_armada() -> None:
    s = game(4, fd=[0, 1], jr=[2, 3], treasure={"FD_BRITISH": 1, "JR_FRENCH": 1},
             kept={1: [EventTitle.LETTER_OF_MARQUE], 2: [EventTitle.ALBATROSS]},
             discard=[EventTitle.PISTOL, EventTitle.BLACK_SPOT], row=ROW, deck=[], turn=0)
    armada = s.row[0]
    unrevealed_and_discarded = sorted([*(c for c in s.row[1:] if c is not None), *s.discard])
    s, events = play(s, (0, "REVEAL 1"))
    assert not s.over and s.sudden_death
    assert of_kind(events, "game.sudden_death")
    assert armada in s.box
    # discards and the unrevealed row cards were reshuffled; kept cards stay out
    new_cards = sorted([*(c for c in s.row if c is not None), *s.event_deck])
    assert new_cards == unrevealed_and_discarded
    assert sum(c is not None for c in s.row) == 5
    assert [EVENT_CARDS[c] for c in s.kept[1]] == [EventTitle.LETTER_OF_MARQUE]
    assert [EVENT_CARDS[c] for c in s.kept[2]] == [EventTitle.ALBATROSS]
    (decision,) = pending(s)
    assert decision.seat == 1  # play continues with the next turn
    check_invariants(s)


def test_in_sudden_death_the_first_team_to_take_the_lead_wins_at_once() -> None:
    s = game(4, fd=[0, 1], jr=[2, 3], treasure={"FD_BRITISH": 1, "JR_FRENCH": 1}, row=ROW,
             turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert s.sudden_death and not s.over
    s, events = play(s, (1, "SHIFT TO FRENCH"))
    assert s.over and s.winner is Loyalty.FRENCH
    assert "sudden death" in of_kind(events, "game.over")[0].text


def test_in_a_two_player_game_sudden_death_continues_where_play_left_off() -> None:
    s = game(2, fd=[0], jr=[1], treasure={"FD_BRITISH": 1, "JR_FRENCH": 1}, row=ROW, turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    assert s.sudden_death
    (decision,) = pending(s)
    assert (decision.seat, decision.context["action"]) == (0, 2)


def test_when_sudden_death_uses_up_row_and_deck_the_discards_are_dealt_again() -> None:
    # OQ-12.
    s = game(4, fd=[0, 1], jr=[2, 3], treasure={"FD_BRITISH": 1, "JR_FRENCH": 1},
             row=[None, None, EventTitle.EIGHT_BELLS, None, None], deck=[],
             discard=[EventTitle.PISTOL, EventTitle.BLACK_SPOT, EventTitle.STORMY_SEAS], turn=0)
    s = s.copy()
    s.sudden_death = True
    s.exhausted = True
    s, events = play(s, (0, "REVEAL 3"))
    assert of_kind(events, "event.reshuffled")
    dealt = sorted(EVENT_CARDS[c] for c in s.row if c is not None)
    assert dealt == sorted([EventTitle.PISTOL, EventTitle.BLACK_SPOT, EventTitle.STORMY_SEAS,
                            EventTitle.EIGHT_BELLS])
    assert s.discard == [] and s.event_deck == []
    check_invariants(s)


def test_nothing_happens_to_the_turn_order_when_the_armada_is_forced_on_someone() -> None:
    s = game(5, treasure={"FD_BRITISH": 2}, row=ROW, turn=0)
    s, _ = play(s, (0, "FORCE 1 2 3"), (2, "CHOOSE 1"))
    assert s.over and s.winner is Loyalty.BRITISH
