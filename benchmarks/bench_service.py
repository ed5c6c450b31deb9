"""The cost of one player decision through the service, broken down side by side.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_service.py              # 200 rounds, SQLite + PostgreSQL
    .venv/bin/python benchmarks/bench_service.py --rounds 60  # quicker
    TEST_DATABASE_URL=postgresql://user@host:5432/db .venv/bin/python benchmarks/bench_service.py

The same random 5-player game (same seed, same commands) is played on a migrated SQLite
file (in a temporary directory) and on a private PostgreSQL database created on the server
of ``TEST_DATABASE_URL`` (default ``postgresql://postgres@127.0.0.1:5432/test``) and
dropped at the end; PostgreSQL is skipped, with one line saying why, when that server
does not answer or refuses to create a database. Seat 5 prefers SMS, the others email.

One round = one decision: a random legal command of a random pending decision. Measured
in that round, in an order rotated every round (``benchmarks/ratios.py``):

- ``engine.apply``: the rules alone on the state before the decision (cold legal-move
  memo, as after loading from the database; mean of ``--apply-repeat`` calls);
- ``render email`` / ``render sms``: ``pbm.render.render`` of the deciding seat's PROMPT
  (the context ``pbm.games.preview`` builds) for one channel;
- ``board_png``: ``pbm.render.board_png`` of the public view (one per game version is
  stored with email messages);
- ``submit sqlite`` / ``submit postgres``: ``pbm.games.submit`` of that command inside
  ``pbm.db.run_transaction`` (lock, load, apply, save, log, events, deadlines, rendered
  outbox rows, board picture, commit) - the whole write path of one decision.

Reported: the median and p90 over rounds of each time, and of the per-round ratios to
``engine.apply`` and of SQLite / PostgreSQL. New games start (untimed) when one ends.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

import engine
from benchmarks.ratios import interleaved, print_ratios, print_times, timed
from engine.simulate import random_command
from pbm import db, games, render
from pbm.messages import Channel, MessageContext

DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"
STEP = timedelta(minutes=20)  # the clock moves this much between decisions


def player_specs(n: int) -> list[games.PlayerSpec]:
    """``n`` players by email; the last one prefers SMS."""
    specs = [games.PlayerSpec(f"Player {i + 1}", email=f"p{i + 1}@example.org")
             for i in range(n - 1)]
    specs.append(games.PlayerSpec(f"Player {n}", email=f"p{n}@example.org",
                                  phone=f"+1555000{n:04d}", channel="sms"))
    return specs


def start_game(eng: Engine, players: int, seed: int, now: datetime) -> int:
    """Create, invite and have everyone join a game (auto-started); its id."""
    game_id = db.run_transaction(lambda s: games.create_game(
        s, f"Bench {seed}", player_specs(players), now=now, seed=seed).id, eng)
    assert game_id is not None
    db.run_transaction(lambda s: games.invite(s, game_id, now=now), eng)
    for seat in range(players):
        db.run_transaction(lambda s, seat=seat: games.respond(
            s, game_id, seat, join=True, now=now), eng)
    return int(game_id)


@dataclass
class Table:
    """One database and the benchmark game currently played on it."""

    label: str
    eng: Engine
    game_id: int = 0

    def submit(self, seat: int, command: engine.Command, now: datetime) -> games.Result:
        result = db.run_transaction(lambda s: games.submit(
            s, self.game_id, seat, command, origin="bench", now=now), self.eng)
        if not result.ok:
            raise RuntimeError(f"{self.label}: {command} refused: {result.message}")
        return result


class PostgresUnavailable(Exception):
    """The PostgreSQL server does not answer or will not create a database."""


def _admin(server_url: str) -> Engine:
    return sa.create_engine(db.normalise_url(server_url), isolation_level="AUTOCOMMIT",
                            connect_args={"connect_timeout": 5})


def create_postgres(server_url: str) -> str:
    """A new, migrated private database on the server; its URL."""
    name = f"pbm_bench_{uuid.uuid4().hex[:12]}"
    admin = _admin(server_url)
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except Exception as exc:
        raise PostgresUnavailable(str(exc).strip().splitlines()[0]) from exc
    finally:
        admin.dispose()
    url = make_url(db.normalise_url(server_url)).set(database=name)
    return url.render_as_string(hide_password=False)


def drop_postgres(server_url: str, url: str) -> None:
    admin = _admin(server_url)
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)')
    finally:
        admin.dispose()


@dataclass
class Round:
    """What one round measures: a state, a decision and the prompt of the deciding seat."""

    state: engine.GameState
    seat: int
    command: engine.Command
    prompt: MessageContext
    public: dict[str, object]
    now: datetime


def _cold(state: engine.GameState) -> None:
    """Forget the engine's memoised legal moves (kept under ``_`` names in ``__dict__``)."""
    for key in [k for k in state.__dict__ if k.startswith("_")]:
        del state.__dict__[key]


class Bench:
    """Plays one game per table in lock step and measures each decision side by side."""

    def __init__(self, tables: list[Table], players: int, seed: int, apply_repeat: int) -> None:
        self.tables, self.players, self.seed = tables, players, seed
        self.apply_repeat = apply_repeat
        self.rng = random.Random(seed)
        self.now = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
        self.games = 0
        self.messages: list[int] = []
        self.board_bytes: list[int] = []  # PNG size of each board_png drawn
        self.round: Round | None = None

    def new_games(self) -> None:
        self.seed += 1
        self.games += 1
        for table in self.tables:
            table.game_id = start_game(table.eng, self.players, self.seed, self.now)

    def prepare(self) -> Round:
        """The next decision of the game (a new game if it ended), read from the first
        table; nothing here is timed."""
        first = self.tables[0]
        with db.session_scope(first.eng, write=False) as session:
            state = games.load_state(games.get_game(session, first.game_id))
            if state.over:
                state = None
        if state is None:
            self.new_games()
            return self.prepare()
        decision = self.rng.choice(engine.pending(state))
        command = random_command(self.rng, decision)
        with db.session_scope(first.eng, write=False) as session:
            prompt, _ = games.preview(session, first.game_id, decision.seat, Channel.EMAIL)
        self.now += STEP
        state = engine.from_json(engine.to_json(state))  # cold, as loaded by the service
        return Round(state, decision.seat, command, prompt,
                     engine.public_view(state).to_dict(), self.now)

    def ops(self) -> dict[str, Callable[[int], float | None]]:
        """The measured operations; each reads the current round's ``Round``."""

        def current() -> Round:
            assert self.round is not None
            return self.round

        def apply(_r: int) -> float:
            rd = current()
            total = 0.0
            for _ in range(self.apply_repeat):
                _cold(rd.state)
                total += timed(lambda: engine.apply(rd.state, rd.seat, rd.command))
            return total / self.apply_repeat

        def submit(table: Table | None) -> Callable[[int], float | None]:
            def run(_r: int) -> float | None:
                if table is None:
                    return None
                rd = current()
                start = time.perf_counter()
                result = table.submit(rd.seat, rd.command, rd.now)
                seconds = time.perf_counter() - start
                if table is self.tables[0]:
                    self.messages.append(len(result.notified))
                return seconds
            return run

        pg = self.tables[1] if len(self.tables) > 1 else None
        return {
            "engine.apply": apply,
            "render email": lambda _r: timed(
                lambda: render.render(current().prompt, Channel.EMAIL)),
            "render sms": lambda _r: timed(lambda: render.render(current().prompt, Channel.SMS)),
            "board_png": lambda _r: timed(
                lambda: self.board_bytes.append(len(render.board_png(current().public)))),
            "submit sqlite": submit(self.tables[0]),
            "submit postgres": submit(pg),
        }

    def run(self, rounds: int, warmup: int) -> dict[str, list[float]]:
        """``warmup`` unreported rounds, then ``rounds`` reported ones."""
        self.new_games()

        def before(_r: int) -> None:
            self.round = self.prepare()

        times = interleaved(self.ops(), warmup + rounds, before_round=before,
                            after_round=lambda _r: self._check_in_step())
        self.messages = self.messages[warmup:]
        return {name: values[warmup:] for name, values in times.items()}

    def _check_in_step(self) -> None:
        """Both databases must hold the same game version after every round."""
        if len(self.tables) < 2:
            return
        versions = set()
        for table in self.tables:
            with db.session_scope(table.eng, write=False) as session:
                versions.add(games.get_game(session, table.game_id).state_version)
        if len(versions) != 1:
            raise RuntimeError(f"the games diverged: versions {sorted(versions)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=200, help="reported rounds (decisions)")
    parser.add_argument("--warmup", type=int, default=5, help="unreported rounds first")
    parser.add_argument("--players", type=int, default=5, help="players per game")
    parser.add_argument("--seed", type=int, default=1667, help="first game seed")
    parser.add_argument("--apply-repeat", type=int, default=10,
                        help="engine.apply calls averaged per round")
    args = parser.parse_args()

    server = os.environ.get("TEST_DATABASE_URL") or DEFAULT_PG
    shown = make_url(db.normalise_url(server)).render_as_string(hide_password=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pbm-bench-") as tmp:
        sqlite_url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        db.upgrade(sqlite_url)
        tables = [Table("SQLite", db.get_engine(sqlite_url))]
        pg_url = None
        try:
            pg_url = create_postgres(server)
            db.upgrade(pg_url)
            tables.append(Table("PostgreSQL", db.get_engine(pg_url)))
            print(f"PostgreSQL: private database {make_url(pg_url).database} on {shown}")
        except (PostgresUnavailable, sa.exc.OperationalError) as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            print(f"PostgreSQL: SKIPPED - {shown} unreachable or refused: {reason}")
        try:
            bench = Bench(tables, args.players, args.seed, args.apply_repeat)
            times = bench.run(args.rounds, args.warmup)
        finally:
            db.dispose_engines()
            if pg_url is not None:
                drop_postgres(server, pg_url)
    elapsed = time.perf_counter() - started

    messages = bench.messages
    print(f"{args.rounds} decisions ({args.players}-player random games, {bench.games} "
          f"game(s), {args.warmup} warm-up rounds not shown) in {elapsed:.0f} s; "
          f"a decision notified {sum(messages) / max(len(messages), 1):.2f} seats on average")
    print_times(times, "time per decision:")
    pairs = [(name, "engine.apply") for name in times if name != "engine.apply"]
    pairs += [("submit sqlite", "submit postgres"), ("board_png", "submit sqlite")]
    print_ratios(times, pairs, "ratios (per round, then median / p90 over rounds):")
    if len(tables) < 2:
        print("  (PostgreSQL ratios are n/a: the server was skipped)")
    print(f"(engine.apply: mean of {args.apply_repeat} calls per round; the submits include "
          "the commit)")
    sizes = bench.board_bytes[args.warmup:]
    print(f"board_png size: mean {sum(sizes) / max(len(sizes), 1) / 1024:.1f} KB, max "
          f"{max(sizes, default=0) / 1024:.1f} KB ({len(sizes)} pictures)")


if __name__ == "__main__":
    main()
