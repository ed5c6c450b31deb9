"""Deadlines in the player's own calendar (CALENDAR ON): iCalendar events by email.

Each open decision of a seat whose player asked for it becomes one calendar event at its
deadline, with a UID stable for the decision (game, seat, decision key). The event travels
as a ``text/calendar`` part of an email the seat receives anyway; no email is ever sent
just for the calendar:

- the PROMPT (or any email, e.g. the answer to ``CALENDAR ON``) carries the event when the
  player's calendar does not hold it at its current due time yet;
- when the deadline moves (EXTEND, RESUME after a pause, AWAY / BACK), the next email to
  the seat (the NOTICE, RESUMED or the answer to AWAY) carries the update: same UID,
  ``SEQUENCE`` + 1;
- when the decision is answered or played by default, the next email to the seat (the
  answer, the next PROMPT, TIMED_OUT, GAME_OVER) carries a CANCEL of that UID.

Method: iTIP ``REQUEST`` / ``CANCEL`` (RFC 5546, sent by iMIP, RFC 6047), not ``PUBLISH``.
``PUBLISH`` has no cancel and clients import it as a copy, so a moved deadline would leave
the old one behind; with ``REQUEST`` mail clients (Gmail, Outlook, Apple Mail, Thunderbird)
put the event in the calendar, update it in place on a higher SEQUENCE and remove it on
``CANCEL``. The service is the ORGANIZER; the player the only ATTENDEE, already accepted,
``RSVP=FALSE``: no answer is asked for. Times carry the player's zone (``TZID`` with its
``VTIMEZONE``), or UTC. SMS gets nothing of this (``pbm.outbox`` adds parts to email only).

The calendar's state lives on ``Deadline.calendar_due_at`` / ``calendar_sequence``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from icalendar import Alarm, Calendar, Event, vCalAddress
from sqlmodel import Session, col, or_, select

from pbm.config import get_settings
from pbm.i18n.translate import N_, _, reading
from pbm.models import Deadline, DeadlineStatus, Game, Player, Seat

INVITATION = "INVITATION"
EVENT_LENGTH = timedelta(minutes=15)  # the event starts at the deadline
ALARM_BEFORE = timedelta(hours=1)
PRODID = "-//Tortuga by Mail//Deadlines//EN"
_WHAT = {"ACTION": N_("your turn"), "VOTE": N_("your vote"), "PLACE": N_("your placement"),
         "CHOOSE": N_("your choice of card")}


@dataclass(frozen=True)
class CalendarPart:
    """One ``text/calendar`` MIME part: its method and the .ics text."""

    method: str  # "REQUEST" or "CANCEL"
    ics: str

    @property
    def content_type(self) -> str:
        return f"text/calendar; method={self.method}"

    @property
    def filename(self) -> str:
        return "deadline.ics" if self.method == "REQUEST" else "deadline-cancelled.ics"


def event_uid(game_id: int, seat: int, decision_key: str) -> str:
    """The UID of one decision's deadline event: the same for every update and cancel."""
    key = re.sub(r"[^A-Za-z0-9._-]+", "-", decision_key).strip("-") or "decision"
    return f"tortuga-g{game_id}-s{seat}-{key}@{get_settings().mail_domain}"


def _what(kind: str) -> str:
    return _(_WHAT.get(kind, N_("your decision")))


def _local(when: datetime, zone_name: str) -> datetime:
    if zone_name in ("UTC", "Etc/UTC", ""):
        return when.astimezone(ZoneInfo("UTC"))
    try:
        return when.astimezone(ZoneInfo(zone_name))
    except (ValueError, KeyError):
        return when.astimezone(ZoneInfo("UTC"))


def build_ics(method: str, *, game: Game, seat: int, player: Player, deadline: Deadline,
              due: datetime, sequence: int, now: datetime) -> str:
    """The .ics text of the event at ``due`` (``REQUEST``) or its cancellation
    (``CANCEL``, with the time the player's calendar holds), in the player's language."""
    with reading(getattr(player, "language", "en")):
        return _build_ics(method, game=game, seat=seat, player=player, deadline=deadline,
                          due=due, sequence=sequence, now=now)


def _build_ics(method: str, *, game: Game, seat: int, player: Player, deadline: Deadline,
               due: datetime, sequence: int, now: datetime) -> str:
    settings = get_settings()
    start = _local(due, player.time_zone)
    what = _what(deadline.kind)
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("method", method)
    event = Event()
    event.add("uid", event_uid(game.id or 0, seat, deadline.decision_key))
    event.add("sequence", sequence)
    event.add("dtstamp", now.astimezone(ZoneInfo("UTC")))
    event.add("dtstart", start)
    event.add("dtend", start + EVENT_LENGTH)
    event.add("summary", _("Tortuga {game}: {what} is due").format(game=game.name, what=what))
    organizer = vCalAddress(f"mailto:play@{settings.mail_domain}")
    organizer.params["cn"] = settings.mail_from_name
    event.add("organizer", organizer)
    attendee = vCalAddress(f"mailto:{player.email}")
    attendee.params.update({"cn": player.display_name, "role": "REQ-PARTICIPANT",
                            "partstat": "ACCEPTED", "rsvp": "FALSE"})
    event.add("attendee", attendee)
    event.add("transp", "TRANSPARENT")
    if method == "CANCEL":
        event.add("status", "CANCELLED")
        event.add("description", _("Nothing is awaited from you any more for this "
                                   "deadline in {game}.").format(game=game.name))
    else:
        event.add("status", "CONFIRMED")
        event.add("description", _(
            "{what_cap} in the Tortuga game {game} is due at this time. "
            "Answer by replying to the latest email of the game; if you do not, the game's "
            "timeout rule applies (usually a safe default is played for you).").format(
                what_cap=what[:1].upper() + what[1:], game=game.name))
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", _("Tortuga {game}: {what} is due in one hour").format(
            game=game.name, what=what))
        alarm.add("trigger", -ALARM_BEFORE)
        event.add_component(alarm)
    calendar.add_component(event)
    # The zone's rules around the deadline only (a VTIMEZONE of 1970-2038 is 3 kB).
    calendar.add_missing_timezones(first_date=(start - timedelta(days=400)).date(),
                                   last_date=(start + timedelta(days=400)).date())
    ical: bytes = calendar.to_ical()  # icalendar's to_ical is not annotated
    return ical.decode("utf-8")


def parts_for(session: Session, game: Game, seat: Seat, player: Player, now: datetime, *,
              leaving: bool = False) -> list[CalendarPart]:
    """The calendar parts the next email to this seat carries, and the deadlines' calendar
    state updated as if it is sent (call it only for an email that is being written).

    A CANCEL for each event the player holds whose decision is closed (or for all of them
    once the player sent CALENDAR OFF, or is ``leaving`` the seat to a newcomer); a REQUEST
    for each open decision whose event the player does not hold at its current due time."""
    assert game.id is not None
    wanted = bool(player.calendar and player.email) and not leaving
    query = select(Deadline).where(
        Deadline.game_id == game.id, Deadline.seat == seat.seat_index,
        Deadline.kind != INVITATION,
        or_(col(Deadline.calendar_due_at).is_not(None),
            Deadline.status == DeadlineStatus.OPEN) if wanted
        else col(Deadline.calendar_due_at).is_not(None),
    ).order_by(col(Deadline.id))
    parts: list[CalendarPart] = []
    for deadline in session.exec(query):
        is_open = deadline.status == DeadlineStatus.OPEN
        if wanted and is_open:
            if deadline.calendar_due_at is not None and deadline.calendar_due_at == deadline.due_at:
                continue  # the calendar already has it right
            if deadline.calendar_due_at is not None:
                deadline.calendar_sequence += 1  # the deadline moved: an update
            parts.append(CalendarPart("REQUEST", build_ics(
                "REQUEST", game=game, seat=seat.seat_index, player=player, deadline=deadline,
                due=deadline.due_at, sequence=deadline.calendar_sequence, now=now)))
            deadline.calendar_due_at = deadline.due_at
        else:
            deadline.calendar_sequence += 1
            parts.append(CalendarPart("CANCEL", build_ics(
                "CANCEL", game=game, seat=seat.seat_index, player=player, deadline=deadline,
                due=deadline.calendar_due_at or deadline.due_at,
                sequence=deadline.calendar_sequence, now=now)))
            deadline.calendar_due_at = None
        session.add(deadline)
    return parts
