"""Enqueue new outbox rows right after the transaction that wrote them commits.

``pbm.games`` writes outbox rows in the same transaction as the game change; a session
event collects the ids of new ``OutboundMessage`` rows at flush and hands them to the
workers only after COMMIT (never for a rolled-back one). If that hand-over is lost
(broker down, process killed between commit and enqueue), ``relay_outbox`` finds the row.

Nothing is installed on import: every process that writes outbox rows calls
``install_process_hooks`` at start-up (the worker on ``worker_init``, the web app in its
lifespan, ``pbm game``/``pbm quarantine``, the demo).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session

from pbm.db import install_session_hooks
from pbm.models import OutboundMessage
from pbm.session_keys import NEW_OUTBOX_IDS  # also written by pbm.outbox_rows.insert_once
from workers.enqueue import enqueue_outbound_together

_installed = False


def _after_flush(session: Session, _context: Any) -> None:
    ids = [obj.id for obj in session.new if isinstance(obj, OutboundMessage) and obj.id]
    if ids:
        session.info.setdefault(NEW_OUTBOX_IDS, []).extend(ids)


#: while set (``delivering_inline``), committed outbox ids are collected here instead
_INLINE: ContextVar[list[int] | None] = ContextVar("pbm_deliver_inline", default=None)


def _after_commit(session: Session) -> None:
    ids = session.info.pop(NEW_OUTBOX_IDS, None)
    if ids:
        inline = _INLINE.get()
        if inline is not None:
            inline.extend(ids)
            return

        enqueue_outbound_together(ids)


@contextmanager
def delivering_inline() -> Iterator[list[int]]:
    """Collect the outbox ids committed inside the block instead of enqueueing them: the
    caller (a worker task that has just processed a reply) delivers them itself right
    after, and enqueues whatever it could not. Rows lost on the way (the worker killed
    in between) are found by ``relay_outbox``, as after a lost enqueue."""
    collected: list[int] = []
    token = _INLINE.set(collected)
    try:
        yield collected
    finally:
        _INLINE.reset(token)


def _after_soft_rollback(session: Session, previous: Any) -> None:
    # Only the outermost rollback discards: ids from a rolled-back savepoint are harmless
    # (the send task finds no row and does nothing).
    if previous.parent is None:
        session.info.pop(NEW_OUTBOX_IDS, None)


def install_outbox_hook() -> None:
    """Install the session events once per process."""
    global _installed
    if _installed:
        return
    event.listen(Session, "after_flush", _after_flush)
    event.listen(Session, "after_commit", _after_commit)
    event.listen(Session, "after_soft_rollback", _after_soft_rollback)
    _installed = True


def install_process_hooks() -> None:
    """The start-up of a process that writes outbox rows: the session hooks of every
    database user (``pbm.db.install_session_hooks``) and the outbox hook."""
    install_session_hooks()
    install_outbox_hook()


def uninstall_outbox_hook() -> None:
    """Remove the session events (tests that installed them for a while)."""
    global _installed
    if not _installed:
        return
    event.remove(Session, "after_flush", _after_flush)
    event.remove(Session, "after_commit", _after_commit)
    event.remove(Session, "after_soft_rollback", _after_soft_rollback)
    _installed = False
