"""Applying a routed reply through ``pbm.games``: commands (submit), meta commands,
players' settings, SAY and its limits, SMS opt-out, and what a bounce does."""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime, timedelta
from email.message import Message
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col

import engine
from engine.reasons import Reason, as_reason
from pbm import deadlines, games, logs, metrics, outbox, player_settings
from pbm.config import Settings
from pbm.inbound.answered import Answered, answered_question, answers_table_talk, is_stale
from pbm.inbound.answering import Outcome, idle_fingerprint, may_answer_idle, write_reply
from pbm.inbound.mail_headers import bounce_details
from pbm.inbound.storage import EMAIL, InboundRow
from pbm.inbound.work import Disposition, Work
from pbm.models import (
    CommandLog,
    Game,
    GameEvent,
    InvitationStatus,
    OutboundMessage,
    Player,
    Seat,
    ServiceEventKind,
)
from pbm.outbox import alert_admin
from pbm.replies import ReplyResult, parse_extracted
from pbm.replies import reasons as R
from pbm.replies.changes import final_action_reason, is_turn_action, vote_change
from pbm.replies.parse_types import Meta, NotUnderstood, stored_reason
from pbm.replies.sentence import verb_start
from pbm.replies.words import tokens

log = logging.getLogger(__name__)

#: the answer to a command under a message whose question is closed (the menu follows it)
SETTLED = R.SETTLED()
#: a bare menu number (``6``, ``#2``, ``3.``): it means an option of the message answered
_MENU_PICK = re.compile(r"\W{0,3}\d{1,2}\W{0,3}")


def parse_reply(work: Work) -> Disposition:
    """Lock the game, read the extracted text for the seat's view of it (an open invitation:
    YES / NO answer it). Text that breaks the reader, or a phone reaction, ends here."""
    routed, row = work.routed, work.stored
    assert routed is not None and work.extracted is not None
    work.answered = answered_question(work.session, row, routed, work.message)
    work.table_talk = answers_table_talk(work.session, row, work.message, routed)
    game = work.game = games.lock_game(work.session, routed.game_id)  # once: games finds it locked
    logs.bind(game_id=game.id, seat=routed.seat_index)  # on every log line from here on
    # The seat and its player as the lock leaves them (``routed`` was read before it).
    seat, player = games.seat_of(work.session, routed.game_id, routed.seat_index)
    if seat.player_id != routed.player_id:  # the seat changed hands before the lock
        return work.finish_at_seat(Disposition.IGNORED, f"sender {row.sender} is no "
                                   "longer the player of this seat")
    work.seat, work.player = seat, player
    state = work.state = games.load_state(game) if game.state_json else None
    view = engine.view(state, seat.seat_index).to_dict() if state is not None else None
    invited = state is None and seat.invitation_status in (
        InvitationStatus.PENDING.value, InvitationStatus.INVITED.value)
    try:
        parsed = work.parsed = parse_extracted(
            work.extracted, view, invited=invited, max_lines=work.settings.reply_max_lines,
            max_bytes=work.settings.reply_max_bytes)
    except READER_ERRORS as exc:
        return unreadable(work, exc)
    if parsed.reaction:  # a tapback on one of our messages: not an answer, and not answered
        return work.finish_at_seat(Disposition.IGNORED,
                                   "a phone reaction to a message, not a reply")
    return Disposition.CONTINUE


#: What the sender's bytes may make the reader raise: the reply is refused (a reader bug is
#: logged, not a reason to set the message aside for the admin or to retry it).
READER_ERRORS = (ValueError, LookupError, TypeError, AttributeError, IndexError, KeyError,
                 UnicodeError, RecursionError)


def unreadable(work: Work, exc: Exception) -> Disposition:
    """End a reply whose text broke the reader (``READER_ERRORS``)."""
    log.exception("inbound message %s: reply unreadable", work.stored.id)
    return work.finish_at_seat(Disposition.IGNORED,
                               f"unreadable reply: {type(exc).__name__}: {exc}"[:4000])


def apply_reply(work: Work) -> Disposition:
    """Apply what the player said through ``pbm.games``: their settings first (the prompt
    the commands trigger uses them), the commands (refused when they answer a question
    settled since), what they took back, the other meta commands, and SAY within limits."""
    session, row, game, seat, player, state, parsed, now, outcome = (
        work.session, work.stored, work.game, work.seat, work.player, work.state, work.parsed,
        work.now, work.outcome)
    assert game is not None and seat is not None and player is not None and parsed is not None
    says = [meta for meta in parsed.meta if meta.name == "SAY"]
    allowed = _say_allowance(session, player, now, work.settings) if says else 0
    relayed = work.relayed = says[:allowed]
    for meta in parsed.meta:  # settings first: the prompt the commands trigger uses them
        if meta.name == "SET":
            _meta(session, row, game, seat, player, meta, now, outcome)
    if work.table_talk:
        _not_for_the_menu(parsed)
    if state is not None and _settled(session, row, game, seat, state, work.answered):
        _refuse_as_settled(parsed, outcome, _final(session, game, seat, state, parsed))
    elif parsed.understood:
        _submit(session, row, game, seat, state, parsed, now, outcome)
    for taken in parsed.retracted:
        outcome.reject(taken.display, R.TOOK_BACK(word=taken.marker))
    for meta in parsed.meta:
        if meta.name not in ("SAY", "SET"):
            _meta(session, row, game, seat, player, meta, now, outcome)
    if relayed:
        _say(session, game, seat, relayed, now, outcome)
    if len(says) > len(relayed):
        settings = work.settings
        left = says[len(relayed)]
        more = len(says) - len(relayed) - 1
        outcome.reject(f"SAY {left.arg}" + (f" (and {more} more SAY lines)" if more else ""),
                       R.SAY_LIMIT(n=settings.say_per_reply, m=settings.say_per_hour))
    return Disposition.CONTINUE


#: the answer to a bare number or name written in reply to relayed table talk
TABLE_TALK_PICK = R.TABLE_TALK_PICK


def _not_for_the_menu(parsed: ReplyResult) -> None:
    """A reply to relayed table talk answers another player's words ("2 or 4?" - "4"): its
    bare numbers and names are not options of the seat's menu. Full commands still count."""
    for understood in list(parsed.understood):
        toks = tokens(understood.line)
        if verb_start(toks) is None:
            parsed.understood.remove(understood)
            parsed.not_understood.append(NotUnderstood(
                understood.line, TABLE_TALK_PICK(cmd=understood.display),
                understood.display))


def answer_reply(work: Work) -> Disposition:
    """The REPLY message, when the reply needs one (a reply that did nothing is answered
    briefly, then not at all: ``_may_answer_idle``); the row is done."""
    session, row, game, seat, player, parsed, now, outcome = (
        work.session, work.stored, work.game, work.seat, work.player, work.parsed, work.now,
        work.outcome)
    assert game is not None and seat is not None and player is not None and parsed is not None
    if outcome.needs_reply(parsed, seat.seat_index):
        # An answer to a reply that did nothing (a retraction is not nothing: it is told).
        idle = not (parsed.understood or parsed.meta or parsed.retracted)
        mode = may_answer_idle(session, game, player, row, now, work.settings,
                               idle_fingerprint(parsed)) if idle else "full"
        if mode != "none":
            write_reply(session, game, seat, player, row, parsed, outcome, now,
                         suffix=f":nu-{idle_fingerprint(parsed)}" if idle else "",
                         brief=mode == "brief")
        else:  # a robot repeating itself: kept, not answered
            metrics.guard_tripped(metrics.Guard.NOT_UNDERSTOOD_CAP)
    metrics.note_reply(bool(outcome.done), bool(outcome.rejected),
                       bool(parsed.understood or parsed.meta), channel=row.channel,
                       game_id=game.id, seat=seat.seat_index)
    return work.finish_at_seat(Disposition.DONE)


def _say_allowance(session: Session, player: Player, now: datetime, settings: Settings
                   ) -> int:
    """How many SAY lines this player may still relay now: ``say_per_reply``, less what
    they said at any of their tables in the last hour over ``say_per_hour``."""
    assert player.id is not None  # a stored row
    seats = {(s.game_id, s.seat_index) for s in session.execute(
        sa.select(Seat).where(col(Seat.player_id) == player.id)).scalars()}
    talk = session.execute(
        sa.select(col(GameEvent.game_id), col(GameEvent.data_json))
        .where(col(GameEvent.kind) == ServiceEventKind.TABLE_TALK,
               col(GameEvent.created_at) >= now - timedelta(hours=1),
               col(GameEvent.game_id).in_(sorted({g for g, _ in seats})))).all()
    said = sum(1 for game_id, data in talk
               if (game_id, json.loads(data or "{}").get("seat")) in seats)
    return max(0, min(settings.say_per_reply, settings.say_per_hour - said))


def _say(session: Session, game: Game, seat: Seat, says: list[Meta], now: datetime,
         outcome: Outcome) -> None:
    """Relay the reply's SAY lines together: one table-talk message per other seat."""
    assert game.id is not None  # a stored row
    result = games.say(session, game.id, seat.seat_index, [m.arg for m in says], now=now)
    for meta in says:
        shown = f"SAY {meta.arg}" + (" (cut)" if meta.truncated else "")
        if result.ok:
            outcome.add_done(shown)
        else:
            outcome.reject(shown, as_reason(result.why) or result.message)


def _settled(session: Session, row: InboundRow, game: Game, seat: Seat, state: engine.GameState,
             answered: Answered | None) -> bool:
    """True when the reply answers a question that is no longer open (an older message, or
    one sent before the question open now was asked)."""
    assert game.id is not None  # a stored row
    if answered is not None:
        stale = is_stale(answered, state)
    else:
        decision = state.decision_id(seat.seat_index)
        opened = [d for d in deadlines.open_deadlines(session, game.id, seat=seat.seat_index)
                  if decision is not None and d.decision_key == decision]
        # The question now open was asked after this reply arrived: it answers an older one.
        stale = bool(opened) and opened[0].created_at > row.received_at
    if stale:
        log.info("inbound message %s answers question %s, settled (now stage %s)", row.id,
                 answered.question if answered else "asked before", state.stage_serial)
    return stale


def _refuse_as_settled(parsed: ReplyResult, outcome: Outcome, final: dict[int, str]) -> None:
    """Nothing of a settled question's answer is played: its commands and its bare menu
    numbers are answered with ``SETTLED`` (the open question's menu follows); a correction
    of a turn action already played is told that it is final (``final``, by index)."""
    for index, understood in enumerate(parsed.understood):
        outcome.reject(understood.display, final.get(index, SETTLED))
    picks = [n for n in parsed.not_understood if _MENU_PICK.fullmatch(n.line)]
    for pick in picks:
        outcome.reject(pick.line.strip(), SETTLED)
    parsed.not_understood[:] = [n for n in parsed.not_understood if n not in picks]
    outcome.settled = True


def _submit(session: Session, row: InboundRow, game: Game, seat: Seat,
            state: engine.GameState | None, parsed: ReplyResult,
            now: datetime, outcome: Outcome) -> None:
    assert game.id is not None  # a stored row
    texts = [u.text for u in parsed.understood]
    shown = {u.text: u.display for u in parsed.understood}
    if state is None:
        for text in texts:
            outcome.reject(shown[text], R.NOT_STARTED())
        return
    texts, done_as = _changes_of_mind(session, game, seat, state, parsed, outcome)
    if not texts:
        return
    for text, meant in only_readings(texts, state, seat.seat_index).items():
        texts = [meant if t == text else t for t in texts]
        shown[meant] = meant
        done_as[meant] = meant
    decision = state.decision_id(seat.seat_index)
    read_as = {u.text: u.display + (f" ({u.note})" if R.mentions(u.note, R.INSTEAD_OF) else "")
               for u in parsed.understood}
    outbox.fold_into_next(session, game.id, seat.seat_index,
                          read_as=[done_as.get(t) or read_as.get(t, t) for t in texts])
    result = games.submit(session, game.id, seat.seat_index, texts, origin=f"inbound:{row.id}",
                          now=now, decision_id=decision, inbound_message_id=row.id)
    outbox.was_folded(session, game.id, seat.seat_index)
    outcome.result = result.to_dict()
    shown.update({t: shown.get("VOTE " + t.split(maxsplit=1)[1], t) for t in done_as})
    for text in result.done:
        outcome.add_done(done_as.get(text) or shown.get(text, text))
    for refused in result.not_done:
        reason = as_reason(refused.get("why")) or refused["reason"]
        if refused["command"] in done_as:  # a changed vote: why, without the command
            inner = reason.params.get("reason") if isinstance(reason, Reason) else None
            reason = R.NOTHING_CHANGED(reason=inner if isinstance(inner, Reason) else reason)
        outcome.reject(shown.get(refused["command"], refused["command"]), reason)
    for text in result.ignored:
        outcome.reject(shown.get(text, text), R.NOT_TRIED())
    if not result.done and not result.not_done and result.message:
        for text in texts:
            outcome.reject(shown.get(text, text), as_reason(result.why) or result.message)
    if seat.seat_index in result.notified:
        outcome.told = True


def _changes_of_mind(session: Session, game: Game, seat: Seat, state: engine.GameState,
                     parsed: ReplyResult, outcome: Outcome) -> tuple[list[str], dict[str, str]]:
    """The texts to submit, and how a changed vote is told. A VOTE from a seat that has
    voted in the vote still open changes its vote (``REVOTE``); a correction of an earlier
    reply's turn action is refused in plain words (turn actions are final once applied)."""
    view = engine.view(state, seat.seat_index).to_dict()
    final = _final(session, game, seat, state, parsed)
    texts: list[str] = []
    done_as: dict[str, str] = {}
    for index, understood in enumerate(parsed.understood):
        change = vote_change(understood.text, view)
        if change is not None:
            texts.append(change[0])
            done_as[change[0]] = change[1]
        elif index in final:
            outcome.reject(understood.display, final[index])
        elif _vote_closed(session, game, seat, state, understood.text):
            outcome.reject(understood.display, VOTE_CLOSED)
        else:
            texts.append(understood.text)
    return texts, done_as


#: A vote changed after the vote closed (issue 37), instead of "nothing is awaited".
VOTE_CLOSED = R.VOTE_CLOSED()


def _vote_closed(session: Session, game: Game, seat: Seat, state: engine.GameState,
                 text: str) -> bool:
    """True for a VOTE from a seat that voted last and has no vote open now."""
    if not text.startswith("VOTE ") or any(
            d.seat == seat.seat_index and d.kind is engine.DecisionKind.VOTE
            for d in engine.pending(state)):
        return False
    assert game.id is not None  # a stored row
    last = _last_command(session, game.id, seat.seat_index)
    return bool(last and last.startswith(("VOTE ", "REVOTE ")))


def _final(session: Session, game: Game, seat: Seat, state: engine.GameState,
           parsed: ReplyResult) -> dict[int, str]:
    """Why each correction of an earlier reply's turn action changes nothing (by index in
    ``parsed.understood``): the seat's turn action was played, and it is final."""
    assert game.id is not None  # a stored row
    corrections = [i for i, u in enumerate(parsed.understood)
                   if u.correction and is_turn_action(u.text)]
    last = _last_command(session, game.id, seat.seat_index) if corrections else None
    if not last or not is_turn_action(last):
        return {}
    reason = final_action_reason(last, engine.view(state, seat.seat_index).to_dict())
    return dict.fromkeys(corrections, reason)


def _last_command(session: Session, game_id: int, seat: int) -> str | None:
    """The seat's last applied command (canonical text), if any."""
    return session.execute(
        sa.select(col(CommandLog.command)).where(col(CommandLog.game_id) == game_id,
                                                 col(CommandLog.seat) == seat)
        .order_by(col(CommandLog.seq).desc()).limit(1)).scalar()


def only_readings(texts: list[str], state: engine.GameState, seat: int) -> dict[str, str]:
    """Commands whose verb is not the one asked but whose only legal reading is plain
    (issue 37): ``REVEAL 3`` while forced to choose between cards 3 and 4 can only mean
    ``CHOOSE 3``. Returns command -> the command it means."""
    legal = {str(c) for d in engine.pending(state) if d.seat == seat
             and d.kind is engine.DecisionKind.CHOOSE for c in d.legal}
    out = {}
    for text in texts:
        verb, _sep, rest = text.partition(" ")
        if verb == "REVEAL" and f"CHOOSE {rest}" in legal:
            out[text] = f"CHOOSE {rest}"
    return out


#: The answer to STOP by email (issue 37): it changes nothing, and says what does.
STOP_BY_EMAIL = R.STOP_BY_EMAIL(stop="STOP", away="AWAY 3 days")


def _meta(session: Session, row: InboundRow, game: Game, seat: Seat, player: Player, meta: Meta,
          now: datetime, outcome: Outcome) -> None:
    assert game.id is not None  # a stored row
    name = meta.name
    if name == "HELP":
        outcome.help = meta.arg or ""
    elif name == "LOG":
        outcome.log = True
    elif name == "STATUS":
        games.status(session, game.id, seat.seat_index, now=now, dedupe=f"in{row.id}")
        outcome.told = True
    elif name in ("JOIN", "DECLINE"):
        result = games.respond(session, game.id, seat.seat_index, join=name == "JOIN", now=now)
        if result.ok:
            outcome.add_done(name)
            outcome.told = outcome.told or seat.seat_index in result.notified
        else:
            outcome.reject(name, as_reason(result.why) or result.message)
    elif name == "STOP" and row.channel == EMAIL and meta.line.strip().lower().startswith(
            "cancel"):  # "cancel" in an email is not a request to stop text messages
        outcome.reject("cancel", R.NOTHING_TO_CANCEL(stop="STOP"))
    elif name == "STOP" and row.channel == EMAIL:  # by email it would stop texts unseen
        outcome.reject(name, STOP_BY_EMAIL)
    elif name in ("STOP", "START"):
        if not player.phone:
            outcome.reject(name, R.NO_PHONE(stop="STOP", start="START"))
            return
        set_sms_opt_out(session, player, name == "STOP", now)
        outcome.add_done(name)
        outcome.notes = [*(outcome.notes or []), name]
    elif name == "SET":  # a player's own setting: pbm.player_settings

        try:
            outcome.answers = [*(outcome.answers or []),
                               stored_reason(player_settings.apply(session, player, meta.arg,
                                                            now))]
        except player_settings.SettingError as exc:
            outcome.reject(meta.arg, exc.reason)


def set_sms_opt_out(session: Session, player: Player, stop: bool, now: datetime) -> None:
    assert player.id is not None  # a stored row
    if bool(player.sms_opted_out) == stop:
        return
    player.sms_opted_out = stop
    if stop and player.email:
        player.preferred_channel = "email"
    session.add(player)
    session.flush()
    what = "stopped" if stop else "resumed"
    alert_admin(session, None, f"{player.display_name} {what} text messages",
                f"{player.display_name} ({player.phone}) sent "
                f"{'STOP' if stop else 'START'}: text messages are {what}"
                + ("; email takes over." if stop and player.email else "."),
                now=now, dedupe=f"sms-opt:{player.id}:{what}:{now.isoformat()}")


def handle_bounce(session: Session, message: Message, now: datetime) -> str:
    """Mark the bounced player's email as failing and tell the admin; what was done."""
    outbox_id, failed = bounce_details(message)
    players: list[Any] = []
    if outbox_id is not None:
        row = session.get(OutboundMessage, outbox_id)
        if row is not None and row.player_id is not None and row.channel == EMAIL:
            players.append(session.get(Player, row.player_id))
    if not players and failed:
        players = list(session.execute(sa.select(Player).where(
            sa.func.lower(Player.email).in_(sorted(failed)))).scalars())
    players = [p for p in players if p is not None]
    for player in players:
        if not player.email_failing:
            player.email_failing = True
            session.add(player)
            alert_admin(session, None, f"email to {player.display_name} bounced",
                        f"Mail to {player.email} ({player.display_name}) bounced; the address "
                        "is marked as failing. Fix it or reach the player another way.",
                        now=now, dedupe=f"bounce:{player.id}:{player.email}")
    session.flush()
    if not players:
        return "no known recipient"
    return "marked failing: " + ", ".join(str(p.email) for p in players)
