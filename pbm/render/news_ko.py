"""LOG's line of every event and the news line of one event, in the reader's language.

Both come from the one table of event sentences (``pbm.render.event_lines``); this module
keeps the two names the message model reads (``log_line``, ``voice``) until it reads
``pbm.render.event_lines`` and ``pbm.render.news`` directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbm.render import event_lines, news


def log_line(event: Mapping[str, Any], reader: int | None, names: Mapping[int, str]) -> str:
    """The line of ``event`` in LOG (every event has one)."""
    return event_lines.line(event, reader, names).text


def voice(event: Mapping[str, Any], reader: int | None, names: Mapping[int, str],
          events: Sequence[Mapping[str, Any]] = ()) -> tuple[int, str] | None:
    """(priority, sentence) of ``event`` for ``reader``: ``pbm.render.news.voice``."""
    return news.voice(event, reader, names, events)
