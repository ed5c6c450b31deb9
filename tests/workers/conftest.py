"""Fixtures of the channel tests: a fresh migrated PostgreSQL database, a private Redis
database, the settings environment every process of a test shares, and the local servers
(SMTP, Twilio emulator, dovecot) of ``tests.workers.servers``."""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pbm import db
from pbm.config import reset_settings
from tests.services import REDIS_DBS_PER_WORKER, drop_database, migrated_database
from tests.workers.servers import Dovecot, FakeTwilio, SmtpSink, free_port, wait_http

#: Redis databases of the channel tests, after the session's (``redis_url``, which other
#: tests use) in this xdist worker's block (``tests.services.REDIS_DBS_PER_WORKER``); each
#: test flushes its own.
WORKER_REDIS_DB = 1
E2E_REDIS_DB = 2


def redis_db(url: str, number: int) -> str:
    """The same Redis server, database ``number`` after ``url``'s (the session's, see
    ``redis_url``), emptied."""
    import redis

    assert 0 < number < REDIS_DBS_PER_WORKER, number
    base, _, first = url.rpartition("/")
    target = f"{base}/{int(first) + number}"
    client = redis.Redis.from_url(target)
    client.flushdb()
    client.close()
    return target


#: the params of a module's ``database_url`` run on both databases (``either_database``)
EITHER_DATABASE = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def either_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated SQLite file or a fresh migrated PostgreSQL database, by the param (a
    module's ``database_url`` made from it with ``EITHER_DATABASE`` runs on both)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'pbm.db'}"
        db.upgrade(url)
        yield url
        db.dispose_engines()
        return
    server = request.getfixturevalue("postgres_url")
    url = migrated_database(server, "pbm_channels")
    try:
        yield url
    finally:
        drop_database(server, url)


@pytest.fixture
def database_url(postgres_url: str) -> Iterator[str]:
    """A fresh PostgreSQL database with the newest schema, dropped afterwards."""
    url = migrated_database(postgres_url, "pbm_channels")
    try:
        yield url
    finally:
        drop_database(postgres_url, url)


@pytest.fixture
def worker_redis(redis_url: str) -> str:
    """A Redis database of our own on the test Redis server, empty."""
    return redis_db(redis_url, WORKER_REDIS_DB)


@pytest.fixture
def smtp() -> Iterator[SmtpSink]:
    sink = SmtpSink().start()
    yield sink
    sink.stop()


@pytest.fixture
def twilio() -> Iterator[FakeTwilio]:
    fake = FakeTwilio().start()
    yield fake
    fake.stop()


@pytest.fixture
def dovecot() -> Iterator[Dovecot]:
    server = Dovecot().start()  # skips (fails under CI) when dovecot cannot run here
    yield server
    server.stop()


@dataclass
class Env:
    """The settings environment of one test: applied to this process and passed to children."""

    values: dict[str, str] = field(default_factory=dict)

    def child(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(
            ("DATABASE_URL", "REDIS_URL", "BROKER_URL"))}
        env.update(self.values)
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
        return env


@pytest.fixture
def env(tmp_path: Path, database_url: str, smtp: SmtpSink,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    """Settings for a test on PostgreSQL with real SMTP; extend ``env.values`` and call
    ``apply(env)`` before use. No broker unless a test adds one."""
    values = {
        "DATABASE_URL": database_url,
        "DATA_DIR": str(tmp_path / "var"),
        "MAIL_DOMAIN": "tortuga.test",
        "ADMIN_EMAIL": "admin@ops.test",
        "EMAIL_TRANSPORT": "smtp",
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": str(smtp.port),
        "SMTP_TIMEOUT": "10",
        "PUBLIC_BASE_URL": "https://tortuga.example",
        "SECRET_KEY": secrets.token_urlsafe(32),  # a public URL needs a secret of its own
        "INBOUND_EMAIL_SECRET": secrets.token_hex(12),
        "SMS_TRANSPORT": "file",
        "BROKER_URL": "memory://",
    }
    environment = Env(values)
    yield environment
    # Leave the process as found: environment, then settings, Celery app and hooks.
    monkeypatch.undo()
    from tests.workers.stack import restore_defaults

    restore_defaults()


def apply(environment: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make this process see the test's settings."""
    from kombu import pools

    from workers.app import reconfigure

    for key, value in environment.values.items():
        monkeypatch.setenv(key, value)
    reset_settings()
    db.dispose_engines()
    reconfigure()
    # reconfigure() closes the old broker pool, but kombu keeps it registered by broker URL:
    # a test on the same URL as an earlier one (memory://) would get it back closed.
    pools.reset()


def with_twilio(environment: Env, fake: FakeTwilio) -> None:
    environment.values.update({
        "SMS_TRANSPORT": "twilio",
        "TWILIO_ACCOUNT_SID": fake.account_sid,
        "TWILIO_AUTH_TOKEN": fake.auth_token,
        "TWILIO_FROM_NUMBER": fake.from_number,
        "TWILIO_API_BASE_URL": fake.base_url,
    })


class ThreadedWeb:
    """The real FastAPI app served by uvicorn in a thread of this process."""

    def __init__(self) -> None:
        import uvicorn

        from pbm.web import app

        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port,
                                                    log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ThreadedWeb:
        self.thread.start()
        wait_http(self.url + "/healthz")
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def wait_for(predicate: Any, timeout: float = 30, what: str = "condition") -> Any:
    from tests.workers.servers import wait_until

    return wait_until(predicate, timeout, what)
