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
from typing import Any

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

__all__ = [
    "REPLY_MARKER",
    "MenuOption",
    "Meta",
    "NotUnderstood",
    "ParseContext",
    "ReplyResult",
    "Understood",
    "build_menu",
    "email_new_text",
    "find_reply_token",
    "parse_lines",
    "read_email_reply",
    "read_sms_reply",
    "reply_address",
    "reply_token_from_address",
    "sms_text",
    "suggest",
]


def _context(
    seat_view: Mapping[str, Any] | None, menu: Sequence[MenuOption] | None, invited: bool
) -> ParseContext:
    return ParseContext.from_seat_view(seat_view, menu=menu, invited=invited)


def read_email_reply(
    raw: bytes | str,
    seat_view: Mapping[str, Any] | None,
    *,
    menu: Sequence[MenuOption] | None = None,
    invited: bool = False,
) -> ReplyResult:
    """Raw MIME -> what the player said, for the seat whose view is given.

    ``menu``: the menu of the prompt being answered, if stored (default: rebuilt from the
    view). ``invited``: the sender holds an open invitation (YES / NO mean JOIN / DECLINE).
    """
    context = _context(seat_view, menu, invited)
    body = message_text(raw)
    result = parse_lines(split_lines(strip_quoted(body)), context)
    if result.empty or not (result.understood or result.meta or result.not_understood):
        # Nothing above the original: the player may have answered inline, inside it.
        inline = parse_lines(inline_candidates(body), context)
        if inline.understood and not inline.not_understood:
            result.understood.extend(inline.understood)
            result.meta.extend(m for m in inline.meta if m.name != "SAY")
    return result


def read_sms_reply(
    body: str,
    seat_view: Mapping[str, Any] | None,
    *,
    menu: Sequence[MenuOption] | None = None,
    invited: bool = False,
) -> ReplyResult:
    """An SMS body -> what the player said (see :func:`read_email_reply`)."""
    return parse_lines(split_lines(sms_text(body)), _context(seat_view, menu, invited))
