"""Two service operations the admin page needs that ``pbm.games`` / ``pbm.inbound`` lack.

Kept apart and small so they can move into the service later: ``nudge_now`` sends the next
reminder of every open decision now (through ``pbm.games.send_reminder``, the same path as
the deadline sweep), and ``requeue_inbound`` puts a quarantined message back in line.
Both run inside the caller's transaction.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from pbm.models import GameStatus, InboundMessage, InboundStatus


class OpError(ValueError):
    """The operation does not apply; the message says why."""


def nudge_now(session: Session, game_id: int, now: datetime) -> int:
    """Remind every awaited seat now; returns how many reminders were written.

    Each counts as the deadline's next scheduled reminder (so a nudge never doubles the
    schedule) and respects nothing but the deadline itself: the admin asked for it now.
    """
    from pbm import games, timing

    game = games.lock_game(session, game_id)
    if game.status not in {GameStatus.RUNNING, GameStatus.INVITING}:
        raise OpError(f"game {game.name!r} is {game.status}: nobody is awaited")
    report = timing.SweepReport()
    for deadline in timing.open_deadlines(session, game_id):
        if deadline.seat is not None:
            games.send_reminder(session, deadline, now, report)
    return len(report.reminders) + len(report.final_warnings)


def requeue_inbound(session: Session, message_id: int) -> list[int]:
    """Mark a quarantined inbound message new again (its last error stays for the record);
    returns the ids to enqueue."""
    message = session.get(InboundMessage, message_id, with_for_update=True)
    if message is None:
        raise OpError(f"no inbound message {message_id}")
    if message.status != InboundStatus.QUARANTINED:
        raise OpError(f"message {message_id} is {message.status}, not quarantined")
    message.status = InboundStatus.NEW
    session.add(message)
    return [message_id]
