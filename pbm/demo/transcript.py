"""The demo's transcript: every message the service sent and every reply, in order, in one
plain-text file (``transcript.txt``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from pbm.demo.mailroom import Delivered, Posted
from pbm.messages import Channel

RULE = "-" * 72


class Transcript:
    """``transcript.txt``: every message and every reply, in order, in plain text."""

    def __init__(self, path: Path, folder: Path) -> None:
        self.path = path
        self.folder = folder
        self.count = 0
        self._fh = path.open("w", encoding="utf-8")

    def write(self, text: str) -> None:
        self._fh.write(text)
        self._fh.flush()

    def header(self, lines: list[str]) -> None:
        self.write("\n".join(lines) + "\n\n")

    def _where(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.folder))
        except ValueError:
            return str(path)

    def _entry(self, title: str, body: str) -> None:
        self.count += 1
        stamp = datetime.now(UTC).strftime("%H:%M:%S")
        self.write(f"{RULE}\n#{self.count} {stamp}  {title}\n{RULE}\n{body.rstrip()}\n\n")

    def outgoing(self, message: Delivered, to_name: str, kind: str) -> None:
        """A message the service sent, as its recipient reads it."""
        where = self._where(message.path)
        if message.channel == Channel.SMS:
            self._entry(f"SMS to {to_name} ({message.to}) [{kind}]  {where}", message.text)
        else:
            self._entry(f"EMAIL to {to_name} <{message.to}> [{kind}]  {where}",
                        f"Subject: {message.subject}\n\n{message.text}")

    def incoming(self, posted: Posted, from_name: str) -> None:
        """A player's reply: their own text (the .eml also quotes what it answers)."""
        where = self._where(posted.path)
        if posted.channel == Channel.SMS:
            self._entry(f"SMS reply from {from_name} ({posted.sender})  {where}", posted.text)
        else:
            self._entry(f"EMAIL reply from {from_name} <{posted.sender}> to {posted.recipient}"
                        f"  {where}", posted.text + "\n\n(> the message it answers, quoted)")

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()
