"""What the Prometheus metrics cost per reply: CPU with metrics on and off, side by side.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_metrics.py                # 400 replies, 20 games
    .venv/bin/python benchmarks/bench_metrics.py --replies 1000

The path of one valid email reply as the service runs it, in one process, as
``trace_reply.py`` does, but through the hooks that count: **store** (``inbound.store_email``
and the webhook's ``metrics.reply_received``), **process** (``inbound.process`` and the
worker task's ``_count_reply``: the outcome counter; the pipeline noted the reply's channel,
game and seat, so nothing is read), **send** (``deliver_many`` / ``deliver`` to the file
transports, which count sends and read the reply -> first message latency: one small
indexed read in the transaction that records the send). Replies alternate between metrics
on and off (``METRICS_ENABLED``) game by game, so both see the same games, database and
machine load; counters write into a multiprocess folder (``PROMETHEUS_MULTIPROC_DIR``) as
in production. Prints CPU ms per reply of each mode (mean and standard error), the
difference, the CPU spent inside the counting hooks, and the CPU of one ``/metrics``
render.
"""

from __future__ import annotations

import os
import sys
import tempfile

os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="bench-metrics-"))

import argparse  # (below the multiprocess folder: set before prometheus_client loads)
import email.utils
import random
import statistics
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa
from sqlalchemy.engine import make_url

import engine
from benchmarks import bulk_games
from engine.simulate import random_command
from pbm import db, metrics
from pbm.config import get_settings, reset_settings

DEFAULT_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"
DOMAIN = "tortuga.localhost"
DATABASE = "bench_metrics"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default=DEFAULT_SERVER)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--replies", type=int, default=420)
    args = parser.parse_args()

    url = make_url(db.normalise_url(args.server)).set(database=DATABASE).render_as_string(
        hide_password=False)
    admin = sa.create_engine(db.normalise_url(args.server), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        conn.exec_driver_sql(f'CREATE DATABASE "{DATABASE}"')
    admin.dispose()
    os.environ.update(DATABASE_URL=url, MAIL_DOMAIN=DOMAIN, DATA_DIR=tempfile.mkdtemp(),
                      EMAIL_TRANSPORT="file", SMS_TRANSPORT="file")
    reset_settings()
    db.upgrade(url)
    eng = db.get_engine(url)

    from pbm import inbound
    from workers import delivery, tasks
    from workers.hooks import install_process_hooks

    install_process_hooks()  # as in a worker (importing workers.tasks once did it)

    hooks = {True: 0.0, False: 0.0}  # CPU inside the counting hooks, by mode
    mode = {"on": True}

    def timed(function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                hooks[mode["on"]] += time.process_time() - started
        return wrapper

    delivery._count_sent = timed(delivery._count_sent)  # type: ignore[method-assign]
    delivery._latencies = timed(delivery._latencies)  # type: ignore[method-assign]
    count_reply = timed(tasks._count_reply)
    received = timed(metrics.reply_received)
    deliver, deliver_many = delivery.deliver, delivery.deliver_many

    now = datetime.now(UTC)
    tables = []
    for g in range(args.games):
        game_id = bulk_games.start_game(eng, f"metrics-{g}", 3000 + g, now)
        with eng.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT s.seat_index, s.reply_token, p.email FROM seats s JOIN players p "
                "ON p.id = s.player_id WHERE s.game_id = :g"), {"g": game_id}).all()
        tables.append((game_id, {r[0]: (r[1], r[2]) for r in rows}))
    with eng.begin() as conn:
        conn.execute(sa.text("UPDATE outbound_messages SET status = 'sent', sent_at = now()"))

    settings = get_settings()
    rng = random.Random(1667)
    cpu: dict[bool, list[float]] = {True: [], False: []}
    for k in range(args.replies):
        # the first round warms caches (templates, statements) uncounted; then every game
        # sees both modes, in turn
        warm = k < len(tables)
        on = warm or (k // len(tables)) % 2 == 0
        metrics.enabled = (lambda on=on: on)  # type: ignore[assignment]
        mode["on"] = on
        game_id, tokens = tables[k % len(tables)]
        with eng.connect() as conn:
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
               f"Message-ID: <bench-{uuid.uuid4().hex}@example.org>\r\n\r\n"
               f"{random_command(rng, decision)}\r\n").encode()
        started = time.process_time()
        stored = db.run_transaction(
            lambda s, raw=raw: inbound.store_email(s, raw, datetime.now(UTC)))
        received("email")
        token_ = metrics.start_reply()
        result = inbound.process(stored.id, datetime.now(UTC))
        count_reply(stored.id, result, token_)
        with eng.connect() as conn:
            ids = [r[0] for r in conn.execute(sa.text(
                "SELECT id FROM outbound_messages WHERE id > :last ORDER BY id"),
                {"last": last}).all()]
        if len(ids) > 1:
            deliver_many(ids, datetime.now(UTC), settings)
        else:
            for outbox_id in ids:
                deliver(outbox_id, datetime.now(UTC), settings)
        if warm:
            hooks[True] = 0.0
            continue
        cpu[on].append((time.process_time() - started) * 1000)

    metrics.enabled = lambda: True  # type: ignore[assignment]
    renders = []
    for _ in range(20):
        started = time.process_time()
        body, _ = metrics.render()
        renders.append((time.process_time() - started) * 1000)
    for on in (False, True):
        values = cpu[on]
        error = statistics.stdev(values) / len(values) ** 0.5
        print(f"metrics {'on ' if on else 'off'}: {len(values)} replies, "
              f"{statistics.mean(values):.2f} ms CPU per reply (+- {error:.2f}), "
              f"median {statistics.median(values):.2f} ms")
    difference = statistics.mean(cpu[True]) - statistics.mean(cpu[False])
    print(f"difference: {difference:+.2f} ms CPU per reply "
          f"({difference / statistics.mean(cpu[False]) * 100:+.1f} %)")
    for on in (False, True):
        print(f"inside the counting hooks, metrics {'on ' if on else 'off'}: "
              f"{hooks[on] * 1000 / len(cpu[on]):.2f} ms CPU per reply")
    print(f"/metrics render: {statistics.median(renders):.1f} ms CPU (median of 20), "
          f"{len(body)} bytes")
    eng.dispose()


if __name__ == "__main__":
    main()
