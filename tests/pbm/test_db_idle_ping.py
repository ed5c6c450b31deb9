"""Pooled PostgreSQL connections are pinged only after sitting idle (``pbm.db``)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from pbm import db

pytestmark = pytest.mark.postgres


def test_a_connection_dropped_while_idle_is_replaced_before_use(
        pg_db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    eng = db.make_engine(pg_db_url)
    try:
        with eng.connect() as conn:
            first = conn.execute(sa.text("SELECT pg_backend_pid()")).scalar()
        with db.make_engine(pg_db_url).connect() as other:  # the server drops it
            other.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
            other.commit()
        monkeypatch.setattr(db, "PING_AFTER_IDLE_SECONDS", 0.0)

        with eng.connect() as conn:
            second = conn.execute(sa.text("SELECT pg_backend_pid()")).scalar()

        assert second != first
    finally:
        eng.dispose()


def test_a_busy_connection_is_not_pinged_an_idle_one_is(
        pg_db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    eng = db.make_engine(pg_db_url)
    pings: list[object] = []
    ping = eng.dialect.do_ping
    monkeypatch.setattr(eng.dialect, "do_ping", lambda dbapi: pings.append(dbapi) or ping(dbapi))
    try:
        for _ in range(5):
            with eng.connect() as conn:
                conn.execute(sa.text("SELECT 42"))
        assert pings == []

        monkeypatch.setattr(db, "PING_AFTER_IDLE_SECONDS", 0.0)
        with eng.connect() as conn:
            assert conn.execute(sa.text("SELECT 42")).scalar() == 42
        assert len(pings) == 1
    finally:
        eng.dispose()
