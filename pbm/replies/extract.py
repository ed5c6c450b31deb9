"""From a raw reply to the player's own new text.

A pipeline of small pure functions:

    raw MIME ──message_text──▶ body text ──strip_quoted──▶ the player's new text
    SMS body ──sms_text──────────────────────────────────▶ the player's new text

``message_text`` picks the plain-text body (or turns HTML-only mail into text, dropping
quoted blocks); ``strip_quoted`` removes what the player did not write: our own earlier
prompt below the "reply above this line" marker, ``>``-quoted lines, "On ... wrote:"
headers in several languages, Outlook header blocks, forwarded messages, signatures and
"Sent from my phone" footers. Top- and bottom-posted replies both work: a header that is
followed by ``>``-quoted lines is dropped with them and the text after is kept.
"""

from __future__ import annotations

import email
import email.policy
import re
import unicodedata
from email.message import EmailMessage, Message
from html.parser import HTMLParser

from mailparser_reply.constants import MAIL_LANGUAGES

#: The marker printed at the top of every email we send; everything from it down is ours.
REPLY_MARKER = "--- Reply above this line ---"
_MARKER_RE = re.compile(r"^[\s>#=_*-]*reply\s+above\s+this\s+line", re.IGNORECASE)

#: How much of a body is searched for the player's new text (it is at the top, or just
#: below a short quote): a huge mail costs no more than this.
SCAN_CHARS = 256 * 1024

#: Placeholder line left where an HTML quote block was removed.
_QUOTE_PLACEHOLDER = "> [quoted]"

# "On <date>, <name> wrote:" and its siblings, as one line (wrapped lines are joined first).
_ATTRIBUTION_RE = re.compile(
    r"""^(?:
        on\s.+\swrote\s?:                               # English (Gmail, Apple, Thunderbird)
      | am\s.+\s(?:schrieb|geschrieben)\s?.*:            # German
      | le\s.+\sa\s[ée]crit\s?:                          # French
      | el\s.+\sescribi[óo]\s?:                          # Spanish
      | il\s.+\sha\sscritto\s?:                          # Italian
      | op\s.+\sschreef\s?.*:                            # Dutch
      | em\s.+\sescreveu\s?:                             # Portuguese
      | den\s.+\sskrev\s?.*:                             # Scandinavian
    )\s*$""",
    re.IGNORECASE | re.VERBOSE,
)
_ATTRIBUTION_START_RE = re.compile(r"^(?:(?:on|am|le|el|il|op|em|den|dne|dnia)\s|\d{4})",
                                   re.IGNORECASE)
# The quote headers mail-parser-reply knows (cs, da, ja, ko, pl, sv, zh, ... beyond ours).
_LIBRARY_ATTRIBUTIONS = tuple(
    re.compile(spec["wrote_header"], re.IGNORECASE)
    for spec in MAIL_LANGUAGES.values() if "wrote_header" in spec
)

# "Ann wrote:" without a date: a header only when quoted lines follow it.
_SHORT_ATTRIBUTION_RE = re.compile(
    r"^.{1,120}\s(?:wrote|schrieb|a\s[ée]crit|escribi[óo]|ha\sscritto|schreef|escreveu|skrev)"
    r"\s?:\s*$",
    re.IGNORECASE,
)

# Outlook-style header block: "From: ..." followed by "Sent:/Date:/To:/Subject:" lines.
_FROM_RE = re.compile(r"^\*?\s*(?:from|von|de|da|van|från|fra|od)\s*:\*?\s*\S", re.IGNORECASE)
_HEADER_FIELD_RE = re.compile(
    r"^\*?\s*(?:sent|date|to|cc|subject|gesendet|datum|an|betreff|envoy[ée]|[àa]|objet|"
    r"enviado|fecha|para|asunto|inviato|data|oggetto|verzonden|aan|onderwerp|skickat|"
    r"till|[äa]mne)\s*:",
    re.IGNORECASE,
)

# Lines that start a block which is never the player's new text.
_CUT_RE = re.compile(
    r"""^(?:
        -{2,}\s*(?:original\smessage|urspr[üu]ngliche\snachricht|message\sd'origine|
                  mensaje\soriginal|messaggio\soriginale|oorspronkelijk\sbericht|
                  forwarded\smessage|weitergeleitete\snachricht|message\stransf[ée]r[ée]|
                  mensaje\sreenviado|messaggio\sinoltrato|doorgestuurd\sbericht)\s*-{2,}
      | begin\sforwarded\smessage\s?:
      | anfang\sder\sweitergeleiteten\snachricht\s?:
      | d[ée]but\sdu\smessage\sr[ée]exp[ée]di[ée]\s?:
      | inicio\sdel\smensaje\sreenviado\s?:
      | _{10,}
      | -{10,}
    )\s*$""",
    re.IGNORECASE | re.VERBOSE,
)

# Signatures and mobile footers: everything from here on is not a command.
_FOOTER_RE = re.compile(
    r"""^(?:
        --\s*                                           # the signature delimiter "-- "
      | sent\s(?:from|via|with)\s.{0,60}                 # Sent from my iPhone / Sent via ...
      | get\soutlook\sfor\s.{0,40}
      | von\smeinem\s.{0,40}\sgesendet
      | gesendet\s(?:von|mit)\s.{0,60}
      | envoy[ée]\s(?:de|depuis|à\spartir\sde)\s.{0,60}
      | enviado\s(?:desde|de|con)\s.{0,60}
      | inviato\sda\s.{0,60}
      | verzonden\s(?:vanaf|met)\s.{0,60}
      | skickat\sfrån\s.{0,60}
      | sendt\sfra\s.{0,60}
      | enviado\sdo\smeu\s.{0,60}
    )$""",
    re.IGNORECASE | re.VERBOSE,
)

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
    if body.get_content_subtype() == "html":
        # Some clients send an empty text/plain next to the real HTML; the HTML wins then.
        return html_to_text(text)
    if not text.strip():
        try:
            html_part = msg.get_body(preferencelist=("html",))
        except (KeyError, ValueError, AttributeError):
            html_part = None
        if html_part is not None:
            return html_to_text(_part_text(html_part)[:SCAN_CHARS])
    return normalize_text(text)


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
        if tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.stopped or self.skip_depth or self.quote_stack:
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


# ------------------------------------------------------------------ body text -> new text


def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _attribution_span(lines: list[str], i: int) -> int:
    """How many lines (1-3) starting at ``i`` form a "... wrote:" header; 0 if none."""
    first = lines[i].strip()
    if not first or _is_quoted(first):
        return 0
    if _ATTRIBUTION_RE.match(first) or any(r.match(first) for r in _LIBRARY_ATTRIBUTIONS):
        return 1
    if not _ATTRIBUTION_START_RE.match(first):
        return 0
    joined = first
    for extra in (1, 2):
        if i + extra >= len(lines) or not lines[i + extra].strip():
            return 0
        joined += " " + lines[i + extra].strip()
        if _ATTRIBUTION_RE.match(joined) or any(r.match(joined) for r in _LIBRARY_ATTRIBUTIONS):
            return extra + 1
    return 0


def _is_outlook_header(lines: list[str], i: int) -> bool:
    if not _FROM_RE.match(lines[i].strip()):
        return False
    following = [ln.strip() for ln in lines[i + 1 : i + 6] if ln.strip()]
    return any(_HEADER_FIELD_RE.match(ln) for ln in following[:4])


def _next_nonblank(lines: list[str], i: int) -> int | None:
    while i < len(lines):
        if lines[i].strip():
            return i
        i += 1
    return None


def strip_quoted(text: str) -> str:
    """The player's own new text from a mail body (top- or bottom-posted)."""
    lines = normalize_text(text).split("\n")
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if _is_quoted(line):
            i += 1
            continue
        if _MARKER_RE.match(stripped):
            break
        span = _attribution_span(lines, i)
        if span or _SHORT_ATTRIBUTION_RE.match(stripped):
            nxt = _next_nonblank(lines, i + max(span, 1))
            if nxt is not None and _is_quoted(lines[nxt]):
                i = nxt  # the quote follows: drop the header, keep what comes after the quote
                continue
            if span:
                break
        if _is_outlook_header(lines, i) or _CUT_RE.match(stripped) or _FOOTER_RE.match(stripped):
            break
        kept.append(stripped)
        i += 1
    while kept and not kept[-1]:
        kept.pop()
    while kept and not kept[0]:
        kept.pop(0)
    return "\n".join(kept)


def email_new_text(raw: bytes | str | EmailMessage) -> str:
    """Raw MIME -> the player's own new text."""
    return strip_quoted(message_text(raw))


def sms_text(body: str) -> str:
    """An SMS body -> the player's text (normalised; SMS carries no quotes)."""
    return normalize_text(body).strip()


def split_lines(text: str) -> list[str]:
    """Text -> stripped lines; blank lines are kept as ``""`` (they separate blocks)."""
    return [line.strip() for line in text.split("\n")]
