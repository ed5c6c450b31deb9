"""Deliver one outbox row: claim it, hand it to its transport, record the outcome.

The row's status is the lock. ``claim`` moves it from ``pending`` to ``sending`` in one
UPDATE (``attempts`` + 1, ``claimed_at`` = the lease), so two deliveries of the same task,
or a task and the relay, never send it twice at once. A row left in ``sending`` by a killed
worker is claimable again once its lease has passed. ``sent_at`` is set only when the
provider accepted the message (``delivery_status`` ``accepted``; Twilio's status callback
moves it on to ``delivered`` and the like, see ``pbm.webhooks``). A crash after
the provider accepted a message but before we recorded it re-sends it: delivery is at least
once, with the same Message-ID, and never silent.

Outcomes: ``sent``; transient error -> back to ``pending`` and retried with backoff and
jitter up to ``max_send_attempts``; permanent error -> ``failed``, the player's address is
marked (email failing, SMS opted out -> email from now on, with an email copy of the lost
SMS) and the admin gets an alert email.

The claim itself is :mod:`workers.claims`; the transport's message, :mod:`workers.message`.
"""

from __future__ import annotations

import functools
import logging
import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from pbm import metrics
from pbm.config import Settings
from pbm.db import run_transaction
from pbm.logs import context as log_context
from pbm.messages import Channel
from pbm.models import DeliveryStatus, Game, OutboundMessage, OutboundStatus, Player
from pbm.outbox import alert_admin
from pbm.outbox_rows import insert_once
from pbm.ratelimit import OutboundLimiter
from pbm.transports import OutgoingMessage, Receipt, TransportError, transport_for
from workers import refusals
from workers.claims import claim, claim_many, lease_expired, outbox_table
from workers.message import outgoing

log = logging.getLogger(__name__)

ADMIN_ALERT = "admin_alert"
ORDER_WAIT_SECONDS = 1.0  # a row waiting for an earlier one to the same recipient retries


class Sent(StrEnum):
    """What one delivery attempt came to (the send tasks return it)."""

    SENT = "sent"
    SKIPPED = "skipped"  # no such row, finished, or claimed elsewhere
    FAILED = "failed"  # for good (the row is failed)
    RETRY = "retry"  # a transient error: again after a backoff
    THROTTLED = "throttled"  # over the rate limit: again when a token is free
    WAITING = "waiting"  # after an earlier row to the same recipient


@dataclass(frozen=True)
class Outcome:
    """What happened to one delivery attempt; ``retry_in`` seconds when it should be retried."""

    status: Sent
    retry_in: float | None = None
    detail: str = ""


def _players() -> sa.Table:
    return Player.__table__  # type: ignore[attr-defined, no-any-return]


def backoff(attempts: int, settings: Settings, rng: random.Random | None = None) -> float:
    """Seconds before attempt ``attempts + 1``: exponential, capped, with full jitter."""
    rng = rng or random.Random()
    cap = min(float(settings.retry_backoff_max), 2.0 ** max(attempts, 1) * 5)
    # Stay under the broker's visibility timeout: a longer countdown would be redelivered.
    cap = min(cap, max(1.0, settings.celery_visibility_timeout * 0.8))
    return rng.uniform(cap / 2, cap)


def deliver(outbox_id: int, now: datetime, settings: Settings,
            limiter: OutboundLimiter | None = None, *, sleep: Any = None) -> Outcome:
    """Try to deliver one outbox row once. Safe to call any number of times."""
    sleep = sleep or time.sleep
    wait = 0.0

    def take(session: Session) -> tuple[Any, OutgoingMessage | None, str | None]:
        # Claim first: a row already sent, failed or being sent costs no rate-limit slot;
        # a throttled claim is rolled back with this transaction (nothing to undo).
        nonlocal wait
        row = claim(session, outbox_id, now, settings)
        if row is None:
            return None, None, None
        if row.earlier_unsent is not None:  # a recipient's messages arrive in their order
            raise _Waiting(row.earlier_unsent)
        if limiter is not None:
            reserved, wait = limiter.reserve(row.channel)
            if not reserved:
                raise _Throttled(wait)
        refusal = _refusal(session, row)
        if refusal:
            return row, None, refusal
        return row, outgoing(session, row, settings), None

    try:
        row, message, refusal = run_transaction(take)
    except _Throttled as throttled:
        metrics.guard_tripped(metrics.Guard.OUTBOUND_RATE)
        return Outcome(Sent.THROTTLED, retry_in=throttled.retry_in)
    except _Waiting as waiting:
        return Outcome(Sent.WAITING, retry_in=ORDER_WAIT_SECONDS, detail=f"after row {waiting.row}")
    if row is None:
        return Outcome(Sent.SKIPPED, detail="no such row, finished, or claimed elsewhere")
    if wait > 0:
        sleep(wait)  # our slot is reserved; the claim's lease covers the wait
    if refusal is not None:
        error = TransportError(refusal, permanent=True, reason="opted_out")
        run_transaction(lambda s: _record_permanent(s, row, error, now, settings))
        return Outcome(Sent.FAILED, detail=refusal)
    assert message is not None
    try:
        with log_context(outbound_id=row.id, game_id=row.game_id, seat=row.seat):
            receipt = transport_for(row.channel, settings).send(message)
    except TransportError as error:
        permanent = error.permanent or row.attempts >= settings.max_send_attempts
        metrics.send_failed(row.channel, error.reason, permanent)
        if permanent:
            run_transaction(lambda s: _record_permanent(s, row, error, now, settings))
            return Outcome(Sent.FAILED, detail=str(error))
        run_transaction(lambda s: _record_transient(s, row, error))
        return Outcome(Sent.RETRY, retry_in=backoff(row.attempts, settings), detail=str(error))
    latencies = run_transaction(lambda s: _record_sent(s, row, receipt, message, now))
    _count_sent([row], latencies)
    return Outcome(Sent.SENT, detail=receipt.provider_id or "")


#: at most this many rows in one batch (they are sent one after the other within the lease)
BATCH_LIMIT = 8


def deliver_many(outbox_ids: list[int], now: datetime, settings: Settings,
                 limiter: OutboundLimiter | None = None, *, sleep: Any = None
                 ) -> dict[int, Outcome]:
    """Deliver the rows one transaction wrote, in id order (so a seat gets its messages in
    the order they were written), with two commits for all of them: one claim, one record
    of the outcomes. Each row otherwise as ``deliver``: claimed before it is sent, never
    sent twice at the same time, at least once. If the rate limit has no slot soon enough
    for one of them, nothing is claimed and every row gets ``throttled`` (the caller sends
    them one by one, later). A worker killed half-way re-sends, after the lease, the rows
    it sent but had not recorded (the same Message-ID), as ``deliver`` does for one row."""
    sleep = sleep or time.sleep
    waits: dict[int, float] = {}

    def take(session: Session) -> list[tuple[Any, OutgoingMessage | None, str | None]]:
        taken = []
        rows = claim_many(session, sorted(set(outbox_ids))[:BATCH_LIMIT], now, settings)
        earlier = [row.earlier_unsent for row in rows if row.earlier_unsent is not None]
        if earlier:  # a recipient's messages arrive in the order they were made
            raise _Waiting(min(earlier))
        for row in rows:
            if limiter is not None:
                reserved, wait = limiter.reserve(row.channel)
                if not reserved:
                    raise _Throttled(wait)
                waits[row.id] = wait
            refusal = _refusal(session, row)
            taken.append((row, None if refusal else outgoing(session, row, settings), refusal))
        return taken

    try:
        taken = run_transaction(take)
    except _Throttled as throttled:
        metrics.guard_tripped(metrics.Guard.OUTBOUND_RATE)
        return {i: Outcome(Sent.THROTTLED, retry_in=throttled.retry_in) for i in outbox_ids}
    except _Waiting as waiting:
        return {i: Outcome(Sent.WAITING, retry_in=ORDER_WAIT_SECONDS,
                           detail=f"after row {waiting.row}") for i in outbox_ids}
    outcomes = {i: Outcome(Sent.SKIPPED, detail="no such row, finished, or claimed elsewhere")
                for i in outbox_ids}
    sent: list[tuple[Any, Receipt, OutgoingMessage]] = []
    failed: list[tuple[Any, TransportError, bool]] = []  # (row, error, permanent)
    started = time.monotonic()
    try:
        for row, message, refusal in taken:
            if refusal is not None:
                failed.append((row, TransportError(refusal, permanent=True,
                                                   reason="opted_out"), True))
                outcomes[row.id] = Outcome(Sent.FAILED, detail=refusal)
                continue
            assert message is not None
            if time.monotonic() - started > settings.outbox_lease_seconds / 2:
                # a slow transport: give the rest back before the lease could pass
                failed.append((row, TransportError("the batch ran out of time",
                                                   permanent=False, reason="network"), False))
                outcomes[row.id] = Outcome(Sent.RETRY, retry_in=0.0, detail="out of time")
                continue
            if (wait := started + waits.get(row.id, 0.0) - time.monotonic()) > 0:
                sleep(wait)  # our slot is reserved; the claim's lease covers the wait
            try:
                with log_context(outbound_id=row.id, game_id=row.game_id, seat=row.seat):
                    receipt = transport_for(row.channel, settings).send(message)
            except TransportError as error:
                permanent = error.permanent or row.attempts >= settings.max_send_attempts
                metrics.send_failed(row.channel, error.reason, permanent)
                failed.append((row, error, permanent))
                outcomes[row.id] = Outcome(Sent.FAILED, detail=str(error)) if permanent else \
                    Outcome(Sent.RETRY, retry_in=backoff(row.attempts, settings), detail=str(error))
                continue
            sent.append((row, receipt, message))
            outcomes[row.id] = Outcome(Sent.SENT, detail=receipt.provider_id or "")
    finally:  # what was sent is recorded even if something unexpected stops the batch
        latencies = run_transaction(lambda s: _record_many(s, sent, failed, now, settings)) \
            if sent or failed else []
    _count_sent([row for row, _, _ in sent], latencies)
    return outcomes


def _count_sent(rows: list[Any], latencies: list[tuple[str, float]]) -> None:
    """Count what was sent, and the reply -> first message latencies (``pbm.metrics``)."""
    if not rows or not metrics.enabled():
        return
    for channel in {row.channel for row in rows}:
        metrics.sent(channel, sum(1 for row in rows if row.channel == channel))
    metrics.observe_latencies(latencies)


def _latencies(session: Session, rows: list[Any]) -> list[tuple[str, float]]:
    """Reply -> first message latencies of ``rows``, read in the recording transaction (one
    indexed read-only query per reply concerned)."""
    if not rows or not metrics.enabled():
        return []
    return metrics.reply_latencies(session.connection(), rows)


def _record_many(session: Session, sent: list[tuple[Any, Receipt, OutgoingMessage]],
                 failed: list[tuple[Any, TransportError, bool]], now: datetime,
                 settings: Settings) -> list[tuple[str, float]]:
    """The outcomes of a batch in one transaction (the sent ones in one statement); the
    reply latencies of the sent ones (``pbm.metrics``)."""
    if sent:
        session.execute(
            _record_sent_statement(DeliveryStatus.ACCEPTED.value),
            [{"row_id": row.id, "provider": receipt.provider_id, "now": now,
              "mid": row.message_id or (
                  message.message_id if row.channel == Channel.EMAIL else None)}
             for row, receipt, message in sent])
    for row, error, permanent in failed:
        if permanent:
            _record_permanent(session, row, error, now, settings)
        else:
            _record_transient(session, row, error)
    return _latencies(session, [row for row, _, _ in sent])


@functools.lru_cache(maxsize=1)
def _record_sent_statement(accepted: str) -> sa.Update:
    """The UPDATE that records sent rows (built once per process; values as parameters)."""
    table = outbox_table()
    return (sa.update(table).where(table.c.id == sa.bindparam("row_id"),
                                   table.c.status == OutboundStatus.SENDING)
            .values(status=OutboundStatus.SENT, provider_id=sa.bindparam("provider"),
                    sent_at=sa.bindparam("now", type_=table.c.sent_at.type),
                    last_error=None, delivery_status=accepted,
                    message_id=sa.bindparam("mid")))


class _Throttled(Exception):
    """The channel's rate limit has no slot soon enough: give the claim back, come later."""

    def __init__(self, retry_in: float) -> None:
        super().__init__(f"throttled for {retry_in:.1f} s")
        self.retry_in = retry_in


class _Waiting(Exception):
    """An earlier message to the same recipient and channel is unsent: give the claim back."""

    def __init__(self, row: int) -> None:
        super().__init__(f"after row {row}")
        self.row = row


def _refusal(session: Session, row: Any) -> str | None:
    """A reason not to send at all: an SMS to a player who said STOP."""
    if row.channel != Channel.SMS or row.player_id is None:
        return None
    players = _players()
    opted_out = session.execute(sa.select(players.c.sms_opted_out)
                                .where(players.c.id == row.player_id)).scalar()
    return "the player has opted out of SMS (STOP)" if opted_out else None


def _record_sent(session: Session, row: Any, receipt: Receipt, message: OutgoingMessage,
                 now: datetime) -> list[tuple[str, float]]:
    table = outbox_table()
    session.execute(sa.update(table)
                    .where(table.c.id == row.id, table.c.status == OutboundStatus.SENDING)
                    .values(status=OutboundStatus.SENT, provider_id=receipt.provider_id,
                            sent_at=now,
                            last_error=None, delivery_status=DeliveryStatus.ACCEPTED.value,
                            message_id=row.message_id or (
                                message.message_id if row.channel == Channel.EMAIL else None)))
    return _latencies(session, [row])


def _record_transient(session: Session, row: Any, error: TransportError) -> None:
    table = outbox_table()
    session.execute(sa.update(table)
                    .where(table.c.id == row.id, table.c.status == OutboundStatus.SENDING)
                    .values(status=OutboundStatus.PENDING,
                            last_error=f"attempt {row.attempts}: {error}"))


def _record_permanent(session: Session, row: Any, error: TransportError, now: datetime,
                      settings: Settings) -> None:
    """Fail the row, mark the player's address, fall back to email, alert the admin."""
    table = outbox_table()
    session.execute(sa.update(table).where(table.c.id == row.id)
                    .values(status=OutboundStatus.FAILED,
                            last_error=f"attempt {row.attempts}: {error}"))
    if row.kind == ADMIN_ALERT:
        log.error("an admin alert could not be delivered: %s", error)
        return
    refused = refusals.addresses_refused_alike(session, row, error, now)
    everyone = refusals.refuses_everyone(refused)
    player = None
    if everyone and row.channel == Channel.EMAIL:  # the server's refusal: no address is bad
        session.execute(sa.update(_players()).where(sa.func.lower(_players().c.email).in_(
            [a.lower() for a in refused])).values(email_failing=False))
    if row.player_id is not None and not everyone:
        players = _players()
        player = session.execute(sa.select(players).where(players.c.id == row.player_id)).first()
        if row.channel == Channel.EMAIL and error.reason == "recipient":
            session.execute(sa.update(players).where(players.c.id == row.player_id)
                            .values(email_failing=True))
        if row.channel == Channel.SMS and error.reason in ("opted_out", "recipient"):
            values: dict[str, Any] = {"preferred_channel": "email"}
            if error.reason == "opted_out":
                values["sms_opted_out"] = True
            session.execute(sa.update(players).where(players.c.id == row.player_id)
                            .values(**values))
    if (row.channel == Channel.SMS and player is not None and player.email
            and not player.email_failing and error.reason in ("opted_out", "recipient")):
        _add_row(session, now, game_id=row.game_id, seat=row.seat, player_id=row.player_id,
                 channel="email", kind=row.kind, to_address=player.email, subject=row.subject,
                 text=row.text, reply_to=row.reply_to, in_reply_to=row.in_reply_to,
                 dedupe_key=f"email-copy-of:{row.id}")

    game = session.get(Game, row.game_id) if row.game_id is not None else None
    who = f"player #{row.player_id}" if row.player_id is not None else "no player"
    notes = []
    if everyone:
        notes.append(f"The same refusal came for {len(refused)} different addresses in "
                     f"{int(refusals.WINDOW.total_seconds() // 60)} minutes: the server "
                     "refuses them, not the addresses, so none is marked as failing. Check "
                     "the transport's settings and its provider. This alert is sent at most "
                     "once an hour.")
    elif row.channel == Channel.EMAIL and error.reason == "recipient":
        notes.append("The player's email address is now marked as failing.")
    if error.reason == "opted_out":
        notes.append("The player opted out of SMS; they are reached by email from now on.")
    alert_admin(
        session, game, f"could not deliver a {row.kind} message to {row.to_address}",
        f"Outbox message #{row.id} ({row.channel}, {row.kind}) to {row.to_address} ({who}, "
        f"seat {row.seat}) failed after {row.attempts} attempt(s): {error}\n\n"
        + "\n".join(notes),
        now=now, dedupe=refusals.alert_key(row, error, now, everyone),
    )


def _add_row(session: Session, now: datetime, **values: Any) -> None:
    """Insert an outbox row unless its dedupe key exists (the hook enqueues it on commit)."""
    insert_once(session, OutboundMessage(status=OutboundStatus.PENDING, attempts=0, created_at=now,
                                         **values))


def relay_candidates(session: Session, now: datetime, settings: Settings,
                     limit: int = 500) -> list[int]:
    """Outbox rows that should be moving and are not: never enqueued, lost, or stuck."""
    table = outbox_table()
    grace = now - timedelta(seconds=settings.relay_grace_seconds)
    rows = session.execute(
        sa.select(table.c.id, table.c.status, table.c.attempts, table.c.claimed_at)
        .where(sa.or_(
            sa.and_(table.c.status == OutboundStatus.PENDING, table.c.created_at < grace),
            sa.and_(table.c.status == OutboundStatus.SENDING, lease_expired(table, now, settings)),
        ))
        .order_by(table.c.id).limit(limit)
    ).all()
    due: list[int] = []
    for row in rows:
        if row.status == OutboundStatus.PENDING and row.attempts and row.claimed_at is not None:
            # a retry is scheduled; only relay it when its backoff has surely passed
            wait = min(settings.retry_backoff_max, 2.0 ** row.attempts * 5)
            if row.claimed_at > now - timedelta(seconds=max(wait,
                                                            settings.relay_grace_seconds)):
                continue
        due.append(int(row.id))
    return due
