"""Writing the outbox: one rendered message per recipient and channel, at commit time.

``notify`` builds a ``MessageContext`` for one seat from the engine state (its own
``SeatView`` only) and the stored events that seat may see and has not been told yet,
renders it with ``pbm.render.render`` for the player's channel, stores the board picture
once per game version, and inserts ``OutboundMessage`` rows keyed by a dedupe key (the same
decision is never prompted twice). After commit the caller enqueues ``pending_outbox_ids``.

What each kind of message carries is its payload (``pbm.message_payloads``); the outbox
adds the common part (``Common``: the reply address, folded SAY messages and notes, the
question asked, the vote ledger).
"""

from __future__ import annotations

import functools
import json
import secrets
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel import Session, col, select

import engine
from pbm import render, txcache, vote_ledger
from pbm.config import get_settings
from pbm.deadlines import calendar
from pbm.message_payloads import Common, Payload, Reply, Said, asks_to_join, leaves_game
from pbm.messages import Channel, MessageContext, MessageKind, RenderedMessage
from pbm.models import (
    Game,
    GameEvent,
    OutboundMessage,
    OutboundPart,
    OutboundStatus,
    Player,
    Seat,
    ServiceEventKind,
)
from pbm.outbox_pictures import store_board_image
from pbm.outbox_rows import insert_once, new_row
from pbm.session_keys import FOLD_NOTES

#: Kinds whose email shows the seat's own vote ledger (``pbm.vote_ledger``).
LEDGER_KINDS = frozenset({MessageKind.PROMPT, MessageKind.STATUS})
RECAP_LIMIT = 100  # at most this many recent events in one "since your last message"
#: Kinds whose (email) message lists the seat's events in its "since your last message"
#: recap. Only what a message shows counts as told (``Seat.last_event_seq``).
RECAP_KINDS = frozenset(kind for kind, sections in render.SECTIONS.items()
                        if "recap" in sections)


def shows_events(payload: Payload) -> bool:
    """True if a message with ``payload`` lists its context's events to the seat: its
    recap, or a REPLY's LOG (mirrors ``pbm.render`` sections; a test keeps the two in step)."""
    kind = payload.KIND
    if kind in (MessageKind.REMINDER, MessageKind.FINAL_WARNING) and asks_to_join(payload):
        return False  # an invitation reminder: no game news
    if kind is MessageKind.SEAT_REPLACED and leaves_game(payload):
        return False
    if isinstance(payload, Reply):
        return payload.log
    return kind in RECAP_KINDS


#: Kinds a folded note never rides on (they are not about the game's progress).
_NO_FOLD = frozenset({MessageKind.REPLY, MessageKind.TABLE_TALK, MessageKind.INVITATION})


def fold_into_next(session: Session, game_id: int, seat: int, *, read_as: Sequence[str] = (),
                   timed_out: str | None = None, timed_out_secret: bool = False) -> None:
    """Say a note (``read_as``: how a reply was read; ``timed_out``: what was played at
    a deadline) in the next message this transaction writes to ``seat``, instead of in a
    message of its own. ``was_folded`` tells afterwards whether one carried it."""
    note = Common(read_as=tuple(read_as), timed_out=timed_out,
                  timed_out_secret=timed_out_secret)
    session.info.setdefault(FOLD_NOTES, {})[(game_id, seat)] = {"note": note, "used": False}


def was_folded(session: Session, game_id: int, seat: int) -> bool:
    """True if a message of this transaction carried the seat's folded note; forgets it."""
    entry = session.info.get(FOLD_NOTES, {}).pop((game_id, seat), None)
    return bool(entry and entry["used"])


def _take_fold(session: Session, game_id: int, seat: int, kind: MessageKind) -> Common | None:
    entry = session.info.get(FOLD_NOTES, {}).get((game_id, seat))
    if entry is None or entry["used"] or kind in _NO_FOLD:
        return None
    entry["used"] = True
    note: Common = entry["note"]
    return note


def reply_address(seat: Seat) -> str:
    """The one-time reply address of a seat: ``play+TOKEN@domain``."""
    return f"play+{seat.reply_token}@{get_settings().mail_domain}"


def new_thread_id(game_id: int, seat_index: int) -> str:
    """A fresh root Message-ID for the email thread of one (game, seat)."""
    return f"<tortuga.g{game_id}.s{seat_index}.{secrets.token_hex(6)}@{get_settings().mail_domain}>"


def question_of(state: engine.GameState | None, seat_index: int) -> str | None:
    """The question a message written now puts to a seat: the game's stage and the seat
    (``"12.3"``), the same as ``state.decision_id`` while the seat is awaited. A reply to the
    message answers this question; once the stage has moved on, it is settled."""
    return None if state is None else f"{state.stage_serial}.{seat_index}"


def channels_for(player: Player) -> list[Channel]:
    """The channel a player is reached on: the preferred one if it works, else the other."""
    email_ok = bool(player.email) and not player.email_failing
    sms_ok = bool(player.phone) and not player.sms_opted_out
    if player.preferred_channel == "both" and email_ok and sms_ok:  # VIA BOTH
        return [Channel.EMAIL, Channel.SMS]
    if player.preferred_channel in (Channel.SMS, "both") and sms_ok:
        return [Channel.SMS]
    if email_ok:
        return [Channel.EMAIL]
    if sms_ok:
        return [Channel.SMS]
    if player.email:  # failing, but the only way left: keep trying
        return [Channel.EMAIL]
    return []


def hears_talk_live(player: Player) -> bool:
    """True if table talk is relayed to this player at once (email, or SMS on request)."""
    return channels_for(player) != [Channel.SMS] or player.sms_live_talk


def event_dict(event: GameEvent) -> dict[str, Any]:
    """A stored event in the engine's ``Event.to_dict()`` form, plus its ``seq``."""
    seats = event.audience_seats()
    return {
        "seq": event.seq,
        "kind": event.kind,
        "text": event.text,
        "audience": None if seats is None else sorted(seats),
        "data": json.loads(event.data_json or "{}"),
        "state_version": event.state_version,
    }


def events_for(session: Session, game_id: int, seat: int, *, after: int = 0,
               limit: int | None = RECAP_LIMIT, ledger: bool = False) -> list[GameEvent]:
    """The stored events ``seat`` may see with ``seq > after``, oldest first. ``ledger``:
    the caller reads the vote ledger next (read in the same statement if it must be read)."""
    rows = _events_after(session, game_id, after, ledger=ledger)
    visible = [e for e in rows if e.visible_to(seat)]
    return visible[-limit:] if limit else visible


#: fewer unseen events than this are read for every seat at once (one statement)
_EVENTS_AHEAD = 60


def _events_after(session: Session, game_id: int, after: int, *, ledger: bool = False
                  ) -> list[GameEvent]:
    """The game's events with ``seq > after``, oldest first. Read once per transaction
    (``pbm.txcache``) from the earliest any seat may need, when that is a few events; with
    ``ledger``, the vote ledger's events come in the same statement when the transaction
    has not read them (``vote_ledger.remember``: a prompt's two reads in one)."""
    txcache.flush_pending(session, GameEvent)
    entries = txcache.memo(session)
    cached = entries.get(("events", game_id))
    if cached is not None and after >= cached[0]:
        return [e for e in cached[1] if e.seq > after]
    floor = after
    seats = entries.get(("seats", game_id))
    next_seq = entries.get(("seq", "game_events", game_id))
    if seats and next_seq is not None:
        lowest = min(s.last_event_seq for s, _ in seats)
        if next_seq - lowest <= _EVENTS_AHEAD:
            floor = min(floor, lowest)
    with_ledger = ledger and not vote_ledger.remembered(session, game_id)
    rows = list(session.exec(_events_statement(with_ledger),
                             params={"game_id": game_id, "after": floor}).all())
    if with_ledger:
        vote_ledger.remember(session, game_id, rows)
        rows = [e for e in rows if e.seq > floor]
    entries[("events", game_id)] = (floor, rows)
    return [e for e in rows if e.seq > after]


@functools.lru_cache(maxsize=2)
def _events_statement(with_ledger: bool = False) -> Any:
    """A game's events after a number (``game_id``, ``after``), and with ``with_ledger``
    those of the vote ledger (``vote_ledger.KINDS``) too, built once per process."""
    after = col(GameEvent.seq) > sa.bindparam("after")
    wanted = sa.or_(after, col(GameEvent.kind).in_(vote_ledger.KINDS)) if with_ledger \
        else after
    return (select(GameEvent)
            .where(GameEvent.game_id == sa.bindparam("game_id"), wanted)
            .order_by(col(GameEvent.seq)))




def notify(
    session: Session,
    game: Game,
    seat: Seat,
    player: Player,
    payload: Payload,
    *,
    now: datetime,
    dedupe: str,
    state: engine.GameState | None = None,
    deadline: datetime | None = None,
    recap: bool = True,
    events: Sequence[GameEvent] | None = None,
    announced: Sequence[GameEvent] = (),
) -> list[OutboundMessage]:
    """Render one message for one seat and add it to the outbox (once per dedupe key).

    ``events`` defaults to the seat's unseen events (``recap``). The seat is marked as told
    only the events the message shows (``shows_events``) and those it ``announced`` (the
    pause a PAUSED message is about), never past an unseen event it did not show: that one
    stays in the next recap. Returns the rows added (none if already there).
    """
    channels = _channels(player, payload.KIND)
    if not channels:
        return []
    assert game.id is not None
    question = question_of(state, seat.seat_index)
    folded = _take_fold(session, game.id, seat.seat_index, payload.KIND)
    ctx = build_context(session, game, seat, player, payload, state=state, deadline=deadline,
                        events=events, recap=recap, now=now, question=question, folded=folded)
    rows = []
    for channel in channels:  # a key written before is skipped by its INSERT (``insert_once``)
        rows += _write(session, ctx, channel, game, seat, player, state, now,
                       question=question, dedupe=f"{dedupe}:{channel.value}")
    if not rows:  # every channel's message was written before
        return []
    _mark_told(session, game.id, seat, ctx, announced=announced,
               whole_recap=events is None and recap, now=now)
    return rows


def _channels(player: Player, kind: MessageKind) -> list[Channel]:
    """The channels a message goes by: the player's, and SMS too for a final warning."""
    channels = channels_for(player)
    if (kind is MessageKind.FINAL_WARNING and player.phone and not player.sms_opted_out
            and Channel.SMS not in channels):
        channels = [*channels, Channel.SMS]  # escalation: the last call goes by text too
    return channels


def _thread_ids(game_id: int, seat: Seat, channel: Channel) -> tuple[str | None, str | None]:
    """(Message-ID, In-Reply-To) of an email: one thread per (game, seat), rooted at its
    first email (the seat's thread fields are set; nothing for an SMS)."""
    if channel is not Channel.EMAIL:
        return None, None
    if not seat.thread_message_id:
        seat.thread_message_id = new_thread_id(game_id, seat.seat_index)
        seat.thread_started = False
    if seat.thread_started:
        return new_message_id(), seat.thread_message_id
    seat.thread_started = True
    return seat.thread_message_id, None


def _write(session: Session, ctx: MessageContext, channel: Channel, game: Game, seat: Seat,
           player: Player, state: engine.GameState | None, now: datetime, *,
           question: str | None, dedupe: str) -> list[OutboundMessage]:
    """Render the message for one channel and write its rows (none if ``dedupe`` was
    written before): an email's extra parts with it, a STATUS's second text after it."""
    assert game.id is not None
    kind = ctx.kind
    rendered = render.render(ctx, channel)
    image_key = None  # carried only when the HTML shows it (``render`` decides)
    if channel is Channel.EMAIL and state is not None and rendered.board_image_key:
        image_key = store_board_image(session, game.id, state, ctx.language)
        assert image_key == rendered.board_image_key, "rendered at another version"
    thread = (seat.thread_message_id, seat.thread_started)
    message_id, in_reply_to = _thread_ids(game.id, seat, channel)
    row = new_row(OutboundMessage, {
        "game_id": game.id,
        "seat": seat.seat_index,
        "player_id": player.id,
        "channel": channel.value,
        "kind": kind.value,
        "to_address": (player.email if channel is Channel.EMAIL else player.phone) or "",
        "subject": rendered.subject,
        "text": rendered.text,
        "html": rendered.html if channel is Channel.EMAIL else None,
        "sms_body": rendered.sms if channel is Channel.SMS else None,
        "board_image_key": image_key,
        "message_id": message_id,
        "in_reply_to": in_reply_to,
        "question": question,
        "reply_to": reply_address(seat) if channel is Channel.EMAIL else None,
        "status": OutboundStatus.PENDING,
        "dedupe_key": dedupe,
        "created_at": now,
    })
    if not insert_once(session, row):  # written before: not again
        seat.thread_message_id, seat.thread_started = thread
        return []
    rows = [row]
    if channel is Channel.EMAIL:  # calendar events, pictures other than the board
        _add_parts(session, row, game, seat, player, kind, rendered, now,
                   leaving=leaves_game(ctx.payload),
                   calendar_answer=isinstance(ctx.payload, Reply) and any(
                       "CALENDAR" in a for a in ctx.payload.answers))
    if channel is Channel.SMS:  # a STATUS may take a second text, sent right after
        for i, body in enumerate(rendered.sms_more, start=2):
            more = OutboundMessage(**{**row.model_dump(exclude={"id"}),
                                      "sms_body": body, "dedupe_key": f"{dedupe}:{i}"})
            if insert_once(session, more):
                rows.append(more)
    return rows


def _mark_told(session: Session, game_id: int, seat: Seat, ctx: MessageContext, *,
               announced: Sequence[GameEvent], whole_recap: bool, now: datetime) -> None:
    """The seat has been told the events the message shows and those it announced; a
    prompt's time is remembered."""
    shown = {e["seq"] for e in ctx.events} if shows_events(ctx.payload) else set()
    seat.last_event_seq = told_through(session, game_id, seat, shown | {
        e.seq for e in announced}, whole_recap=bool(shown) and whole_recap)
    if ctx.kind in {MessageKind.PROMPT, MessageKind.REMINDER, MessageKind.FINAL_WARNING}:
        seat.last_prompted_at = now
    # both columns written for every seat told, changed or not: the seats of one reply then
    # share one UPDATE's shape and go in one executemany at the next flush (or ``write_told``)
    for column in TOLD_COLUMNS:
        if column in seat.__dict__:  # loaded (flag_modified refuses an expired one)
            flag_modified(seat, column)
    session.add(seat)
    told = txcache.memo(session).setdefault(("told",), [])
    if seat not in told:
        told.append(seat)


#: the columns ``_mark_told`` writes
TOLD_COLUMNS = ("last_event_seq", "last_prompted_at")


def write_told(session: Session) -> None:
    """Write the marks of the seats this transaction told (``_mark_told``) now, in one
    Core UPDATE (an executemany) on the session's connection, instead of by the unit of
    work at the next flush. Only a seat whose pending changes are these two columns is
    written here; it then holds them as loaded. Any other (its email thread started too,
    say), and every seat when the memo was forgotten, is left to the flush as before."""
    told = txcache.memo(session).pop(("told",), None)
    ready = [seat for seat in told or () if _only_told_pending(seat)]
    if not ready:
        return
    marks = [{"seat_id": seat.id, "last_event_seq": seat.last_event_seq,
              "last_prompted_at": seat.last_prompted_at} for seat in ready]
    # one seat's as a plain execute: the driver's executemany costs more for one row
    session.connection().execute(_told_statement(), marks[0] if len(marks) == 1 else marks)
    txcache.as_loaded(session, ready)  # the same objects, their history done with


def _only_told_pending(seat: Seat) -> bool:
    """True if the seat's only changes not yet written are its told marks (both loaded)."""
    state = sa.inspect(seat)
    return bool(state.persistent and state.modified
                and state.unmodified >= _other_seat_attributes()
                and all(column in seat.__dict__ for column in TOLD_COLUMNS))


@functools.cache
def _other_seat_attributes() -> frozenset[str]:
    return frozenset(sa.inspect(Seat).attrs.keys()) - frozenset(TOLD_COLUMNS)


@functools.cache
def _told_statement() -> sa.Update:
    """``write_told``'s UPDATE, built once per process (its values are parameters)."""
    table: sa.Table = Seat.__table__  # type: ignore[attr-defined]
    c = table.c
    return sa.update(table).where(c.id == sa.bindparam("seat_id")).values(
        last_event_seq=sa.bindparam("last_event_seq", type_=c.last_event_seq.type),
        last_prompted_at=sa.bindparam("last_prompted_at", type_=c.last_prompted_at.type))


def _add_parts(session: Session, row: OutboundMessage, game: Game, seat: Seat, player: Player,
               kind: MessageKind, rendered: RenderedMessage, now: datetime, *,
               leaving: bool = False, calendar_answer: bool = False) -> None:
    """The email's extra MIME parts: its inline pictures (``RenderedMessage.inline_images``)
    and the player's calendar events (``pbm.deadlines.calendar``: CALENDAR ON, or the
    cancels of events they hold; a REPLY answering CALENDAR OFF cancels them; a player
    ``leaving`` a replaced seat gets the cancels of all)."""
    parts = [OutboundPart(outbox_id=0, content_type="image/png", filename=f"{cid}.png",
                          content_id=cid, content=png) for cid, png in rendered.inline_images]
    if player.calendar or (kind is MessageKind.REPLY and calendar_answer) or leaving:
        parts += [OutboundPart(outbox_id=0, content_type=p.content_type, filename=p.filename,
                               content=p.ics.encode()) for p in calendar.parts_for(
                                   session, game, seat, player, now, leaving=leaving)]
    if not parts:
        return
    session.flush()  # the row's id
    for part in parts:
        part.outbox_id = row.id  # type: ignore[assignment]
        session.add(part)


def told_through(session: Session, game_id: int, seat: Seat, covered: set[int], *,
                 whole_recap: bool = False) -> int:
    """The seat's new ``last_event_seq`` once it has been shown the events ``covered``.

    The mark moves over the seat's unseen events while each was shown (or is recap noise,
    ``render.RECAP_SKIP``), and stops before the first it was not shown. A ``whole_recap``
    (the newest ``RECAP_LIMIT`` unseen events) covers everything up to its newest event.
    """
    if not covered:
        return seat.last_event_seq
    if whole_recap:
        return max(seat.last_event_seq, *covered)
    told = seat.last_event_seq
    for event in events_for(session, game_id, seat.seat_index, after=told, limit=None):
        if event.seq not in covered and event.kind not in render.RECAP_SKIP:
            break
        told = event.seq
    return told


def build_context(
    session: Session,
    game: Game,
    seat: Seat,
    player: Player,
    payload: Payload,
    *,
    state: engine.GameState | None = None,
    deadline: datetime | None = None,
    recap: bool = True,
    events: Sequence[GameEvent] | None = None,
    now: datetime | None = None,
    question: str | None = None,
    folded: Common | None = None,
) -> MessageContext:
    """The ``MessageContext`` of one message to one seat (nothing is written): ``question``
    the one it asks (``question_of``), ``folded`` the note it carries (``fold_into_next``)."""
    assert game.id is not None
    kind = payload.KIND
    if events is None:
        events = events_for(session, game.id, seat.seat_index, after=seat.last_event_seq,
                            ledger=kind in LEDGER_KINDS and state is not None) \
            if recap else []
    talk = [json.loads(e.data_json) for e in events if e.kind == ServiceEventKind.TABLE_TALK]
    talk = [said for said in talk if said.get("seat") != seat.seat_index]  # not one's own words
    folded_talk = tuple(Said(name=said.get("name", ""), text=said.get("text", ""))
                        for said in talk) \
        if talk and kind is not MessageKind.TABLE_TALK and not hears_talk_live(player) else ()
    ledger = tuple(vote_ledger.ledger(session, game.id, seat.seat_index)) \
        if kind in LEDGER_KINDS and state is not None else ()
    return MessageContext(
        payload=payload,
        common=replace(folded or Common(), reply_to=reply_address(seat), question=question,
                       table_talk=folded_talk, vote_ledger=ledger),
        game_id=game.id,
        game_name=game.name,
        seat=seat.seat_index,
        player_name=player.display_name,
        time_zone=player.time_zone,
        seat_view=engine.view(state, seat.seat_index).to_dict() if state is not None else None,
        events=[event_dict(e) for e in events],
        deadline=deadline,
        now=now,
        language=player.language or "en",
    )


def new_message_id() -> str:
    """A unique Message-ID for one outbound email."""
    return f"<tortuga.{secrets.token_hex(10)}@{get_settings().mail_domain}>"


def alert_admin(session: Session, game: Game | None, subject: str, text: str, *,
                now: datetime, dedupe: str) -> OutboundMessage | None:
    """An email to the service admin (``settings.admin_email``), once per dedupe key.

    Plain text on purpose: it is an operator notice, not a player message.
    """
    key = f"admin:{dedupe}"
    name = game.name if game is not None else "-"
    row = OutboundMessage(
        game_id=game.id if game is not None else None,
        channel=Channel.EMAIL.value,
        kind="admin_alert",
        to_address=get_settings().admin_email,
        subject=f"[Tortuga admin] {name}: {subject}",
        text=text,
        message_id=new_message_id(),
        dedupe_key=key,
        created_at=now,
    )
    return row if insert_once(session, row) else None


def pending_outbox_ids(session: Session, *, limit: int | None = None) -> list[int]:
    """Ids of outbox rows not yet sent (oldest first), for the caller to enqueue."""
    query = select(OutboundMessage.id).where(
        OutboundMessage.status == OutboundStatus.PENDING
    ).order_by(col(OutboundMessage.id))
    if limit:
        query = query.limit(limit)
    return [i for i in session.exec(query).all() if i is not None]
