"""Hostile input against the whole deployment: the web app over real HTTP, two real Celery
worker processes and beat, PostgreSQL, Redis, SMTP and the Twilio emulator.

- A forged From (random token, no token, another seat's token) plays nothing; the player is
  told at the address we have for them, never at the forger's Reply-To.
- One email with a thousand SAY lines makes one message per seat.
- A seeded fuzz of webhook posts (``PBM_FUZZ_CASES``, default 200): no answer >= 500, nothing
  quarantined, no state change but from authentic commands, web RSS bounded, every stored
  row readable. ``PBM_FUZZ_REPORT=1`` prints the figures.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import re
import secrets
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from email import message_from_bytes, policy
from email.utils import parseaddr
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from pbm import db, games
from pbm.hygiene import clean_text
from pbm.inbound import decode_raw
from pbm.models import CommandLog, GameEvent, InboundMessage, OutboundMessage, Seat
from tests.fixtures.hostile import Case, HostileMail, SeatInfo
from tests.services import drop_database, migrated_database
from tests.workers import helpers as h
from tests.workers.conftest import WORKER_REDIS_DB, redis_db
from tests.workers.servers import twilio_signature, wait_until
from tests.workers.stack import DOMAIN, Stack

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

FINAL = ("done", "ignored", "quarantined")
NOTICE = "Your email to Tortuga by Mail was not read"


@pytest.fixture(scope="module")
def stack(postgres_url: str, redis_url: str) -> Iterator[Stack]:
    database = migrated_database(postgres_url, "pbm_channels")
    deployment = Stack(database, redis_db(redis_url, WORKER_REDIS_DB),
                       INBOUND_PER_SENDER_PER_HOUR="1000000")
    deployment.apply()
    try:
        deployment.web()
        deployment.worker("worker-a", concurrency=1)
        deployment.worker("worker-b", concurrency=1)
        deployment.beat()
        yield deployment
    finally:
        deployment.stop()
        drop_database(postgres_url, database)


def post_email(stack: Stack, client: httpx.Client, raw: bytes, *, as_form: bool = False,
               content_type: str = "message/rfc822") -> httpx.Response:
    headers = {"Authorization": f"Bearer {stack.values['INBOUND_EMAIL_SECRET']}"}
    if as_form:
        return client.post(stack.web_url + "/webhooks/email", headers=headers,
                           files={"body-mime": ("m.eml", raw, "message/rfc822")})
    return client.post(stack.web_url + "/webhooks/email", content=raw,
                       headers={**headers, "Content-Type": content_type})


def post_sms(stack: Stack, client: httpx.Client, form: dict[str, str]) -> httpx.Response:
    path = "/webhooks/twilio/sms"
    signature = twilio_signature(stack.values["PUBLIC_BASE_URL"] + path, form,
                                 stack.twilio.auth_token)
    return client.post(stack.web_url + path, data=form,
                       headers={"X-Twilio-Signature": signature})


def processed(row_id: int, timeout: float = 60) -> InboundMessage:
    def final() -> InboundMessage | None:
        row = h.inbound_row(row_id)
        return row if row is not None and row.status in FINAL else None

    return wait_until(final, timeout, f"inbound {row_id} to be processed", step=0.2)  # type: ignore[no-any-return]


def forged(seat_email: str, token: str | None) -> bytes:
    to = f"play+{token}@{DOMAIN}" if token else f"play@{DOMAIN}"
    raw = h.reply_email(seat_email, "x", "STATUS", DOMAIN,
                        headers={"Reply-To": "mallory@evil.example"})
    return raw.replace(f"To: play+x@{DOMAIN}".encode(), f"To: {to}".encode())


@pytest.mark.parametrize("how", ["a random token", "no token", "another seat's token"])
def test_a_forged_from_plays_nothing_and_the_player_is_told_at_their_own_address(
        stack: Stack, how: str) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs)
    decision = h.pending(game_id)[0]
    _, player = h.seat_row(game_id, decision.seat)
    other, _ = h.seat_row(game_id, (decision.seat + 1) % 3)
    token = {"a random token": secrets.token_hex(8), "no token": None,
             "another seat's token": other.reply_token}[how]
    command = str(decision.legal[0])
    raw = forged(player.email, token).replace(b"STATUS", command.encode())

    with httpx.Client(timeout=30) as client:
        response = post_email(stack, client, raw)
    row = processed(response.json()["id"])
    [notice] = wait_until(lambda: [m for m in stack.smtp.to(player.email)
                                   if m.message["Subject"] == NOTICE], 60, "the notice")

    print(f"\nforged From with {how}: HTTP {response.status_code}, inbound {row.status} "
          f"({row.error}); commands applied: {len(h.commands(game_id))}; notice to "
          f"{notice.rcpt_tos} subject {notice.message['Subject']!r}")
    assert response.status_code == 200
    assert row.status == "ignored"
    assert h.commands(game_id) == []
    assert notice.rcpt_tos == [player.email]
    assert stack.smtp.to("mallory@evil.example") == []


def test_the_players_own_token_and_address_do_play(stack: Stack) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs)
    decision = h.pending(game_id)[0]
    seat, player = h.seat_row(game_id, decision.seat)
    command = str(decision.legal[0])

    with httpx.Client(timeout=30) as client:
        response = post_email(stack, client, h.reply_email(
            player.email, seat.reply_token, command, DOMAIN))
    row = processed(response.json()["id"])

    assert row.status == "done"
    assert h.commands(game_id) == [(decision.seat, command, f"inbound:{row.id}")]


def test_a_thousand_say_lines_in_one_email_make_one_message_per_seat(stack: Stack) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs)
    seat, player = h.seat_row(game_id, 0)
    before = len(h.outbox(game_id))
    body = "\r\n".join(f"SAY ahoy number {i}" for i in range(1000))

    with httpx.Client(timeout=30) as client:
        response = post_email(stack, client, h.reply_email(player.email, seat.reply_token,
                                                           body, DOMAIN))
    row = processed(response.json()["id"])
    new = h.outbox(game_id)[before:]

    # The answer to the speaker, and one table-talk message to each of the two others.
    assert row.status == "done"
    assert sorted((r.seat, r.kind) for r in new) == [(0, "reply"), (1, "table_talk"),
                                                     (2, "table_talk")]
    [reply] = [r for r in new if r.kind == "reply"]
    assert "not relayed" in reply.text and "and 46 more SAY lines" in reply.text
    with db.session_scope(write=False) as session:
        talk = session.execute(sa.select(sa.func.count()).select_from(GameEvent).where(
            GameEvent.game_id == game_id, GameEvent.kind == "table.talk")).scalar_one()
    assert talk == 3


def test_the_api_schema_and_docs_are_not_served(stack: Stack) -> None:
    for path in ("/openapi.json", "/docs", "/redoc", "/docs/oauth2-redirect"):
        assert httpx.get(stack.web_url + path).status_code == 404, path


# ------------------------------------------------------------------------------ fuzz


def fuzz_seats() -> list[SeatInfo]:
    """Two running games of four (one texting player each); what each seat may send."""
    seats = []
    for n in range(2):
        phone = f"+1555{secrets.randbelow(10**7):07d}"
        specs = [games.PlayerSpec("Sam", phone=phone, channel="sms"), *h.email_players(3)]
        game_id = h.new_game(specs, seed=11 + n)
        decision = h.pending(game_id)[0]
        for index in range(4):
            seat, player = h.seat_row(game_id, index)
            command = str(decision.legal[0]) if index == decision.seat else "STATUS"
            seats.append(SeatInfo(player.email or f"sam{n}@example.org", seat.reply_token,
                                  command, player.phone))
    return seats


def send(stack: Stack, case: Case) -> int:
    with httpx.Client(timeout=120) as client:
        if case.channel == "sms":
            assert case.form is not None
            return post_sms(stack, client, case.form).status_code
        if case.channel == "junk-sms":
            return client.post(stack.web_url + "/webhooks/twilio/sms", content=case.raw,
                               headers={"Content-Type": case.content_type,
                                        "X-Twilio-Signature": "x"}).status_code
        if case.channel == "junk-email":
            return post_email(stack, client, case.raw,
                              content_type=case.content_type).status_code
        return post_email(stack, client, case.raw,
                          as_form=case.channel == "email-form").status_code


def peak_rss_mb(pid: int) -> float:
    status = open(f"/proc/{pid}/status").read()  # noqa: SIM115 - one read
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def authentic(session: Any, command: CommandLog) -> bool:
    """The inbound message that played ``command`` came from that seat's player and carried
    that seat's token (or was an SMS from that player's number)."""
    row = session.get(InboundMessage, int(command.origin.split(":")[1]))
    seat = session.execute(sa.select(Seat).where(Seat.game_id == command.game_id,
                                                 Seat.seat_index == command.seat)).scalar_one()
    player = h.player(seat.player_id)
    if row.channel == "sms":
        return bool(row.sender == player.phone)
    message = message_from_bytes(decode_raw(row.raw), policy=policy.compat32)
    sender = parseaddr(str(message.get("From", "")))[1].lower()
    to = " ".join(str(message.get(k, "")) for k in ("To", "Cc", "Delivered-To")).lower()
    return sender == (player.email or "").lower() and f"play+{seat.reply_token}@" in to


FUZZ_CASES = int(os.environ.get("PBM_FUZZ_CASES", "200"))


@pytest.mark.slow
@pytest.mark.timeout(600 + FUZZ_CASES * 0.5)
def test_fuzzed_webhook_posts_never_crash_quarantine_or_play_a_forged_move(
        stack: Stack) -> None:
    count = FUZZ_CASES
    seats = fuzz_seats()
    fuzz = HostileMail(seats, DOMAIN, seed=int(os.environ.get("PBM_FUZZ_SEED", "19")))
    [web] = [p for p in stack.processes if p.name == "web"]
    started = time.monotonic()
    statuses: collections.Counter[int] = collections.Counter()
    failures: list[tuple[int, list[str]]] = []
    cases = fuzz.cases(count)
    with ThreadPoolExecutor(max_workers=4) as pool:
        while batch := list(itertools.islice(cases, 40)):  # a few big cases in memory at once
            for case, status in zip(batch, pool.map(lambda c: send(stack, c), batch),
                                    strict=True):
                statuses[status] += 1
                if status >= 500:
                    failures.append((status, case.operators))
    posted = time.monotonic() - started

    def all_processed() -> bool:
        with db.session_scope(write=False) as session:
            return not session.execute(sa.select(InboundMessage.id).where(
                InboundMessage.status.in_(["new", "processing"])).limit(1)).first()

    wait_until(all_processed, max(420, count * 0.6), "every stored message to be processed",
               step=1)
    elapsed = time.monotonic() - started
    logs = "\n".join(p.log() for p in stack.processes)
    durations = [float(d) for d in re.findall(
        r"Task pbm\.process_inbound\[[^\]]+\] succeeded in ([\d.]+)s", logs)]
    with db.session_scope(write=False) as session:
        by_status = collections.Counter(session.execute(
            sa.select(InboundMessage.status)).scalars())
        quarantined = session.execute(sa.select(InboundMessage.id, InboundMessage.error).where(
            sa.or_(InboundMessage.status == "quarantined",
                   InboundMessage.error.like("unreadable reply%")))).all()
        played = list(session.execute(sa.select(CommandLog).where(
            CommandLog.origin.like("inbound:%"))).scalars())
        forged_plays = [c for c in played if not authentic(session, c)]
        game_ids = sorted({g for (g,) in session.execute(sa.select(Seat.game_id).distinct())})
        replays_ok = all(games.replay_matches(session, g) for g in game_ids)
        unreadable = unreadable_rows(session)
    rss = peak_rss_mb(web.proc.pid)

    report = (f"fuzz: {count} posts in {posted:.0f}s, all processed after {elapsed:.0f}s; "
              f"HTTP status counts {dict(sorted(statuses.items()))}; stored rows by status "
              f"{dict(by_status)}; quarantined or unreadable {len(quarantined)}; moves played "
              f"{len(played)} (not authentic: {len(forged_plays)}); slowest processing "
              f"{max(durations, default=0):.2f}s of {len(durations)} tasks; web peak RSS "
              f"{rss:.0f} MB")
    if os.environ.get("PBM_FUZZ_REPORT"):
        print("\n" + report)
    assert failures == [], report
    assert quarantined == [], report
    assert forged_plays == [], report
    assert replays_ok, report
    assert unreadable == [], report
    assert rss < 400, report
    assert max(durations, default=0) < 10, report


def unreadable_rows(session: Any) -> list[str]:
    """Stored rows a reader would choke on: NUL or control bytes, undecodable raw or JSON."""
    bad = []
    for row in session.execute(sa.select(InboundMessage)).scalars():
        decode_raw(row.raw)
        for value in (row.sender, row.recipient, row.provider_message_id):
            if _CONTROL.search(value or "") or clean_text(value or "") != (value or ""):
                bad.append(f"inbound {row.id}: {value!r}")
    for out in session.execute(sa.select(OutboundMessage)).scalars():
        for value in (out.subject, out.text, out.html, out.sms_body):
            if value and "\x00" in value:
                bad.append(f"outbound {out.id}")
    for event in session.execute(sa.select(GameEvent)).scalars():
        json.loads(event.data_json)
        if _CONTROL.search(event.text) or "\x00" in event.data_json:
            bad.append(f"event {event.id}: {event.text!r}")
    return bad
