"""The rows one transaction wrote are delivered together (``deliver_many``): one claim and
one record for all of them, in the order they were written, each still claimed before it
is sent. On SQLite and PostgreSQL, with real SMTP."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import select

from pbm import db
from pbm.config import get_settings
from pbm.messages import board_content_id
from pbm.models import BoardImage, Game, OutboundMessage
from pbm.ratelimit import OutboundLimiter
from tests.workers.conftest import EITHER_DATABASE, Env, apply, either_database
from tests.workers.servers import SmtpSink
from workers.delivery import claim, deliver_many

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
PNG = b"\x89PNG\r\n\x1a\n" + b"board" * 20


database_url = pytest.fixture(params=EITHER_DATABASE, name="database_url")(either_database)


@pytest.fixture
def setup(env: Env, monkeypatch: pytest.MonkeyPatch) -> Env:
    apply(env, monkeypatch)
    return env


def add_emails(*addresses: str, picture: bool = False) -> list[int]:
    """One outbox row per address, written in one transaction (the first with a picture)."""
    with db.session_scope() as session:
        game = Game(name="batch", seed=1)
        session.add(game)
        session.flush()
        if picture:
            session.add(BoardImage(game_id=game.id, version=3, png=PNG))  # type: ignore[arg-type]
        added = [OutboundMessage(game_id=game.id, channel="email", kind="prompt",
                                 to_address=address, subject=f"[Tortuga] {n}",
                                 text=f"Message {n}.",
                                 html=f'<p>Message {n}.</p><img src="cid:'
                                 f'{board_content_id(f"board-{game.id}-3")}">'
                                 if picture and n == 0 else None,
                                 board_image_key=f"board-{game.id}-3" if picture and n == 0
                                 else None,
                                 created_at=NOW, dedupe_key=f"batch:{n}:{address}")
                 for n, address in enumerate(addresses)]
        session.add_all(added)
        session.flush()
        return [int(row.id) for row in added]  # type: ignore[arg-type]


def outbox_row(row_id: int) -> OutboundMessage:
    with db.session_scope(write=False) as session:
        return session.get(OutboundMessage, row_id)  # type: ignore[return-value]


class Counted:
    """Statements and commits of the process's engines while counting."""

    def __init__(self) -> None:
        self.statements = self.commits = 0

    def __enter__(self) -> Counted:
        event.listen(Engine, "before_cursor_execute", self._statement)
        event.listen(Engine, "commit", self._commit)
        return self

    def __exit__(self, *_exc: Any) -> None:
        event.remove(Engine, "before_cursor_execute", self._statement)
        event.remove(Engine, "commit", self._commit)

    def _statement(self, _conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        if not sql.lstrip().upper().startswith(("BEGIN", "PRAGMA")):
            self.statements += 1

    def _commit(self, _conn: Any) -> None:
        self.commits += 1


def test_the_rows_of_one_transaction_go_out_in_order_with_one_claim_and_one_record(
        setup: Env, smtp: SmtpSink) -> None:
    ids = add_emails("ann@example.org", "bob@example.org", "ann@example.org")

    with Counted() as counted:
        outcomes = deliver_many(ids, NOW, get_settings())

    assert [outcomes[i].status for i in ids] == ["sent", "sent", "sent"]
    # on PostgreSQL the claim also answers "an earlier unsent row?" and "extra parts?"
    asked_apart = 2 if setup.values["DATABASE_URL"].startswith("sqlite") else 0
    # pbm.metrics reads the reply -> first message latency in the recording transaction
    latency_read = 1
    assert (counted.statements, counted.commits) == (2 + asked_apart + latency_read, 2)
    assert [m.message["Subject"] for m in smtp.wait_for("ann@example.org", count=2)] == [
        "[Tortuga] 0", "[Tortuga] 2"]
    for row in map(outbox_row, ids):
        assert (row.status, row.attempts, row.sent_at, row.delivery_status) == (
            "sent", 1, NOW, "accepted")


def test_the_board_picture_comes_with_the_claim(setup: Env, smtp: SmtpSink) -> None:
    ids = add_emails("ann@example.org", "bob@example.org", picture=True)

    with Counted() as counted:
        assert {o.status for o in deliver_many(ids, NOW, get_settings()).values()} == {"sent"}

    # on PostgreSQL the claim also answers "an earlier unsent row?" and "extra parts?"
    asked_apart = 2 if setup.values["DATABASE_URL"].startswith("sqlite") else 0
    latency_read = 1  # pbm.metrics: the reply -> first message latency
    assert counted.statements == 2 + asked_apart + latency_read, \
        "no statement of its own for the picture"
    mail = smtp.wait_for("ann@example.org")[0].message
    images = [p for p in mail.walk() if p.get_content_type() == "image/png"]
    assert [p.get_payload(decode=True) for p in images] == [PNG]


def test_a_row_claimed_elsewhere_is_left_to_its_claimer_and_the_others_go(
        setup: Env, smtp: SmtpSink) -> None:
    ids = add_emails("ann@example.org", "bob@example.org")
    with db.session_scope() as session:  # another worker is sending the first one
        assert claim(session, ids[0], NOW, get_settings()) is not None

    outcomes = deliver_many(ids, NOW, get_settings())

    assert (outcomes[ids[0]].status, outcomes[ids[1]].status) == ("skipped", "sent")
    assert (outbox_row(ids[0]).status, outbox_row(ids[0]).attempts) == ("sending", 1)
    assert smtp.wait_for("bob@example.org")
    assert not [m for m in smtp.messages if "ann@example.org" in m.rcpt_tos]


def test_a_failure_is_recorded_for_its_row_alone(setup: Env, smtp: SmtpSink) -> None:
    smtp.refuse["bob@example.org"] = "451 4.3.0 try again later"
    smtp.refuse["cy@example.org"] = "550 5.1.1 no such user"
    ids = add_emails("ann@example.org", "bob@example.org", "cy@example.org")

    outcomes = deliver_many(ids, NOW, get_settings())

    assert [outcomes[i].status for i in ids] == ["sent", "retry", "failed"]
    assert outcomes[ids[1]].retry_in is not None
    ann, bob, cy = map(outbox_row, ids)
    assert (ann.status, bob.status, cy.status) == ("sent", "pending", "failed")
    assert "451" in (bob.last_error or "") and "550" in (cy.last_error or "")
    with db.session_scope(write=False) as session:
        alert = session.exec(select(OutboundMessage).where(
            OutboundMessage.dedupe_key == f"admin:delivery:{ids[2]}")).one()
    assert alert.status == "pending"


def test_with_no_sending_slot_soon_enough_nothing_is_claimed(setup: Env,
                                                             smtp: SmtpSink) -> None:
    ids = add_emails("ann@example.org", "bob@example.org")
    settings = get_settings().model_copy(update={"outbound_email_per_second": 0.01})
    # one message now, the next in 100 s (a stopped clock: no refill while the test runs)
    limiter = OutboundLimiter(settings, clock=lambda: 0.0)

    outcomes = deliver_many(ids, NOW, settings, limiter)

    assert {o.status for o in outcomes.values()} == {"throttled"}
    assert {o.retry_in for o in outcomes.values()} == {100.0}
    assert [(r.status, r.attempts) for r in map(outbox_row, ids)] == [("pending", 0)] * 2
    assert smtp.messages == []


def test_a_batch_that_outlasts_half_its_lease_gives_the_rest_back(setup: Env,
                                                                   smtp: SmtpSink) -> None:
    ids = add_emails("ann@example.org", "bob@example.org")
    settings = get_settings().model_copy(update={"outbox_lease_seconds": 0})

    outcomes = deliver_many(ids, NOW, settings)

    assert [(outcomes[i].status, outcomes[i].retry_in) for i in ids] == [("retry", 0.0)] * 2
    assert [r.status for r in map(outbox_row, ids)] == ["pending", "pending"]
    assert smtp.messages == []


def test_a_server_refusing_every_address_is_one_alert_and_marks_no_address(
        setup: Env, smtp: SmtpSink) -> None:
    from pbm.models import Player

    addresses = [f"p{n}@example.org" for n in range(8)]
    for address in addresses:  # a smarthost that refuses to relay anything
        smtp.refuse[address] = "550 5.7.1 relaying denied"
    ids = add_emails(*addresses)
    with db.session_scope() as session:
        players = [Player(display_name=f"P{n}", email=a) for n, a in enumerate(addresses)]
        session.add_all(players)
        session.flush()
        for row_id, player in zip(ids, players, strict=True):
            row = session.get(OutboundMessage, row_id)
            assert row is not None
            row.player_id = player.id
            session.add(row)

    outcomes = deliver_many(ids, NOW, get_settings())

    assert {outcomes[i].status for i in ids} == {"failed"}
    with db.session_scope(write=False) as session:
        alerts = session.exec(select(OutboundMessage).where(
            OutboundMessage.kind == "admin_alert")).all()
        failing = session.exec(select(Player).where(Player.email_failing)).all()
    server = [a for a in alerts if "not the addresses" in a.text]
    assert len(server) == 1, [a.subject for a in alerts]
    assert len(alerts) == 3, "the two refusals before it was plain, then one for all"
    assert failing == [], "no player's address is marked as failing"
