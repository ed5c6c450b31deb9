"""The operator's view on the embedded default (SQLite, no Redis): readiness with a file
heartbeat, /metrics protection, alert spacing, reply outcomes, JSON logs."""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from pbm import db, health, metrics
from pbm.admin.auth import hash_password
from pbm.config import get_settings, reset_settings
from pbm.models import InboundMessage, OutboundMessage, Processed, ProcessResult

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def embedded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A migrated SQLite database, no Redis, a filesystem broker; settings applied."""
    url = f"sqlite:///{tmp_path / 'pbm.db'}"
    for key, value in {"DATABASE_URL": url, "DATA_DIR": str(tmp_path / "var"),
                       "REDIS_URL": "", "BROKER_URL": "", "METRICS_TOKEN": "scrape-me",
                       "ADMIN_USERS": f"ops:{hash_password('pass phrase')}",
                       "ADMIN_EMAIL": "admin@ops.test"}.items():
        monkeypatch.setenv(key, value)
    reset_settings()
    db.dispose_engines()
    db.upgrade(url)
    yield tmp_path
    db.dispose_engines()
    monkeypatch.undo()
    reset_settings()


def client() -> TestClient:
    from pbm.web import app

    return TestClient(app)


def test_readyz_uses_a_file_heartbeat_without_redis(embedded: Path) -> None:
    first = client().get("/readyz")
    assert first.status_code == 503
    assert first.json()["failing"] == ["beat"]
    assert "redis" not in first.json()["checks"]

    health.record_heartbeat(health.BEAT, settings=get_settings())

    ready = client().get("/readyz")
    assert ready.status_code == 200, ready.json()
    assert (embedded / "var" / "heartbeats" / "beat").exists()


def test_an_old_heartbeat_is_not_ready(embedded: Path) -> None:
    health.record_heartbeat(health.BEAT, at=datetime.now(UTC).timestamp() - 600,
                           settings=get_settings())
    anonymous = client().get("/readyz").json()
    assert anonymous["failing"] == ["beat"]
    assert "detail" not in anonymous["checks"]["beat"]  # which part, not its details
    body = client().get("/readyz", headers={"Authorization": "Bearer scrape-me"}).json()
    assert body["failing"] == ["beat"] and "600 s ago" in body["checks"]["beat"]["detail"]


def test_metrics_need_the_token_or_an_admins_password(embedded: Path) -> None:
    http = client()
    assert http.get("/metrics").status_code == 401
    assert http.get("/metrics", headers={"Authorization": "Bearer nope"}).status_code == 401
    wrong = base64.b64encode(b"ops:wrong").decode()
    assert http.get("/metrics", headers={"Authorization": f"Basic {wrong}"}).status_code == 401

    right = base64.b64encode(b"ops:pass phrase").decode()
    by_admin = http.get("/metrics", headers={"Authorization": f"Basic {right}"})
    by_token = http.get("/metrics", headers={"Authorization": "Bearer scrape-me"})

    assert by_admin.status_code == by_token.status_code == 200
    assert "pbm_database_up 1.0" in by_token.text
    assert by_token.headers["content-type"].startswith("text/plain")


def _outbox(session, created: datetime, **values) -> None:  # type: ignore[no-untyped-def]
    session.add(OutboundMessage(channel="email", kind="prompt", to_address="p@example.org",
                                dedupe_key=f"t:{created.isoformat()}:{values}",
                                created_at=created, **values))


def test_each_kind_of_alert_is_written_once_per_repeat_window(embedded: Path) -> None:
    from pbm import alerts

    def work(session):  # type: ignore[no-untyped-def]
        _outbox(session, NOW - timedelta(minutes=30))  # stuck for half an hour
        _outbox(session, NOW - timedelta(minutes=20), attempts=3, last_error="451 refused",
                claimed_at=NOW - timedelta(minutes=1))
        session.add(InboundMessage(channel="email", provider_message_id="<q@x>",
                                   sender="p@example.org", raw="x", status="quarantined"))

    db.run_transaction(work)

    first = db.run_transaction(lambda s: alerts.raise_alerts(s, NOW, get_settings()))
    again = db.run_transaction(lambda s: alerts.raise_alerts(s, NOW + timedelta(minutes=59),
                                                         get_settings()))
    later = db.run_transaction(lambda s: alerts.raise_alerts(s, NOW + timedelta(minutes=61),
                                                         get_settings()))

    assert sorted(first) == ["outbox_stuck", "quarantined", "transport_failing:email"]
    assert again == []
    assert sorted(later) == sorted(first)
    with db.session_scope(write=False) as session:
        mails = list(session.exec(select(OutboundMessage).where(
            OutboundMessage.kind == "admin_alert")))
    assert len(mails) == 6 and {m.to_address for m in mails} == {"admin@ops.test"}


def test_a_sweep_that_stopped_is_late(embedded: Path) -> None:
    health.record_heartbeat(health.SWEEP, at=NOW.timestamp() - 400, settings=get_settings())
    with db.session_scope(write=False) as session:
        shot = health.snapshot(session, NOW, get_settings())
    assert shot.sweep_late(get_settings()) == pytest.approx(400 - 15)
    assert [k for k, _ in health.problems(shot, get_settings())] == ["sweep_late"]


DONE, IGNORED = ProcessResult.DONE, ProcessResult.IGNORED


@pytest.mark.parametrize(("processed", "noted", "outcome"), [
    (Processed(DONE), "applied", "applied"),
    (Processed(DONE), "not_understood", "not_understood"),
    (Processed(DONE), "refused", "refused"),
    (Processed(DONE), None, "applied"),
    (Processed(IGNORED, "rate limited: too many messages from x"), None, "rate_limited"),
    (Processed(IGNORED, "automatic message (auto-submitted)"), None, "loop_guard"),
    (Processed(IGNORED, "bounce: marked failing"), None, "loop_guard"),
    (Processed(IGNORED, "unreadable reply: ValueError"), None, "unreadable"),
    (Processed(IGNORED, "sender x is not the player of this seat"), None, "ignored"),
    (Processed(ProcessResult.QUARANTINED), None, "quarantined"),
    (Processed(ProcessResult.SKIPPED), None, None),
])
def test_a_processed_reply_is_counted_under_one_bounded_outcome(
        processed: Processed, noted: str | None, outcome: str | None) -> None:
    assert metrics.classify(processed, noted) == outcome


def test_a_processed_message_reads_as_the_worker_logs_it() -> None:
    assert str(Processed(DONE)) == "done"
    assert str(Processed(IGNORED, "bounce: marked failing")) == "ignored: bounce: marked failing"
    assert str(Processed(ProcessResult.SKIPPED)) == "skipped"


def test_json_logs_carry_the_ids_of_the_reply_path_and_nothing_else() -> None:
    from pbm.logs import ContextFilter, JsonFormatter, bind, context

    logger = logging.getLogger("pbm.test.json")
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    handler = Keep()
    handler.setFormatter(JsonFormatter())
    handler.addFilter(ContextFilter())
    logger.addHandler(handler)
    try:
        with context(inbound_id=12), context(game_id=3, seat=1):
            logger.warning("applied")
        with context(inbound_id=13):
            bind(game_id=4, seat=2)  # as the pipeline does once it knows them
            logger.warning("bound")
        logger.warning("outside")
    finally:
        logger.removeHandler(handler)
    inside, bound, outside = (json.loads(r) for r in records)
    assert (bound["inbound_id"], bound["game_id"], bound["seat"]) == (13, 4, 2)
    assert (inside["inbound_id"], inside["game_id"], inside["seat"]) == (12, 3, 1)
    assert inside["msg"] == "applied" and inside["level"] == "WARNING"
    assert "inbound_id" not in outside and "game_id" not in outside
