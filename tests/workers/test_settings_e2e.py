"""Players' settings by reply, end to end: a reply posted to the real web app (signed Twilio
webhook, or the raw-email webhook with its secret), applied by a real worker, answered by
SMTP or the Twilio emulator; AWAY holding deadlines against a short timing policy with the
real beat sweeping them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
import sqlalchemy as sa

from pbm import db, games
from pbm.deadlines import TimingPolicy
from pbm.models import Deadline, DeadlineStatus
from tests.services import drop_database, migrated_database
from tests.workers import helpers as h
from tests.workers.conftest import WORKER_REDIS_DB, redis_db
from tests.workers.servers import post_signed, wait_until
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
        deployment.web()
        yield deployment
    finally:
        deployment.stop()
        drop_database(postgres_url, database)


def email_in(stack: Stack, game_id: int, seat: int, body: str) -> None:
    """The seat's player replies by email, through the raw-email webhook."""
    seat_row, player = h.seat_row(game_id, seat)
    raw = h.reply_email(player.email, seat_row.reply_token, body, DOMAIN)
    response = httpx.post(stack.web_url + "/webhooks/email", content=raw, headers={
        "Authorization": f"Bearer {stack.values['INBOUND_EMAIL_SECRET']}"}, timeout=30)
    assert response.status_code == 200, response.text


def sms_in(stack: Stack, phone: str, body: str) -> None:
    """The player texts us, through the signed Twilio webhook."""
    path = "/webhooks/twilio/sms"
    form = {"MessageSid": f"SM{time.time_ns():032x}"[:34], "AccountSid": "AC1", "From": phone,
            "To": stack.twilio.from_number, "Body": body, "NumSegments": "1"}
    assert post_signed(stack.web_url + path, stack.web_url + path, form,
                       stack.twilio.auth_token) == 200


def mail_bodies(stack: Stack, address: str) -> list[str]:
    out = []
    for mail in stack.smtp.to(address):
        part = mail.message.get_body(preferencelist=("plain",))
        out.append(part.get_content() if part is not None else "")
    return out


def new_mail(stack: Stack, address: str, seen: int, needle: str) -> str:
    return wait_until(lambda: next((b for b in mail_bodies(stack, address)[seen:]
                                    if needle in b), None), 60, f"mail with {needle!r}")


def new_sms(stack: Stack, phone: str, seen: int, needle: str) -> str:
    return wait_until(lambda: next((m.body for m in stack.twilio.to(phone)[seen:]
                                    if needle in m.body), None), 60, f"SMS with {needle!r}")


def open_deadline(game_id: int, seat: int) -> Deadline:
    with db.session_scope(write=False) as session:
        return session.execute(sa.select(Deadline).where(
            Deadline.game_id == game_id, Deadline.seat == seat,
            Deadline.status == DeadlineStatus.OPEN)).scalar_one()


def play_first_legal(stack: Stack, game_id: int) -> int:
    """The awaited seat answers its first legal command by email; the seat."""
    decision = h.pending(game_id)[0]
    email_in(stack, game_id, decision.seat, str(decision.legal[0]))
    wait_until(lambda: h.pending(game_id)[0].seat != decision.seat, 60, "the answer applied")
    return decision.seat


def test_zone_by_email_is_stored_and_the_next_prompt_shows_its_deadline_in_paris_time(
        stack: Stack) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs, seed=h.seed_opening_with([s.name for s in specs], seat=0))
    address = specs[1].email
    stack.smtp.wait_for(address, 1)
    seen = len(stack.smtp.to(address))

    email_in(stack, game_id, 1, "ZONE paris")

    answer = new_mail(stack, address, seen, "YOUR SETTINGS")
    assert "ZONE Europe/Paris: deadlines now shown in your time" in answer
    assert h.seat_row(game_id, 1)[1].time_zone == "Europe/Paris"
    play_first_legal(stack, game_id)
    assert h.pending(game_id)[0].seat == 1
    due = open_deadline(game_id, 1).due_at
    [prompt] = wait_until(lambda: [r for r in h.outbox(game_id, seat=1, kind="prompt")], 60,
                          "the prompt of seat 2")
    paris = due.astimezone(ZoneInfo("Europe/Paris"))
    assert f"Reply by {paris:%a %d %b %Y, %H:%M} {paris.tzname()}" in prompt.text


def test_an_unknown_zone_is_refused_with_a_suggestion_and_changes_nothing(stack: Stack) -> None:
    specs = h.email_players(2)
    game_id = h.new_game(specs)
    stack.smtp.wait_for(specs[0].email, 1)
    seen = len(stack.smtp.to(specs[0].email))

    email_in(stack, game_id, 0, "ZONE Pariss")

    answer = new_mail(stack, specs[0].email, seen, "NOT DONE")
    assert "Did you mean ZONE Europe/Paris?" in answer
    assert h.seat_row(game_id, 0)[1].time_zone == "UTC"


def test_every_setting_by_sms_is_stored_and_settings_shows_them_all(stack: Stack) -> None:
    phone = "+15557771001"
    specs = h.email_players(3)
    specs[1] = games.PlayerSpec("Sam", email="sam.settings@example.org", phone=phone,
                                channel="sms")
    game_id = h.new_game(specs, seed=h.seed_opening_with([s.name for s in specs], seat=0))
    stack.twilio.wait_for(phone, 1)
    seen = len(stack.twilio.to(phone))

    sms_in(stack, phone, "zone tokyo")
    assert "ZONE Asia/Tokyo" in new_sms(stack, phone, seen, "ZONE")
    for line, stored in [("QUIET 23-07", ("quiet_start", 23)), ("DIGEST ON",
                         ("tell_everything", True)), ("TALK ON", ("sms_live_talk", True)),
                         ("CALENDAR ON", ("calendar", True))]:
        seen = len(stack.twilio.to(phone))
        sms_in(stack, phone, line)
        new_sms(stack, phone, seen, line.split()[0])
        assert getattr(h.seat_row(game_id, 1)[1], stored[0]) == stored[1]
    seen = len(stack.twilio.to(phone))
    sms_in(stack, phone, "SETTINGS")

    answer = new_sms(stack, phone, seen, "SETTINGS:")
    print("\nSETTINGS answer by SMS:\n" + answer)
    for part in ("ZONE Asia/Tokyo", "QUIET 23-07", "AWAY no", "VIA SMS", "DIGEST ON",
                 "TALK ON", "CALENDAR ON"):
        assert part in answer
    play_first_legal(stack, game_id)
    if h.pending(game_id)[0].seat == 1:  # Sam's next prompt: its deadline in Tokyo time
        due = open_deadline(game_id, 1).due_at
        when = due.astimezone(ZoneInfo("Asia/Tokyo"))
        prompt = new_sms(stack, phone, seen, f"{when:%a %d %b %H:%M} JST")
        assert "by" in prompt.lower(), prompt


def test_via_both_sends_the_next_message_by_email_and_by_text(stack: Stack) -> None:
    phone = "+15557771002"
    specs = [games.PlayerSpec("Vic", email="vic.settings@example.org", phone=phone),
             *h.email_players(2)]
    game_id = h.new_game(specs, seed=h.seed_opening_with([s.name for s in specs], seat=0))
    stack.smtp.wait_for("vic.settings@example.org", 1)
    assert stack.twilio.to(phone) == []

    email_in(stack, game_id, 0, "VIA BOTH")

    assert "VIA BOTH" in new_sms(stack, phone, 0, "VIA BOTH")
    new_mail(stack, "vic.settings@example.org", 1, "VIA BOTH")
    assert h.seat_row(game_id, 0)[1].preferred_channel == "both"
    seen = len(stack.twilio.to(phone))
    email_in(stack, game_id, 0, "VIA EMAIL")
    new_mail(stack, "vic.settings@example.org", 2, "VIA EMAIL")
    wait_until(lambda: h.settled(stack.values["REDIS_URL"], game_id), 30, "all sent")
    assert len(stack.twilio.to(phone)) == seen  # the answer to VIA EMAIL came by email only


def sweeps_after(moment: float, count: int) -> None:
    """Wait until ``count`` deadline sweeps have finished one after the other after
    ``moment`` (UNIX seconds; beat sends one a second): the later ones began after it."""
    from pbm import health
    from pbm.config import get_settings

    for n in range(count):
        def newer(after: float = moment) -> float | None:
            done = health.last_heartbeat(health.SWEEP, get_settings())
            return done if done is not None and done > after else None

        moment = wait_until(newer, 30, f"sweep {n + 1} after the deadline")


def short_policy(*, decision_seconds: float, away_seconds: float) -> TimingPolicy:
    return TimingPolicy(reminder_fractions=(), final_warning_hours=0, grace_hours=0,
                        quiet_start=0, quiet_end=0,
                        away_hours=away_seconds / 3600).with_hours(
        action=decision_seconds / 3600, vote=decision_seconds / 3600,
        other=decision_seconds / 3600)


@pytest.mark.slow
def test_away_past_the_allowance_holds_the_deadline_only_that_long_then_a_default_plays(
        stack: Stack) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs, seed=h.seed_opening_with([s.name for s in specs], seat=0),
                         policy=short_policy(decision_seconds=25, away_seconds=15))
    stack.smtp.wait_for(specs[1].email, 1)
    before = open_deadline(game_id, 0).due_at

    email_in(stack, game_id, 0, "AWAY 3 days")

    notice = new_mail(stack, specs[1].email, 1, "is away until")
    print("\nAWAY notice to the table:\n" + notice)
    assert "the most this game allows" in notice
    held = open_deadline(game_id, 0).due_at
    assert timedelta(seconds=14) <= held - before <= timedelta(seconds=16)
    wait_until(lambda: any(origin == "timeout" for _, _, origin in h.commands(game_id)), 90,
               "the default to be played after the allowance")
    [(seat, _, _)] = [c for c in h.commands(game_id) if c[2] == "timeout"][:1]
    assert seat == 0
    assert datetime.now(UTC) >= held


@pytest.mark.slow
def test_away_within_the_allowance_holds_the_deadline_and_back_gives_the_time_back(
        stack: Stack) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs, seed=h.seed_opening_with([s.name for s in specs], seat=0),
                         policy=short_policy(decision_seconds=20, away_seconds=3 * 24 * 3600))
    stack.smtp.wait_for(specs[2].email, 1)
    before = open_deadline(game_id, 0).due_at

    email_in(stack, game_id, 0, "AWAY 2 hours")
    new_mail(stack, specs[2].email, 1, "is away until")
    held = open_deadline(game_id, 0).due_at
    assert timedelta(hours=2) - timedelta(seconds=2) <= held - before <= timedelta(hours=2)
    wait_until(lambda: datetime.now(UTC) > before, 60, "the original deadline to pass")
    sweeps_after(before.timestamp(), 2)
    assert h.commands(game_id) == []  # the original deadline has passed: nothing played

    email_in(stack, game_id, 0, "BACK")
    new_mail(stack, specs[2].email, 2, "is back")
    back = open_deadline(game_id, 0) if h.commands(game_id) == [] else None
    if back is not None:
        assert back.due_at - before < timedelta(minutes=1)  # the unused time was given back
    wait_until(lambda: any(origin == "timeout" for _, _, origin in h.commands(game_id)), 90,
               "the default to be played once back")


# ---------------------------------------------------------------- calendar, one-line settings


def calendar_events(mail: Any) -> list[tuple[str, Any, str]]:
    """(method, VEVENT, .ics text) of every text/calendar part of a received email."""
    import icalendar

    found = []
    for part in mail.message.walk():
        if part.get_content_type() == "text/calendar":
            text = part.get_content()
            calendar = icalendar.Calendar.from_ical(text)
            assert part.get_param("method") == str(calendar["METHOD"])
            [event] = calendar.walk("VEVENT")
            found.append((str(calendar["METHOD"]), event, text))
    return found


def mail_with_calendar(stack: Stack, address: str, seen: int, method: str) -> Any:
    return wait_until(lambda: next((m for m in stack.smtp.to(address)[seen:]
                                    if any(x == method for x, _, _ in calendar_events(m))),
                                   None), 60, f"mail with a calendar {method}")


def test_calendar_on_puts_the_deadline_in_the_calendar_and_the_answer_cancels_it(
        stack: Stack) -> None:
    from pbm.deadlines import calendar

    specs = h.email_players(3)
    game_id = h.new_game(specs, seed=1)  # seat 1 places first, then seat 2
    address = specs[0].email
    stack.smtp.wait_for(address, 1)
    decision = h.state_of(game_id).decision_id(0)
    assert decision is not None and h.pending(game_id)[0].seat == 0

    email_in(stack, game_id, 0, "ZONE Paris; CALENDAR ON")

    answer = mail_with_calendar(stack, address, 1, "REQUEST")
    [(_, event, ics)] = calendar_events(answer)
    assert "ZONE Europe/Paris" in answer.text() and "CALENDAR ON" in answer.text()
    assert answer.message.get_content_type() == "multipart/mixed"
    due = open_deadline(game_id, 0).due_at.replace(microsecond=0)  # iCalendar: seconds
    assert str(event["UID"]) == calendar.event_uid(game_id, 0, decision)
    assert event.decoded("DTSTART") == due and event["DTSTART"].params["TZID"] == "Europe/Paris"
    print("\nThe calendar event of a prompt (text/calendar; method=REQUEST):\n" + ics)
    seen = len(stack.smtp.to(address))

    email_in(stack, game_id, 0, "PLACE BRITISH")

    done = mail_with_calendar(stack, address, seen, "CANCEL")
    [(_, cancel, cancel_ics)] = [c for c in calendar_events(done) if c[0] == "CANCEL"]
    assert "Done" in done.text()  # the answer the player gets anyway carries the cancel
    assert str(cancel["UID"]) == str(event["UID"]) and cancel["SEQUENCE"] > event["SEQUENCE"]
    assert str(cancel["STATUS"]) == "CANCELLED"
    assert len(stack.smtp.to(address)) == seen + 1  # no email of its own for the calendar
    print("\nIts cancel, in the answer to the move (text/calendar; method=CANCEL):\n"
          + cancel_ics)


def test_settings_on_one_line_with_a_move_apply_before_the_prompt_the_move_triggers(
        stack: Stack) -> None:
    specs = h.email_players(3)
    game_id = h.new_game(specs, seed=1)  # seat 1 places, then seat 2 places and gets the turn
    stack.smtp.wait_for(specs[1].email, 1)
    email_in(stack, game_id, 0, "PLACE BRITISH")
    wait_until(lambda: h.pending(game_id)[0].seat == 1, 60, "the first placement")
    seen = len(stack.smtp.to(specs[1].email))

    email_in(stack, game_id, 1, "ZONE Tokyo, QUIET 23-07, CALENDAR ON\nPLACE FRENCH")

    [prompt] = wait_until(lambda: h.outbox(game_id, seat=1, kind="prompt")[1:] or None, 60,
                          "the prompt of the new turn")
    _, player = h.seat_row(game_id, 1)
    assert (player.time_zone, player.quiet_start, player.quiet_end, player.calendar) == (
        "Asia/Tokyo", 23, 7, True)
    due = open_deadline(game_id, 1).due_at.astimezone(ZoneInfo("Asia/Tokyo")).replace(
        microsecond=0)
    assert f"Reply by {due:%a %d %b %Y, %H:%M} JST" in prompt.text
    mail = mail_with_calendar(stack, specs[1].email, seen, "REQUEST")
    [(_, event, _)] = [c for c in calendar_events(mail) if c[0] == "REQUEST"]
    assert event["DTSTART"].params["TZID"] == "Asia/Tokyo"
    assert event.decoded("DTSTART") == due
