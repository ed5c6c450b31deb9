"""Claims are leases of their own (``claimed_at``): ``sent_at`` and ``processed_at`` say
when a message was sent or finished, and provider delivery reports are recorded.
On SQLite and PostgreSQL, with real SMTP."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from pbm import db, inbound
from pbm.config import get_settings
from pbm.models import InboundMessage, OutboundMessage, Player
from pbm.webhooks import record_delivery_report
from tests.workers.conftest import EITHER_DATABASE, Env, apply, either_database
from tests.workers.servers import SmtpSink
from workers.delivery import claim, deliver, relay_candidates

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


database_url = pytest.fixture(params=EITHER_DATABASE, name="database_url")(either_database)


@pytest.fixture
def setup(env: Env, monkeypatch: pytest.MonkeyPatch) -> Env:
    apply(env, monkeypatch)
    return env


def add_email(created_at: datetime = NOW, **values: object) -> int:
    with db.session_scope() as session:
        row = OutboundMessage(channel="email", kind="notice", to_address="ann@example.org",
                              subject="[Tortuga] news", text="News.", created_at=created_at,
                              dedupe_key=f"test:{created_at.isoformat()}", **values)
        session.add(row)
        session.flush()
        return int(row.id)  # type: ignore[arg-type]


def outbox_row(row_id: int) -> OutboundMessage:
    with db.session_scope(write=False) as session:
        return session.get(OutboundMessage, row_id)  # type: ignore[return-value]


def relayed(now: datetime) -> list[int]:
    with db.session_scope(write=False) as session:
        return relay_candidates(session, now, get_settings())


def test_a_sent_email_says_when_it_was_claimed_sent_and_that_smtp_accepted_it(
        setup: Env, smtp: SmtpSink) -> None:
    row_id = add_email()

    outcome = deliver(row_id, NOW, get_settings())

    assert outcome.status == "sent"
    row = outbox_row(row_id)
    assert (row.status, row.attempts, row.delivery_status) == ("sent", 1, "accepted")
    assert row.claimed_at == row.sent_at == NOW and row.delivered_at is None
    assert smtp.wait_for("ann@example.org")


def test_a_claim_is_a_lease_and_sent_at_stays_empty_until_the_provider_accepts(
        setup: Env, smtp: SmtpSink) -> None:
    settings = get_settings()
    lease = timedelta(seconds=settings.outbox_lease_seconds)
    row_id = add_email(created_at=NOW - timedelta(hours=1))
    with db.session_scope() as session:  # a worker takes it, then dies
        assert claim(session, row_id, NOW, settings) is not None
    taken = outbox_row(row_id)
    assert (taken.status, taken.claimed_at, taken.sent_at) == ("sending", NOW, None)

    with db.session_scope() as session:
        assert claim(session, row_id, NOW + timedelta(seconds=1), settings) is None
    assert row_id not in relayed(NOW + lease - timedelta(seconds=1))
    later = NOW + lease + timedelta(seconds=1)
    assert row_id in relayed(later)
    assert deliver(row_id, later, settings).status == "sent"

    row = outbox_row(row_id)
    assert (row.status, row.attempts, row.claimed_at, row.sent_at) == ("sent", 2, later, later)
    assert [m.message["Subject"] for m in smtp.wait_for("ann@example.org")] == [
        "[Tortuga] news"]


def test_a_transient_failure_leaves_the_row_unsent_and_its_lease_times_the_retry(
        setup: Env, smtp: SmtpSink) -> None:
    smtp.refuse["ann@example.org"] = "451 4.3.0 try again later"
    row_id = add_email(created_at=NOW - timedelta(hours=1))

    assert deliver(row_id, NOW, get_settings()).status == "retry"

    row = outbox_row(row_id)
    assert (row.status, row.claimed_at, row.sent_at, row.delivery_status) == (
        "pending", NOW, None, None)
    assert "451" in (row.last_error or "")
    grace = get_settings().relay_grace_seconds
    assert row_id not in relayed(NOW + timedelta(seconds=grace - 5)), "its backoff runs"
    assert row_id in relayed(NOW + timedelta(seconds=grace + 1))


def test_an_inbound_claim_is_a_lease_and_processed_at_says_when_it_was_finished(
        setup: Env) -> None:
    settings = get_settings()
    lease = timedelta(seconds=settings.outbox_lease_seconds)
    form = {"MessageSid": "SMclaim", "From": "+15550009999", "To": "+15005550006",
            "Body": "VOTE 1"}
    row_id = db.run_transaction(lambda s: inbound.store_sms(s, form, NOW)).id
    with db.session_scope() as session:  # a worker takes it, then dies
        assert inbound.claim_inbound(session, row_id, NOW, settings) is not None

    def row() -> InboundMessage:
        with db.session_scope(write=False) as session:
            return session.get(InboundMessage, row_id)  # type: ignore[return-value]

    assert (row().status, row().claimed_at, row().processed_at) == ("processing", NOW, None)

    def candidates(now: datetime) -> list[int]:
        with db.session_scope(write=False) as session:
            return inbound.relay_candidates(session, now, settings)

    assert row_id not in candidates(NOW + lease - timedelta(seconds=1))
    later = NOW + lease + timedelta(seconds=1)
    assert row_id in candidates(later)
    assert str(inbound.process(row_id, later)).startswith("ignored: unknown number")
    done = row()
    assert (done.status, done.attempts, done.claimed_at, done.processed_at) == (
        "ignored", 2, later, later)


def test_delivery_reports_only_move_forward_and_say_when_it_was_delivered(
        setup: Env) -> None:
    with db.session_scope() as session:
        player = Player(display_name="Bo", phone="+15550001111", email="bo@example.org",
                        preferred_channel="sms")
        session.add(player)
        session.flush()
        for sid in ("SMok", "SMstop"):
            session.add(OutboundMessage(
                player_id=player.id, channel="sms", kind="prompt", to_address=player.phone,
                text="t", sms_body="t", status="sent", provider_id=sid, sent_at=NOW,
                delivery_status="accepted", dedupe_key=f"k:{sid}", created_at=NOW))
        player_id = player.id

    def report(sid: str, status: str, minutes: int, error: str = "") -> None:
        db.run_transaction(lambda s: record_delivery_report(
            s, sid, status, error, NOW + timedelta(minutes=minutes)))

    report("SMok", "sent", 1)
    report("SMok", "delivered", 2)
    report("SMok", "sent", 3)  # a late report of an earlier stage
    report("SMnobody", "delivered", 4)  # not ours: nothing happens
    report("SMstop", "undelivered", 5, "21610")

    with db.session_scope(write=False) as session:
        rows = {r.provider_id: r for r in session.execute(
            sa.select(OutboundMessage)).scalars()}
        opted_out = session.get(Player, player_id).sms_opted_out  # type: ignore[union-attr]
    ok, stop = rows["SMok"], rows["SMstop"]
    assert (ok.status, ok.delivery_status, ok.delivered_at) == (
        "sent", "delivered", NOW + timedelta(minutes=2))
    assert (stop.status, stop.delivery_status, stop.delivered_at) == (
        "failed", "undelivered", None)
    assert "21610" in (stop.last_error or "") and opted_out


def test_a_message_never_overtakes_an_earlier_unsent_one_to_the_same_player(
        setup: Env, smtp: SmtpSink) -> None:
    first = add_email(NOW, message_id="<paused@tortuga.test>")
    second = add_email(NOW + timedelta(seconds=1), message_id="<resumed@tortuga.test>")

    waiting = deliver(second, NOW, get_settings())  # the backlog reaches the newer row first

    assert waiting.status == "waiting" and waiting.retry_in is not None
    assert outbox_row(second).status == "pending" and outbox_row(second).attempts == 0
    assert deliver(first, NOW, get_settings()).status == "sent"
    assert deliver(second, NOW, get_settings()).status == "sent"
    received = smtp.wait_for("ann@example.org", count=2)
    assert [m.message["Message-ID"] for m in received] == ["<paused@tortuga.test>",
                                                            "<resumed@tortuga.test>"]
    add_email(NOW + timedelta(seconds=2))  # Ann's backlog holds nobody else up
    with db.session_scope() as session:
        row = OutboundMessage(channel="email", kind="notice", to_address="bob@example.org",
                              subject="yours", text="News.", created_at=NOW,
                              dedupe_key="test:bob")
        session.add(row)
        session.flush()
        other = int(row.id)  # type: ignore[arg-type]
    assert deliver(other, NOW, get_settings()).status == "sent"
