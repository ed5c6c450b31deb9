"""Which question a reply answers, so that a reply to an older message never plays today's
menu.

Every message to a seat carries the question it put (``OutboundMessage.question``: the
game's stage serial and the seat, shown in the email's footer as ``Ref: Q12.3``). A reply
answers, by the first evidence found:

1. email: the message its ``In-Reply-To`` names (else the last of its ``References`` that is
   ours), when that message was written to this seat during a game;
2. email: the first ``Ref: Q...`` of ours quoted in its body (a client that drops the
   threading headers still quotes the message it answers);
3. SMS: the last text with a question sent to this seat before the reply arrived;

else nothing is known (``None``), and the reply is taken to answer what is open now, unless
the open question was asked after the reply arrived.

A reply answers the open question when its stage is the one open now (a vote stays one stage
until it closes, so a vote may still be changed). Otherwise it is stale: nothing it commands
is applied and the player gets the open question's menu. That holds for full commands too
(``REVEAL 3`` typed under an older prompt): their numbers are positions in the row or the
hand as that older message showed them, which have moved since, and even a name-only
command was decided on a board that has changed. A move cannot be taken back; asking costs
one message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message
from typing import Protocol

import sqlalchemy as sa
from sqlmodel import Session, col

import engine
from pbm.inbound.mail_headers import header
from pbm.inbound.storage import SMS, InboundRow
from pbm.messages import MessageKind
from pbm.models import OutboundMessage
from pbm.replies.mail_body import message_text

#: the footer reference of our messages, as quoted back (``Ref: Q12.3``)
REF_RE = re.compile(r"\bRef:\s*Q(\d{1,9})\.(\d{1,2})\b")
_MESSAGE_ID_RE = re.compile(r"<[^<>\s]+>")
TABLE_TALK = MessageKind.TABLE_TALK.value


class SeatRef(Protocol):
    """A seat as far as this module needs it (a ``Seat`` row, or a routed seat)."""

    @property
    def game_id(self) -> int: ...

    @property
    def seat_index(self) -> int: ...


@dataclass(frozen=True)
class Answered:
    """The question a reply answers (``"12.3"``) and how that is known."""

    question: str
    source: str  # "in-reply-to", "references", "quoted", "sms-timing"

    @property
    def stage_serial(self) -> int:
        return int(self.question.split(".", 1)[0])


def answered_question(session: Session, row: InboundRow, seat: SeatRef,
                      message: Message | None = None) -> Answered | None:
    """The question this stored reply (``row``) from ``seat`` answers, or None if unknown."""
    if row.channel == SMS:
        return _by_sms_timing(session, row, seat)
    if message is None:
        return None
    return _by_headers(session, message, seat) or _by_quote(message, seat)


def answers_table_talk(session: Session, row: InboundRow, message: Message | None,
                       seat: SeatRef) -> bool:
    """True when a reply answers relayed table talk, not the seat's menu: an email whose
    ``In-Reply-To`` names table talk sent to this seat; a text that came in when the last
    text the seat had been sent was table talk (TALK ON)."""
    if row.channel == SMS:
        last = session.execute(
            sa.select(col(OutboundMessage.kind))
            .where(col(OutboundMessage.game_id) == seat.game_id,
                   col(OutboundMessage.seat) == seat.seat_index,
                   col(OutboundMessage.channel) == SMS,
                   sa.func.coalesce(col(OutboundMessage.sent_at),
                                    col(OutboundMessage.created_at)) <= row.received_at)
            .order_by(sa.func.coalesce(col(OutboundMessage.sent_at),
                                       col(OutboundMessage.created_at)).desc(),
                      col(OutboundMessage.id).desc())
            .limit(1)).scalar()
        return last == TABLE_TALK
    if message is None:
        return False
    parent = [i[:255] for i in _MESSAGE_ID_RE.findall(header(message, "In-Reply-To"))[:5]]
    if not parent:
        return False
    kinds = session.execute(
        sa.select(col(OutboundMessage.kind)).where(
            col(OutboundMessage.message_id).in_(parent),
            col(OutboundMessage.game_id) == seat.game_id,
            col(OutboundMessage.seat) == seat.seat_index)).scalars().all()
    return TABLE_TALK in kinds


def is_stale(answered: Answered | None, state: engine.GameState) -> bool:
    """True when the reply answers a question of a stage that is no longer open."""
    return answered is not None and answered.stage_serial != state.stage_serial


def _questions_of(session: Session, seat: SeatRef, ids: list[str]) -> dict[str, str | None]:
    if not ids:
        return {}
    rows = session.execute(
        sa.select(col(OutboundMessage.message_id), col(OutboundMessage.question))
        .where(col(OutboundMessage.message_id).in_(ids),
               col(OutboundMessage.game_id) == seat.game_id,
               col(OutboundMessage.seat) == seat.seat_index)).all()
    return {str(m): q for m, q in rows}


def _by_headers(session: Session, message: Message, seat: SeatRef) -> Answered | None:
    parent = _MESSAGE_ID_RE.findall(header(message, "In-Reply-To"))[:5]
    chain = _MESSAGE_ID_RE.findall(header(message, "References"))[-50:]
    known = _questions_of(session, seat, [i[:255] for i in [*parent, *chain]])
    for message_id in parent:
        if message_id in known:  # the message answered; a note without a game tells nothing
            question = known[message_id]
            return Answered(question, "in-reply-to") if question else None
    for message_id in reversed(chain):  # the parent is the last reference
        if message_id in known:
            question = known[message_id]
            return Answered(question, "references") if question else None
    return None


def _by_quote(message: Message, seat: SeatRef) -> Answered | None:
    try:
        text = message_text(message)  # type: ignore[arg-type]
    except (ValueError, LookupError, TypeError, AttributeError, UnicodeError):
        return None
    for found in REF_RE.finditer(text):
        if int(found.group(2)) == seat.seat_index:  # another seat's quoted mail: not ours
            return Answered(f"{found.group(1)}.{found.group(2)}", "quoted")
    return None


def _by_sms_timing(session: Session, row: InboundRow, seat: SeatRef) -> Answered | None:
    question = session.execute(
        sa.select(col(OutboundMessage.question))
        .where(col(OutboundMessage.game_id) == seat.game_id,
               col(OutboundMessage.seat) == seat.seat_index,
               col(OutboundMessage.channel) == SMS,
               col(OutboundMessage.question).is_not(None),
               col(OutboundMessage.sent_at).is_not(None),
               col(OutboundMessage.sent_at) <= row.received_at)
        .order_by(col(OutboundMessage.sent_at).desc(), col(OutboundMessage.id).desc())
        .limit(1)).scalar()
    return Answered(str(question), "sms-timing") if question else None
