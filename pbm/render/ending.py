"""Why the game ended, told to one reader (issue 37): the move that ended it in the
reader's words (``pbm.render.news``: "You revealed Spanish Armada (card 1).") and the rule
that ended it with the score ("The Spanish Armada ends the game at once: the French have
more treasure."). Email and SMS, every language, say the same two sentences."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbm.i18n.translate import _
from pbm.render.news import news

#: The engine's end reasons (``engine.board.end_game``).
ARMADA = "the Spanish Armada arrived"
ARMADA_TIED = "the Spanish Armada arrived with the teams tied"
SUDDEN_DEATH = "sudden death: took the lead"

#: Events that tell no cause of the end (a card refilled, a vote cast, the end itself).
_NO_CAUSE = frozenset({"event.refilled", "vote.cast", "turn.started", "game.over",
                       "treasure.tortuga"})


def _trigger(events: Sequence[Mapping[str, Any]], reason: str) -> Mapping[str, Any] | None:
    """The event that ended the game: the Armada's reveal, or the last thing that happened
    before the end in sudden death (a treasure moved, a vote's result)."""
    before = []
    for event in events:
        if event.get("kind") == "game.over":
            break
        before.append(event)
    if reason in (ARMADA, ARMADA_TIED):
        return next((e for e in reversed(before) if e.get("kind") == "event.revealed"
                     and (e.get("data") or {}).get("title") == "SPANISH_ARMADA"), None)
    return next((e for e in reversed(before) if e.get("kind") not in _NO_CAUSE
                 and e.get("audience") is None), None)


def ending(events: Sequence[Mapping[str, Any]], reader: int | None,
           names: Mapping[int, str], board: Mapping[str, Any] | None) -> dict[str, str]:
    """``{"cause": ..., "why": ..., "short": ...}`` for a game-over message ("" where
    unknown): ``cause`` is the event that ended the game as the reader reads it in news,
    ``why`` the rule, ``short`` the rule in fewer words (an SMS short of room)."""
    over = next((e for e in events if e.get("kind") == "game.over"), None)
    data = (over.get("data") if over else None) or {}
    reason = str(data.get("reason") or (board or {}).get("end_reason") or "")
    team = str((board or {}).get("winner_name") or "")
    trigger = _trigger(events, reason)
    cause = ""
    if trigger is not None:
        lines = news([trigger], reader, names, explain=False)
        cause = str(lines[0]["text"]) if lines else ""
    short = _("Sudden death: a team took the lead.") if reason == SUDDEN_DEATH else \
        _("The Spanish Armada ended the game.") if reason in (ARMADA, ARMADA_TIED) else ""
    if reason == ARMADA:
        why = _("The Spanish Armada ends the game at once: the {team} have more "
                "treasure.").format(team=team)
    elif reason == ARMADA_TIED:
        why = _("The Spanish Armada ends the game at once with the teams tied: the Dutch "
                "player wins.")
    elif reason == SUDDEN_DEATH:
        why = _("Sudden death: the {team} took the lead and win.").format(team=team)
    else:
        why = ""
    return {"cause": cause, "why": why, "short": short}
