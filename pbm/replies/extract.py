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

from pbm.replies.words import META, VERBS

#: The marker printed at the top of every email we send; everything from it down is ours.
REPLY_MARKER = "--- Reply above this line ---"
_MARKER_RE = re.compile(r"^[\s>#=_*-]*reply\s+above\s+this\s+line", re.IGNORECASE)

#: How much of a body is searched for the player's new text (it is at the top, or just
#: below a short quote): a huge mail costs no more than this.
SCAN_CHARS = 256 * 1024

#: Placeholder line left where an HTML quote block was removed.
_QUOTE_PLACEHOLDER = "> [quoted]"

# The verbs that end a quote attribution ("... wrote:") in the languages Gmail, Outlook,
# Apple Mail and Thunderbird ship, with the line's optional trailing "(...)" and colon.
_WROTE = (
    r"(?:wrote|has\s+written|schrieb|geschrieben|a\s+[ée]crit|escribi[óo]|ha\s+scritto|"
    r"scrive|schreef|escreveu|escrito|skrev|kirjoitti|napisa[łl](?:\(a\)|a)?|pisze|"
    r"napsal(?:\(a\)|a)?|пишет|написал(?:\(а\)|а)?|пише|написав(?:\(ла\)|ла)?|"
    r"(?:şunu|şunları|sunu|sunlari)\s+yazd[ıi]|yazd[ıi]|έγραψε|[ií]rta|a\s+scris|写道|寫道|"
    r"작성|のメール|escribe)"
)
_WROTE_END_RE = re.compile(rf"{_WROTE}\s*(?:\([^()]*\))?\s*[:：]\s*$", re.IGNORECASE)
# Thunderbird and Apple put the verb mid-line: "Op 04-03-2025 om 10:02 schreef Ann:"
_WROTE_MID_RE = re.compile(rf"(?:^|\s){_WROTE}(?:\s|,).*[:：]\s*$", re.IGNORECASE)
# Gmail in Russian, Japanese, ... ends the attribution with the address alone:
# "вт, 4 мар. 2025 г. в 10:02, Tortuga <play@x>:"
_ADDRESS_END_RE = re.compile(r"[^\s<>@]+@[^\s<>@]+>?\)?\s*[:：]\s*$")
# What marks a line as (the start of) a dated header: a time, a year, or an address.
_DATEISH_RE = re.compile(r"\d{1,2}[:.]\d{2}\b|\b\d{4}\b|\d{4}\s*年|\d+\s*(?:年|년)|@|<")

# The quote headers mail-parser-reply knows (cs, da, ja, ko, pl, sv, zh, ... beyond ours).
_LIBRARY_ATTRIBUTIONS = tuple(
    re.compile(spec["wrote_header"], re.IGNORECASE)
    for spec in MAIL_LANGUAGES.values() if "wrote_header" in spec
)

# Outlook-style header block: "From: ..." followed by "Sent:/Date:/To:/Subject:" lines, in
# the languages Outlook ships (compared folded: lower case, no accents; colon may be wide).
_FROM_WORDS = (
    "from|von|de|da|van|fran|fra|od|lahettaja|от|від|kimden|差出人|发件人|寄件者|寄件人|"
    "보낸 사람|보낸사람|απο|felado|de la|expediteur|remetente|afzender|avsandare|afsender|"
    "avsender|absender|mittente|remitente"
)
_FIELD_WORDS = (
    "sent|date|to|cc|bcc|subject|reply-to|importance|gesendet|datum|an|betreff|envoye|a|"
    "objet|enviado|enviada|fecha|para|asunto|assunto|inviato|data|oggetto|verzonden|aan|"
    "onderwerp|skickat|till|amne|kopia|sendt|til|emne|dato|kopi|lahetetty|vastaanottaja|"
    "aihe|paivamaara|kopio|wyslano|do|temat|dw|odeslano|komu|predmet|kopie|отправлено|"
    "кому|тема|копия|дата|надiслано|надіслано|копiя|копія|gonderildi|gonderilme tarihi|kime|"
    "konu|tarih|bilgi|送信日時|宛先|件名|日付|发送时间|收件人|主题|抄送|日期|寄件日期|收件者|"
    "主旨|副本|보낸 날짜|받는 사람|제목|참조|σταλθηκε|προς|θεμα|κοιν|ημερομηνια|elkuldve|"
    "cimzett|targy|datum|masolat|trimis|catre|subiect|envoye le|gesendet am"
)


def _fold_unicode(line: str) -> str:
    """Lower case without accents (Hangul and kana decompose the same on both sides)."""
    decomposed = unicodedata.normalize("NFKD", line)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


_FROM_WORDS, _FIELD_WORDS = _fold_unicode(_FROM_WORDS), _fold_unicode(_FIELD_WORDS)
_FROM_RE = re.compile(rf"^[*\s]*(?:{_FROM_WORDS})\s*\*?\s*[:：]\*?\s*\S", re.IGNORECASE)
_HEADER_FIELD_RE = re.compile(rf"^[*\s]*(?:{_FIELD_WORDS})\s*\*?\s*[:：]", re.IGNORECASE)

# Lines that start a block which is never the player's new text: "-----Original
# Message-----" and "-------- Weitergeleitete Nachricht --------" in any language,
# Outlook's underscore rule, "Begin forwarded message:".
_CUT_RE = re.compile(
    r"""^(?:
        -{2,}\s*[^\s-][^-]{1,50}?\s*-{2,}
      | begin\sforwarded\smessage\s?:
      | anfang\sder\sweitergeleiteten\snachricht\s?:
      | d[ée]but\sdu\smessage\sr[ée]exp[ée]di[ée]\s?:
      | inicio\sdel\smensaje\sreenviado\s?:
      | _{10,}
      | -{10,}
    )\s*$""",
    re.IGNORECASE | re.VERBOSE,
)

# Signatures and mobile / webmail footers: everything from here on is not a command.
_FOOTER_RE = re.compile(
    r"""^(?:
        --\s*                                           # the signature delimiter "-- "
      | sent\s(?:from|via|with|using)\s.{0,60}
      | get\s(?:outlook|bluemail)\sfor\s.{0,40}
      | von\smeine[mr]?\s.{0,40}\sgesendet.{0,20}
      | gesendet\s(?:von|mit|vom|aus)\s.{0,60}
      | envoy[ée]\s(?:de|depuis|à\spartir\sde|avec|par)\s.{0,60}
      | enviado\s(?:desde|de|con|do|pelo|a\spartir)\s.{0,60}
      | inviato\s(?:da|con)\s.{0,60}
      | (?:verzonden|verstuurd)\s(?:vanaf|met|van)\s.{0,60}
      | skickat\s(?:från|med)\s.{0,60}
      | sendt\s(?:fra|med)\s.{0,60}
      | l[äa]hetetty\s.{0,60}
      | wys[łl]ano\sz\s.{0,60}
      | wys[łl]ane\sz\s.{0,60}
      | odesl[áa]no\sz\s.{0,60}
      | отправлено\s(?:с|из)\s.{0,60}
      | надіслано\sз\s.{0,60}
      | .{0,40}\sg[öo]nderildi
      | .{0,40}から送信
      | 发自我的.{0,40} | 从我的.{0,40}发送 | 從我的.{0,40}傳送 | 寄自我的.{0,40}
      | .{0,40}에서\s?보냄
      | στάλθηκε\sαπό\s.{0,60}
      | elk[üu]ldve\s(?:az?\s)?.{0,60}
      | trimis\sde\spe\s.{0,60}
      | (?:this\se-?mail\shas\sbeen\s)?(?:virus-free|checked\sby\savast).{0,80}
      | diese\se-mail\swurde\svon\s.{0,40}\sgeprüft.{0,20}
      | (?:mail\s)?(?:gesendet|sent)\s(?:mit|with)\s(?:der\s)?(?:gmx|web\.de|proton).{0,60}
    )$""",
    re.IGNORECASE | re.VERBOSE,
)

# Corporate "external sender" banners (above the reply) and confidentiality disclaimers
# (below it): the paragraph holding one is dropped, wherever it stands.
_BANNER_RE = re.compile(
    r"""(?:
        \[\s*(?:external|extern|externe|externo|esterno|ext)\s*\]
      | ^(?:caution|warning|attention|achtung|vorsicht|atenci[óo]n|attenzione|let\sop|
            varning|advarsel|huomio|uwaga|upozorn[eě]n[ií]|внимание|увага|dikkat|注意|
            προσοχ[ηή]|figyelem|aten[țt]ie|external\semail|external\ssender|extern(?:e)?\s
            (?:e-?mail|absender|nachricht))\b.{0,40}(?:external|extern|outside|
            au[ßs]erhalb|ext[ée]rieur|fuera|esterno|buiten|utanf[öo]r|udefra|ulkopuol|
            spoza|mimo|извне|ззовні|d[ıi][şs]ar[ıi]|外部|εξωτερικ|k[üu]ls[őo]|exterior)
      | originated\sfrom\soutside | from\soutside\s(?:of\s)?(?:the|your|our)\sorgani[sz]ation
      | do\snot\sclick\slinks | unless\syou\s(?:recogni[sz]e|know)\sthe\ssender
      | you\sdon'?t\soften\sget\se-?mail\sfrom | learn\swhy\sthis\sis\simportant
      | this\smessage\scame\sfrom\soutside
      | stammt\svon\seinem\sexternen | von\sau[ßs]erhalb\s(?:ihrer|der)\sorganisation
      | provient\sde\sl'ext[ée]rieur | exp[ée]diteur\sexterne
      | procede\sde\sfuera | remitente\sexterno | mittente\sesterno
      | intended\srecipient | confidential(?:ity)?\snotice | this\s(?:e-?mail|message)
        \s(?:and\sany\sattachments?\s)?(?:is|are|may\sbe)\s(?:strictly\s)?confidential
      | privileged\s(?:and|or)\sconfidential | please\sconsider\sthe\senvironment
      | disclaimer\s?: | vertrauliche\sinformationen | nicht\sder\srichtige\sadressat
      | destinataire\sde\sce\smessage | ce\smessage\set\stoutes\sles\spi[èe]ces
      | destinatario\s(?:de\seste|di\squesto) | informaci[óo]n\sconfidencial
      | scanned\s(?:for\sviruses|by) | protected\sby\s\w+\semail\ssecurity
    )""",
    re.IGNORECASE | re.VERBOSE,
)

# Shapes of signature lines: phone numbers, web and mail addresses, social handles.
_PHONE_RE = re.compile(r"(?<![\w])\+?\(?\d[\d\s().\-/]{6,}\d(?![\w])")
_URL_RE = re.compile(
    r"(?:https?://|www\.)\S+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b|"
    r"\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|de|fr|es|it|nl|co|io|uk|eu|info|biz|ch|at|be|se|"
    r"dk|no|fi|pl|cz|ru|ua|tr|jp|cn|kr|gr|hu|ro|pt|br|us|ca|au)\b(?:/\S*)?",
    re.IGNORECASE,
)
_SIGNATURE_LABEL_RE = re.compile(
    r"^(?:(?:tel|tél|phone|mobile|mob|cell|fax|m|t|p|f|ph|o|d|direct|office|work|home|"
    r"telefon|handy|mobil|móvil|movil|cel|celular|tlf|puh|gsm|tel[eé]fono|telefone|"
    r"cellulare|web|website|site|email|e-mail|mail|skype|linkedin|twitter|x|instagram|"
    r"www|url|fon)\b\.?\s*[:.|/-]?\s*)+",
    re.IGNORECASE,
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
    if body.get_content_subtype() == "plain" and \
            str(body.get_param("format") or "").lower() == "flowed":
        delsp = str(body.get_param("delsp") or "").lower() == "yes"
        text = unflow(normalize_text(text), delsp=delsp)
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


def _is_attribution(text: str) -> bool:
    """True for a whole "On <date>, <name> wrote:" line, in any supported language."""
    if (_WROTE_END_RE.search(text) or _WROTE_MID_RE.search(text)) and _DATEISH_RE.search(text):
        return True
    if _ADDRESS_END_RE.search(text) and re.search(r"\d", text) and len(text) < 300:
        return True
    if re.search(r"\bezt\s+[ií]rta\b", text, re.IGNORECASE):
        return True
    return any(r.match(text) for r in _LIBRARY_ATTRIBUTIONS)


def _attribution_span(lines: list[str], i: int) -> int:
    """How many lines (1-3) starting at ``i`` form a "... wrote:" header; 0 if none."""
    first = lines[i].strip()
    if not first or _is_quoted(first):
        return 0
    if _is_attribution(first):
        return 1
    if not _DATEISH_RE.search(first) or len(first) > 250:
        return 0  # a wrapped header starts with its date, time or address
    joined = first
    for extra in (1, 2):
        if i + extra >= len(lines) or not lines[i + extra].strip():
            return 0
        joined += " " + lines[i + extra].strip()
        if _is_attribution(joined):
            return extra + 1
    return 0


def _is_short_attribution(line: str) -> bool:
    """"Ann wrote:" without a date: a header only when quoted lines follow it."""
    return len(line) <= 160 and bool(_WROTE_END_RE.search(line)) and " " in line.strip()


def _is_outlook_header(lines: list[str], i: int) -> bool:
    first = _fold_unicode(lines[i].strip())
    if not _FROM_RE.match(first):
        return False
    following = [_fold_unicode(ln.strip()) for ln in lines[i + 1 : i + 7] if ln.strip()]
    return sum(bool(_HEADER_FIELD_RE.match(ln)) for ln in following[:5]) >= 1


def _next_nonblank(lines: list[str], i: int) -> int | None:
    while i < len(lines):
        if lines[i].strip():
            return i
        i += 1
    return None


def _is_banner(line: str) -> bool:
    return bool(_BANNER_RE.search(line))


def _without_contact_details(line: str) -> str:
    """A line with phone numbers, web and mail addresses and their labels taken out.

    Table talk keeps them (``SAY call me at ...``); a line that was nothing but contact
    details becomes empty and is dropped like a signature line.
    """
    if re.match(r"^[\W_]*(?:say|tell|chat|msg)\b", line, re.IGNORECASE):
        return line
    cleaned = _URL_RE.sub(" ", line)
    if sum(ch.isdigit() for ch in cleaned) >= 7:
        cleaned = _PHONE_RE.sub(" ", cleaned)
    if cleaned == line:
        return line
    rest = " ".join(re.sub(r"[|·•,;/]+", " ", cleaned).split())
    while True:
        shorter = _SIGNATURE_LABEL_RE.sub("", rest).strip(" -:.")
        if shorter == rest:
            return rest
        rest = shorter


def _split_reply(lines: list[str], limit: int | None = None) -> tuple[list[str], int | None]:
    """The player's lines, and where an unquoted original begins (None if there is none).

    With ``limit``, stop once that many lines are kept: only the start is parsed anyway, so
    a long reply costs what a short one does."""
    kept: list[str] = []
    i = 0
    in_banner = False
    while i < len(lines) and (limit is None or len(kept) < limit):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            in_banner = False
            kept.append("")
            i += 1
            continue
        if in_banner or _is_banner(stripped):
            in_banner = True  # drop the banner's whole paragraph
            i += 1
            continue
        if _is_quoted(line):
            i += 1
            continue
        if _MARKER_RE.match(stripped):
            return kept, i
        span = _attribution_span(lines, i)
        if span or _is_short_attribution(stripped):
            nxt = _next_nonblank(lines, i + max(span, 1))
            if nxt is not None and _is_quoted(lines[nxt]):
                i = nxt  # the quote follows: drop the header, keep what comes after the quote
                continue
            if span:
                return kept, None
        if _is_outlook_header(lines, i) or _CUT_RE.match(stripped):
            return kept, i
        if _FOOTER_RE.match(stripped):
            return kept, None
        kept.append(stripped)
        i += 1
    return kept, None


def _tidy(kept: list[str]) -> str:
    lines = [_without_contact_details(line) if line else "" for line in kept]
    lines = [line for i, line in enumerate(lines) if line or (kept[i] == "")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def strip_quoted(text: str, max_lines: int | None = None) -> str:
    """The player's own new text from a mail body (top- or bottom-posted); with
    ``max_lines``, at least its first ``max_lines`` lines (and not much more)."""
    kept, _original = _split_reply(normalize_text(text).split("\n"),
                                   None if max_lines is None else 2 * max_lines)
    return _tidy(kept)


# An answer typed inside an unquoted original often carries a marker: "-> REVEAL 3",
# "[Ann] VOTE 2", "ANSWER: ROW", "<<< 3".
_INLINE_MARK_RE = re.compile(
    r"^(?:-+>|=+>|→|»|<{2,}|\*{2,}|\[[^\]]{1,24}\]|(?:my\s+)?(?:answer|reply|response|"
    r"move|choice|antwort|r[ée]ponse|respuesta|risposta|antwoord|svar|odpowied[zź]|"
    r"odpov[eě]d|ответ|відповідь|cevap)\s*[:：-])\s*",
    re.IGNORECASE,
)


def inline_candidates(text: str) -> list[str]:
    """Lines the player may have typed inside an unquoted copy of our message.

    Outlook leaves the original unquoted under a "From:/Sent:" block; players then answer
    inline, next to the question. Only our own messages are looked at (they carry the
    reply marker), and lines shaped like ours (indented, menu lines with "=", labels with
    ":", asides in brackets, list items) are never candidates. The parser keeps a candidate
    only when it reads as a whole command.
    """
    lines = normalize_text(text).split("\n")
    _kept, start = _split_reply(lines)
    if start is None:
        return []
    rest = lines[start:]
    if not any(_MARKER_RE.match(ln.strip()) for ln in rest):
        return []
    found: list[str] = []
    in_header = True
    for index, line in enumerate(rest):
        stripped = line.strip()
        if in_header:
            if not stripped or _MARKER_RE.match(stripped):
                in_header = False
            continue
        if not stripped or _is_quoted(line) or _MARKER_RE.match(stripped):
            continue
        if _is_outlook_header(rest, index) or _CUT_RE.match(stripped):
            break  # an older message below ours
        marked = _INLINE_MARK_RE.match(stripped)
        if marked:
            found.append(stripped[marked.end():].strip())
            continue
        if line[:1].isspace() or re.search(r"[=:()\[\]\"*<>]|e\.g\.|^[-•–]|^\d+\.", stripped):
            continue
        words = stripped.rstrip(".!").split()
        if len(words) > 6 or re.search(r"[,.;?]", stripped.rstrip(".!")):
            continue  # our prose; an inline answer is a short command
        first = re.sub(r"\W", "", words[0]).lower()
        if first.isdigit() or first in VERBS or first in META:
            found.append(stripped)
    return [c for c in found if c]


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


def email_new_text(raw: bytes | str | EmailMessage) -> str:
    """Raw MIME -> the player's own new text."""
    return strip_quoted(message_text(raw))


def sms_text(body: str) -> str:
    """An SMS body -> the player's text (normalised; SMS carries no quotes)."""
    return normalize_text(body).strip()


def split_lines(text: str) -> list[str]:
    """Text -> stripped lines; blank lines are kept as ``""`` (they separate blocks)."""
    return [line.strip() for line in text.split("\n")]
