"""Processing one stored message at most once: claim it, drop automatic mail, route it,
check the sender, apply it; a crash quarantines it."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from pbm import logs
from pbm.config import Settings, get_settings
from pbm.db import is_conflict, run_transaction
from pbm.hygiene import mime_problem
from pbm.inbound.answered import answered_question
from pbm.inbound.answering import ask_to_answer_the_game
from pbm.inbound.applying import apply_reply, handle_bounce, set_sms_opt_out
from pbm.inbound.mime import automatic_reason, decode_raw, header, parse_email
from pbm.inbound.routing import player_by_id, route_email, route_sms, sender_authenticated
from pbm.inbound.storage import (
    EMAIL,
    MAX_PROCESS_ATTEMPTS,
    SMS,
    claim_inbound,
    finish,
    inbound_table,
    quarantine,
    release_claim,
)
from pbm.models import InboundStatus, Player
from pbm.ratelimit import inbound_allowed
from pbm.replies import read_email_reply, read_sms_reply
from pbm.replies.autoreply import automatic_phrasing
from pbm.replies.extract import email_new_text

log = logging.getLogger(__name__)


def process(inbound_id: int, now: datetime) -> str:
    """Process one stored message at most once; returns what became of it.

    Claims the row (``new`` -> ``processing``), then applies it in one transaction that
    also marks it ``done`` or ``ignored``. Transient database errors release the row and
    propagate (the task retries); any other error quarantines the message.
    """
    with logs.context(inbound_id=inbound_id):  # the game and seat bound later end with it
        return _process(inbound_id, now)


def _process(inbound_id: int, now: datetime) -> str:
    settings = get_settings()
    claimed = run_transaction(lambda s: claim_inbound(s, inbound_id, now, settings))
    if claimed is None:
        return "skipped"
    if claimed.attempts > MAX_PROCESS_ATTEMPTS:
        quarantine(inbound_id, f"processing was interrupted {claimed.attempts - 1} times "
                               "(the worker died each time)", now)
        return "quarantined"
    try:
        return str(run_transaction(lambda s: _handle(s, inbound_id, now, settings)))
    except Exception as exc:
        if is_conflict(exc) or isinstance(exc, sa.exc.OperationalError | sa.exc.InterfaceError):
            release_claim(inbound_id)
            raise
        log.exception("inbound message %s quarantined", inbound_id)
        quarantine(inbound_id, f"{type(exc).__name__}: {exc}", now)
        return "quarantined"


def _handle(session: Session, inbound_id: int, now: datetime, settings: Settings) -> str:
    table = inbound_table()
    row = session.execute(sa.select(table).where(table.c.id == inbound_id)
                          .with_for_update()).first()
    if row is None or row.status != InboundStatus.PROCESSING.value:
        return "skipped"  # another worker finished it first

    if not inbound_allowed(session, row.channel, row.sender, row.received_at, settings,
                           message_id=row.id):
        return finish(session, row.id, "ignored", now, error="rate limited: too many "
                       f"messages from {row.sender} in the last hour")
    if row.channel == EMAIL:
        return _handle_email(session, row, now, settings)
    if row.channel == SMS:
        return _handle_sms(session, row, now, settings)
    return finish(session, row.id, "ignored", now, error=f"unknown channel {row.channel!r}")


def _handle_email(session: Session, row: Any, now: datetime, settings: Settings) -> str:
    raw = decode_raw(row.raw)
    message = parse_email(raw)
    problem = mime_problem(raw, settings, message)  # IMAP mail skipped the webhook's check
    if problem:
        return finish(session, row.id, "ignored", now, error=f"refused: {problem}")
    reason = automatic_reason(message, settings)
    if reason == "bounce":
        return finish(session, row.id, "ignored", now,
                       error="bounce: " + handle_bounce(session, message, now))
    if reason:
        return finish(session, row.id, "ignored", now, error=f"automatic message ({reason})")

    phrasing = automatic_phrasing(header(message, "Subject"), email_new_text(raw))
    if phrasing:
        return finish(session, row.id, "ignored", now, error=f"automatic message ({phrasing})")
    seat = route_email(session, message, row.sender)
    if seat is None:
        ask_to_answer_the_game(session, row.sender, now)
        return finish(session, row.id, "ignored", now,
                       error=f"no reply token of a seat in this message from {row.sender}")
    player = player_by_id(session, seat.player_id)
    if player is None or (player.email or "").lower() != row.sender.lower():
        ask_to_answer_the_game(session, row.sender, now)
        return finish(session, row.id, "ignored", now, game_id=seat.game_id,
                       seat=seat.seat_index,
                       error=f"sender {row.sender} is not the player of this seat")
    if settings.inbound_require_sender_auth and not sender_authenticated(
            message, row.sender, settings):
        ask_to_answer_the_game(session, row.sender, now)
        return finish(session, row.id, "ignored", now, game_id=seat.game_id,
                       seat=seat.seat_index, error=f"sender {row.sender} not authenticated "
                       "(no DKIM, SPF or DMARC pass in Authentication-Results)")

    return apply_reply(session, row, seat, player, now, lambda view, invited: read_email_reply(
        message, view, invited=invited, max_lines=settings.reply_max_lines,
        max_bytes=settings.reply_max_bytes),
        answered=answered_question(session, row, seat, message))


def _handle_sms(session: Session, row: Any, now: datetime, settings: Settings) -> str:
    form = json.loads(row.raw)
    body = str(form.get("Body", ""))
    player = session.execute(sa.select(Player).where(Player.phone == row.sender)).scalar()
    if player is None:
        return finish(session, row.id, "ignored", now, error=f"unknown number {row.sender}")
    keyword = body.strip().strip(".!").lower()
    carrier = keyword in _CARRIER_STOP or keyword in _CARRIER_START or (
        keyword == "yes" and player.sms_opted_out)
    if carrier:
        # Twilio already acted on the keyword (and answered it); mirror it here, no reply.
        set_sms_opt_out(session, player, keyword in _CARRIER_STOP, now)
    seat = route_sms(session, player.id)
    if carrier or seat is None:
        return finish(session, row.id, "done" if carrier else "ignored", now,
                       error=None if carrier else f"{row.sender} has no game in progress",
                       game_id=seat.game_id if seat else None,
                       seat=seat.seat_index if seat else None)
    return apply_reply(session, row, seat, player, now, lambda view, invited: read_sms_reply(
        body, view, invited=invited, max_lines=settings.reply_max_lines,
        max_bytes=settings.reply_max_bytes),
        answered=answered_question(session, row, seat))


# The carrier / Twilio opt-out keywords: Twilio handles them itself and still forwards them.
# (YES is one too, but only for an opted-out number: otherwise it answers an invitation.)
_CARRIER_STOP = {"stop", "stopall", "unsubscribe", "cancel", "end", "quit"}
_CARRIER_START = {"start", "unstop"}
