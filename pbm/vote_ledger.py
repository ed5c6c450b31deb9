"""The player's own vote ledger, shown in their prompts during the game (email only).

``ledger(session, game_id, seat)`` lists the last few votes the seat took part in: the
turn, the vote and who called it, the symbols the vote showed, and the card(s) *this seat*
played. It is built from the stored events this seat may see, and a played card is read
only from the private ``vote.cast`` (or ``vote.changed``: the seat changed its vote before
the vote closed) event addressed to this seat alone: another seat's card
can never enter it (the privacy scan, ``tests/pbm/test_service_privacy.py``, checks it).
"""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session, col, select

from engine.cards import VOTE_DECK
from pbm.models import GameEvent

LEDGER_SIZE = 5  # the last votes shown
_KINDS = ("turn.started", "vote.called", "vote.cast", "vote.changed", "vote.result")


def ledger(session: Session, game_id: int, seat: int, *, size: int = LEDGER_SIZE
           ) -> list[dict[str, Any]]:
    """``[{"turn", "vote", "called", "played", "shown", "outcome"}]``, oldest first."""
    rows = session.exec(
        select(GameEvent).where(GameEvent.game_id == game_id, col(GameEvent.kind).in_(_KINDS))
        .order_by(col(GameEvent.seq))).all()
    votes: list[dict[str, Any]] = []
    turn = 0
    current: dict[str, Any] | None = None
    for event in rows:
        if not event.visible_to(seat):
            continue
        data = json.loads(event.data_json or "{}")
        if event.kind == "turn.started":
            turn = int(data.get("turn") or turn)
        elif event.kind == "vote.called":
            current = None
            if seat in (data.get("participants") or []):
                current = {"turn": turn, "vote": str(data.get("vote", "")).capitalize(),
                           "called": event.text, "played": "", "shown": "",
                           "outcome": "waiting for the other votes"}
                votes.append(current)
        elif event.kind in ("vote.cast", "vote.changed") and current is not None \
                and event.audience_seats() == frozenset({seat}):
            cards = [VOTE_DECK[c].describe() for c in data.get("cards") or []]
            current["played"] = " and ".join(cards)
        elif event.kind == "vote.result" and current is not None:
            current["shown"] = ", ".join(s.lower() for s in data.get("symbols") or []) or "no cards"
            current["outcome"] = event.text.rsplit(": ", 1)[-1].rstrip(".")
            current = None
    return votes[-size:]
