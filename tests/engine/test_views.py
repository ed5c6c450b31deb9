"""What each seat may know: views, event audiences, and the JSON forms for templates."""

from __future__ import annotations

import json

from engine import EventTitle, Loyalty, public_view, view
from engine.simulate import random_game
from tests.engine.helpers import game, of_kind, play


def test_a_seat_sees_its_own_loyalty_hand_and_peeks_and_nobody_elses() -> None:
    s = game(5, turn=0)
    s, _ = play(s, (0, "VIEW 1 2"))
    mine, theirs = view(s, 0), view(s, 1)
    assert mine.loyalty is s.loyalties[0] and theirs.loyalty is s.loyalties[1]
    assert [c.id for c in mine.hand] == s.hands[0]
    assert set(mine.peeks) == {1, 2} and theirs.peeks == {}
    assert mine.public == theirs.public == public_view(s)
    assert public_view(s).loyalties is None and public_view(s).winner is None


def test_hand_cards_are_numbered_as_vote_expects_with_all_three_sections() -> None:
    s = game(4, turn=0)
    hand = view(s, 0).hand
    assert [c.number for c in hand] == [1, 2, 3]
    assert all(c.top and c.middle and c.bottom and c.text for c in hand)


def test_the_public_view_shows_the_board_but_not_the_secrets() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3], tortuga=[4], kept={3: [EventTitle.ALBATROSS]},
             discard=[EventTitle.PISTOL], treasure={"FD_BRITISH": 2}, turn=0)
    p = public_view(s)
    assert p.ships[0].line == (0, 1, 2) and p.ships[0].british == 2
    assert p.tortuga == (4,) and p.galleon == 4
    assert p.players[3].kept == (EventTitle.ALBATROSS,)
    assert p.discard == (EventTitle.PISTOL,)
    assert p.players[4].hand_size == 3 and p.status == "playing"
    assert p.awaiting == ((0, "ACTION"),) and p.turn_seat == 0
    text = json.dumps(p.to_dict())
    assert "loyalt" not in text.replace('"loyalties": null', "")


def test_a_vote_in_progress_shows_who_has_answered_but_not_what() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0)
    s, _ = play(s, (0, "ATTACK"), (1, "VOTE 2"))
    vote = public_view(s).vote
    assert vote is not None and vote.answered == (1,)
    assert "played" not in json.dumps(public_view(s).to_dict())


def test_an_atlantis_order_is_known_only_to_its_owner() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3], tortuga=[4], kept={1: [EventTitle.ATLANTIS]}, turn=0)
    s, _ = play(s, (1, "ATLANTIS"))
    assert view(s, 1).atlantis_ordered and not view(s, 0).atlantis_ordered
    assert "atlantis_ordered" not in json.dumps(public_view(s).to_dict())


def test_at_the_end_every_loyalty_and_the_winner_are_public() -> None:
    final, _ = random_game(6, 3)
    p = public_view(final)
    assert p.status == "over" and p.winner in (Loyalty.BRITISH, Loyalty.FRENCH)
    assert p.loyalties == tuple(final.loyalties)


def test_private_events_name_their_only_audience() -> None:
    s = game(5, fd=[0, 1, 2], jr=[3, 4], turn=0)
    s, events = play(s, (0, "VIEW 1 2"))
    private = [e for e in events if e.audience is not None]
    assert private and all(e.audience == frozenset({0}) for e in private)
    assert all(e.visible_to(0) for e in events)
    assert not any(e.visible_to(1) for e in private)
    _, events = play(s, (1, "MUTINY"))
    assert of_kind(events, "vote.called")[0].audience is None


def test_views_and_events_are_json_ready() -> None:
    s = game(5, turn=0)
    s, events = play(s, (0, "VIEW 1 2"))
    json.dumps(view(s, 0).to_dict())
    json.dumps([e.to_dict() for e in events])
    json.dumps([d.to_dict() for d in view(s, 1).pending])
