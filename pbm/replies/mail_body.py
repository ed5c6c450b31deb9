"""MIME to text: the body part and its charset, HTML mail made text (quoted blocks left as
a placeholder), format=flowed undone, and line endings and odd spaces normalised.
"""

from __future__ import annotations

import email
import email.policy
import re
import unicodedata
from email.message import EmailMessage, Message
from html.parser import HTMLParser

#: How much of a body is searched for the player's new text (it is at the top, or just
#: below a short quote): a huge mail costs no more than this.
SCAN_CHARS = 256 * 1024


#: Placeholder line left where an HTML quote block was removed.
_QUOTE_PLACEHOLDER = "> [quoted]"


_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)


_SPACES = dict.fromkeys(map(ord, "\u00a0\u2007\u202f\t"), " ")


def normalize_text(text: str) -> str:
    """Unify line endings, drop invisible characters, turn odd spaces into plain ones."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.translate(_INVISIBLE).translate(_SPACES)
    return unicodedata.normalize("NFC", text)


# ------------------------------------------------------------------ MIME -> body text


def parse_mime(raw: bytes | str | EmailMessage) -> EmailMessage:
    """Parse raw RFC 5322 mail (bytes or str) leniently; a parsed message is used as is."""
    if isinstance(raw, EmailMessage):
        return raw
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def _part_text(part: Message) -> str:
    try:
        content = part.get_content()  # type: ignore[attr-defined]
        if isinstance(content, str):
            return content
    except (LookupError, ValueError, AssertionError, KeyError):
        pass
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        charset = part.get_content_charset() or "utf-8"
        try:
            return payload.decode(charset, "replace")
        except (LookupError, ValueError):  # unknown charset, or a NUL in its name
            return payload.decode("utf-8", "replace")
    return str(part.get_payload() or "")


def message_text(raw: bytes | str | EmailMessage) -> str:
    """The body of a mail as text: the text/plain part, else the HTML part made text.

    Attached messages (forwarded mail) and attachments are never read.
    """
    msg = parse_mime(raw)
    try:
        body = msg.get_body(preferencelist=("plain", "html"))
    except (KeyError, ValueError, AttributeError):
        body = None
    if body is None:
        if msg.get_content_maintype() != "text":
            return ""
        body = msg
    text = _part_text(body)[:SCAN_CHARS]
    if body.get_content_subtype() == "plain" and \
            str(body.get_param("format") or "").lower() == "flowed":
        delsp = str(body.get_param("delsp") or "").lower() == "yes"
        text = unflow(normalize_text(text), delsp=delsp)
    if body.get_content_subtype() == "html":
        # Some clients send an empty text/plain next to the real HTML; the HTML wins then.
        return html_to_text(text)
    try:
        html_part = msg.get_body(preferencelist=("html",))
    except (KeyError, ValueError, AttributeError):
        html_part = None
    if html_part is not None:
        html = _part_text(html_part)[:SCAN_CHARS]
        # Text the player struck through is taken back; the text part has lost the strike.
        if not text.strip() or _STRUCK_RE.search(html):
            return html_to_text(html)
    return normalize_text(text)


#: HTML that strikes text through.
_STRUCK_RE = re.compile(r"<(?:s|strike|del)\b|text-decoration[^;\"'>]*line-through",
                        re.IGNORECASE)


_STOP_IDS = frozenset(
    {"divrplyfwdmsg", "appendonsend", "x_divrplyfwdmsg", "mail-editor-reference-message-container"}
)


class _HTMLText(HTMLParser):
    """HTML to text, leaving a quote placeholder where a quoted block was."""

    _BLOCK = frozenset(
        {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol",
         "pre", "hr", "section", "article", "header", "footer"}
    )
    _SKIP = frozenset({"style", "script", "head", "title"})
    _VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "area", "base", "col", "embed",
                       "source", "track", "wbr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip_depth = 0  # inside style/script/head
        self.quote_stack: list[str] = []  # tags that opened a quoted block
        self.struck: list[str] = []  # tags that opened struck-through text
        self.stopped = False

    @staticmethod
    def _is_quote(tag: str, attrs: dict[str, str]) -> bool:
        classes = attrs.get("class", "").lower()
        ident = attrs.get("id", "").lower()
        if tag == "blockquote":
            return True
        quote_classes = ("gmail_quote", "yahoo_quoted", "moz-cite-prefix", "protonmail_quote",
                         "gmail_attr", "x_gmail_quote")
        return any(q in classes for q in quote_classes) or ident in ("yahoo_quoted",)

    @staticmethod
    def _is_stop(attrs: dict[str, str]) -> bool:
        ident = attrs.get("id", "").lower()
        classes = attrs.get("class", "").lower()
        return (
            ident in _STOP_IDS
            or "outlookmessageheader" in classes
        )

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        if self.stopped:
            return
        attrs = {k.lower(): (v or "") for k, v in attrs_list}
        if tag in self._SKIP:
            self.skip_depth += 1
            return
        if self.quote_stack:
            if tag == self.quote_stack[-1] and tag not in self._VOID:
                self.quote_stack.append(tag)
            return
        if self._is_stop(attrs):
            self.stopped = True
            return
        if self.struck:
            if tag == self.struck[-1] and tag not in self._VOID:
                self.struck.append(tag)
            return
        if tag not in self._VOID and (tag in ("s", "strike", "del") or "line-through" in (
                attrs.get("style", "").lower())):
            self.struck.append(tag)
            return
        if self._is_quote(tag, attrs) and tag not in self._VOID:
            self.quote_stack.append(tag)
            self.parts.append("\n" + _QUOTE_PLACEHOLDER + "\n")
            return
        if tag in self._BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.stopped:
            return
        if tag in self._SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if self.quote_stack:
            if tag == self.quote_stack[-1]:
                self.quote_stack.pop()
            return
        if self.struck:
            if tag == self.struck[-1]:
                self.struck.pop()
            return
        if tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.stopped or self.skip_depth or self.quote_stack or self.struck:
            return
        self.parts.append(re.sub(r"[ \t\r\n]+", " ", data))


def html_to_text(html: str) -> str:
    """Visible text of an HTML mail, with quoted blocks replaced by a ``>`` placeholder."""
    parser = _HTMLText()
    try:
        parser.feed(html)
        parser.close()
    except (AssertionError, ValueError):  # pragma: no cover - HTMLParser is very lenient
        pass
    text = normalize_text("".join(parser.parts))
    lines = [line.strip() for line in text.split("\n")]
    return "\n".join(lines)


def unflow(text: str, *, delsp: bool) -> str:
    """Undo RFC 3676 format=flowed: join soft line breaks (a line ending in a space).

    Quote depth is kept (lines of different depth never join), space-stuffing is removed,
    and with ``delsp`` the space before the soft break is deleted too.
    """
    out: list[str] = []
    buffer: str | None = None
    depth_of_buffer = 0

    def flush() -> None:
        nonlocal buffer
        if buffer is not None:
            out.append((">" * depth_of_buffer + " " if depth_of_buffer else "") + buffer)
            buffer = None

    for raw_line in text.split("\n"):
        depth = len(raw_line) - len(raw_line.lstrip(">"))
        content = raw_line[depth:]
        if content.startswith(" "):
            content = content[1:]  # space-stuffing (or the space after ">")
        if buffer is not None and depth != depth_of_buffer:
            flush()
        is_sig = content == "-- "
        soft = content.endswith(" ") and not is_sig
        if soft and delsp:
            content = content[:-1]
        if buffer is None:
            buffer, depth_of_buffer = content, depth
        else:
            buffer += content
        if not soft:
            flush()
    flush()
    return "\n".join(out)
