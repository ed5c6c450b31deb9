"""The schema: migrations from nothing and from the previous revision, constraints, and
the optimistic version check on games."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, SQLModel, select

from pbm import db
from pbm.models import Game, InboundMessage, OutboundMessage, Player

TABLES = {
    "players", "games", "seats", "command_log", "game_events", "inbound_messages",
    "outbound_messages", "board_images", "deadlines", "outbound_parts",
}
HEAD = "admin_sessions"


def test_upgrade_creates_every_table_from_an_empty_database(empty_db_url: str) -> None:
    assert db.current_revision(empty_db_url) is None
    db.upgrade(empty_db_url)
    engine = db.make_engine(empty_db_url)
    try:
        names = set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert names >= TABLES
    assert db.current_revision(empty_db_url) == HEAD


def test_the_models_match_the_migrations(db_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    engine = db.make_engine(db_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    finally:
        engine.dispose()
    assert diff == []


def test_upgrade_from_the_first_revision_keeps_games(empty_db_url: str) -> None:
    db.upgrade(empty_db_url, "0001")
    engine = db.make_engine(empty_db_url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(
                "INSERT INTO games (name, status, state_version, version, seed, options_json,"
                " timing_json, created_at, updated_at) VALUES ('old', 'running', 7, 3, 42,"
                " '{}', '{}', :t, :t)"), {"t": datetime(2026, 1, 1)})
            conn.execute(sa.text(
                "INSERT INTO players (display_name, email, preferred_channel, time_zone,"
                " sms_opted_out, email_failing, created_at) VALUES ('Ann', 'ann@x.org',"
                " 'email', 'UTC', false, false, :t)"), {"t": datetime(2026, 1, 1)})
    finally:
        engine.dispose()
    db.upgrade(empty_db_url)
    assert db.current_revision(empty_db_url) == HEAD
    with db.session_scope(db.make_engine(empty_db_url)) as session:
        game = session.exec(select(Game)).one()
        player = session.exec(select(Player)).one()
    assert (game.name, game.state_version, game.seed) == ("old", 7, 42)
    assert player.tell_everything is False
    assert player.language == "en"  # every existing player reads English (issue 24)
    assert game.created_at.tzinfo is not None


def test_upgrade_from_the_previous_revision_keeps_games_and_moves_claims_to_leases(
    empty_db_url: str
) -> None:
    db.upgrade(empty_db_url, "0002")
    t0, t1 = datetime(2026, 1, 1, 9, tzinfo=UTC), datetime(2026, 1, 1, 10, tzinfo=UTC)
    engine = db.make_engine(empty_db_url)
    if engine.dialect.name == "sqlite":  # stored as naive UTC there (pbm.models.UTCDateTime)
        t0, t1 = t0.replace(tzinfo=None), t1.replace(tzinfo=None)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(
                "INSERT INTO games (name, status, state_version, version, seed, options_json,"
                " timing_json, created_at, updated_at) VALUES ('old', 'running', 7, 3, 42,"
                " '{}', '{}', :t, :t)"), {"t": t0})
            for key, status, provider_id in (("in-flight", "sending", None),
                                             ("retrying", "pending", None),
                                             ("gone", "sent", "<m1@x>"),
                                             ("bounced", "failed", "SM9")):
                conn.execute(sa.text(
                    "INSERT INTO outbound_messages (game_id, channel, kind, to_address,"
                    " subject, text, status, attempts, provider_id, dedupe_key, created_at,"
                    " sent_at) SELECT id, 'email', 'prompt', 'a@x.org', '', 'hi', :status, 1,"
                    " :provider_id, :key, :t0, :t1 FROM games"),
                    {"status": status, "provider_id": provider_id, "key": key, "t0": t0,
                     "t1": t1})
            for provider_id, status in (("<r1@x>", "processing"), ("<r2@x>", "done")):
                conn.execute(sa.text(
                    "INSERT INTO inbound_messages (channel, provider_message_id, sender,"
                    " recipient, raw, received_at, status, attempts, processed_at) VALUES"
                    " ('email', :p, 'a@x.org', 'play@x.org', 'raw', :t0, :status, 1, :t1)"),
                    {"p": provider_id, "status": status, "t0": t0, "t1": t1})
    finally:
        engine.dispose()

    db.upgrade(empty_db_url)

    assert db.current_revision(empty_db_url) == HEAD
    t1 = t1.replace(tzinfo=UTC)
    with db.session_scope(db.make_engine(empty_db_url)) as session:
        game = session.exec(select(Game)).one()
        out = {m.dedupe_key: m for m in session.exec(select(OutboundMessage))}
        into = {m.provider_message_id: m for m in session.exec(select(InboundMessage))}
    assert (game.name, game.state_version, game.seed, game.version) == ("old", 7, 42, 3)
    assert [(out[k].claimed_at, out[k].sent_at) for k in ("in-flight", "retrying")] == [
        (t1, None), (t1, None)], "the claim time of unsent rows is their lease"
    assert [(out[k].claimed_at, out[k].sent_at) for k in ("gone", "bounced")] == [
        (None, t1), (None, t1)], "what was sent keeps its time"
    assert all(m.game_id == game.id and m.delivery_status is None for m in out.values())
    assert (into["<r1@x>"].claimed_at, into["<r1@x>"].processed_at) == (t1, None)
    assert (into["<r2@x>"].claimed_at, into["<r2@x>"].processed_at) == (None, t1)

    db.downgrade(empty_db_url, "0002")  # and back, losing nothing
    engine = db.make_engine(empty_db_url)
    try:
        with engine.connect() as conn:
            sent = dict(conn.execute(sa.text(
                "SELECT dedupe_key, sent_at FROM outbound_messages")).all())
            processed = conn.execute(sa.text(
                "SELECT count(*) FROM inbound_messages WHERE processed_at IS NOT NULL")
            ).scalar()
            games = conn.execute(sa.text("SELECT count(*) FROM games")).scalar()
    finally:
        engine.dispose()
    assert set(sent) == {"in-flight", "retrying", "gone", "bounced"}
    assert all(value is not None for value in sent.values())
    assert (processed, games) == (2, 1)


def test_a_stale_game_write_fails_as_a_conflict_instead_of_overwriting(eng: sa.Engine
                                                                     ) -> None:
    with db.session_scope(eng) as session:
        session.add(Game(name="g", seed=1))
    with Session(eng) as first, Session(eng) as second:
        a = first.exec(select(Game)).one()
        b = second.exec(select(Game)).one()
        a.state_version = 1
        first.commit()
        b.state_version = 2
        # PostgreSQL: the version check (StaleDataError); SQLite: its snapshot is stale.
        with pytest.raises((StaleDataError, OperationalError)) as failure:
            second.commit()
        assert db.is_conflict(failure.value)
    with db.session_scope(eng) as session:
        game = session.exec(select(Game)).one()
    assert (game.state_version, game.version) == (1, 2)


def test_an_inbound_message_is_stored_once_per_provider_id(eng: sa.Engine) -> None:
    def message() -> InboundMessage:
        return InboundMessage(channel="sms", provider_message_id="SM1", sender="+1555",
                              raw="VOTE 1")

    with db.session_scope(eng) as session:
        session.add(message())
    with pytest.raises(IntegrityError), db.session_scope(eng) as session:
        session.add(message())


def test_timestamps_round_trip_as_aware_utc(eng: sa.Engine) -> None:
    when = datetime(2026, 3, 2, 12, 30, tzinfo=UTC)
    with db.session_scope(eng) as session:
        session.add(Game(name="t", seed=1, paused_at=when))
    with db.session_scope(eng, write=False) as session:
        game = session.exec(select(Game)).one()
    assert game.paused_at == when and game.paused_at.tzinfo is not None


@pytest.mark.postgres
def test_run_transaction_retries_a_conflict_on_postgresql(pg_db_url: str) -> None:
    # (SQLite write transactions take the lock at BEGIN: see the next test.)
    eng, db_url = db.get_engine(pg_db_url), pg_db_url
    with db.session_scope(eng) as session:
        session.add(Game(name="r", seed=1))
    calls = []

    def work(session: Session) -> int:
        game = session.exec(select(Game)).one()
        calls.append(game.version)
        if len(calls) == 1:  # someone else writes between our read and our write
            with db.session_scope(db.make_engine(db_url)) as other:
                other.exec(select(Game)).one().state_version = 99
        game.state_version += 1
        return game.state_version

    assert db.run_transaction(work, eng) == 100
    assert len(calls) == 2


def test_sqlite_writers_take_turns_instead_of_interleaving(tmp_path: Path) -> None:
    path = tmp_path / "turns.db"
    db.upgrade(f"sqlite:///{path}")
    engine = db.make_engine(f"sqlite:///{path}")
    try:
        with db.session_scope(engine) as session:
            session.add(Game(name="w", seed=1))
        with db.session_scope(engine) as holder:
            holder.exec(select(Game)).one()  # BEGIN IMMEDIATE: the write lock is ours
            other = sqlite3.connect(path, timeout=0.05, isolation_level=None)
            try:
                with pytest.raises(sqlite3.OperationalError, match="locked"):
                    other.execute("BEGIN IMMEDIATE")
                assert other.execute("SELECT count(*) FROM games").fetchone() == (1,)
            finally:
                other.close()
    finally:
        engine.dispose()


def test_plain_alembic_creates_the_schema_and_autogenerate_finds_nothing_to_do(
    empty_db_url: str, tmp_path: Path
) -> None:
    alembic = Path(sys.executable).parent / "alembic"
    ini = Path(db.__file__).parent / "alembic.ini"
    env = {**os.environ, "DATABASE_URL": empty_db_url}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(alembic), "-c", str(ini), *args], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=120)

    upgraded = run("upgrade", "head")
    checked = run("check")

    assert upgraded.returncode == 0, upgraded.stderr
    assert checked.returncode == 0 and "No new upgrade operations" in checked.stdout
    assert db.current_revision(empty_db_url) == HEAD


def test_every_index_of_the_models_survives_a_downgrade_and_upgrade(empty_db_url: str) -> None:
    """A SQLite batch migration copies a table and silently drops expression and partial
    indexes it cannot reflect; the hot paths need every one of them."""
    wanted = {ix.name for table in SQLModel.metadata.tables.values() for ix in table.indexes}
    db.upgrade(empty_db_url)
    db.downgrade(empty_db_url, "0003")
    db.upgrade(empty_db_url)
    engine = sa.create_engine(empty_db_url)
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                have = set(conn.exec_driver_sql(
                    "select name from sqlite_master where type = 'index'").scalars())
            else:
                have = set(conn.exec_driver_sql(
                    "select indexname from pg_indexes where schemaname = 'public'").scalars())
    finally:
        engine.dispose()
    assert wanted - have == set()
