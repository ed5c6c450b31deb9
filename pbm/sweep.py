"""The deadline sweep: every few minutes, due reminders, expired deadlines and digests,
each handed to ``pbm.games`` through its public API (games never imports the sweep).

``sweep_deadlines(session, now)`` (run by beat every few minutes) sends reminders and the
final warning, and after the grace period applies the game's timeout policy: ``"default"``
plays the engine's default for the seat (``TIMEOUT``, see ``engine/defaults.py``) and tells
the table what and why, ``"pause"`` pauses the game and alerts the admin. The stall guard
(``is_stalled``) stops ``"default"`` from playing a silent table forever: once every seat
has timed out since anyone last answered, the game pauses and the admin is alerted.
The policy and the deadline rows live in ``pbm.deadlines``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from sqlalchemy.orm import Mapped
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from pbm import games
from pbm.deadlines import SweepReport
from pbm.models import Deadline, DeadlineStatus, Game, GameStatus

log = logging.getLogger(__name__)


def open_deadlines_due(session: Session, moment: Mapped[datetime] | Mapped[datetime | None],
                       running: SelectOfScalar[int | None], now: datetime,
                       limit: int) -> list[int]:
    """Ids of open deadlines of running games whose ``moment`` column has come, oldest first."""
    return [deadline_id for deadline_id in session.exec(
        select(col(Deadline.id))
        .where(
            Deadline.status == DeadlineStatus.OPEN,
            col(moment) <= now,
            col(Deadline.game_id).in_(running),
        )
        .order_by(col(moment))
        .limit(limit)
    ).all() if deadline_id is not None]


def sweep_deadlines(session: Session, now: datetime, *, limit: int = 500) -> SweepReport:
    """Send due reminders, act on expired deadlines of running games, then send the
    hourly "tell me everything" digests (``pbm.games.send_digests``).

    Each deadline is handled in its own savepoint: one failure is logged in the report and
    leaves the others alone. The caller commits, then enqueues ``pending_outbox_ids``.
    """
    report = SweepReport()
    running = select(col(Game.id)).where(
        col(Game.status).in_([GameStatus.RUNNING, GameStatus.INVITING]))
    for deadline_id in open_deadlines_due(session, col(Deadline.next_reminder_at), running,
                                           now, limit):
        _guarded(session, report, deadline_id, now, lambda d: d.next_reminder_at,
                 lambda d: games.send_reminder(session, d, now, report))
    for deadline_id in open_deadlines_due(session, col(Deadline.due_at), running, now,
                                           limit):
        _guarded(session, report, deadline_id, now, lambda d: d.due_at,
                 lambda d: games.handle_expired(session, d, now, report))
    for game_id in games.games_everyone_joined(session)[:limit]:
        _start_missed(session, report, game_id, now)
    games.send_digests(session, now, report, limit=limit)
    return report


def _start_missed(session: Session, report: SweepReport, game_id: int, now: datetime) -> None:
    """A game every seat joined but nobody started (a JOIN lost between two transactions,
    a worker killed after the last JOIN): start it now."""
    try:
        with session.begin_nested():
            if games.start_if_everyone_joined(session, game_id, now=now) is not None:
                log.warning("game %s: every seat had joined; started by the sweep", game_id)
                report.started_games.append(game_id)
    except Exception as exc:
        log.exception("game %s: the missed start failed", game_id)
        report.errors.append(f"game {game_id} start: {exc}")


def _guarded(session: Session, report: SweepReport, deadline_id: int, now: datetime,
             moment: Callable[[Deadline], datetime | None],
             act: Callable[[Deadline], None]) -> None:
    """``act`` on the deadline if, read under its game's lock, it is still open and its
    ``moment`` has come: two sweeps may run at once (a beat takeover, a backlog of sweep
    tasks) and the other may have reminded or played it while this one waited."""
    try:
        with session.begin_nested():
            deadline = session.get(Deadline, deadline_id)
            if deadline is None:
                return
            games.lock_game(session, deadline.game_id)
            session.refresh(deadline)
            when = moment(deadline)
            if deadline.status == DeadlineStatus.OPEN and when is not None and when <= now:
                act(deadline)
    except Exception as exc:  # one bad deadline must not stop the sweep
        log.exception("deadline %s failed", deadline_id)
        report.errors.append(f"deadline {deadline_id}: {exc}")
