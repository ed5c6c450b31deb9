"""The admin page in a real browser (Debian's Chromium driven by Playwright) against the real
app under uvicorn and a real PostgreSQL database, with a real Celery worker delivering the
messages through the file transports."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import select

from pbm.db import get_engine
from tests.services import find_program, need_program
from tests.web.conftest import ADMIN_NAME, ADMIN_PASSWORD, REPO, LiveServer, start_server

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"  # Debian's; PBM_TEST_CHROMIUM overrides (nothing: hidden)
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = REPO / "test-artifacts"
PLAYERS = [
    ("Anne Bonny", "anne@example.org", ""),
    ("Calico Jack", "jack@example.org", "+15550001002"),
    ("Mary Read", "", "+447700900003"),
    ("Blackbeard", "teach@example.org", ""),
    ("Henry Morgan", "morgan@example.org", ""),
]


INBOUND_SECRET = "inbound-test-secret"
TWILIO_TOKEN = "twilio-test-token"
SERVER_ENV = {"INBOUND_EMAIL_SECRET": INBOUND_SECRET, "TWILIO_AUTH_TOKEN": TWILIO_TOKEN,
              "TWILIO_ACCOUNT_SID": "AC" + "0" * 32, "TWILIO_FROM_NUMBER": "+15550000000"}


@pytest.fixture
def live_server(web_db_url: str, admin_users: str, tmp_path: Path) -> Iterator[LiveServer]:
    """The real app, with its inbound webhooks switched on (players reply through them)."""
    server = start_server(web_db_url, admin_users, tmp_path, SERVER_ENV)
    yield server
    server.stop()


@pytest.fixture
def worker(live_server: LiveServer) -> Iterator[subprocess.Popen[bytes]]:
    """A real Celery worker sharing the server's database and filesystem broker."""
    env = {**os.environ, **SERVER_ENV, "DATABASE_URL": live_server.database_url,
           "DATA_DIR": str(live_server.data_dir), "REDIS_URL": "", "BROKER_URL": "",
           "EMAIL_TRANSPORT": "file", "SMS_TRANSPORT": "file"}
    log = (live_server.data_dir.parent / "worker.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "workers.app", "worker", "--pool", "threads",
         "--concurrency", "2", "--without-mingle", "--without-gossip", "--loglevel", "WARNING"],
        cwd=live_server.data_dir.parent, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    yield process
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
    log.close()


@pytest.fixture
def browser_page(tmp_path: Path) -> Iterator[object]:
    """A fresh Chromium profile and one page (no browser is ever downloaded)."""
    chromium = need_program(find_program("PBM_TEST_CHROMIUM", (), (CHROMIUM,)), "chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=chromium, headless=True,
            args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900},
        )
        context.set_default_timeout(15_000)
        page = context.new_page()
        yield page
        context.close()


def game_state(database_url: str, name: str) -> tuple[int, Any]:
    """The game's id and engine state, read straight from the database."""
    import engine
    from pbm.db import session_scope
    from pbm.models import Game

    with session_scope(get_engine(database_url), write=False) as session:
        game = session.exec(select(Game).where(Game.name == name)).one()
        assert game.id is not None and game.state_json
        return game.id, engine.from_json(game.state_json)


def reply_as(server: LiveServer, game_id: int, seat: int, text: str) -> None:
    """A player answers, the way a real one does: an email to the seat's reply address
    through the inbound email webhook, or an SMS through the signed Twilio webhook."""
    from twilio.request_validator import RequestValidator

    from pbm.db import session_scope
    from pbm.models import Player, Seat

    with session_scope(get_engine(server.database_url), write=False) as session:
        row, player = session.exec(
            select(Seat, Player).join(Player, Player.id == Seat.player_id)  # type: ignore[arg-type]
            .where(Seat.game_id == game_id, Seat.seat_index == seat)
        ).one()
    if player.email:
        raw = (f"From: {player.display_name} <{player.email}>\r\n"
               f"To: play+{row.reply_token}@tortuga.localhost\r\n"
               f"Subject: Re: your game\r\nMessage-ID: <{uuid.uuid4().hex}@example.org>\r\n"
               f"Date: {format_datetime(datetime.now(UTC))}\r\n"
               "Content-Type: text/plain; charset=utf-8\r\n\r\n"
               f"{text}\r\n\r\nSent from my phone\r\n")
        response = httpx.post(f"{server.url}/webhooks/email", content=raw.encode(),
                              headers={"X-Inbound-Secret": INBOUND_SECRET,
                                       "Content-Type": "message/rfc822"})
    else:  # a player answers the text they received: wait until it was sent
        from pbm.models import OutboundMessage

        def delivered() -> bool:
            with session_scope(get_engine(server.database_url), write=False) as session:
                return session.exec(select(OutboundMessage.id).where(
                    OutboundMessage.game_id == game_id, OutboundMessage.seat == seat,
                    OutboundMessage.channel == "sms",
                    OutboundMessage.sent_at == None)).first() is None  # noqa: E711

        wait_until(delivered)
        url = f"{server.url}/webhooks/twilio/sms"
        form = {"From": player.phone or "", "To": "+15550000000", "Body": text,
                "MessageSid": "SM" + uuid.uuid4().hex, "NumSegments": "1"}
        signature = RequestValidator(TWILIO_TOKEN).compute_signature(url, form)
        response = httpx.post(url, data=form, headers={"X-Twilio-Signature": signature})
    assert response.status_code == 200, response.text


def play_a_few_replies(server: LiveServer, name: str, replies: int) -> int:
    """Answer the awaited decisions with their first legal command, through the webhooks
    and the worker; returns how many replies were applied."""
    import engine

    applied = 0
    for _ in range(replies):
        game_id, state = game_state(server.database_url, name)
        decisions = engine.pending(state)
        if not decisions:
            break
        decision = decisions[0]
        reply_as(server, game_id, decision.seat, str(decision.legal[0]))
        wait_until(lambda v=state.version: game_state(server.database_url, name)[1].version > v)
        applied += 1
    return applied


def wait_until(check: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.3)
    raise AssertionError("condition not met in time")


@pytest.mark.slow
def test_an_admin_runs_a_game_from_the_browser(
    live_server: LiveServer, worker: subprocess.Popen[bytes], browser_page: object
) -> None:
    from playwright.sync_api import Page, expect

    page: Page = browser_page  # type: ignore[assignment]
    base = live_server.url

    # Anonymous: sent to the sign-in form, then back where we wanted to go.
    page.goto(f"{base}/admin/games")
    expect(page).to_have_url(f"{base}/admin/login?next=/admin/games")
    page.fill("#name", ADMIN_NAME)
    page.fill("#password", ADMIN_PASSWORD)
    page.click("button:has-text('Sign in')")
    expect(page.locator(".flash.ok")).to_contain_text(f"Signed in as {ADMIN_NAME}")

    # Create a 5-player game: the form, the review, the confirmation.
    page.click("nav >> text=New game")
    page.fill("#name", "harbour-of-tortuga")
    page.fill("#time_zone", "Europe/Paris")
    for i, (name, email, phone) in enumerate(PLAYERS):
        page.fill(f"input[name=p{i}_name]", name)
        page.fill(f"input[name=p{i}_email]", email)
        page.fill(f"input[name=p{i}_phone]", phone)
    page.fill("input[name=p2_tz]", "Europe/London")
    page.fill("#action_hours", "36")
    page.click("button:has-text('Review')")
    expect(page.locator("h1")).to_contain_text("Create “harbour-of-tortuga”?")
    expect(page.locator("table")).to_contain_text("Mary Read")
    page.click("button:has-text('Create the game')")
    expect(page.locator(".flash.ok")).to_contain_text("created")
    expect(page.locator("#game-status")).to_have_text("created")

    # Start it (nobody was invited: start without waiting for JOINs).
    page.click(".actions >> text=Start")
    expect(page.locator("h1")).to_contain_text("Start: harbour-of-tortuga?")
    expect(page.locator("#f-force")).to_be_checked()
    page.click("button:has-text('Start the game')")
    expect(page.locator(".flash.ok")).to_contain_text(
        "Game harbour-of-tortuga started with Anne Bonny, Calico Jack, Mary Read, Blackbeard, "
        "Henry Morgan.")
    expect(page.locator("#game-status")).to_have_text("running")
    expect(page.locator("section[aria-label=Board] svg")).to_be_visible()
    expect(page.locator("section[aria-label=Awaiting] table")).to_be_visible()

    # Pause with a reason, then resume.
    page.click(".actions >> text=Pause")
    page.fill("#f-reason", "Anne is at sea until Monday")
    page.click("button:has-text('Pause the game')")
    expect(page.locator(".flash.ok")).to_contain_text("Game paused: Anne is at sea until Monday")
    expect(page.locator("#game-status")).to_have_text("paused")
    expect(page.locator("#pause-reason")).to_contain_text("Anne is at sea until Monday")
    page.click(".actions >> text=Resume")
    page.click("button:has-text('Resume the game')")
    expect(page.locator(".flash.ok")).to_contain_text(
        "Game harbour-of-tortuga resumed after ")
    expect(page.locator("#game-status")).to_have_text("running")
    expect(page.locator("#public-log")).to_contain_text("paused: Anne is at sea until Monday")

    # Players answer their prompts by email and SMS; the worker applies the replies.
    game_url = page.url
    assert play_a_few_replies(live_server, "harbour-of-tortuga", 6) == 6
    page.goto(game_url)
    expect(page.locator(".seat-history .dir.in").first).to_be_visible()
    expect(page.locator("#public-log li")).not_to_have_count(3)

    # The players' prompts are in the message history, delivered by the worker.

    def delivered() -> bool:
        page.goto(game_url)
        return page.locator(".seat-history .badge.sent").count() >= 15

    wait_until(delivered, timeout=60)
    histories = page.locator(".seat-history")
    expect(histories).to_have_count(5)
    for i in range(5):
        expect(histories.nth(i)).to_contain_text("paused")
        expect(histories.nth(i)).to_contain_text("resumed")
    prompts = page.locator(".seat-history details.msg", has_text="prompt")
    assert prompts.count() >= 1
    prompts.first.locator("summary").click()
    expect(prompts.first.locator("pre")).to_be_visible()

    # Secrets only behind the logged toggle.
    expect(page.locator("#secrets")).not_to_contain_text("Loyalty")
    page.click("button:has-text('Show spoilers')")
    expect(page.locator(".flash.warn")).to_contain_text("logged")
    expect(page.locator("#secrets")).to_contain_text("Loyalty")
    expect(page.locator("#secrets")).to_contain_text(f"Spoilers shown: {ADMIN_NAME}")
    page.click("button:has-text('Hide spoilers')")
    expect(page.locator("#secrets")).not_to_contain_text("Vote hand")

    # The picture for the README, and the same page on a phone.
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("details.msg summary").first.click()
    page.screenshot(path=str(ARTIFACTS / "admin-game-page.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(game_url)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than a phone screen"
    page.screenshot(path=str(ARTIFACTS / "admin-game-page-phone.png"), full_page=True)
    page.goto(f"{base}/admin/games")
    expect(page.locator("table")).to_contain_text("harbour-of-tortuga")
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    page.screenshot(path=str(ARTIFACTS / "admin-games-phone.png"), full_page=True)
