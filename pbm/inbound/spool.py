"""The door's spool: a message that arrived while the database could not take it is kept on
local disk, flushed to the platter before the provider is told 200, and stored in the
database later by whoever drains the spool (the web process every few seconds, and the
inbound relay of a worker on the same host), each message once.

A spooled message is one JSON file under ``DATA_DIR/spool``: written to a temporary name,
fsynced, renamed into place, and the folder fsynced, so a crash leaves either a whole file
or none. Draining stores it exactly as the webhook would have (``store_email`` /
``store_sms``, unique on the provider's id, with the time it arrived), commits, and only then
removes the file: a drain killed between the two stores it again as a duplicate, which the
unique id turns into nothing.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import logging
import os
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from pbm.config import Settings, get_settings
from pbm.db import run_transaction
from pbm.inbound.storage import EMAIL, Stored, store_email, store_sms

log = logging.getLogger(__name__)


def spool_dir(settings: Settings | None = None) -> Path:
    """The folder of spooled messages (on this host's disk)."""
    return (settings or get_settings()).data_dir / "spool"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def keep(channel: str, payload: bytes | dict[str, str], received_at: datetime,
         settings: Settings | None = None) -> Path:
    """Write one message durably to the spool; its file. Raises ``OSError`` when the disk
    cannot take it (the caller then answers 503: the provider keeps it)."""
    folder = spool_dir(settings)
    folder.mkdir(parents=True, exist_ok=True)
    record: dict[str, Any] = {"channel": channel, "received_at": received_at.isoformat()}
    if channel == EMAIL:
        assert isinstance(payload, bytes)
        record["email_b64"] = base64.b64encode(payload).decode("ascii")
    else:
        assert isinstance(payload, dict)
        record["sms"] = payload
    name = f"{received_at.strftime('%Y%m%dT%H%M%S%f')}-{uuid.uuid4().hex}.json"
    temporary = folder / f".{name}.tmp"
    with temporary.open("wb") as out:
        out.write(json.dumps(record).encode())
        out.flush()
        os.fsync(out.fileno())
    os.rename(temporary, folder / name)
    _fsync_dir(folder)
    log.warning("database unavailable: inbound %s message kept in the spool (%s)", channel,
                name)
    return folder / name


def pending(settings: Settings | None = None) -> list[Path]:
    """The spooled messages waiting, oldest first."""
    folder = spool_dir(settings)
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


@contextlib.contextmanager
def _drain_lock(folder: Path) -> Iterator[bool]:
    """True while this process alone drains ``folder`` (another drainer: False)."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".lock").open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _store_record(record: dict[str, Any]) -> Stored:
    received_at = datetime.fromisoformat(record["received_at"])
    if record["channel"] == EMAIL:
        raw = base64.b64decode(record["email_b64"])
        return run_transaction(lambda session: store_email(session, raw, received_at))
    fields = {str(k): str(v) for k, v in record["sms"].items()}
    return run_transaction(lambda session: store_sms(session, fields, received_at))


def drain(on_stored: Callable[[str, Stored], None], settings: Settings | None = None) -> int:
    """Store every spooled message in the database, oldest first, and remove its file;
    ``on_stored(channel, stored)`` after each commit (count it, enqueue it). Stops at the
    first message the database refuses (it is still down) and leaves the rest for the
    next drain. How many were stored."""
    folder = spool_dir(settings)
    files = pending(settings)
    if not files:
        return 0
    done = 0
    with _drain_lock(folder) as mine:
        if not mine:
            return 0
        for path in pending(settings):
            try:
                record = json.loads(path.read_bytes())
            except (OSError, ValueError) as exc:
                log.error("spool: unreadable %s set aside: %s", path.name, exc)
                with contextlib.suppress(OSError):
                    path.rename(path.with_suffix(".unreadable"))
                continue
            try:
                stored = _store_record(record)
            except Exception as exc:
                log.warning("spool: the database still refuses (%s); %d message(s) wait",
                            exc, len(files) - done)
                break
            path.unlink()
            _fsync_dir(folder)
            done += 1
            on_stored(str(record["channel"]), stored)
    if done:
        log.info("spool: %d message(s) stored in the database", done)
    return done
