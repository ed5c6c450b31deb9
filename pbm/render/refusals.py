"""Player words for a refused command: what is awaited now and what they can reply
instead, never the engine's decision kinds (``plain_reason``). The engine's reason says
which refusal it is by its code (``engine.reasons``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import reasons as R
from engine.reasons import Reason, as_reason
from pbm.i18n.translate import _
from pbm.render.names import command_words
from pbm.render.reasons import say
from pbm.replies.menu import display_command


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


def plain_reason(command: str, reason: Any, view: Mapping[str, Any] | None,
                 awaited: Mapping[str, Any] | None, board: Mapping[str, Any] | None = None
                 ) -> str:
    """Why a command was refused, in the player's words: what is awaited now, and what
    they can reply instead (never the engine's decision kinds). ``reason``: a reason or
    its stored form (a stored sentence is said as it is, ``pbm.render.reasons.say``)."""
    why = as_reason(reason)
    code = why.code if why is not None else None
    verb = command.split()[0].upper() if command.split() else ""
    options = [o.display for o in awaited["menu"]] if awaited else []
    inner = why.params.get("reason") if why is not None else None
    if code == R.ANSWERS_OTHER.code or (code == R.REFUSED_FOR.code and isinstance(
            inner, Reason) and inner.code == R.NOTHING_AWAITED.code):  # asked something else
        if not awaited:
            return nothing_awaited(board)
        text = _("{verb} is not what is asked of you now. {headline}").format(
            verb=command_words(verb), headline=awaited["headline"])
        return text + (_(" You can reply {options}.").format(options=_either(options))
                       if options else "")
    if code == R.NOT_ALLOWED.code and isinstance(inner, Reason):
        said = say(inner)
        same = _legal_of(view, verb)
        if same:
            return _("{why}. You can: {options}").format(why=said, options=_either(same))
        return _("{why}.").format(why=said) + (
            _(" What you can do now: {options}.").format(options=_either(options))
            if options else "")
    return say(reason)
