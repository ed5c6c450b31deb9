"""Mail loops: a robot that answers every mail it gets, against the real inbound path.

Each round the robot mails the service (a reply to the last mail it received, or its last
mail again if none came), the real ``inbound.store_email`` + ``inbound.process`` handle it
on PostgreSQL, and every outbox row is delivered by the real SMTP transport to a local
SMTP server, where the robot reads its mail. The service must send a bounded number of
messages, whatever the robot does.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from email.utils import make_msgid

import pytest

from pbm import db, inbound
from pbm.config import get_settings
from pbm.outbox import pending_outbox_ids
from tests.workers import helpers as h
from tests.workers.conftest import Env, apply
from tests.workers.servers import SmtpSink
from workers.delivery import deliver

DOMAIN = "tortuga.test"
ROUNDS = 1000


@pytest.fixture
def setup(env: Env, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    env.values["NOT_UNDERSTOOD_ANSWERS_PER_SENDER_PER_HOUR"] = "3"
    env.values["OUTBOUND_EMAIL_PER_SECOND"] = "1000"
    apply(env, monkeypatch)
    yield env


def robot_mail(sender: str, token: str, subject: str, body: str, now: datetime,
               in_reply_to: str | None) -> bytes:
    """An automatic answer written by a client rule: none of the loop-guard headers."""
    lines = [f"From: Robot <{sender}>", f"To: play+{token}@{DOMAIN}", f"Subject: {subject}",
             f"Message-ID: {make_msgid(domain='robot.example')}",
             f"Date: {now.strftime('%a, %d %b %Y %H:%M:%S +0000')}",
             "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8"]
    if in_reply_to:
        lines.append(f"In-Reply-To: {in_reply_to}")
    return ("\r\n".join(lines) + "\r\n\r\n" + body.replace("\n", "\r\n")).encode()


def deliver_all(now: datetime) -> None:
    with db.session_scope(write=False) as session:
        ids = pending_outbox_ids(session)
    for outbox_id in ids:
        deliver(outbox_id, now, get_settings())


def ping_pong(smtp: SmtpSink, body: str, subject: str, step: timedelta) -> tuple[int, int]:
    """Run the robot for ROUNDS rounds: (mails the robot got meanwhile, admin alerts)."""
    game_id = h.new_game(h.email_players(3, "robot.example"))
    decision = h.pending(game_id)[0]
    seat, player = h.seat_row(game_id, decision.seat)
    now = h.utcnow()
    deliver_all(now)
    robot = str(player.email)
    seen = start = len(smtp.to(robot))
    admin_before = len(smtp.to("admin@ops.test"))
    last_id: str | None = None
    for _ in range(ROUNDS):
        mails = smtp.to(robot)
        if len(mails) > seen:  # answer the newest mail it got
            last_id = str(mails[-1].message["Message-ID"])
            seen = len(mails)
        raw = robot_mail(robot, str(seat.reply_token), subject, body, now, last_id)
        stored = db.run_transaction(lambda s, raw=raw, now=now: inbound.store_email(s, raw, now))
        inbound.process(stored.id, now)
        deliver_all(now)
        now += step
    return len(smtp.to(robot)) - start, len(smtp.to("admin@ops.test")) - admin_before


@pytest.mark.slow
def test_a_robot_answering_everything_with_the_same_words_gets_one_answer_a_day(
        setup: Env, smtp: SmtpSink, capsys: pytest.CaptureFixture[str]) -> None:
    # 1,000 rounds, one every 30 seconds: 8 hours 20 minutes of a robot that writes prose
    # the parser cannot use (no command in it) and no loop-guard header.
    answers, alerts = ping_pong(
        smtp, "Thank you for your message. Your ticket number is 48213.\n"
              "Our team will look into it shortly.\n", "Re: your request", timedelta(seconds=30))
    with capsys.disabled():
        print(f"\nloop guard: {ROUNDS} robot mails over 8h20m -> {answers} answers to the "
              f"robot, {alerts} admin alert(s)")
    assert answers == 1  # the same words again within a day: kept, not answered
    assert alerts == 1  # told once (a day)


@pytest.mark.slow
def test_two_robots_within_one_hour_exchange_one_answer_and_the_admin_is_told_once(
        setup: Env, smtp: SmtpSink, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    setup.values["INBOUND_PER_SENDER_PER_HOUR"] = "100000"  # only the answer cap is at work
    apply(setup, monkeypatch)
    answers, alerts = ping_pong(smtp, "Received, thanks.\nRef 2025-03-04/77\n",
                                    "Re: [Tortuga] your game", timedelta(seconds=1))
    with capsys.disabled():
        print(f"\nloop guard: {ROUNDS} robot mails in 17 minutes -> {answers} answers, "
              f"{alerts} admin alert(s)")
    assert answers == 1
    assert alerts == 1


def test_an_out_of_office_without_headers_is_never_answered(
        setup: Env, smtp: SmtpSink) -> None:
    game_id = h.new_game(h.email_players(3, "robot.example"))
    decision = h.pending(game_id)[0]
    seat, player = h.seat_row(game_id, decision.seat)
    now = h.utcnow()
    deliver_all(now)
    before = len(smtp.to(str(player.email)))
    for subject, body in (
            ("Automatic reply: [Tortuga] your game", "Back on Monday."),
            ("Abwesenheitsnotiz: Re: [Tortuga]", "Ich bin bis 12.03. nicht im Büro."),
            ("Réponse automatique : [Tortuga]", "Je suis absente jusqu'au 12 mars."),
            ("Re: [Tortuga] your game", "I am out of the office until 12 March with limited "
                                        "access to email.\nFor urgent matters call +1 555 0100.")):
        raw = robot_mail(str(player.email), str(seat.reply_token), subject, body, now, None)
        stored = db.run_transaction(lambda s, raw=raw: inbound.store_email(s, raw, now))
        outcome = str(inbound.process(stored.id, now))
        assert outcome.startswith("ignored: automatic message"), (subject, outcome)
    deliver_all(now)
    assert len(smtp.to(str(player.email))) == before
    assert h.commands(game_id) == []


HUMAN_TRIES = ("ich verstehe das nicht", "no idea how this works", "I don't understand this game",
               "can I see the board please", "hmm which card", "ok so",
               "sorry, I'm lost", "blah", "la la la", "is anyone there")


def test_a_person_who_keeps_failing_gets_an_answer_every_time_shorter_after_three(
        setup: Env, smtp: SmtpSink) -> None:
    """Issue 23: the loop guard stops robots, not people. Ten different replies that change
    nothing in one hour (a person trying) get ten answers; from the fourth on, short."""
    game_id = h.new_game(h.email_players(3, "robot.example"))
    decision = h.pending(game_id)[0]
    seat, player = h.seat_row(game_id, decision.seat)
    now = h.utcnow()
    deliver_all(now)
    person = str(player.email)
    start = len(smtp.to(person))
    last_id: str | None = None
    for text in HUMAN_TRIES:
        mails = smtp.to(person)
        last_id = str(mails[-1].message["Message-ID"]) if mails else last_id
        raw = robot_mail(person, str(seat.reply_token), "Re: [Tortuga] your game", text,
                         now, last_id)
        stored = db.run_transaction(lambda s, raw=raw, now=now: inbound.store_email(s, raw, now))
        inbound.process(stored.id, now)
        deliver_all(now)
        now += timedelta(minutes=5)
    answers = smtp.to(person)[start:]
    assert len(answers) == len(HUMAN_TRIES)
    texts = [next(part.get_payload(decode=True).decode() for part in m.message.walk()
                  if part.get_content_type() == "text/plain") for m in answers]
    brief = ["Still not understood" in text for text in texts]
    assert all(brief[3:]), [t.split("\n", 1)[0] for t in texts]
    assert not any("Still not understood" in text for text in texts[:3]), texts[0]
