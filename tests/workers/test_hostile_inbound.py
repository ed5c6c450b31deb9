"""Hostile input in inbound processing on PostgreSQL: SAY limits counted before anything is
written, clean storage of NUL bytes, refusal (not quarantine) of mail that came by IMAP,
routing by the Message-IDs we sent, and the Authentication-Results setting."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from pbm import db, inbound
from pbm.models import GameEvent
from tests.fixtures.hostile import nested_multipart
from tests.workers import helpers as h
from tests.workers.conftest import Env, apply

DOMAIN = "tortuga.test"


@pytest.fixture
def setup(env: Env, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    env.values.update({"SAY_PER_REPLY": "3", "SAY_PER_HOUR": "5"})
    apply(env, monkeypatch)
    yield env


def talk_count(game_id: int) -> int:
    with db.session_scope(write=False) as session:
        return int(session.execute(sa.select(sa.func.count()).select_from(GameEvent).where(
            GameEvent.game_id == game_id, GameEvent.kind == "table.talk")).scalar_one())


def say_reply(game_id: int, seat: int, lines: list[str]) -> int:
    seat_row, player = h.seat_row(game_id, seat)
    raw = h.reply_email(player.email, seat_row.reply_token, "\r\n".join(lines), DOMAIN)
    return h.store_email(raw).id


def test_say_lines_are_limited_per_reply_and_per_hour(setup: Env) -> None:
    game_id = h.new_game(h.email_players(3))

    first = say_reply(game_id, 0, [f"SAY one {i}" for i in range(4)])
    assert str(inbound.process(first, h.utcnow())) == "done"
    second = say_reply(game_id, 0, [f"SAY two {i}" for i in range(4)])
    assert str(inbound.process(second, h.utcnow())) == "done"

    assert talk_count(game_id) == 5  # 3 of the first reply, then 2 left in the hour
    replies = h.outbox(game_id, seat=0, kind="reply")
    assert "SAY one 3" in replies[0].text and "not relayed" in replies[0].text
    assert "SAY two 2 (and 1 more SAY lines)" in replies[1].text
    talk = h.outbox(game_id, seat=1, kind="table_talk")
    assert len(talk) == 2  # one message per reply, not one per line
    assert "one 0 / SAY one 1" not in talk[0].text and "one 1" in talk[0].text


def test_nul_and_control_bytes_are_never_stored_or_echoed(setup: Env) -> None:
    game_id = h.new_game(h.email_players(3))
    seat_row, player = h.seat_row(game_id, 0)
    raw = h.reply_email(player.email, seat_row.reply_token,
                        "SAY ahoy\x00 mates\x1b[2J \u202eevil\r\nreveal \x00", DOMAIN,
                        headers={"X-Junk": "\x00"})
    raw = raw.replace(b"From: Player", b"From: Pla\x00yer")

    row_id = h.store_email(raw).id
    assert str(inbound.process(row_id, h.utcnow())) == "done"

    assert h.inbound_row(row_id).sender == player.email
    with db.session_scope(write=False) as session:
        [event] = session.execute(sa.select(GameEvent).where(
            GameEvent.game_id == game_id, GameEvent.kind == "table.talk")).scalars()
    assert event.text.endswith(": ahoy mates[2J evil")
    for row in h.outbox(game_id):
        assert "\x00" not in row.text and "\x1b" not in row.text and "\u202e" not in row.text


def test_mail_beyond_the_mime_limits_that_came_by_imap_is_refused_not_quarantined(
        setup: Env) -> None:
    game_id = h.new_game(h.email_players(3))
    seat_row, player = h.seat_row(game_id, 0)
    raw = (f"From: <{player.email}>\r\nTo: play+{seat_row.reply_token}@{DOMAIN}\r\n"
           "Message-ID: <deep@example.org>\r\nMIME-Version: 1.0\r\n").encode() + nested_multipart(
        1000, b"Content-Type: text/plain\r\n\r\nSTATUS\r\n")

    row_id = h.store_email(raw).id  # the IMAP poller stores what it finds, as is

    assert str(inbound.process(row_id, h.utcnow())).startswith("ignored: refused: more than")
    assert h.inbound_row(row_id).sender == player.email


def test_a_reply_to_play_at_is_routed_by_the_message_id_it_answers(setup: Env) -> None:
    game_id = h.new_game(h.email_players(3))
    decision = h.pending(game_id)[0]
    _, player = h.seat_row(game_id, decision.seat)
    [prompt] = [r for r in h.outbox(game_id, seat=decision.seat) if r.message_id][:1]
    command = str(decision.legal[0])

    def answer(sender: str) -> int:
        raw = h.reply_email(sender, "x", command, DOMAIN,
                            headers={"In-Reply-To": str(prompt.message_id)})
        return h.store_email(raw.replace(f"play+x@{DOMAIN}".encode(),
                                         f"play@{DOMAIN}".encode())).id

    assert str(inbound.process(answer("ann.other@example.org"), h.utcnow())).startswith("ignored")
    row_id = answer(player.email)
    assert str(inbound.process(row_id, h.utcnow())) == "done"

    assert h.commands(game_id) == [(decision.seat, command, f"inbound:{row_id}")]


def test_a_required_sender_authentication_must_pass(env: Env,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    env.values["INBOUND_REQUIRE_SENDER_AUTH"] = "true"
    env.values["INBOUND_AUTHSERV_ID"] = "mx.test"
    apply(env, monkeypatch)
    game_id = h.new_game(h.email_players(3))
    decision = h.pending(game_id)[0]
    seat_row, player = h.seat_row(game_id, decision.seat)
    command = str(decision.legal[0])
    domain = player.email.rpartition("@")[2]

    def reply(results: str) -> int:
        return h.store_email(h.reply_email(player.email, seat_row.reply_token, command,
                                           DOMAIN, headers={"Authentication-Results": results})).id

    failed = str(inbound.process(reply(f"mx.test; dkim=fail header.d={domain}"), h.utcnow()))
    passed = reply(f"mx.test; dkim=pass header.d={domain}")

    assert "not authenticated" in failed
    assert str(inbound.process(passed, h.utcnow())) == "done"
    assert h.commands(game_id) == [(decision.seat, command, f"inbound:{passed}")]
