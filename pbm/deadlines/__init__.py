"""Deadlines for days-long play: the timing policy, quiet hours, when reminders fall due,
the deadline rows of open decisions and the stall guard (the sweep is ``pbm.sweep``).

Every pending decision has a ``Deadline`` row: ``pbm.games`` opens, moves and closes them
with the functions here as the game changes; ``pbm.sweep.sweep_deadlines`` acts on those
that come due. Reminders wait out the player's quiet hours; deadlines never do. Everything
takes ``now``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlalchemy as sa
from sqlmodel import Session, col, func, select

from engine.events import DecisionKind
from pbm import txcache
from pbm.models import (
    CommandLog,
    Deadline,
    DeadlineStatus,
    Game,
    GameEvent,
    Player,
    ServiceEventKind,
)

INVITATION = "INVITATION"
TIMEOUT_ORIGIN = "timeout"  # ``CommandLog.origin`` of a default played for a silent seat
STALL_REASON = "nobody has answered for a full round"
#: Service events after which silence is counted afresh (the admin stepped in).
FRESH_START_EVENTS = (ServiceEventKind.GAME_RESUMED, ServiceEventKind.SEAT_REPLACED)

DEFAULT_DECISION_HOURS: dict[str, float] = {
    "ACTION": 48,
    "VOTE": 24,
    "PLACE": 24,
    "CHOOSE": 24,
    "LETTER_OF_MARQUE": 24,
    "SHOOT": 24,
    "GIVE": 24,
    "TAKE": 24,
    "FOUNTAIN": 24,
}


@dataclass(frozen=True)
class TimingPolicy:
    """How long each kind of decision may take, and what happens when it runs out.

    ``reminder_fractions``: reminders when this share of the time has passed (0.5 = half
    way); ``final_warning_hours``: the last warning this long before the deadline;
    ``grace_hours``: how long after the deadline the timeout policy waits;
    ``on_timeout``: ``"default"`` (play a safe default and tell the table) or ``"pause"``
    (pause the game, alert the admin); quiet hours are local to each player;
    ``resume_floor_hours``: when a paused game resumes, every open decision is due no
    sooner than this (or its whole window, if that is shorter).
    """

    decision_hours: Mapping[str, float] = field(
        default_factory=lambda: dict(DEFAULT_DECISION_HOURS)
    )
    invitation_hours: float = 72
    reminder_fractions: tuple[float, ...] = (0.5,)
    final_warning_hours: float = 2
    grace_hours: float = 1
    on_timeout: str = "default"
    quiet_start: int = 22  # local hour; reminders wait until quiet_end
    quiet_end: int = 8
    auto_start: bool = True  # start as soon as every seat has joined
    away_hours: float = 72  # per seat and game: how long AWAY may hold its deadlines
    resume_floor_hours: float = 12  # after a pause, at least this long to answer

    def __post_init__(self) -> None:
        if self.on_timeout not in {"default", "pause"}:
            raise ValueError(f"on_timeout must be 'default' or 'pause', not {self.on_timeout!r}")
        for kind, hours in self.decision_hours.items():
            if hours <= 0:
                raise ValueError(f"{kind} hours must be positive, not {hours}")
        if not (0 <= self.quiet_start < 24 and 0 <= self.quiet_end < 24):
            raise ValueError("quiet hours must be whole hours 0-23")

    def hours_for(self, kind: str) -> float:
        """The time allowed for one decision of ``kind``."""
        if kind == INVITATION:
            return self.invitation_hours
        return float(self.decision_hours.get(kind, DEFAULT_DECISION_HOURS["ACTION"]))

    def with_hours(self, *, action: float | None = None, vote: float | None = None,
                   other: float | None = None) -> TimingPolicy:
        """A copy with the turn, vote and other decision windows changed."""
        hours = dict(self.decision_hours)
        for kind in hours:
            if kind == DecisionKind.ACTION and action is not None:
                hours[kind] = action
            elif kind == DecisionKind.VOTE and vote is not None:
                hours[kind] = vote
            elif kind not in {DecisionKind.ACTION, DecisionKind.VOTE} and other is not None:
                hours[kind] = other
        return replace(self, decision_hours=hours)

    def to_json(self) -> str:
        data = asdict(self)
        data["decision_hours"] = dict(self.decision_hours)
        data["reminder_fractions"] = list(self.reminder_fractions)
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> TimingPolicy:
        """Read a stored policy; missing keys take today's defaults."""
        data: dict[str, Any] = json.loads(text) if text else {}
        known = {f for f in cls.__dataclass_fields__}
        data = {k: v for k, v in data.items() if k in known}
        if "reminder_fractions" in data:
            data["reminder_fractions"] = tuple(data["reminder_fractions"])
        if "decision_hours" in data:
            data["decision_hours"] = {**DEFAULT_DECISION_HOURS, **data["decision_hours"]}
        return cls(**data)


def zone(name: str | None) -> ZoneInfo:
    """The time zone called ``name``, UTC when unknown."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def is_valid_zone(name: str) -> bool:
    """True if ``name`` is an IANA time zone this machine knows."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def in_quiet_hours(when: datetime, tz: str, policy: TimingPolicy) -> bool:
    """True if ``when`` falls in the player's local quiet hours."""
    if policy.quiet_start == policy.quiet_end:
        return False
    hour = when.astimezone(zone(tz)).hour
    if policy.quiet_start > policy.quiet_end:  # spans midnight (22 -> 8)
        return hour >= policy.quiet_start or hour < policy.quiet_end
    return policy.quiet_start <= hour < policy.quiet_end


def _quiet_end_after(when: datetime, tz: str, policy: TimingPolicy) -> datetime:
    local = when.astimezone(zone(tz))
    end = datetime.combine(local.date(), time(policy.quiet_end), tzinfo=local.tzinfo)
    if end <= local:
        end += timedelta(days=1)
    return end.astimezone(when.tzinfo)


def _quiet_start_before(when: datetime, tz: str, policy: TimingPolicy) -> datetime:
    local = when.astimezone(zone(tz))
    start = datetime.combine(local.date(), time(policy.quiet_start), tzinfo=local.tzinfo)
    if start > local:
        start -= timedelta(days=1)
    return (start - timedelta(minutes=15)).astimezone(when.tzinfo)


def polite_time(when: datetime, tz: str, policy: TimingPolicy, due_at: datetime) -> datetime:
    """``when``, moved out of the player's quiet hours: later to the morning if that is
    still before the deadline, else earlier to just before the quiet hours began."""
    if not in_quiet_hours(when, tz, policy):
        return when
    later = _quiet_end_after(when, tz, policy)
    if later < due_at:
        return later
    return _quiet_start_before(when, tz, policy)


def reminder_times(policy: TimingPolicy, opened_at: datetime, due_at: datetime
                   ) -> list[datetime]:
    """When reminders are due for a decision opened at ``opened_at`` (quiet hours aside);
    the last one is the final warning."""
    span = due_at - opened_at
    times = [opened_at + span * f for f in policy.reminder_fractions if 0 < f < 1]
    final = due_at - timedelta(hours=policy.final_warning_hours)
    if final > opened_at:
        times.append(final)
    return sorted(set(times))


def next_reminder(deadline: Deadline, policy: TimingPolicy, tz: str, now: datetime
                  ) -> datetime | None:
    """When the next reminder of ``deadline`` should go (None: no more reminders)."""
    times = reminder_times(policy, deadline.created_at, deadline.due_at)
    if deadline.reminders_sent >= len(times):
        return None
    when = polite_time(times[deadline.reminders_sent], tz, policy, deadline.due_at)
    return max(when, min(now, deadline.due_at))


def is_final_warning(deadline: Deadline, policy: TimingPolicy) -> bool:
    """True if the reminder about to be sent is the last one before the deadline."""
    times = reminder_times(policy, deadline.created_at, deadline.due_at)
    return deadline.reminders_sent == len(times) - 1


def open_deadline(
    session: Session,
    game: Game,
    seat: int | None,
    decision_key: str,
    kind: str,
    policy: TimingPolicy,
    tz: str,
    now: datetime,
) -> Deadline:
    """Create the deadline of one newly opened decision."""
    deadline = new_deadline(game, seat, decision_key, kind, policy, tz, now)
    session.add(deadline)
    return deadline


def new_deadline(game: Game, seat: int | None, decision_key: str, kind: str,
                 policy: TimingPolicy, tz: str, now: datetime) -> Deadline:
    """The deadline of one newly opened decision, not yet in any session."""
    deadline = Deadline(
        game_id=game.id,  # type: ignore[arg-type]
        seat=seat,
        decision_key=decision_key,
        kind=kind,
        due_at=now + timedelta(hours=policy.hours_for(kind)),
        created_at=now,
    )
    deadline.next_reminder_at = next_reminder(deadline, policy, tz, now)
    return deadline


@functools.cache
def _open_statement() -> Any:
    """The open deadlines of a game (``game_id`` a parameter), built once per process."""
    return select(Deadline).where(Deadline.game_id == sa.bindparam("game_id"),
                                  Deadline.status == DeadlineStatus.OPEN)


def open_deadlines(session: Session, game_id: int, *, kind: str | None = None,
                   seat: int | None = None) -> list[Deadline]:
    """The game's open deadlines (optionally of one kind / seat), earliest first.

    The game's open deadlines are read once per transaction (``pbm.txcache``, which adds
    those opened since); each call filters and orders them as they are now."""
    txcache.flush_pending(session, Deadline)
    rows = txcache.remember(session, ("deadlines", game_id), lambda: list(session.exec(
        _open_statement(), params={"game_id": game_id})))
    found = [d for d in rows if d.status == DeadlineStatus.OPEN
             and (kind is None or d.kind == kind) and (seat is None or d.seat == seat)]
    return sorted(found, key=lambda d: (d.due_at, d.id or 0))


def sync_decision_deadlines(
    session: Session,
    game: Game,
    open_decisions: Iterable[tuple[int, str, str]],
    policy: TimingPolicy,
    tz_of: Callable[[int], str],
    now: datetime,
    *,
    closed_status: DeadlineStatus = DeadlineStatus.DONE,
    adjust: Callable[[list[Deadline]], None] | None = None,
) -> list[Deadline]:
    """Make the open decision deadlines match ``open_decisions`` (seat, key, kind):
    close those no longer open, open the new ones (``adjust`` may change them first).
    Returns the new ones.

    Written at once without the unit of work (``_write_sync``): the closed ones in one
    UPDATE, the new ones in one INSERT ... RETURNING id."""
    wanted = {(seat, key): kind for seat, key, kind in open_decisions}
    existing = [d for d in open_deadlines(session, game.id) if d.kind != INVITATION]  # type: ignore[arg-type]
    have = {(d.seat, d.decision_key) for d in existing} & wanted.keys()
    closing = [d for d in existing if (d.seat, d.decision_key) not in wanted]
    created = [new_deadline(game, seat, key, kind, policy, tz_of(seat), now)
               for (seat, key), kind in wanted.items() if (seat, key) not in have]
    if adjust is not None:
        adjust(created)
    _write_sync(session, closing, closed_status, created, now)
    return created


def _write_sync(session: Session, closing: list[Deadline], status: DeadlineStatus,
                created: list[Deadline], now: datetime) -> None:
    """Close ``closing`` and insert ``created`` by Core statements on the session's
    connection. A closed deadline with other changes pending is closed as before, through
    its attributes (its next flush writes all); a clean one is written now and then holds
    the new values as loaded. The new ones become this session's persistent objects, as
    a SELECT makes them, and ``pbm.txcache`` learns them as a flush would tell it."""
    pending = [d for d in closing if sa.inspect(d).modified]
    for deadline in pending:
        deadline.status = status
        deadline.resolved_at = now
        deadline.next_reminder_at = None
    clean = [d for d in closing if d not in pending]
    if not clean and not created:
        return
    connection = session.connection()
    if clean:  # one row as a plain execute: the driver's executemany costs more for one
        closed = [{"deadline_id": d.id, "status": status, "now": now} for d in clean]
        connection.execute(_close_statement(), closed[0] if len(closed) == 1 else closed)
        for deadline in clean:
            deadline.__dict__.update(status=status, resolved_at=now, next_reminder_at=None)
    if created:
        names = _insert_columns()
        values = [{name: d.__dict__[name] for name in names} for d in created]
        ids = connection.execute(_insert_statement(),
                                 values[0] if len(values) == 1 else values).scalars().all()
        for deadline, deadline_id in zip(created, ids, strict=True):
            deadline.id = deadline_id
        txcache.as_loaded(session, created)  # persistent, in the identity map
        txcache.inserted(session, created)


def _table() -> sa.Table:
    return Deadline.__table__  # type: ignore[attr-defined, no-any-return]


@functools.cache
def _close_statement() -> sa.Update:
    """``UPDATE deadlines SET status, resolved_at, next_reminder_at = NULL WHERE id``, built
    once per process (its values are parameters; several rows go as one executemany)."""
    table = _table()
    return sa.update(table).where(table.c.id == sa.bindparam("deadline_id")).values(
        status=sa.bindparam("status", type_=table.c.status.type),
        resolved_at=sa.bindparam("now", type_=table.c.resolved_at.type),
        next_reminder_at=None)


@functools.cache
def _insert_columns() -> tuple[str, ...]:
    return tuple(c.name for c in _table().columns if c.name != "id")


@functools.cache
def _insert_statement() -> sa.Insert:
    """``INSERT INTO deadlines (every column but id) ... RETURNING id``, built once per
    process; several rows go in one statement, their ids in the order of the rows."""
    table = _table()
    return sa.insert(table).returning(table.c.id, sort_by_parameter_order=True)


def close_all(session: Session, game_id: int, status: DeadlineStatus, now: datetime) -> None:
    """Close every open deadline of a game (it ended or was aborted)."""
    for deadline in open_deadlines(session, game_id):
        deadline.status = status
        deadline.resolved_at = now
        deadline.next_reminder_at = None


def resume_floor(policy: TimingPolicy, kind: str) -> timedelta:
    """The least time an open decision of ``kind`` gets when a paused game resumes."""
    return timedelta(hours=min(policy.resume_floor_hours, policy.hours_for(kind)))


def resume_deadlines(session: Session, game_id: int, paused_at: datetime, now: datetime,
                     policy: TimingPolicy, tz_of: Callable[[int | None], str]
                     ) -> list[Deadline]:
    """Restart the clock of a paused game's open deadlines: each is due after at least the
    time it had left when the game paused, and never sooner than the floor
    (:func:`resume_floor`); its reminders restart after ``now`` (one that fell due during
    the pause is skipped: the RESUMED message carries the deadline)."""
    resumed = open_deadlines(session, game_id)
    for deadline in resumed:
        left = max(deadline.due_at - paused_at, resume_floor(policy, deadline.kind))
        deadline.due_at = now + left
        reschedule_reminders(deadline, policy, tz_of(deadline.seat), now)
    return resumed


def reschedule_reminders(deadline: Deadline, policy: TimingPolicy, tz: str, now: datetime
                         ) -> None:
    """Point ``next_reminder_at`` at the first scheduled reminder still ahead of ``now``
    (counting the passed ones as sent), or at none."""
    times = reminder_times(policy, deadline.created_at, deadline.due_at)
    sent = deadline.reminders_sent
    while sent < len(times) and polite_time(times[sent], tz, policy, deadline.due_at) <= now:
        sent += 1
    deadline.reminders_sent = sent
    deadline.next_reminder_at = (
        polite_time(times[sent], tz, policy, deadline.due_at) if sent < len(times) else None)


def shift_open_deadlines(session: Session, game_id: int, by: timedelta, *,
                         seat: int | None = None) -> list[Deadline]:
    """Move open deadlines (and their next reminder) later by ``by``; returns them."""
    moved = open_deadlines(session, game_id, seat=seat)
    for deadline in moved:
        deadline.due_at = deadline.due_at + by
        if deadline.next_reminder_at is not None:
            deadline.next_reminder_at = deadline.next_reminder_at + by
    return moved


# ---------------------------------------------------------------- stall guard


def silent_seats(session: Session, game_id: int) -> set[int]:
    """Seats that timed out since anyone last answered: seats of ``timeout`` commands after
    the game's last command from a player (any other origin), counted only since the
    admin last resumed the game or replaced a seat."""
    last_answer = session.exec(
        select(func.max(CommandLog.seq)).where(
            CommandLog.game_id == game_id, CommandLog.origin != TIMEOUT_ORIGIN)
    ).one()
    fresh_start = session.exec(
        select(func.max(GameEvent.created_at)).where(
            GameEvent.game_id == game_id, col(GameEvent.kind).in_(FRESH_START_EVENTS))
    ).one()
    query = select(CommandLog.seat).distinct().where(
        CommandLog.game_id == game_id,
        CommandLog.origin == TIMEOUT_ORIGIN,
        CommandLog.seq > (last_answer or 0),
    )
    if fresh_start is not None:
        query = query.where(col(CommandLog.created_at) >= fresh_start)
    return set(session.exec(query).all())


def is_stalled(session: Session, game_id: int, seat_count: int) -> bool:
    """True when every seat has had a decision timed out since anyone last answered: the
    table is playing defaults against itself and would do so forever."""
    return len(silent_seats(session, game_id)) >= seat_count


# ---------------------------------------------------------------- the sweep's report


@dataclass
class SweepReport:
    """What one sweep did (ids of the deadlines concerned)."""

    reminders: list[int] = field(default_factory=list)
    final_warnings: list[int] = field(default_factory=list)
    timeouts: list[int] = field(default_factory=list)
    paused_games: list[int] = field(default_factory=list)
    escalations: list[int] = field(default_factory=list)
    digests: list[int] = field(default_factory=list)  # outbox ids of "tell me everything"
    started_games: list[int] = field(default_factory=list)  # every seat had joined
    errors: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.reminders) + len(self.final_warnings) + len(self.timeouts) + len(
            self.escalations
        ) + len(self.digests) + len(self.started_games)


def quiet_policy(policy: TimingPolicy, player: Player) -> TimingPolicy:
    """The game's policy with the player's own quiet hours, if they set some."""
    if player.quiet_start is None or player.quiet_end is None:
        return policy
    return replace(policy, quiet_start=player.quiet_start, quiet_end=player.quiet_end)
