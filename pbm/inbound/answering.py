"""Answering a reply: what applying it did (``Outcome``), the REPLY message, the cap on
answers to replies that did nothing, and the note to mail that carried no seat's secret."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col

from pbm import deadlines, games, outbox, txcache
from pbm.config import Settings
from pbm.inbound.storage import EMAIL, InboundRow
from pbm.message_payloads import Reply
from pbm.messages import MessageKind
from pbm.models import CommandLog, Game, OutboundMessage, OutboundStatus, Player, Seat
from pbm.outbox import alert_admin
from pbm.outbox_rows import insert_once
from pbm.replies import ReplyResult
from pbm.replies.autoreply import body_is_automatic
from pbm.replies.parse_types import stored_reason


@dataclass
class Outcome:
    """What applying one reply did (for the REPLY message)."""

    #: Commands played, and what else was done (a changed vote: a stored reason).
    done: list[Any] | None = None
    #: ``{"command", "reason"}``: the reason stored as code and params (``Reason.to_dict``).
    rejected: list[dict[str, Any]] | None = None
    help: str | None = None
    log: bool = False
    result: dict[str, Any] | None = None
    told: bool = False  # the seat already got a fresh message in this transaction
    notes: list[str] | None = None
    #: The answers to settings (SETTINGS, ZONE, AWAY ...), stored as reasons.
    answers: list[Any] | None = None
    settled: bool = False  # the commands answered a question already settled

    def add_done(self, text: str) -> None:
        self.done = [*(self.done or []), stored_reason(text)]

    def reject(self, command: str, reason: str) -> None:
        self.rejected = [*(self.rejected or []),
                         {"command": command, "reason": stored_reason(reason)}]

    def needs_reply(self, parsed: ReplyResult, seat: int) -> bool:
        if parsed.not_understood or self.rejected or self.help is not None or self.log:
            return True
        if self.notes or self.answers:
            return True
        return not self.told


#: How an answer to a reply that did nothing is written (``may_answer_idle``).
FULL, BRIEF, NONE = "full", "brief", "none"


#: The fingerprint of every text that says it is automatic ("I'm driving ... (auto
#: reply)"): all such texts count as one, answered at most once a day.
AUTOMATIC = "automatic"


def idle_fingerprint(parsed: ReplyResult) -> str:
    """A short hash of what a reply that did nothing said (its lines, case and spaces
    folded): the same text again is how a robot without loop-guard headers shows. A text
    that says it is automatic is ``AUTOMATIC``, whatever its words."""
    said = [str(getattr(n, "line", "")) for n in getattr(parsed, "not_understood", [])]
    said += [str(x) for x in getattr(parsed, "ignored", [])]
    text = " ".join(" ".join(said).lower().split())
    if text and body_is_automatic(text):
        return AUTOMATIC
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def may_answer_idle(session: Session, game: Game, player: Player, row: InboundRow, now: datetime,
                     settings: Settings, fingerprint: str = "") -> str:
    """How to answer a reply that did nothing: ``NONE`` when the same text (or, for a text
    that says it is automatic, any such text) was answered in the last 24 hours; else
    ``FULL`` for the first
    ``not_understood_answers_per_sender_per_hour`` in an hour; past it ``BRIEF`` (a short
    answer: a person who keeps failing is never met with silence) unless the sender looks
    like a robot, which then gets ``NONE``: a robot's mail with loop-guard headers never
    gets here (``pbm.inbound.pipeline``), and one without them repeats itself, so a reply
    saying what one of this hour's answered replies said is a robot's. The admin is told
    (once a day) either way."""
    assert player.id is not None  # a stored row
    if fingerprint and _answered_today(session, player.id, fingerprint, now):
        alert_admin(session, game, f"{row.sender} keeps sending the same reply",
                    f"{row.sender} sent a reply that changed nothing and repeats one answered "
                    "in the last 24 hours (or says it is automatic): a robot, most likely. "
                    "It is kept but not answered again today, so it cannot loop with us. "
                    "Check the inbound messages of this sender on the admin site.",
                    now=now, dedupe=f"idle-cap:{player.id}:{now:%Y-%m-%d}")
        return NONE
    limit = settings.not_understood_answers_per_sender_per_hour
    keys = list(session.execute(sa.select(col(OutboundMessage.dedupe_key)).where(
        col(OutboundMessage.player_id) == player.id, col(OutboundMessage.kind) == MessageKind.REPLY,
        col(OutboundMessage.dedupe_key).like("%:nu%"),
        col(OutboundMessage.created_at) >= now - timedelta(hours=1))).scalars())
    answered = {key.rsplit(":", 1)[0] for key in keys}  # one answer, any channels
    sent = len(answered)
    if sent < limit:
        return FULL
    repeated = any(key.endswith(f":nu-{fingerprint}") for key in answered) or not fingerprint
    mode = NONE if repeated else BRIEF
    alert_admin(session, game, f"many replies from {row.sender} changed nothing",
                f"{row.sender} sent {sent + 1} replies in the last hour that changed nothing "
                f"(not understood, or empty). They got {sent} answers; past "
                f"{limit} the answers are short, and a reply that repeats an earlier one "
                "(a mail robot) is kept but not answered, so a robot cannot loop with us. "
                "Check the inbound messages of this sender on the admin site.",
                now=now, dedupe=f"idle-cap:{player.id}:{now:%Y-%m-%d}")
    return mode


def _answered_today(session: Session, player_id: int, fingerprint: str, now: datetime
                    ) -> bool:
    """True when a reply of this player saying ``fingerprint`` was answered in the last
    24 hours (a robot repeats itself; a person who writes something new is answered)."""
    return session.execute(sa.select(col(OutboundMessage.id)).where(
        col(OutboundMessage.player_id) == player_id,
        col(OutboundMessage.kind) == MessageKind.REPLY,
        sa.or_(col(OutboundMessage.dedupe_key).like(f"%:nu-{fingerprint}"),
               col(OutboundMessage.dedupe_key).like(f"%:nu-{fingerprint}:%")),  # :channel
        col(OutboundMessage.created_at) >= now - timedelta(hours=24)).limit(1)).first() is not None


def write_reply(session: Session, game: Game, seat: Seat, player: Player, row: InboundRow,
                parsed: ReplyResult, outcome: Outcome, now: datetime, suffix: str = "",
                 brief: bool = False) -> None:
    assert game.id is not None  # a stored row
    state = games.load_state(game) if game.state_json else None
    open_ones = [d for d in deadlines.open_deadlines(session, game.id, seat=seat.seat_index)
                 if d.kind != deadlines.INVITATION]
    # "undo", "sorry I meant 2" are lines no command reads: only then is the last move told
    last = _last_applied(session, game.id, seat.seat_index) \
        if parsed.not_understood or parsed.ignored else None
    payload = Reply(reply=parsed.to_dict(), done=tuple(outcome.done or ()),
                    rejected=tuple(outcome.rejected or ()), help=outcome.help,
                    log=outcome.log, answers=tuple(outcome.answers or ()),
                    result=outcome.result, brief=brief, last_applied=last or None)
    events = None
    if outcome.log:
        public = [e for e in outbox.events_for(session, game.id, seat.seat_index, limit=None)
                  if e.audience is None]
        events = public[-15:]
    # What the move did is said in this answer (``pbm.render``: "outcome"): the seat is
    # told those events, and its next message does not say them again.
    said = {e.get("seq") for e in (outcome.result or {}).get("events") or []}
    announced = [e for e in outbox.events_for(session, game.id, seat.seat_index,
                                              after=seat.last_event_seq, limit=None)
                 if e.seq in said] if said and not outcome.log else []
    outbox.notify(session, game, seat, player, payload, now=now, state=state,
                  dedupe=f"g{game.id}:s{seat.seat_index}:reply:in{row.id}{suffix}",
                  deadline=open_ones[0].due_at if open_ones else None,
                  events=events, announced=announced)


def _last_applied(session: Session, game_id: int, seat: int) -> str | None:
    """The seat's last applied command (to say that it is final when asked to undo it)."""
    written = txcache.memo(session).get(("last_command", game_id, seat))
    if written is not None:  # this transaction applied it (``pbm.txcache``)
        return str(written[1])

    return session.execute(sa.select(col(CommandLog.command)).where(
        col(CommandLog.game_id) == game_id, col(CommandLog.seat) == seat).order_by(
        col(CommandLog.seq).desc()).limit(1)).scalar()


def ask_to_answer_the_game(session: Session, sender: str, now: datetime) -> None:
    """A known player's mail carried no secret of theirs: tell them, at the address we have
    for them (never a Reply-To), to answer the game's email. At most once an hour, and
    nothing of the message is repeated (its From may be forged)."""
    player = session.execute(sa.select(Player).where(
        sa.func.lower(Player.email) == sender.lower()).order_by(col(Player.id)).limit(1)
    ).scalar()
    if player is None or not player.email or player.email_failing:
        return
    key = f"no-token:{player.id}:{now:%Y%m%d%H}"
    insert_once(session, OutboundMessage(
        player_id=player.id, channel=EMAIL, kind="notice", to_address=player.email,
        subject="Your email to Tortuga by Mail was not read",
        text=(f"Hello {player.display_name},\n\nAn email from your address reached Tortuga "
              "by Mail without answering one of your game's emails, so nothing in it was "
              "played.\n\nTo play, reply to the latest email of your game: its reply "
              "address is private to your seat.\n\nIf you did not send it, ignore this "
              "note.\n"),
        status=OutboundStatus.PENDING, attempts=0, dedupe_key=key, created_at=now))
