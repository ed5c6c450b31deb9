"""Email out: build the MIME message once (shared by SMTP and the file transport), send by SMTP.

The shape is ``multipart/alternative[text/plain, multipart/related[text/html, image/png]]``:
clients that show HTML get the board picture inline (``cid:``), the others get plain text.
Calendar events (``pbm.deadline_calendar``) make it ``multipart/mixed[that, text/calendar]``.
What we send is marked as automatic so that auto-responders do not answer it.
"""

from __future__ import annotations

import smtplib
from email.message import EmailMessage
from email.utils import formataddr, formatdate, make_msgid

from pbm.config import Settings
from pbm.transports.base import Attachment, OutgoingMessage, Receipt, TransportError


def sender_address(settings: Settings) -> str:
    """The From address of every message we send."""
    return f"play@{settings.mail_domain}"


def bounce_address(message: OutgoingMessage, settings: Settings) -> str:
    """The envelope sender (VERP): a bounce names the outbox row it is about."""
    key = "".join(ch for ch in message.key if ch.isalnum() or ch in "-_") or "x"
    return f"bounces+{key}@{settings.mail_domain}"


def build_email(message: OutgoingMessage, settings: Settings) -> EmailMessage:
    """The complete MIME message for one outgoing email."""
    mail = EmailMessage()
    mail["From"] = formataddr((settings.mail_from_name, sender_address(settings)))
    mail["To"] = message.to
    mail["Subject"] = message.subject
    mail["Date"] = formatdate(localtime=False, usegmt=True)
    mail["Message-ID"] = message.message_id or make_msgid(domain=settings.mail_domain)
    if message.reply_to:
        mail["Reply-To"] = message.reply_to
    if message.in_reply_to:
        mail["In-Reply-To"] = message.in_reply_to
    references = list(dict.fromkeys([*message.references, *filter(None, [message.in_reply_to])]))
    if references:
        mail["References"] = " ".join(references)
    mail["Auto-Submitted"] = "auto-generated"
    mail["X-Auto-Response-Suppress"] = "All"
    if message.key:
        mail["X-Tortuga-Outbox"] = message.key
    mail.set_content(message.text or "")
    if message.html:
        mail.add_alternative(message.html, subtype="html")
        if message.images:
            html_part = mail.get_payload()[-1]
            for image in message.images:
                if f"cid:{image.cid}" not in message.html:
                    continue  # never carry a picture the HTML does not show
                html_part.add_related(
                    image.content,
                    maintype="image",
                    subtype=image.subtype,
                    cid=f"<{image.cid}>",
                    filename=f"{image.cid.split('@')[0]}.{image.subtype}",
                    disposition="inline",
                )
    for attachment in message.attachments:  # multipart/mixed [alternative, text/calendar]
        add_attachment(mail, attachment)
    return mail


def add_attachment(mail: EmailMessage, attachment: Attachment) -> None:
    """A part after the readable message, which stays whole (``text/calendar; method=...``
    as iMIP wants it: the method parameter, UTF-8; named ``deadline.ics``). Kept out of
    the alternative: a client that prefers text/calendar must not show it instead of the
    prompt."""
    kind, _, param_text = attachment.content_type.partition(";")
    maintype, _, subtype = kind.strip().partition("/")
    params = dict(p.strip().split("=", 1) for p in param_text.split(";") if "=" in p)
    if maintype == "text":
        mail.add_attachment(attachment.content.decode("utf-8"), subtype=subtype,
                            params=params, filename=attachment.filename)
    else:
        mail.add_attachment(attachment.content, maintype=maintype, subtype=subtype,
                            params=params, filename=attachment.filename)


def _smtp_error(exc: Exception) -> TransportError:
    """Classify an smtplib failure: 5xx about the recipient or message is permanent."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in exc.recipients.values()]
        permanent = bool(codes) and all(code >= 500 for code in codes)
        return TransportError(
            f"recipient refused: {exc.recipients}",
            permanent=permanent,
            reason="recipient" if permanent else "busy",
            code=str(codes[0]) if codes else "",
        )
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return TransportError(f"SMTP login failed: {exc}", permanent=False, reason="auth",
                              code=str(exc.smtp_code))
    if isinstance(exc, smtplib.SMTPSenderRefused):
        return TransportError(f"sender refused: {exc}", permanent=exc.smtp_code >= 500,
                              reason="rejected", code=str(exc.smtp_code))
    if isinstance(exc, smtplib.SMTPResponseException):
        permanent = exc.smtp_code >= 500
        return TransportError(
            f"SMTP {exc.smtp_code}: {exc.smtp_error!r}",
            permanent=permanent,
            reason="recipient" if permanent else "busy",
            code=str(exc.smtp_code),
        )
    return TransportError(f"SMTP unavailable: {exc!r}", permanent=False, reason="network")


class SmtpTransport:
    """Send email through the SMTP server of the settings (TLS and login as configured)."""

    name = "smtp"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        smtp: smtplib.SMTP
        if s.smtp_ssl:
            smtp = smtplib.SMTP_SSL(s.smtp_host, s.smtp_port, timeout=s.smtp_timeout)
        else:
            smtp = smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=s.smtp_timeout)
            if s.smtp_starttls:
                smtp.starttls()
        if s.smtp_username:
            password = s.smtp_password.get_secret_value() if s.smtp_password else ""
            smtp.login(s.smtp_username, password)
        return smtp

    def send(self, message: OutgoingMessage) -> Receipt:
        """Deliver one email; the Message-ID is the receipt."""
        if "@" not in message.to:
            raise TransportError(f"not an email address: {message.to!r}", permanent=True,
                                 reason="recipient")
        mail = build_email(message, self.settings)
        try:
            smtp = self._connect()
            try:
                smtp.send_message(mail, from_addr=bounce_address(message, self.settings),
                                  to_addrs=[message.to])
            finally:
                try:
                    smtp.quit()
                except (smtplib.SMTPException, OSError):
                    smtp.close()
        except (smtplib.SMTPException, OSError) as exc:
            raise _smtp_error(exc) from exc
        return Receipt(transport=self.name, provider_id=str(mail["Message-ID"]))
