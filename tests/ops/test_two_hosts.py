"""Two hosts, one service, and one of them dies.

Two "hosts" share one PostgreSQL database and one Redis (broker, beat lock, rate limits);
each runs its own web process (uvicorn), Celery worker and beat, with its own ``DATA_DIR``
and ``PROMETHEUS_MULTIPROC_DIR``, all of a host's processes in one process group of their
own. Players reply through either host's webhook (email and SMS, alternating, the other
host when one does not answer: a load balancer's retry). When about half the replies are
in, every process of host A gets SIGKILL at once (one ``killpg``); host B carries on
alone, its beat taking the Redis lock over; later host A comes back. A game created at
the kill, with seconds-long deadlines that nobody answers, is played by the sweep alone.

Asserted: no reply lost, none applied twice, every game finished and replays from its log,
the deadline sweep kept firing while A was dead (reminders and defaults played in that
time; the longest gap between two sweeps is printed), and ``/metrics`` summed over the two
hosts counts each reply once. The figures are printed (``-s``):

    TEST_DATABASE_URL=... REDIS_URL=... ./dev test tests/ops/test_two_hosts.py -n 0 -s
"""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import secrets
import signal
import subprocess
import threading
import time
import urllib.error
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from pbm import db, games, health
from pbm.config import get_settings
from pbm.deadlines import TimingPolicy
from pbm.games.audit import replay_matches
from pbm.models import CommandLog, Game, InboundMessage, OutboundMessage
from tests.ops.servers import Samples, scrape
from tests.services import drop_database, migrated_database
from tests.workers import helpers as h
from tests.workers.conftest import WORKER_REDIS_DB, redis_db
from tests.workers.servers import (
    ROOT,
    VENV_BIN,
    Dovecot,
    free_port,
    post_signed,
    wait_http,
    wait_until,
)
from tests.workers.stack import DOMAIN, Stack

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

TOKEN = secrets.token_hex(16)
REPLY_GAMES = 3
KILL_AFTER = 40  # replies applied, all games together, before host A dies
DEAD_FOR = 30  # replies applied while A is dead, before it comes back


class Host:
    """One machine's processes: web, worker and beat, in one process group."""

    def __init__(self, name: str, values: dict[str, str], root: Path) -> None:
        self.name = name
        self.dir = root / name
        self.dir.mkdir(parents=True)
        self.port = free_port()
        self.values = {**values, "DATA_DIR": str(self.dir / "var"),
                       "PROMETHEUS_MULTIPROC_DIR": str(self.dir / "metrics"),
                       "PUBLIC_BASE_URL": f"http://127.0.0.1:{self.port}"}
        self.pgid: int | None = None
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _spawn(self, role: str, argv: list[str]) -> None:
        env = {k: v for k, v in os.environ.items()
               if k not in ("DATABASE_URL", "REDIS_URL", "BROKER_URL")}
        env.update(self.values, PYTHONPATH=str(ROOT), MALLOC_ARENA_MAX="2")
        with (self.dir / f"{role}.log").open("ab") as log:
            # the first process leads the host's group; the others join it
            process = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=log,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       process_group=self.pgid or 0)
        self.pgid = self.pgid or process.pid
        self.processes.append(process)

    def start(self) -> None:
        self.pgid = None
        self.processes = []
        celery = [str(VENV_BIN / "celery"), "-A", "workers.app"]
        self._spawn("web", [str(VENV_BIN / "uvicorn"), "pbm.web:app", "--host", "127.0.0.1",
                            "--port", str(self.port), "--log-level", "warning"])
        self._spawn("worker", [*celery, "worker", "--loglevel=INFO", "--concurrency=2",
                               "--without-gossip", "--without-mingle",
                               "-n", f"worker-{self.name}@%h"])
        self._spawn("beat", [*celery, "beat", "--loglevel=INFO"])
        wait_http(self.url + "/healthz", 60)
        wait_until(lambda: "ready." in self.log("worker"), 60, f"host {self.name}'s worker")

    def kill(self) -> None:
        """SIGKILL every process of the host at once: one signal to its process group."""
        assert self.pgid is not None
        os.killpg(self.pgid, signal.SIGKILL)
        for process in self.processes:
            process.wait(timeout=10)

    def stop(self) -> None:
        if self.pgid is None or all(p.poll() is not None for p in self.processes):
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pgid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.pgid, signal.SIGKILL)
                process.wait(timeout=10)

    def log(self, role: str) -> str:
        try:
            return (self.dir / f"{role}.log").read_text(errors="replace")
        except OSError:
            return ""

    def did(self) -> Counter[str]:
        """What this host's processes did so far, from their logs (across restarts)."""
        done = Counter({"replies": 0, "sweeps": 0, "IMAP polls": 0, "beat sent": 0})
        for line in self.log("worker").splitlines():
            if "succeeded" in line:
                for task, what in TASKS.items():
                    done[what] += f"{task}[" in line
        done["beat sent"] = self.log("beat").count("Scheduler: Sending due task")
        return done


#: the worker tasks counted in ``Host.did``
TASKS = {"pbm.process_inbound": "replies", "pbm.sweep_deadlines": "sweeps",
         "pbm.poll_imap": "IMAP polls"}


@dataclass
class Tally:
    """The players' side of the run."""

    posted: int = 0  # distinct replies accepted by a webhook or put in the mailbox
    retried: int = 0  # posts that failed on one host and went to the other
    duplicates: int = 0  # the same reply accepted again (a retry whose answer was lost)
    by_host: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class Run:
    hosts: list[Host]
    stack: Stack
    mailbox: Dovecot
    tally: Tally = field(default_factory=Tally)
    dead: set[str] = field(default_factory=set)


@pytest.fixture
def run(postgres_url: str, redis_url: str, tmp_path: Path) -> Iterator[Run]:
    mailbox = Dovecot().start()  # skips (fails under CI) where dovecot cannot run
    database = migrated_database(postgres_url, "pbm_two_hosts")
    shared = Stack(database, redis_db(redis_url, WORKER_REDIS_DB), METRICS_TOKEN=TOKEN,
                   ALERT_CHECK_INTERVAL="3600", HEARTBEAT_INTERVAL="1",
                   BEAT_LOCK_TIMEOUT="6", INBOUND_PER_SENDER_PER_HOUR="100000",
                   IMAP_HOST="127.0.0.1", IMAP_PORT=str(mailbox.port), IMAP_SSL="false",
                   IMAP_USERNAME=mailbox.user, IMAP_PASSWORD=mailbox.password)
    shared.apply()  # this process reads the shared database and Redis
    hosts = [Host(name, shared.values, tmp_path) for name in ("a", "b")]
    try:
        yield Run(hosts, shared, mailbox)
    except BaseException:
        for host in hosts:
            for role in ("web", "worker", "beat"):
                print(f"----- host {host.name} {role}\n{host.log(role)[-4000:]}")
        raise
    finally:
        for host in hosts:
            host.stop()
        shared.stop()
        mailbox.stop()
        drop_database(postgres_url, database)


def post_reply(run: Run, game_id: int, seat: int, body: str, turn: int) -> None:
    """The seat's player answers: an SMS seat through one host's Twilio webhook, an email
    seat through one host's email webhook or (every third turn) into the IMAP mailbox that
    both hosts poll. When a host does not answer, the same message (same Message-ID /
    MessageSid) goes to the other one; every fourth accepted post is sent again to the
    other host, as a balancer does when the first answer was lost on its way back."""
    seat_row, player = h.seat_row(game_id, seat)
    sms = player.preferred_channel == "sms"
    if sms:
        form = {"MessageSid": "SM" + secrets.token_hex(16), "AccountSid": "AC1",
                "From": player.phone or "", "To": run.stack.twilio.from_number, "Body": body,
                "NumSegments": "1"}
    else:
        raw = h.reply_email(player.email or "", seat_row.reply_token, body, DOMAIN)
        if turn % 3 == 2:
            run.mailbox.append(raw)
            with run.tally.lock:
                run.tally.posted += 1
                run.tally.by_host["imap"] += 1
            return

    def send(host: Host) -> int:
        try:
            if sms:
                path = "/webhooks/twilio/sms"
                return post_signed(host.url + path, host.url + path, form,
                                   run.stack.twilio.auth_token)
            return httpx.post(host.url + "/webhooks/email", content=raw, timeout=10,
                              headers={"Authorization": "Bearer "
                                       + run.stack.values["INBOUND_EMAIL_SECRET"]}
                              ).status_code
        except (httpx.HTTPError, urllib.error.URLError, OSError):
            return 0

    order = run.hosts[turn % 2:] + run.hosts[:turn % 2]
    for attempt in range(200):
        host = order[attempt % 2]
        if send(host) == 200:
            again = turn % 4 == 0 and send(order[(attempt + 1) % 2]) == 200
            with run.tally.lock:
                run.tally.posted += 1
                run.tally.retried += attempt
                run.tally.by_host[host.name] += 1
                run.tally.duplicates += again
            return
        time.sleep(0.1)  # pace the retries of a player whose both hosts are busy
    raise AssertionError(f"no host took the reply to game {game_id} seat {seat}")


def play_to_the_end(run: Run, game_id: int, rng: random.Random, errors: list[str]) -> None:
    """One table's players: answer each decision with a legal command until game over."""
    try:
        turn = 0
        while True:
            with db.session_scope(write=False) as session:
                game = session.get(Game, game_id)
                assert game is not None
                if game.status == "finished":
                    return
            # a player answers the message they got: wait for the table's prompts to go out
            wait_until(lambda: delivered(game_id), 120, f"game {game_id}'s prompts sent")
            decision = h.pending(game_id)[0]
            before = len(h.commands(game_id))
            post_reply(run, game_id, decision.seat, str(rng.choice(decision.legal)), turn)
            turn += 1
            wait_until(lambda n=before: len(h.commands(game_id)) > n, 120,
                       f"game {game_id}'s reply {turn} applied")
    except BaseException as exc:  # the main thread reports it
        errors.append(f"game {game_id}: {exc!r}")


def delivered(game_id: int) -> bool:
    """Every message of the game is sent (none pending or being sent)."""
    with db.session_scope(write=False) as session:
        return not session.execute(sa.select(sa.func.count()).select_from(OutboundMessage)
                                   .where(OutboundMessage.game_id == game_id,
                                          OutboundMessage.status.in_(("pending", "sending")))
                                   ).scalar()


def timeouts_since(game_id: int, moment: float) -> int:
    """Defaults the sweep played in the game since ``moment`` (UNIX seconds)."""
    since = datetime.fromtimestamp(moment, UTC)
    with db.session_scope(write=False) as session:
        return int(session.execute(sa.select(sa.func.count()).select_from(CommandLog).where(
            CommandLog.game_id == game_id, CommandLog.origin == "timeout",
            CommandLog.created_at >= since)).scalar() or 0)


def applied_replies(game_ids: list[int]) -> int:
    with db.session_scope(write=False) as session:
        return int(session.execute(sa.select(sa.func.count()).select_from(CommandLog).where(
            CommandLog.game_id.in_(game_ids), CommandLog.inbound_message_id.is_not(None))
        ).scalar() or 0)


def quiet() -> bool:
    with db.session_scope(write=False) as session:
        busy = session.execute(sa.select(sa.func.count()).select_from(InboundMessage).where(
            InboundMessage.status.in_(("new", "processing")))).scalar() or 0
        unsent = session.execute(sa.select(sa.func.count()).select_from(OutboundMessage).where(
            OutboundMessage.status.in_(("pending", "sending")))).scalar() or 0
    return not busy and not unsent


class SweepWatch(threading.Thread):
    """Records each deadline sweep's time (the heartbeat it leaves in Redis)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.seen: list[float] = []
        self.done = threading.Event()

    def run(self) -> None:
        settings = get_settings()
        while not self.done.is_set():
            last = health.last_heartbeat(health.SWEEP, settings)
            if last is not None and (not self.seen or last > self.seen[-1]):
                self.seen.append(last)
            time.sleep(0.1)

    def longest_gap(self, start: float, end: float) -> float:
        """The longest time between two consecutive sweeps, counting those before and after
        the window [start, end] that bound it."""
        inside = [t for t in self.seen if start <= t <= end]
        before = [t for t in self.seen if t < start][-1:]
        after = [t for t in self.seen if t > end][:1]
        times = before + inside + after
        return max((b - a for a, b in itertools.pairwise(times)), default=end - start)


def clock_policy() -> TimingPolicy:
    """Seconds-long decisions with a reminder half way, no quiet hours: a game that only
    the deadline sweep plays."""
    return TimingPolicy(reminder_fractions=(0.5,), final_warning_hours=0, grace_hours=0,
                        quiet_start=0, quiet_end=0).with_hours(
        action=4 / 3600, vote=4 / 3600, other=4 / 3600)


def minus(later: Counter[str], earlier: Counter[str]) -> dict[str, int]:
    return {key: later[key] - earlier[key] for key in later}


def summed(samples: list[Samples], name: str) -> float:
    return sum(v for s in samples for (n, _), v in s.items() if n == name)


def test_a_host_killed_mid_game_loses_no_reply_applies_none_twice_and_deadlines_keep_firing(
        run: Run) -> None:
    a, b = run.hosts
    a.start()
    watch = SweepWatch()
    watch.start()
    wait_until(lambda: watch.seen, 60, "host A's beat to run a sweep")
    b.start()  # its beat waits on the lock A's beat holds

    game_ids = []
    for n in range(REPLY_GAMES):
        specs = h.email_players(3)
        specs.append(games.PlayerSpec("Sam", email=f"sam{n}.{secrets.token_hex(2)}@example.org",
                                      phone=f"+1555777{n:04d}", channel="sms"))
        game_ids.append(h.new_game(specs, seed=100 + n))

    errors: list[str] = []
    tables = [threading.Thread(target=play_to_the_end, args=(run, g, random.Random(g), errors),
                               daemon=True) for g in game_ids]
    for table in tables:
        table.start()

    wait_until(lambda: errors or applied_replies(game_ids) >= KILL_AFTER, 300,
               f"{KILL_AFTER} replies applied")
    assert not errors, errors
    # a table nobody answers, its first decision due seconds after the kill: only the
    # sweep plays it (until every seat has timed out once and it pauses, as it should)
    clock = h.new_game(h.email_players(5), seed=7, policy=clock_policy())
    killed_at = time.time()
    a.kill()
    at_kill = [host.did() for host in (a, b)]
    applied_at_kill = applied_replies(game_ids)
    wait_until(lambda: errors or applied_replies(game_ids) >= applied_at_kill + DEAD_FOR
               or not any(t.is_alive() for t in tables), 300,
               f"{DEAD_FOR} more replies applied by host B alone")
    wait_until(lambda: len([t for t in watch.seen if t > killed_at + 10]) >= 3, 120,
               "host B's beat to sweep (the lock taken over)")
    wait_until(lambda: timeouts_since(clock, killed_at) >= 2, 120,
               "the sweep to play two defaults in the clock game while host A is dead")
    back_at = time.time()
    applied_while_dead = applied_replies(game_ids) - applied_at_kill
    at_back = [host.did() for host in (a, b)]
    a.start()

    for table in tables:
        table.join(timeout=600)
    assert not errors, errors
    wait_until(quiet, 120, "every reply processed and every message sent")
    watch.done.set()
    gap = watch.longest_gap(killed_at, back_at)

    with db.session_scope(write=False) as session:
        statuses = dict(session.execute(sa.select(Game.id, Game.status)).all())
        inbound = session.execute(sa.select(InboundMessage.id, InboundMessage.status)).all()
        log = session.execute(sa.select(CommandLog.game_id, CommandLog.origin,
                                        CommandLog.inbound_message_id, CommandLog.created_at)
                              ).all()
        replays = {g: replay_matches(session, g) for g in [*game_ids, clock]}
        clock_mail = session.execute(sa.select(OutboundMessage.kind, OutboundMessage.created_at)
                                     .where(OutboundMessage.game_id == clock)).all()
    applied = Counter(row.inbound_message_id for row in log if row.inbound_message_id)
    twice = {i: n for i, n in applied.items() if n > 1}
    lost = [row.id for row in inbound if row.status != "done" or row.id not in applied]

    def during(moment: datetime) -> bool:
        return killed_at <= moment.replace(tzinfo=moment.tzinfo or UTC).timestamp() <= back_at

    timeouts_dead = sum(1 for row in log if row.game_id == clock and row.origin == "timeout"
                        and during(row.created_at))
    reminders_dead = sum(1 for kind, at in clock_mail if "remind" in kind and during(at))
    samples = [scrape(host.url, TOKEN) for host in (a, b)]
    received = summed(samples, "pbm_replies_received_total")
    processed = summed(samples, "pbm_replies_total")

    print(f"\nreplies posted {run.tally.posted} (to host a {run.tally.by_host['a']}, "
          f"b {run.tally.by_host['b']}, IMAP mailbox {run.tally.by_host['imap']}; "
          f"{run.tally.retried} posts retried on the other host, {run.tally.duplicates} "
          f"accepted twice), "
          f"stored {len(inbound)}, lost {len(lost)}, applied twice {len(twice)}; "
          f"{applied_while_dead} applied while host a was dead ({back_at - killed_at:.0f} s)")
    print(f"games finished {sum(statuses[g] == 'finished' for g in game_ids)}/{len(game_ids)}, "
          f"replaying {sum(replays.values())}/{len(replays)}; clock game while a was dead: "
          f"{timeouts_dead} defaults played, {reminders_dead} reminders; longest gap between "
          f"two sweeps while a was dead: {gap:.1f} s")
    print(f"/metrics over both hosts: received {received:.0f}, processed {processed:.0f}")
    for n, host in enumerate((a, b)):
        end = host.did()
        print(f"host {host.name}: before the kill {dict(at_kill[n])}; while a was dead "
              f"{minus(at_back[n], at_kill[n])}; after {minus(end, at_back[n])}")

    assert run.tally.posted == len(inbound)  # each reply stored once, none more
    assert not lost and not twice
    assert all(statuses[g] == "finished" for g in game_ids)
    assert all(replays.values())
    assert timeouts_dead >= 1 and reminders_dead >= 1
    assert gap < 60  # another beat took over within a minute
    assert received == len(inbound) and processed == len(inbound)
    assert run.tally.duplicates > 0 and run.tally.by_host["imap"] > 0
    for host in (a, b):
        assert host.did()["replies"] > 0 and host.did()["IMAP polls"] > 0
