"""A real Celery worker process on a real Redis broker, real SMTP and the Twilio emulator.

Replies stored in the database become the next prompts at the SMTP server; a worker killed
with SIGKILL in the middle of processing or of sending loses nothing and applies nothing
twice once a worker runs again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from pbm import games
from tests.services import drop_database, migrated_database
from tests.workers import helpers as h
from tests.workers.conftest import WORKER_REDIS_DB, redis_db
from tests.workers.servers import wait_until
from tests.workers.stack import DOMAIN, Stack

pytestmark = [pytest.mark.postgres, pytest.mark.redis]


@pytest.fixture(scope="module")
def stack(postgres_url: str, redis_url: str) -> Iterator[Stack]:
    database = migrated_database(postgres_url, "pbm_channels")
    deployment = Stack(database, redis_db(redis_url, WORKER_REDIS_DB))
    deployment.apply()
    try:
        deployment.worker()
        deployment.beat()
        yield deployment
    finally:
        deployment.stop()
        drop_database(postgres_url, database)


def enqueue_processing(row_id: int) -> None:
    from workers.enqueue import enqueue_inbound

    assert enqueue_inbound([row_id]) == 1


def processing_task(row_id: int) -> str:
    """Enqueue the processing of an inbound row as ``enqueue_inbound`` does; the task id."""
    from workers.app import TASK_PROCESS_INBOUND, app

    return str(app.send_task(TASK_PROCESS_INBOUND, args=[row_id]).id)


def task_results(stack: Stack, task_ids: list[str]) -> list[str] | None:
    """The results the worker logged for these tasks, once it logged every one."""
    found = dict(re.findall(r"\[([0-9a-f-]{36})\] succeeded in [0-9.]+s: (.*)",
                            "".join(p.log() for p in stack.processes)))
    return [found[t].strip() for t in task_ids] if all(t in found for t in task_ids) else None


def backends_blocked_by(engine: sa.Engine, pid: int) -> int:
    """How many PostgreSQL sessions wait for a lock that session ``pid`` holds."""
    with engine.connect() as connection:
        return int(connection.execute(sa.text(
            "SELECT count(*) FROM pg_stat_activity WHERE :pid = ANY(pg_blocking_pids(pid))"),
            {"pid": pid}).scalar_one())


def first_decision(game_id: int) -> tuple[int, str]:
    decision = h.pending(game_id)[0]
    return decision.seat, str(decision.legal[0])


def reply_as(game_id: int, seat: int, body: str, **headers: str) -> int:
    seat_row, player = h.seat_row(game_id, seat)
    raw = h.reply_email(player.email, seat_row.reply_token, body, DOMAIN, headers=headers)
    return h.store_email(raw).id


def test_a_reply_row_becomes_the_next_prompts_at_the_smtp_server(stack: Stack) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs)
    seat, command = first_decision(game_id)
    stack.smtp.wait_for(specs[seat].email, 1)  # the opening prompt was delivered

    row_id = reply_as(game_id, seat, command)
    enqueue_processing(row_id)

    wait_until(lambda: h.inbound_row(row_id).status == "done", 30, "the reply to be applied")
    assert h.commands(game_id) == [(seat, command, f"inbound:{row_id}")]
    following = h.pending(game_id)[0].seat

    def prompts() -> list[object]:
        return [r for r in h.outbox(game_id, seat=following, kind="prompt")
                if r.status == "sent"]

    wait_until(prompts, 30, "the next prompt to be sent")
    received = stack.smtp.to(specs[following].email)
    assert any(m.message["Message-ID"] == prompts()[-1].message_id for m in received)


def test_a_reply_delivered_twice_is_applied_once(stack: Stack) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs)
    seat, command = first_decision(game_id)
    seat_row, player = h.seat_row(game_id, seat)
    raw = h.reply_email(player.email, seat_row.reply_token, command, DOMAIN)

    first, second = h.store_email(raw), h.store_email(raw)
    tasks = [processing_task(first.id) for _ in range(3)]

    assert first.id == second.id and second.created is False
    # Every delivery of the task has run (the worker logs each one's result): one applied
    # the reply, the others found it done.
    results = wait_until(lambda: task_results(stack, tasks), 30, "the three deliveries")
    assert sorted(results) == ["'done'", "'skipped'", "'skipped'"], results
    assert h.commands(game_id) == [(seat, command, f"inbound:{first.id}")]


def test_a_worker_killed_while_processing_applies_the_reply_exactly_once(stack: Stack) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs)
    seat, command = first_decision(game_id)
    stack.smtp.wait_for(specs[seat].email, 1)
    engine = sa.create_engine(stack.values["DATABASE_URL"])
    blocker = engine.connect()
    transaction = blocker.begin()
    blocker.execute(sa.text("SELECT id FROM games WHERE id = :id FOR UPDATE"), {"id": game_id})
    blocker_pid = blocker.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
    try:
        row_id = reply_as(game_id, seat, command)
        enqueue_processing(row_id)
        # The worker has claimed the reply and waits for the game's row lock: mid-processing.
        wait_until(lambda: h.inbound_row(row_id).status == "processing", 30, "the claim")
        wait_until(lambda: backends_blocked_by(engine, blocker_pid), 30,
                   "the worker to wait for the game's row lock")
        [worker] = [p for p in stack.processes if p.name == "worker"]
        worker.kill()
        stack.processes.remove(worker)
    finally:
        transaction.rollback()
        blocker.close()
        engine.dispose()
    assert h.commands(game_id) == []

    stack.worker()

    wait_until(lambda: h.inbound_row(row_id).status == "done", 60,
               "the reply to be applied after the restart")
    assert h.commands(game_id) == [(seat, command, f"inbound:{row_id}")]
    assert h.inbound_row(row_id).attempts >= 2
    following = h.pending(game_id)[0].seat
    stack.smtp.wait_for(specs[following].email, 2 if following != seat else 1, timeout=30)


def test_a_worker_killed_while_sending_delivers_every_prompt_once(stack: Stack) -> None:
    specs = h.email_players(3)
    held = specs[1].email
    stack.smtp.hold.add(held)
    stack.smtp.held.clear()
    stack.smtp.release.clear()
    try:
        game_id = h.new_game(specs)  # every seat gets a message at the start
        assert stack.smtp.held.wait(30), "the worker never reached the SMTP server"
        [worker] = [p for p in stack.processes if p.name == "worker"]
        worker.kill()  # SIGKILL in the middle of the SMTP conversation
        stack.processes.remove(worker)
        [row] = h.outbox(game_id, to_address=held)
        assert row.status == "sending"
    finally:
        stack.smtp.release.set()
        stack.smtp.hold.discard(held)

    stack.worker()

    for spec in specs:
        stack.smtp.wait_for(spec.email, 1, timeout=60)
    wait_until(lambda: all(r.status == "sent" for r in h.outbox(game_id)), 30, "all sent")
    # The tasks the killed worker held have come back and run: they had their chance to
    # send it again.
    wait_until(lambda: h.settled(stack.values["REDIS_URL"], game_id), 60, "an idle broker")
    assert len(stack.smtp.to(held)) == 1  # the message the worker died sending: once
    for spec in specs:
        # Another message the killed worker had handed to SMTP but not yet marked sent may
        # come twice (at least once), but always as the same message: same Message-ID.
        ids = [m.message["Message-ID"] for m in stack.smtp.to(spec.email)]
        assert set(ids) == {r.message_id for r in h.outbox(game_id, to_address=spec.email)}


def test_an_sms_player_gets_prompts_from_twilio_and_replies_by_sms(stack: Stack) -> None:
    specs = [games.PlayerSpec("Sam", phone="+15557770001"), *h.email_players(2)]
    game_id = h.new_game(specs, seed=h.seed_opening_with([s.name for s in specs], seat=0))
    stack.twilio.wait_for("+15557770001", 1)
    command = str(h.pending(game_id)[0].legal[0])

    row = h.store_sms("+15557770001", stack.twilio.from_number, command.lower())
    enqueue_processing(row.id)

    wait_until(lambda: h.inbound_row(row.id).status == "done", 30, "the SMS to be applied")
    assert h.commands(game_id) == [(0, command, f"inbound:{row.id}")]
    [sent] = [r for r in h.outbox(game_id, seat=0, channel="sms") if r.status == "sent"][:1]
    assert sent.provider_id and sent.provider_id.startswith("SM")


def test_an_opted_out_number_switches_the_player_to_email(stack: Stack) -> None:
    stack.twilio.opted_out.add("+15557770002")
    specs = [games.PlayerSpec("Tia", email="tia@example.org", phone="+15557770002",
                              channel="sms"), *h.email_players(2)]
    game_id = h.new_game(specs, seed=12)

    stack.smtp.wait_for("tia@example.org", 1, timeout=30)  # an email copy of the lost SMS
    [sms] = h.outbox(game_id, channel="sms")
    assert sms.status == "failed" and "21610" in (sms.last_error or "")
    tia = h.player(sms.player_id)
    assert tia.sms_opted_out and tia.preferred_channel == "email"
    alerts = wait_until(lambda: stack.smtp.to("admin@ops.test"), 30, "the admin alert")
    assert any("+15557770002" in m.message["Subject"] for m in alerts)


def test_a_refused_address_is_marked_failing_and_the_admin_is_told(stack: Stack) -> None:
    specs = h.email_players(3)
    stack.smtp.refuse[specs[2].email] = "550 5.1.1 no such mailbox"

    game_id = h.new_game(specs)

    wait_until(lambda: h.outbox(game_id, to_address=specs[2].email)[0].status == "failed", 30,
               "the refused message to fail")
    [row] = h.outbox(game_id, to_address=specs[2].email)
    assert h.player(row.player_id).email_failing
    wait_until(lambda: any(specs[2].email in m.message["Subject"]
                           for m in stack.smtp.to("admin@ops.test")), 30, "the admin alert")
