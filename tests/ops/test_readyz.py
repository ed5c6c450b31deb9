"""/readyz of a real deployment on servers of the test's own: 503 naming PostgreSQL, Redis
or the beat when each is stopped, 200 once it is back. /healthz answers all along."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from pbm import db
from tests.ops.servers import OwnPostgres
from tests.workers.servers import ServiceProcess, wait_until
from tests.workers.stack import Stack
from tests.workers.test_imap_and_redis import OwnRedis

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def own_postgres() -> Iterator[OwnPostgres]:
    server = OwnPostgres().start()
    yield server
    server.remove()


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    server = OwnRedis().start()
    yield server
    server.stop()


TOKEN = "readyz-scrape-token"


def readyz(stack: Stack) -> tuple[int, dict[str, Any]]:
    """/readyz as the operator's monitoring sees it (with the metrics token: details)."""
    response = httpx.get(stack.web_url + "/readyz", timeout=30,
                         headers={"Authorization": f"Bearer {TOKEN}"})
    return response.status_code, response.json()


def readyz_anonymous(stack: Stack) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(stack.web_url + "/readyz", timeout=30).json()
    return body


def wait_ready(stack: Stack, timeout: float = 60) -> dict[str, Any]:
    return wait_until(lambda: (r := readyz(stack))[0] == 200 and r[1], timeout,  # type: ignore[return-value]
                      "/readyz to answer 200")


def wait_failing(stack: Stack, part: str, timeout: float = 60) -> dict[str, Any]:
    return wait_until(lambda: (r := readyz(stack))[0] == 503 and part in r[1]["failing"]
                      and r[1], timeout, f"/readyz to answer 503 naming {part}")  # type: ignore[return-value]


def healthz(stack: Stack) -> int:
    return httpx.get(stack.web_url + "/healthz", timeout=10).status_code


@pytest.mark.slow
def test_readyz_names_the_stopped_part_and_recovers(own_postgres: OwnPostgres,
                                                    own_redis: OwnRedis) -> None:
    db.upgrade(own_postgres.url)
    db.dispose_engines()
    stack = Stack(own_postgres.url, own_redis.url, HEARTBEAT_INTERVAL="1",
                  READY_HEARTBEAT_MAX_AGE="5", METRICS_TOKEN=TOKEN)
    stack.apply()
    try:
        stack.web()
        body = wait_failing(stack, "beat", 30)  # no beat yet: not ready
        assert body["checks"]["database"]["ok"] and body["checks"]["redis"]["ok"]
        stack.worker()
        beat = stack.beat()
        wait_ready(stack)

        # The beat stops: its heartbeat grows old.
        beat.stop()
        stack.processes.remove(beat)
        body = wait_failing(stack, "beat", 30)
        assert body["failing"] == ["beat"]
        assert "last heartbeat" in body["checks"]["beat"]["detail"]
        beat = stack.beat()
        wait_ready(stack)

        # Redis stops.
        own_redis.kill()
        body = wait_failing(stack, "redis", 30)
        assert "unreachable" in body["checks"]["redis"]["detail"]
        assert healthz(stack) == 200  # liveness is not readiness
        own_redis.start()
        wait_ready(stack, 90)  # and the beat beats again into the new Redis

        # PostgreSQL stops.
        own_postgres.stop()
        body = wait_failing(stack, "database", 30)
        print("READYZ 503\n" + json.dumps(body, indent=1))
        assert body["failing"] == ["database"]
        assert "unreachable" in body["checks"]["database"]["detail"]
        anonymous = readyz_anonymous(stack)  # anyone: which part, never host, port or role
        assert anonymous["failing"] == ["database"]
        assert "detail" not in anonymous["checks"]["database"]
        assert str(own_postgres.port) not in json.dumps(anonymous)
        assert healthz(stack) == 200
        own_postgres.start()
        wait_ready(stack, 90)
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack.stop()
        db.dispose_engines()


def test_readyz_refuses_a_database_behind_the_migrations(own_postgres: OwnPostgres,
                                                         tmp_path: Any) -> None:
    stack = Stack(own_postgres.url, "redis://127.0.0.1:1/0",  # no tables, no Redis
                  METRICS_TOKEN=TOKEN)
    stack.values.pop("REDIS_URL")
    stack.values["BROKER_URL"] = "filesystem://"
    stack.apply()
    try:
        web: ServiceProcess = stack.web()
        body = wait_failing(stack, "database", 30)
        assert "expected head" in body["checks"]["database"]["detail"]
        assert "redis" not in body["checks"]  # no Redis configured: not checked
        assert web.proc is not None
    finally:
        stack.stop()
        db.dispose_engines()
