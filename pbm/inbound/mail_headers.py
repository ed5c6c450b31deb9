"""MIME helpers (raw bytes kept losslessly, parsing that never raises (``pbm.email_parsing``),
headers, addresses) and detection of automatic mail: bounces, auto-replies, lists, our own mail."""

from __future__ import annotations

import base64
import hashlib
import re
from email.message import Message
from email.utils import getaddresses, parseaddr

from pbm.config import Settings
from pbm.email_parsing import parse_email as parse_email  # re-exported: pbm.inbound.parse_email
from pbm.email_parsing import parse_headers as parse_headers

_BASE64_PREFIX = "base64:"


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


def header(message: Message, name: str) -> str:
    """A header's value as a string, '' when absent or unreadable.

    Remembered on the message (the pipeline asks for the same headers a dozen times, and
    the email package parses a header anew on every ``get``); nothing changes the headers
    of a received message."""
    remembered: dict[str, str] | None = message.__dict__.get("_pbm_headers")
    if remembered is None:
        remembered = message.__dict__["_pbm_headers"] = {}
    key = name.lower()
    found = remembered.get(key)
    if found is not None:
        return found
    try:
        value = message.get(name)
    except Exception:  # a malformed header must not stop us
        value = None
    found = remembered[key] = str(value).strip() if value is not None else ""
    return found


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
                payload = None if part.is_multipart() else part.get_payload(decode=True)
                text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) \
                    else part.as_string() if part.is_multipart() else ""
            except Exception:
                continue
            if part.get_content_type() == "message/delivery-status":
                text = "\n".join(str(p) for p in (part.get_payload() or []))
            failed.update(m.strip("<>").lower() for m in _FINAL_RECIPIENT.findall(text))
    return outbox_id, failed
