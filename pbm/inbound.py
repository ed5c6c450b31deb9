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
from datetime import datetime
from email import message_from_bytes, policy
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr

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
    """A parsed message; never raises (defects are recorded on the message)."""
    return message_from_bytes(raw, policy=policy.default)  # type: ignore[return-value]


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
    from pbm.models import InboundMessage, InboundStatus

    table = InboundMessage.__table__  # type: ignore[attr-defined]
    values = {"channel": channel, "provider_message_id": provider_id[:255],
              "sender": sender[:320], "recipient": recipient[:320], "raw": raw,
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
                                    table.c.provider_message_id == provider_id[:255])
    ).scalar_one()
    return Stored(int(existing), False)


def store_email(session: Session, raw: bytes, now: datetime) -> Stored:
    """Keep one raw email (from IMAP or the webhook), once per Message-ID."""
    message = parse_email(raw)
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
    return sender.startswith("mailer-daemon@") and "delivery-status" in str(message).lower()


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
