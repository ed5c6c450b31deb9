"""The service operations the admin page calls, under the names it uses.

``nudge_now`` is ``pbm.games.nudge`` and ``requeue_inbound`` is ``pbm.inbound.requeue``
(the CLI calls those too); refusals of a requeue come out as ``OpError``. Both run inside
the caller's transaction.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from pbm import games, inbound


class OpError(ValueError):
    """The operation does not apply; the message says why."""


def nudge_now(session: Session, game_id: int, now: datetime) -> int:
    """Remind every awaited seat now; returns how many reminders were written."""
    return games.nudge(session, game_id, now=now)


def requeue_inbound(session: Session, message_id: int) -> list[int]:
    """Put a quarantined inbound message back in line; returns the ids to enqueue."""
    try:
        return inbound.requeue(session, message_id)
    except inbound.RequeueError as exc:
        raise OpError(str(exc)) from exc
