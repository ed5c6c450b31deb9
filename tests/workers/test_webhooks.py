"""The webhooks over real HTTP into the real app (uvicorn), on PostgreSQL and Redis."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
import redis
import sqlalchemy as sa

from pbm import db
from pbm.models import InboundMessage, OutboundMessage, Player
from tests.workers.conftest import Env, ThreadedWeb, apply, with_twilio
from tests.workers.servers import FakeTwilio, post_signed

PUBLIC = "https://tortuga.example"
SMS_FORM = {"MessageSid": "SM0001", "AccountSid": "AC1", "From": "+15551230001",
            "To": "+15005550006", "Body": "reveal 3", "NumSegments": "1"}
RAW_EMAIL = (b"From: Ann <ann@example.org>\r\nTo: play+tok12345@tortuga.test\r\n"
             b"Subject: Re: your game\r\nMessage-ID: <reply-1@example.org>\r\n\r\nREVEAL 3\r\n")


@pytest.fixture
def web(env: Env, worker_redis: str, twilio: FakeTwilio,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[ThreadedWeb]:
    with_twilio(env, twilio)
    env.values["BROKER_URL"] = worker_redis
    apply(env, monkeypatch)
    server = ThreadedWeb().start()
    yield server
    server.stop()


def rows(model: type) -> list[object]:
    with db.session_scope(write=False) as session:
        return list(session.execute(sa.select(model)).scalars())


def queued(redis_url: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        return int(client.llen("pbm"))
    finally:
        client.close()


def test_a_signed_sms_is_stored_once_when_twilio_delivers_it_twice(
        web: ThreadedWeb, twilio: FakeTwilio, worker_redis: str) -> None:
    url = web.url + "/webhooks/twilio/sms"
    first = post_signed(url, PUBLIC + "/webhooks/twilio/sms", SMS_FORM, twilio.auth_token)
    second = post_signed(url, PUBLIC + "/webhooks/twilio/sms", SMS_FORM, twilio.auth_token)

    assert first == second == 200
    [stored] = rows(InboundMessage)
    assert (stored.channel, stored.provider_message_id, stored.sender) == (
        "sms", "SM0001", "+15551230001")
    assert stored.status == "new"
    assert queued(worker_redis) == 1  # processing was asked for once


def test_it_rejects_forged_signature(web: ThreadedWeb) -> None:
    status = post_signed(web.url + "/webhooks/twilio/sms", PUBLIC + "/webhooks/twilio/sms",
                         SMS_FORM, auth_token="not-the-token")

    assert status == 403
    assert rows(InboundMessage) == []


def test_it_rejects_a_missing_signature(web: ThreadedWeb) -> None:
    status = post_signed(web.url + "/webhooks/twilio/sms", PUBLIC + "/webhooks/twilio/sms",
                         SMS_FORM, auth_token=None)

    assert status == 403
    assert rows(InboundMessage) == []


def test_it_rejects_a_signature_made_for_another_url(web: ThreadedWeb, twilio: FakeTwilio
                                                     ) -> None:
    status = post_signed(web.url + "/webhooks/twilio/sms", PUBLIC + "/webhooks/twilio/other",
                         SMS_FORM, twilio.auth_token)

    assert status == 403
    assert rows(InboundMessage) == []


def test_it_rejects_a_signed_sms_whose_body_was_changed(web: ThreadedWeb, twilio: FakeTwilio
                                                        ) -> None:
    from tests.workers.servers import twilio_signature

    signature = twilio_signature(PUBLIC + "/webhooks/twilio/sms", SMS_FORM, twilio.auth_token)
    tampered = {**SMS_FORM, "Body": "maroon 2"}
    status = post_signed(web.url + "/webhooks/twilio/sms", PUBLIC + "/webhooks/twilio/sms",
                         tampered, None, signature=signature)

    assert status == 403
    assert rows(InboundMessage) == []


def test_raw_email_needs_the_shared_secret(web: ThreadedWeb, env: Env) -> None:
    url = web.url + "/webhooks/email"
    secret = env.values["INBOUND_EMAIL_SECRET"]

    assert httpx.post(url, content=RAW_EMAIL).status_code == 403
    assert httpx.post(url, content=RAW_EMAIL,
                      headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert rows(InboundMessage) == []

    accepted = httpx.post(url, content=RAW_EMAIL, headers={"Authorization": f"Bearer {secret}",
                                                           "Content-Type": "message/rfc822"})
    again = httpx.post(url, content=RAW_EMAIL, headers={"X-Inbound-Secret": secret})

    assert accepted.status_code == 200 and accepted.json()["duplicate"] is False
    assert again.status_code == 200 and again.json()["duplicate"] is True
    [stored] = rows(InboundMessage)
    assert (stored.channel, stored.provider_message_id, stored.sender, stored.recipient) == (
        "email", "<reply-1@example.org>", "ann@example.org", "play+tok12345@tortuga.test")


def test_raw_email_arrives_as_a_form_field_too(web: ThreadedWeb, env: Env) -> None:
    secret = env.values["INBOUND_EMAIL_SECRET"]
    response = httpx.post(web.url + "/webhooks/email", auth=("api", secret),
                          files={"body-mime": ("message.eml", RAW_EMAIL, "message/rfc822")})

    assert response.status_code == 200
    [stored] = rows(InboundMessage)
    assert "REVEAL 3" in stored.raw


def test_an_email_that_is_not_utf8_is_kept_byte_for_byte(web: ThreadedWeb, env: Env) -> None:
    from pbm.inbound import decode_raw

    raw = RAW_EMAIL.replace(b"REVEAL 3", b"R\xe9v\xe9ler 3 \x00")
    response = httpx.post(web.url + "/webhooks/email", content=raw,
                          headers={"X-Inbound-Secret": env.values["INBOUND_EMAIL_SECRET"]})

    assert response.status_code == 200
    [stored] = rows(InboundMessage)
    assert decode_raw(stored.raw) == raw


def sent_sms_row(sid: str) -> int:
    now = datetime.now(UTC)
    with db.session_scope() as session:
        player = Player(display_name="Ann", phone="+15551230001", email="ann@example.org",
                        preferred_channel="sms")
        session.add(player)
        session.flush()
        row = OutboundMessage(player_id=player.id, channel="sms", kind="prompt",
                              to_address="+15551230001", text="t", sms_body="t",
                              status="sent", provider_id=sid, dedupe_key=f"k:{sid}",
                              created_at=now, sent_at=now)
        session.add(row)
        session.flush()
        return int(row.id)  # type: ignore[arg-type]


def status_form(sid: str, status: str, **extra: str) -> dict[str, str]:
    return {"MessageSid": sid, "MessageStatus": status, "AccountSid": "AC1",
            "To": "+15551230001", "From": "+15005550006", **extra}


def test_a_delivery_report_of_an_opted_out_number_switches_the_player_to_email(
        web: ThreadedWeb, twilio: FakeTwilio) -> None:
    row_id = sent_sms_row("SMabc")
    path = "/webhooks/twilio/status"

    status = post_signed(web.url + path, PUBLIC + path,
                         status_form("SMabc", "undelivered", ErrorCode="21610"),
                         twilio.auth_token)

    assert status == 204
    with db.session_scope(write=False) as session:
        row = session.get(OutboundMessage, row_id)
        player = session.get(Player, row.player_id)
    assert row.status == "failed" and "21610" in (row.last_error or "")
    assert player.sms_opted_out and player.preferred_channel == "email"


def test_a_delivered_report_is_recorded_and_a_forged_one_is_refused(
        web: ThreadedWeb, twilio: FakeTwilio) -> None:
    row_id = sent_sms_row("SMdef")
    path = "/webhooks/twilio/status"
    before = datetime.now(UTC)

    delivered = post_signed(web.url + path, PUBLIC + path, status_form("SMdef", "delivered"),
                            twilio.auth_token)
    forged = post_signed(web.url + path, PUBLIC + path, status_form("SMdef", "failed"),
                         "forged-token")

    assert (delivered, forged) == (204, 403)
    with db.session_scope(write=False) as session:
        row = session.get(OutboundMessage, row_id)
    assert (row.status, row.delivery_status) == ("sent", "delivered")
    assert row.delivered_at is not None and row.delivered_at >= before
