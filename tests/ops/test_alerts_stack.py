"""Operator alerts in a real deployment: an SMTP server that refuses every player's
message. The admin gets one alert, not one per message, however many checks run and sends
fail; the admin page's Health panel shows it in Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from pbm import db
from pbm.admin.auth import hash_password
from pbm.models import OutboundMessage
from tests.services import drop_database, migrated_database
from tests.workers import helpers as h
from tests.workers.conftest import WORKER_REDIS_DB, redis_db
from tests.workers.servers import SmtpSink, wait_until
from tests.workers.stack import Stack

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.browser, pytest.mark.slow]

ADMIN = "admin@ops.test"
ADMIN_PASSWORD = "a long and unguessable phrase"


class RefusingSmtp(SmtpSink):
    """Refuses every recipient but the admin, for now (a relay that lost its credit)."""

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: Any) -> str:
        if address != ADMIN:
            return "451 4.7.1 relaying temporarily refused"
        envelope.rcpt_tos.append(address)
        return "250 OK"


@pytest.fixture
def stack(postgres_url: str, redis_url: str) -> Iterator[Stack]:
    database = migrated_database(postgres_url, "pbm_channels")
    deployment = Stack(
        database, redis_db(redis_url, WORKER_REDIS_DB),
        ADMIN_USERS=f"ops:{hash_password(ADMIN_PASSWORD)}", SECRET_KEY="alerts-test-key",
        ALERT_CHECK_INTERVAL="1", ALERT_TRANSPORT_FAILING_SECONDS="4",
        ALERT_OUTBOX_AGE_SECONDS="3600", ALERT_SWEEP_LATE_SECONDS="3600",
        MAX_SEND_ATTEMPTS="1000")  # keep retrying: no per-message "could not deliver"
    deployment.smtp.stop()
    deployment.smtp = RefusingSmtp().start()
    deployment.values["SMTP_PORT"] = str(deployment.smtp.port)
    deployment.apply()
    try:
        yield deployment
    except BaseException:
        print(deployment.logs())
        raise
    finally:
        deployment.stop()
        drop_database(postgres_url, database)


def attempts() -> int:
    with db.session_scope(write=False) as session:
        return int(session.execute(sa.select(sa.func.sum(OutboundMessage.attempts)).where(
            OutboundMessage.kind != "admin_alert")).scalar() or 0)


@pytest.mark.slow
def test_a_refusing_smtp_server_alerts_the_admin_once_and_the_panel_shows_it(
        stack: Stack, browser_page: Any) -> None:
    stack.worker()
    beat = stack.beat()
    stack.web()
    h.new_game(h.email_players(4))  # four prompts and notices that cannot go out

    [alert] = stack.smtp.wait_for(ADMIN, 1, timeout=90)
    assert "transport fails every send" in alert.message["Subject"]
    text = alert.text()
    assert "The email transport has failed every send for" in text
    # Many more failed sends and alert checks later, still one alert.
    failed_at_alert = attempts()
    checks_at_alert = beat.log().count("pbm.check_alerts")
    wait_until(lambda: attempts() >= failed_at_alert + 8
               and beat.log().count("pbm.check_alerts") >= checks_at_alert + 8, 90,
               "eight more failed sends and eight more alert checks")
    assert len(stack.smtp.to(ADMIN)) == 1
    assert attempts() > 4 * 2  # every player's message failed, and again

    from playwright.sync_api import Page, expect

    page: Page = browser_page
    page.goto(f"{stack.web_url}/admin/health")
    page.fill("#name", "ops")
    page.fill("#password", ADMIN_PASSWORD)
    page.click("button:has-text('Sign in')")
    page.goto(f"{stack.web_url}/admin/health")
    panel = page.locator("#health-alerts")
    expect(panel).to_contain_text("Needs attention")
    expect(panel.locator("[data-kind='transport_failing:email']")).to_contain_text(
        "The email transport has failed every send")
    expect(page.locator("#health-numbers")).to_contain_text("failing")
    print("ALERT EMAIL\n" + alert.message.as_string()[-1500:])
