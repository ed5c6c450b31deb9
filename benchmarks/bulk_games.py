"""Many running games in a PostgreSQL database, fast: one real game, copied by bulk SQL.

Used by ``benchmarks/bench_scale.py`` (1,000 and 100,000 games) and by the CI test of
query plans (``tests/pbm/test_query_plans.py``, 20,000 games). A template game is created,
invited and started through ``pbm.games`` (so its engine state, seats and open deadlines are
real); ``generate_series`` then copies it ``games`` times, each copy with five players of its
own, its open deadlines due in a month or two, and ``history`` rows per game of past activity:
closed deadlines, applied commands, events, sent outbox rows, processed inbound replies and a
board picture. Copies are complete enough for the service to remind, time out, notify and
submit on them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from pbm import db, games
from pbm.models import Deadline, DeadlineStatus, Game

#: bump when the generated data changes shape, so cached benchmark databases are rebuilt
GENERATOR_VERSION = 1
PLAYERS = 5


def player_specs(prefix: str, n: int = PLAYERS) -> list[games.PlayerSpec]:
    """``n`` players by email; the last one prefers SMS."""
    specs = [games.PlayerSpec(f"Player {i + 1}", email=f"{prefix}{i + 1}@example.org")
             for i in range(n - 1)]
    specs.append(games.PlayerSpec(f"Player {n}", email=f"{prefix}{n}@example.org",
                                  phone=f"+1555{abs(hash(prefix)) % 10**6:06d}{n:01d}",
                                  channel="sms"))
    return specs


def start_game(eng: Engine, name: str, seed: int, now: datetime,
               prefix: str | None = None) -> int:
    """Create, invite and have everyone join a game (auto-started); its id."""
    game_id = db.run_transaction(lambda s: games.create_game(
        s, name, player_specs(prefix or f"{name}.p"), now=now, seed=seed).id, eng)
    assert game_id is not None
    db.run_transaction(lambda s: games.invite(s, game_id, now=now), eng)
    for seat in range(PLAYERS):
        db.run_transaction(lambda s, seat=seat: games.respond(
            s, game_id, seat, join=True, now=now), eng)
    return int(game_id)


@dataclass(frozen=True)
class Template:
    state_json: str
    state_version: int
    options_json: str
    timing_json: str
    deadlines: list[tuple[int | None, str, str]]  # (seat, decision_key, kind)


def _template(eng: Engine, now: datetime) -> Template:
    game_id = start_game(eng, "bulk-template", 1667, now)

    def read(session: sa.orm.Session) -> Template:
        game = session.get(Game, game_id)
        assert game is not None and game.state_json
        rows = session.execute(sa.select(Deadline).where(
            Deadline.game_id == game_id, Deadline.status == DeadlineStatus.OPEN)).scalars()
        return Template(game.state_json, game.state_version, game.options_json,
                        game.timing_json, [(d.seat, d.decision_key, d.kind) for d in rows])

    return db.run_transaction(read, eng)


def _max_id(conn: sa.Connection, table: str) -> int:
    return int(conn.execute(sa.text(f"SELECT coalesce(max(id), 0) FROM {table}")).scalar_one())


def build(url: str, n_games: int, *, now: datetime, history: int = 8) -> None:
    """Migrate ``url`` (an empty PostgreSQL database) and fill it with ``n_games`` running
    games copied from a real one, each with ``history`` rows of past activity per table."""
    db.upgrade(url)
    eng = db.make_engine(url)
    try:
        template = _template(eng, now)
        with eng.begin() as conn:
            _copy(conn, template, n_games, history, now)
        with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM ANALYZE")
    finally:
        eng.dispose()


def _copy(conn: sa.Connection, t: Template, n: int, history: int, now: datetime) -> None:
    gbase, pbase = _max_id(conn, "games") + 1000, _max_id(conn, "players") + 1000
    numbers = {"n": n, "h": history, "p": PLAYERS, "gbase": gbase, "pbase": pbase}
    params = {"now": now, "state": t.state_json, "sv": t.state_version,
              "opts": t.options_json, "timing": t.timing_json}

    def run(sql: str, **extra: object) -> None:
        # integers written in (psycopg would bind small ones as smallint and overflow)
        sql = re.sub(r"(?<![:\w]):(n|h|p|gbase|pbase)\b",
                     lambda m: str(int(numbers[m.group(1)])), sql)
        conn.execute(sa.text(sql), {**params, **extra})

    run("""INSERT INTO players (id, display_name, email, phone, preferred_channel, time_zone,
               sms_opted_out, email_failing, tell_everything, sms_live_talk, created_at)
           SELECT :pbase + i, 'Bulk ' || i, 'bulk' || i || '@example.org', NULL, 'email',
               'UTC', false, false, i % 997 = 0, false, :now
           FROM generate_series(1, :n * :p) AS i""")
    run("""INSERT INTO games (id, name, status, state_json, state_version, version, seed,
               options_json, timing_json, started_at, created_at, updated_at)
           SELECT :gbase + g, 'bulk-' || g, 'running', :state, :sv, 1, g, :opts, :timing,
               :now - interval '2 days', :now - interval '3 days', :now - interval '1 hour'
           FROM generate_series(1, :n) AS g""")
    run("""INSERT INTO seats (game_id, player_id, seat_index, reply_token, invitation_status,
               thread_message_id, thread_started, last_event_seq, replaced_player_ids)
           SELECT :gbase + g, :pbase + (g - 1) * :p + s + 1, s,
               substr(md5('bulk' || g || ':' || s), 1, 16), 'joined',
               '<bulk.g' || g || '.s' || s || '@tortuga.localhost>', true, :h, ''
           FROM generate_series(1, :n) AS g, generate_series(0, :p - 1) AS s""")
    for seat, key, kind in t.deadlines:  # the template's open decisions, due later
        run("""INSERT INTO deadlines (game_id, seat, decision_key, kind, due_at,
                   reminders_sent, next_reminder_at, status, escalated, created_at)
               SELECT :gbase + g, :seat, :key, :kind,
                   :now + interval '60 days' + g * interval '1 second', 0,
                   :now + interval '30 days' + g * interval '1 second', 'open', false,
                   :now - interval '1 hour'
               FROM generate_series(1, :n) AS g""", seat=seat, key=key, kind=kind)
    run("""INSERT INTO deadlines (game_id, seat, decision_key, kind, due_at, reminders_sent,
               next_reminder_at, status, escalated, created_at, resolved_at)
           SELECT :gbase + g, k % :p, 'old:' || k, 'ACTION', :now - k * interval '1 hour',
               1, NULL, 'done', false, :now - (k + 48) * interval '1 hour',
               :now - k * interval '1 hour'
           FROM generate_series(1, :n) AS g, generate_series(1, :h * 2) AS k""")
    run("""INSERT INTO command_log (game_id, seq, seat, command, state_version, origin,
               created_at)
           SELECT :gbase + g, k, k % :p, 'PASS', k, 'bulk', :now - k * interval '1 hour'
           FROM generate_series(1, :n) AS g, generate_series(1, :h) AS k""")
    run("""INSERT INTO game_events (game_id, seq, command_seq, kind, text, audience,
               data_json, state_version, created_at)
           SELECT :gbase + g, k, k, 'bulk.event', 'Something happened on the ship.', NULL,
               '{}', k, :now - k * interval '1 hour'
           FROM generate_series(1, :n) AS g, generate_series(1, :h) AS k""")
    body = json.dumps("Your turn. " * 30)[1:-1]
    run("""INSERT INTO outbound_messages (game_id, seat, player_id, channel, kind, to_address,
               subject, text, message_id, in_reply_to, status, attempts, provider_id,
               reply_to, dedupe_key, created_at, sent_at, claimed_at, delivery_status,
               delivered_at)
           SELECT :gbase + g, k % :p, :pbase + (g - 1) * :p + k % :p + 1, 'email', 'prompt',
               'bulk' || ((g - 1) * :p + k % :p + 1) || '@example.org', 'Your turn', :body,
               '<bulk.m' || g || '.' || k || '@tortuga.localhost>',
               '<bulk.g' || g || '.s' || (k % :p) || '@tortuga.localhost>', 'sent', 1,
               'smtp-' || g || '-' || k, 'play+x@tortuga.localhost', 'bulk:' || g || ':' || k,
               :now - k * interval '1 hour', :now - k * interval '1 hour',
               :now - k * interval '1 hour', 'delivered', :now - k * interval '1 hour'
           FROM generate_series(1, :n) AS g, generate_series(1, :h) AS k""", body=body)
    run("""INSERT INTO inbound_messages (channel, provider_message_id, sender, recipient, raw,
               received_at, status, attempts, game_id, seat, processed_at, claimed_at)
           SELECT 'email', '<bulk.in' || g || '.' || k || '@example.org>',
               'bulk' || ((g - 1) * :p + k % :p + 1) || '@example.org',
               'play+x@tortuga.localhost', :body, :now - k * interval '1 hour', 'done', 1,
               :gbase + g, k % :p, :now - k * interval '1 hour', :now - k * interval '1 hour'
           FROM generate_series(1, :n) AS g, generate_series(1, greatest(:h / 2, 1)) AS k""",
        body=body)
    run("""INSERT INTO board_images (game_id, version, png, created_at)
           SELECT :gbase + g, 1, '\\x89504e47'::bytea, :now FROM generate_series(1, :n) AS g""")
    for table in ("players", "games"):
        conn.execute(sa.text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                             f"(SELECT max(id) FROM {table}))"))


def open_seat_deadlines(conn: sa.Connection) -> list[int]:
    """Ids of every open deadline of a seat (the candidates ``mark_due`` picks from)."""
    return [int(i) for i in conn.execute(sa.text(
        "SELECT id FROM deadlines WHERE status = 'open' AND seat IS NOT NULL")).scalars()]


def mark_due(conn: sa.Connection, ids: list[int], now: datetime, *, column: str) -> None:
    """Make these open deadlines due at ``now``: their reminder (``column`` =
    ``next_reminder_at``) or their end and grace (``due_at``)."""
    when = now - timedelta(minutes=1) if column == "next_reminder_at" else \
        now - timedelta(hours=3)
    conn.execute(sa.text(f"UPDATE deadlines SET {column} = :when WHERE id = ANY(:ids) "
                         "AND status = 'open'"), {"when": when, "ids": ids})
