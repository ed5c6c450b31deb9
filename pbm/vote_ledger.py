"""The player's own vote ledger, shown in their prompts during the game (email only).

``ledger(session, game_id, seat)`` lists the last few votes the seat took part in: the
turn, the vote and who called it, the symbols the vote showed, and the card(s) *this seat*
played. It is built from the stored events this seat may see, and a played card is read
only from the private ``vote.cast`` (or ``vote.changed``: the seat changed its vote before
the vote closed) event addressed to this seat alone: another seat's card
can never enter it (the privacy scan, ``tests/pbm/test_service_privacy.py``, checks it).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from engine.cards import VOTE_DECK
from pbm import txcache
from pbm.models import GameEvent

LEDGER_SIZE = 5  # the last votes shown
KINDS = ("turn.started", "vote.called", "vote.cast", "vote.changed", "vote.result")


def ledger(session: Session, game_id: int, seat: int, *, size: int = LEDGER_SIZE
           ) -> list[dict[str, Any]]:
    """``[{"turn", "vote", "called", "played", "shown", "outcome"}]``, oldest first; with
    the data behind the words (``key``, ``cards``, ``result``) for readers of another
    language (``pbm.render.mail_words.ledger``)."""
    return ledger_of(_ledger_events(session, game_id), seat, size=size)


def ledger_of(events: Iterable[tuple[str, str, frozenset[int] | None, Mapping[str, Any]]],
              seat: int, *, size: int = LEDGER_SIZE) -> list[dict[str, Any]]:
    """The ledger from a game's events in order: ``(kind, text, audience or None, data)``."""
    votes: list[dict[str, Any]] = []
    turn = 0
    current: dict[str, Any] | None = None
    for kind, text, audience, data in events:
        if audience is not None and seat not in audience:
            continue
        if kind == "turn.started":
            turn = int(data.get("turn") or turn)
        elif kind == "vote.called":
            current = None
            if seat in (data.get("participants") or []):
                current = {"turn": turn, "vote": str(data.get("vote", "")).capitalize(),
                           "called": text, "played": "", "shown": "",
                           "outcome": "waiting for the other votes",
                           "key": str(data.get("vote", "")), "cards": [], "result": None}
                votes.append(current)
        elif kind in ("vote.cast", "vote.changed") and current is not None \
                and audience == frozenset({seat}):
            cards = [VOTE_DECK[c].describe() for c in data.get("cards") or []]
            current["played"] = " and ".join(cards)
            current["cards"] = list(data.get("cards") or [])
        elif kind == "vote.result" and current is not None:
            current["shown"] = ", ".join(s.lower() for s in data.get("symbols") or []) or "no cards"
            current["outcome"] = text.rsplit(": ", 1)[-1].rstrip(".")
            current["result"] = {"kind": kind, "data": {
                k: data.get(k) for k in ("vote", "outcome", "symbols")}}
            current = None
    return votes[-size:]


#: one event as ``ledger_of`` reads it: (kind, text, audience or None, data)
_Event = tuple[str, str, frozenset[int] | None, dict[str, Any]]


def _ledger_events(session: Session, game_id: int) -> list[_Event]:
    """The game's turn and vote events as ``ledger_of`` reads them, read once per
    transaction for every seat's ledger (``pbm.txcache``: an event flushed since is read
    again); each event's fields are taken from its row once, not once per seat."""
    txcache.flush_pending(session, GameEvent)
    return txcache.remember(session, ("ledger", game_id), lambda: _as_read(
        session.exec(_ledger_statement(), params={"game_id": game_id}).all()))


def _as_read(events: Iterable[GameEvent]) -> list[_Event]:
    return [(event.kind, event.text, event.audience_seats(), json.loads(event.data_json or "{}"))
            for event in events]


def remembered(session: Session, game_id: int) -> bool:
    """True if this transaction has the game's ledger events (``_ledger_events``)."""
    return ("ledger", game_id) in txcache.memo(session)


def remember(session: Session, game_id: int, events: Iterable[GameEvent]) -> None:
    """Remember the game's ledger events from a read that brought every event of ``KINDS``
    (among others, in ``seq`` order): ``pbm.outbox`` reads them with the recap's events."""
    txcache.memo(session)[("ledger", game_id)] = _as_read(
        event for event in events if event.kind in KINDS)


@functools.cache
def _ledger_statement() -> Any:
    """The events of ``KINDS`` of a game (``game_id`` a parameter), built once."""
    return (select(GameEvent)
            .where(GameEvent.game_id == sa.bindparam("game_id"),
                   col(GameEvent.kind).in_(KINDS))
            .order_by(col(GameEvent.seq)))
