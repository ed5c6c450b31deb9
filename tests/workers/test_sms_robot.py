"""A robot by SMS (a phone's "I'm driving" responder, an SMS auto-reply service) is answered
at most once a day, through the real inbound pipeline on PostgreSQL; a person who then
writes something new is answered."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from pbm import games, inbound
from pbm.messages import MessageKind
from tests.workers import helpers as h
from tests.workers.conftest import Env, apply

TWILIO_NUMBER = "+15005550006"
ROUNDS = 10


@pytest.fixture
def setup(env: Env, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    env.values["INBOUND_PER_SENDER_PER_HOUR"] = "100000"  # only the answer guard at work
    apply(env, monkeypatch)
    yield env


def texts_back(game_id: int, phone: str, body: str, now: datetime) -> list[str]:
    """The answers (REPLY texts) ``body`` from ``phone`` got at ``now``."""
    before = {row.id for row in h.outbox(game_id)}
    outcome = str(inbound.process(h.store_sms(phone, TWILIO_NUMBER, body).id, now))
    assert outcome == "done" or outcome.startswith("ignored"), outcome
    return [row.sms_body for row in h.outbox(game_id)
            if row.id not in before and row.to_address == phone
            and row.kind == MessageKind.REPLY]


@pytest.mark.parametrize("robot", [
    "I'm driving, I'll get back to you (auto reply)",
    "I'm driving with Driving Focus turned on. I'll see your message when I get where I'm "
    "going.",
    "Thanks for your text! This number is not monitored.",
    "Received. Ref 4471",  # no word of being automatic: it only repeats itself
])
def test_an_sms_robot_gets_at_most_one_answer_in_ten_rounds_and_a_person_then_is_answered(
        setup: Env, robot: str) -> None:
    sam = games.PlayerSpec("Sam", phone="+15557771234", channel="sms")
    game_id = h.new_game([sam, *h.email_players(2)])
    now = h.utcnow()
    answered = 0
    for _ in range(ROUNDS):  # a round: we text, the robot answers with the same words
        answered += len(texts_back(game_id, sam.phone, robot, now))
        now += timedelta(minutes=7)
    assert answered <= 1, answered
    person = texts_back(game_id, sam.phone, "what now?", now)
    assert person, "a person who writes something new is answered"
    print(f"robot {robot[:30]!r}: {answered} answer(s) in {ROUNDS} rounds; 'what now?': "
          f"{person[0][:120]!r}")


def test_the_same_text_is_answered_again_the_next_day(setup: Env) -> None:
    sam = games.PlayerSpec("Sam", phone="+15557771234", channel="sms")
    game_id = h.new_game([sam, *h.email_players(2)])
    now = h.utcnow()
    first = texts_back(game_id, sam.phone, "hmm", now)
    again = texts_back(game_id, sam.phone, "hmm", now + timedelta(hours=2))
    next_day = texts_back(game_id, sam.phone, "hmm", now + timedelta(hours=25))
    assert len(first) == 1 and again == [] and len(next_day) == 1
