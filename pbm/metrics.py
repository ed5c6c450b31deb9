"""Prometheus metrics of the web process and every Celery worker.

Counters and histograms are counted where things happen (a reply processed, a message
sent, a sweep run). Several processes count (the web process, each worker's pool
children), so with ``PROMETHEUS_MULTIPROC_DIR`` set, prometheus-client's multiprocess mode
keeps each process's values in a file of that directory and a scrape sums them. The files
of dead processes stay and keep counting in the sum, so a worker killed and restarted never
makes a counter go backwards; empty the directory only when the whole service is
restarted (every process stopped), never while one runs. The Procfile sets it to
``var/metrics``. Without the variable only the scraped
process's own counts are shown (fine for a single process, e.g. the embedded default).

Gauges (unsent messages, games by status, ...) are not counted: ``DatabaseCollector``
reads them from the database at scrape time (``pbm.health.snapshot``), which is correct
across processes and restarts and costs a few indexed aggregate queries per scrape.

Labels are bounded: channel/transport (email, sms), an outcome or reason from a fixed set,
a component name. Never a game name, an address or a token.
"""

from __future__ import annotations

import contextvars
import logging
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector

from pbm import health
from pbm.config import get_settings
from pbm.db import session_scope
from pbm.models import (
    GameStatus,
    InboundMessage,
    InboundStatus,
    OutboundMessage,
    Processed,
    ProcessResult,
)

log = logging.getLogger(__name__)

if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # before the first metric writes its file
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)

CHANNELS = ("email", "sms")


class ReplyOutcome(StrEnum):
    """What became of a processed reply (label ``outcome`` of ``pbm_replies_total``)."""

    APPLIED = "applied"
    REFUSED = "refused"
    NOT_UNDERSTOOD = "not_understood"
    IGNORED = "ignored"
    LOOP_GUARD = "loop_guard"
    RATE_LIMITED = "rate_limited"
    UNREADABLE = "unreadable"
    QUARANTINED = "quarantined"


OUTCOMES = tuple(o.value for o in ReplyOutcome)


class SweepResult(StrEnum):
    """How a deadline sweep ended (label ``result`` of ``pbm_sweep_runs_total``)."""

    OK = "ok"
    ERROR = "error"


class Guard(StrEnum):
    """A loop guard or rate limit (label ``guard`` of ``pbm_guard_trips_total``)."""

    LOOP_GUARD = "loop_guard"  # automatic mail dropped
    INBOUND_RATE = "inbound_rate"
    NOT_UNDERSTOOD_CAP = "not_understood_cap"
    OUTBOUND_RATE = "outbound_rate"
TRANSPORT_REASONS = ("recipient", "opted_out", "network", "busy", "auth", "config", "rejected",
                     "other")

REPLIES_RECEIVED = Counter(
    "pbm_replies_received", "Inbound messages stored (webhook or IMAP), by channel.",
    ["channel"])
REPLIES = Counter(
    "pbm_replies", "Inbound messages processed, by channel and outcome (applied, refused, "
    "not_understood, ignored, loop_guard, rate_limited, unreadable, quarantined).",
    ["channel", "outcome"])
REPLY_LATENCY = Histogram(
    "pbm_reply_first_message_seconds", "From a reply's arrival to the first outgoing "
    "message it caused being accepted by the transport.", ["channel"],
    buckets=(0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600))
SENT = Counter("pbm_outbox_sent", "Messages a transport accepted.", ["transport"])
SEND_FAILURES = Counter(
    "pbm_outbox_send_failures", "Failed send attempts, by transport, reason and whether the "
    "failure was permanent (the row failed) or will be retried.",
    ["transport", "reason", "permanent"])
DEADLINE_ACTIONS = Counter(
    "pbm_deadline_actions", "What the deadline sweep did: reminder, final_warning, timeout, "
    "pause, escalation, digest.", ["action"])
SWEEPS = Counter("pbm_sweep_runs", "Deadline sweeps run, by result (ok, error).", ["result"])
SWEEP_SECONDS = Histogram("pbm_sweep_duration_seconds", "How long one deadline sweep took.",
                          buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30))
GUARD_TRIPS = Counter(
    "pbm_guard_trips", "Loop-guard and rate-limit trips: loop_guard (automatic mail dropped), "
    "inbound_rate, not_understood_cap, outbound_rate.", ["guard"])
ALERTS = Counter("pbm_alerts_sent", "Operator alert emails written, by kind.", ["kind"])

@dataclass(frozen=True)
class ReplyNote:
    """What the inbound pipeline noted about the reply it applied (no read needed later)."""

    outcome: ReplyOutcome
    channel: str | None = None
    game_id: int | None = None
    seat: int | None = None


_reply_note: contextvars.ContextVar[ReplyNote | None] = contextvars.ContextVar(
    "pbm_reply_note", default=None)


@lru_cache
def enabled() -> bool:
    return bool(get_settings().metrics_enabled)


def reset() -> None:
    """Read ``METRICS_ENABLED`` again (tests and benchmarks change it)."""
    enabled.cache_clear()


def _channel(value: str | None) -> str:
    return value if value in CHANNELS else "other"


# ------------------------------------------------------------------ counting


def reply_received(channel: str, count: int = 1) -> None:
    """``count`` new inbound messages were stored."""
    if enabled() and count:
        REPLIES_RECEIVED.labels(_channel(channel)).inc(count)


def note_reply(done: bool, rejected: bool, understood: bool, *, channel: str | None = None,
               game_id: int | None = None, seat: int | None = None) -> None:
    """Called by the inbound pipeline when a routed reply was applied: what it amounted to,
    and its channel, game and seat (counted by ``reply_processed`` once the transaction
    committed)."""
    if done:
        kind = ReplyOutcome.APPLIED
    elif rejected:
        kind = ReplyOutcome.REFUSED
    elif understood:
        kind = ReplyOutcome.APPLIED  # HELP, LOG, STATUS: answered, nothing to refuse
    else:
        kind = ReplyOutcome.NOT_UNDERSTOOD
    _reply_note.set(ReplyNote(kind, channel, game_id, seat))


def start_reply() -> contextvars.Token[ReplyNote | None]:
    """Before processing one inbound message: forget the previous one's note."""
    return _reply_note.set(None)


def noted_reply() -> ReplyNote | None:
    """The note of the reply being processed (None: not applied through the pipeline)."""
    return _reply_note.get()


def reply_processed(channel: str | None, result: Processed,
                    token: contextvars.Token[ReplyNote | None] | None = None
                    ) -> ReplyOutcome | None:
    """Count one processed inbound message from ``pbm.inbound.process``'s result; the
    outcome counted (None for ``skipped``: another worker had it)."""
    noted = _reply_note.get()
    if token is not None:
        _reply_note.reset(token)
    outcome = classify(result, noted.outcome if noted else None)
    if outcome is None or not enabled():
        return outcome
    REPLIES.labels(_channel(channel or (noted.channel if noted else None)), outcome).inc()
    if outcome in (ReplyOutcome.LOOP_GUARD, ReplyOutcome.RATE_LIMITED):
        GUARD_TRIPS.labels(Guard.LOOP_GUARD if outcome == ReplyOutcome.LOOP_GUARD
                           else Guard.INBOUND_RATE).inc()
    return outcome


def classify(processed: Processed, noted: ReplyOutcome | None = None) -> ReplyOutcome | None:
    """The outcome label of what ``pbm.inbound.process`` made of a message."""
    detail = (processed.detail or "").strip()
    if processed.result is ProcessResult.SKIPPED:
        return None
    if processed.result is ProcessResult.QUARANTINED:
        return ReplyOutcome.QUARANTINED
    if processed.result is ProcessResult.DONE:
        # carrier keywords (STOP/START) end done, unnoted
        return noted or ReplyOutcome.APPLIED
    if detail.startswith("rate limited"):
        return ReplyOutcome.RATE_LIMITED
    if detail.startswith(("automatic message", "bounce")):
        return ReplyOutcome.LOOP_GUARD
    if detail.startswith("unreadable reply"):
        return ReplyOutcome.UNREADABLE
    return ReplyOutcome.IGNORED


def guard_tripped(guard: Guard) -> None:
    """A loop guard or rate limit acted (``not_understood_cap``, ``outbound_rate``)."""
    if enabled():
        GUARD_TRIPS.labels(guard).inc()


def sent(transport: str, count: int = 1) -> None:
    """A transport accepted ``count`` messages."""
    if enabled() and count:
        SENT.labels(_channel(transport)).inc(count)


def send_failed(transport: str, reason: str | None, permanent: bool) -> None:
    """One send attempt failed."""
    if enabled():
        label = reason if reason in TRANSPORT_REASONS else "other"
        SEND_FAILURES.labels(_channel(transport), label, "true" if permanent else "false").inc()


@lru_cache
def _first_message_query() -> Any:
    """The reply whose transaction wrote outbox rows (game ``g``, instant ``c``) when the
    first of those rows is among ``ids`` (built once: a bound, cached statement)."""
    inbound = InboundMessage.__table__.c  # type: ignore[attr-defined]
    out = OutboundMessage.__table__.c  # type: ignore[attr-defined]
    game = sa.bindparam("g", type_=out.game_id.type)
    created = sa.bindparam("c", type_=out.created_at.type)
    first = sa.select(sa.func.min(out.id)).where(
        out.game_id == game, out.created_at == created).scalar_subquery()
    return (sa.select(inbound.received_at, inbound.channel)
            .where(inbound.game_id == game, inbound.processed_at == created,
                   inbound.status == InboundStatus.DONE,
                   first.in_(sa.bindparam("ids", expanding=True)))
            .limit(1))


def reply_latencies(connection: Any, rows: Iterable[Any], at: datetime | None = None
                    ) -> list[tuple[str, float]]:
    """``(channel, seconds)`` from reply to first message for the sent outbox ``rows`` (each
    with ``id``, ``game_id``, ``created_at``): for the first row (lowest id) written by the
    transaction that applied a reply (same game, ``created_at`` = the reply's
    ``processed_at``). Exactly one per reply that caused messages, whichever worker sends
    which of them (none if that row never goes out). Run it in the transaction that records
    the send (one small indexed query per group of rows); observe after the commit."""
    if not enabled():
        return []
    groups: dict[tuple[int, datetime], list[int]] = {}
    for row in rows:
        if row.game_id is not None and row.created_at is not None:
            groups.setdefault((row.game_id, row.created_at), []).append(row.id)
    found = []
    at = at or datetime.now(UTC)
    for (game_id, created), ids in groups.items():
        reply = connection.execute(_first_message_query(),
                                   {"g": game_id, "c": created, "ids": ids}).first()
        if reply is None:
            continue  # not a reply's message, or not its first one
        received = reply.received_at
        if isinstance(received, str):
            received = datetime.fromisoformat(received)
        if received.tzinfo is None:
            received = received.replace(tzinfo=UTC)
        found.append((_channel(reply.channel), max(0.0, (at - received).total_seconds())))
    return found


def observe_latencies(found: Iterable[tuple[str, float]]) -> None:
    """Observe what ``reply_latencies`` found (after the transaction committed)."""
    for channel, seconds in found:
        REPLY_LATENCY.labels(channel).observe(seconds)


def sweep_done(report: Any, seconds: float) -> None:
    """Count one deadline sweep and what it did (``pbm.deadlines.SweepReport``)."""
    if not enabled():
        return
    SWEEPS.labels(SweepResult.ERROR if report.errors else SweepResult.OK).inc()
    SWEEP_SECONDS.observe(seconds)
    for action, ids in (("reminder", report.reminders), ("final_warning", report.final_warnings),
                        ("timeout", report.timeouts), ("pause", report.paused_games),
                        ("escalation", report.escalations), ("digest", report.digests)):
        if ids:
            DEADLINE_ACTIONS.labels(action).inc(len(ids))


def sweep_failed() -> None:
    if enabled():
        SWEEPS.labels(SweepResult.ERROR).inc()


def alert_sent(kind: str) -> None:
    if enabled():
        ALERTS.labels(kind.split(":")[0]).inc()


# ------------------------------------------------------------------ the scrape


class DatabaseCollector(Collector):
    """Gauges read from the database and the heartbeats at scrape time."""

    def collect(self) -> Iterator[Metric]:
        settings = get_settings()
        up = GaugeMetricFamily("pbm_database_up", "1 when the scrape could read the database.")
        try:
            with session_scope(write=False) as session:
                shot = health.snapshot(session, datetime.now(UTC), settings)
        except Exception as exc:
            log.warning("metrics: the database could not be read: %s", exc)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        now = shot.at.timestamp()
        yield _by_label("pbm_games", "Games by status.", "status", {
            s.value: shot.games_by_status.get(s, 0) for s in GameStatus})
        yield _by_label("pbm_outbox_unsent", "Outbox rows not yet sent (pending or sending).",
                        "transport", {c: shot.outbox_unsent.get(c, 0) for c in CHANNELS})
        yield _gauge("pbm_outbox_oldest_unsent_age_seconds",
                     "Age of the oldest unsent outbox row (0 when none).",
                     shot.outbox_oldest_age())
        yield _by_label("pbm_outbox_failed", "Outbox rows that failed for good.", "transport",
                        {c: shot.outbox_failed.get(c, 0) for c in CHANNELS})
        yield _by_label("pbm_inbound_messages", "Inbound rows by status.", "status", {
            s.value: shot.inbound_by_status.get(s, 0) for s in InboundStatus})
        yield _gauge("pbm_inbound_quarantined", "Inbound messages waiting for the admin.",
                     shot.quarantined)
        oldest_in = shot.inbound_oldest_unprocessed
        yield _gauge("pbm_inbound_oldest_unprocessed_age_seconds",
                     "Age of the oldest inbound message not yet processed (0 when none).",
                     max(0.0, now - oldest_in.timestamp()) if oldest_in else 0.0)
        yield _gauge("pbm_deadlines_overdue", "Open decisions past their deadline.",
                     shot.deadlines_overdue)
        yield _gauge("pbm_sweep_late_seconds", "How late the deadline sweep runs (0: on time).",
                     shot.sweep_late(settings))
        yield _by_label("pbm_transport_failing_seconds", "How long a transport has failed "
                        "every send of players' messages (0: not failing).", "transport",
                        {c: s.failing_for(shot.at) for c, s in shot.transports.items()})
        beats = GaugeMetricFamily("pbm_heartbeat_timestamp_seconds",
                                  "UNIX time of the last heartbeat (beat, sweep).",
                                  labels=["component"])
        for name, value in sorted(shot.heartbeats.items()):
            if value is not None:
                beats.add_metric([name], value)
        yield beats


def _gauge(name: str, doc: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, doc, value=value)


def _by_label(name: str, doc: str, label: str, values: dict[str, float]) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, doc, labels=[label])
    for key, value in sorted(values.items()):
        family.add_metric([key], value)
    return family


class _Local(Collector):
    """This process's own counters (no multiprocess directory)."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def multiprocess_dir() -> str | None:
    """The multiprocess directory, when this process counts into one."""
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def render() -> tuple[bytes, str]:
    """The text exposition of every process's counters plus the database gauges."""
    registry = CollectorRegistry()
    folder = multiprocess_dir()
    if folder:
        from prometheus_client import multiprocess  # here: only with a multiprocess folder

        multiprocess.MultiProcessCollector(registry, path=folder)  # type: ignore[no-untyped-call]
    else:
        registry.register(_Local())
    registry.register(DatabaseCollector())
    return generate_latest(registry), CONTENT_TYPE_LATEST


def timed() -> float:
    """A monotonic clock reading (for ``sweep_done``)."""
    return time.monotonic()
