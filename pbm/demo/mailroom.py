"""The demo's post office: the messages the file transports wrote, and replies sent back.

The file transports (``pbm.transports.files``) write every email as an ``.eml`` file under
``<data_dir>/outbox/email/`` and every SMS as one line of ``<data_dir>/outbox/sms.jsonl``.
``Mailroom.collect`` hands each new one over once, in the order the service wrote them
(outbox row id). ``send_email`` writes a reply the way a mail client does (To = the
Reply-To address, In-Reply-To / References, the player's text on top and the message
quoted below) and ``send_sms`` an SMS as Twilio's webhook form; both go through the normal
inbound path: stored raw by ``pbm.inbound``, committed, then handed to a worker, exactly
as the webhooks do. A copy of every reply is kept under ``<folder>/inbox/``.
"""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import formataddr, formatdate, make_msgid, parseaddr
from pathlib import Path
from typing import TYPE_CHECKING

from pbm import inbound
from pbm.config import get_settings
from pbm.db import run_transaction
from workers.enqueue import enqueue_inbound

if TYPE_CHECKING:
    from sqlmodel import Session

    from pbm.inbound import Stored

DEMO_TWILIO_NUMBER = "+15550001667"


@dataclass(frozen=True)
class Delivered:
    """One message as it reached a player: an email's text part, or an SMS body."""

    channel: str  # "email" or "sms"
    to: str  # lower-cased email address, or phone number
    text: str
    subject: str
    outbox_id: int | None
    path: Path
    message_id: str = ""
    reply_to: str = ""
    references: str = ""
    date: str = ""
    sender: str = ""


@dataclass(frozen=True)
class Posted:
    """One reply handed to the service: its inbound row and the player's own text."""

    inbound_id: int
    channel: str
    sender: str
    recipient: str
    text: str
    path: Path
    created: bool


def _outbox_id(key: str | None) -> int | None:
    return int(key) if key and key.isdigit() else None


def read_eml(path: Path) -> Delivered:
    """An .eml file written by the file transport, as its recipient reads it."""
    message = message_from_bytes(path.read_bytes(), policy=policy.default)
    body = message.get_body(preferencelist=("plain",))
    text = body.get_content() if body is not None else ""

    def header(name: str) -> str:
        value = message.get(name)
        return str(value).strip() if value is not None else ""

    return Delivered(
        channel="email",
        to=parseaddr(header("To"))[1].lower(),
        text=text,
        subject=header("Subject"),
        outbox_id=_outbox_id(header("X-Tortuga-Outbox")),
        path=path,
        message_id=header("Message-ID"),
        reply_to=parseaddr(header("Reply-To"))[1],
        references=header("References"),
        date=header("Date"),
        sender=header("From"),
    )


class Mailroom:
    """Watches the file transports' output and carries replies back in."""

    def __init__(self, data_dir: Path, inbox_dir: Path) -> None:
        self.email_dir = data_dir / "outbox" / "email"
        self.sms_log = data_dir / "outbox" / "sms.jsonl"
        self.inbox_dir = inbox_dir
        self._seen: set[str] = set()
        self._sms_offset = 0
        self._counter = itertools.count(1)

    # -- out: what the service sent

    def collect(self) -> list[Delivered]:
        """Every message written since the last call, oldest (lowest outbox id) first."""
        found: list[Delivered] = []
        if self.email_dir.is_dir():
            for path in sorted(self.email_dir.glob("*.eml")):
                if path.name not in self._seen:
                    self._seen.add(path.name)
                    found.append(read_eml(path))
        if self.sms_log.is_file():
            with self.sms_log.open("rb") as fh:
                fh.seek(self._sms_offset)
                chunk = fh.read()
            complete = chunk[: chunk.rfind(b"\n") + 1]
            self._sms_offset += len(complete)
            for raw in complete.decode("utf-8").splitlines():
                if not raw.strip():
                    continue
                line = json.loads(raw)
                found.append(Delivered(
                    channel="sms", to=str(line.get("to", "")), text=str(line.get("body", "")),
                    subject="", outbox_id=_outbox_id(str(line.get("key", ""))),
                    path=self.sms_log, date=str(line.get("at", "")),
                    sender=get_settings().twilio_from_number or DEMO_TWILIO_NUMBER,
                ))
        big = 1 << 62
        return sorted(found, key=lambda d: (d.outbox_id if d.outbox_id is not None else big,
                                            d.path.name))

    # -- in: replies

    def reply_email(self, name: str, address: str, original: Delivered, text: str) -> bytes:
        """A reply as a mail client writes it: new text on top, the message quoted below."""
        mail = EmailMessage()
        mail["From"] = formataddr((name, address))
        mail["To"] = original.reply_to or parseaddr(original.sender)[1]
        subject = original.subject
        mail["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
        mail["Date"] = formatdate(localtime=False, usegmt=True)
        mail["Message-ID"] = make_msgid(domain=address.rpartition("@")[2] or "example.org")
        if original.message_id:
            mail["In-Reply-To"] = original.message_id
            mail["References"] = " ".join(
                dict.fromkeys([*original.references.split(), original.message_id]))
        quoted = "\n".join(f"> {line}".rstrip() for line in original.text.splitlines())
        attribution = f"On {original.date or 'an earlier day'}, {original.sender} wrote:"
        mail.set_content(f"{text.rstrip()}\n\n{attribution}\n{quoted}\n", cte="8bit")
        return bytes(mail)

    def send_email(self, name: str, address: str, original: Delivered, text: str) -> Posted:
        """Write the reply, keep a copy, and hand it to the service like the webhook does."""
        raw = self.reply_email(name, address, original, text)
        folder = self.inbox_dir / "email"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{next(self._counter):04d}-{address.split('@')[0]}.eml"
        path.write_bytes(raw)
        stored = _store_and_enqueue(
            lambda session: inbound.store_email(session, raw, datetime.now(UTC)))
        return Posted(stored.id, "email", address, original.reply_to, text, path,
                      stored.created)

    def send_sms(self, phone: str, body: str) -> Posted:
        """An SMS from ``phone`` as Twilio's webhook posts it, through the inbound path."""
        to = get_settings().twilio_from_number or DEMO_TWILIO_NUMBER
        form = {"MessageSid": "SM" + uuid.uuid4().hex, "AccountSid": "ACdemo", "From": phone,
                "To": to, "Body": body, "NumSegments": "1", "NumMedia": "0"}
        self.inbox_dir.mkdir(parents=True, exist_ok=True)
        path = self.inbox_dir / "sms.jsonl"
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"n": next(self._counter), "at": datetime.now(UTC).isoformat(),
                                 **form}) + "\n")
        stored = _store_and_enqueue(
            lambda session: inbound.store_sms(session, form, datetime.now(UTC)))
        return Posted(stored.id, "sms", phone, to, body, path, stored.created)


def _store_and_enqueue(work: Callable[[Session], Stored]) -> Stored:
    """Store in one committed transaction, then ask a worker to process the new row."""
    stored = run_transaction(work)
    if stored.created:
        enqueue_inbound([stored.id])
    return stored

