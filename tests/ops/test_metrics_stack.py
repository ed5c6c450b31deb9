"""/metrics of a real deployment: replies posted to the real web process's webhooks,
applied by a real Celery worker (prefork), sent by SMTP and the Twilio emulator; the
scrape parsed with prometheus_client.parser. Counters move by exactly what was played,
and a worker killed and restarted never makes one go backwards (multiprocess mode)."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator

import httpx
import pytest
import sqlalchemy as sa

from pbm import db, games
from pbm.models import InboundMessage, OutboundMessage
from tests.ops.servers import Samples, scrape, value, wait_scrape
from tests.services import drop_database, migrated_database
from tests.workers import helpers as h
from tests.workers.conftest import WORKER_REDIS_DB, redis_db
from tests.workers.servers import post_signed, wait_until
from tests.workers.stack import DOMAIN, Stack

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

TOKEN = secrets.token_hex(16)
PHONE = "+15557772001"


@pytest.fixture(scope="module")
def stack(postgres_url: str, redis_url: str) -> Iterator[Stack]:
    database = migrated_database(postgres_url, "pbm_channels")
    deployment = Stack(database, redis_db(redis_url, WORKER_REDIS_DB), METRICS_TOKEN=TOKEN,
                       ALERT_CHECK_INTERVAL="3600", LOG_FORMAT="json")
    assert deployment.values["PROMETHEUS_MULTIPROC_DIR"]  # the stack's processes share it
    deployment.apply()
    try:
        deployment.worker()
        deployment.beat()
        deployment.web()
        yield deployment
    except BaseException:
        print(deployment.logs())
        raise
    finally:
        deployment.stop()
        drop_database(postgres_url, database)


def reply(stack: Stack, game_id: int, seat: int, body: str) -> None:
    """The seat's player answers: by SMS for the SMS seat, by email otherwise."""
    seat_row, player = h.seat_row(game_id, seat)
    if player.preferred_channel == "sms":
        path = "/webhooks/twilio/sms"
        form = {"MessageSid": f"SM{time.time_ns():032x}"[:34], "AccountSid": "AC1",
                "From": player.phone, "To": stack.twilio.from_number, "Body": body,
                "NumSegments": "1"}
        assert post_signed(stack.web_url + path, stack.web_url + path, form,
                           stack.twilio.auth_token) == 200
        return
    raw = h.reply_email(player.email, seat_row.reply_token, body, DOMAIN)
    response = httpx.post(stack.web_url + "/webhooks/email", content=raw, headers={
        "Authorization": f"Bearer {stack.values['INBOUND_EMAIL_SECRET']}"}, timeout=30)
    assert response.status_code == 200, response.text


def quiet() -> dict[str, int]:
    """Once nothing is waiting (every reply processed, every message sent): rows sent by
    channel; None while work is in flight."""
    with db.session_scope(write=False) as session:
        busy = session.execute(sa.select(sa.func.count()).select_from(InboundMessage).where(
            InboundMessage.status.in_(("new", "processing")))).scalar() or 0
        unsent = session.execute(sa.select(sa.func.count()).select_from(OutboundMessage)
                                 .where(OutboundMessage.status.in_(("pending", "sending")))
                                 ).scalar() or 0
        sent = dict(session.execute(
            sa.select(OutboundMessage.channel, sa.func.count())
            .where(OutboundMessage.status == "sent").group_by(OutboundMessage.channel)).all())
    return {} if busy or unsent else {"email": sent.get("email", 0), "sms": sent.get("sms", 0),
                                      "ok": 1}


def replies_that_caused_messages() -> int:
    """Processed replies whose transaction wrote an outbox row (same game, same instant)."""
    with db.session_scope(write=False) as session:
        return int(session.execute(
            sa.select(sa.func.count(sa.distinct(InboundMessage.id))).select_from(
                sa.join(InboundMessage, OutboundMessage, sa.and_(
                    OutboundMessage.game_id == InboundMessage.game_id,
                    OutboundMessage.created_at == InboundMessage.processed_at)))
            .where(InboundMessage.status == "done")).scalar() or 0)


def settle() -> dict[str, int]:
    return wait_until(quiet, 90, "every reply processed and every message sent", step=0.2)


def counters(samples: Samples) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {k: v for k, v in samples.items() if k[0].endswith(("_total", "_count", "_sum",
                                                                "_bucket"))}


def play_legal(stack: Stack, game_id: int, played: dict[str, int]) -> None:
    decision = h.pending(game_id)[0]
    _, player = h.seat_row(game_id, decision.seat)
    before = len(h.commands(game_id))
    reply(stack, game_id, decision.seat, str(decision.legal[0]))
    wait_until(lambda: len(h.commands(game_id)) > before, 60, "the reply applied")
    played[player.preferred_channel] += 1


@pytest.mark.slow
def test_counters_move_by_exactly_what_was_played_and_survive_a_worker_kill(
        stack: Stack) -> None:
    specs = h.email_players(3)
    specs.append(games.PlayerSpec("Sam", email="sam.metrics@example.org", phone=PHONE,
                                  channel="sms"))
    names = [s.name for s in specs]
    game_id = h.new_game(specs, seed=h.seed_opening_with(names, seat=3))
    sent_before = settle()
    mails_before, sms_before = len(stack.smtp.messages), len(stack.twilio.messages)
    base = scrape(stack.web_url, TOKEN)

    applied = {"email": 0, "sms": 0}
    for _ in range(5):  # the SMS seat opens, then the table plays on by email and SMS
        play_legal(stack, game_id, applied)
    reply(stack, game_id, 0, "xyzzy plugh frobozz")  # not understood, by email
    reply(stack, game_id, 3, "xyzzy plugh frobozz")  # not understood, by SMS
    sent_after = settle()

    def moved(name: str, samples: Samples, **labels: str) -> float:
        return value(samples, name, **labels) - value(base, name, **labels)

    expected = {
        ("pbm_replies_received_total", "email"): applied["email"] + 1,
        ("pbm_replies_received_total", "sms"): applied["sms"] + 1,
        ("pbm_outbox_sent_total", "email"): sent_after["email"] - sent_before["email"],
        ("pbm_outbox_sent_total", "sms"): sent_after["sms"] - sent_before["sms"],
    }

    def exact(samples: Samples) -> bool:
        return all(moved(name, samples, **{"channel" if "replies" in name else "transport": c})
                   == n for (name, c), n in expected.items()) and all(
            moved("pbm_replies_total", samples, channel=c, outcome=o) == n
            for c, o, n in [("email", "applied", applied["email"]),
                            ("sms", "applied", applied["sms"]),
                            ("email", "not_understood", 1), ("sms", "not_understood", 1)])

    after = wait_scrape(stack.web_url, TOKEN, exact, 30, "the counters to show the replies")
    assert applied["email"] > 0 and applied["sms"] > 0
    assert expected[("pbm_outbox_sent_total", "email")] == len(stack.smtp.messages) - mails_before
    assert expected[("pbm_outbox_sent_total", "sms")] == len(stack.twilio.messages) - sms_before
    for outcome in ("refused", "ignored", "quarantined", "loop_guard", "rate_limited"):
        assert moved("pbm_replies_total", after, channel="email", outcome=outcome) == 0
    # one latency observation per reply that caused a message (a prompt, an answer)
    latency = sum(moved("pbm_reply_first_message_seconds_count", after, channel=c)
                  for c in ("email", "sms"))
    assert latency == replies_that_caused_messages() >= 2
    assert value(after, "pbm_games", status="running") >= 1
    assert value(after, "pbm_outbox_unsent", transport="email") == 0
    assert value(after, "pbm_database_up") == 1
    assert value(after, "pbm_heartbeat_timestamp_seconds", component="sweep") > time.time() - 60

    # A worker killed outright (its pool children with it) and started again.
    [worker] = [p for p in stack.processes if p.name == "worker"]
    worker.kill()
    stack.processes.remove(worker)
    killed = scrape(stack.web_url, TOKEN)
    stack.worker("worker-2")
    play_legal(stack, game_id, applied)
    settle()
    final = wait_scrape(
        stack.web_url, TOKEN,
        lambda s: moved("pbm_replies_total", s, channel="email", outcome="applied")
        + moved("pbm_replies_total", s, channel="sms", outcome="applied")
        == sum(applied.values()), 60, "the reply after the restart to be counted")
    text = httpx.get(stack.web_url + "/metrics", timeout=30,
                     headers={"Authorization": f"Bearer {TOKEN}"}).text
    print("SCRAPE\n" + "\n".join(line for line in text.splitlines() if line.startswith("pbm_")
                                  and "_bucket" not in line and "_created" not in line))
    for earlier in (after, killed):
        went_back = {k: (v, final.get(k, 0.0)) for k, v in counters(earlier).items()
                     if final.get(k, 0.0) < v}
        assert went_back == {}, f"counters went backwards: {went_back}"
    assert all(killed.get(k, 0.0) >= v for k, v in counters(after).items())


def test_metrics_refuse_a_scrape_without_credentials(stack: Stack) -> None:
    assert httpx.get(stack.web_url + "/metrics", timeout=10).status_code == 401
    wrong = httpx.get(stack.web_url + "/metrics", timeout=10,
                      headers={"Authorization": "Bearer wrong"})
    assert wrong.status_code == 401


def test_json_log_lines_of_a_reply_carry_its_ids_and_never_its_token_or_body(
        stack: Stack) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs, seed=h.seed_opening_with([s.name for s in specs], seat=0))
    settle()
    reply(stack, game_id, 0, "xyzzy secret words")
    settle()
    worker_log = "\n".join(p.log() for p in stack.processes if p.name.startswith("worker"))
    lines = [json.loads(line) for line in worker_log.splitlines() if line.startswith("{")]
    [processed] = wait_until(lambda: [
        line for line in (json.loads(raw) for raw in "\n".join(
            p.log() for p in stack.processes if p.name.startswith("worker")).splitlines()
            if raw.startswith("{"))
        if line["msg"].startswith("inbound processed") and line.get("game_id") == game_id],
        30, "the JSON line of the processed reply")
    assert processed["seat"] == 0 and processed["inbound_id"] > 0
    assert processed["msg"] == "inbound processed: not_understood"
    assert lines, "the worker logs JSON"
    tokens = [h.seat_row(game_id, seat)[0].reply_token for seat in range(3)]
    everything = "\n".join(p.log() for p in stack.processes)
    assert not [t for t in tokens if t in everything]
    assert "xyzzy secret words" not in everything

