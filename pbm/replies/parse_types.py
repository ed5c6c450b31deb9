"""The parse context and result types: what one line was read as, a whole reply's result,
the seat's context, and the exceptions the readers raise between themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.commands import Command
from engine.reasons import Reason
from pbm.replies.menu import (
    MenuOption,
    build_menu,
    pending_legal,
    player_names,
    with_names,
)

# ------------------------------------------------------------------ results


@dataclass(frozen=True)
class Understood:
    """A line read as one engine command."""

    line: str
    command: Command
    text: str  # canonical text, e.g. "MAROON 3"
    display: str  # as the player reads it, e.g. "MAROON Cleo"
    legal_now: bool
    #: How the line was read (``option 2``, ``read 'atack' as ATTACK``): a reason, or a
    #: plain sentence from a reader not giving codes yet.
    note: str | None = None
    #: Said after a correction marker with nothing before it in the reply ("sorry, I meant
    #: VOTE 3"): it corrects an earlier reply. (A correction of a command in the same reply
    #: has replaced it already; its note says "instead of ...".)
    correction: bool = False


@dataclass(frozen=True)
class Meta:
    """A line read as a meta command: HELP [topic], STATUS, SAY text, LOG, JOIN, ..."""

    line: str
    name: str
    arg: str = ""
    truncated: bool = False


@dataclass(frozen=True)
class NotUnderstood:
    """A line that changes nothing, with why and the closest command the seat could send."""

    line: str
    #: Why: a :class:`~engine.reasons.Reason` (data), or a plain English sentence from a
    #: reader not yet giving codes.
    reason: str
    suggestion: str | None = None
    #: Every reading the line fits when it is ambiguous (display form); nothing is applied.
    candidates: tuple[str, ...] = ()

    @property
    def ambiguous(self) -> bool:
        """True when the line fits several commands (or players) and the player is asked."""
        return len(self.candidates) > 1


@dataclass(frozen=True)
class Retracted:
    """A command the player took back in the same reply ("REVEAL 3 - forget that")."""

    line: str
    display: str
    marker: str  # the words that took it back, as written


@dataclass
class ReplyResult:
    """Everything one reply said, line by line, sorted into four buckets."""

    understood: list[Understood] = field(default_factory=list)
    meta: list[Meta] = field(default_factory=list)
    not_understood: list[NotUnderstood] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    #: Commands the player took back without a replacement: nothing of them is applied.
    retracted: list[Retracted] = field(default_factory=list)
    #: The whole reply is a phone reaction to a message ("Liked “...”"): not an answer.
    reaction: bool = False
    #: Lines and pieces read as chatter, or left unread after the line the reading stopped
    #: at: never applied, but a second answer there still makes the reply unclear
    #: (``pbm.replies.decisions``). Not stored.
    unread: list[str] = field(default_factory=list, repr=False, compare=False)

    @property
    def commands(self) -> list[Command]:
        """The engine commands to apply, in order."""
        return [u.command for u in self.understood]

    @property
    def empty(self) -> bool:
        """True when the reply held nothing but ignored lines."""
        return not (self.understood or self.meta or self.not_understood or self.retracted)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form, for ``MessageContext.extra["reply"]``."""
        return {
            "understood": [
                {"line": u.line, "text": u.text, "display": u.display,
                 "legal_now": u.legal_now,
                 "note": stored_reason(u.note) if u.note else None, "correction": u.correction}
                for u in self.understood
            ],
            "meta": [
                {"line": m.line, "name": m.name, "arg": m.arg, "truncated": m.truncated}
                for m in self.meta
            ],
            "not_understood": [
                {"line": n.line, "reason": stored_reason(n.reason), "suggestion": n.suggestion,
                 "candidates": list(n.candidates)}
                for n in self.not_understood
            ],
            "ignored": list(self.ignored),
            "retracted": [{"line": r.line, "display": r.display, "marker": r.marker}
                          for r in self.retracted],
            "reaction": self.reaction,
        }


def stored_reason(reason: str) -> dict[str, Any] | str:
    """A reason as stored with a reply's outcome: its code and parameters (JSON)."""
    return reason.to_dict() if isinstance(reason, Reason) else reason


# ------------------------------------------------------------------ context


@dataclass(frozen=True)
class ParseContext:
    """What the parser knows about the replying seat (all from its own seat view)."""

    seat: int | None = None
    names: Mapping[int, str] = field(default_factory=dict)
    legal: tuple[str, ...] = ()
    menu: tuple[MenuOption, ...] = ()
    location: str | None = None
    invited: bool = False
    seat_view: Mapping[str, Any] | None = None

    @classmethod
    def from_seat_view(
        cls,
        seat_view: Mapping[str, Any] | None,
        *,
        menu: Sequence[MenuOption] | None = None,
        invited: bool = False,
    ) -> ParseContext:
        """Build the context from ``engine.view(state, seat).to_dict()`` (or None)."""
        if not seat_view:
            return cls(invited=invited)
        seat_view = as_vote_change(seat_view)
        seat = int(seat_view["seat"])
        location = None
        for p in seat_view["public"]["players"]:
            if int(p["seat"]) == seat:
                location = p.get("location")
        return cls(
            seat=seat,
            names=player_names(seat_view),
            legal=tuple(pending_legal(seat_view)),
            menu=tuple(build_menu(seat_view) if menu is None else menu),
            location=location,
            invited=invited,
            seat_view=seat_view,
        )

    def display(self, canonical: str) -> str:
        """Canonical text as the player reads it (``display_command`` with the names this
        context already holds: it is asked for every legal command of every "did you
        mean")."""
        return with_names(canonical, self.names) if self.seat_view else canonical


def as_vote_change(seat_view: Mapping[str, Any]) -> Mapping[str, Any]:
    """The view of a seat that has voted in a vote still open, as the vote prompt was: its
    hand as it voted from and every answer it could give (a new VOTE changes its vote).
    Any other view is returned as it is."""
    cast = seat_view.get("cast_vote")
    if not cast or seat_view.get("pending"):
        return seat_view
    hand = list(cast["hand"])
    legal = [f"VOTE {i}" for i in range(1, len(hand) + 1)]
    if "EL_DORADO" in (seat_view.get("kept") or []):
        legal += [f"VOTE {i} {j}" for i in range(1, len(hand) + 1)
                  for j in range(i + 1, len(hand) + 1)]
    decision = {"seat": seat_view["seat"], "kind": "VOTE", "legal": legal,
                "context": {"vote": cast["vote"], "changing": True}}
    return {**seat_view, "hand": hand, "pending": [decision]}


class NoParse(Exception):
    """This reading of the line does not fit; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(str(reason))
        self.reason = reason


class AmbiguousCards(Exception):
    """Symbols that fit several Vote cards of the hand (``cards``, by number)."""

    def __init__(self, cards: list[int]) -> None:
        super().__init__(str(cards))
        self.cards = cards


class AmbiguousName(Exception):
    """Tokens ``start:end`` name more than one player (``seats``): the player must choose."""

    def __init__(self, word: str, start: int, end: int, seats: list[int]) -> None:
        super().__init__(word)
        self.word, self.start, self.end, self.seats = word, start, end, seats
