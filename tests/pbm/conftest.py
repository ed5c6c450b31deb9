"""Fixtures of the service tests: a fresh, migrated database per test on SQLite and on
PostgreSQL, factories for players and games, and a fixed clock."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

from pbm import db


def fresh_postgres_database(server_url: str) -> str:
    """Create an empty, uniquely named database on the server; return its URL."""
    name = f"pbm_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    finally:
        admin.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


def drop_postgres_database(server_url: str, url: str) -> None:
    name = make_url(url).database
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[str]:
    """The URL of an empty database (no tables): a SQLite file, or a new PG database."""
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("db") / "pbm.db"
        yield f"sqlite:///{path}"
        return
    server = request.getfixturevalue("postgres_url")
    url = fresh_postgres_database(server)
    try:
        yield url
    finally:
        db.dispose_engines()
        drop_postgres_database(server, url)


@pytest.fixture
def db_url(empty_db_url: str) -> str:
    """The URL of a database migrated to the newest revision."""
    db.upgrade(empty_db_url)
    return empty_db_url


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on the migrated test database."""
    eng = db.get_engine(db_url)
    yield eng
    db.dispose_engines()


@pytest.fixture
def now() -> datetime:
    """A fixed 'now' (a Monday noon UTC); tests move it forward by hand."""
    return datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
