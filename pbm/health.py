"""Liveness, readiness, heartbeats and the operator's snapshot of the service.

- **Heartbeats**: the beat schedules ``pbm.heartbeat`` (and the deadline sweep records its
  own run); each stores a UTC timestamp under a component name. In Redis when the service
  has one (every process sees it), else in a file under ``DATA_DIR/heartbeats`` (the
  embedded default: one machine).
- **Readiness** (``readiness``): PostgreSQL (or SQLite) reachable and migrated to head, Redis
  reachable when configured, the beat's heartbeat recent. ``/readyz`` answers 503 naming
  the failing part; ``/healthz`` stays a liveness probe (the process answers).
- **Snapshot** (``snapshot``): the numbers an operator watches, read from the database at
  the moment of asking: unsent outbox rows and the oldest one's age, quarantined inbound,
  overdue decisions, games by status, transports failing. ``pbm.metrics`` exports them as
  gauges, ``pbm.alerts`` turns them into alert emails and the admin page's health panel.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import redis
import sqlalchemy as sa
from sqlmodel import Session

from pbm.config import Settings
from pbm.db import alembic_config, get_engine
from pbm.humanize import duration
from pbm.models import (
    UNSENT,
    Deadline,
    DeadlineStatus,
    Game,
    InboundMessage,
    InboundStatus,
    OutboundMessage,
    OutboundStatus,
)

log = logging.getLogger(__name__)

BEAT = "beat"
SWEEP = "sweep"
_KEY = "pbm:heartbeat:"
#: kinds of outbox rows that are not players' traffic (they do not say a transport works)
OPERATOR_KINDS = ("admin_alert",)


# ------------------------------------------------------------------ heartbeats


def _redis_url(settings: Settings) -> str | None:
    if settings.redis_url:
        return settings.redis_url
    broker = settings.celery_broker_url
    return broker if broker.startswith(("redis://", "rediss://", "unix://")) else None


def _redis(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)


def _heartbeat_file(settings: Settings, component: str) -> Path:
    return settings.data_dir / "heartbeats" / component


def record_heartbeat(component: str, at: float | None = None, *, settings: Settings) -> None:
    """Store ``at`` (default: now, UNIX seconds) as ``component``'s last heartbeat."""
    at = time.time() if at is None else at
    url = _redis_url(settings)
    if url:
        client = _redis(url)
        try:
            client.set(_KEY + component, repr(at))
        finally:
            client.close()
        return
    path = _heartbeat_file(settings, component)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(repr(at))
    tmp.replace(path)


def last_heartbeat(component: str, settings: Settings) -> float | None:
    """``component``'s last heartbeat (UNIX seconds), or None if never (or unreadable)."""
    url = _redis_url(settings)
    try:
        if url:
            client = _redis(url)
            try:
                value = client.get(_KEY + component)
            finally:
                client.close()
            return float(value) if value is not None else None
        return float(_heartbeat_file(settings, component).read_text())
    except (OSError, ValueError):
        return None
    except Exception as exc:  # redis errors: the readiness probe reports Redis itself
        log.debug("heartbeat %s unreadable: %s", component, exc)
        return None


# ------------------------------------------------------------------ readiness


@dataclass(frozen=True)
class Check:
    """One part of readiness: its name, whether it passes, and why not."""

    name: str
    ok: bool
    detail: str = ""


@lru_cache
def migration_heads() -> frozenset[str]:
    """The Alembic head revision(s) this code expects."""
    from alembic.script import ScriptDirectory  # here: alembic only when the probe asks

    return frozenset(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads())


def check_database(settings: Settings) -> Check:
    """The database answers and its schema is at the migrations' head."""
    try:
        with get_engine().connect() as conn:
            current: frozenset[str] = frozenset()
            if sa.inspect(conn).has_table("alembic_version"):  # else: an empty database
                current = frozenset(str(v) for v in conn.execute(
                    sa.text("select version_num from alembic_version")).scalars())
    except Exception as exc:
        return Check("database", False, f"unreachable: {type(exc).__name__}: "
                     f"{str(exc).splitlines()[0][:200] if str(exc) else ''}")
    heads = migration_heads()
    if current != heads:
        return Check("database", False, f"schema at {sorted(current) or 'nothing'}, "
                     f"expected head {sorted(heads)} (run `pbm db upgrade`)")
    return Check("database", True)


def check_redis(settings: Settings) -> Check | None:
    """Redis answers PING (None when the service runs without Redis)."""
    url = _redis_url(settings)
    if not url:
        return None
    client = _redis(url)
    try:
        client.ping()
    except Exception as exc:
        return Check("redis", False, f"unreachable: {type(exc).__name__}: {exc}"[:240])
    finally:
        client.close()
    return Check("redis", True)


def check_beat(settings: Settings, now: float | None = None) -> Check:
    """The beat's heartbeat (a task it schedules, run by a worker) is recent."""
    now = time.time() if now is None else now
    last = last_heartbeat(BEAT, settings)
    if last is None:
        return Check("beat", False, "no heartbeat yet: is `celery beat` (and a worker) running?")
    age = now - last
    if age > settings.ready_heartbeat_max_age:
        return Check("beat", False, f"last heartbeat {age:.0f} s ago "
                     f"(more than {settings.ready_heartbeat_max_age:.0f} s)")
    return Check("beat", True, f"last heartbeat {age:.0f} s ago")


def readiness(settings: Settings) -> list[Check]:
    """Every readiness check, in order: database, Redis (when used), beat."""
    checks = [check_database(settings)]
    redis_check = check_redis(settings)
    if redis_check is not None:
        checks.append(redis_check)
    if redis_check is None or redis_check.ok:
        checks.append(check_beat(settings))
    else:
        checks.append(Check("beat", False, "unknown: its heartbeat lives in Redis"))
    return checks


# ------------------------------------------------------------------ the operator's snapshot


@dataclass
class TransportState:
    """How one transport (channel) has fared lately."""

    channel: str
    last_success: datetime | None
    failing_rows: int  # players' messages that failed since the last success
    failing_since: datetime | None  # the oldest of those (or the last success, if later)
    last_attempt: datetime | None

    def failing_for(self, now: datetime) -> float:
        """Seconds this transport has failed every send (0 when it is not failing)."""
        if not self.failing_rows or self.failing_since is None:
            return 0.0
        return max(0.0, (now - self.failing_since).total_seconds())


@dataclass
class Snapshot:
    """What the service looks like now, from the database and the heartbeats."""

    at: datetime
    games_by_status: dict[str, int] = field(default_factory=dict)
    outbox_unsent: dict[str, int] = field(default_factory=dict)  # by channel
    outbox_oldest_unsent: datetime | None = None
    outbox_failed: dict[str, int] = field(default_factory=dict)  # by channel
    inbound_by_status: dict[str, int] = field(default_factory=dict)
    inbound_oldest_unprocessed: datetime | None = None
    deadlines_overdue: int = 0
    oldest_due_reminder: datetime | None = None
    transports: dict[str, TransportState] = field(default_factory=dict)
    heartbeats: dict[str, float | None] = field(default_factory=dict)

    @property
    def quarantined(self) -> int:
        return self.inbound_by_status.get(InboundStatus.QUARANTINED, 0)

    def outbox_oldest_age(self) -> float:
        """Seconds the oldest unsent message has waited (0 when none)."""
        if self.outbox_oldest_unsent is None:
            return 0.0
        return max(0.0, (self.at - self.outbox_oldest_unsent).total_seconds())

    def sweep_late(self, settings: Settings) -> float:
        """Seconds the deadline sweep is late: past its interval since it last ran, or a
        reminder that was due and not sent (whichever is worse; 0 when on time)."""
        late = 0.0
        last = self.heartbeats.get(SWEEP)
        if last is not None:
            late = max(late, self.at.timestamp() - last - settings.sweep_interval)
        if self.oldest_due_reminder is not None:
            late = max(late, (self.at - self.oldest_due_reminder).total_seconds()
                       - settings.sweep_interval)
        return max(0.0, late)


def _utc(value: Any) -> datetime | None:
    if value is None:
        return None
    moment: datetime = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _by(session: Session, column: Any, *where: Any) -> dict[str, int]:
    query = sa.select(column, sa.func.count()).group_by(column)
    if where:
        query = query.where(*where)
    return {str(k): int(n) for k, n in session.execute(query).all()}


def snapshot(session: Session, now: datetime, settings: Settings) -> Snapshot:
    """Read the operator's numbers (a handful of indexed aggregate queries)."""
    out = OutboundMessage.__table__.c  # type: ignore[attr-defined]
    unsent = out.status.in_(UNSENT)
    shot = Snapshot(at=now)
    shot.games_by_status = _by(session, Game.__table__.c.status)  # type: ignore[attr-defined]
    shot.outbox_unsent = _by(session, out.channel, unsent)
    shot.outbox_oldest_unsent = _utc(session.execute(
        sa.select(sa.func.min(out.created_at)).where(unsent)).scalar())
    shot.outbox_failed = _by(session, out.channel, out.status == OutboundStatus.FAILED)
    inbound = InboundMessage.__table__.c  # type: ignore[attr-defined]
    shot.inbound_by_status = _by(session, inbound.status)
    shot.inbound_oldest_unprocessed = _utc(session.execute(
        sa.select(sa.func.min(inbound.received_at))
        .where(inbound.status.in_((InboundStatus.NEW, InboundStatus.PROCESSING)))).scalar())
    deadlines = Deadline.__table__.c  # type: ignore[attr-defined]
    shot.deadlines_overdue = int(session.execute(
        sa.select(sa.func.count())
        .where(deadlines.status == DeadlineStatus.OPEN, deadlines.due_at < now)
    ).scalar() or 0)
    shot.oldest_due_reminder = _utc(session.execute(
        sa.select(sa.func.min(deadlines.next_reminder_at))
        .where(deadlines.status == DeadlineStatus.OPEN, deadlines.next_reminder_at < now)).scalar())
    for channel in ("email", "sms"):
        shot.transports[channel] = _transport_state(session, out, channel)
    shot.heartbeats = {name: last_heartbeat(name, settings) for name in (BEAT, SWEEP)}
    return shot


def _transport_state(session: Session, out: Any, channel: str) -> TransportState:
    players = sa.and_(out.channel == channel, out.kind.notin_(OPERATOR_KINDS))
    last_success = _utc(session.execute(
        sa.select(sa.func.max(out.sent_at))
        .where(players, out.status == OutboundStatus.SENT)).scalar())
    failing = [players, out.status.in_((*UNSENT, OutboundStatus.FAILED)), out.attempts > 0,
               out.last_error.is_not(None)]
    if last_success is not None:
        failing.append(out.claimed_at > last_success)
    count, oldest, last_attempt = session.execute(
        sa.select(sa.func.count(), sa.func.min(out.created_at), sa.func.max(out.claimed_at))
        .where(*failing)).one()
    since = _utc(oldest)
    if since is not None and last_success is not None:
        since = max(since, last_success)
    return TransportState(channel, last_success, int(count or 0), since, _utc(last_attempt))


def problems(shot: Snapshot, settings: Settings) -> list[tuple[str, str]]:
    """``(kind, text)`` of each thing the operator should know now (the alert kinds)."""
    found: list[tuple[str, str]] = []
    age = shot.outbox_oldest_age()
    if age > settings.alert_outbox_age_seconds:
        count = sum(shot.outbox_unsent.values())
        found.append(("outbox_stuck", f"The oldest unsent message has waited {_span(age)} "
                      f"({count} unsent in all): are the workers running and the "
                      "transports answering?"))
    late = shot.sweep_late(settings)
    if late > settings.alert_sweep_late_seconds:
        found.append(("sweep_late", f"The deadline sweep runs {_span(late)} late: reminders "
                      "and timeouts are waiting. Is `celery beat` running?"))
    for channel, state in sorted(shot.transports.items()):
        failing = state.failing_for(shot.at)
        if failing > settings.alert_transport_failing_seconds:
            found.append((f"transport_failing:{channel}",
                          f"The {channel} transport has failed every send for {_span(failing)} "
                          f"({state.failing_rows} message(s) failed or waiting to be retried; "
                          f"last success: {_when(state.last_success)})."))
    if shot.quarantined:
        found.append(("quarantined", f"{shot.quarantined} inbound message(s) are quarantined: "
                      "see the admin page's Quarantine list."))
    return found


def _span(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} seconds"
    return duration(timedelta(seconds=seconds))


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S UTC") if value is not None else "never"
