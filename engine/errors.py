"""Engine errors. Each has a stable ``code``; messages echo the offending input, and
``why`` is the message as data (:mod:`engine.reasons`), for a reader of any language.

As in python-chess, "cannot parse" (:class:`CommandParseError`) is kept apart from
"the rules forbid it" (:class:`IllegalCommandError`).
"""

from __future__ import annotations

from engine.reasons import UNPARSEABLE, Reason


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""

    code: str = "engine/error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        #: The message as data; None for a message no player reads (a setup error).
        self.why = message if isinstance(message, Reason) else None


class CommandParseError(EngineError, ValueError):
    """The text is not a canonical command."""

    code = "command/unparseable"

    def __init__(self, text: str, reason: Reason) -> None:
        super().__init__(UNPARSEABLE(cmd=text, reason=reason))
        self.text = text
        self.reason = reason  # why the text is not a command, without the text


class IllegalCommandError(EngineError, ValueError):
    """The command is well formed, but the rules do not allow it now."""

    code = "command/illegal"


class NotYourDecisionError(EngineError):
    """Nothing is awaited from this seat, or the decision the command answers is closed."""

    code = "command/not_your_decision"


class GameOverError(EngineError):
    """The game has ended; no command is accepted."""

    code = "game/over"


class SetupError(EngineError, ValueError):
    """The players or options given to :func:`engine.new_game` are not valid."""

    code = "setup/invalid"
