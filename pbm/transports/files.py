"""File transports for the embedded default and the demo: nothing leaves the machine.

Emails become ``.eml`` files (exactly what SMTP would have sent) under
``<data_dir>/outbox/email/``; SMS become JSON lines in ``<data_dir>/outbox/sms.jsonl``.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from pbm.config import Settings
from pbm.transports.base import OutgoingMessage, Receipt, TransportError
from pbm.transports.mail import email_bytes


def outbox_dir(settings: Settings) -> Path:
    """Where the file transports write."""
    return Path(settings.data_dir) / "outbox"


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


class FileEmailTransport:
    """Write each email as an .eml file."""

    name = "file-email"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def send(self, message: OutgoingMessage) -> Receipt:
        """Write the message; the file name is the receipt."""
        folder = outbox_dir(self.settings) / "email"
        data, message_id = email_bytes(message, self.settings)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            key = "".join(ch for ch in message.key if ch.isalnum() or ch in "-_") or "msg"
            path = folder / f"{_stamp()}-{key}.eml"
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except OSError as exc:
            raise TransportError(f"cannot write {folder}: {exc}", permanent=False,
                                 reason="network") from exc
        return Receipt(transport=self.name, provider_id=message_id, detail=str(path))


class FileSmsTransport:
    """Append each SMS as one JSON line."""

    name = "file-sms"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def send(self, message: OutgoingMessage) -> Receipt:
        """Append the message to the SMS log; its line id is the receipt."""
        path = outbox_dir(self.settings) / "sms.jsonl"
        provider_id = f"file-{_stamp()}-{message.key}"
        line = json.dumps({"id": provider_id, "to": message.to, "body": message.sms_text,
                           "key": message.key, "at": datetime.now(UTC).isoformat()})
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")
        except OSError as exc:
            raise TransportError(f"cannot write {path}: {exc}", permanent=False,
                                 reason="network") from exc
        return Receipt(transport=self.name, provider_id=provider_id, detail=str(path))
