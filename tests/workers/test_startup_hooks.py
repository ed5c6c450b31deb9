"""Each process that writes outbox rows installs the outbox hook at its start-up, not on
importing a module: the web app in its lifespan, ``pbm game ...``, and the Celery worker.
A process that only imports them publishes nothing. Likewise the JSON log set-up (the web
app's lifespan) and the worker's kombu patch (``worker_init``) wait for the start-up.

The web app and the CLI are run in processes of their own (a hook is process-wide) on a
SQLite file and the filesystem broker, whose queued messages are files one can count."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.services import drop_database, migrated_database
from tests.workers import helpers as h
from tests.workers.conftest import WORKER_REDIS_DB, redis_db
from tests.workers.servers import wait_until
from tests.workers.stack import DOMAIN, Stack

ROOT = Path(__file__).resolve().parents[2]
PBM = Path(sys.executable).parent / "pbm"


def embedded_env(folder: Path) -> dict[str, str]:
    """A SQLite file and the filesystem broker under ``folder``."""
    return {**os.environ, "DATABASE_URL": f"sqlite:///{folder / 'tortuga.db'}",
            "DATA_DIR": str(folder), "REDIS_URL": "", "BROKER_URL": "",
            "EMAIL_TRANSPORT": "file", "SMS_TRANSPORT": "file", "PYTHONPATH": str(ROOT)}


def queued(folder: Path) -> int:
    """How many messages wait in the filesystem broker."""
    inbox = folder / "broker" / "in"
    return len(list(inbox.iterdir())) if inbox.exists() else 0


WRITE_A_GAME = """
import sys
from datetime import UTC, datetime
from pbm import db, games

db.upgrade()
now = datetime.now(UTC)
specs = [games.PlayerSpec(n, f"{n.lower()}@example.org") for n in ("Ann", "Bob", "Cy")]

def invite(name):
    def work(session):
        game = games.create_game(session, name, specs, now=now, seed=1)
        games.invite(session, game.id, now=now)
    db.run_transaction(work)

from fastapi.testclient import TestClient
from pbm.web import app

invite("imported")  # the web app imported, not started
print("after import", flush=True)
sys.stdin.readline()
with TestClient(app):  # runs the lifespan: the app's start-up
    invite("started")
print("after start-up", flush=True)
"""


def test_the_web_app_installs_the_outbox_hook_at_start_up_not_on_import(
        tmp_path: Path) -> None:
    process = subprocess.Popen([sys.executable, "-c", WRITE_A_GAME], env=embedded_env(tmp_path),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert process.stdout is not None and process.stdin is not None
    try:
        imported = process.stdout.readline().strip()
        after_import = queued(tmp_path)
        process.stdin.write("\n")
        process.stdin.flush()
        started = process.stdout.readline().strip()
    finally:
        process.kill()
        _, errors = process.communicate(timeout=10)
    assert (imported, started) == ("after import", "after start-up"), errors
    assert after_import == 0
    assert queued(tmp_path) == 1  # the invitations, handed over together after the commit


def test_pbm_game_hands_its_messages_to_the_workers(tmp_path: Path) -> None:
    env = embedded_env(tmp_path)

    def pbm(*args: str) -> None:
        done = subprocess.run([str(PBM), *args], env=env, capture_output=True, text=True,
                              timeout=120, cwd=tmp_path)
        assert done.returncode == 0, done.stderr

    pbm("db", "upgrade")
    pbm("game", "create", "harbour", "-p", "Ann <ann@example.org>", "-p",
        "Bob <bob@example.org>", "-p", "Cy <cy@example.org>")
    assert queued(tmp_path) == 0  # nothing to send yet
    pbm("game", "invite", "harbour")
    assert queued(tmp_path) == 1


BUILD_A_WORKER = """
import logging
from kombu.transport import redis as kombu_redis

import workers.app

def state():
    json_logs = any(type(h.formatter).__name__ == "JsonFormatter"
                    for h in logging.getLogger().handlers)
    return getattr(kombu_redis.QoS.ack, "_pbm_tolerant", False), json_logs

print("imported", *state(), flush=True)
workers.app.app.WorkController(pool_cls="solo", concurrency=1)  # its start-up, not started
print("worker", *state()[:1], flush=True)
"""


def test_the_worker_patches_kombu_at_its_start_up_not_on_import(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", BUILD_A_WORKER], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path,
                          env={**embedded_env(tmp_path), "LOG_FORMAT": "json"})
    assert done.stdout.splitlines() == ["imported False False", "worker True"], done.stderr


START_THE_WEB_APP = """
import logging
from fastapi.testclient import TestClient
from pbm.web import app

def json_logs():
    return any(type(h.formatter).__name__ == "JsonFormatter"
               for h in logging.getLogger().handlers)

print("imported", json_logs(), flush=True)
with TestClient(app):  # runs the lifespan: the app's start-up
    print("started", json_logs(), flush=True)
"""


def test_the_web_app_sets_up_json_logs_at_start_up_not_on_import(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", START_THE_WEB_APP], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path,
                          env={**embedded_env(tmp_path), "LOG_FORMAT": "json"})
    assert done.stdout.splitlines() == ["imported False", "started True"], done.stderr


@pytest.fixture(scope="module")
def stack_without_relay(postgres_url: str, redis_url: str) -> Iterator[Stack]:
    """A worker and no beat, relays far off: a message reaches SMTP only if the process
    that wrote it handed it over after its commit."""
    database = migrated_database(postgres_url, "pbm_channels")
    deployment = Stack(database, redis_db(redis_url, WORKER_REDIS_DB),
                       RELAY_INTERVAL="3600", RELAY_GRACE_SECONDS="3600")
    deployment.apply()
    try:
        deployment.worker()
        yield deployment
    finally:
        deployment.stop()
        drop_database(postgres_url, database)


@pytest.mark.postgres
@pytest.mark.redis
def test_the_worker_installs_the_outbox_hook_at_start_up(stack_without_relay: Stack) -> None:
    from workers.enqueue import enqueue_inbound

    stack = stack_without_relay
    specs = h.email_players(3)
    game_id = h.new_game(specs)
    decision = h.pending(game_id)[0]
    stack.smtp.wait_for(specs[decision.seat].email, 1)  # handed over by this process
    seat_row, player = h.seat_row(game_id, decision.seat)
    raw = h.reply_email(player.email, seat_row.reply_token, str(decision.legal[0]), DOMAIN)
    row_id = h.store_email(raw).id
    written_before = len(h.outbox(game_id))
    assert enqueue_inbound([row_id]) == 1

    # the worker applies the reply...
    wait_until(lambda: h.inbound_row(row_id).status == "done", 30, "the reply to be applied")
    answers = h.outbox(game_id)[written_before:]  # written by the worker, applying the reply
    assert answers

    # ...and sent by the worker itself, as no relay runs
    wait_until(lambda: all(r.status == "sent" for r in h.outbox(game_id)[written_before:]),
               30, "the worker to send what it wrote")
