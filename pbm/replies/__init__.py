"""From a raw reply to commands: extract the player's text, parse it forgivingly.

The pipeline, each step a small pure function::

    raw MIME / SMS body
      -> extract.email_new_text / extract.sms_text   (the player's own new text)
      -> extract.split_lines                          (lines)
      -> parse.parse_lines                            (commands, meta, not understood, ignored)

``read_email_reply`` and ``read_sms_reply`` run it end to end for one seat. Routing (which
game and seat a reply belongs to) uses ``address.reply_token_from_address``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from pbm.hygiene import clean_text
from pbm.replies.address import find_reply_token, reply_address, reply_token_from_address
from pbm.replies.extract import (
    REPLY_MARKER,
    email_new_text,
    inline_candidates,
    message_text,
    sms_text,
    split_lines,
    strip_quoted,
)
from pbm.replies.menu import MenuOption, build_menu
from pbm.replies.parse import (
    Meta,
    NotUnderstood,
    ParseContext,
    ReplyResult,
    Understood,
    parse_lines,
    suggest,
)
from pbm.replies.reactions import is_reaction

__all__ = [
    "REPLY_MARKER",
    "Extracted",
    "MenuOption",
    "Meta",
    "NotUnderstood",
    "ParseContext",
    "ReplyResult",
    "Understood",
    "bounded_lines",
    "build_menu",
    "email_new_text",
    "extract_email",
    "extract_sms",
    "find_reply_token",
    "parse_extracted",
    "parse_lines",
    "read_email_reply",
    "read_sms_reply",
    "reply_address",
    "reply_token_from_address",
    "sms_text",
    "suggest",
]


#: How much of the player's new text is read as commands (pbm.config overrides these).
MAX_LINES = 50
MAX_BYTES = 20 * 1024


def bounded_lines(text: str, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES
                  ) -> list[str]:
    """The lines of the player's new text that are read: the first ``max_lines`` of at most
    ``max_bytes`` (UTF-8) in all, without control characters. The rest is never parsed, so
    a reply costs the same whatever its length."""
    head = text.encode("utf-8", "replace")[:max_bytes].decode("utf-8", "ignore")
    return split_lines(clean_text(head))[:max_lines]


def _context(
    seat_view: Mapping[str, Any] | None, menu: Sequence[MenuOption] | None, invited: bool
) -> ParseContext:
    return ParseContext.from_seat_view(seat_view, menu=menu, invited=invited)


@dataclass(frozen=True)
class Extracted:
    """The player's own new text of one reply, before it is parsed: the ``lines`` that are
    read and, for an email, its whole ``body`` (an answer written inline, inside the
    quoted message, is looked for there when the lines above it say nothing)."""

    lines: list[str]
    body: str | None = None


def extract_email(raw: bytes | str | EmailMessage, *, max_lines: int = MAX_LINES,
                  max_bytes: int = MAX_BYTES) -> Extracted:
    """Raw MIME -> the player's new text (``max_lines`` / ``max_bytes``: ``bounded_lines``)."""
    body = message_text(raw)
    return Extracted(bounded_lines(strip_quoted(body, max_lines), max_lines, max_bytes), body)


def extract_sms(body: str, *, max_lines: int = MAX_LINES,
                max_bytes: int = MAX_BYTES) -> Extracted:
    """An SMS body -> the player's new text."""
    return Extracted(bounded_lines(sms_text(body), max_lines, max_bytes))


def parse_extracted(extracted: Extracted, seat_view: Mapping[str, Any] | None, *,
                    menu: Sequence[MenuOption] | None = None, invited: bool = False,
                    max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> ReplyResult:
    """The extracted text -> what the player said, for the seat whose view is given.

    ``menu``: the menu of the prompt being answered, if stored (default: rebuilt from the
    view). ``invited``: the sender holds an open invitation (YES / NO mean JOIN / DECLINE).
    """
    lines = extracted.lines
    if is_reaction("\n".join(lines)):
        return _reaction(lines)
    context = _context(seat_view, menu, invited)
    result = parse_lines(lines, context)
    if extracted.body is not None and (
            result.empty or not (result.understood or result.meta or result.not_understood)):
        # Nothing above the original: the player may have answered inline, inside it.
        inline = parse_lines(bounded_lines("\n".join(inline_candidates(extracted.body)),
                                           max_lines, max_bytes), context)
        if inline.understood and not inline.not_understood:
            result.understood.extend(inline.understood)
            result.meta.extend(m for m in inline.meta if m.name != "SAY")
    return result


def read_email_reply(
    raw: bytes | str | EmailMessage,
    seat_view: Mapping[str, Any] | None,
    *,
    menu: Sequence[MenuOption] | None = None,
    invited: bool = False,
    max_lines: int = MAX_LINES,
    max_bytes: int = MAX_BYTES,
) -> ReplyResult:
    """Raw MIME -> what the player said, for the seat whose view is given: extracted, then
    parsed (:func:`parse_extracted`). ``max_lines`` / ``max_bytes``: how much of the new
    text is read (``bounded_lines``).
    """
    return parse_extracted(extract_email(raw, max_lines=max_lines, max_bytes=max_bytes),
                           seat_view, menu=menu, invited=invited, max_lines=max_lines,
                           max_bytes=max_bytes)


def read_sms_reply(
    body: str,
    seat_view: Mapping[str, Any] | None,
    *,
    menu: Sequence[MenuOption] | None = None,
    invited: bool = False,
    max_lines: int = MAX_LINES,
    max_bytes: int = MAX_BYTES,
) -> ReplyResult:
    """An SMS body -> what the player said (see :func:`read_email_reply`)."""
    return parse_extracted(extract_sms(body, max_lines=max_lines, max_bytes=max_bytes),
                           seat_view, menu=menu, invited=invited, max_lines=max_lines,
                           max_bytes=max_bytes)


def _reaction(lines: Sequence[str]) -> ReplyResult:
    """A phone reaction ("Liked “...”"): nothing in it is read, and it is not answered."""
    return ReplyResult(ignored=[line for line in lines if line], reaction=True)
