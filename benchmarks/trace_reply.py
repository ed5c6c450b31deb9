"""Every SQL statement one valid reply costs, phase by phase, in one process.

Usage (from the repository root)::

    .venv/bin/python benchmarks/trace_reply.py              # 40 replies, summary per phase
    .venv/bin/python benchmarks/trace_reply.py --show 3     # and the statements of 3 replies
    .venv/bin/python benchmarks/trace_reply.py --profile    # and where the worker time goes

The same work as ``bench_pipeline.py`` without the processes, so it is exact and quick:
``--games`` 5-player games in a private PostgreSQL database ``bench_trace_reply`` (or
``$BENCH_TRACE_DB``) on
``--server`` (created afresh), each reply a random legal command by email, put through the
three phases the service runs - **store** (the webhook's ``inbound.store_email``), **process**
(the worker's ``inbound.process``) and **send** (``workers.delivery.deliver`` of every outbox
row the reply wrote, to the file transports) - counting statements and commits of each
(SQLAlchemy events). ``--show N`` lists the statements of the first N replies (their SQL
shortened), ``--profile`` prints a cProfile of process + send. The last line is the
statements and commits per reply. The email templates are compiled before the first reply,
as a worker's parent process does before forking its pool (``pbm.render.email.warm``, when
the tree has it). ``--database`` names the private database (default
``bench_trace_reply``): two people measuring on one server at once need two names.
"""

from __future__ import annotations

import argparse
import cProfile
import email.utils
import gc
import os
import pstats
import random
import re
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url

import engine
from benchmarks import bulk_games
from engine.simulate import random_command
from pbm import db
from pbm.config import get_settings, reset_settings

DEFAULT_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"
DOMAIN = "tortuga.localhost"
PHASES = ("store", "process", "send")


class Tally:
    """Statements and commits per phase; the statement texts while ``keep`` is set."""

    def __init__(self) -> None:
        self.phase: str | None = None
        self.statements: Counter[str] = Counter()
        self.commits: Counter[str] = Counter()
        self.messages = 0
        self.seconds: Counter[str] = Counter()
        self.cpu: Counter[str] = Counter()
        self.keep: list[tuple[str, str]] | None = None

    def install(self) -> None:
        def statement(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
            if self.phase is not None:
                self.statements[self.phase] += 1
                if self.keep is not None:
                    self.keep.append((self.phase, _short(sql)))

        def commit(_conn: Any) -> None:
            if self.phase is not None:
                self.commits[self.phase] += 1
                if self.keep is not None:
                    self.keep.append((self.phase, "COMMIT"))

        event.listen(Engine, "before_cursor_execute", statement)
        event.listen(Engine, "commit", commit)


def _short(sql: str) -> str:
    """One line of SQL, its column lists elided."""
    text = " ".join(sql.split())
    text = re.sub(r"SELECT .*? FROM", "SELECT ... FROM", text)
    text = re.sub(r"RETURNING .*", "RETURNING ...", text)
    text = re.sub(r"\(([a-z_]+, ){3,}[a-z_]+\) VALUES .*", "(...) VALUES ...", text)
    text = re.sub(r" SET .*? WHERE", " SET ... WHERE", text)
    return text[:150]


def outcome_is_valid(outcome: Any) -> bool:
    """True for a reply that played (not refused, ignored or failed)."""
    text = str(getattr(outcome, "value", outcome)).lower()
    return not any(word in text for word in ("refus", "ignor", "fail", "quarant", "reject"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default=DEFAULT_SERVER)
    parser.add_argument("--database", default=os.environ.get("BENCH_TRACE_DB", "bench_trace_reply"),
                        help="the private database made afresh on --server (another name "
                             "lets two people measure on one server at once)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--replies", type=int, default=40)
    parser.add_argument("--show", type=int, default=0)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--dump", default="",
                        help="with --profile: also write the pstats to this file")
    parser.add_argument("--one-by-one", action="store_true",
                        help="send each message alone (deliver) instead of as the "
                             "after-commit hook does (deliver_many for several)")
    parser.add_argument("--tracemalloc", type=int, default=0, metavar="N",
                        help="trace allocations from the Nth reply on; at the end print "
                             "what memory grew by, by source line (what stays allocated)")
    args = parser.parse_args()

    url = make_url(db.normalise_url(args.server)).set(
        database=args.database).render_as_string(hide_password=False)
    admin = sa.create_engine(db.normalise_url(args.server), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
        conn.exec_driver_sql(f'CREATE DATABASE "{args.database}"')
    admin.dispose()
    folder = tempfile.mkdtemp(prefix="trace-reply-")
    os.environ.update(DATABASE_URL=url, MAIL_DOMAIN=DOMAIN, DATA_DIR=folder,
                      EMAIL_TRANSPORT="file", SMS_TRANSPORT="file")
    reset_settings()
    db.upgrade(url)
    eng = db.get_engine(url)
    # the harness's own reads on a pool of their own: a read's connection goes back with a
    # ROLLBACK, and a ROLLBACK makes psycopg drop the connection's prepared statements,
    # which a worker's connections keep from one reply to the next
    own = db.make_engine(url)

    from pbm import inbound
    from workers import delivery
    from workers.delivery import deliver

    deliver_many = getattr(delivery, "deliver_many", None)  # absent in older trees
    from pbm.render import email as render_email

    warm = getattr(render_email, "warm", None)  # what a worker does before forking its pool
    if warm is not None:  # (workers.app; absent in older trees)
        warm()

    now = datetime.now(UTC)
    tables = []
    for g in range(args.games):
        game_id = bulk_games.start_game(eng, f"trace-{g}", 2000 + g, now)
        with own.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT s.seat_index, s.reply_token, p.email FROM seats s JOIN players p "
                "ON p.id = s.player_id WHERE s.game_id = :g"), {"g": game_id}).all()
        tables.append((game_id, {r[0]: (r[1], r[2]) for r in rows}))
    with own.begin() as conn:
        conn.execute(sa.text("UPDATE outbound_messages SET status = 'sent', sent_at = now()"))

    tally = Tally()
    tally.install()
    rng = random.Random(1667)
    profile = cProfile.Profile(time.process_time) if args.profile else None
    settings = get_settings()
    replies = 0
    worker_cpu: list[float] = []  # process + send of each valid reply, CPU seconds
    by_messages: dict[int, list[tuple[int, int, str]]] = {}
    traced = None
    for k in range(args.replies):
        if args.tracemalloc and k == args.tracemalloc:
            gc.collect()
            tracemalloc.start(8)
            traced = tracemalloc.take_snapshot()
        game_id, tokens = tables[k % len(tables)]
        with own.connect() as conn:
            state_json, last = conn.execute(sa.text(
                "SELECT state_json, (SELECT coalesce(max(id), 0) FROM outbound_messages) "
                "FROM games WHERE id = :g"), {"g": game_id}).one()
        state = engine.from_json(state_json)
        if state.over:
            continue
        decision = rng.choice(engine.pending(state))
        token, sender = tokens[decision.seat]
        raw = (f"From: {sender}\r\nTo: play+{token}@{DOMAIN}\r\nSubject: Re: your move\r\n"
               f"Date: {email.utils.formatdate()}\r\n"
               f"Message-ID: <trace-{uuid.uuid4().hex}@example.org>\r\n\r\n"
               f"{random_command(rng, decision)}\r\n").encode()
        tally.keep = [] if k < args.show else None
        before = (sum(tally.statements.values()), sum(tally.commits.values()))
        tally.phase = "store"
        clock, cpu = time.perf_counter(), time.process_time()
        stored = db.run_transaction(
            lambda s, raw=raw: inbound.store_email(s, raw, datetime.now(UTC)))
        tally.seconds["store"] += time.perf_counter() - clock
        tally.cpu["store"] += time.process_time() - cpu
        tally.phase = "process"
        clock, cpu = time.perf_counter(), time.process_time()
        if profile is not None:
            profile.enable()
        outcome = inbound.process(stored.id, datetime.now(UTC))
        if profile is not None:
            profile.disable()
        tally.seconds["process"] += time.perf_counter() - clock
        tally.cpu["process"] += time.process_time() - cpu
        reply_cpu = time.process_time() - cpu
        tally.phase = None
        with own.connect() as conn:
            written = conn.execute(sa.text(
                "SELECT id, kind FROM outbound_messages WHERE id > :last ORDER BY id"),
                {"last": last}).all()
        ids = [r[0] for r in written]
        kinds = "+".join(r[1] for r in written) or "nothing"
        tally.phase = "send"
        clock, cpu = time.perf_counter(), time.process_time()
        if profile is not None:
            profile.enable()
        if len(ids) > 1 and deliver_many is not None and not args.one_by_one:
            deliver_many(ids, datetime.now(UTC), settings)
        else:
            for outbox_id in ids:
                deliver(outbox_id, datetime.now(UTC), settings)
        if profile is not None:
            profile.disable()
        tally.seconds["send"] += time.perf_counter() - clock
        tally.cpu["send"] += time.process_time() - cpu
        reply_cpu += time.process_time() - cpu
        if outcome_is_valid(outcome):
            worker_cpu.append(reply_cpu)
        tally.phase = None
        replies += 1
        tally.messages += len(ids)
        total = (sum(tally.statements.values()), sum(tally.commits.values()))
        by_messages.setdefault(len(ids), []).append(
            (total[0] - before[0], total[1] - before[1], kinds))
        if tally.keep is not None:
            print(f"--- reply {k + 1}: {outcome}, {len(ids)} message(s)")
            for phase, sql in tally.keep:
                print(f"  {phase:8} {sql}")
    if traced is not None:
        gc.collect()
        grown = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__)])
        diff = grown.compare_to(traced, "lineno")
        print(f"memory grown from reply {args.tracemalloc} to {args.replies} "
              f"({sum(d.size_diff for d in diff) / 1e6:+.2f} MB traced), top 15 lines:")
        for d in diff[:15]:
            print(f"  {d.size_diff / 1024:+9.1f} KB {d.count_diff:+7d} blocks  {d.traceback}")
        for d in grown.compare_to(traced, "traceback")[:3]:
            print(f"  {d.size_diff / 1024:+9.1f} KB from:")
            for line in d.traceback.format()[-12:]:
                print(f"      {line}")
        tracemalloc.stop()
    if profile is not None:
        stats = pstats.Stats(profile)
        if args.dump:
            stats.dump_stats(args.dump)
        stats.sort_stats("cumulative").print_stats(90)
        stats.sort_stats("tottime").print_stats(25)
    print(f"{replies} replies, {tally.messages / replies:.2f} messages each")
    for count, rows in sorted(by_messages.items()):
        mix = Counter(k for _, _, k in rows).most_common(3)
        print(f"  {len(rows):3} replies writing {count} message(s): "
              f"{sum(r[0] for r in rows) / len(rows):.1f} statements, "
              f"{sum(r[1] for r in rows) / len(rows):.2f} commits each ({mix})")
    for phase in PHASES:
        print(f"  {phase:8} {tally.statements[phase] / replies:5.1f} statements "
              f"{tally.commits[phase] / replies:5.2f} commits "
              f"{tally.seconds[phase] * 1000 / replies:6.1f} ms "
              f"({tally.cpu[phase] * 1000 / replies:5.1f} ms CPU here) per reply")
    worker_cpu.sort()
    if worker_cpu:
        print(f"worker CPU per valid reply (process + send, {len(worker_cpu)} replies): "
              f"median {worker_cpu[len(worker_cpu) // 2] * 1000:.1f} ms, "
              f"p90 {worker_cpu[int(len(worker_cpu) * 0.9)] * 1000:.1f} ms, "
              f"mean {sum(worker_cpu) / len(worker_cpu) * 1000:.1f} ms (goal: median <= 15 ms)")
    total_s = sum(tally.statements.values()) / replies
    total_c = sum(tally.commits.values()) / replies
    print(f"per reply: {total_s:.1f} statements, {total_c:.2f} commits "
          f"(goal <= 20 statements, <= 6 commits)")
    eng.dispose()
    own.dispose()


if __name__ == "__main__":
    main()
