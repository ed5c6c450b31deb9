"""Does a big deployment cost what a small one costs? 1,000 vs 100,000 running games.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_scale.py            # 20 rounds (a few minutes once built)
    .venv/bin/python benchmarks/bench_scale.py --quick    # 6 rounds
    .venv/bin/python benchmarks/bench_scale.py --rebuild  # build both databases afresh

Two PostgreSQL databases on the server of ``--server`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``), ``bench_scale_1000`` and
``bench_scale_100000``, are filled by ``benchmarks/bulk_games.py``: N running 5-player games
copied from a real one, each with ``--history`` rows per table of past activity (closed
deadlines, commands, events, sent outbox rows, inbound replies). They are kept between runs
and rebuilt only when their size, the schema revision or the generator changed (building
100,000 games takes a few minutes). Each database keeps its own clock (the time it was built
at, plus a minute per round), since its deadlines are placed relative to it.

Every round times, on both databases, in an order rotated every round:

- ``sweep idle``: ``pbm.sweep.sweep_deadlines`` with nothing due;
- ``sweep 10 due``: the same after 10 random games' reminders were made due (untimed): 10
  reminders rendered and written (with a board picture each);
- ``submit``: ``pbm.games.submit`` of one random legal decision of a live game (one per
  database, same seed and same commands on both), in ``pbm.db.run_transaction``;
- ``notify``: ``pbm.games.status`` (lock, load, render, write one STATUS email) for a seat
  of a bulk game.

Printed: absolute times, the per-round ratios 100,000 / 1,000 (min, median, p90), the plans
PostgreSQL chose for every statement those operations ran on the big database, and last a
line with the median ratios. Goals (issue 15): sweep 10 due <= 1.5x, idle <= 2x, submit
<= 1.3x.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

import engine
from benchmarks import bulk_games, query_plans
from benchmarks.ratios import fmt_ratio, interleaved, per_round_ratio, print_times, quantile
from engine.simulate import random_command
from pbm import db, games, sweep

DEFAULT_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"
STEP = timedelta(minutes=1)


def _admin(server: str) -> Engine:
    return sa.create_engine(db.normalise_url(server), isolation_level="AUTOCOMMIT")


def _head() -> str:
    from alembic.script import ScriptDirectory

    return str(ScriptDirectory.from_config(db.alembic_config("sqlite://")).get_current_head())


def ensure_database(server: str, n_games: int, history: int, rebuild: bool) -> tuple[str, datetime]:
    """The URL of a database of ``n_games`` bulk games (built unless cached) and its clock."""
    name = f"bench_scale_{n_games}"
    url = make_url(db.normalise_url(server)).set(database=name).render_as_string(
        hide_password=False)
    want = (n_games, history, _head(), bulk_games.GENERATOR_VERSION)
    admin = _admin(server)
    try:
        with admin.connect() as conn:
            exists = conn.execute(sa.text("SELECT 1 FROM pg_database WHERE datname = :n"),
                                  {"n": name}).first() is not None
        if exists and not rebuild:
            probe = db.make_engine(url)
            try:
                with probe.connect() as conn:
                    row = conn.execute(sa.text(
                        "SELECT games, history, revision, generator, built_at FROM bench_meta"
                    )).first()
                if row is not None and tuple(row[:4]) == want:
                    return url, row.built_at
            except sa.exc.ProgrammingError:
                pass
            finally:
                probe.dispose()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    finally:
        admin.dispose()
    built_at = datetime.now().astimezone().replace(microsecond=0)
    started = time.perf_counter()
    print(f"building {name}: {n_games:,} games, history {history} ...", flush=True)
    bulk_games.build(url, n_games, now=built_at, history=history)
    eng = db.make_engine(url)
    with eng.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE bench_meta (games int, history int, revision text, "
                             "generator int, built_at timestamptz)")
        conn.execute(sa.text("INSERT INTO bench_meta VALUES (:g, :h, :r, :v, :t)"),
                     {"g": n_games, "h": history, "r": want[2], "v": want[3], "t": built_at})
    eng.dispose()
    print(f"  built in {time.perf_counter() - started:.0f} s", flush=True)
    return url, built_at


@dataclass
class Side:
    """One database and what the rounds use on it."""

    label: str
    eng: Engine
    clock: datetime
    seed: int
    open_ids: list[int] = field(default_factory=list)
    notify_games: list[int] = field(default_factory=list)
    live_game: int = 0
    live_count: int = 0
    rng: random.Random = field(default_factory=random.Random)
    pick: random.Random = field(default_factory=random.Random)

    def tick(self) -> datetime:
        self.clock += STEP
        return self.clock

    def new_live_game(self) -> None:
        self.live_count += 1
        self.live_game = bulk_games.start_game(
            self.eng, f"live-{self.seed}-{self.live_count}-{int(time.time())}",
            self.seed + self.live_count, self.clock,
            prefix=f"live{self.seed}.{self.live_count}.{int(time.time())}.p")
        self.rng = random.Random(self.seed + self.live_count)

    def sweep_idle(self, _r: int) -> float:
        now = self.tick()
        start = time.perf_counter()
        report = db.run_transaction(lambda s: sweep.sweep_deadlines(s, now), self.eng)
        seconds = time.perf_counter() - start
        assert report.total == 0, f"{self.label}: an idle sweep did {report}"
        return seconds

    def sweep_due(self, _r: int) -> float:
        now = self.tick()
        ids = self.pick.sample(self.open_ids, 10)
        with self.eng.begin() as conn:
            bulk_games.mark_due(conn, ids, now, column="next_reminder_at")
        start = time.perf_counter()
        report = db.run_transaction(lambda s: sweep.sweep_deadlines(s, now), self.eng)
        seconds = time.perf_counter() - start
        sent = len(report.reminders) + len(report.final_warnings)
        assert sent == 10 and not report.errors, f"{self.label}: {report}"
        return seconds

    def submit(self, _r: int) -> float:
        now = self.tick()

        def state_of(session: sa.orm.Session) -> engine.GameState:
            return games.load_state(games.get_game(session, self.live_game))

        state = db.run_transaction(state_of, self.eng)
        if state.over:
            self.new_live_game()
            state = db.run_transaction(state_of, self.eng)
        decision = self.rng.choice(engine.pending(state))
        command = random_command(self.rng, decision)
        start = time.perf_counter()
        result = db.run_transaction(lambda s: games.submit(
            s, self.live_game, decision.seat, command, origin="bench", now=now), self.eng)
        seconds = time.perf_counter() - start
        assert result.ok, result.message
        return seconds

    def notify(self, r: int) -> float:
        now = self.tick()
        game_id = self.notify_games[r % len(self.notify_games)]
        seat = self.pick.randrange(bulk_games.PLAYERS)
        start = time.perf_counter()
        db.run_transaction(lambda s: games.status(
            s, game_id, seat, now=now, dedupe=f"bench{time.time_ns()}"), self.eng)
        return time.perf_counter() - start


def prepare(label: str, url: str, clock: datetime, seed: int) -> Side:
    side = Side(label, db.make_engine(url), clock, seed)
    side.pick = random.Random(seed)
    with side.eng.begin() as conn:  # earlier runs' live games (and the template) rest
        conn.execute(sa.text(
            "UPDATE deadlines SET status = 'cancelled' WHERE status = 'open' AND game_id IN "
            "(SELECT id FROM games WHERE name LIKE 'live-%' OR name = 'bulk-template')"))
        conn.execute(sa.text("UPDATE games SET status = 'aborted', version = version + 1 "
                             "WHERE name LIKE 'live-%' OR name = 'bulk-template'"))
    with side.eng.connect() as conn:
        side.open_ids = bulk_games.open_seat_deadlines(conn)
        side.notify_games = [int(i) for i in conn.execute(sa.text(
            "SELECT id FROM games WHERE name LIKE 'bulk-%' AND name <> 'bulk-template' "
            "ORDER BY id LIMIT 3")).scalars()]
        # the clock moves on from the last run's, so deadlines stay ordered
        last = conn.execute(sa.text("SELECT max(created_at) FROM outbound_messages")).scalar()
    if last is not None and last > side.clock:
        side.clock = last
    side.new_live_game()
    return side


OPS = ("sweep idle", "sweep 10 due", "submit", "notify")


def operations(side: Side) -> dict[str, Callable[[int], float]]:
    return {"sweep idle": side.sweep_idle, "sweep 10 due": side.sweep_due,
            "submit": side.submit, "notify": side.notify}


def print_plans(side: Side) -> None:
    """Run each operation once more on ``side`` and print PostgreSQL's plan of every
    statement it ran (full plans for the sweep's and digests' own queries)."""
    print(f"\nQuery plans on {side.label} (EXPLAIN of every statement one round ran):")
    seqs: list[str] = []
    for name, op in operations(side).items():
        with query_plans.capture(side.eng) as seen:
            op(0)
        explained = query_plans.plans(side.eng, seen)
        print(f"- {name}: {seen.count} statements, {len(explained)} distinct explainable")
        for statement, plan in explained:
            found = query_plans.seq_scans(plan)
            seqs += [f"{t} ({name}: {query_plans.short(statement, 70)})" for t in found]
            nodes = ", ".join(dict.fromkeys(query_plans.scans(plan))) or plan[0].split("  ")[0]
            print(f"    {query_plans.short(statement, 72):<72} | {nodes}")
            if name == "sweep idle":  # the sweep's own queries, in full
                for line in plan:
                    print(f"        {line}")
    print("sequential scans: " + ("; ".join(dict.fromkeys(seqs)) if seqs else "none"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default=DEFAULT_SERVER)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--history", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="6 rounds")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--no-plans", action="store_true")
    args = parser.parse_args()
    rounds = 6 if args.quick else args.rounds

    sides = []
    for n, seed in ((args.small, 100), (args.large, 100)):
        url, clock = ensure_database(args.server, n, args.history, args.rebuild)
        sides.append(prepare(f"{n:,} games", url, clock, seed))
    small, large = sides
    ops: dict[str, Callable[[int], float]] = {}
    for op in OPS:
        ops[f"{op} {small.label}"] = operations(small)[op]
        ops[f"{op} {large.label}"] = operations(large)[op]
    for op in list(ops.values()):  # warm-up: caches, board pictures, connections
        op(0)
    started = time.perf_counter()
    times = interleaved(ops, rounds)
    print(f"\n{rounds} rounds in {time.perf_counter() - started:.0f} s, "
          f"{small.label} vs {large.label} (history {args.history} rows per game per table)")
    print_times(times, "Absolute times per operation:")
    print(f"Ratios {large.label} / {small.label} per round:")
    summary = []
    for op in OPS:
        ratio = per_round_ratio(times, f"{op} {large.label}", f"{op} {small.label}")
        valid = [v for v in ratio if not math.isnan(v)]
        print(f"  {op:<13} min {fmt_ratio(min(valid)):>7}   median "
              f"{fmt_ratio(quantile(ratio, 0.5)):>7}   p90 {fmt_ratio(quantile(ratio, 0.9)):>7}")
        summary.append(f"{op} {fmt_ratio(quantile(ratio, 0.5))}")
    if not args.no_plans:
        print_plans(large)
    for side in sides:
        side.eng.dispose()
    print(f"median ratios {args.large:,}/{args.small:,} games: " + ", ".join(summary))


if __name__ == "__main__":
    main()
