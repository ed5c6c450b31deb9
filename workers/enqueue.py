"""Hand work to the workers after a commit. Never raises: the relays pick up what is lost.

Used by the web process (webhooks, admin actions) and by tasks. The rows are already in the
database when these run, so a broker that is down delays the work but loses nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from pbm import metrics
from pbm.inbound import spool
from pbm.inbound.storage import Stored
from workers.app import TASK_PROCESS_INBOUND, TASK_SEND_BATCH, TASK_SEND_OUTBOUND, app
from workers.delivery import BATCH_LIMIT

log = logging.getLogger(__name__)


def _send(task: str, ids: Iterable[int], countdown: float | None = None) -> int:
    sent = 0
    for row_id in ids:
        try:
            app.send_task(task, args=[int(row_id)], countdown=countdown)
            sent += 1
        except Exception as exc:  # broker down: the relay will enqueue it again
            log.warning("could not enqueue %s(%s): %s", task, row_id, exc)
    return sent


def enqueue_inbound(ids: Iterable[int]) -> int:
    """Ask a worker to process these inbound rows; how many were handed over."""
    return _send(TASK_PROCESS_INBOUND, ids)


def hand_over_stored(channel: str, stored: Stored) -> None:
    """An inbound message is in the database: count it and hand it to a worker (only when
    this delivery created it: a duplicate is neither counted nor processed again)."""
    if stored.created:
        metrics.reply_received(channel)
        enqueue_inbound([stored.id])


def drain_spool() -> int:
    """Store what this host's spool kept while the database was away (``pbm.inbound.spool``),
    each message counted and handed over as the webhook would have; how many."""
    return spool.drain(hand_over_stored)


def enqueue_outbound(ids: Iterable[int], countdown: float | None = None) -> int:
    """Ask a worker to deliver these outbox rows; how many were handed over."""
    return _send(TASK_SEND_OUTBOUND, ids, countdown)


def enqueue_outbound_together(ids: Iterable[int]) -> int:
    """The rows one transaction wrote: delivered together (``send_outbound_batch``, two
    commits for a batch, in id order), a lone row as ``send_outbound``; how many rows."""
    ordered = sorted(set(int(i) for i in ids))
    if len(ordered) == 1:
        return enqueue_outbound(ordered)
    handed = 0
    for start in range(0, len(ordered), BATCH_LIMIT):
        batch = ordered[start:start + BATCH_LIMIT]
        try:
            app.send_task(TASK_SEND_BATCH, args=[batch])
            handed += len(batch)
        except Exception as exc:  # broker down: the relay will enqueue them again
            log.warning("could not enqueue %s(%s): %s", TASK_SEND_BATCH, batch, exc)
    return handed
