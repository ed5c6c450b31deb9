"""Session-wide fixtures: real PostgreSQL and Redis servers (see tests/services.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.services import EmbeddedServers, resolve_postgres, resolve_redis


@pytest.fixture(scope="session")
def embedded_servers() -> Iterator[EmbeddedServers]:
    servers = EmbeddedServers()
    yield servers
    servers.stop_all()


@pytest.fixture(scope="session")
def postgres_url(embedded_servers: EmbeddedServers) -> str:
    """A SQLAlchemy URL of a real, answering PostgreSQL server."""
    return resolve_postgres(embedded_servers)


@pytest.fixture(scope="session")
def redis_url(embedded_servers: EmbeddedServers) -> str:
    """The URL of a real, answering Redis server."""
    return resolve_redis(embedded_servers)


@pytest.fixture(autouse=True)
def fresh_board_pictures() -> None:
    """Each test starts without the process's remembered board pictures (``pbm.outbox``):
    a test that fakes the drawing must not hand its fake to the next one."""
    import sys

    outbox = sys.modules.get("pbm.outbox")
    if outbox is not None:
        outbox._PICTURES.clear()
