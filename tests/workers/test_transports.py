"""The transports against real servers: aiosmtpd for SMTP, the Twilio emulator for SMS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbm.config import Settings
from pbm.transports import InlineImage, OutgoingMessage, TransportError, transport_for
from pbm.transports.mail import SmtpTransport
from pbm.transports.sms import TwilioTransport
from tests.workers.servers import FakeTwilio, SmtpSink, free_port

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def smtp_settings(sink: SmtpSink, **extra: object) -> Settings:
    return Settings(email_transport="smtp", smtp_host="127.0.0.1", smtp_port=sink.port,
                    smtp_timeout=5, mail_domain="tortuga.test", **extra)


def email(**extra: object) -> OutgoingMessage:
    values: dict[str, object] = dict(
        channel="email", to="ann@example.org", subject="[Tortuga: Test] your game",
        text="Your turn.\nREVEAL 3", html='<p>Your turn.</p><img src="cid:board-1-7">',
        reply_to="play+tok123@tortuga.test", message_id="<m2@tortuga.test>",
        in_reply_to="<root@tortuga.test>", images=(InlineImage("board-1-7", PNG),), key="42")
    values.update(extra)
    return OutgoingMessage(**values)  # type: ignore[arg-type]


def test_smtp_sends_text_html_and_the_inline_board_picture(smtp: SmtpSink) -> None:
    receipt = SmtpTransport(smtp_settings(smtp)).send(email())

    [mail] = smtp.wait_for("ann@example.org")
    msg = mail.message
    assert receipt.provider_id == "<m2@tortuga.test>" == msg["Message-ID"]
    assert msg.get_content_type() == "multipart/alternative"
    text, related = msg.get_payload()
    assert text.get_content_type() == "text/plain" and "REVEAL 3" in text.get_content()
    assert related.get_content_type() == "multipart/related"
    html, png = related.get_payload()
    assert html.get_content_type() == "text/html" and "cid:board-1-7" in html.get_content()
    assert png.get_content_type() == "image/png" and png["Content-ID"] == "<board-1-7>"
    assert png.get_payload(decode=True) == PNG
    assert msg["Reply-To"] == "play+tok123@tortuga.test"
    assert msg["In-Reply-To"] == "<root@tortuga.test>"
    assert msg["References"] == "<root@tortuga.test>"
    assert msg["Auto-Submitted"] == "auto-generated"
    assert msg["X-Auto-Response-Suppress"] == "All"
    assert mail.mail_from == "bounces+42@tortuga.test"


def test_smtp_sends_plain_text_alone_when_there_is_no_html(smtp: SmtpSink) -> None:
    SmtpTransport(smtp_settings(smtp)).send(email(html=None, images=()))

    [mail] = smtp.wait_for("ann@example.org")
    assert mail.message.get_content_type() == "text/plain"


def test_a_refused_recipient_is_a_permanent_failure(smtp: SmtpSink) -> None:
    smtp.refuse["ann@example.org"] = "550 5.1.1 no such user"

    with pytest.raises(TransportError) as failure:
        SmtpTransport(smtp_settings(smtp)).send(email())

    assert failure.value.permanent and failure.value.reason == "recipient"
    assert failure.value.code == "550"


def test_a_temporary_refusal_is_transient(smtp: SmtpSink) -> None:
    smtp.refuse["ann@example.org"] = "451 4.3.0 try again later"

    with pytest.raises(TransportError) as failure:
        SmtpTransport(smtp_settings(smtp)).send(email())

    assert not failure.value.permanent


def test_an_unreachable_smtp_server_is_transient() -> None:
    settings = Settings(email_transport="smtp", smtp_port=free_port(), smtp_timeout=2)

    with pytest.raises(TransportError) as failure:
        SmtpTransport(settings).send(email())

    assert not failure.value.permanent and failure.value.reason == "network"


def twilio_settings(fake: FakeTwilio, token: str | None = None) -> Settings:
    return Settings(sms_transport="twilio", twilio_account_sid=fake.account_sid,
                    twilio_auth_token=token or fake.auth_token,
                    twilio_from_number=fake.from_number, twilio_api_base_url=fake.base_url)


def sms(**extra: object) -> OutgoingMessage:
    values: dict[str, object] = dict(channel="sms", to="+15551230001", text="long text",
                                     sms="Your turn: 1=REVEAL 3", key="7",
                                     status_callback="https://tortuga.example/webhooks/twilio/status")
    values.update(extra)
    return OutgoingMessage(**values)  # type: ignore[arg-type]


def test_twilio_sends_through_the_official_client(twilio: FakeTwilio) -> None:
    receipt = TwilioTransport(twilio_settings(twilio)).send(sms())

    [sent] = twilio.to("+15551230001")
    assert receipt.provider_id == sent.sid and sent.sid.startswith("SM")
    assert sent.body == "Your turn: 1=REVEAL 3"
    assert sent.from_ == twilio.from_number
    assert sent.status_callback == "https://tortuga.example/webhooks/twilio/status"


def test_an_opted_out_number_is_a_permanent_failure_21610(twilio: FakeTwilio) -> None:
    twilio.opted_out.add("+15551230001")

    with pytest.raises(TransportError) as failure:
        TwilioTransport(twilio_settings(twilio)).send(sms())

    assert failure.value.permanent and failure.value.reason == "opted_out"
    assert failure.value.code == "21610"


def test_a_twilio_outage_is_transient(twilio: FakeTwilio) -> None:
    twilio.fail_next = 1

    with pytest.raises(TransportError) as failure:
        TwilioTransport(twilio_settings(twilio)).send(sms())

    assert not failure.value.permanent and failure.value.reason == "busy"
    TwilioTransport(twilio_settings(twilio)).send(sms())
    assert len(twilio.to("+15551230001")) == 1


def test_wrong_twilio_credentials_are_not_blamed_on_the_player(twilio: FakeTwilio) -> None:
    with pytest.raises(TransportError) as failure:
        TwilioTransport(twilio_settings(twilio, token="wrong")).send(sms())

    assert not failure.value.permanent and failure.value.reason == "auth"


def test_file_transports_write_an_eml_file_and_an_sms_log(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, mail_domain="tortuga.test")

    transport_for("email", settings).send(email())
    transport_for("sms", settings).send(sms())

    [eml] = (tmp_path / "outbox" / "email").glob("*.eml")
    assert b"Reply-To: play+tok123@tortuga.test" in eml.read_bytes()
    [line] = (tmp_path / "outbox" / "sms.jsonl").read_text().splitlines()
    assert json.loads(line)["body"] == "Your turn: 1=REVEAL 3"


def test_transport_errors_survive_pickling_with_their_kind() -> None:
    import pickle

    error = pickle.loads(pickle.dumps(TransportError("x", permanent=True, reason="recipient")))

    assert error.permanent and error.reason == "recipient"


def test_smtp_keeps_its_connection_for_the_next_message(smtp: SmtpSink) -> None:
    transport = SmtpTransport(smtp_settings(smtp))
    transport.send(email(to="ann@example.org", message_id="<k1@tortuga.test>"))
    transport.send(email(to="bob@example.org", message_id="<k2@tortuga.test>"))

    [ann], [bob] = smtp.wait_for("ann@example.org"), smtp.wait_for("bob@example.org")
    assert ann.peer == bob.peer  # one connection, one client port


def test_a_kept_connection_the_server_closed_is_replaced(smtp: SmtpSink) -> None:
    transport = SmtpTransport(smtp_settings(smtp))
    transport.send(email(to="ann@example.org", message_id="<c1@tortuga.test>"))
    smtp.drop_connections()  # as a server does with a connection left idle

    receipt = transport.send(email(to="bob@example.org", message_id="<c2@tortuga.test>"))

    assert receipt.provider_id == "<c2@tortuga.test>"
    [ann], [bob] = smtp.wait_for("ann@example.org"), smtp.wait_for("bob@example.org")
    assert ann.peer != bob.peer  # sent on a new connection
