"""From a raw reply to the player's own new text.

A pipeline of small pure functions:

    raw MIME ──message_text──▶ body text ──strip_quoted──▶ the player's new text
    SMS body ──sms_text──────────────────────────────────▶ the player's new text

``message_text`` picks the plain-text body (or turns HTML-only mail into text, dropping
quoted blocks); ``strip_quoted`` removes what the player did not write: our own earlier
prompt below the "reply above this line" marker, ``>``-quoted lines, "On ... wrote:"
headers in several languages, Outlook header blocks, forwarded messages, signatures and
"Sent from my phone" footers. Top- and bottom-posted replies both work: a header that is
followed by ``>``-quoted lines is dropped with them and the text after is kept.

Its parts: ``mime`` (MIME to text), ``quote_patterns`` (the client-language patterns),
``signatures`` (footers, banners, contact lines), ``quoting`` (the new text); this module
runs them end to end and re-exports the names callers use.
"""

from __future__ import annotations

from email.message import EmailMessage

from pbm.replies.mail_body import (
    SCAN_CHARS,
    html_to_text,
    message_text,
    normalize_text,
    parse_mime,
    unflow,
)
from pbm.replies.quote_patterns import REPLY_MARKER
from pbm.replies.quoting import inline_candidates, strip_quoted

__all__ = [
    "REPLY_MARKER",
    "SCAN_CHARS",
    "email_new_text",
    "html_to_text",
    "inline_candidates",
    "message_text",
    "normalize_text",
    "parse_mime",
    "sms_text",
    "split_lines",
    "strip_quoted",
    "unflow",
]


def email_new_text(raw: bytes | str | EmailMessage) -> str:
    """Raw MIME -> the player's own new text."""
    return strip_quoted(message_text(raw))


def sms_text(body: str) -> str:
    """An SMS body -> the player's text (normalised; SMS carries no quotes)."""
    return normalize_text(body).strip()


def split_lines(text: str) -> list[str]:
    """Text -> stripped lines; blank lines are kept as ``""`` (they separate blocks)."""
    return [line.strip() for line in text.split("\n")]
