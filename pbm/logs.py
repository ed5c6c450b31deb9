"""Structured logs (``LOG_FORMAT=json``): one JSON object a line, with the ids of what a
line is about.

``context(inbound_id=..., game_id=..., seat=..., outbound_id=...)`` binds ids for the code
inside it (a context variable: per thread and per task); every log record made there
carries them, as JSON fields or, in text mode, nowhere (text logs stay as they were). Only
ids are bound: never a token, an address or a message body.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from pbm.config import get_settings

#: the ids a log line may carry
FIELDS = ("game_id", "seat", "inbound_id", "outbound_id")

_ids: contextvars.ContextVar[dict[str, int]] = contextvars.ContextVar("pbm_log_ids",
                                                                       default={})  # noqa: B039


@contextlib.contextmanager
def context(**ids: int | None) -> Iterator[None]:
    """Bind ``ids`` (names from ``FIELDS``; None values are skipped) for the block."""
    bound = {**_ids.get(), **{k: int(v) for k, v in ids.items() if v is not None and k in FIELDS}}
    token = _ids.set(bound)
    try:
        yield
    finally:
        _ids.reset(token)


def bind(**ids: int | None) -> None:
    """Add ``ids`` to what is bound until the enclosing ``context`` ends (the inbound task
    binds the message's id; the pipeline adds the game and seat once it knows them)."""
    _ids.set({**_ids.get(), **{k: int(v) for k, v in ids.items()
                               if v is not None and k in FIELDS}})


def current() -> dict[str, int]:
    """The ids bound now."""
    return dict(_ids.get())


class ContextFilter(logging.Filter):
    """Copies the bound ids onto each record (``record.game_id`` ...)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in _ids.get().items():
            setattr(record, key, value)
        return True


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "msg", ids..., "exc"}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key in FIELDS:
            value = getattr(record, key, None)
            if value is not None:
                entry[key] = value
        if record.processName not in ("MainProcess", None):
            entry["process"] = record.processName
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure(log_format: str | None = None, logger: logging.Logger | None = None) -> bool:
    """With ``json`` (default: ``settings.log_format``), make every handler of ``logger``
    (default: the root logger; one is added if it has none) write JSON with the bound ids.
    True when JSON logging is on."""
    if log_format is None:
        log_format = get_settings().log_format
    if log_format.lower() != "json":
        return False
    target = logger or logging.getLogger()
    if not target.handlers:
        target.addHandler(logging.StreamHandler())
        target.setLevel(logging.INFO)
    for handler in target.handlers:
        handler.setFormatter(JsonFormatter())
        if not any(isinstance(f, ContextFilter) for f in handler.filters):
            handler.addFilter(ContextFilter())
    return True
