"""Which question a reply answers: the message it names in its headers, our reference quoted
in its body, or (SMS) the last text the seat had received when it arrived."""

from __future__ import annotations

from datetime import datetime, timedelta
from email import message_from_string, policy
from email.message import Message
from types import SimpleNamespace

from sqlalchemy.engine import Engine

from pbm import db
from pbm.inbound.answered import Answered, answered_question, is_stale
from pbm.models import OutboundMessage
from tests.pbm.conftest import new_game

SEAT = 1


def written(eng: Engine, game_id: int, *rows: dict[str, object]) -> None:
    with db.session_scope(eng) as session:
        for i, values in enumerate(rows):
            session.add(OutboundMessage(**{
                "game_id": game_id, "seat": SEAT, "channel": "email", "kind": "prompt",
                "to_address": "p@example.org", "dedupe_key": f"t{game_id}:{i}", **values}))


def mail(headers: str, body: str) -> Message:
    return message_from_string(f"From: p@example.org\n{headers}\n\n{body}",
                               policy=policy.default)


def ask(eng: Engine, game_id: int, row: object, message: Message | None = None
        ) -> Answered | None:
    seat = SimpleNamespace(game_id=game_id, seat_index=SEAT)
    with db.session_scope(eng, write=False) as session:
        return answered_question(session, row, seat, message)


def email_row() -> SimpleNamespace:
    return SimpleNamespace(channel="email", received_at=None)


def test_a_reply_answers_the_message_its_in_reply_to_names(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    written(eng, game_id, {"message_id": "<old@t>", "question": "3.1"},
            {"message_id": "<new@t>", "question": "7.1"})

    found = ask(eng, game_id, email_row(),
                mail("In-Reply-To: <old@t>\nReferences: <root@t> <new@t> <old@t>", "1"))

    assert found == Answered("3.1", "in-reply-to")


def test_without_in_reply_to_the_last_known_reference_is_the_parent(
        eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    written(eng, game_id, {"message_id": "<a@t>", "question": "3.1"},
            {"message_id": "<b@t>", "question": "5.1"})

    found = ask(eng, game_id, email_row(), mail("References: <a@t> <b@t> <other@x>", "2"))

    assert found == Answered("5.1", "references")


def test_a_message_without_a_question_tells_nothing(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    written(eng, game_id, {"message_id": "<talk@t>", "question": None},
            {"message_id": "<root@t>", "question": "1.1"})

    assert ask(eng, game_id, email_row(),
               mail("In-Reply-To: <talk@t>\nReferences: <root@t> <talk@t>", "3")) is None


def test_another_seats_message_is_not_an_answer_of_this_seat(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    written(eng, game_id, {"message_id": "<x@t>", "question": "4.2", "seat": 2})

    assert ask(eng, game_id, email_row(), mail("In-Reply-To: <x@t>", "1")) is None


def test_a_client_that_drops_the_headers_still_quotes_our_reference(
        eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    body = ("6\n\nOn Tue, Tortuga wrote:\n> Your turn.\n> 6 = MAROON Cleo\n> --\n"
            "> Ref: Q12.1\n>> Ref: Q9.1\n")

    found = ask(eng, game_id, email_row(), mail("Subject: Re: x", body))

    assert found == Answered("12.1", "quoted")
    assert ask(eng, game_id, email_row(), mail("Subject: x", "6\n> Ref: Q12.2")) is None


def test_an_sms_answers_the_last_text_sent_before_it_arrived(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    sms = {"channel": "sms", "to_address": "+15550001"}
    written(eng, game_id,
            {**sms, "question": "3.1", "sent_at": now - timedelta(hours=2)},
            {**sms, "question": "4.1", "sent_at": now - timedelta(minutes=5)},
            {**sms, "question": None, "sent_at": now - timedelta(minutes=1)},
            {**sms, "question": "9.1", "sent_at": now + timedelta(minutes=1)},
            {**sms, "question": "9.1", "sent_at": None})

    found = ask(eng, game_id, SimpleNamespace(channel="sms", received_at=now))

    assert found == Answered("4.1", "sms-timing")


def test_a_question_is_settled_once_its_stage_has_moved_on() -> None:
    state = SimpleNamespace(stage_serial=12)

    assert not is_stale(Answered("12.1", "quoted"), state)
    assert is_stale(Answered("11.1", "quoted"), state)
    assert not is_stale(None, state)
