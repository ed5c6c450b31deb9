"""No hot-path query reads a big table whole: PostgreSQL's plans on 20,000 generated games.

One database is filled by ``benchmarks/bulk_games.py`` (20,000 running games copied from a
real one: 100,000 players and seats, 20,000 or more rows of deadlines, commands, events,
outbox and inbound history). The hot paths then run once each while every statement is
recorded: the deadline sweep (idle, with reminders and an expired deadline due, digests),
a decision (``games.submit``), a STATUS message, inbound replies by email (routed by reply
token, by thread, by sender) and by SMS (rate limit, routing, apply, answer), delivery of
the outbox rows they wrote, the two relays and a Twilio delivery report. Every statement is
EXPLAINed; reading a table of 10,000 rows or more whole fails the test: a sequential scan,
or an index scan without an index condition (a walk of a whole index, filtered), unless
that index is a partial one.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

import engine
from benchmarks import bulk_games, query_plans
from engine.simulate import random_command
from pbm import db, games, inbound, sweep
from pbm.config import get_settings, reset_settings
from tests.services import create_database, drop_database

pytestmark = pytest.mark.postgres

BUILT_AT = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
GAMES = 20_000
BIG = 10_000  # rows: a table this large must never be read whole on a hot path


@pytest.fixture(scope="module")
def bulk_url(postgres_url: str) -> Iterator[str]:
    url = create_database(postgres_url, "pbm_plans")
    try:
        bulk_games.build(url, GAMES, now=BUILT_AT, history=1)
        yield url
    finally:
        db.dispose_engines()
        drop_database(postgres_url, url)


@pytest.fixture
def service(bulk_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
            ) -> Iterator[sa.Engine]:
    """The service configured on the bulk database (file transports, no broker)."""
    monkeypatch.setenv("DATABASE_URL", bulk_url)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("BROKER_URL", "memory://")
    reset_settings()
    db.dispose_engines()
    yield db.get_engine()
    db.dispose_engines()
    reset_settings()


def _bulk_seat(conn: sa.Connection, offset: int) -> tuple[int, int, str, str]:
    """(game id, seat, reply token, player email) of the seat awaited in a bulk game."""
    row = conn.execute(sa.text(
        "SELECT s.game_id, s.seat_index, s.reply_token, p.email FROM deadlines d "
        "JOIN seats s ON s.game_id = d.game_id AND s.seat_index = d.seat "
        "JOIN players p ON p.id = s.player_id JOIN games g ON g.id = d.game_id "
        "WHERE d.status = 'open' AND g.name LIKE 'bulk-%' AND g.name <> 'bulk-template' "
        "ORDER BY d.game_id OFFSET :o LIMIT 1"), {"o": offset}).one()
    return int(row[0]), int(row[1]), str(row[2]), str(row[3])


def _reply(token: str | None, sender: str, body: str, n: int, *,
           in_reply_to: str | None = None) -> bytes:
    to = f"play+{token}@tortuga.localhost" if token else "play@tortuga.localhost"
    thread = f"In-Reply-To: {in_reply_to}\r\nReferences: {in_reply_to}\r\n" \
        if in_reply_to else ""
    return (f"From: {sender}\r\nTo: {to}\r\nSubject: Re: your turn\r\n"
            f"Message-ID: <plan-test-{n}@example.org>\r\n{thread}\r\n{body}\r\n").encode()


def _answer(eng: sa.Engine, game_id: int, seat: int) -> str:
    with db.session_scope(eng, write=False) as session:
        state = games.load_state(games.get_game(session, game_id))
    decision = next(d for d in engine.pending(state) if d.seat == seat)
    return str(random_command(random.Random(7), decision))


NOW = BUILT_AT + timedelta(minutes=5)


def prepare_hot_paths(eng: sa.Engine) -> list[tuple[int, int, str, str]]:
    """Make work due on a few bulk games; their awaited seats."""
    now = NOW
    with eng.begin() as conn:
        seats = [_bulk_seat(conn, i) for i in range(6)]
        reminder_ids = [int(i) for i in conn.execute(sa.text(
            "SELECT id FROM deadlines WHERE status = 'open' AND game_id IN (:a, :b)"),
            {"a": seats[0][0], "b": seats[1][0]}).scalars()]
        bulk_games.mark_due(conn, reminder_ids, now, column="next_reminder_at")
        expired = conn.execute(sa.text("SELECT id FROM deadlines WHERE status = 'open' "
                                       "AND game_id = :g"), {"g": seats[2][0]}).scalar_one()
        bulk_games.mark_due(conn, [expired], now, column="due_at")
        conn.execute(sa.text("UPDATE players SET tell_everything = true WHERE id = "
                             "(SELECT player_id FROM seats WHERE game_id = :g LIMIT 1)"),
                     {"g": seats[3][0]})
        conn.execute(sa.text("UPDATE players SET phone = '+15550001111' WHERE id = "
                             "(SELECT player_id FROM seats WHERE game_id = :g AND "
                             "seat_index = 1)"), {"g": seats[5][0]})
    return seats


def run_hot_paths(eng: sa.Engine, seats: list[tuple[int, int, str, str]]) -> None:
    """Every hot path once, on bulk games (the caller records the statements)."""
    from pbm.webhooks import record_delivery_report
    from workers.delivery import deliver, deliver_many, relay_candidates

    settings = get_settings()
    now = NOW
    report = db.run_transaction(lambda s: sweep.sweep_deadlines(s, now), eng)
    assert len(report.reminders) + len(report.final_warnings) == 2 and report.timeouts
    db.run_transaction(lambda s: sweep.sweep_deadlines(s, now), eng)  # nothing due
    game_id, seat, _, _ = seats[3]
    db.run_transaction(lambda s: games.submit(s, game_id, seat, _answer(eng, game_id, seat),
                                              origin="test", now=now), eng)
    db.run_transaction(lambda s: games.status(s, seats[5][0], 0, now=now, dedupe="t"), eng)

    stored = []
    game_id, seat, token, email = seats[4]
    raws = [_reply(token, email, _answer(eng, game_id, seat), 1),
            _reply(None, "bulk17@example.org", "STATUS", 2,
                   in_reply_to="<bulk.m4.1@tortuga.localhost>"),
            _reply(None, "BULK23@example.org", "HELP", 3)]
    for raw in raws:
        stored.append(db.run_transaction(lambda s, raw=raw: inbound.store_email(s, raw, now),
                                         eng).id)
    stored.append(db.run_transaction(lambda s: inbound.store_sms(
        s, {"MessageSid": "SMplan", "From": "+15550001111", "Body": "STATUS"}, now), eng).id)
    outcomes = [str(inbound.process(i, now)) for i in stored]
    assert outcomes[0] == "done" and outcomes[1] == "done", outcomes

    with db.session_scope(eng, write=False) as session:
        from pbm.outbox import pending_outbox_ids

        pending = pending_outbox_ids(session, limit=20)
        relay_candidates(session, now + timedelta(hours=1), settings)
        inbound.relay_candidates(session, now + timedelta(hours=1), settings)
    assert pending
    for outbox_id in pending[:3]:
        deliver(outbox_id, now, settings)
    deliver_many(pending[3:6], now, settings)  # the rows of one transaction, together
    db.run_transaction(lambda s: record_delivery_report(s, "smtp-9-1", "delivered", "", now),
                       eng)


def big_tables(eng: sa.Engine) -> set[str]:
    with eng.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT relname FROM pg_class WHERE relkind = 'r' AND reltuples >= :big "
            "AND relnamespace = 'public'::regnamespace"), {"big": BIG}).scalars()
        return set(rows)


def test_no_hot_path_query_reads_a_big_table_whole(service: sa.Engine) -> None:
    big = big_tables(service)
    assert {"games", "seats", "players", "deadlines", "outbound_messages", "inbound_messages",
            "game_events", "command_log"} <= big

    seats = prepare_hot_paths(service)
    with query_plans.capture(service) as seen:
        run_hot_paths(service, seats)
    explained = query_plans.plans(service, seen)
    partial = query_plans.partial_indexes(service)

    assert len(explained) > 40  # the hot paths really ran
    whole = {}
    for statement, plan in explained:
        tables = [t for t in query_plans.whole_reads(plan, partial) if t in big]
        if tables:
            whole[query_plans.short(statement, 160)] = "\n".join(plan)
    assert not whole, "big tables read whole:\n" + json.dumps(whole, indent=1)
