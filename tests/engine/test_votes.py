"""Votes: the rulebook's Attack and Brawl examples, Mutiny, and the vote procedure."""

from __future__ import annotations

import pytest

from engine import (
    DecisionKind,
    Hold,
    IllegalCommandError,
    NotYourDecisionError,
    pending,
    public_view,
    view,
)
from engine.cards import VOTE_DECK, Symbol
from tests.engine.helpers import VoteIds, check_invariants, game, legal_texts, of_kind, play, result

C, T, W = Symbol.CANNON, Symbol.TORCH, Symbol.WATER
B, F = Symbol.BRITISH, Symbol.FRENCH
SKULL, HELM = Symbol.SKULL, Symbol.HELM


def attack(ids: VoteIds, played: list[Symbol], deck: Symbol, **treasure: int):  # type: ignore[no-untyped-def]
    """Seat 0 captains the Flying Dutchman with the first len(played) seats aboard; each
    plays one card with the given top symbol; the deck adds one with ``deck``."""
    crew = list(range(len(played)))
    s = game(5, fd=crew, jr=[s for s in range(len(played), 5)],
             treasure=treasure or None, turn=0,
             hands={seat: [ids.get(top=sym)] for seat, sym in zip(crew, played, strict=True)},
             vote_deck_top=[ids.get(top=deck)])
    return play(s, (0, "ATTACK"), *((seat, "VOTE 1") for seat in crew))


def test_attack_fails_when_water_cancels_the_only_torch(ids: VoteIds) -> None:
    # Rulebook example: two cannons, one torch and one water: no torch survives.
    s, events = attack(ids, [C, C, T], deck=W)
    assert result(events) == "FAILURE"
    assert s.treasure["GALLEON"] == 4
    assert pending(s)[0].kind is DecisionKind.ACTION and pending(s)[0].seat == 1


def test_attack_succeeds_with_one_cannon_and_a_torch_left_after_the_water(ids: VoteIds) -> None:
    # Rulebook example: one cannon, two torches, one water: one torch survives.
    s, events = attack(ids, [C, T, T], deck=W)
    assert result(events) == "SUCCESS"
    (decision,) = pending(s)
    assert (decision.seat, decision.kind) == (0, DecisionKind.TAKE)
    assert {str(c) for c in decision.legal} == {"TAKE TO BRITISH", "TAKE TO FRENCH",
                                               "TAKE NONE"}
    s, _ = play(s, (0, "TAKE TO FRENCH"))
    assert s.treasure["GALLEON"] == 3 and s.treasure["FD_FRENCH"] == 1


def test_a_captain_may_decline_the_treasure_of_a_successful_attack(ids: VoteIds) -> None:
    # Seed rulebook, Attack: on success the Captain *may* take 1 treasure.
    s, events = attack(ids, [C, T], deck=C)
    assert result(events) == "SUCCESS"
    assert "TAKE NONE" in legal_texts(s, 0)
    before = dict(s.treasure)
    s, events = play(s, (0, "TAKE NONE"))
    assert s.treasure == before
    assert [e.text for e in of_kind(events, "treasure.declined")] == ["P1 took no treasure."]
    assert pending(s)[0].kind is DecisionKind.ACTION and pending(s)[0].seat == 1


def test_a_captain_may_decline_to_plunder_the_other_ship_too(ids: VoteIds) -> None:
    s, _ = attack(ids, [C, T], deck=C, GALLEON=0, JR_FRENCH=6)
    assert legal_texts(s, 0) == {"TAKE FRENCH TO BRITISH", "TAKE FRENCH TO FRENCH",
                                 "TAKE NONE"}
    s, _ = play(s, (0, "TAKE NONE"))
    assert s.treasure["JR_FRENCH"] == 6


def test_attack_with_extra_cannons_and_torches_still_takes_only_one_treasure(
        ids: VoteIds) -> None:
    # Rulebook example: two cannons and two torches succeed, for a single treasure.
    s, events = attack(ids, [C, C, T], deck=T)
    assert result(events) == "SUCCESS"
    s, _ = play(s, (0, "TAKE TO BRITISH"))
    assert s.treasure["GALLEON"] == 3
    assert pending(s)[0].kind is DecisionKind.ACTION


def test_attack_needs_a_cannon(ids: VoteIds) -> None:
    _, events = attack(ids, [T, T], deck=T)
    assert result(events) == "FAILURE"


def test_with_the_galleon_empty_the_attack_plunders_either_hold_of_the_other_ship(
        ids: VoteIds) -> None:
    s, events = attack(ids, [C, T], deck=T, GALLEON=0, JR_FRENCH=2, FD_BRITISH=4)
    assert result(events) == "SUCCESS"
    assert legal_texts(s, 0) == {"TAKE FRENCH TO BRITISH", "TAKE FRENCH TO FRENCH",
                                 "TAKE NONE"}
    s, _ = play(s, (0, "TAKE FRENCH TO FRENCH"))
    assert s.treasure["JR_FRENCH"] == 1 and s.treasure["FD_FRENCH"] == 1


def test_an_empty_other_ship_can_still_be_plundered(ids: VoteIds) -> None:
    s = game(5, fd=[0, 1, 2, 3, 4], jr=[], treasure={"GALLEON": 0, "JR_BRITISH": 6}, turn=0,
             hands={i: [ids.get(top=C if i == 0 else T)] for i in range(5)},
             vote_deck_top=[ids.get(top=T)])
    s, _ = play(s, (0, "ATTACK"), *((i, "VOTE 1") for i in range(5)))
    assert legal_texts(s, 0) == {"TAKE BRITISH TO BRITISH", "TAKE BRITISH TO FRENCH",
                                 "TAKE NONE"}


def test_a_successful_attack_with_nothing_to_take_moves_nothing(ids: VoteIds) -> None:
    # OQ-9: allowed; success simply moves nothing.
    s, events = attack(ids, [C, T], deck=T, GALLEON=0, FD_BRITISH=6)
    assert result(events) == "SUCCESS"
    assert of_kind(events, "attack.nothing")
    assert pending(s)[0].kind is DecisionKind.ACTION


def test_brawl_goes_to_the_double_french_flag_card_over_a_single_british_flag(
        ids: VoteIds) -> None:
    # Rulebook example: one British flag against the special card with two French flags.
    special = ids.get(middle=F, special=True)
    assert VOTE_DECK[special].middle == (F, F)
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], turn=4,
             hands={4: [ids.get(middle=B)]}, vote_deck_top=[special])
    s, events = play(s, (4, "BRAWL"), (4, "VOTE 1"))
    assert result(events) == "FRENCH"
    assert (s.treasure["TORTUGA_BRITISH"], s.treasure["TORTUGA_FRENCH"]) == (0, 2)


def test_a_tied_brawl_leaves_one_treasure_in_each_area(ids: VoteIds) -> None:
    s = game(5, fd=[0, 1], jr=[2], tortuga=[3, 4], turn=3,
             treasure={"TORTUGA_FRENCH": 2, "TORTUGA_BRITISH": 0},
             hands={3: [ids.get(middle=B, special=True)], 4: [ids.get(middle=F)]},
             vote_deck_top=[ids.get(middle=F)])
    # two British flags on the special card against two single French flags
    s, events = play(s, (3, "BRAWL"), (4, "VOTE 1"), (3, "VOTE 1"))
    assert result(events) == "TIE"
    assert (s.treasure["TORTUGA_BRITISH"], s.treasure["TORTUGA_FRENCH"]) == (1, 1)


def test_a_brawl_majority_moves_both_tortuga_treasures(ids: VoteIds) -> None:
    s = game(5, fd=[0, 1], jr=[2], tortuga=[3, 4], turn=3,
             treasure={"TORTUGA_FRENCH": 2, "TORTUGA_BRITISH": 0},
             hands={3: [ids.get(middle=B)], 4: [ids.get(middle=F)]},
             vote_deck_top=[ids.get(middle=B), ids.get(middle=F)])
    # three cards: British, French and the deck's British: British win
    s, events = play(s, (3, "BRAWL"), (4, "VOTE 1"), (3, "VOTE 1"))
    assert result(events) == "BRITISH"
    assert (s.treasure["TORTUGA_BRITISH"], s.treasure["TORTUGA_FRENCH"]) == (2, 0)


def test_a_mutiny_with_more_skulls_maroons_the_captain_and_the_first_mate_takes_over(
        ids: VoteIds) -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=1,
             hands={1: [ids.get(bottom=SKULL)], 2: [ids.get(bottom=SKULL)]},
             vote_deck_top=[ids.get(bottom=HELM)])
    s, _ = play(s, (1, "MUTINY"))
    assert {d.seat for d in pending(s)} == {1, 2}  # the Captain does not vote
    with pytest.raises(NotYourDecisionError):
        play(s, (0, "VOTE 1"))
    s, events = play(s, (2, "VOTE 1"), (1, "VOTE 1"))
    assert result(events) == "SUCCESS"
    assert s.lines["FD"] == [1, 2] and s.lines["TORTUGA"] == [0]


def test_a_tied_mutiny_does_nothing(ids: VoteIds) -> None:
    s = game(5, fd=[0, 1], jr=[2, 3, 4], turn=1,
             hands={1: [ids.get(bottom=SKULL)]}, vote_deck_top=[ids.get(bottom=HELM)])
    s, events = play(s, (1, "MUTINY"), (1, "VOTE 1"))
    assert result(events) == "FAILURE"
    assert s.lines["FD"] == [0, 1]


def test_participants_answer_secretly_in_any_order_and_only_once(ids: VoteIds) -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0)
    s, events = play(s, (0, "ATTACK"))
    (called,) = of_kind(events, "vote.called")
    assert called.data["participants"] == [0, 1, 2]
    s, events = play(s, (2, "VOTE 3"))
    assert [e.audience for e in of_kind(events, "vote.cast")] == [None, frozenset({2})]
    assert "cards" not in of_kind(events, "vote.cast")[0].data
    vote = public_view(s).vote
    assert vote is not None and vote.answered == (2,) and vote.participants == (0, 1, 2)
    with pytest.raises(NotYourDecisionError):
        play(s, (2, "VOTE 1"))
    check_invariants(s)
    s, events = play(s, (1, "VOTE 1"), (0, "VOTE 2"))
    assert of_kind(events, "vote.result")
    check_invariants(s)


def test_after_a_vote_cards_go_under_the_deck_and_each_participant_draws_one(
        ids: VoteIds) -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0)
    deck_top = s.vote_deck[0]
    played = {s.hands[0][0], s.hands[1][0], s.hands[2][0], deck_top}
    s, events = play(s, (0, "ATTACK"), (0, "VOTE 1"), (1, "VOTE 1"), (2, "VOTE 1"))
    assert set(s.vote_deck[-4:]) == played
    assert [len(h) for h in s.hands] == [3, 3, 3, 3, 3]
    drawn = of_kind(events, "vote_card.drawn")
    assert sorted(e.data["seat"] for e in drawn) == [0, 1, 2]
    assert all(e.audience == frozenset({e.data["seat"]}) for e in drawn)


def test_the_result_shows_the_symbols_without_saying_who_played_them(ids: VoteIds) -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0)
    _, events = play(s, (0, "ATTACK"), (0, "VOTE 1"), (1, "VOTE 1"), (2, "VOTE 1"))
    (res,) = of_kind(events, "vote.result")
    assert res.audience is None
    assert len(res.data["symbols"]) == 4 and len(res.data["revealed"]) == 4
    assert not {"seat", "seats", "cards", "card"} & set(res.data)


def test_a_seat_without_vote_cards_does_not_take_part_but_may_still_call(ids: VoteIds) -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0, hands={0: [], 2: []})
    s, events = play(s, (0, "ATTACK"))
    assert of_kind(events, "vote.called")[0].data["participants"] == [1]
    s, events = play(s, (1, "VOTE 1"))
    assert of_kind(events, "vote.result")
    assert len(s.hands[0]) == 0 and len(s.hands[1]) == 3
    check_invariants(s)


def test_a_vote_nobody_can_join_is_decided_by_the_deck_card_alone(ids: VoteIds) -> None:
    s = game(5, fd=[0, 1], jr=[2, 3], tortuga=[4], turn=4, hands={4: []},
             vote_deck_top=[ids.get(middle=B)])
    s, events = play(s, (4, "BRAWL"))
    assert result(events) == "BRITISH"
    assert pending(s)[0].kind is DecisionKind.ACTION


def test_a_double_symbol_card_counts_two_in_every_section() -> None:
    special = [c for c in VOTE_DECK if c.special]
    assert len(special) == 2
    for card in special:
        assert len(card.top) == len(card.middle) == len(card.bottom) == 2


def test_the_regular_vote_cards_follow_the_published_percentages() -> None:
    regular = [c for c in VOTE_DECK if not c.special]
    tops = [c.top[0] for c in regular]
    assert (tops.count(C), tops.count(T), tops.count(W)) == (9, 12, 9)
    assert sum(c.middle[0] is B for c in regular) == 15
    assert sum(c.bottom[0] is SKULL for c in regular) == 15


def test_take_is_offered_only_into_the_captains_own_ship(ids: VoteIds) -> None:
    s, _ = attack(ids, [C, T], deck=T)
    takes = [c for c in pending(s)[0].legal if str(c) != "TAKE NONE"]
    assert all(c.source is None and c.to in Hold for c in takes)  # type: ignore[attr-defined]


def test_a_seat_may_change_its_secret_vote_while_the_vote_is_open(ids: VoteIds) -> None:
    # Issue 25: a later answer from the same seat replaces its vote until the vote closes.
    cannon, torch, water = ids.get(top=C), ids.get(top=T), ids.get(top=W)
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0,
             hands={0: [ids.get(top=C)], 1: [ids.get(top=T)], 2: [water, cannon, torch]},
             vote_deck_top=[ids.get(top=C)])
    s, _ = play(s, (0, "ATTACK"), (2, "VOTE 1"))
    assert s.hands[2] == [cannon, torch]
    serial, answered = s.stage_serial, public_view(s).vote
    s, events = play(s, (2, "REVOTE 3"))
    assert s.hands[2] == [water, cannon]  # the water card is back in its place
    assert [(e.kind, e.audience) for e in events] == [("vote.changed", frozenset({2}))]
    assert s.stage_serial == serial and public_view(s).vote == answered
    assert not of_kind(events, "vote.cast")  # the table hears nothing
    check_invariants(s)
    s, events = play(s, (0, "VOTE 1"), (1, "VOTE 1"))
    assert result(events) == "SUCCESS"  # two cannons and two torches, no water


def test_a_vote_cannot_be_changed_by_a_seat_that_has_not_voted_or_once_it_closed(
        ids: VoteIds) -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0)
    s, _ = play(s, (0, "ATTACK"), (2, "VOTE 1"))
    with pytest.raises(NotYourDecisionError):
        play(s, (1, "REVOTE 2"))
    with pytest.raises(IllegalCommandError, match="already your vote"):
        play(s, (2, "REVOTE 1"))
    with pytest.raises(IllegalCommandError):
        play(s, (2, "REVOTE 4"))
    s, _ = play(s, (1, "VOTE 1"), (0, "VOTE 1"))
    with pytest.raises(NotYourDecisionError):
        play(s, (2, "REVOTE 2"))


def test_the_seat_view_shows_its_own_cast_vote_numbered_as_its_prompt_was(
        ids: VoteIds) -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0)
    hand = list(s.hands[2])
    s, _ = play(s, (0, "ATTACK"), (2, "VOTE 2"))
    cast = view(s, 2).to_dict()["cast_vote"]
    assert cast["cards"] == [2] and [c["id"] for c in cast["hand"]] == hand
    assert view(s, 1).to_dict()["cast_vote"] is None
    assert view(s, 0).to_dict()["cast_vote"] is None


def test_random_games_with_changed_votes_replay_to_the_same_state() -> None:
    # Seed + command log replay to the same state, changed votes included.
    import random

    from engine import apply, new_game, replay, to_json
    from engine.simulate import random_command
    from engine.state import VoteStage
    from engine.votes import change_options

    changed = 0
    for seed in range(12):
        rng = random.Random(seed)
        names = ["A", "B", "C", "D", "E"][: 3 + seed % 3]
        s = new_game(names, seed)
        log: list[tuple[int, object]] = []
        for _ in range(250):
            if s.over:
                break
            voters = s.stage.answered() if isinstance(s.stage, VoteStage) else ()
            if voters and rng.random() < 0.5:
                seat = rng.choice(voters)
                options = change_options(s, seat)
                if options:
                    command: object = rng.choice(options)
                    changed += 1
                    s, _ = apply(s, seat, command)  # type: ignore[arg-type]
                    log.append((seat, command))
                    check_invariants(s)
                    continue
            decision = rng.choice(pending(s))
            command = random_command(rng, decision)
            s, _ = apply(s, decision.seat, command)  # type: ignore[arg-type]
            log.append((decision.seat, command))
        assert to_json(replay(names, seed, None, log)) == to_json(s)  # type: ignore[arg-type]
    assert changed > 10
