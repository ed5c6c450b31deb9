"""A sensible default answer for a seat that timed out (the service's timeout policy).

Deterministic: the choice depends only on the state (seed, version) and the seat, and
the state is not changed.
"""

from __future__ import annotations

import random

from engine.commands import (
    Board,
    Command,
    Fountain,
    Land,
    Reveal,
    Row,
    Save,
    View,
    Vote,
)
from engine.errors import GameOverError, NotYourDecisionError
from engine.events import DecisionKind
from engine.rules import pending
from engine.state import GameState

#: Turn actions in order of preference: the least harmful first.
_ACTION_PREFERENCE: tuple[type[Command], ...] = (View, Reveal, Row, Land, Board)


def default_command(state: GameState, seat: int) -> Command:
    """The command the service plays for ``seat`` when it times out.

    Vote: a random single card of the hand. Forced choice: a random one of the two.
    Turn action: VIEW two random cards, else REVEAL a random card, else a rowboat move,
    else the first legal action. TAKE / PLACE: the first legal answer. Letter of Marque:
    SAVE. Pistol / Treasure Map: a random legal target. Fountain of Youth: FOUNTAIN.
    Raises :class:`~engine.errors.NotYourDecisionError` if nothing is awaited from ``seat``.
    """
    if state.over:
        raise GameOverError("the game is over")
    mine = [d for d in pending(state) if d.seat == seat]
    if not mine:
        raise NotYourDecisionError(f"nothing is awaited from {state.names[seat]} now")
    decision = mine[0]
    rng = random.Random(f"{state.seed}:default:{state.version}:{seat}")
    legal = list(decision.legal)
    kind = decision.kind
    if kind is DecisionKind.VOTE:
        return rng.choice([c for c in legal if isinstance(c, Vote) and len(c.cards) == 1])
    if kind is DecisionKind.LETTER_OF_MARQUE:
        return Save()
    if kind is DecisionKind.FOUNTAIN:
        return Fountain()
    if kind in (DecisionKind.CHOOSE, DecisionKind.SHOOT, DecisionKind.GIVE):
        return rng.choice(legal)
    if kind is DecisionKind.ACTION:
        for preferred in _ACTION_PREFERENCE:
            options = [c for c in legal if type(c) is preferred]
            if options:
                return rng.choice(options)
    return legal[0]
