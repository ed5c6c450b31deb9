"""Inbound processing on PostgreSQL: what is applied, what is never treated as a command."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlmodel import Session

import engine
from pbm import db, games, inbound
from pbm.models import Game, Player
from tests.workers import helpers as h
from tests.workers.conftest import Env, apply

DOMAIN = "tortuga.test"


@pytest.fixture
def setup(env: Env, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    env.values["INBOUND_PER_SENDER_PER_HOUR"] = "5"
    apply(env, monkeypatch)
    yield env


def game_and_reply(body: str | None = None, **headers: str) -> tuple[int, int, str, int]:
    """A started 3-player game and a stored reply from the seat that must act first."""
    specs = h.email_players(3)
    game_id = h.new_game(specs)
    decision = h.pending(game_id)[0]
    seat, player = h.seat_row(game_id, decision.seat)
    command = str(decision.legal[0])
    raw = h.reply_email(player.email, seat.reply_token, body or command, DOMAIN,
                        headers=headers)
    return game_id, decision.seat, command, h.store_email(raw).id


def test_a_reply_is_applied_once_however_often_it_is_processed(setup: Env) -> None:
    game_id, seat, command, row_id = game_and_reply()

    outcomes = [str(inbound.process(row_id, h.utcnow())) for _ in range(3)]

    assert outcomes == ["done", "skipped", "skipped"]
    assert h.commands(game_id) == [(seat, command, f"inbound:{row_id}")]


@pytest.mark.parametrize("header", [
    {"Auto-Submitted": "auto-replied"},
    {"X-Autoreply": "yes"},
    {"Precedence": "bulk"},
    {"List-Id": "<pirates.lists.example.org>"},
])
def test_an_auto_reply_changes_nothing(setup: Env, header: dict[str, str]) -> None:
    game_id, _, _, row_id = game_and_reply(**header)
    before = len(h.outbox(game_id))

    assert str(inbound.process(row_id, h.utcnow())).startswith("ignored: automatic message")

    assert h.commands(game_id) == []
    assert len(h.outbox(game_id)) == before  # and nobody is answered


def test_a_bounce_marks_the_address_failing_and_changes_nothing(setup: Env) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs)
    [first] = h.outbox(game_id, to_address=specs[1].email)
    bounce = (
        f"From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n"
        f"To: bounces+{first.id}@{DOMAIN}\r\nSubject: Undelivered Mail Returned to Sender\r\n"
        "Message-ID: <bounce-1@mx.example.org>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
        "--B\r\nContent-Type: text/plain\r\n\r\nREVEAL 1\r\n"
        "--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx\r\n\r\n"
        f"Final-Recipient: rfc822; {specs[1].email}\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        "--B--\r\n").encode()
    row_id = h.store_email(bounce).id

    assert str(inbound.process(row_id, h.utcnow())).startswith("ignored: bounce")

    assert h.commands(game_id) == []
    assert h.player(first.player_id).email_failing
    assert any("bounced" in r.subject for r in h.outbox(kind="admin_alert"))


def test_a_stranger_using_a_players_reply_address_gets_nothing(setup: Env) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs)
    decision = h.pending(game_id)[0]
    seat, _ = h.seat_row(game_id, decision.seat)
    raw = h.reply_email("mallory@evil.example", seat.reply_token, str(decision.legal[0]), DOMAIN)
    before = len(h.outbox(game_id))

    outcome = str(inbound.process(h.store_email(raw).id, h.utcnow()))

    assert "is not the player of this seat" in outcome
    assert h.commands(game_id) == [] and len(h.outbox(game_id)) == before


def test_a_reply_from_a_player_whose_seat_was_given_away_meanwhile_plays_nothing(
        setup: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """Routed by its token, then the seat given to someone else before the game is locked:
    the reply is its former player's, and nothing of it is played for the newcomer."""
    game_id, seat, _, row_id = game_and_reply()
    newcomer = games.PlayerSpec("Zed", f"zed.{row_id}@example.org")
    lock_game = games.lock_game

    def seat_replaced_first(session: Session, locked_id: int) -> Game:
        db.run_transaction(lambda other: games.replace_seat(other, game_id, seat, newcomer,
                                                            now=h.utcnow()))
        return lock_game(session, locked_id)

    monkeypatch.setattr(games, "lock_game", seat_replaced_first)

    outcome = str(inbound.process(row_id, h.utcnow()))

    assert outcome == "ignored: sender " + h.inbound_row(row_id).sender + \
        " is no longer the player of this seat"
    assert h.commands(game_id) == []


def test_a_reply_not_understood_changes_nothing_and_is_answered(setup: Env) -> None:
    game_id, seat, _, row_id = game_and_reply("reveel the fourth thingy pls")

    assert str(inbound.process(row_id, h.utcnow())) == "done"

    assert h.commands(game_id) == []
    [answer] = h.outbox(game_id, seat=seat, kind="reply")
    assert answer.text  # says what was not understood and what is awaited


def test_our_own_messages_are_never_commands(setup: Env) -> None:
    game_id, _, _, _ = game_and_reply()
    looped = h.reply_email(f"play@{DOMAIN}", "whatever1", "REVEAL 1", DOMAIN)

    assert str(inbound.process(h.store_email(looped).id, h.utcnow())).startswith("ignored")
    assert h.commands(game_id) == []


def test_a_message_that_crashes_processing_is_quarantined_and_the_admin_told(
        setup: Env) -> None:
    game_id, _, _, row_id = game_and_reply()
    with db.session_scope() as session:  # a broken snapshot makes processing fail
        session.execute(sa.update(Game).where(Game.id == game_id).values(state_json="{oops"))

    assert str(inbound.process(row_id, h.utcnow())) == "quarantined"

    row = h.inbound_row(row_id)
    assert row.status == "quarantined" and row.error and row.raw  # kept for the admin
    assert any(f"#{row_id}" in r.subject for r in h.outbox(kind="admin_alert"))


def test_a_reply_to_a_question_closed_since_it_was_sent_changes_nothing(setup: Env) -> None:
    game_id, seat, _, row_id = game_and_reply()
    with db.session_scope() as session:  # the reply was received before the question opened
        session.execute(sa.text("UPDATE inbound_messages SET received_at = received_at - "
                                "interval '1 hour' WHERE id = :id"), {"id": row_id})

    assert str(inbound.process(row_id, h.utcnow())) == "done"

    assert h.commands(game_id) == []
    assert h.outbox(game_id, seat=seat, kind="reply")


def test_a_flood_from_one_sender_is_kept_but_not_acted_on(setup: Env) -> None:
    game_id, seat, _, _ = game_and_reply()
    seat_row, player = h.seat_row(game_id, seat)
    ids = [h.store_email(h.reply_email(player.email, seat_row.reply_token, "STATUS", DOMAIN)).id
           for _ in range(7)]

    outcomes = [str(inbound.process(i, h.utcnow())) for i in ids]

    assert outcomes[-1].startswith("ignored: rate limited")
    assert sum(o == "done" for o in outcomes) == 4  # 5 per hour, the first reply counts too


def test_sms_goes_to_the_game_that_texted_the_player_last(setup: Env) -> None:
    sam = games.PlayerSpec("Sam", phone="+15557771234", channel="sms")
    first = h.new_game([sam, *h.email_players(2)], seed=h.seed_opening_with(
        ["Sam", "Ann", "Bob"], 0))
    second = h.new_game([sam, *h.email_players(2)], seed=h.seed_opening_with(
        ["Sam", "Ann", "Bob"], 0))
    command = str(h.pending(second)[0].legal[0])

    row = h.store_sms("+15557771234", "+15005550006", command)
    assert str(inbound.process(row.id, h.utcnow())) == "done"

    assert h.commands(first) == []
    assert h.commands(second) == [(0, command, f"inbound:{row.id}")]


def test_stop_and_start_by_sms_are_mirrored_in_the_database(setup: Env) -> None:
    sam = games.PlayerSpec("Sam", email="sam@example.org", phone="+15557775555", channel="sms")
    game_id = h.new_game([sam, *h.email_players(2)])

    inbound.process(h.store_sms("+15557775555", "+15005550006", "STOP").id, h.utcnow())
    [row] = h.outbox(game_id, seat=0)[:1]
    stopped = h.player(row.player_id)
    inbound.process(h.store_sms("+15557775555", "+15005550006", "start").id,
                    h.utcnow() + timedelta(seconds=1))
    started = h.player(row.player_id)

    assert stopped.sms_opted_out and stopped.preferred_channel == "email"
    assert not started.sms_opted_out
    assert h.commands(game_id) == []
    with db.session_scope(write=False) as session:
        assert session.get(Player, row.player_id).phone == "+15557775555"


def test_stop_by_email_changes_nothing_and_says_what_to_write_instead(setup: Env) -> None:
    """Issue 37: "stop" in an email was answered "Done: STOP" (it silently stopped the
    player's text messages) while the game went on as before."""
    specs = h.email_players(3)
    specs[0] = games.PlayerSpec(specs[0].name, specs[0].email, phone="+15557776666")
    game_id = h.new_game(specs)
    seat, player = h.seat_row(game_id, 0)
    raw = h.reply_email(str(player.email), seat.reply_token, "stop", DOMAIN)

    assert str(inbound.process(h.store_email(raw).id, h.utcnow())) == "done"

    assert not h.player(player.id).sms_opted_out  # nothing changed
    [answer] = h.outbox(game_id, seat=0, kind="reply")
    assert "Done: STOP" not in answer.text
    flat = " ".join(answer.text.split())
    assert "text STOP" in flat and "AWAY" in flat, answer.text  # what to write instead


def test_reveal_naming_the_only_legal_card_of_a_forced_choice_is_taken_as_choose(
        setup: Env) -> None:
    """Issue 37: "reveal 3" while forced to choose between cards 3 and 4 can only mean
    CHOOSE 3; it was refused on the verb ("REVEAL is not what is asked of you now")."""
    specs = h.email_players(3)
    game_id = h.new_game(specs)
    for _ in range(10):  # the starting treasure placed, a turn with FORCE on the menu
        first = h.pending(game_id)[0]
        forces = [c for c in first.legal if isinstance(c, engine.Force)]
        command = forces[0] if forces else first.legal[0]
        with db.session_scope() as session:
            assert games.submit(session, game_id, first.seat, [str(command)], origin="test",
                                now=h.utcnow()).ok
        if forces:
            force = forces[0]
            break
    target = force.target
    [choose] = [d for d in h.pending(game_id) if d.seat == target]
    assert choose.kind is engine.DecisionKind.CHOOSE
    a = force.positions[0]
    seat, player = h.seat_row(game_id, target)
    raw = h.reply_email(str(player.email), seat.reply_token, f"reveal {a}", DOMAIN)

    assert str(inbound.process(h.store_email(raw).id, h.utcnow())) == "done"

    assert h.commands(game_id)[-1][:2] == (target, f"CHOOSE {a}")


def test_a_vote_changed_after_the_vote_closed_is_told_the_vote_had_closed(
        setup: Env) -> None:
    """Issue 37: "change my vote to 1" after the vote closed got the generic refusal."""
    specs = h.email_players(4)
    game_id = h.new_game(specs)
    voters: list[int] = []
    for _ in range(200):  # on to a vote, and every vote cast (it closes)
        pending = h.pending(game_id)
        votes = [d for d in pending if d.kind is engine.DecisionKind.VOTE]
        if votes:
            voters = [d.seat for d in votes]
            for d in votes:
                with db.session_scope() as session:
                    games.submit(session, game_id, d.seat, [str(d.legal[0])], origin="test",
                                 now=h.utcnow())
            break
        first = pending[0]
        calls = [c for c in first.legal if isinstance(c, engine.Attack | engine.Mutiny |
                                                          engine.Brawl)]
        command = calls[0] if calls else first.legal[0]
        with db.session_scope() as session:
            assert games.submit(session, game_id, first.seat, [str(command)], origin="test",
                                now=h.utcnow()).ok
    assert voters and not [d for d in h.pending(game_id)
                           if d.kind is engine.DecisionKind.VOTE and d.seat == voters[0]]
    seat, player = h.seat_row(game_id, voters[0])
    done = len(h.commands(game_id))
    raw = h.reply_email(str(player.email), seat.reply_token, "change my vote to 1", DOMAIN)

    assert str(inbound.process(h.store_email(raw).id, h.utcnow())) == "done"

    assert len(h.commands(game_id)) == done  # nothing played
    [answer] = h.outbox(game_id, seat=voters[0], kind="reply")
    assert "the vote had already closed" in " ".join(answer.text.split()), answer.text
