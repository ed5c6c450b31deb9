"""The timeout policy (engine/defaults.py): what is played for a silent seat, and that it
favours no team."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from engine import (
    POLICY,
    DecisionKind,
    EventTitle,
    GameState,
    NotYourDecisionError,
    Vote,
    apply,
    apply_default,
    default_command,
    describe_default,
    new_game,
    pending,
    replay,
)
from engine.simulate import player_names, random_command
from engine.views import team_totals
from tests.engine.helpers import check_invariants, game, of_kind, play
from tests.engine.test_event_cards import kept_titles

LOM = EventTitle.LETTER_OF_MARQUE


def test_every_kind_of_decision_has_a_written_default_with_a_reason() -> None:
    assert set(POLICY) == set(DecisionKind)
    for rule in POLICY.values():
        assert rule.plays and rule.table and rule.short and rule.why


def test_a_timed_out_turn_looks_at_two_cards_and_changes_nothing_on_the_board() -> None:
    s = game(5, turn=0)
    after, events = apply_default(s, 0)
    assert str(default_command(s, 0)).startswith("VIEW ")
    assert after.lines == s.lines and after.treasure == s.treasure and after.row == s.row
    assert events[0].kind == "timeout.played" and "looked at two Event cards" in events[0].text


def test_a_timed_out_vote_plays_one_card_of_the_hand_and_keeps_el_dorado_secret() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], kept={1: [EventTitle.EL_DORADO]}, turn=0)
    s, _ = play(s, (0, "ATTACK"))
    chosen = default_command(s, 1)
    assert isinstance(chosen, Vote) and len(chosen.cards) == 1
    after, events = apply_default(s, 1)
    assert kept_titles(after, 1) == [EventTitle.EL_DORADO]
    notice = events[0]
    assert notice.audience is None and notice.data["command"] is None
    assert "VOTE" not in notice.text and "one Vote card of their hand" in notice.text


def test_a_timed_out_letter_of_marque_is_saved_and_nobody_moves() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3], tortuga=[4], row=[LOM, None, None, None, None], turn=0)
    s, _ = play(s, (0, "REVEAL 1"))
    after, _ = apply_default(s, 0)
    assert kept_titles(after, 0) == [LOM] and after.lines == s.lines


def test_a_timed_out_fountain_owner_is_marooned_and_keeps_the_fountain() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3], tortuga=[4],
             kept={2: [EventTitle.FOUNTAIN_OF_YOUTH]}, turn=0)
    s, _ = play(s, (0, "MAROON 3"))
    assert pending(s)[0].kind is DecisionKind.FOUNTAIN
    after, _ = apply_default(s, 2)
    assert 2 in after.lines["TORTUGA"]
    assert kept_titles(after, 2) == [EventTitle.FOUNTAIN_OF_YOUTH]


def test_a_timed_out_captain_takes_no_treasure_after_a_successful_attack() -> None:
    from engine.cards import Symbol
    from engine.testing import vote_cards

    cannon, torch, deck_torch = (vote_cards(Symbol.CANNON)[0], *vote_cards(Symbol.TORCH)[:2])
    s = game(5, fd=[0, 1], jr=[2, 3, 4], turn=0, hands={0: [cannon], 1: [torch]},
             vote_deck_top=[deck_torch])
    s, _ = play(s, (0, "ATTACK"), (0, "VOTE 1"), (1, "VOTE 1"))
    assert pending(s)[0].kind is DecisionKind.TAKE
    after, events = apply_default(s, 0)
    assert after.treasure == s.treasure and of_kind(events, "treasure.declined")
    assert "TAKE NONE" in events[0].text


def test_a_timed_out_place_draws_the_hold_from_the_game_seed_and_replays_the_same() -> None:
    holds = set()
    for seed in range(40):
        s = new_game(player_names(4), seed)
        seat = pending(s)[0].seat
        preview = default_command(s, seat)
        after, _ = apply(s, seat, "TIMEOUT")
        assert after.rng_counter == s.rng_counter + 1  # the draw is part of the state
        assert str(preview) in of_kind(_events(s, seat), "timeout.played")[0].text
        assert replay(player_names(4), seed, None, [(seat, "TIMEOUT")]) == after
        holds.add(str(preview))
    assert holds == {"PLACE BRITISH", "PLACE FRENCH"}


def _events(s: GameState, seat: int) -> list:  # type: ignore[type-arg]
    return apply_default(s, seat)[1]


def test_the_reminder_text_names_this_decisions_default_in_the_players_words() -> None:
    s = new_game(player_names(4), 3)
    seat = pending(s)[0].seat
    text = describe_default(s, seat)
    assert text.startswith("your ship's starting treasure goes into a hold drawn at random")
    assert str(default_command(s, seat)) in text and "VIEW" not in text


def test_there_is_no_default_for_a_seat_that_owes_nothing() -> None:
    with pytest.raises(NotYourDecisionError):
        default_command(game(5, turn=0), 3)
    with pytest.raises(NotYourDecisionError):
        apply(game(5, turn=0), 3, "TIMEOUT")


# ---------------------------------------------------------------- the property

GAMES = 2_000
ACTION_TIMEOUT_RATE = 0.5  # the other half of turns are played, or no game would end


@dataclass
class Tally:
    """Treasure moved into each team's holds by defaults, and kept cards defaults spent."""

    placed: list[int] = field(default_factory=lambda: [0, 0])  # British, French by PLACE
    gained: list[int] = field(default_factory=lambda: [0, 0])  # by any default
    taken_by_default: int = 0
    kept_spent: int = 0
    defaults: int = 0


def _silent_game(n: int, seed: int, tally: Tally) -> GameState:
    """A game where every decision but half the turn actions times out."""
    rng = random.Random(seed)
    state = new_game(player_names(n), seed)
    while not state.over:
        decision = rng.choice(pending(state))
        seat = decision.seat
        if decision.kind is DecisionKind.ACTION and rng.random() >= ACTION_TIMEOUT_RATE:
            state, _ = apply(state, seat, random_command(rng, decision))
            continue
        before = team_totals(state)
        after, _ = apply(state, seat, "TIMEOUT")
        gained = team_totals(after)
        tally.defaults += 1
        for team in (0, 1):
            delta = gained[team] - before[team]
            tally.gained[team] += max(delta, 0)
            if decision.kind is DecisionKind.PLACE:
                tally.placed[team] += delta
            if decision.kind is DecisionKind.TAKE:
                tally.taken_by_default += abs(delta)
        if not set(state.kept[seat]) <= set(after.kept[seat]):
            tally.kept_spent += 1
        state = after
    return state


@pytest.mark.slow
def test_defaults_favour_no_team_over_two_thousand_silent_games() -> None:
    # Bound: British share of the treasure placed by timed-out PLACE decisions within
    # 0.45-0.55 (4,000 placements: about 6 standard deviations either side of a fair coin),
    # and the share of every treasure gain that follows a default within 0.45-0.55 too.
    tally = Tally()
    for i in range(GAMES):
        final = _silent_game(2 + i % 8, 500_000 + i, tally)
        if i % 97 == 0:
            check_invariants(final)
    placed_share = tally.placed[0] / sum(tally.placed)
    gained_share = tally.gained[0] / sum(tally.gained)
    print(f"\n{GAMES} games, {tally.defaults} defaults: PLACE British share "
          f"{placed_share:.3f} of {sum(tally.placed)}; British share of all gains after a "
          f"default {gained_share:.3f} of {sum(tally.gained)}")
    assert sum(tally.placed) == 2 * GAMES
    assert 0.45 <= placed_share <= 0.55
    assert 0.45 <= gained_share <= 0.55
    assert tally.taken_by_default == 0
    assert tally.kept_spent == 0
