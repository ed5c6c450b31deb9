"""An expired deadline: the default played for a silent seat (and the table told), or the
game paused and the admin alerted.
"""

from __future__ import annotations

import json
import shlex
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

import engine
from pbm import deadlines, outbox
from pbm.deadlines import INVITATION
from pbm.games.base import due_at_of, load_state, lock_game, policy_of, seat_of, seats_of
from pbm.games.operations import pause
from pbm.games.play import submit
from pbm.message_payloads import Notice, TimedOut
from pbm.models import Deadline, DeadlineStatus, Game, GameEvent, GameStatus


def default_command(state: engine.GameState, seat: int) -> engine.Command:
    """The safe answer played for a seat that ran out of time (the engine's choice)."""
    return engine.default_command(state, seat)


def handle_expired(session: Session, deadline: Deadline, now: datetime,
                   report: deadlines.SweepReport) -> None:
    """After deadline + grace: play the default (and tell the table) or pause the game.
    A default that completes a round of silence (``deadlines.is_stalled``) pauses the game
    too, with the admin alerted and the table told."""
    game = lock_game(session, deadline.game_id)
    policy = policy_of(game)
    if now < deadline.due_at + timedelta(hours=policy.grace_hours):
        return
    if game.status not in {GameStatus.RUNNING, GameStatus.INVITING}:
        return
    assert game.id is not None
    if deadline.kind == INVITATION:
        _escalate(session, game, deadline, now, report,
                  f"seat {(deadline.seat or 0) + 1} has not answered the invitation; "
                  f"start with --force or replace the seat")
        return
    assert deadline.seat is not None and deadline.id is not None
    game_id, silent_index, deadline_id = game.id, deadline.seat, deadline.id  # for the closure
    state = load_state(game)
    if state.decision_id(deadline.seat) != deadline.decision_key:
        deadline.status, deadline.resolved_at = DeadlineStatus.DONE, now
        deadline.next_reminder_at = None
        return
    silent_seat, player = seat_of(session, game.id, deadline.seat)
    if policy.on_timeout == "pause":
        _escalate(session, game, deadline, now, report,
                  f"{player.display_name} did not answer in time ({deadline.kind})")
        pause(session, game.id, f"waiting for {player.display_name}, who ran out of time",
              now=now)
        report.paused_games.append(game.id)
        return
    told: dict[str, Any] = {}

    def tell_the_silent_seat_first(post: engine.GameState) -> None:
        """TIMED_OUT to the silent seat before any prompt this default opens (the outbox
        delivers each seat's messages in the order they were written)."""
        notice = session.exec(
            select(GameEvent).where(GameEvent.game_id == game.id,
                                    GameEvent.kind == "timeout.played")
            .order_by(col(GameEvent.seq).desc())).first()
        assert notice is not None
        data = json.loads(notice.data_json or "{}")
        told.update(text=notice.text, played=data.get("command"), why=data.get("why"))
        outbox.notify(session, game, silent_seat, player,
                      TimedOut(played=told["played"], why=told["why"]),
                      now=now, state=post, deadline=due_at_of(session, game_id, silent_index),
                      dedupe=f"g{game.id}:s{deadline.seat}:timeout:{deadline.id}")

    result = submit(session, game.id, deadline.seat, engine.Timeout(),
                    origin=deadlines.TIMEOUT_ORIGIN, now=now, decision_id=deadline.decision_key,
                    first_tell=tell_the_silent_seat_first)
    if not result.ok:
        raise RuntimeError(f"the default for seat {deadline.seat + 1} failed: "
                           f"{result.message}")
    deadline.status, deadline.resolved_at = DeadlineStatus.TIMED_OUT, now
    deadline.next_reminder_at = None
    session.add(deadline)
    report.timeouts.append(deadline_id)
    game = lock_game(session, game_id)
    after = load_state(game)
    for other, other_player in seats_of(session, game_id):
        if other.seat_index == deadline.seat or other.seat_index in result.notified:
            continue  # told first, or its new message carries the news in its recap
        outbox.notify(session, game, other, other_player, Notice(headline=told["text"]),
                      now=now, state=after,
                      deadline=due_at_of(session, game_id, other.seat_index),
                      dedupe=f"g{game.id}:s{other.seat_index}:timeout:{deadline.id}")
    seat_count = len(seats_of(session, game_id))
    if game.status == GameStatus.RUNNING and deadlines.is_stalled(session, game_id, seat_count):
        _pause_stalled(session, game, deadline, now, report)


def _pause_stalled(session: Session, game: Game, deadline: Deadline, now: datetime,
                   report: deadlines.SweepReport) -> None:
    """Every seat ran out of time since anyone last answered: stop playing defaults."""
    assert game.id is not None
    outbox.alert_admin(
        session, game, "paused: nobody answers",
        f"{game.name}: every seat has run out of time at least once since anyone last "
        f"answered, so the game is paused instead of playing defaults forever. Replace "
        f"seats or ask the players, then: pbm game resume {shlex.quote(game.name)}",
        now=now, dedupe=f"stalled:{deadline.id}")
    pause(session, game.id, deadlines.STALL_REASON, now=now)
    report.paused_games.append(game.id)


def _escalate(session: Session, game: Game, deadline: Deadline, now: datetime,
              report: deadlines.SweepReport, why: str) -> None:
    deadline.escalated = True
    deadline.status, deadline.resolved_at = DeadlineStatus.TIMED_OUT, now
    deadline.next_reminder_at = None
    session.add(deadline)
    outbox.alert_admin(session, game, "a deadline passed", f"{game.name}: {why}.", now=now,
                       dedupe=f"deadline:{deadline.id}")
    report.escalations.append(deadline.id)  # type: ignore[arg-type]
