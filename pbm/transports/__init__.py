"""Outbound transports: one interface (``send(message) -> Receipt``), one per channel.

``transport_for(channel, settings)`` picks SMTP or the file transport for email, Twilio or
the file transport for SMS, from ``EMAIL_TRANSPORT`` / ``SMS_TRANSPORT``.
"""

from __future__ import annotations

from pbm.config import Settings
from pbm.messages import Channel
from pbm.transports.base import (
    Attachment,
    InlineImage,
    OutgoingMessage,
    Receipt,
    Transport,
    TransportError,
)
from pbm.transports.files import FileEmailTransport, FileSmsTransport

__all__ = [
    "Attachment",
    "InlineImage",
    "OutgoingMessage",
    "Receipt",
    "Transport",
    "TransportError",
    "transport_for",
]


def transport_for(channel: str, settings: Settings) -> Transport:
    """The configured transport for ``channel`` ("email" or "sms")."""
    if channel == Channel.EMAIL:
        if settings.email_transport == "smtp":
            # here: a transport loaded only when configured
            from pbm.transports.mail import SmtpTransport

            return SmtpTransport(settings)
        if settings.email_transport == "file":
            return FileEmailTransport(settings)
        raise TransportError(f"unknown EMAIL_TRANSPORT {settings.email_transport!r}",
                             permanent=False, reason="config")
    if channel == Channel.SMS:
        if settings.sms_transport == "twilio":
            # here: twilio (slow to import) only when configured
            from pbm.transports.sms import TwilioTransport

            return TwilioTransport(settings)
        if settings.sms_transport == "file":
            return FileSmsTransport(settings)
        raise TransportError(f"unknown SMS_TRANSPORT {settings.sms_transport!r}",
                             permanent=False, reason="config")
    raise TransportError(f"unknown channel {channel!r}", permanent=True, reason="config")
