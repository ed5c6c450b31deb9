"""Deadlines in the player's calendar (CALENDAR ON), on SQLite and PostgreSQL: each prompt
carries an iCalendar REQUEST for its deadline (parsed back here with ``icalendar``), the
same UID with a higher SEQUENCE when the deadline moves (extend, resume), and a CANCEL,
folded into an email the seat gets anyway, once the decision is answered or played by
default. SMS gets nothing of it. The MIME side is in tests/workers/test_calendar_e2e.py."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest
from sqlalchemy.engine import Engine

import engine
from pbm import db, games, player_settings, sweep
from pbm.deadlines import calendar
from pbm.message_payloads import Reply
from pbm.models import Deadline, DeadlineStatus, OutboundMessage, OutboundPart
from tests.pbm.conftest import new_game, rows, state_of, submit


def calendar_on(eng: Engine, game_id: int, seat: int, now: datetime, zone: str = "") -> None:
    def work(session: Any) -> None:
        _, player = games.seat_of(session, game_id, seat)
        player_settings.apply(session, player, "CALENDAR ON", now)
        if zone:
            player_settings.apply(session, player, f"ZONE {zone}", now)
    db.run_transaction(work, eng)


def events_of(eng: Engine, row: OutboundMessage) -> list[tuple[str, icalendar.Event]]:
    """(METHOD, VEVENT) of every calendar part of an outbox row, parsed back."""
    out = []
    for part in rows(eng, OutboundPart, outbox_id=row.id):
        if part.content_type.startswith("text/calendar"):
            cal = icalendar.Calendar.from_ical(part.content)
            method = str(cal["METHOD"])
            assert part.content_type == f"text/calendar; method={method}"
            [event] = cal.walk("VEVENT")
            out.append((method, event))
    return out


def seat_rows(eng: Engine, game_id: int, seat: int) -> list[OutboundMessage]:
    return rows(eng, OutboundMessage, game_id=game_id, seat=seat)


def awaited_seat(eng: Engine, game_id: int) -> tuple[int, str]:
    state = state_of(eng, game_id)
    decision = engine.pending(state)[0]
    return decision.seat, state.decision_id(decision.seat) or ""


def open_deadline(eng: Engine, game_id: int, seat: int) -> Deadline:
    [deadline] = rows(eng, Deadline, game_id=game_id, seat=seat, status=DeadlineStatus.OPEN)
    return deadline


def started_with_calendars(eng: Engine, now: datetime, **kw: Any) -> int:
    game_id = new_game(eng, now, 3, start=False, **kw)
    for seat in range(3):
        calendar_on(eng, game_id, seat, now, zone="Paris")
    for seat in range(3):
        db.run_transaction(lambda s, seat=seat: games.respond(s, game_id, seat, join=True,
                                                               now=now), eng)
    return game_id


def test_a_prompt_carries_its_deadline_as_an_event_in_the_players_zone(
        eng: Engine, now: datetime) -> None:
    game_id = started_with_calendars(eng, now)
    seat, decision = awaited_seat(eng, game_id)
    [prompt] = [r for r in seat_rows(eng, game_id, seat) if r.kind == "prompt"]

    [(method, event)] = events_of(eng, prompt)

    due = open_deadline(eng, game_id, seat).due_at
    assert method == "REQUEST"
    assert str(event["UID"]) == calendar.event_uid(game_id, seat, decision)
    assert event["SEQUENCE"] == 0
    start = event.decoded("DTSTART")
    assert start == due and str(start.tzinfo) == "Europe/Paris"
    assert event["DTSTART"].params["TZID"] == "Europe/Paris"
    assert "TZID=Europe/Paris" in icalendar.Calendar.from_ical(
        rows(eng, OutboundPart, outbox_id=prompt.id)[0].content).to_ical().decode()
    assert str(event["STATUS"]) == "CONFIRMED"
    assert event["ATTENDEE"].params["RSVP"] == "FALSE"
    assert [a["TRIGGER"].dt for a in event.walk("VALARM")] == [-timedelta(hours=1)]


def test_a_player_in_utc_gets_the_deadline_in_utc(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3, start=False)
    for seat in range(3):
        calendar_on(eng, game_id, seat, now)
    db.run_transaction(lambda s: [games.respond(s, game_id, i, join=True, now=now)
                                  for i in range(3)], eng)
    seat, _ = awaited_seat(eng, game_id)

    [row] = [r for r in seat_rows(eng, game_id, seat) if events_of(eng, r)]
    [(_, event)] = events_of(eng, row)
    part = rows(eng, OutboundPart, outbox_id=row.id)[0].content.decode()
    due = open_deadline(eng, game_id, seat).due_at
    assert event.decoded("DTSTART") == due
    assert "TZID" not in part and "VTIMEZONE" not in part
    assert f"DTSTART:{due:%Y%m%dT%H%M%SZ}" in part


def test_extend_and_resume_update_the_same_event_with_a_higher_sequence(
        eng: Engine, now: datetime) -> None:
    game_id = started_with_calendars(eng, now)
    seat, decision = awaited_seat(eng, game_id)
    uid = calendar.event_uid(game_id, seat, decision)
    first = open_deadline(eng, game_id, seat).due_at

    db.run_transaction(lambda s: games.extend(s, game_id, 5, now=now, seat=seat), eng)
    [notice] = [r for r in seat_rows(eng, game_id, seat) if r.kind == "notice"]
    [(method, moved)] = events_of(eng, notice)
    assert (method, str(moved["UID"]), moved["SEQUENCE"]) == ("REQUEST", uid, 1)
    assert moved.decoded("DTSTART") == first + timedelta(hours=5)

    db.run_transaction(lambda s: games.pause(s, game_id, "a break", now=now), eng)
    db.run_transaction(lambda s: games.resume(s, game_id, now=now + timedelta(hours=2)), eng)
    [resumed] = [r for r in seat_rows(eng, game_id, seat) if r.kind == "resumed"]
    [(method, again)] = events_of(eng, resumed)
    assert (method, str(again["UID"]), again["SEQUENCE"]) == ("REQUEST", uid, 2)
    assert again.decoded("DTSTART") == first + timedelta(hours=7)
    paused = [r for r in seat_rows(eng, game_id, seat) if r.kind == "paused"]
    assert paused and not events_of(eng, paused[0])  # the pause moved nothing yet
    others = [r for s in range(3) if s != seat for r in seat_rows(eng, game_id, s)]
    assert all(m != "REQUEST" or str(e["UID"]) != uid
               for r in others for m, e in events_of(eng, r))  # only the seat's own


def test_an_answered_decision_is_cancelled_in_the_next_email_the_seat_gets_anyway(
        eng: Engine, now: datetime) -> None:
    """Same seed, same answers, with and without calendars: the same emails go out, and
    the calendar ones carry the CANCEL of each answered decision."""
    def play(calendars: bool) -> tuple[int, list[OutboundMessage]]:
        game_id = (started_with_calendars(eng, now, name=f"cal {calendars}") if calendars
                   else new_game(eng, now, 3, name="plain"))
        rng, clock = random.Random(5), now
        for _ in range(12):
            state = state_of(eng, game_id)
            decision = engine.pending(state)[0]
            clock += timedelta(minutes=30)
            assert submit(eng, game_id, decision.seat, rng.choice(decision.legal), clock).ok
        return game_id, rows(eng, OutboundMessage, game_id=game_id)

    _, plain = play(False)
    game_id, with_calendar = play(True)

    assert [(r.seat, r.kind, r.channel) for r in with_calendar] == \
        [(r.seat, r.kind, r.channel) for r in plain]  # not one email more
    requested: dict[str, int] = {}
    cancelled: dict[str, int] = {}
    for row in with_calendar:
        for method, event in events_of(eng, row):
            uid = str(event["UID"])
            assert f"-s{row.seat}-" in uid  # a seat only ever hears of its own deadlines
            if method == "REQUEST":
                requested[uid] = event["SEQUENCE"]
            else:
                assert uid in requested and event["SEQUENCE"] > requested[uid]
                assert str(event["STATUS"]) == "CANCELLED"
                cancelled[uid] = row.id  # type: ignore[assignment]
    assert len(cancelled) >= 3
    for deadline in rows(eng, Deadline, game_id=game_id):
        if deadline.calendar_due_at is not None and deadline.status != DeadlineStatus.OPEN:
            # still in a calendar: only while the seat has had no email since (its answer
            # by email gets one: tests/workers/test_calendar_e2e.py)
            assert not [r for r in with_calendar if r.seat == deadline.seat
                        and r.created_at >= deadline.resolved_at]


def test_a_default_played_at_the_timeout_cancels_the_event_in_the_timed_out_message(
        eng: Engine, now: datetime) -> None:
    game_id = started_with_calendars(eng, now)
    seat, decision = awaited_seat(eng, game_id)
    due = open_deadline(eng, game_id, seat).due_at

    db.run_transaction(lambda s: sweep.sweep_deadlines(s, due + timedelta(hours=2)), eng)

    [timed_out] = [r for r in seat_rows(eng, game_id, seat) if r.kind == "timed_out"]
    cancels = [e for m, e in events_of(eng, timed_out) if m == "CANCEL"]
    assert [str(e["UID"]) for e in cancels] == [
        calendar.event_uid(game_id, seat, decision)]


def test_sms_players_get_no_calendar_event(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3, start=False, sms_seats=(0, 1, 2))
    for seat in range(3):
        calendar_on(eng, game_id, seat, now)
    db.run_transaction(lambda s: [games.respond(s, game_id, i, join=True, now=now)
                                  for i in range(3)], eng)
    seat, _ = awaited_seat(eng, game_id)

    sent = seat_rows(eng, game_id, seat)
    assert [r.channel for r in sent if r.kind == "prompt"] == ["sms"]
    assert not [p for r in rows(eng, OutboundMessage, game_id=game_id)
                for p in rows(eng, OutboundPart, outbox_id=r.id)]


def test_calendar_off_cancels_the_events_the_player_holds_in_its_answer(
        eng: Engine, now: datetime) -> None:
    game_id = started_with_calendars(eng, now)
    seat, decision = awaited_seat(eng, game_id)

    def off(session: Any) -> None:
        seat_row, player = games.seat_of(session, game_id, seat)
        answer = player_settings.apply(session, player, "CALENDAR OFF", now)
        games.outbox.notify(session, games.get_game(session, game_id), seat_row, player,
                            Reply(answers=(answer,)), now=now, dedupe="off")
    db.run_transaction(off, eng)

    [answer] = [r for r in seat_rows(eng, game_id, seat) if r.kind == "reply"]
    assert [(m, str(e["UID"])) for m, e in events_of(eng, answer)] == [
        ("CANCEL", calendar.event_uid(game_id, seat, decision))]
    assert open_deadline(eng, game_id, seat).calendar_due_at is None
    db.run_transaction(lambda s: games.extend(s, game_id, 3, now=now, seat=seat), eng)
    [notice] = [r for r in seat_rows(eng, game_id, seat) if r.kind == "notice"]
    assert events_of(eng, notice) == []  # nothing more once it is off


def answer_setting(eng: Engine, game_id: int, seat: int, line: str, now: datetime) -> None:
    """Apply a setting and write its answer (what ``pbm.inbound`` does for a reply)."""
    def work(session: Any) -> None:
        seat_row, player = games.seat_of(session, game_id, seat)
        answer = player_settings.apply(session, player, line, now)
        games.outbox.notify(session, games.get_game(session, game_id), seat_row, player,
                            Reply(answers=(answer,)), now=now, dedupe=line)
    db.run_transaction(work, eng)


def test_away_moves_the_event_in_the_answer_and_back_moves_it_again(
        eng: Engine, now: datetime) -> None:
    game_id = started_with_calendars(eng, now)
    seat, decision = awaited_seat(eng, game_id)
    first = open_deadline(eng, game_id, seat).due_at

    answer_setting(eng, game_id, seat, "AWAY 1 day", now)
    answer_setting(eng, game_id, seat, "BACK", now + timedelta(hours=6))

    answers = [r for r in seat_rows(eng, game_id, seat) if r.kind == "reply"]
    moves = [(m, e["SEQUENCE"], e.decoded("DTSTART")) for r in answers
             for m, e in events_of(eng, r)]
    assert moves == [("REQUEST", 1, first + timedelta(days=1)),
                     ("REQUEST", 2, first + timedelta(hours=6))]
    assert {str(e["UID"]) for r in answers for _, e in events_of(eng, r)} == {
        calendar.event_uid(game_id, seat, decision)}


def test_a_player_whose_seat_is_taken_over_gets_the_cancel_in_the_goodbye(
        eng: Engine, now: datetime) -> None:
    game_id = started_with_calendars(eng, now)
    seat, decision = awaited_seat(eng, game_id)

    db.run_transaction(lambda s: games.replace_seat(
        s, game_id, seat, games.PlayerSpec("Newcomer", email="new@example.org"), now=now), eng)

    [goodbye] = [r for r in seat_rows(eng, game_id, seat)
                 if r.kind == "notice" and r.to_address != "new@example.org"]
    assert [(m, str(e["UID"])) for m, e in events_of(eng, goodbye)] == [
        ("CANCEL", calendar.event_uid(game_id, seat, decision))]
    assert open_deadline(eng, game_id, seat).calendar_due_at is None  # nothing held now


@pytest.mark.parametrize("zone", ["Europe/Paris", "UTC"])
def test_the_ics_text_parses_back_to_the_same_event(zone: str, now: datetime) -> None:
    from pbm.models import Game, Player

    game = Game(id=9, name="Reef", seed=1)
    player = Player(display_name="Ann", email="ann@example.org", time_zone=zone)
    deadline = Deadline(game_id=9, seat=2, decision_key="v12:VOTE", kind="VOTE",
                        due_at=now + timedelta(hours=24))
    text = calendar.build_ics("REQUEST", game=game, seat=2, player=player,
                                       deadline=deadline, due=deadline.due_at, sequence=3,
                                       now=now)

    [event] = icalendar.Calendar.from_ical(text).walk("VEVENT")
    assert event.decoded("DTSTART").astimezone(ZoneInfo("UTC")) == deadline.due_at
    assert str(event["SUMMARY"]) == "Tortuga Reef: your vote is due"
    assert str(event["UID"]).startswith("tortuga-g9-s2-v12-VOTE@")
    assert event["SEQUENCE"] == 3
