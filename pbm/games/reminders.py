"""Reminders and final warnings for an open deadline, saying what would be played for a
seat that stays silent.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

import engine
from pbm import deadlines, outbox
from pbm.deadlines import INVITATION, TimingPolicy
from pbm.games.base import load_state, lock_game, policy_of, seat_of
from pbm.message_payloads import FinalWarning, Reminder
from pbm.models import Deadline, DeadlineStatus, GameStatus


def send_reminder(session: Session, deadline: Deadline, now: datetime,
                  report: deadlines.SweepReport) -> None:
    """One reminder (or the final warning) for an open deadline."""
    game = lock_game(session, deadline.game_id)
    if game.status not in {GameStatus.RUNNING, GameStatus.INVITING} or deadline.seat is None:
        return
    policy = policy_of(game)
    seat, player = seat_of(session, game.id, deadline.seat)  # type: ignore[arg-type]
    state = None
    if deadline.kind != INVITATION:
        state = load_state(game)
        if state.decision_id(deadline.seat) != deadline.decision_key:
            deadline.status, deadline.resolved_at = DeadlineStatus.DONE, now
            deadline.next_reminder_at = None
            return
    if now >= deadline.due_at:  # too late to remind: the timeout policy acts next
        deadline.next_reminder_at = None
        session.add(deadline)
        return
    final = deadlines.is_final_warning(deadline, policy)
    silent, silent_sms = _if_silent(state, deadline.seat, policy)
    payload = (FinalWarning if final else Reminder)(
        policy=policy.on_timeout, invitation=deadline.kind == INVITATION,
        grace_hours=policy.grace_hours, if_silent=silent, if_silent_sms=silent_sms)
    outbox.notify(session, game, seat, player, payload, now=now, state=state,
                  deadline=deadline.due_at,
                  dedupe=f"g{game.id}:s{deadline.seat}:remind:{deadline.id}:"
                         f"{deadline.reminders_sent}")
    (report.final_warnings if final else report.reminders).append(deadline.id)  # type: ignore[arg-type]
    deadline.reminders_sent += 1
    deadline.next_reminder_at = deadlines.next_reminder(
        deadline, deadlines.quiet_policy(policy, player), player.time_zone, now)
    session.add(deadline)


def _if_silent(state: engine.GameState | None, seat: int, policy: TimingPolicy
               ) -> tuple[str | None, str | None]:
    """What a reminder says is played for this very decision if the seat stays silent
    (in full, and short for an SMS); None when nothing is."""
    if state is None or policy.on_timeout != "default":
        return None, None
    return (engine.describe_default(state, seat),
            engine.describe_default(state, seat, short=True))
