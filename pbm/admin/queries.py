"""Read-only queries behind the admin pages: plain data for the templates.

Nothing here writes; every change goes through ``pbm.games`` (see ``pbm.admin.actions``).
Times are aware UTC datetimes; ``now`` is passed in so the overdue markers are testable.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from email import message_from_bytes, policy
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from pbm.inbound import decode_raw
from pbm.messages import Channel
from pbm.models import (
    CommandLog,
    Deadline,
    DeadlineStatus,
    Game,
    GameEvent,
    GameStatus,
    InboundMessage,
    InboundStatus,
    OutboundMessage,
    Player,
    Seat,
)

REMINDER_KINDS = ("reminder", "final_warning")


@dataclass(frozen=True)
class Awaited:
    """A decision the game waits for: which seat, what kind, since when, due when."""

    seat: int | None
    name: str
    kind: str
    since: datetime
    due_at: datetime
    reminders_sent: int
    overdue: bool


@dataclass(frozen=True)
class GameRow:
    """One line of the games list."""

    id: int
    name: str
    status: str
    players: list[str]
    awaited: list[Awaited]
    next_deadline: datetime | None
    overdue: bool
    last_activity: datetime
    pause_reason: str | None


@dataclass(frozen=True)
class SeatInfo:
    """One seat of a game page, with how its player is reached."""

    index: int
    name: str
    email: str | None
    phone: str | None
    preferred_channel: str
    time_zone: str
    invitation_status: str
    sms_opted_out: bool
    email_failing: bool
    reply_token: str
    away_until: datetime | None = None  # AWAY: this seat's deadlines wait until then


@dataclass(frozen=True)
class HistoryItem:
    """A message to or from a seat, for its history."""

    at: datetime
    direction: str  # "out" or "in"
    channel: str
    kind: str
    summary: str
    body: str
    status: str
    error: str | None
    id: int
    address: str = ""  # to (outbound) or from (inbound)
    sent_at: datetime | None = None
    attempts: int = 0
    delivery_status: str | None = None  # the provider's latest word (outbound)
    delivered_at: datetime | None = None


@dataclass
class GameDetail:
    """Everything the game page shows (secrets excluded: see ``spoilers``)."""

    game: Game
    seats: list[SeatInfo]
    awaited: list[Awaited]
    public_view: dict[str, Any] | None
    log: list[GameEvent]
    history: dict[int, list[HistoryItem]]
    reminders: list[OutboundMessage]
    unseated_history: list[HistoryItem]
    timing: dict[str, Any] = field(default_factory=dict)


def _seat_names(session: Session, game_ids: list[int]) -> dict[int, dict[int, str]]:
    rows = session.exec(
        select(Seat.game_id, Seat.seat_index, Player.display_name)
        .join(Player, Player.id == Seat.player_id)  # type: ignore[arg-type]
        .where(Seat.game_id.in_(game_ids))  # type: ignore[attr-defined]
        .order_by(col(Seat.game_id), col(Seat.seat_index))
    ).all()
    names: dict[int, dict[int, str]] = defaultdict(dict)
    for game_id, index, name in rows:
        names[game_id][index] = name
    return names


def _open_deadlines(session: Session, game_ids: list[int]) -> dict[int, list[Deadline]]:
    rows = session.exec(
        select(Deadline)
        .where(Deadline.game_id.in_(game_ids))  # type: ignore[attr-defined]
        .where(Deadline.status == DeadlineStatus.OPEN)
        .order_by(col(Deadline.due_at))
    ).all()
    by_game: dict[int, list[Deadline]] = defaultdict(list)
    for row in rows:
        by_game[row.game_id].append(row)
    return by_game


def _awaited(deadlines: list[Deadline], names: dict[int, str], now: datetime,
             paused: bool = False) -> list[Awaited]:
    """The open decisions; a paused game's clock is stopped, so nothing in it is overdue."""
    return [
        Awaited(
            seat=d.seat,
            name=names.get(d.seat, "?") if d.seat is not None else "everyone",
            kind=d.kind,
            since=d.created_at,
            due_at=d.due_at,
            reminders_sent=d.reminders_sent,
            overdue=d.due_at <= now and not paused,
        )
        for d in deadlines
    ]


def _last_activity(session: Session, game_ids: list[int]) -> dict[int, datetime]:
    latest: dict[int, datetime] = {}
    for game_column, column in (
        (col(CommandLog.game_id), col(CommandLog.created_at)),
        (col(GameEvent.game_id), col(GameEvent.created_at)),
        (col(InboundMessage.game_id), col(InboundMessage.received_at)),
    ):
        rows = session.exec(
            select(game_column, sa.func.max(column))
            .where(game_column.in_(game_ids))
            .group_by(game_column)
        ).all()
        for game_id, at in rows:
            if game_id is not None and at is not None and (
                    game_id not in latest or at > latest[game_id]):
                latest[game_id] = at
    return latest


def list_games(session: Session, now: datetime, status: str | None = None) -> list[GameRow]:
    """The games list, newest first, optionally only those with ``status``."""
    query = select(Game).order_by(Game.created_at.desc(), Game.id.desc())  # type: ignore[union-attr,attr-defined]
    if status:
        query = query.where(Game.status == status)
    games = session.exec(query).all()
    ids = [g.id for g in games if g.id is not None]
    if not ids:
        return []
    names = _seat_names(session, ids)
    deadlines = _open_deadlines(session, ids)
    activity = _last_activity(session, ids)
    rows = []
    for game in games:
        assert game.id is not None
        awaited = _awaited(deadlines.get(game.id, []), names.get(game.id, {}), now,
                           paused=game.status == GameStatus.PAUSED)
        last = max(filter(None, [game.updated_at, activity.get(game.id)]))
        rows.append(
            GameRow(
                id=game.id,
                name=game.name,
                status=game.status,
                players=[names[game.id][i] for i in sorted(names.get(game.id, {}))],
                awaited=awaited,
                next_deadline=min((a.due_at for a in awaited), default=None),
                overdue=any(a.overdue for a in awaited),
                last_activity=last,
                pause_reason=game.pause_reason,
            )
        )
    return rows


def status_counts(session: Session) -> dict[str, int]:
    """How many games are in each status (for the filter bar)."""
    rows = session.exec(select(Game.status, sa.func.count()).group_by(Game.status)).all()
    counts = {s.value: 0 for s in GameStatus}
    counts.update({status: n for status, n in rows})
    return counts


def _outbound_item(m: OutboundMessage) -> HistoryItem:
    body = m.sms_body if m.channel == Channel.SMS and m.sms_body else m.text
    return HistoryItem(
        at=m.created_at,  # when the service decided to send it (sent_at may lag)
        direction="out",
        channel=m.channel,
        kind=m.kind,
        summary=m.subject if m.channel == Channel.EMAIL else (m.sms_body or m.text)[:80],
        body=body,
        status=m.status,
        error=m.last_error,
        id=m.id or 0,
        address=m.to_address,
        sent_at=m.sent_at,
        attempts=m.attempts,
        delivery_status=m.delivery_status,
        delivered_at=m.delivered_at,
    )


def _inbound_item(m: InboundMessage) -> HistoryItem:
    return HistoryItem(
        at=m.received_at,
        direction="in",
        channel=m.channel,
        kind="reply",
        summary=_inbound_summary(m),
        body=_inbound_body(m),
        status=m.status,
        error=m.error,
        id=m.id or 0,
        address=m.sender,
        attempts=m.attempts,
    )


def _inbound_body(m: InboundMessage) -> str:
    """The readable part of a raw inbound message (SMS body or the email's text part)."""
    try:
        if m.channel == Channel.SMS:
            form = json.loads(m.raw)
            return str(form.get("Body", "")) if isinstance(form, dict) else m.raw

        parsed = message_from_bytes(decode_raw(m.raw), policy=policy.default)
        part = parsed.get_body(preferencelist=("plain", "html"))
        return str(part.get_content()) if part is not None else m.raw
    except Exception:  # a malformed message is shown raw, never crashes
        return m.raw


def _inbound_summary(m: InboundMessage) -> str:
    """The first line the player wrote (the whole text is in the body)."""
    lines = [" ".join(line.split()) for line in _inbound_body(m).splitlines()]
    return next((line for line in lines if line), "(empty)")[:80]


def load_timing(game: Game) -> dict[str, Any]:
    """The game's timing policy as stored (empty when unreadable)."""
    try:
        data = json.loads(game.timing_json or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def game_detail(
    session: Session, game_id: int, now: datetime, public_view: dict[str, Any] | None
) -> GameDetail | None:
    """The game page's data, or None when there is no such game.

    ``public_view`` is computed by the caller from the stored state (engine.public_view).
    """
    game = session.get(Game, game_id)
    if game is None:
        return None
    seat_rows = session.exec(
        select(Seat, Player)
        .join(Player, Player.id == Seat.player_id)  # type: ignore[arg-type]
        .where(Seat.game_id == game_id)
        .order_by(Seat.seat_index)  # type: ignore[arg-type]
    ).all()
    seats = [
        SeatInfo(
            index=seat.seat_index,
            name=player.display_name,
            email=player.email,
            phone=player.phone,
            preferred_channel=player.preferred_channel,
            time_zone=player.time_zone,
            invitation_status=seat.invitation_status,
            sms_opted_out=player.sms_opted_out,
            email_failing=player.email_failing,
            reply_token=seat.reply_token,
            away_until=seat.away_until,
        )
        for seat, player in seat_rows
    ]
    names = {s.index: s.name for s in seats}
    awaited = _awaited(_open_deadlines(session, [game_id]).get(game_id, []), names, now,
                       paused=game.status == GameStatus.PAUSED)
    log = session.exec(
        select(GameEvent)
        .where(GameEvent.game_id == game_id)
        .where(GameEvent.audience.is_(None))  # type: ignore[union-attr]
        .order_by(GameEvent.seq.desc())  # type: ignore[attr-defined]
        .limit(200)
    ).all()
    outbound = session.exec(
        select(OutboundMessage)
        .where(OutboundMessage.game_id == game_id)
        .order_by(OutboundMessage.id)  # type: ignore[arg-type]
    ).all()
    inbound = session.exec(
        select(InboundMessage)
        .where(InboundMessage.game_id == game_id)
        .order_by(InboundMessage.id)  # type: ignore[arg-type]
    ).all()
    history: dict[int, list[HistoryItem]] = {s.index: [] for s in seats}
    unseated: list[HistoryItem] = []
    for item, seat in [(_outbound_item(m), m.seat) for m in outbound] + [
        (_inbound_item(m), m.seat) for m in inbound
    ]:
        history.get(seat, unseated).append(item)  # type: ignore[arg-type]
    for items in history.values():
        items.sort(key=lambda i: (i.at, i.direction, i.id), reverse=True)
    unseated.sort(key=lambda i: (i.at, i.id), reverse=True)
    return GameDetail(
        game=game,
        seats=seats,
        awaited=awaited,
        public_view=public_view,
        log=list(log),
        history=history,
        reminders=[m for m in outbound if m.kind in REMINDER_KINDS],
        unseated_history=unseated,
        timing=load_timing(game),
    )


def quarantined(session: Session, limit: int = 200) -> list[InboundMessage]:
    """Inbound messages whose processing failed, oldest first."""
    return list(
        session.exec(
            select(InboundMessage)
            .where(InboundMessage.status == InboundStatus.QUARANTINED)
            .order_by(InboundMessage.received_at)  # type: ignore[arg-type]
            .limit(limit)
        ).all()
    )


def inbound_preview(m: InboundMessage) -> str:
    """A readable preview of an inbound message (public for the quarantine page)."""
    return _inbound_body(m)
