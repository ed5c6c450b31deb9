"""The answer to a setting and the notices to a table, in the reader's language.

``pbm.player_settings`` answers and ``pbm.games`` notices (AWAY / BACK, a digest, a seat taken
over, a start without you) are reasons (``pbm.replies.reasons``), stored as code and
parameters and said like any reason (:func:`pbm.render.reasons.say`). Moments and lengths
are parameters twice: their English words, and the moment (``until_at``: ISO 8601 and the
reader's zone) or length (``span_seconds``) itself, from which another language writes them
with Babel (``pbm.i18n.dates``). An answer or a notice stored as a plain English sentence is
shown as it is to an English reader; another reader gets "<command>: changed" (an answer)
or the event the notice tells (:func:`say_notice` gives None).
"""

from __future__ import annotations

from typing import Any

from engine.reasons import as_reason
from pbm.i18n.translate import N_, _, current
from pbm.render.reasons import say

_CHANGED = N_("{cmd}: changed.")


def say_answer(answer: Any) -> str:
    """An answer to a setting (``pbm.player_settings.apply``; stored as code and parameters) in
    the current reader's language."""
    if as_reason(answer) is not None:
        return say(answer)
    text = str(answer or "")
    if current() == "en" or not text:
        return text
    return _(_CHANGED).format(cmd=text.split(" ", 1)[0].rstrip(":"))


def say_notice(notice: Any) -> str | None:
    """A notice to the table in the current reader's language; None when it is a stored
    sentence and the reader does not read English."""
    if as_reason(notice) is not None:
        return say(notice)
    return str(notice) if current() == "en" else None


def english(answer: Any) -> str:
    """An answer or notice in plain English (its stored form read back)."""
    reason = as_reason(answer)
    return str(reason if reason is not None else answer or "")
