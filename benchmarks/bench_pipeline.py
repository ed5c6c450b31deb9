"""Replies through the whole pipeline: web app, broker, workers, database, SMTP.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_pipeline.py           # 5 rounds + 30 s at 40/s (~3 min)
    .venv/bin/python benchmarks/bench_pipeline.py --quick   # 3 rounds + 12 s at 40/s
    .venv/bin/python benchmarks/bench_pipeline.py --rounds 1 --seconds 5 --memory 5000 \
        --memwatch 500 --memwatch-frames 0  # the workers' RSS, and what it is made of

Started here: the web app (uvicorn) and one Celery worker (prefork, 2 processes, acks_late,
prefetch 1) on the system Redis at ``--redis`` (default ``redis://127.0.0.1:6379/13``,
flushed at the start: it must be a database nobody else uses), a private PostgreSQL
database ``bench_pipeline`` (or ``$BENCH_PIPELINE_DB``) on ``--server`` (created
afresh), and an SMTP sink (aiosmtpd) that notes when each message arrives. Outbound
rate limits are raised for the run.
``--games`` 5-player games are started through ``pbm.games``; their players answer by
email through the raw-MIME webhook (``POST /webhooks/email``), each reply a random legal
command of the game's open decision (``engine.simulate.random_command``).

1. **Throughput, interleaved**: each round first times ``--noop`` no-op Celery tasks (same
   broker, same worker; each INCRs a Redis counter), then ``--batch`` replies to as many
   games, posted at once and timed until every one is processed and every message they
   caused was accepted by SMTP. Ratio per round: replies/s / no-op tasks/s (goal >= 0.1).
2. **Latency at a fixed offered load**: ``--rate`` replies/s for ``--seconds`` (each to a
   game whose previous reply is done). Latency of a reply: from its POST to the webhook
   (the web app's storing included; its 200 answer can reach this busy driver after the
   worker has already sent the messages) to the SMTP sink accepting the last message its
   processing wrote (prompts of the seats now awaited, the REPLY to the sender).
   Percentiles p50/p90/p99/max (goal p99 < 1 s at 40/s). Replies that found no ready game
   are counted as not offered.
3. **SQL per reply**: statements and commits of the web and worker processes (SQLAlchemy
   events, ``benchmarks/pipeline_proc.py``) during each phase, divided by its replies
   (store, process, send; goal <= 20 statements, <= 6 commits).
"""

from __future__ import annotations

import argparse
import email.utils
import math
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from email import message_from_bytes
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import redis
import sqlalchemy as sa
from sqlalchemy.engine import make_url

import engine
from benchmarks import bulk_games
from benchmarks.pipeline_proc import COUNTS_KEY, NOOP_KEY, TASK_NOOP
from benchmarks.ratios import quantile
from benchmarks.servers import SmtpSink, free_port, wait_http
from engine.simulate import random_command
from pbm import db
from pbm.config import reset_settings

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"
DATABASE = os.environ.get("BENCH_PIPELINE_DB", "bench_pipeline")  # two runs at once: two names
DOMAIN = "tortuga.localhost"


@dataclass
class Table:
    """One game as its players see it: seats, and the reply in flight."""

    game_id: int
    tokens: dict[int, tuple[str, str]]  # seat -> (reply token, player email)
    last_inbound: int | None = None
    over: bool = False


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = random.Random(1667)
        self.dir = Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
        self.url = make_url(db.normalise_url(args.server)).set(
            database=DATABASE).render_as_string(hide_password=False)
        self.redis = redis.Redis.from_url(args.redis)
        self.sink = SmtpSink().start()
        self.port = free_port()
        self.secret = secrets.token_hex(12)
        self.env = {
            **os.environ,
            "DATABASE_URL": self.url, "REDIS_URL": args.redis, "BROKER_URL": args.redis,
            "DATA_DIR": str(self.dir / "var"), "MAIL_DOMAIN": DOMAIN,
            "EMAIL_TRANSPORT": "smtp", "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": str(self.sink.port), "SMS_TRANSPORT": "file",
            "PUBLIC_BASE_URL": f"http://127.0.0.1:{self.port}",
            "INBOUND_EMAIL_SECRET": self.secret,
            "OUTBOUND_EMAIL_PER_SECOND": "100000", "OUTBOUND_SMS_PER_SECOND": "100000",
            "INBOUND_PER_SENDER_PER_HOUR": "1000000",
        }
        if args.memwatch:  # workers.memwatch in every pool process
            self.env.update(WORKER_MEMORY_WATCH=str(self.dir / "memwatch"),
                            WORKER_MEMORY_EVERY=str(args.memwatch),
                            WORKER_MEMORY_FRAMES=str(args.memwatch_frames))
        self.processes: list[subprocess.Popen[bytes]] = []
        self.tables: list[Table] = []
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=30)
        self.eng: sa.Engine | None = None
        self.next_table = 0
        self.backends: set[int] = set()
        self.backend_seen: dict[int, float] = {}

    # ---------------------------------------------------------------- setup and teardown

    def setup(self) -> None:
        admin = sa.create_engine(db.normalise_url(self.args.server), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
            conn.exec_driver_sql(f'CREATE DATABASE "{DATABASE}"')
        admin.dispose()
        db.upgrade(self.url)
        self.redis.flushdb()
        for key in ("DATABASE_URL", "REDIS_URL", "BROKER_URL", "MAIL_DOMAIN", "DATA_DIR"):
            os.environ[key] = self.env[key]
        reset_settings()
        self.eng = db.make_engine(self.url)
        now = datetime.now(UTC)
        for g in range(self.args.games):
            game_id = bulk_games.start_game(self.eng, f"pipe-{g}", 1000 + g, now)
            with self.eng.connect() as conn:
                rows = conn.execute(sa.text(
                    "SELECT s.seat_index, s.reply_token, p.email FROM seats s JOIN players p "
                    "ON p.id = s.player_id WHERE s.game_id = :g"), {"g": game_id}).all()
            self.tables.append(Table(game_id, {r[0]: (r[1], r[2]) for r in rows}))
        with self.eng.begin() as conn:  # the invitations and first prompts: as if sent
            conn.execute(sa.text("UPDATE outbound_messages SET status = 'sent', sent_at = now()"))
        log = open(self.dir / "processes.log", "ab")  # noqa: SIM115 - closed with the dir
        for argv in (["web", str(self.port), str(self.args.web)],
                     ["worker", str(self.args.workers)]):
            self.processes.append(subprocess.Popen(
                [sys.executable, "-m", "benchmarks.pipeline_proc", *argv], cwd=ROOT,
                env=self.env, stdout=log, stderr=log))
        wait_http(f"http://127.0.0.1:{self.port}/healthz", timeout=60)
        from workers.app import app, reconfigure

        reconfigure()
        self.app = app
        self.noop(20, timeout=120)  # the worker is up and warm

    def worker_cpu(self) -> float:
        """CPU seconds used so far by the worker: its main process and pool children."""
        import psutil

        main = psutil.Process(self.processes[1].pid)
        total = 0.0
        for process in [main, *main.children(recursive=True)]:
            try:
                times = process.cpu_times()
            except psutil.Error:
                continue
            total += times.user + times.system
        return total

    def cpu_by_process(self) -> dict[str, float]:
        """CPU seconds used so far, by who used them: the worker (main and pool), the web
        app, this database's PostgreSQL backends, the Redis server (its own INFO) and this
        process (the driver posting replies and the SMTP sink receiving messages)."""
        import psutil

        def tree(pid: int) -> float:
            main = psutil.Process(pid)
            return sum(_cpu(p) for p in [main, *main.children(recursive=True)])

        assert self.eng is not None
        with self.eng.connect() as conn:
            pids = conn.execute(sa.text("SELECT pid FROM pg_stat_activity WHERE datname = :d"),
                                {"d": DATABASE}).scalars().all()
        self.backends.update(int(pid) for pid in pids)
        info = self.redis.info("cpu")
        return {
            "worker": tree(self.processes[1].pid),
            "web": tree(self.processes[0].pid),
            "postgres": sum(self.backend_cpu(pid) for pid in self.backends),
            "redis": float(info["used_cpu_user"]) + float(info["used_cpu_sys"]),
            "driver+smtp": _cpu(psutil.Process()),
        }

    def backend_cpu(self, pid: int) -> float:
        """A PostgreSQL backend's CPU so far (the last figure seen once it has exited)."""
        import psutil

        if psutil.pid_exists(pid):
            self.backend_seen[pid] = max(_cpu(psutil.Process(pid)),
                                         self.backend_seen.get(pid, 0.0))
        return self.backend_seen.get(pid, 0.0)

    def worker_rss(self) -> tuple[int, int]:
        """Resident bytes of the worker: its largest process, and all of them together."""
        import psutil

        main = psutil.Process(self.processes[1].pid)
        sizes = []
        for process in [main, *main.children(recursive=True)]:
            try:
                sizes.append(process.memory_info().rss)
            except psutil.Error:
                continue
        return max(sizes), sum(sizes)

    def teardown(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        self.sink.stop()
        if self.eng is not None:
            self.eng.dispose()

    # ---------------------------------------------------------------- measurements

    def sql_counts(self) -> tuple[int, int]:
        time.sleep(0.5)  # the processes add their counts every 0.2 s
        values = self.redis.hgetall(COUNTS_KEY)
        return int(values.get(b"statements", 0)), int(values.get(b"commits", 0))

    def noop(self, n: int, timeout: float = 60) -> float:
        """Seconds for ``n`` no-op tasks, from the first publish to the last one run."""
        before = int(self.redis.get(NOOP_KEY) or 0)
        start = time.perf_counter()
        for _ in range(n):
            self.app.send_task(TASK_NOOP)
        while int(self.redis.get(NOOP_KEY) or 0) < before + n:
            if time.perf_counter() - start > timeout:
                raise TimeoutError("no-op tasks did not finish")
            time.sleep(0.002)
        return time.perf_counter() - start

    def ready(self) -> list[Table]:
        """Tables whose last reply is finished (so their state is current)."""
        assert self.eng is not None
        pending = {t.last_inbound: t for t in self.tables if t.last_inbound is not None}
        busy: set[int] = set()
        if pending:
            with self.eng.connect() as conn:
                busy = {int(i) for i in conn.execute(sa.text(
                    "SELECT id FROM inbound_messages WHERE id = ANY(:ids) "
                    "AND status IN ('new', 'processing')"), {"ids": list(pending)}).scalars()}
        return [t for t in self.tables if not t.over and t.last_inbound not in busy]

    def reply(self, table: Table) -> tuple[int, float] | None:
        """Post one reply (a random legal command) for the table; (inbound id, posted at)."""
        assert self.eng is not None
        with self.eng.connect() as conn:
            state_json = conn.execute(sa.text("SELECT state_json FROM games WHERE id = :g"),
                                      {"g": table.game_id}).scalar_one()
        state = engine.from_json(state_json)
        if state.over:
            table.over = True
            return None
        decision = self.rng.choice(engine.pending(state))
        command = random_command(self.rng, decision)
        token, sender = table.tokens[decision.seat]
        raw = (f"From: {sender}\r\nTo: play+{token}@{DOMAIN}\r\nSubject: Re: your move\r\n"
               f"Date: {email.utils.formatdate()}\r\n"
               f"Message-ID: <bench-{uuid.uuid4().hex}@example.org>\r\n\r\n{command}\r\n"
               ).encode()
        posted = time.time()
        response = self.http.post("/webhooks/email", content=raw,
                                  headers={"X-Inbound-Secret": self.secret,
                                           "Content-Type": "message/rfc822"})
        response.raise_for_status()
        table.last_inbound = int(response.json()["id"])
        return table.last_inbound, posted

    def drained(self, ids: list[int], timeout: float) -> float:
        """Wait until these inbound rows are finished and the outbox is empty; when."""
        assert self.eng is not None
        start = time.perf_counter()
        while True:
            with self.eng.connect() as conn:
                busy = conn.execute(sa.text(
                    "SELECT (SELECT count(*) FROM inbound_messages WHERE id = ANY(:ids) AND "
                    "status IN ('new', 'processing')) + (SELECT count(*) FROM "
                    "outbound_messages WHERE status IN ('pending', 'sending'))"),
                    {"ids": ids}).scalar_one()
            if not busy:
                return time.perf_counter()
            if time.perf_counter() - start > timeout:
                raise TimeoutError(f"{busy} rows still in flight after {timeout} s")
            time.sleep(0.005)

    def replies_round(self, n: int) -> tuple[float, int]:
        """Seconds for ``n`` replies (posted at once) to be processed and sent; replies."""
        tables = self.ready()
        self.rng.shuffle(tables)
        start = time.perf_counter()
        ids = [r[0] for t in tables[:n] if (r := self.reply(t)) is not None]
        end = self.drained(ids, timeout=300)
        return end - start, len(ids)

    def offered_load(self, rate: float, seconds: float) -> tuple[list[tuple[int, float]], int]:
        """Replies at ``rate`` per second for ``seconds``; (inbound id, posted at) and how
        many could not be offered (no game ready)."""
        sent: list[tuple[int, float]] = []
        missed = 0
        start = time.perf_counter()
        total = int(rate * seconds)
        ready: list[Table] = []
        for k in range(total):
            due = start + k / rate
            if (delay := due - time.perf_counter()) > 0:
                time.sleep(delay)
            if not ready:
                ready = self.ready()
                self.rng.shuffle(ready)
            if not ready:
                missed += 1
                continue
            result = self.reply(ready.pop())
            if result is not None:
                sent.append(result)
        return sent, missed

    def latencies(self, sent: list[tuple[int, float]]) -> list[float]:
        """Per reply: from its POST to the SMTP arrival of the last message it caused."""
        assert self.eng is not None
        arrived: dict[str, float] = {}
        for mail in list(self.sink.messages):
            message_id = message_from_bytes(mail.data).get("Message-ID", "")
            arrived[str(message_id).strip()] = mail.at
        accepted = dict(sent)
        with self.eng.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT i.id, o.message_id FROM inbound_messages i JOIN outbound_messages o "
                "ON o.game_id = i.game_id AND o.created_at = i.processed_at "
                "WHERE i.id = ANY(:ids) AND o.channel = 'email'"),
                {"ids": list(accepted)}).all()
        last: dict[int, float] = {}
        for inbound_id, message_id in rows:
            when = arrived.get(str(message_id))
            if when is None:
                when = math.inf  # caused but never arrived
            last[inbound_id] = max(last.get(inbound_id, 0.0), when)
        return [when - accepted[i] for i, when in last.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default=DEFAULT_SERVER)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--noop", type=int, default=400)
    parser.add_argument("--batch", type=int, default=40)
    parser.add_argument("--rate", type=float, default=40.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--workers", type=int, default=2,
                        help="worker pool processes (prefork concurrency)")
    parser.add_argument("--web", type=int, default=1, help="web (uvicorn) processes")
    parser.add_argument("--memory", type=int, default=0,
                        help="then this many more replies, sampling the workers' RSS")
    parser.add_argument("--memwatch", type=int, default=0, metavar="TASKS",
                        help="each pool process reports its memory every TASKS tasks "
                        "(workers.memwatch; tracing slows it: CPU figures mean nothing)")
    parser.add_argument("--memwatch-frames", type=int, default=1,
                        help="tracemalloc frames for --memwatch (0: no tracemalloc)")
    parser.add_argument("--warmup", type=int, default=20,
                        help="replies of an unreported first batch (0: none)")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.seconds, args.games = 3, 12.0, 80
    if args.redis.rstrip("/").rsplit("/", 1)[-1] in {"0", "11", "12"}:
        parser.error("use a Redis database of your own (13 or higher): it is flushed")

    bench = Bench(args)
    try:
        started = time.perf_counter()
        bench.setup()
        print(f"setup: {args.games} games in {time.perf_counter() - started:.0f} s", flush=True)
        ratios, reply_rates, noop_rates = [], [], []
        cpu_per_reply: list[float] = []
        print(f"worker: {args.workers} processes; web: {args.web} process(es)", flush=True)
        if args.warmup:  # templates, fonts, statement caches of every process: unreported
            bench.replies_round(args.warmup)
        statements = commits = replies = 0
        noop_cpu: list[dict[str, float]] = []
        reply_cpu: list[dict[str, float]] = []
        for r in range(args.rounds):
            spent = bench.cpu_by_process()
            noop_s = bench.noop(args.noop)
            noop_cpu.append(_spent(spent, bench.cpu_by_process(), args.noop))
            before = bench.sql_counts()
            cpu = bench.worker_cpu()
            spent = bench.cpu_by_process()
            reply_s, n = bench.replies_round(args.batch)
            reply_cpu.append(_spent(spent, bench.cpu_by_process(), n))
            cpu_per_reply.append((bench.worker_cpu() - cpu) / max(n, 1))
            after = bench.sql_counts()
            statements += after[0] - before[0]
            commits += after[1] - before[1]
            replies += n
            noop_rates.append(args.noop / noop_s)
            reply_rates.append(n / reply_s)
            ratios.append(reply_rates[-1] / noop_rates[-1])
            print(f"round {r + 1}: no-op {noop_rates[-1]:.0f} tasks/s, replies "
                  f"{reply_rates[-1]:.1f}/s ({n}), ratio {ratios[-1]:.3f}, worker CPU "
                  f"{cpu_per_reply[-1] * 1000:.1f} ms per reply", flush=True)
        print(f"throughput: replies/s min {min(reply_rates):.1f} median "
              f"{quantile(reply_rates, 0.5):.1f}; no-op tasks/s min {min(noop_rates):.0f} "
              f"median {quantile(noop_rates, 0.5):.0f}; ratio min {min(ratios):.3f} "
              f"median {quantile(ratios, 0.5):.3f} (goal >= 0.1)")
        print(f"worker CPU per reply (batches, all worker processes): median "
              f"{quantile(cpu_per_reply, 0.5) * 1000:.1f} ms, min "
              f"{min(cpu_per_reply) * 1000:.1f} ms")
        # the ratio's ceiling: the machine's cores shared by every process of the pipeline
        print("CPU by process, median of the rounds (the SMTP sink runs in the driver):")
        print("  " + _cpu_line("per reply", reply_cpu))
        print("  " + _cpu_line("per no-op task", noop_cpu))
        print(f"SQL per reply (batches): {statements / replies:.1f} statements, "
              f"{commits / replies:.2f} commits")

        before = bench.sql_counts()
        sent, missed = bench.offered_load(args.rate, args.seconds)
        bench.drained([i for i, _ in sent], timeout=300)
        after = bench.sql_counts()
        time.sleep(0.5)
        lat = bench.latencies(sent)
        offered = len(sent) / args.seconds
        p = {q: quantile(lat, q) for q in (0.5, 0.9, 0.99)}
        print(f"latency at {args.rate:g}/s offered for {args.seconds:g} s: {len(sent)} replies "
              f"({offered:.1f}/s; {missed} not offered: no game ready), {len(lat)} with "
              f"messages: p50 {p[0.5]:.3f} s, p90 {p[0.9]:.3f} s, p99 {p[0.99]:.3f} s, "
              f"max {max(lat):.3f} s (goal p99 < 1 s at 40/s)")
        per = max(len(sent), 1)
        print(f"SQL per reply (fixed load): {(after[0] - before[0]) / per:.1f} statements, "
              f"{(after[1] - before[1]) / per:.2f} commits")
        print(f"ratio replies/s / no-op tasks/s: median {quantile(ratios, 0.5):.3f}, "
              f"min {min(ratios):.3f}; p99 latency {p[0.99]:.3f} s at {offered:.1f}/s; "
              f"{statements / replies:.1f} statements, {commits / replies:.2f} commits "
              f"per reply")
        if args.memory:
            memory(bench, args.memory, args.batch)
    finally:
        bench.teardown()
    if args.memwatch:
        memwatch_summary(bench.dir / "memwatch")


def _cpu(process: Any) -> float:
    """User + system CPU seconds of a psutil process (0 if it is gone)."""
    import psutil

    try:
        times = process.cpu_times()
    except psutil.Error:
        return 0.0
    return float(times.user + times.system)


def _spent(before: dict[str, float], after: dict[str, float], per: int) -> dict[str, float]:
    """Milliseconds of CPU per unit by process group between two samples."""
    return {k: (after[k] - before[k]) * 1000 / max(per, 1) for k in after}


def _cpu_line(label: str, samples: list[dict[str, float]]) -> str:
    groups = list(samples[0])
    median = {g: quantile([s[g] for s in samples], 0.5) for g in groups}
    parts = ", ".join(f"{g} {median[g]:.2f}" for g in groups)
    return f"{label}: {sum(median.values()):.2f} ms ({parts})"


def memory(bench: Bench, total: int, batch: int) -> None:
    """``total`` more replies in batches; the worker processes' resident memory (the
    largest pool process, and all together) after each tenth of them."""
    done, step, samples = 0, max(total // 10, batch), []
    next_sample = 0
    while done < total:
        if done >= next_sample:
            samples.append((done, *bench.worker_rss()))
            next_sample += step
        _, n = bench.replies_round(batch)
        if n == 0:
            break  # every game is over
        done += n
    samples.append((done, *bench.worker_rss()))
    print("worker RSS over " + str(done) + " replies (replies: largest process / all, MB): "
          + ", ".join(f"{d}: {big / 2**20:.0f}/{every / 2**20:.0f}" for d, big, every in samples))
    first, last = samples[1] if len(samples) > 2 else samples[0], samples[-1]
    print(f"worker RSS growth after the first tenth: largest process "
          f"{(last[1] - first[1]) / 2**20:+.1f} MB, all {(last[2] - first[2]) / 2**20:+.1f} MB")
    if len(samples) >= 5:  # a high-water mark levels off, a leak keeps its pace
        middle = samples[1 + (len(samples) - 1) // 2]
        halves = [(a, b) for a, b in ((first, middle), (middle, last)) if b[0] > a[0]]
        print("largest process's growth per 1,000 replies, after the first tenth: "
              + " then ".join(f"{(b[1] - a[1]) / 2**20 / (b[0] - a[0]) * 1000:+.2f} MB "
                              f"(replies {a[0]}-{b[0]})" for a, b in halves))


def memwatch_summary(folder: Path) -> None:
    """Each pool process's reports (``workers.memwatch``) as one line per report, and the
    last report of the largest process in full."""
    logs = sorted(folder.glob("memwatch-*.log"))
    if not logs:
        print(f"memwatch: no reports in {folder}")
        return
    largest, largest_rss = logs[0], 0
    for log in logs:
        print(f"memwatch {log.name} (kB): tasks rss heap anon libs glibc_in_use glibc_free "
              "traced")
        rss = 0
        for block in log.read_text().split("== task ")[1:]:
            fields = dict(item.split("=", 1) for item in block.split()
                          if "=" in item and item.split("=", 1)[1].isdigit())
            rss = int(fields.get("Rss", 0))
            print(f"  {block.split()[0]:>6} " + " ".join(fields.get(k, "-").rjust(7) for k in (
                "Rss", "heap", "anon", "libs", "in_use", "free_kept", "traced")))
        if rss > largest_rss:
            largest, largest_rss = log, rss
    print(f"memwatch: the last report of {largest} (the largest process):")
    print("== task " + largest.read_text().split("== task ")[-1].rstrip())


if __name__ == "__main__":
    main()
