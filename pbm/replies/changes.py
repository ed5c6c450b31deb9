"""Changes of mind across replies: a secret vote may be changed until the vote closes; a
turn action is final once applied. Pure helpers for ``pbm.inbound`` (the texts it submits
and the words of its answer)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbm.replies import reasons as R
from pbm.replies.menu import display_command

#: The keywords of turn actions: final once applied.
TURN_ACTIONS = frozenset({"VIEW", "REVEAL", "FORCE", "ROW", "BOARD", "LAND", "ATTACK",
                          "MUTINY", "BRAWL", "MAROON", "SHIFT", "MAP", "MARQUE"})


def vote_change(text: str, seat_view: Mapping[str, Any] | None) -> tuple[str, str] | None:
    """``("REVOTE 3", "Your vote is now card 3 (Cannon / British / Skull)")`` when ``text``
    is a VOTE from a seat that has voted in the vote still open; None otherwise."""
    cast = (seat_view or {}).get("cast_vote")
    words = text.split()
    if not cast or not words or words[0] != "VOTE" or (seat_view or {}).get("pending"):
        return None
    hand = {int(c["number"]): str(c["text"]) for c in cast["hand"]}
    numbers = [int(w) for w in words[1:] if w.isdigit()]
    if not numbers or any(n not in hand for n in numbers):
        return None
    first, *second = numbers
    now = R.VOTE_NOW_ONE(n=first, symbols=hand[first]) if not second else R.VOTE_NOW_TWO(
        n=first, symbols=hand[first], other=second[0], other_symbols=hand[second[0]])
    return "REVOTE " + " ".join(words[1:]), now


def is_turn_action(text: str) -> bool:
    """True for a turn action's canonical text (``REVEAL 3``)."""
    return bool(text) and text.split()[0] in TURN_ACTIONS


def final_action_reason(applied: str, seat_view: Mapping[str, Any] | None) -> str:
    """Why a correction of an applied turn action changes nothing, in plain words."""
    return R.FINAL_ACTION(cmd=display_command(applied, seat_view))
