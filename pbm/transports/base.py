"""The one interface every transport implements: ``send(message) -> Receipt``.

A transport knows nothing about games or the database: it gets an ``OutgoingMessage`` (built
from an outbox row by ``workers``) and either returns a ``Receipt`` or raises
``TransportError``. ``permanent`` tells the caller whether trying again can help.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class InlineImage:
    """A picture shown inside the HTML part, referenced as ``cid:<cid>``."""

    cid: str
    content: bytes
    subtype: str = "png"


@dataclass(frozen=True)
class Attachment:
    """A part of its own beside the message: a calendar event (``text/calendar;
    method=REQUEST``), with its content type parameters."""

    content_type: str  # "text/calendar; method=REQUEST"
    filename: str
    content: bytes


@dataclass(frozen=True)
class OutgoingMessage:
    """One rendered message for one recipient, ready to hand to a transport."""

    channel: str  # "email" or "sms"
    to: str  # an email address or an E.164 phone number
    subject: str = ""
    text: str = ""
    html: str | None = None
    sms: str | None = None
    reply_to: str | None = None
    message_id: str | None = None  # our Message-ID, stable across retries (with <>)
    in_reply_to: str | None = None  # the thread root (with <>)
    references: tuple[str, ...] = ()
    images: tuple[InlineImage, ...] = ()
    attachments: tuple[Attachment, ...] = ()  # calendar events (``pbm.deadlines.calendar``)
    key: str = ""  # idempotency key (the outbox row), used for file names and VERP
    status_callback: str | None = None  # SMS delivery reports

    @property
    def sms_text(self) -> str:
        """The SMS body: the rendered SMS form, else the plain text."""
        return (self.sms or self.text).strip()


@dataclass(frozen=True)
class Receipt:
    """What a transport reports after handing a message over."""

    transport: str
    provider_id: str | None = None
    detail: str = ""


class TransportError(Exception):
    """A message could not be handed over.

    ``permanent``: retrying the same message cannot succeed (bad address, opted out,
    rejected); otherwise it is transient (network, 4xx, provider busy) and worth a retry.
    ``reason`` is a stable code: ``recipient`` (the address itself is bad or refuses mail),
    ``opted_out`` (SMS STOP), ``rejected`` (the message or our account was refused),
    ``network``, ``busy``, ``auth``, ``config``.
    """

    def __init__(self, message: str, *, permanent: bool, reason: str = "", code: str = "") -> None:
        super().__init__(message)
        self.permanent = permanent
        self.reason = reason
        self.code = code

    def __reduce__(self) -> tuple[object, ...]:  # picklable across processes, kwargs kept
        return (_rebuild_error, (str(self), self.permanent, self.reason, self.code))


def _rebuild_error(message: str, permanent: bool, reason: str, code: str) -> TransportError:
    return TransportError(message, permanent=permanent, reason=reason, code=code)


class Transport(Protocol):
    """A channel's delivery mechanism."""

    name: str

    def send(self, message: OutgoingMessage) -> Receipt:
        """Hand one message over; raise ``TransportError`` when that fails."""
        ...

