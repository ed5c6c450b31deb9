"""What a reply was read as: each line understood (an engine command), meta (HELP, SAY,
...), not understood (with why) or ignored, gathered in one ``ReplyResult``.

The parser (``pbm.replies.parse``) and the settings reader (``settings_words``) fill these;
nothing here reads text or changes a game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.commands import Command


@dataclass(frozen=True)
class Understood:
    """A line read as one engine command."""

    line: str
    command: Command
    text: str  # canonical text, e.g. "MAROON 3"
    display: str  # as the player reads it, e.g. "MAROON Cleo"
    legal_now: bool
    note: str | None = None  # e.g. "option 2" or "read 'atack' as ATTACK"


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
    reason: str
    suggestion: str | None = None
    #: Every reading the line fits when it is ambiguous (display form); nothing is applied.
    candidates: tuple[str, ...] = ()

    @property
    def ambiguous(self) -> bool:
        """True when the line fits several commands (or players) and the player is asked."""
        return len(self.candidates) > 1


@dataclass
class ReplyResult:
    """Everything one reply said, line by line, sorted into four buckets."""

    understood: list[Understood] = field(default_factory=list)
    meta: list[Meta] = field(default_factory=list)
    not_understood: list[NotUnderstood] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    @property
    def commands(self) -> list[Command]:
        """The engine commands to apply, in order."""
        return [u.command for u in self.understood]

    @property
    def empty(self) -> bool:
        """True when the reply held nothing but ignored lines."""
        return not (self.understood or self.meta or self.not_understood)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form, for ``MessageContext.extra["reply"]``."""
        return {
            "understood": [
                {"line": u.line, "text": u.text, "display": u.display,
                 "legal_now": u.legal_now, "note": u.note}
                for u in self.understood
            ],
            "meta": [
                {"line": m.line, "name": m.name, "arg": m.arg, "truncated": m.truncated}
                for m in self.meta
            ],
            "not_understood": [
                {"line": n.line, "reason": n.reason, "suggestion": n.suggestion,
                 "candidates": list(n.candidates)}
                for n in self.not_understood
            ],
            "ignored": list(self.ignored),
        }
