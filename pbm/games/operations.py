"""Operations beside the turns: the admin's pause, resume, extend, seat replacement, nudge
and preview, and a player's SAY and STATUS.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlmodel import Session

from pbm import deadlines, outbox, render
from pbm.deadlines import INVITATION
from pbm.games.base import (
    InvalidRequest,
    Result,
    WrongState,
    due_at_of,
    get_game,
    load_state,
    lock_game,
    make_result,
    policy_of,
    record_events,
    save_state,
    seat_of,
    seats_of,
    service_event,
    sync_deadlines,
    timing_of,
)
from pbm.games.lifecycle import invite
from pbm.games.players import PlayerSpec, new_token, upsert_player
from pbm.games.reminders import send_reminder
from pbm.humanize import duration
from pbm.hygiene import clean_text
from pbm.message_payloads import (
    Invitation,
    Notice,
    Paused,
    Resumed,
    SeatReplaced,
    Status,
    TableTalk,
    payload_for,
)
from pbm.messages import Channel, MessageContext, MessageKind, RenderedMessage
from pbm.models import Deadline, GameStatus, InvitationStatus, ServiceEventKind
from pbm.render import format_deadline
from pbm.replies.reasons import (
    AWAITED_DECISION,
    AWAITED_INVITATION,
    AWAITED_TURN,
    AWAITED_VOTE,
    MORE_HOUR,
    MORE_HOURS,
    MORE_TIME,
    NOT_LISTENING,
    SAY_NEEDS_TEXT,
    TAKEN_OVER,
    moment,
    seconds,
)

SAY_LIMIT = 500  # characters of one table-talk message


def pause(session: Session, game_id: int, reason: str, *, now: datetime) -> Result:
    """Stop the clock: deadlines freeze until ``resume``; every seat is told why."""
    game = lock_game(session, game_id)
    if game.status not in {GameStatus.RUNNING, GameStatus.INVITING}:
        raise WrongState(f"game {game.name!r} is {game.status}; only a running game pauses")
    reason = (reason or "paused by the admin").strip()[:500]
    game.status = GameStatus.PAUSED
    game.paused_at = now
    game.pause_reason = reason
    game.updated_at = now
    session.add(game)
    events = record_events(session, game, [service_event(ServiceEventKind.GAME_PAUSED,
                                                          f"The game is paused: {reason}")],
                           now=now)
    state = load_state(game) if game.state_json else None
    for seat, player in seats_of(session, game_id):
        outbox.notify(session, game, seat, player, Paused(reason=reason), now=now, state=state,
                      dedupe=f"g{game_id}:s{seat.seat_index}:paused:{events[0].seq}",
                      announced=events)
    return make_result(session, game, None, ok=True, state=state, message=f"{game.name} paused")


def resume(session: Session, game_id: int, *, now: datetime) -> Result:
    """Restart the clock: every open decision gets at least the time it had left when the
    game paused and never less than the policy's floor (``deadlines.resume_deadlines``); a
    decision left without a deadline (the "pause" timeout policy) gets a fresh one."""
    game = lock_game(session, game_id)
    if game.status != GameStatus.PAUSED:
        raise WrongState(f"game {game.name!r} is {game.status}, not paused")
    paused_for = now - (game.paused_at or now)
    policy = policy_of(game)
    zones = {s.seat_index: p.time_zone for s, p in seats_of(session, game_id)}
    deadlines.resume_deadlines(session, game_id, game.paused_at or now, now, policy,
                               lambda seat: zones.get(seat, "UTC") if seat is not None else "UTC")
    if game.started_at and game.state_json:
        sync_deadlines(session, game, load_state(game), policy, now)
    game.status = GameStatus.RUNNING if game.started_at else GameStatus.INVITING
    game.paused_at = None
    game.pause_reason = None
    game.updated_at = now
    session.add(game)
    events = record_events(session, game, [service_event(ServiceEventKind.GAME_RESUMED,
                                                          "The game goes on.")],
                           now=now)
    state = load_state(game) if game.state_json else None
    for seat, player in seats_of(session, game_id):
        outbox.notify(session, game, seat, player, Resumed(
                          paused_hours=round(paused_for.total_seconds() / 3600, 2)),
                      now=now, state=state,
                      dedupe=f"g{game_id}:s{seat.seat_index}:resumed:{events[0].seq}",
                      deadline=due_at_of(session, game_id, seat.seat_index), announced=events)
    return make_result(session, game, None, ok=True, state=state,
                       message=f"{game.name} resumed after {_hours(paused_for)}")


def _hours(delta: timedelta) -> str:
    return duration(delta)


def extend(session: Session, game_id: int, hours: float, *, now: datetime,
           seat: int | None = None) -> Result:
    """Give more time: the open deadlines (of one seat, or all) move later by ``hours``.

    Each awaited seat is told its new deadline in a short NOTICE (not in a paused game:
    its RESUMED message will carry the deadline as moved by the pause)."""
    if not 0 < hours <= 24 * 30:
        raise InvalidRequest("extend by 1 hour to 30 days")
    game = lock_game(session, game_id)
    if game.status in {GameStatus.FINISHED, GameStatus.ABORTED}:
        raise WrongState(f"game {game.name!r} is {game.status}")
    moved = deadlines.shift_open_deadlines(session, game_id, timedelta(hours=hours), seat=seat)
    if not moved:
        raise WrongState(f"game {game.name!r} has no open deadline"
                         + (f" for seat {seat + 1}" if seat is not None else ""))
    game.updated_at = now
    session.add(game)
    notified = []
    if game.status != GameStatus.PAUSED:
        for deadline in moved:
            if deadline.seat is None:
                continue
            seat_row, player = seat_of(session, game_id, deadline.seat)
            outbox.notify(
                session, game, seat_row, player,
                Notice(headline=_more_time_text(deadline, hours, player.time_zone)),
                now=now, recap=False, deadline=deadline.due_at,
                dedupe=f"g{game_id}:s{deadline.seat}:extended:{deadline.id}:"
                       f"{deadline.due_at.isoformat()}")
            notified.append(deadline.seat)
    return make_result(session, game, seat, ok=True, notified=notified,
                       message=f"{len(moved)} deadline(s) of {game.name} moved "
                           f"{_hours(timedelta(hours=hours))} later")


_AWAITED = {"ACTION": AWAITED_TURN, "VOTE": AWAITED_VOTE, INVITATION: AWAITED_INVITATION}


def _more_time_text(deadline: Deadline, hours: float, time_zone: str) -> str:
    """The NOTICE line: ``You have 24 more hours: your turn is now due <local> (<UTC>).``"""
    when = format_deadline(deadline.due_at, time_zone)
    assert when is not None
    said: dict[str, str | int] = {
        "what": _AWAITED.get(deadline.kind, AWAITED_DECISION)(), "until": when["local"],
        "until_at": moment(deadline.due_at, time_zone),
        "utc": "" if when["same"] else f" ({when['utc']})"}
    if hours == 1:
        return MORE_HOUR(**said)
    if hours == int(hours):
        return MORE_HOURS(n=f"{hours:g}", **said)
    span = timedelta(hours=hours)  # not "1.5 more hours"
    return MORE_TIME(span=_hours(span), span_seconds=seconds(span), **said)


def replace_seat(session: Session, game_id: int, seat_index: int, spec: PlayerSpec, *,
                 now: datetime) -> Result:
    """A new player takes over a seat and gets a briefing of everything that seat knew."""
    game = lock_game(session, game_id)
    if game.status in {GameStatus.FINISHED, GameStatus.ABORTED}:
        raise WrongState(f"game {game.name!r} is {game.status}")
    seat, old = seat_of(session, game_id, seat_index)
    new = upsert_player(session, spec)
    if any(p.id == new.id for _, p in seats_of(session, game_id)):
        raise InvalidRequest(f"{new.display_name} already plays in {game.name}")
    if any(spec.name.casefold() == p.display_name.casefold()
           for s, p in seats_of(session, game_id) if s.seat_index != seat_index):
        raise InvalidRequest(f"another player in {game.name} is already called {spec.name!r}")
    state = load_state(game) if game.state_json else None
    outbox.notify(session, game, seat, old, Notice(
                      headline=TAKEN_OVER(name=new.display_name, game=game.name),
                      you_were_replaced=True),
                  now=now, recap=False, state=state,
                  dedupe=f"g{game_id}:s{seat_index}:replaced:{seat.reply_token}")
    seat.replaced_player_ids = ",".join(x for x in [seat.replaced_player_ids, str(old.id)] if x)
    seat.player_id = new.id  # type: ignore[assignment]
    seat.reply_token = new_token()
    seat.thread_message_id = outbox.new_thread_id(game_id, seat_index)
    seat.thread_started = False
    session.add(seat)
    text = f"{new.display_name} takes over seat {seat_index + 1} from {old.display_name}."
    if state is not None:
        names = list(state.names)
        names[seat_index] = new.display_name
        state.names = tuple(names)
        save_state(game, state, now)
        session.add(game)
        session.flush()
        seat.invitation_status = InvitationStatus.JOINED
        for deadline in deadlines.open_deadlines(session, game_id, seat=seat_index):
            fresh = now + timedelta(hours=policy_of(game).hours_for(deadline.kind))
            if deadline.due_at < fresh:  # the newcomer gets a full window
                deadlines.shift_open_deadlines(session, game_id, fresh - deadline.due_at,
                                               seat=seat_index)
    else:
        seat.invitation_status = InvitationStatus.PENDING
    event = record_events(session, game, [service_event(ServiceEventKind.SEAT_REPLACED, text,
                                                         seat=seat_index)], now=now)[0]
    briefing_events = outbox.events_for(session, game_id, seat_index, limit=None)
    for other, player in seats_of(session, game_id):
        if other.seat_index == seat_index:
            if state is None:
                continue  # before the start the newcomer is simply invited
            outbox.notify(session, game, other, player,
                          SeatReplaced(old_name=old.display_name, briefing=True), now=now,
                          state=state, events=briefing_events,
                          dedupe=f"g{game_id}:s{seat_index}:briefing:{seat.reply_token}",
                          deadline=due_at_of(session, game_id, seat_index))
            other.last_event_seq = event.seq
        else:
            outbox.notify(session, game, other, player, Notice(headline=text), now=now,
                          state=state, recap=False, events=[event],
                          dedupe=f"g{game_id}:s{other.seat_index}:replaced:{event.seq}")
    if state is None and game.status == GameStatus.INVITING:
        invite(session, game_id, now=now)
    game.updated_at = now
    session.add(game)
    session.flush()
    return make_result(session, game, seat_index, ok=True, state=state, message=text)


def say(session: Session, game_id: int, seat_index: int, text: str | Sequence[str], *,
        now: datetime) -> Result:
    """Public table talk: relayed at once by email (and to SMS players who asked for it
    live); everyone else finds it in the recap of their next message. Several lines (of one
    reply) are one event each but one message per seat."""
    game = lock_game(session, game_id)
    if game.status not in {GameStatus.RUNNING, GameStatus.PAUSED, GameStatus.INVITING}:
        why = NOT_LISTENING(game=game.name, status=str(game.status))
        return make_result(session, game, seat_index, ok=False, code="game/over",
                           message=why, why=why.to_dict())
    _, speaker = seat_of(session, game_id, seat_index)
    lines = [" ".join(clean_text(t or "").split()) for t in
             ([text] if isinstance(text, str) else text)]
    lines = [t for t in lines if t]
    if not lines:
        why = SAY_NEEDS_TEXT(cmd="SAY")
        return make_result(session, game, seat_index, ok=False, code="request/invalid",
                           message=why, why=why.to_dict())
    cut = any(len(t) > SAY_LIMIT for t in lines)
    lines = [t[:SAY_LIMIT] for t in lines]
    talk = record_events(session, game, [service_event(
        ServiceEventKind.TABLE_TALK, f"{speaker.display_name}: {t}", seat=seat_index,
        name=speaker.display_name, text=t) for t in lines], now=now)
    event, text = talk[0], " / ".join(lines)
    notified = []
    for other, player in seats_of(session, game_id):
        if other.seat_index == seat_index:
            continue
        if not outbox.hears_talk_live(player):
            continue  # folded into its next message (``Common.table_talk``)
        outbox.notify(session, game, other, player,
                      TableTalk(speaker=speaker.display_name, text=text), now=now,
                      events=talk, dedupe=f"g{game_id}:s{other.seat_index}:talk:{event.seq}")
        notified.append(other.seat_index)
    message = "relayed to the table" + (f" (cut to {SAY_LIMIT} characters)" if cut else "")
    return make_result(session, game, seat_index, ok=True, done=["SAY"], notified=notified,
                       message=message)


def status(session: Session, game_id: int, seat_index: int, *, now: datetime,
           dedupe: str | None = None) -> Result:
    """A player's STATUS: their full picture again (board, secrets, what is awaited)."""
    game = lock_game(session, game_id)
    seat, player = seat_of(session, game_id, seat_index)
    state = load_state(game) if game.state_json else None
    outbox.notify(session, game, seat, player, Status(), now=now, state=state,
                  dedupe=f"g{game_id}:s{seat_index}:status:{dedupe or now.isoformat()}",
                  deadline=due_at_of(session, game_id, seat_index))
    return make_result(session, game, seat_index, ok=True, state=state, done=["STATUS"],
                       notified=[seat_index], message="your status is on its way")


def preview(session: Session, game_id: int, seat_index: int, channel: Channel | None = None
            ) -> tuple[MessageContext, RenderedMessage]:
    """The exact message this seat would get now (its PROMPT, else its STATUS), rendered
    for its channel; nothing is written."""
    game = get_game(session, game_id)
    seat, player = seat_of(session, game.id, seat_index)  # type: ignore[arg-type]
    state = load_state(game) if game.state_json else None
    decision = state.decision_id(seat_index) if state is not None else None
    kind = MessageKind.PROMPT if decision else MessageKind.STATUS
    if game.status in {GameStatus.CREATED, GameStatus.INVITING}:
        kind = MessageKind.INVITATION
    payload = Invitation(respond_by_hours=policy_of(game).invitation_hours,
                         timing=timing_of(policy_of(game))) \
        if kind is MessageKind.INVITATION else payload_for(kind)
    ctx = outbox.build_context(
        session, game, seat, player, payload, state=state,
        deadline=due_at_of(session, game.id, seat_index),  # type: ignore[arg-type]
    )
    channels = outbox.channels_for(player)
    chosen = channel or (channels[0] if channels else Channel.EMAIL)
    return ctx, render.render(ctx, chosen)


def nudge(session: Session, game_id: int, *, now: datetime) -> int:
    """Remind every awaited seat now (the admin's "nudge"); returns how many reminders
    were written.

    Each counts as the deadline's next scheduled reminder (a nudge never doubles the
    schedule) and ignores the quiet hours: the admin asked for it now.
    """
    game = lock_game(session, game_id)
    if game.status not in {GameStatus.RUNNING, GameStatus.INVITING}:
        raise WrongState(f"game {game.name!r} is {game.status}: nobody is awaited")
    report = deadlines.SweepReport()
    for deadline in deadlines.open_deadlines(session, game_id):
        if deadline.seat is not None:
            send_reminder(session, deadline, now, report)
    return len(report.reminders) + len(report.final_warnings)
