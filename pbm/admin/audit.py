"""The admin audit trail: who did what from the web page, and when.

Kept as JSON lines in ``settings.data_dir / "admin-audit.log"`` (and the ``pbm.admin.audit``
logger), so it survives restarts without a table of its own. Every admin action and every
"show spoilers" is written here; the game page shows the spoiler entries of its game.
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from pbm.config import get_settings

log = logging.getLogger(__name__)
_LOCK = threading.Lock()
AUDIT_FILE = "admin-audit.log"


def audit_path() -> Path:
    """Where the audit trail is kept."""
    return get_settings().data_dir / AUDIT_FILE


def record(admin: str, action: str, now: datetime, game_id: int | None = None,
           **details: Any) -> None:
    """Append one entry: ``admin`` did ``action`` (to ``game_id``) at ``now``."""
    entry = {"at": now.isoformat(), "admin": admin, "action": action, "game_id": game_id,
             **details}
    line = json.dumps(entry, default=str, sort_keys=True)
    log.info("admin audit: %s", line)
    path = audit_path()
    with _LOCK:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


def entries(game_id: int | None = None, action: str | None = None,
            limit: int = 50) -> list[dict[str, Any]]:
    """The latest entries, newest first, optionally of one game and/or one action."""
    path = audit_path()
    if not path.exists():
        return []
    found: list[dict[str, Any]] = []
    with _LOCK, path.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if game_id is not None and entry.get("game_id") != game_id:
                continue
            if action is not None and entry.get("action") != action:
                continue
            found.append(entry)
    return found[::-1][:limit]
