"""The patterns that find quoted originals, in the languages mail clients ship: our reply
marker, "On ... wrote:" attributions, Outlook header blocks, forward rules, inline marks.
"""

from __future__ import annotations

import re
import unicodedata

from mailparser_reply.constants import MAIL_LANGUAGES

#: The marker printed at the top of every email we send; everything from it down is ours.
REPLY_MARKER = "--- Reply above this line ---"


MARKER_RE = re.compile(r"^[\s>#=_*-]*reply\s+above\s+this\s+line", re.IGNORECASE)


# The verbs that end a quote attribution ("... wrote:") in the languages Gmail, Outlook,
# Apple Mail and Thunderbird ship, with the line's optional trailing "(...)" and colon.
_WROTE = (
    r"(?:wrote|has\s+written|schrieb|geschrieben|a\s+[ée]crit|escribi[óo]|ha\s+scritto|"
    r"scrive|schreef|escreveu|escrito|skrev|kirjoitti|napisa[łl](?:\(a\)|a)?|pisze|"
    r"napsal(?:\(a\)|a)?|пишет|написал(?:\(а\)|а)?|пише|написав(?:\(ла\)|ла)?|"
    r"(?:şunu|şunları|sunu|sunlari)\s+yazd[ıi]|yazd[ıi]|έγραψε|[ií]rta|a\s+scris|写道|寫道|"
    r"작성|のメール|escribe)"
)


WROTE_END_RE = re.compile(rf"{_WROTE}\s*(?:\([^()]*\))?\s*[:：]\s*$", re.IGNORECASE)


# Thunderbird and Apple put the verb mid-line: "Op 04-03-2025 om 10:02 schreef Ann:"
WROTE_MID_RE = re.compile(rf"(?:^|\s){_WROTE}(?:\s|,).*[:：]\s*$", re.IGNORECASE)


# Gmail in Russian, Japanese, ... ends the attribution with the address alone:
# "вт, 4 мар. 2025 г. в 10:02, Tortuga <play@x>:"
ADDRESS_END_RE = re.compile(r"[^\s<>@]+@[^\s<>@]+>?\)?\s*[:：]\s*$")


# What marks a line as (the start of) a dated header: a time, a year, or an address.
DATEISH_RE = re.compile(r"\d{1,2}[:.]\d{2}\b|\b\d{4}\b|\d{4}\s*年|\d+\s*(?:年|년)|@|<")


# The quote headers mail-parser-reply knows (cs, da, ja, ko, pl, sv, zh, ... beyond ours).
LIBRARY_ATTRIBUTIONS = tuple(
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


def fold_unicode(line: str) -> str:
    """Lower case without accents (Hangul and kana decompose the same on both sides)."""
    decomposed = unicodedata.normalize("NFKD", line)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


_FROM_WORDS, _FIELD_WORDS = fold_unicode(_FROM_WORDS), fold_unicode(_FIELD_WORDS)


FROM_RE = re.compile(rf"^[*\s]*(?:{_FROM_WORDS})\s*\*?\s*[:：]\*?\s*\S", re.IGNORECASE)


HEADER_FIELD_RE = re.compile(rf"^[*\s]*(?:{_FIELD_WORDS})\s*\*?\s*[:：]", re.IGNORECASE)


# Lines that start a block which is never the player's new text: "-----Original
# Message-----" and "-------- Weitergeleitete Nachricht --------" in any language,
# Outlook's underscore rule, "Begin forwarded message:".
CUT_RE = re.compile(
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


# An answer typed inside an unquoted original often carries a marker: "-> REVEAL 3",
# "[Ann] VOTE 2", "ANSWER: ROW", "<<< 3".
INLINE_MARK_RE = re.compile(
    r"^(?:-+>|=+>|→|»|<{2,}|\*{2,}|\[[^\]]{1,24}\]|(?:my\s+)?(?:answer|reply|response|"
    r"move|choice|antwort|r[ée]ponse|respuesta|risposta|antwoord|svar|odpowied[zź]|"
    r"odpov[eě]d|ответ|відповідь|cevap)\s*[:：-])\s*",
    re.IGNORECASE,
)
