"""Player words for a refused command: what is awaited now and what they can reply
instead, never the engine's decision kinds (``plain_reason``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pbm.replies.menu import display_command

_ANSWERS_RE = re.compile(r"^\S.* answers [A-Z_]+(?: or [A-Z_]+)*, but .+ is asked for [A-Z_]+$")
_NOTHING_RE = re.compile(r": nothing is awaited from .+ now$")
_NOT_ALLOWED_RE = re.compile(r"^[A-Z]+\b[^:]* is not allowed: (.+)$")


def _legal_of(view: Mapping[str, Any] | None, verb: str | None = None) -> list[str]:
    """The seat's legal answers now, as it reads them (names, not seat numbers)."""
    if not view:
        return []
    legal = [display_command(c, view) for d in view.get("pending") or [] for c in d["legal"]]
    if verb is not None:
        legal = [c for c in legal if c.split()[0] == verb]
    return list(dict.fromkeys(legal))


def _either(items: Sequence[str], limit: int = 8) -> str:
    items = list(items)
    if len(items) > limit:
        return ", ".join(items[:limit]) + f" (and {len(items) - limit} more)"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def plain_reason(command: str, reason: str, view: Mapping[str, Any] | None,
                 awaited: Mapping[str, Any] | None, turn_name: str = "") -> str:
    """Why a command was refused, in the player's words: what is awaited now, and what
    they can reply instead (never the engine's decision kinds)."""
    reason = reason.strip()
    verb = command.split()[0].upper() if command.split() else ""
    options = [o.display for o in awaited["menu"]] if awaited else []
    if _ANSWERS_RE.match(reason) or _NOTHING_RE.search(reason):
        if not awaited:
            whose = f"; it is {turn_name}'s turn" if turn_name else ""
            return f"nothing is awaited from you now{whose}"
        text = f"{verb} is not what is asked of you now. {awaited['headline']}"
        return text + (f" You can reply {_either(options)}." if options else "")
    allowed = _NOT_ALLOWED_RE.match(reason)
    if allowed:
        why = allowed.group(1)
        same = _legal_of(view, verb)
        if same:
            return f"{why}. You can: {_either(same)}"
        return f"{why}." + (f" What you can do now: {_either(options)}." if options else "")
    return reason
