""""Tell me everything": hourly digests of the public events a player has not been told
yet, never in their quiet hours.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, func, select

from pbm import deadlines, outbox
from pbm.games.base import due_at_of, get_game, load_state, lock_game, policy_of, seat_of
from pbm.message_payloads import Notice
from pbm.messages import Channel
from pbm.models import (
    Game,
    GameEvent,
    GameStatus,
    OutboundMessage,
    Player,
    Seat,
    ServiceEventKind,
)
from pbm.render import RECAP_SKIP
from pbm.replies.parse_types import stored_reason
from pbm.replies.reasons import DIGEST_NOTICE

DIGEST_EVERY = timedelta(hours=1)  # at most one digest per player and game this often
NOT_NEWS = frozenset({ServiceEventKind.TABLE_TALK})  # relayed live or folded into the next prompt


def send_digests(session: Session, now: datetime, report: deadlines.SweepReport | None = None,
                 *, limit: int = 500) -> list[int]:
    """Players who chose "tell me everything" get the public events they have not been
    told yet, batched: at most one digest per hour per game, never in their quiet hours.

    Run by ``pbm.sweep.sweep_deadlines`` (every sweep); each seat in its own savepoint.
    Returns the ids of the outbox rows written (also in ``report.digests``).
    """
    report = report if report is not None else deadlines.SweepReport()
    news = select(GameEvent.id).where(
        GameEvent.game_id == Seat.game_id,
        col(GameEvent.seq) > Seat.last_event_seq,
        col(GameEvent.audience).is_(None),
        col(GameEvent.kind).not_in(RECAP_SKIP | NOT_NEWS),
    ).exists()
    candidates = session.exec(
        select(Seat.game_id, Seat.seat_index)
        .join(Player, col(Player.id) == Seat.player_id)
        .join(Game, col(Game.id) == Seat.game_id)
        .where(col(Player.tell_everything).is_(True), Game.status == GameStatus.RUNNING, news)
        .order_by(col(Seat.game_id), col(Seat.seat_index))
        .limit(limit)
    ).all()
    written: list[int] = []
    for game_id, seat_index in candidates:
        try:
            with session.begin_nested():
                written += _send_digest(session, game_id, seat_index, now)
        except Exception as exc:  # one bad seat must not stop the others
            report.errors.append(f"digest for game {game_id} seat {seat_index + 1}: {exc}")
    report.digests += written
    return written


def last_digest_at(session: Session, game_id: int, seat_index: int) -> datetime | None:
    """When this seat was last sent a "tell me everything" digest."""
    return session.exec(
        select(func.max(OutboundMessage.created_at)).where(
            OutboundMessage.game_id == game_id, OutboundMessage.seat == seat_index,
            col(OutboundMessage.dedupe_key).startswith(f"g{game_id}:s{seat_index}:digest:"))
    ).one()


def _send_digest(session: Session, game_id: int, seat_index: int, now: datetime) -> list[int]:
    last = last_digest_at(session, game_id, seat_index)
    if last is not None and now - last < DIGEST_EVERY:
        return []
    game = get_game(session, game_id)
    seat, player = seat_of(session, game_id, seat_index)
    if deadlines.in_quiet_hours(now, player.time_zone,
                             deadlines.quiet_policy(policy_of(game), player)):
        return []  # the morning's digest (or the next prompt's recap) has it
    game = lock_game(session, game_id)
    if game.status != GameStatus.RUNNING or not player.tell_everything:
        return []
    session.refresh(seat)
    unseen = outbox.events_for(session, game_id, seat_index, after=seat.last_event_seq,
                               limit=None)  # the seat's own private news ride along
    news = [e for e in unseen if e.audience is None and e.kind not in RECAP_SKIP | NOT_NEWS]
    if not news:
        return []
    state = load_state(game)
    sms_only = outbox.channels_for(player) == [Channel.SMS]
    if sms_only:  # one short text: how much happened, the latest of it, the talk waiting
        talk = sum(e.kind == ServiceEventKind.TABLE_TALK for e in unseen)
        headline: Any = (f"{len(news)} new event{'s' if len(news) > 1 else ''}"
                    + (f" and {talk} SAY message{'s' if talk > 1 else ''} (LOG)" if talk else "")
                    + f"; latest: {news[-1].text}")
    else:
        headline = stored_reason(DIGEST_NOTICE(game=game.name))
    rows = outbox.notify(
        session, game, seat, player, Notice(headline=headline, digest=True), now=now,
        events=unseen,
        state=None if sms_only else state,  # an SMS digest is the news, not the prompt again
        deadline=due_at_of(session, game_id, seat_index),
        dedupe=f"g{game_id}:s{seat_index}:digest:{unseen[-1].seq}")
    return [r.id for r in rows if r.id is not None]
