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
from typing import Any

from celery import Task
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm.exc import StaleDataError

from pbm.config import get_settings
from pbm.ratelimit import OutboundLimiter
from workers.app import (
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
from workers.hooks import delivering_inline, install_outbox_hook

log = logging.getLogger(__name__)

TRANSIENT = (OperationalError, StaleDataError, DBAPIError, ConnectionError, TimeoutError)

install_outbox_hook()


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
        from pbm.db import is_conflict

        return is_conflict(exc) or bool(getattr(exc, "connection_invalidated", False))
    return isinstance(exc, TRANSIENT)


def _retry_transient(task: Task, exc: BaseException) -> Any:
    """Retry with backoff and jitter when ``exc`` is transient; re-raise it otherwise."""
    if not _is_transient(exc):
        raise exc
    from workers.delivery import backoff

    retries = task.request.retries
    if retries >= 10:
        raise exc
    raise task.retry(exc=exc, countdown=backoff(retries + 1, get_settings()), max_retries=10)


@app.task(name=TASK_PROCESS_INBOUND, bind=True)
def process_inbound(self: Task, inbound_id: int) -> str:
    """Apply one stored inbound message (once), and answer its sender.

    The messages the reply wrote are delivered here, right after its commit, rather than
    by a task of their own behind every reply already queued: the next prompt leaves at
    once, and a reply costs one task, not two (``deliver_written``)."""
    from pbm import inbound

    with delivering_inline() as written:
        try:
            return str(inbound.process(int(inbound_id), utcnow()))
        except Exception as exc:
            return _retry_transient(self, exc)  # type: ignore[no-any-return]
        finally:
            deliver_written(written)


def deliver_written(ids: list[int]) -> None:
    """Deliver outbox rows this task's transactions wrote, as ``send_outbound_batch`` would
    (retries and throttled rows go on as tasks of their own); never raises: what could not
    be delivered here is enqueued, and what could not be enqueued the relay finds."""
    from workers.delivery import BATCH_LIMIT, deliver_many
    from workers.enqueue import enqueue_outbound, enqueue_outbound_together

    ordered = sorted(set(ids))
    for start in range(0, len(ordered), BATCH_LIMIT):
        batch = ordered[start:start + BATCH_LIMIT]
        try:
            outcomes = deliver_many(batch, utcnow(), get_settings(), limiter())
        except Exception as exc:
            log.warning("could not deliver outbox rows %s here (%s): enqueued", batch, exc)
            enqueue_outbound_together(batch)
            continue
        for outbox_id, outcome in outcomes.items():
            if outcome.retry_in is not None:
                enqueue_outbound([outbox_id], countdown=outcome.retry_in)


@app.task(name=TASK_SEND_OUTBOUND, bind=True)
def send_outbound(self: Task, outbox_id: int) -> str:
    """Deliver one outbox row (at least once; never twice at the same time)."""
    from workers.delivery import deliver

    try:
        outcome = deliver(int(outbox_id), utcnow(), get_settings(), limiter())
    except Exception as exc:
        return _retry_transient(self, exc)  # type: ignore[no-any-return]
    if outcome.retry_in is not None:
        # Transport busy or rate limited: come back later. Not counted against Celery's
        # retry budget; the row's own attempt counter bounds transport failures.
        self.apply_async(args=[outbox_id], countdown=outcome.retry_in)
    return outcome.status


@app.task(name=TASK_SEND_BATCH, bind=True)
def send_outbound_batch(self: Task, outbox_ids: list[int]) -> dict[str, str]:
    """Deliver the outbox rows one transaction wrote, together (two commits for all); a
    row to retry, or all when the rate limit is full, goes on alone (``send_outbound``)."""
    from workers.delivery import deliver_many
    from workers.enqueue import enqueue_outbound

    try:
        outcomes = deliver_many([int(i) for i in outbox_ids], utcnow(), get_settings(),
                                limiter())
    except Exception as exc:
        return _retry_transient(self, exc)  # type: ignore[no-any-return]
    for outbox_id, outcome in outcomes.items():
        if outcome.retry_in is not None:
            enqueue_outbound([outbox_id], countdown=outcome.retry_in)
    return {str(i): outcome.status for i, outcome in outcomes.items()}


@app.task(name=TASK_RELAY_OUTBOX)
def relay_outbox() -> int:
    """Enqueue outbox rows that were never enqueued, lost with the broker, or left stuck."""
    from pbm.db import session_scope
    from workers.delivery import relay_candidates
    from workers.enqueue import enqueue_outbound

    with session_scope(write=False) as session:
        ids = relay_candidates(session, utcnow(), get_settings())
    if ids:
        log.info("relay: enqueueing %d outbox row(s)", len(ids))
    return enqueue_outbound(ids)


@app.task(name=TASK_RELAY_INBOUND)
def relay_inbound() -> int:
    """Enqueue inbound rows never processed (lost enqueue, broker restart, killed worker)."""
    from pbm import inbound
    from pbm.db import session_scope
    from workers.enqueue import enqueue_inbound

    with session_scope(write=False) as session:
        ids = inbound.relay_candidates(session, utcnow(), get_settings())
    if ids:
        log.info("relay: enqueueing %d inbound message(s)", len(ids))
    return enqueue_inbound(ids)


@app.task(name=TASK_SWEEP_DEADLINES, bind=True)
def sweep_deadlines(self: Task) -> int:
    """Reminders, final warnings and timeouts of every running game (``pbm.games``)."""
    from pbm.db import run_transaction
    from pbm.timing import sweep_deadlines as sweep

    try:
        report = run_transaction(lambda session: sweep(session, utcnow()))
    except Exception as exc:
        return _retry_transient(self, exc)  # type: ignore[no-any-return]
    for error in report.errors:
        log.error("deadline sweep: %s", error)
    return int(report.total)


@app.task(name=TASK_POLL_IMAP, bind=True)
def poll_imap(self: Task) -> int:
    """Fetch unseen mail from the configured mailbox and process it."""
    from workers.enqueue import enqueue_inbound
    from workers.imap import poll

    settings = get_settings()
    try:
        created = poll(settings, utcnow())
    except Exception as exc:
        log.warning("IMAP poll failed: %s", exc)
        return 0  # the next scheduled poll tries again
    return enqueue_inbound(created)
