"""Player words for a refused command: what is awaited now and what they can reply
instead, never the engine's decision kinds (``plain_reason``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pbm.i18n.translate import _
from pbm.render.names import command_words
from pbm.render.reasons import say_reason
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
    items = [command_words(item) for item in items]
    if len(items) > limit:
        return ", ".join(items[:limit]) + _(" (and {n} more)").format(n=len(items) - limit)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + _(" or ") + items[-1]


def nothing_awaited(board: Mapping[str, Any] | None, *, sentence: bool = False) -> str:
    """That nothing is awaited from the reader now, and whom the game waits for instead:
    the turn's player ("it is Ann's turn") when it waits for them, else those it waits
    for by name. ``sentence``: capitalised, with a full stop (a status text)."""
    turn = str(board.get("turn_name") or "") if board else ""
    names = list(board.get("awaiting_names") or []) if board else []
    if turn and turn in names:
        return (_("Nothing is awaited from you now; it is {name}'s turn.") if sentence else
                _("nothing is awaited from you now; it is {name}'s turn")).format(name=turn)
    if names:
        return (_("Nothing is awaited from you now; the game waits for {names}.") if sentence
                else _("nothing is awaited from you now; the game waits for {names}")
                ).format(names=", ".join(names))
    return _("Nothing is awaited from you now.") if sentence else \
        _("nothing is awaited from you now")


def plain_reason(command: str, reason: str, view: Mapping[str, Any] | None,
                 awaited: Mapping[str, Any] | None, board: Mapping[str, Any] | None = None
                 ) -> str:
    """Why a command was refused, in the player's words: what is awaited now, and what
    they can reply instead (never the engine's decision kinds)."""
    reason = reason.strip()
    verb = command.split()[0].upper() if command.split() else ""
    options = [o.display for o in awaited["menu"]] if awaited else []
    if _ANSWERS_RE.match(reason) or _NOTHING_RE.search(reason):
        if not awaited:
            return nothing_awaited(board)
        text = _("{verb} is not what is asked of you now. {headline}").format(
            verb=command_words(verb), headline=awaited["headline"])
        return text + (_(" You can reply {options}.").format(options=_either(options))
                       if options else "")
    allowed = _NOT_ALLOWED_RE.match(reason)
    if allowed:
        why = say_reason(allowed.group(1))
        same = _legal_of(view, verb)
        if same:
            return _("{why}. You can: {options}").format(why=why, options=_either(same))
        return _("{why}.").format(why=why) + (
            _(" What you can do now: {options}.").format(options=_either(options))
            if options else "")
    return say_reason(reason)
