"""What the engine reports: :class:`Event` (what happened, with its audience) and
:class:`Decision` (what is awaited from whom, with every legal answer)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine.commands import Command


class DecisionKind(StrEnum):
    """The kinds of question the engine can ask a seat."""

    PLACE = "PLACE"
    ACTION = "ACTION"
    VOTE = "VOTE"
    CHOOSE = "CHOOSE"
    LETTER_OF_MARQUE = "LETTER_OF_MARQUE"
    SHOOT = "SHOOT"
    GIVE = "GIVE"
    TAKE = "TAKE"
    FOUNTAIN = "FOUNTAIN"


@dataclass(frozen=True)
class Event:
    """One thing that happened.

    ``kind`` is a stable code (``"pawn.marooned"``), ``text`` one English sentence fit for
    its audience, ``audience`` ``None`` for public or the seats that may see it, ``data``
    JSON-able details (never secrets in a public event).
    """

    kind: str
    text: str
    audience: frozenset[int] | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def visible_to(self, seat: int) -> bool:
        """True if ``seat`` may see this event."""
        return self.audience is None or seat in self.audience

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "kind": self.kind,
            "text": self.text,
            "audience": None if self.audience is None else sorted(self.audience),
            "data": dict(self.data),
        }


@dataclass(frozen=True)
class Decision:
    """A question awaiting ``seat``: its kind, every legal answer and JSON-able context.

    ``context["decision_id"]`` identifies this decision; it equals
    ``state.decision_id(seat)`` while the decision is open.
    """

    seat: int
    kind: DecisionKind
    legal: tuple[Command, ...]
    context: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (commands as canonical text)."""
        return {
            "seat": self.seat,
            "kind": self.kind.value,
            "legal": [str(c) for c in self.legal],
            "context": dict(self.context),
        }
