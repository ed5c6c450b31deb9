"""Processing one stored message at most once, as named steps in order (the pipeline is the
data below, as Mailman 3 lists its pipelines): each step takes the ``Work`` of the message
and returns a ``Disposition``; the first that is not CONTINUE ends the message. A crash
quarantines it.

Storing happened at the edge (``store_email`` / ``store_sms``, one row per provider message
id); the worker claims the row and runs the steps of its channel. Authenticating an email
(its reply token, its sender) comes after de-looping it: automatic mail is dropped before
anyone is asked to answer the game's email instead.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col

from pbm import logs
from pbm.config import Settings, get_settings
from pbm.db import is_conflict, run_transaction
from pbm.hygiene import mime_problem
from pbm.inbound.answering import ask_to_answer_the_game
from pbm.inbound.applying import (
    READER_ERRORS,
    answer_reply,
    apply_reply,
    handle_bounce,
    parse_reply,
    set_sms_opt_out,
    unreadable,
)
from pbm.inbound.mail_headers import automatic_reason, decode_raw, header, parse_email
from pbm.inbound.routing import Routed, route_email, route_sms, sender_authenticated
from pbm.inbound.storage import (
    EMAIL,
    MAX_PROCESS_ATTEMPTS,
    SMS,
    claim_inbound,
    inbound_table,
    quarantine,
    release_claim,
)
from pbm.inbound.work import Disposition, Work
from pbm.models import InboundStatus, Player, Processed, ProcessResult
from pbm.ratelimit import inbound_allowed
from pbm.replies import extract_email, extract_sms
from pbm.replies.autoreply import automatic_phrasing
from pbm.replies.extract import email_new_text

log = logging.getLogger(__name__)

#: One step: its name (logs, docs) and what it does.
Step = tuple[str, Callable[[Work], Disposition]]

# ----------------------------------------------------------------------------- the steps


def stored(work: Work) -> Disposition:
    """The stored row, read again under lock: still this worker's to process? (On
    PostgreSQL the same statement counts the sender's messages of the hour before it, for
    ``rate_limited``.)"""
    dialect = work.session.get_bind().dialect.name
    work.row = work.session.execute(_stored_statement(dialect == "postgresql"),
                                    {"inbound_id": work.inbound_id}).first()
    if work.row is None or work.stored.status != InboundStatus.PROCESSING.value:
        work.result = Processed(ProcessResult.SKIPPED)  # another worker finished it first
        return Disposition.SKIPPED
    return Disposition.CONTINUE


@functools.lru_cache(maxsize=2)
def _stored_statement(count_earlier: bool) -> sa.Select[Any]:
    """``stored``'s SELECT ... FOR UPDATE (``inbound_id`` a parameter), built once per
    process; with ``count_earlier`` also ``earlier_count``: the sender's messages on the
    channel received in the hour before this one (``inbound_count``, in the same read)."""
    table = inbound_table()
    columns: list[Any] = list(table.c)
    if count_earlier:
        earlier = table.alias("earlier")
        columns.append(sa.select(sa.func.count()).select_from(earlier).where(
            earlier.c.channel == table.c.channel, earlier.c.sender == table.c.sender,
            earlier.c.received_at >= table.c.received_at - sa.literal(HOUR, sa.Interval()),
            earlier.c.id < table.c.id,
        ).scalar_subquery().label("earlier_count"))
    return (sa.select(*columns).where(table.c.id == sa.bindparam("inbound_id"))
            .with_for_update(of=table))


HOUR = timedelta(hours=1)


def rate_limited(work: Work) -> Disposition:
    """Too many messages from this sender in the last hour: kept, not read."""
    row = work.stored
    earlier = getattr(row, "earlier_count", None)  # counted by ``stored`` (PostgreSQL)
    allowed = earlier < work.settings.inbound_per_sender_per_hour if earlier is not None \
        else inbound_allowed(work.session, row.channel, row.sender, row.received_at,
                             work.settings, message_id=row.id)
    if not allowed:
        return work.finish(Disposition.IGNORED, "rate limited: too many messages from "
                           f"{row.sender} in the last hour")
    return Disposition.CONTINUE


def unknown_channel(work: Work) -> Disposition:
    return work.finish(Disposition.IGNORED, f"unknown channel {work.stored.channel!r}")


def hostile_mime(work: Work) -> Disposition:
    """Parse the email; refuse a hostile size or structure (IMAP mail skipped the
    webhook's check)."""
    work.raw = decode_raw(work.stored.raw)
    work.message = parse_email(work.raw)
    problem = mime_problem(work.raw, work.settings, work.message)
    if problem:
        return work.finish(Disposition.IGNORED, f"refused: {problem}")
    return Disposition.CONTINUE


def de_loop_email(work: Work) -> Disposition:
    """Automatic mail is never a command: a bounce (recorded against what it bounces),
    an auto-reply, a list, our own mail, or text that reads as an automatic answer."""
    assert work.message is not None
    reason = automatic_reason(work.message, work.settings)
    if reason == "bounce":
        return work.finish(Disposition.IGNORED,
                           "bounce: " + handle_bounce(work.session, work.message, work.now))
    if reason:
        return work.finish(Disposition.IGNORED, f"automatic message ({reason})")
    phrasing = automatic_phrasing(header(work.message, "Subject"), email_new_text(work.raw))
    if phrasing:
        return work.finish(Disposition.IGNORED, f"automatic message ({phrasing})")
    return Disposition.CONTINUE


def authenticate_email(work: Work) -> Disposition:
    """The seat, by a secret only its player received; the sender must be that player
    (and pass DKIM / SPF / DMARC when required). Else the known sender is asked to answer
    the game's email."""
    session, row, now, message = work.session, work.stored, work.now, work.message
    assert message is not None
    routed = route_email(session, message, row.sender)
    if routed is None:
        ask_to_answer_the_game(session, row.sender, now)
        return work.finish(Disposition.IGNORED,
                           f"no reply token of a seat in this message from {row.sender}")
    work.routed = routed
    if (routed.player_email or "").lower() != row.sender.lower():
        ask_to_answer_the_game(session, row.sender, now)
        return work.finish_at_seat(Disposition.IGNORED,
                                   f"sender {row.sender} is not the player of this seat")
    if work.settings.inbound_require_sender_auth and not sender_authenticated(
            message, row.sender, work.settings):
        ask_to_answer_the_game(session, row.sender, now)
        return work.finish_at_seat(Disposition.IGNORED, f"sender {row.sender} not "
                                   "authenticated (no DKIM, SPF or DMARC pass in "
                                   "Authentication-Results)")
    return Disposition.CONTINUE


def extract_email_text(work: Work) -> Disposition:
    """The player's own new text of the email (quotes, signatures cut; bounded)."""
    try:
        assert work.message is not None
        work.extracted = extract_email(work.message,
                                       max_lines=work.settings.reply_max_lines,
                                       max_bytes=work.settings.reply_max_bytes)
    except READER_ERRORS as exc:
        return unreadable(work, exc)
    return Disposition.CONTINUE


def authenticate_sms(work: Work) -> Disposition:
    """The number must be a player's."""
    work.body = str(json.loads(work.stored.raw).get("Body", ""))
    work.player = work.session.execute(
        sa.select(Player).where(col(Player.phone) == work.stored.sender)).scalar()
    if work.player is None:
        return work.finish(Disposition.IGNORED, f"unknown number {work.stored.sender}")
    return Disposition.CONTINUE


def de_loop_sms(work: Work) -> Disposition:
    """A carrier keyword (STOP, START...): Twilio already acted on it and answered it; it
    is mirrored here (the player's SMS opt-out), never answered."""
    player = work.player
    assert player is not None
    keyword = work.body.strip().strip(".!").lower()
    if not (keyword in _CARRIER_STOP or keyword in _CARRIER_START or (
            keyword == "yes" and player.sms_opted_out)):
        return Disposition.CONTINUE
    set_sms_opt_out(work.session, player, keyword in _CARRIER_STOP, work.now)
    seat = route_sms(work.session, player.id)  # type: ignore[arg-type]
    return work.finish(Disposition.DONE, game_id=seat.game_id if seat else None,
                       seat=seat.seat_index if seat else None)


def route_sms_seat(work: Work) -> Disposition:
    """The seat of the number's player the SMS is for (their game in progress)."""
    player = work.player
    assert player is not None and player.id is not None
    seat = route_sms(work.session, player.id)
    if seat is None:
        return work.finish(Disposition.IGNORED, f"{work.stored.sender} has no game in progress")
    work.routed = Routed(seat.game_id, seat.seat_index, seat.player_id, player.email)
    return Disposition.CONTINUE


def extract_sms_text(work: Work) -> Disposition:
    """The SMS body's lines (bounded)."""
    try:
        work.extracted = extract_sms(work.body, max_lines=work.settings.reply_max_lines,
                                     max_bytes=work.settings.reply_max_bytes)
    except READER_ERRORS as exc:
        return unreadable(work, exc)
    return Disposition.CONTINUE


# The carrier / Twilio opt-out keywords: Twilio handles them itself and still forwards them.
# (YES is one too, but only for an opted-out number: otherwise it answers an invitation.)
_CARRIER_STOP = {"stop", "stopall", "unsubscribe", "cancel", "end", "quit"}
_CARRIER_START = {"start", "unstop"}

# -------------------------------------------------------------------------- the pipelines

#: Every message's first step: its channel says which steps follow.
STORE: Step = ("store", stored)

_READ_AND_ANSWER: tuple[Step, ...] = (
    ("parse", parse_reply),  # the game locked, the text read for the seat's view
    ("apply", apply_reply),  # through pbm.games
    ("answer", answer_reply),  # the REPLY message; the row done
)

#: The steps after STORE, by channel, in order.
PIPELINES: dict[str, tuple[Step, ...]] = {
    EMAIL: (
        ("rate limit", rate_limited),
        ("hostile MIME", hostile_mime),
        ("de-loop", de_loop_email),
        ("authenticate", authenticate_email),
        ("extract", extract_email_text),
        *_READ_AND_ANSWER,
    ),
    SMS: (
        ("rate limit", rate_limited),
        ("authenticate", authenticate_sms),
        ("de-loop", de_loop_sms),
        ("route", route_sms_seat),
        ("extract", extract_sms_text),
        *_READ_AND_ANSWER,
    ),
}
#: After STORE, for a row of another channel (none is ever stored): kept, not read.
UNKNOWN_CHANNEL: tuple[Step, ...] = (
    ("rate limit", rate_limited), ("unknown channel", unknown_channel))


def steps_of(work: Work) -> Iterator[Step]:
    """STORE, then the steps of the stored row's channel."""
    yield STORE
    yield from PIPELINES.get(work.stored.channel, UNKNOWN_CHANNEL)


def run_steps(work: Work) -> Processed:
    """Run the message's steps until one ends it; what became of it."""
    for _name, step in steps_of(work):
        if step(work) is not Disposition.CONTINUE:
            assert work.result is not None, f"step {_name!r} ended the message unrecorded"
            return work.result
    raise AssertionError(f"the steps of message {work.inbound_id} ended without an end")


# ------------------------------------------------------------------------------ process


def process(inbound_id: int, now: datetime) -> Processed:
    """Process one stored message at most once; returns what became of it (``str()`` of it:
    ``done``, ``ignored: why``, ``quarantined``, ``skipped``).

    Claims the row (``new`` -> ``processing``), then runs its steps in one transaction that
    also marks it ``done`` or ``ignored``. Transient database errors release the row and
    propagate (the task retries); any other error quarantines the message.
    """
    with logs.context(inbound_id=inbound_id):  # the game and seat bound later end with it
        return _process(inbound_id, now)


def _process(inbound_id: int, now: datetime) -> Processed:
    settings = get_settings()
    claimed = run_transaction(lambda s: claim_inbound(s, inbound_id, now, settings))
    if claimed is None:
        return Processed(ProcessResult.SKIPPED)
    if claimed.attempts > MAX_PROCESS_ATTEMPTS:
        quarantine(inbound_id, f"processing was interrupted {claimed.attempts - 1} times "
                               "(the worker died each time)", now)
        return Processed(ProcessResult.QUARANTINED)
    try:
        return run_transaction(lambda s: _handle(s, inbound_id, now, settings))
    except Exception as exc:
        if is_conflict(exc) or isinstance(exc, sa.exc.OperationalError | sa.exc.InterfaceError):
            release_claim(inbound_id)
            raise
        log.exception("inbound message %s quarantined", inbound_id)
        quarantine(inbound_id, f"{type(exc).__name__}: {exc}", now)
        return Processed(ProcessResult.QUARANTINED)


def _handle(session: Session, inbound_id: int, now: datetime, settings: Settings
            ) -> Processed:
    return run_steps(Work(session=session, inbound_id=inbound_id, now=now, settings=settings))
