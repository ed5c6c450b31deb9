"""Database engines, sessions, transactions with retry, and schema migrations.

SQLite (the embedded default) runs in WAL mode with a busy timeout, and write transactions
start with ``BEGIN IMMEDIATE`` so two processes writing one file take turns instead of
failing half-way. PostgreSQL is reached through psycopg 3.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session

from pbm import txcache
from pbm.config import get_settings

log = logging.getLogger(__name__)
T = TypeVar("T")

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
ALEMBIC_INI = Path(__file__).resolve().parent / "alembic.ini"
SQLITE_BUSY_TIMEOUT_MS = 30_000


def normalise_url(url: str) -> str:
    """Use psycopg 3 for every PostgreSQL URL."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _install_sqlite_hooks(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from pysqlite so BEGIN covers reads as well as writes.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        immediate = conn.get_execution_options().get("sqlite_immediate", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def install_session_hooks() -> None:
    """Install the Session listeners every process needs to use the database: those that
    keep each transaction's memo (``pbm.txcache``) true. Once per process; ``make_engine``
    calls it, so no session on an engine of ours runs without them."""
    txcache.install()


def make_engine(url: str) -> Engine:
    """A new engine for ``url`` with this project's connection settings (and the session
    hooks installed: ``install_session_hooks``)."""
    install_session_hooks()
    url = normalise_url(url)
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
        _install_sqlite_hooks(engine)
        return engine
    engine = sa.create_engine(url, pool_size=5, max_overflow=5, connect_args={
        "connect_timeout": get_settings().database_connect_timeout})
    _ping_when_idle(engine)
    return engine


#: a pooled connection unused for this long is pinged before it is handed out again
PING_AFTER_IDLE_SECONDS = 5.0


def _ping_when_idle(engine: Engine) -> None:
    """``pool_pre_ping``, but only for a connection that sat idle in the pool: a busy
    worker checks a connection out five times per reply, and a ping each time was five
    more round trips to the server. A connection dropped while idle (server restart,
    firewall timeout) is still found before use and replaced (the pool retries with a
    new one); one that breaks while in use fails its transaction as it did with pre-ping."""
    @sa.event.listens_for(engine, "checkin")
    def _idle_from(_dbapi: Any, record: Any) -> None:
        record.info["pbm_idle_since"] = time.monotonic()

    @sa.event.listens_for(engine, "checkout")
    def _ping_if_idle(dbapi: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("pbm_idle_since")
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_SECONDS:
            return
        try:
            alive = engine.dialect.do_ping(dbapi)
        except Exception as exc:
            raise sa.exc.DisconnectionError(f"idle connection lost: {exc}") from exc
        if not alive:
            raise sa.exc.DisconnectionError("idle connection lost")


_ENGINES: dict[str, Engine] = {}


def get_engine(url: str | None = None) -> Engine:
    """The process-wide engine for ``url`` (default: ``settings.database_url``)."""
    key = normalise_url(url or get_settings().database_url)
    if key not in _ENGINES:
        _ENGINES[key] = make_engine(key)
    return _ENGINES[key]


def dispose_engines() -> None:
    """Close and forget every cached engine (tests; after a fork)."""
    for engine in _ENGINES.values():
        engine.dispose()
    _ENGINES.clear()


def _writer(engine: Engine) -> Engine:
    """The same engine, whose transactions take SQLite's write lock at BEGIN."""
    if engine.dialect.name == "sqlite":
        return engine.execution_options(sqlite_immediate=True)
    return engine


@contextmanager
def session_scope(engine: Engine | None = None, *, write: bool = True) -> Iterator[Session]:
    """A session that commits on success and rolls back on error.

    ``write=True`` (the default) takes SQLite's write lock up front; pass ``write=False``
    for read-only pages so they never wait for writers.
    """
    engine = engine or get_engine()
    bind = _writer(engine) if write else engine
    with Session(bind, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def is_conflict(exc: BaseException) -> bool:
    """True for errors that mean "someone else wrote first; try again"."""
    if isinstance(exc, StaleDataError):
        return True
    if isinstance(exc, OperationalError) and "locked" in str(exc.orig).lower():
        return True
    if isinstance(exc, DBAPIError):
        sqlstate = getattr(exc.orig, "sqlstate", None)
        if sqlstate == "23505":  # unique violation: only a game's numbering is a conflict
            diag = getattr(exc.orig, "diag", None)
            return getattr(diag, "constraint_name", None) in NUMBERING_CONSTRAINTS
        return sqlstate in {"40001", "40P01"}  # serialization failure, deadlock
    return False


#: A game's command and event numbers: two writers that read the same "last number" (on
#: PostgreSQL a lock that waited inside its statement re-reads the game row but not that
#: statement's subqueries) collide here; the later one retries from fresh numbers.
NUMBERING_CONSTRAINTS = frozenset({"uq_command_log_game_seq", "uq_game_events_game_seq"})


def run_transaction(
    work: Callable[[Session], T],
    engine: Engine | None = None,
    *,
    attempts: int = 8,
) -> T:
    """Run ``work(session)`` in one transaction and commit; retry it on a write conflict.

    ``work`` must do all its reading inside the session it is given, so a retry starts
    again from fresh data.
    """
    for attempt in range(1, attempts + 1):
        try:
            with session_scope(engine) as session:
                return work(session)
        except Exception as exc:
            if not is_conflict(exc) or attempt == attempts:
                raise
            log.info("write conflict (attempt %d/%d): %s", attempt, attempts, exc)
            time.sleep(min(0.05 * 2**attempt, 1.0))
    raise AssertionError("unreachable")


def alembic_config(url: str | None = None) -> Any:
    """The packaged Alembic configuration, pointed at ``url``; works from any directory."""
    from alembic.config import Config  # here: alembic only for migrations, not in every process

    config = Config(str(ALEMBIC_INI))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option(
        "sqlalchemy.url", normalise_url(url or get_settings().database_url).replace("%", "%%")
    )
    return config


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Bring the database at ``url`` up to ``revision`` (creating it from nothing if empty)."""
    from alembic import command  # here: alembic only for migrations, not in every process

    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | None, revision: str) -> None:
    """Take the database at ``url`` down to ``revision``."""
    from alembic import command  # here: alembic only for migrations, not in every process

    command.downgrade(alembic_config(url), revision)


def current_revision(url: str | None = None) -> str | None:
    """The Alembic revision the database at ``url`` is at (None when empty)."""
    # here: alembic only for migrations, not in every process
    from alembic.runtime.migration import MigrationContext

    engine = make_engine(url or get_settings().database_url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()
