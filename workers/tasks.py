"""The tasks: thin, named explicitly, taking ids only, safe to run twice.

State lives in SQL; each task claims its row before acting (see ``pbm.inbound.process`` and
``workers.delivery``). Only transient failures are retried (database unreachable or in
conflict, transport busy), with exponential backoff and jitter; anything else is recorded on
the row (quarantine, failed) instead of looping.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, NoReturn

import sqlalchemy as sa
from celery import Task
from celery.signals import worker_init, worker_process_init
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm.exc import StaleDataError

from pbm import alerts, health, inbound, metrics
from pbm.config import Settings, get_settings
from pbm.db import get_engine, is_conflict, run_transaction, session_scope
from pbm.logs import context
from pbm.models import InboundMessage, Processed, ProcessResult
from pbm.ratelimit import OutboundLimiter
from pbm.sweep import sweep_deadlines as sweep
from workers.app import (
    TASK_CHECK_ALERTS,
    TASK_HEARTBEAT,
    TASK_POLL_IMAP,
    TASK_PROCESS_INBOUND,
    TASK_RELAY_INBOUND,
    TASK_RELAY_OUTBOX,
    TASK_SEND_BATCH,
    TASK_SEND_OUTBOUND,
    TASK_SWEEP_DEADLINES,
    app,
    uses_redis,
)
from workers.delivery import BATCH_LIMIT, backoff, deliver, deliver_many, relay_candidates
from workers.enqueue import (
    drain_spool,
    enqueue_inbound,
    enqueue_outbound,
    enqueue_outbound_together,
)
from workers.hooks import delivering_inline, install_process_hooks
from workers.imap import poll

log = logging.getLogger(__name__)

TRANSIENT = (OperationalError, StaleDataError, DBAPIError, ConnectionError, TimeoutError)


@worker_init.connect
@worker_process_init.connect
def _install_hooks(**_: Any) -> None:
    """The worker's start-up: the session hooks, in the main process before its pool
    starts (forked children inherit them) and again in each child (a no-op after a fork;
    needed if the pool spawns)."""
    install_process_hooks()


def utcnow() -> datetime:
    return datetime.now(UTC)


@lru_cache
def limiter() -> OutboundLimiter:
    """This process's outbound limiter (shared buckets in Redis when Redis is the broker)."""
    settings = get_settings()
    redis_url = (settings.redis_url or settings.celery_broker_url) if uses_redis(settings) \
        else None
    return OutboundLimiter(settings, redis_url)


def _is_transient(exc: BaseException) -> bool:
    if isinstance(exc, DBAPIError) and not isinstance(exc, OperationalError):
        return is_conflict(exc) or bool(getattr(exc, "connection_invalidated", False))
    return isinstance(exc, TRANSIENT)


def _retry_transient(task: Task[..., Any], exc: Exception, settings: Settings) -> NoReturn:
    """Retry with backoff and jitter when ``exc`` is transient; re-raise it otherwise."""
    if not _is_transient(exc):
        raise exc

    retries = task.request.retries
    if retries >= 10:
        raise exc
    raise task.retry(exc=exc, countdown=backoff(retries + 1, settings), max_retries=10)


@app.task(name=TASK_PROCESS_INBOUND, bind=True)
def process_inbound(self: Task[[int], str], inbound_id: int) -> str:
    """Apply one stored inbound message (once), and answer its sender.

    The messages the reply wrote are delivered here, right after its commit, rather than
    by a task of their own behind every reply already queued: the next prompt leaves at
    once, and a reply costs one task, not two (``deliver_written``)."""
    settings = get_settings()
    token = metrics.start_reply()
    with context(inbound_id=int(inbound_id)), delivering_inline() as written:
        try:
            try:
                processed = inbound.process(int(inbound_id), utcnow())
            except Exception as exc:
                _retry_transient(self, exc, settings)
            _count_reply(int(inbound_id), processed, token)
        finally:
            deliver_written(written, settings)
    return str(processed)  # the task's result, as logged: "done", "ignored: why"


def deliver_written(ids: list[int], settings: Settings) -> None:
    """Deliver outbox rows this task's transactions wrote, as ``send_outbound_batch`` would
    (retries and throttled rows go on as tasks of their own); never raises: what could not
    be delivered here is enqueued, and what could not be enqueued the relay finds."""
    ordered = sorted(set(ids))
    for start in range(0, len(ordered), BATCH_LIMIT):
        batch = ordered[start:start + BATCH_LIMIT]
        try:
            outcomes = deliver_many(batch, utcnow(), settings, limiter())
        except Exception as exc:
            log.warning("could not deliver outbox rows %s here (%s): enqueued", batch, exc)
            enqueue_outbound_together(batch)
            continue
        for outbox_id, outcome in outcomes.items():
            if outcome.retry_in is not None:
                enqueue_outbound([outbox_id], countdown=outcome.retry_in)


def _count_reply(inbound_id: int, processed: Processed, token: Any) -> None:
    """Count the processed reply (``pbm.metrics``) and log its outcome with its game and seat."""
    noted = metrics.noted_reply()
    if processed.result is ProcessResult.SKIPPED or not metrics.enabled():
        metrics.reply_processed(None, processed, token)
        return
    if noted is not None and noted.channel is not None:  # the usual case: nothing to read
        outcome = metrics.reply_processed(noted.channel, processed, token)
        with context(game_id=noted.game_id, seat=noted.seat):
            log.info("inbound processed: %s", outcome)
        return
    table = InboundMessage.__table__.c  # type: ignore[attr-defined]
    try:
        with get_engine().connect() as conn:  # one primary-key read, no ORM session
            row = conn.execute(sa.select(table.channel, table.game_id, table.seat)
                               .where(table.id == inbound_id)).first()
        channel, game_id, seat = tuple(row) if row else (None, None, None)
    except Exception as exc:  # counting must not fail the task
        log.warning("metrics: inbound %s not counted: %s", inbound_id, exc)
        return
    outcome = metrics.reply_processed(channel, processed, token)
    with context(game_id=game_id, seat=seat):
        log.info("inbound processed: %s", outcome or processed.result)


@app.task(name=TASK_SEND_OUTBOUND, bind=True)
def send_outbound(self: Task[[int], str], outbox_id: int) -> str:
    """Deliver one outbox row (at least once; never twice at the same time)."""
    settings = get_settings()
    try:
        with context(outbound_id=int(outbox_id)):
            outcome = deliver(int(outbox_id), utcnow(), settings, limiter())
    except Exception as exc:
        _retry_transient(self, exc, settings)
    if outcome.retry_in is not None:
        # Transport busy or rate limited: come back later. Not counted against Celery's
        # retry budget; the row's own attempt counter bounds transport failures.
        self.apply_async(args=(outbox_id,), countdown=outcome.retry_in)
    return outcome.status


@app.task(name=TASK_SEND_BATCH, bind=True)
def send_outbound_batch(self: Task[[list[int]], dict[str, str]],
                        outbox_ids: list[int]) -> dict[str, str]:
    """Deliver the outbox rows one transaction wrote, together (two commits for all); a
    row to retry, or all when the rate limit is full, goes on alone (``send_outbound``)."""
    settings = get_settings()
    try:
        outcomes = deliver_many([int(i) for i in outbox_ids], utcnow(), settings, limiter())
    except Exception as exc:
        _retry_transient(self, exc, settings)
    for outbox_id, outcome in outcomes.items():
        if outcome.retry_in is not None:
            enqueue_outbound([outbox_id], countdown=outcome.retry_in)
    return {str(i): outcome.status for i, outcome in outcomes.items()}


@app.task(name=TASK_RELAY_OUTBOX)
def relay_outbox() -> int:
    """Enqueue outbox rows that were never enqueued, lost with the broker, or left stuck."""
    with session_scope(write=False) as session:
        ids = relay_candidates(session, utcnow(), get_settings())
    if ids:
        log.info("relay: enqueueing %d outbox row(s)", len(ids))
    return enqueue_outbound(ids)


@app.task(name=TASK_RELAY_INBOUND)
def relay_inbound() -> int:
    """Enqueue inbound rows never processed (lost enqueue, broker restart, killed worker),
    after storing what this host's spool kept while the database was away."""
    drain_spool()
    with session_scope(write=False) as session:
        ids = inbound.relay_candidates(session, utcnow(), get_settings())
    if ids:
        log.info("relay: enqueueing %d inbound message(s)", len(ids))
    return enqueue_inbound(ids)


@app.task(name=TASK_SWEEP_DEADLINES, bind=True)
def sweep_deadlines(self: Task[[], int]) -> int:
    """Reminders, final warnings and timeouts of every running game (``pbm.games``)."""
    settings = get_settings()
    started = metrics.timed()
    try:
        report = run_transaction(lambda session: sweep(session, utcnow()))
    except Exception as exc:
        metrics.sweep_failed()
        _retry_transient(self, exc, settings)
    metrics.sweep_done(report, metrics.timed() - started)
    for error in report.errors:
        log.error("deadline sweep: %s", error)
    try:
        health.record_heartbeat(health.SWEEP, settings=settings)
    except Exception as exc:  # Redis down: the readiness probe says so
        log.warning("sweep heartbeat not recorded: %s", exc)
    return int(report.total)


@app.task(name=TASK_HEARTBEAT)
def heartbeat() -> float:
    """The beat's heartbeat: scheduled by beat, run by a worker (both must be alive)."""
    now = utcnow().timestamp()
    health.record_heartbeat(health.BEAT, now, settings=get_settings())
    return now


@app.task(name=TASK_CHECK_ALERTS)
def check_alerts() -> list[str]:
    """Email the admin about what needs an operator now (each kind at most once an hour)."""
    return alerts.check(utcnow(), get_settings())


@app.task(name=TASK_POLL_IMAP, bind=True)
def poll_imap(self: Task[[], int]) -> int:
    """Fetch unseen mail from the configured mailbox and process it."""
    settings = get_settings()
    try:
        created = poll(settings, utcnow())
    except Exception as exc:
        log.warning("IMAP poll failed: %s", exc)
        return 0  # the next scheduled poll tries again

    metrics.reply_received("email", len(created))
    return enqueue_inbound(created)
