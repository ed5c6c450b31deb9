"""Email out: build the MIME message once (shared by SMTP and the file transport), send by SMTP.

The shape is ``multipart/alternative[text/plain, multipart/related[text/html, image/png]]``:
clients that show HTML get the board picture inline (``cid:``), the others get plain text.
Calendar events (``pbm.deadlines.calendar``) make it ``multipart/mixed[that, text/calendar]``.
What we send is marked as automatic so that auto-responders do not answer it.
"""

from __future__ import annotations

import binascii
import email.policy
import email.quoprimime as quoprimime
import functools
import hashlib
import os
import random
import re
import smtplib
import sys
import threading
from email.message import EmailMessage
from email.utils import formataddr, formatdate, make_msgid
from typing import Any

from cachetools import LRUCache, cached

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
            parts = mail.get_payload()  # multipart/alternative: plain then HTML
            assert isinstance(parts, list)
            html_part = parts[-1]
            assert isinstance(html_part, EmailMessage)
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
        """Deliver one email; the Message-ID is the receipt.

        The connection stays open for the next message of this process and thread (a
        worker sends a reply's messages one after the other; a new connection, EHLO and
        QUIT for each was a good part of its time). A kept connection the server has
        closed meanwhile is replaced once; after any other error it is closed."""
        if "@" not in message.to:
            raise TransportError(f"not an email address: {message.to!r}", permanent=True,
                                 reason="recipient")
        envelope_from = bounce_address(message, self.settings)
        mail: EmailMessage | None = None
        try:
            if (envelope_from + message.to).isascii():
                data, message_id = email_bytes(message, self.settings, linesep="\r\n")
            else:  # SMTPUTF8: the email package's generator knows how
                mail = build_email(message, self.settings)
                data, message_id = None, str(mail["Message-ID"])
        except ValueError as exc:  # a header with a line break (HeaderInjection) and kin
            raise TransportError(f"refused to write this email: {exc}", permanent=True,
                                 reason="rejected") from exc
        smtp = _kept_connection(self.settings)
        try:
            if smtp is not None:
                try:
                    _hand_over(smtp, envelope_from, message, data, mail)
                except (smtplib.SMTPServerDisconnected, ConnectionError):
                    _forget_connection(self.settings)  # closed while idle: one new try
                    smtp = None
            if smtp is None:
                smtp = self._connect()
                _keep_connection(self.settings, smtp)
                _hand_over(smtp, envelope_from, message, data, mail)
        except (smtplib.SMTPException, OSError) as exc:
            if not isinstance(exc, smtplib.SMTPResponseException | smtplib.SMTPRecipientsRefused):
                _forget_connection(self.settings)  # the session is in doubt
            raise _smtp_error(exc) from exc
        except BaseException:
            _forget_connection(self.settings)
            raise
        return Receipt(transport=self.name, provider_id=message_id)


# --- the cheap path: the same MIME, written as bytes ------------------------------------
#
# ``build_email`` builds an ``EmailMessage`` tree and lets the ``email`` package parse every
# header into objects and fold it again on output: about 6 ms of Python per message, most
# of a delivery's CPU. ``email_bytes`` writes the very same bytes (same parts in the same
# order, same headers in the same order, same transfer encodings, chosen by the same
# function) from strings: a header is folded by the policy only when it needs it (not
# plain short ASCII, or an address), and that folding is memoised; the board picture's
# base64 part is encoded once per picture and process. ``tests/workers/test_mime_bytes.py``
# compares both builders byte for byte (boundaries and Date aside).

_POLICY = email.policy.default
_ADDRESS_HEADERS = frozenset({"from", "to", "reply-to", "cc", "sender"})


def _fold(name: str, value: str) -> str:
    """The header as the policy writes it (parsed, encoded and folded)."""
    return str(_POLICY.header_factory(name, value).fold(policy=_POLICY))


#: folded headers remembered per process: the ones that recur (From, an attachment's
#: Content-Type, a long Subject of the same turn to several seats); 4096 filled with
#: headers seen once (a worker's resident memory grew with it for 4,000 tasks, half of the
#: calls missing) and kept about 1.5 MB
FOLDED_KEPT = 256
folded_header = functools.lru_cache(maxsize=FOLDED_KEPT)(_fold)


#: a bare address (``ann@example.org``): an address header writes it as it is
_BARE_ADDRESS = re.compile(r"[A-Za-z0-9_+-]+(\.[A-Za-z0-9_+-]+)*@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*")


class HeaderInjection(ValueError):
    """A header value with a line break: written as it is, it would start a header of its
    own (``Bcc: ...``). Refused as the email package refuses it (``ValueError``)."""


def _header(name: str, value: str) -> str:
    if "\n" in value or "\r" in value:
        raise HeaderInjection(f"the {name} header's value contains a line break: {value!r}")
    if (len(name) + len(value) < 77 and value.isascii()
            and (name.lower() not in _ADDRESS_HEADERS or _BARE_ADDRESS.fullmatch(value))):
        return f"{name}: {value}\n"
    return folded_header(name, value)


def _boundary(*texts: str) -> str:
    """A boundary like the generator's, absent from every text."""
    while True:
        boundary = "=" * 15 + f"{random.randrange(sys.maxsize):019d}" + "=="
        if not any(boundary in text for text in texts):
            return boundary


#: base64 characters per line: ``email.contentmanager._encode_base64`` encodes
#: ``max_line_length // 4 * 3`` bytes a line (57 for 78), each to 4/3 of it plus "\n"
_MAX_LINE = int(_POLICY.max_line_length or 0)  # 78
_BASE64_LINE = _MAX_LINE // 4 * 4


def base64_lines(data: bytes) -> str:
    """``email.contentmanager._encode_base64(data, 78)``: the same lines, encoded by one
    ``binascii`` call and cut into lines, instead of one call and one string a line (a
    picture is 300 to 400 lines, an HTML body about as many)."""
    encoded = binascii.b2a_base64(data, newline=False).decode("ascii")
    step = _BASE64_LINE
    return "".join([encoded[at:at + step] + "\n" for at in range(0, len(encoded), step)])


#: the bytes quoted-printable writes as they are in a body (``quoprimime``), and newlines
_QP_KEPT = (b" !\"#$%&'()*+,-./0123456789:;<>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
            b"abcdefghijklmnopqrstuvwxyz{|}~\t\n")


def encode_text(text: str) -> tuple[str, str]:
    """``email.contentmanager.encode_text(text, "utf-8", None, policy)`` for our policy
    (``cte_type`` 8bit, lines of 78, "\n"): the same choice of transfer encoding and the
    same body, with base64 written by ``base64_lines``. The choice between
    quoted-printable and base64 compares both encodings of the first ten lines; when the
    bytes that quoted-printable must quote (3 characters each) already make it longer than
    base64, it is base64 without writing the quoted-printable."""
    lines = text.encode("utf-8").splitlines()
    if max(map(len, lines), default=0) <= _MAX_LINE:
        body = b"\n".join(lines) + b"\n"
        return ("7bit" if body.isascii() else "8bit"), body.decode("ascii", "surrogateescape")
    sniff = b"\n".join(lines[:10]) + b"\n"
    base64_size = len(binascii.b2a_base64(sniff))
    sniff_qp: str | None = None
    if len(sniff) + 2 * len(sniff.translate(None, _QP_KEPT)) <= base64_size:
        sniff_qp = quoprimime.body_encode(sniff.decode("latin-1"), _MAX_LINE)
    if sniff_qp is None or len(sniff_qp) > base64_size:
        return "base64", base64_lines(b"\n".join(lines) + b"\n")
    if len(lines) <= 10:
        return "quoted-printable", sniff_qp
    return "quoted-printable", quoprimime.body_encode(
        (b"\n".join(lines) + b"\n").decode("latin-1"), _MAX_LINE)


def _text_part(text: str, subtype: str) -> tuple[str, str]:
    """The Content-* headers and the body of a text part, as ``set_content`` makes them."""
    cte, payload = encode_text(text)
    return (f'Content-Type: text/{subtype}; charset="utf-8"\n'
            f"Content-Transfer-Encoding: {cte}\n"), payload


#: encoded picture parts kept per process
PICTURE_PARTS_KEPT = 64
_PICTURE_PARTS: LRUCache[tuple[str, str, bytes], str] = LRUCache(maxsize=PICTURE_PARTS_KEPT)


def _picture_part_key(cid: str, subtype: str, content: bytes) -> tuple[str, str, bytes]:
    """A digest of the PNG, not the PNG itself: a key holding the bytes kept every
    remembered picture twice (its bytes and its base64), about 1.2 MB a process."""
    return cid, subtype, hashlib.blake2b(content, digest_size=16).digest()


@cached(_PICTURE_PARTS, key=_picture_part_key, lock=threading.Lock())
def picture_part(cid: str, subtype: str, content: bytes) -> str:
    """A picture's whole part (headers and base64), encoded once per picture and process."""
    return (f"Content-Type: image/{subtype}\n"
            "Content-Transfer-Encoding: base64\n"
            + picture_headers(cid, subtype)
            + "MIME-Version: 1.0\n\n" + base64_lines(content))


#: a Content-ID the policy writes as it is (``board-1-7@board.tortuga``), with its name
_PLAIN_CID = re.compile(r"[a-z]+(-[0-9]+)*@[a-z]+(\.[a-z]+)*")


def picture_headers(cid: str, subtype: str) -> str:
    """The picture's Content-Disposition and Content-ID as the policy folds them: a plain
    short Content-ID (ours) is written as it is, without parsing both headers (0.08 ms a
    picture); any other is folded by the policy."""
    name = f"{cid.split('@')[0]}.{subtype}"
    disposition = f'inline; filename="{name}"'
    if (_PLAIN_CID.fullmatch(cid) and subtype.isalnum() and subtype.isascii()
            and len(disposition) <= 50 and len(cid) <= 60):
        return f"Content-Disposition: {disposition}\nContent-ID: <{cid}>\n"
    # once a picture (its whole part is remembered): not through the folded-header memo
    return _fold("Content-Disposition", disposition) + _fold("Content-ID", f"<{cid}>")


def _multipart(kind: str, parts: list[str], head: str = "") -> str:
    """A multipart of these (already written) parts; ``head`` precedes its Content-Type."""
    boundary = _boundary(*parts)
    content_type = f'Content-Type: multipart/{kind}; boundary="{boundary}"\n'
    if len(content_type) > 79:
        content_type = f'Content-Type: multipart/{kind};\n boundary="{boundary}"\n'
    delimiter = f"--{boundary}\n"
    return (head + content_type + "\n" + delimiter + f"\n{delimiter}".join(parts)
            + f"\n--{boundary}--\n")


def _attachment_part(attachment: Attachment) -> str | None:
    """A text attachment as ``add_attachment`` writes it; None for another kind."""
    kind, _, param_text = attachment.content_type.partition(";")
    maintype, _, subtype = kind.strip().partition("/")
    if maintype != "text":
        return None
    params = dict(p.strip().split("=", 1) for p in param_text.split(";") if "=" in p)
    cte, payload = encode_text(attachment.content.decode("utf-8"))
    extra = "".join(f'; {key}="{value}"' for key, value in params.items())
    return (f"Content-Transfer-Encoding: {cte}\n"
            + folded_header("Content-Disposition", f'attachment; filename="{attachment.filename}"')
            + folded_header("Content-Type", f'text/{subtype}; charset="utf-8"{extra}')
            + "MIME-Version: 1.0\n\n" + payload)


def email_bytes(message: OutgoingMessage, settings: Settings, linesep: str = "\n"
                ) -> tuple[bytes, str]:
    """The bytes of ``build_email(message, settings)`` (boundaries and Date aside), and
    its Message-ID, without building the ``EmailMessage``: see the note above."""
    message_id = message.message_id or make_msgid(domain=settings.mail_domain)
    attached = [_attachment_part(a) for a in message.attachments]
    if any(part is None for part in attached):  # not one we write: the general path
        mail = build_email(message, settings)
        mail.replace_header("Message-ID", message_id)
        data = mail.as_bytes(policy=_POLICY.clone(linesep=linesep))
        return data, message_id
    head = [_header("From", formataddr((settings.mail_from_name, sender_address(settings)))),
            _header("To", message.to), _header("Subject", message.subject),
            _header("Date", formatdate(localtime=False, usegmt=True)),
            _header("Message-ID", message_id)]
    if message.reply_to:
        head.append(_header("Reply-To", message.reply_to))
    if message.in_reply_to:
        head.append(_header("In-Reply-To", message.in_reply_to))
    references = list(dict.fromkeys([*message.references, *filter(None, [message.in_reply_to])]))
    if references:
        head.append(_header("References", " ".join(references)))
    head.append("Auto-Submitted: auto-generated\nX-Auto-Response-Suppress: All\n")
    if message.key:
        head.append(_header("X-Tortuga-Outbox", message.key))
    text_head, text_body = _text_part(message.text or "", "plain")
    if message.html:
        html_head, html_body = _text_part(message.html, "html")
        pictures = [picture_part(image.cid, image.subtype, image.content)
                    for image in message.images if f"cid:{image.cid}" in message.html]
        if pictures:
            html = _multipart("related", [html_head + "\n" + html_body, *pictures],
                              head="MIME-Version: 1.0\n")
        else:
            html = html_head + "MIME-Version: 1.0\n\n" + html_body
        body = _multipart("alternative", [text_head + "\n" + text_body, html])
    elif not attached:  # a single part: set_content puts MIME-Version after its headers
        body = text_head + "MIME-Version: 1.0\n\n" + text_body
    else:
        body = text_head + "\n" + text_body
    if attached:
        body = _multipart("mixed", [body, *[part for part in attached if part is not None]])
    if body.startswith("Content-Type: multipart/"):
        body = "MIME-Version: 1.0\n" + body
    text = "".join(head) + body
    if linesep != "\n":
        text = text.replace("\n", linesep)
    return text.encode("ascii", "surrogateescape"), message_id


def _hand_over(smtp: smtplib.SMTP, envelope_from: str, message: OutgoingMessage,
               data: bytes | None, mail: EmailMessage | None) -> None:
    """One message over an open connection: our bytes, or the email package's."""
    if data is not None:
        smtp.sendmail(envelope_from, [message.to], data)
    else:
        assert mail is not None
        smtp.send_message(mail, from_addr=envelope_from, to_addrs=[message.to])


#: the open SMTP connection of each thread, with the process and settings it is for
_KEPT = threading.local()


def _connection_key(settings: Settings) -> tuple[Any, ...]:
    return (os.getpid(), settings.smtp_host, settings.smtp_port, settings.smtp_ssl,
            settings.smtp_starttls, settings.smtp_username)


def _kept_connection(settings: Settings) -> smtplib.SMTP | None:
    kept = getattr(_KEPT, "connection", None)
    if kept is None:
        return None
    if kept[0] != _connection_key(settings):
        _forget_connection(settings)
        return None
    return kept[1]  # type: ignore[no-any-return]


def _keep_connection(settings: Settings, smtp: smtplib.SMTP) -> None:
    _KEPT.connection = (_connection_key(settings), smtp)


def _forget_connection(_settings: Settings | None = None) -> None:
    """Close this thread's kept connection (quietly: it may be gone already)."""
    kept = getattr(_KEPT, "connection", None)
    _KEPT.connection = None
    if kept is None or kept[0][0] != os.getpid():
        return  # another process's socket (inherited by fork): not ours to QUIT
    try:
        kept[1].quit()
    except (smtplib.SMTPException, OSError):
        kept[1].close()
