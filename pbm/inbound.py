"""Everything a player sends us, by any channel, through one code path.

1. **Store raw first** (``store_email``, ``store_sms``): one row per provider message id,
   so a webhook retried by the provider, or a mail seen by IMAP and a webhook alike, is kept
   once. Storing never parses more than the headers it needs and never fails on bad input.
2. **Process** (``process``), in a worker, safe to run twice: claim the row, drop what must
   never be treated as a command (auto-replies, bounces, lists, our own mail), route it to a
   seat by reply token (email) or phone number (SMS), check the sender, extract and parse
   the player's own text, apply it through ``pbm.games``, and answer with a REPLY message.
   Applying and marking the row done happen in one transaction: a reply is applied once.
   A message whose processing crashes is quarantined with its error for the admin.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from pbm.config import Settings, get_settings

log = logging.getLogger(__name__)

EMAIL = "email"
SMS = "sms"
_BASE64_PREFIX = "base64:"


# ------------------------------------------------------------------------------ raw storage


def encode_raw(raw: bytes) -> str:
    """Raw bytes as storable text: UTF-8 when it is, else base64 behind a prefix (lossless)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or "\x00" in text or text.startswith(_BASE64_PREFIX):
        return _BASE64_PREFIX + base64.b64encode(raw).decode("ascii")
    return text


def decode_raw(stored: str) -> bytes:
    """The exact bytes ``encode_raw`` was given."""
    if stored.startswith(_BASE64_PREFIX):
        return base64.b64decode(stored[len(_BASE64_PREFIX):])
    return stored.encode("utf-8")


def parse_email(raw: bytes) -> EmailMessage:
    """A parsed message; never raises (defects are recorded on the message).

    A message nested deeper than the parser's stack allows is read for its headers only
    (``pbm.hygiene`` refuses it; storing it still needs its sender and Message-ID).
    """
    from pbm.hygiene import MAX_PARSED_CONTAINERS, container_count

    try:
        if container_count(raw) <= MAX_PARSED_CONTAINERS:
            return message_from_bytes(raw, policy=policy.default)  # type: ignore[return-value]
    except (RecursionError, MemoryError, ValueError, TypeError, LookupError):
        pass
    return parse_headers(raw)


def parse_headers(raw: bytes) -> EmailMessage:
    """The message's headers only (the body is neither parsed nor copied); never raises."""
    from email.parser import BytesParser

    ends = [i for i in (raw.find(b"\n\n"), raw.find(b"\n\r\n")) if i != -1]
    head = raw[:min(ends) + 1] if ends else raw
    try:
        return BytesParser(policy=policy.default).parsebytes(  # type: ignore[return-value]
            head, headersonly=True)
    except Exception:
        return EmailMessage()


def header(message: Message, name: str) -> str:
    """A header's value as a string, '' when absent or unreadable."""
    try:
        value = message.get(name)
    except Exception:  # a malformed header must not stop us
        return ""
    return str(value).strip() if value is not None else ""


def email_address(value: str) -> str:
    """The bare, lower-cased address of a header value ('' if there is none)."""
    return parseaddr(value)[1].strip().lower()


def email_provider_id(message: Message, raw: bytes) -> str:
    """The Message-ID, or a digest of the bytes for mail without one."""
    message_id = header(message, "Message-ID").strip()
    if message_id:
        return message_id[:255]
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def recipient_addresses(message: Message) -> list[str]:
    """Every address the message was sent to, delivery headers first."""
    values = [header(message, name) for name in
              ("Delivered-To", "X-Original-To", "Envelope-To", "To", "Cc")]
    return [addr.lower() for _name, addr in getaddresses([v for v in values if v]) if addr]


@dataclass(frozen=True)
class Stored:
    """The stored row's id, and whether this delivery created it (False: a duplicate)."""

    id: int
    created: bool


def store(session: Session, *, channel: str, provider_id: str, sender: str, recipient: str,
          raw: str, now: datetime) -> Stored:
    """Insert one inbound row unless the provider id is already there; commit is the caller's."""
    from pbm.hygiene import clean_line
    from pbm.models import InboundMessage, InboundStatus

    table = InboundMessage.__table__  # type: ignore[attr-defined]
    provider_id = clean_line(provider_id)[:255] or "sha256:" + hashlib.sha256(
        raw.encode("utf-8", "surrogatepass")).hexdigest()
    values = {"channel": channel, "provider_message_id": provider_id,
              "sender": clean_line(sender)[:320], "recipient": clean_line(recipient)[:320],
              "raw": raw,
              "received_at": now, "status": InboundStatus.NEW.value, "attempts": 0}
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
    statement = insert(table).values(**values).on_conflict_do_nothing(
        index_elements=["channel", "provider_message_id"]).returning(table.c.id)
    new_id = session.execute(statement).scalar()
    if new_id is not None:
        return Stored(int(new_id), True)
    existing = session.execute(
        sa.select(table.c.id).where(table.c.channel == channel,
                                    table.c.provider_message_id == provider_id)
    ).scalar_one()
    return Stored(int(existing), False)


def store_email(session: Session, raw: bytes, now: datetime) -> Stored:
    """Keep one raw email (from IMAP or the webhook), once per Message-ID (its headers are
    all that is read here)."""
    message = parse_headers(raw)
    settings = get_settings()
    recipients = recipient_addresses(message)
    domain = "@" + settings.mail_domain.lower()
    ours = [a for a in recipients if a.endswith(domain)]
    return store(session, channel=EMAIL, provider_id=email_provider_id(message, raw),
                 sender=email_address(header(message, "From")),
                 recipient=(ours or recipients or [""])[0], raw=encode_raw(raw), now=now)


def store_sms(session: Session, form: Mapping[str, str], now: datetime) -> Stored:
    """Keep one inbound SMS webhook (Twilio's form fields), once per MessageSid."""
    sid = str(form.get("MessageSid") or form.get("SmsSid") or "")
    raw = json.dumps(dict(form), sort_keys=True)
    if not sid:
        sid = "sha256:" + hashlib.sha256(raw.encode()).hexdigest()
    return store(session, channel=SMS, provider_id=sid, sender=str(form.get("From", "")),
                 recipient=str(form.get("To", "")), raw=raw, now=now)


# ------------------------------------------------------------------------------ loop guard

_LOOP_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
_NULL_SENDERS = re.compile(r"^(?:mailer-daemon|postmaster|no-?reply|noreply)@", re.IGNORECASE)


def is_bounce(message: Message) -> bool:
    """A delivery status notification (multipart/report), or a bounce from MAILER-DAEMON."""
    if message.get_content_type() == "multipart/report":
        return True
    sender = email_address(header(message, "From"))
    if not sender.startswith("mailer-daemon@"):
        return False
    try:
        return "delivery-status" in str(message).lower()
    except Exception:  # a message that cannot be written back out is no report of ours
        return False


def automatic_reason(message: Message, settings: Settings) -> str | None:
    """Why this email must never be treated as a player's command, or None if it may be."""
    if is_bounce(message):
        return "bounce"
    auto_submitted = header(message, "Auto-Submitted").lower()
    if auto_submitted and auto_submitted != "no":
        return f"Auto-Submitted: {auto_submitted}"
    for name in ("X-Autoreply", "X-Autorespond"):
        if header(message, name):
            return f"{name} header"
    precedence = header(message, "Precedence").lower()
    if precedence in _LOOP_PRECEDENCE:
        return f"Precedence: {precedence}"
    if header(message, "List-Id") or header(message, "List-Unsubscribe"):
        return "mailing list"
    return_path = header(message, "Return-Path")
    if return_path and email_address(return_path) == "" and "<>" in return_path.replace(" ", ""):
        return "null sender"
    sender = email_address(header(message, "From"))
    if not sender:
        return "no sender"
    if _NULL_SENDERS.match(sender):
        return f"system sender {sender}"
    if sender.endswith("@" + settings.mail_domain.lower()) or header(message, "X-Tortuga-Outbox"):
        return "our own message"
    return None


_FINAL_RECIPIENT = re.compile(r"^(?:final|original)-recipient:\s*(?:rfc822;)?\s*(\S+)",
                              re.IGNORECASE | re.MULTILINE)
_VERP = re.compile(r"^bounces\+(?:outbox-)?(\d+)@", re.IGNORECASE)


def bounce_details(message: Message) -> tuple[int | None, set[str]]:
    """From a bounce: the outbox id named by our VERP address, and the failed recipients."""
    outbox_id = None
    for addr in recipient_addresses(message):
        match = _VERP.match(addr)
        if match:
            outbox_id = int(match.group(1))
            break
    failed: set[str] = set()
    for part in message.walk():
        if part.get_content_type() in ("message/delivery-status", "text/plain"):
            try:
                text = part.as_string() if part.is_multipart() else str(
                    part.get_payload(decode=True) or b"", "utf-8", "replace")
            except Exception:
                continue
            if part.get_content_type() == "message/delivery-status":
                text = "\n".join(str(p) for p in (part.get_payload() or []))
            failed.update(m.strip("<>").lower() for m in _FINAL_RECIPIENT.findall(text))
    return outbox_id, failed


# ------------------------------------------------------------------------------ processing

#: a message whose processing was started this many times without finishing (the worker
#: died each time) is quarantined instead of being tried again
MAX_PROCESS_ATTEMPTS = 5
ACTIVE_GAMES = ("running", "inviting", "paused", "created")


def _inbound_table() -> sa.Table:
    from pbm.models import InboundMessage

    return InboundMessage.__table__  # type: ignore[attr-defined, no-any-return]


def process(inbound_id: int, now: datetime) -> str:
    """Process one stored message at most once; returns what became of it.

    Claims the row (``new`` -> ``processing``), then applies it in one transaction that
    also marks it ``done`` or ``ignored``. Transient database errors release the row and
    propagate (the task retries); any other error quarantines the message.
    """
    from pbm.db import is_conflict, run_transaction

    settings = get_settings()
    claimed = run_transaction(lambda s: _claim(s, inbound_id, now, settings))
    if claimed is None:
        return "skipped"
    if claimed.attempts > MAX_PROCESS_ATTEMPTS:
        quarantine(inbound_id, f"processing was interrupted {claimed.attempts - 1} times "
                               "(the worker died each time)", now)
        return "quarantined"
    try:
        return str(run_transaction(lambda s: _handle(s, inbound_id, now, settings)))
    except Exception as exc:
        if is_conflict(exc) or isinstance(exc, sa.exc.OperationalError | sa.exc.InterfaceError):
            _release(inbound_id)
            raise
        log.exception("inbound message %s quarantined", inbound_id)
        quarantine(inbound_id, f"{type(exc).__name__}: {exc}", now)
        return "quarantined"


def _claim(session: Session, inbound_id: int, now: datetime, settings: Settings) -> Any | None:
    """``new`` -> ``processing`` with a lease (``claimed_at``); ``processed_at`` is set only
    when the message is finished (done, ignored or quarantined)."""
    table = _inbound_table()
    return session.execute(
        sa.update(table)
        .where(table.c.id == inbound_id)
        .where(sa.or_(table.c.status == "new",
                      sa.and_(table.c.status == "processing",
                              _lease_expired(table, now, settings))))
        .values(status="processing", attempts=table.c.attempts + 1, claimed_at=now)
        .returning(table.c.id, table.c.attempts)
    ).first()


def _lease_expired(table: sa.Table, now: datetime, settings: Settings
                   ) -> sa.ColumnElement[bool]:
    """The claim is older than the lease (or there is none: nobody can be waited for)."""
    stale = now - timedelta(seconds=settings.outbox_lease_seconds)
    return sa.or_(table.c.claimed_at < stale, table.c.claimed_at.is_(None))


def _release(inbound_id: int) -> None:
    """Give a claimed row back after a transient failure (best effort: the lease expires)."""
    from pbm.db import run_transaction

    table = _inbound_table()
    try:
        run_transaction(lambda s: s.execute(
            sa.update(table).where(table.c.id == inbound_id, table.c.status == "processing")
            .values(status="new")), attempts=2)
    except Exception as exc:
        log.warning("could not release inbound %s: %s", inbound_id, exc)


def quarantine(inbound_id: int, error: str, now: datetime) -> None:
    """Keep a message the service could not process aside, with its error; tell the admin."""
    from pbm.db import run_transaction
    from pbm.hygiene import clean_text
    from pbm.outbox import alert_admin

    table = _inbound_table()
    error = clean_text(error)

    def work(session: Session) -> None:
        session.execute(sa.update(table).where(table.c.id == inbound_id).values(
            status="quarantined", error=error[:4000], processed_at=now))
        alert_admin(session, None, f"inbound message #{inbound_id} quarantined",
                    f"Inbound message #{inbound_id} could not be processed and was set "
                    f"aside:\n\n{error[:2000]}\n\nSee the quarantine page of the admin site.",
                    now=now, dedupe=f"quarantine:{inbound_id}")

    run_transaction(work)


class RequeueError(ValueError):
    """A message that cannot go back in line (unknown, or not quarantined)."""


def requeue(session: Session, inbound_id: int) -> list[int]:
    """Put a quarantined message back in line (its last error stays for the record);
    returns the ids for the caller to enqueue after the commit."""
    from pbm.models import InboundMessage, InboundStatus

    message = session.get(InboundMessage, inbound_id, with_for_update=True)
    if message is None:
        raise RequeueError(f"no inbound message {inbound_id}")
    if message.status != InboundStatus.QUARANTINED:
        raise RequeueError(f"message {inbound_id} is {message.status}, not quarantined")
    message.status = InboundStatus.NEW
    message.attempts = 0  # else one that killed workers would be quarantined again at once
    session.add(message)
    return [inbound_id]


def _finish(session: Session, inbound_id: int, status: str, now: datetime, *,
            error: str | None = None, game_id: int | None = None,
            seat: int | None = None) -> str:
    table = _inbound_table()
    session.execute(sa.update(table).where(table.c.id == inbound_id).values(
        status=status, error=error, processed_at=now, game_id=game_id, seat=seat))
    return status if not error else f"{status}: {error}"


def _handle(session: Session, inbound_id: int, now: datetime, settings: Settings) -> str:
    from pbm.models import InboundStatus

    table = _inbound_table()
    row = session.execute(sa.select(table).where(table.c.id == inbound_id)
                          .with_for_update()).first()
    if row is None or row.status != InboundStatus.PROCESSING.value:
        return "skipped"  # another worker finished it first
    from pbm.ratelimit import inbound_allowed

    if not inbound_allowed(session, row.channel, row.sender, row.received_at, settings,
                           message_id=row.id):
        return _finish(session, row.id, "ignored", now, error="rate limited: too many "
                       f"messages from {row.sender} in the last hour")
    if row.channel == EMAIL:
        return _handle_email(session, row, now, settings)
    if row.channel == SMS:
        return _handle_sms(session, row, now, settings)
    return _finish(session, row.id, "ignored", now, error=f"unknown channel {row.channel!r}")


def _handle_email(session: Session, row: Any, now: datetime, settings: Settings) -> str:
    from pbm.hygiene import mime_problem

    raw = decode_raw(row.raw)
    message = parse_email(raw)
    problem = mime_problem(raw, settings, message)  # IMAP mail skipped the webhook's check
    if problem:
        return _finish(session, row.id, "ignored", now, error=f"refused: {problem}")
    reason = automatic_reason(message, settings)
    if reason == "bounce":
        return _finish(session, row.id, "ignored", now,
                       error="bounce: " + handle_bounce(session, message, now))
    if reason:
        return _finish(session, row.id, "ignored", now, error=f"automatic message ({reason})")
    from pbm.replies.autoreply import automatic_phrasing
    from pbm.replies.extract import email_new_text

    phrasing = automatic_phrasing(header(message, "Subject"), email_new_text(raw))
    if phrasing:
        return _finish(session, row.id, "ignored", now, error=f"automatic message ({phrasing})")
    seat = route_email(session, message, row.sender)
    if seat is None:
        _ask_to_answer_the_game(session, row.sender, now)
        return _finish(session, row.id, "ignored", now,
                       error=f"no reply token of a seat in this message from {row.sender}")
    player = _player(session, seat.player_id)
    if player is None or (player.email or "").lower() != row.sender.lower():
        _ask_to_answer_the_game(session, row.sender, now)
        return _finish(session, row.id, "ignored", now, game_id=seat.game_id,
                       seat=seat.seat_index,
                       error=f"sender {row.sender} is not the player of this seat")
    if settings.inbound_require_sender_auth and not sender_authenticated(
            message, row.sender, settings):
        _ask_to_answer_the_game(session, row.sender, now)
        return _finish(session, row.id, "ignored", now, game_id=seat.game_id,
                       seat=seat.seat_index, error=f"sender {row.sender} not authenticated "
                       "(no DKIM, SPF or DMARC pass in Authentication-Results)")
    from pbm.replies import read_email_reply

    return _apply(session, row, seat, player, now, lambda view, invited: read_email_reply(
        message, view, invited=invited, max_lines=settings.reply_max_lines,
        max_bytes=settings.reply_max_bytes))


def _ask_to_answer_the_game(session: Session, sender: str, now: datetime) -> None:
    """A known player's mail carried no secret of theirs: tell them, at the address we have
    for them (never a Reply-To), to answer the game's email. At most once an hour, and
    nothing of the message is repeated (its From may be forged)."""
    from pbm.models import OutboundMessage, Player

    player = session.execute(sa.select(Player).where(
        sa.func.lower(Player.email) == sender.lower()).order_by(Player.id).limit(1)).scalar()
    if player is None or not player.email or player.email_failing:
        return
    key = f"no-token:{player.id}:{now:%Y%m%d%H}"
    if session.execute(sa.select(OutboundMessage.id).where(
            OutboundMessage.dedupe_key == key)).first() is not None:
        return
    session.add(OutboundMessage(
        player_id=player.id, channel=EMAIL, kind="notice", to_address=player.email,
        subject="Your email to Tortuga by Mail was not read",
        text=(f"Hello {player.display_name},\n\nAn email from your address reached Tortuga "
              "by Mail without answering one of your game's emails, so nothing in it was "
              "played.\n\nTo play, reply to the latest email of your game: its reply "
              "address is private to your seat.\n\nIf you did not send it, ignore this "
              "note.\n"),
        status="pending", attempts=0, dedupe_key=key, created_at=now))
    session.flush()


def sender_authenticated(message: Message, sender: str, settings: Settings) -> bool:
    """True when an ``Authentication-Results`` header (of ``inbound_authserv_id``, if set)
    shows a DMARC pass for the From domain, or a DKIM or SPF pass aligned with it."""
    domain = sender.rpartition("@")[2].lower()
    if not domain:
        return False
    try:
        values = [str(v) for v in message.get_all("Authentication-Results") or []]
    except Exception:
        return False
    for value in values:
        value = re.sub(r"\([^()]*\)", " ", value)  # comments
        server, _, results = value.partition(";")
        wanted = (settings.inbound_authserv_id or "").lower()
        if wanted and (server.split() or [""])[0].lower() != wanted:
            continue
        for clause in results.split(";"):
            words = dict(w.lower().partition("=")[::2] for w in clause.split() if "=" in w)
            if _auth_pass(words, domain):
                return True
    return False


def _aligned(domain: str, other: str) -> bool:
    other = other.rpartition("@")[2].strip(".")
    return bool(other) and (domain == other or domain.endswith("." + other)
                            or other.endswith("." + domain))


def _auth_pass(words: dict[str, str], domain: str) -> bool:
    if words.get("dmarc") == "pass":
        return _aligned(domain, words.get("header.from", domain))
    if words.get("dkim") == "pass":
        return _aligned(domain, words.get("header.d", words.get("header.i", "")))
    if words.get("spf") == "pass":
        return _aligned(domain, words.get("smtp.mailfrom", words.get("smtp.helo", "")))
    return False


def _handle_sms(session: Session, row: Any, now: datetime, settings: Settings) -> str:
    from pbm.models import Player
    from pbm.replies import read_sms_reply

    form = json.loads(row.raw)
    body = str(form.get("Body", ""))
    player = session.execute(sa.select(Player).where(Player.phone == row.sender)).scalar()
    if player is None:
        return _finish(session, row.id, "ignored", now, error=f"unknown number {row.sender}")
    keyword = body.strip().strip(".!").lower()
    carrier = keyword in _CARRIER_STOP or keyword in _CARRIER_START or (
        keyword == "yes" and player.sms_opted_out)
    if carrier:
        # Twilio already acted on the keyword (and answered it); mirror it here, no reply.
        _set_sms_opt_out(session, player, keyword in _CARRIER_STOP, now)
    seat = route_sms(session, player.id)
    if carrier or seat is None:
        return _finish(session, row.id, "done" if carrier else "ignored", now,
                       error=None if carrier else f"{row.sender} has no game in progress",
                       game_id=seat.game_id if seat else None,
                       seat=seat.seat_index if seat else None)
    return _apply(session, row, seat, player, now, lambda view, invited: read_sms_reply(
        body, view, invited=invited, max_lines=settings.reply_max_lines,
        max_bytes=settings.reply_max_bytes))


# The carrier / Twilio opt-out keywords: Twilio handles them itself and still forwards them.
# (YES is one too, but only for an opted-out number: otherwise it answers an invitation.)
_CARRIER_STOP = {"stop", "stopall", "unsubscribe", "cancel", "end", "quit"}
_CARRIER_START = {"start", "unstop"}


def _set_sms_opt_out(session: Session, player: Any, stop: bool, now: datetime) -> None:
    from pbm.outbox import alert_admin

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


def _player(session: Session, player_id: int) -> Any:
    from pbm.models import Player

    return session.get(Player, player_id)


def route_email(session: Session, message: Message, sender: str) -> Any | None:
    """The seat a reply is for, by a secret only that seat's player received: the reply
    token of its address, else a Message-ID of ours it answers (``In-Reply-To`` /
    ``References``) that was sent to the seat's present player. None otherwise: ``From``
    alone never names a seat, it is trivially forged. (The caller checks the sender.)"""
    from pbm import games
    from pbm.models import OutboundMessage, Seat
    from pbm.replies import find_reply_token

    token = find_reply_token(recipient_addresses(message))
    if token:
        seat = games.find_seat_by_token(session, token)  # with its table's seats, players
        if seat is not None:
            return seat
    referenced = " ".join([header(message, "In-Reply-To"), header(message, "References")])
    ids = [i[:255] for i in re.findall(r"<[^<>\s]+>", referenced)][-50:]
    if ids:
        hit = session.execute(
            sa.select(OutboundMessage.game_id, OutboundMessage.seat, OutboundMessage.player_id)
            .where(OutboundMessage.message_id.in_(ids), OutboundMessage.seat.is_not(None))
            .order_by(OutboundMessage.id.desc()).limit(1)).first()
        if hit is not None:
            seat = session.execute(sa.select(Seat).where(
                Seat.game_id == hit.game_id, Seat.seat_index == hit.seat)).scalar()
            if seat is not None and seat.player_id == hit.player_id:
                return seat
    return None


def route_sms(session: Session, player_id: int) -> Any | None:
    """The seat an SMS is for: of the player's active games, the one whose message reached
    them last by SMS (else their most recent seat)."""
    from pbm.models import Game, OutboundMessage, Seat

    seats = session.execute(
        sa.select(Seat).join(Game, Game.id == Seat.game_id)
        .where(Seat.player_id == player_id, Game.status.in_(ACTIVE_GAMES))
        .order_by(Seat.id.desc())
    ).scalars().all()
    if len(seats) <= 1:
        return seats[0] if seats else None
    games = {s.game_id: s for s in seats}
    last = session.execute(
        sa.select(OutboundMessage.game_id)
        .where(OutboundMessage.player_id == player_id, OutboundMessage.channel == SMS,
               OutboundMessage.game_id.in_(list(games)))
        .order_by(OutboundMessage.created_at.desc(), OutboundMessage.id.desc()).limit(1)
    ).scalar()
    return games.get(last, seats[0])


def handle_bounce(session: Session, message: Message, now: datetime) -> str:
    """Mark the bounced player's email as failing and tell the admin; what was done."""
    from pbm.models import OutboundMessage, Player
    from pbm.outbox import alert_admin

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


def _apply(session: Session, row: Any, seat: Any, player: Any, now: datetime,
           read: Any) -> str:
    """Parse the player's text for their seat, apply it through ``pbm.games``, answer."""
    import engine
    from pbm import games
    from pbm.models import InvitationStatus

    game = games.lock_game(session, seat.game_id)  # once: ``games`` finds it locked
    state = games.load_state(game) if game.state_json else None
    view = engine.view(state, seat.seat_index).to_dict() if state is not None else None
    invited = state is None and seat.invitation_status in (
        InvitationStatus.PENDING.value, InvitationStatus.INVITED.value)
    try:
        parsed = read(view, invited)
    except (ValueError, LookupError, TypeError, AttributeError, IndexError, KeyError,
            UnicodeError, RecursionError) as exc:
        # The sender's bytes broke the reader: refuse them (a parser bug is logged, not a
        # reason to set the message aside for the admin or to retry it).
        log.exception("inbound message %s: reply unreadable", row.id)
        return _finish(session, row.id, "ignored", now, game_id=game.id, seat=seat.seat_index,
                       error=f"unreadable reply: {type(exc).__name__}: {exc}"[:4000])
    outcome = _Outcome()
    says = [meta for meta in parsed.meta if meta.name == "SAY"]
    relayed = says[:_say_allowance(session, player, now)] if says else []  # before writing
    for meta in parsed.meta:  # settings first: the prompt the commands trigger uses them
        if meta.name == "SET":
            _meta(session, row, game, seat, player, meta, now, outcome)
    if parsed.understood:
        _submit(session, row, game, seat, state, parsed, now, outcome)
    for meta in parsed.meta:
        if meta.name not in ("SAY", "SET"):
            _meta(session, row, game, seat, player, meta, now, outcome)
    if relayed:
        _say(session, game, seat, relayed, now, outcome)
    if len(says) > len(relayed):
        settings = get_settings()
        left = says[len(relayed)]
        more = len(says) - len(relayed) - 1
        outcome.reject(f"SAY {left.arg}" + (f" (and {more} more SAY lines)" if more else ""),
                       f"not relayed: at most {settings.say_per_reply} SAY lines per reply "
                       f"and {settings.say_per_hour} per hour reach the table")
    if outcome.needs_reply(parsed, seat.seat_index):
        idle = not (parsed.understood or parsed.meta)  # an answer to a reply that did nothing
        if not idle or _may_answer_idle(session, game, player, row, now):
            _write_reply(session, game, seat, player, row, parsed, outcome, now,
                         suffix=":nu" if idle else "")
    return _finish(session, row.id, "done", now, game_id=game.id, seat=seat.seat_index)


def _may_answer_idle(session: Session, game: Any, player: Any, row: Any, now: datetime) -> bool:
    """At most ``not_understood_answers_per_sender_per_hour`` answers to replies that did
    nothing; past it the admin is told (once a day) and the sender gets no answer."""
    from pbm.models import OutboundMessage
    from pbm.outbox import alert_admin

    limit = get_settings().not_understood_answers_per_sender_per_hour
    keys = session.execute(sa.select(OutboundMessage.dedupe_key).where(
        OutboundMessage.player_id == player.id, OutboundMessage.kind == "reply",
        OutboundMessage.dedupe_key.like("%:nu:%"),
        OutboundMessage.created_at >= now - timedelta(hours=1))).scalars()
    sent = len({key.rsplit(":nu:", 1)[0] for key in keys})  # one answer, any channels
    if sent < limit:
        return True
    alert_admin(session, game, f"no more answers to {row.sender} for now",
                f"{row.sender} sent {sent + 1} replies in the last hour that changed nothing "
                f"(not understood, or empty). They got {sent} answers; the rest are kept but "
                "not answered, so a mail robot cannot loop with us. Check the inbound "
                "messages of this sender on the admin site.",
                now=now, dedupe=f"idle-cap:{player.id}:{now:%Y-%m-%d}")
    return False


def _say_allowance(session: Session, player: Any, now: datetime) -> int:
    """How many SAY lines this player may still relay now: ``say_per_reply``, less what
    they said at any of their tables in the last hour over ``say_per_hour``."""
    from pbm.models import GameEvent, Seat

    settings = get_settings()
    seats = {(s.game_id, s.seat_index) for s in session.execute(
        sa.select(Seat).where(Seat.player_id == player.id)).scalars()}
    talk = session.execute(
        sa.select(GameEvent.game_id, GameEvent.data_json)
        .where(GameEvent.kind == "table.talk", GameEvent.created_at >= now - timedelta(hours=1),
               GameEvent.game_id.in_(sorted({g for g, _ in seats})))).all()
    said = sum(1 for game_id, data in talk
               if (game_id, json.loads(data or "{}").get("seat")) in seats)
    return max(0, min(settings.say_per_reply, settings.say_per_hour - said))


def _say(session: Session, game: Any, seat: Any, says: list[Any], now: datetime,
         outcome: _Outcome) -> None:
    """Relay the reply's SAY lines together: one table-talk message per other seat."""
    from pbm import games

    result = games.say(session, game.id, seat.seat_index, [m.arg for m in says], now=now)
    for meta in says:
        shown = f"SAY {meta.arg}" + (" (cut)" if meta.truncated else "")
        if result.ok:
            outcome.add_done(shown)
        else:
            outcome.reject(shown, result.message)


@dataclass
class _Outcome:
    """What applying one reply did (for the REPLY message)."""

    done: list[str] | None = None
    rejected: list[dict[str, str]] | None = None
    help: str | None = None
    log: bool = False
    result: dict[str, Any] | None = None
    told: bool = False  # the seat already got a fresh message in this transaction
    notes: list[str] | None = None
    answers: list[str] | None = None  # the answers to settings (SETTINGS, ZONE, AWAY ...)

    def add_done(self, text: str) -> None:
        self.done = [*(self.done or []), text]

    def reject(self, command: str, reason: str) -> None:
        self.rejected = [*(self.rejected or []), {"command": command, "reason": reason}]

    def needs_reply(self, parsed: Any, seat: int) -> bool:
        if parsed.not_understood or self.rejected or self.help is not None or self.log:
            return True
        if self.notes or self.answers:
            return True
        return not self.told


def _submit(session: Session, row: Any, game: Any, seat: Any, state: Any, parsed: Any,
            now: datetime, outcome: _Outcome) -> None:
    from pbm import games, outbox, timing

    texts = [u.text for u in parsed.understood]
    shown = {u.text: u.display for u in parsed.understood}
    if state is None:
        for text in texts:
            outcome.reject(shown[text], "the game has not started yet")
        return
    decision = state.decision_id(seat.seat_index)
    opened = [d for d in timing.open_deadlines(session, game.id, seat=seat.seat_index)
              if d.decision_key == decision]
    if decision is not None and opened and opened[0].created_at > row.received_at:
        # The question now open was asked after this reply was sent: it answers an older one.
        for text in texts:
            outcome.reject(shown[text], "that answered a question that is already closed; "
                                        "here is the one open now")
        return
    outbox.fold_into_next(session, game.id, seat.seat_index, read_as=[shown[t] for t in texts])
    result = games.submit(session, game.id, seat.seat_index, texts, origin=f"inbound:{row.id}",
                          now=now, decision_id=decision, inbound_message_id=row.id)
    outbox.was_folded(session, game.id, seat.seat_index)
    outcome.result = result.to_dict()
    for text in result.done:
        outcome.add_done(shown.get(text, text))
    for refused in result.not_done:
        outcome.reject(shown.get(refused["command"], refused["command"]), refused["reason"])
    for text in result.ignored:
        outcome.reject(shown.get(text, text), "not tried after the command before it failed")
    if not result.done and not result.not_done and result.message:
        for text in texts:
            outcome.reject(shown.get(text, text), result.message)
    if seat.seat_index in result.notified:
        outcome.told = True


def _meta(session: Session, row: Any, game: Any, seat: Any, player: Any, meta: Any,
          now: datetime, outcome: _Outcome) -> None:
    from pbm import games

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
            outcome.reject(name, result.message)
    elif name in ("STOP", "START"):
        if not player.phone:
            outcome.reject(name, "you have no phone number with us; STOP and START are "
                                 "about text messages")
            return
        _set_sms_opt_out(session, player, name == "STOP", now)
        outcome.add_done(name)
        outcome.notes = [*(outcome.notes or []), name]
    elif name == "SET":  # a player's own setting: pbm.settings
        from pbm import settings

        try:
            outcome.answers = [*(outcome.answers or []),
                               settings.apply(session, player, meta.arg, now)]
        except settings.SettingError as exc:
            outcome.reject(meta.arg, str(exc))


def _write_reply(session: Session, game: Any, seat: Any, player: Any, row: Any, parsed: Any,
                 outcome: _Outcome, now: datetime, suffix: str = "") -> None:
    from pbm import games, outbox, timing
    from pbm.messages import MessageKind

    state = games.load_state(game) if game.state_json else None
    deadlines = [d for d in timing.open_deadlines(session, game.id, seat=seat.seat_index)
                 if d.kind != timing.INVITATION]
    extra: dict[str, Any] = {
        "reply": parsed.to_dict(),
        "done": outcome.done or [],
        "rejected": outcome.rejected or [],
        "help": outcome.help,
        "log": outcome.log,
        "answers": outcome.answers or [],
    }
    if outcome.result is not None:
        extra["result"] = outcome.result
    events = None
    if outcome.log:
        public = [e for e in outbox.events_for(session, game.id, seat.seat_index, limit=None)
                  if e.audience is None]
        events = public[-15:]
    outbox.notify(session, game, seat, player, MessageKind.REPLY, now=now, state=state,
                  dedupe=f"g{game.id}:s{seat.seat_index}:reply:in{row.id}{suffix}",
                  deadline=deadlines[0].due_at if deadlines else None, extra=extra,
                  events=events)


def relay_candidates(session: Session, now: datetime, settings: Settings,
                     limit: int = 500) -> list[int]:
    """Inbound rows that should have been processed by now: never enqueued, or abandoned."""
    table = _inbound_table()
    grace = now - timedelta(seconds=settings.relay_grace_seconds)
    rows = session.execute(
        sa.select(table.c.id).where(sa.or_(
            sa.and_(table.c.status == "new", table.c.received_at < grace),
            sa.and_(table.c.status == "processing", _lease_expired(table, now, settings)),
        )).order_by(table.c.id).limit(limit)).scalars()
    return [int(i) for i in rows]
