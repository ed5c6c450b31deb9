"""Outbox and picture rows made without SQLModel's constructor (``pbm.outbox_rows.new_row``)
must be the rows the constructor makes: a SQLModel or Pydantic upgrade that changes how a
row holds its fields shows up here, not as a wrong message."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import inspect

from pbm.models import BoardImage, OutboundMessage, OutboundStatus
from pbm.outbox_rows import new_row


def test_an_outbox_row_made_fast_is_the_constructors_row() -> None:
    values = {"game_id": 3, "seat": 1, "player_id": 7, "channel": "email", "kind": "prompt",
              "to_address": "ann@example.org", "subject": "Your move", "text": "Hello",
              "html": "<p>Hello</p>", "sms_body": None, "board_image_key": "3-12-en",
              "message_id": "<m@x>", "in_reply_to": None, "question": "12.1",
              "reply_to": "play+tok@x", "status": OutboundStatus.PENDING,
              "dedupe_key": "3:12:1:email", "created_at": datetime(2026, 12, 2, tzinfo=UTC)}
    fast, made = new_row(OutboundMessage, values), OutboundMessage(**values)
    assert fast.model_dump() == made.model_dump()
    assert fast.model_fields_set == made.model_fields_set
    assert inspect(fast).transient and not inspect(fast).modified


def test_a_picture_row_made_fast_takes_the_defaults_it_is_not_given() -> None:
    values = {"game_id": 3, "version": 12, "png": b"\x89PNG"}
    fast, made = new_row(BoardImage, values), BoardImage(**values)
    # created_at: each row's own call of the default factory (now)
    assert fast.model_dump(exclude={"created_at"}) == made.model_dump(exclude={"created_at"})
    assert fast.language == "en" and fast.id is None
    assert abs(fast.created_at - made.created_at).total_seconds() < 60
