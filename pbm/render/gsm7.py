"""SMS text: the GSM-7 alphabet, segment counting, transliteration to GSM-7, and fitting
parts (longest variant that fits) or a relayed quote into at most 2 segments."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from anyascii import anyascii

from pbm.i18n.languages import traits
from pbm.i18n.translate import current

_GSM7_BASIC = (
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
_GSM7_EXTENDED = "^{}\\[~]|€\f"
_GSM7_SET = frozenset(_GSM7_BASIC) | frozenset(_GSM7_EXTENDED)
_GSM7_REPLACE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "`": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2026": "...", "\u00a0": " ",
    "\u2022": "*", "\u00b7": "*", "\u2192": "->", "\u2190": "<-", "\t": " ",
})
SMS_MAX_SEPTETS = 306  # 2 concatenated segments of 153 septets


def is_gsm7(text: str) -> bool:
    """True if every character of ``text`` is in the GSM 03.38 alphabet (basic or extended)."""
    return _GSM7_SET.issuperset(text)


def gsm7_septets(text: str) -> int:
    """Length in septets: extended characters (``[]{}^~|\\€``) take two."""
    return len(text) + sum(map(text.count, _GSM7_EXTENDED))  # C loops, not one per character


def sms_segments(text: str) -> int:
    """How many SMS segments ``text`` needs (UCS-2 counting if it is not GSM-7)."""
    if not text:
        return 1
    if is_gsm7(text):
        n = gsm7_septets(text)
        return 1 if n <= 160 else -(-n // 153)
    units = len(text.encode("utf-16-le")) // 2
    return 1 if units <= 70 else -(-units // 67)


def to_gsm7(text: str) -> str:
    """Text made GSM-7 safe, never with a ``?`` for a letter: straight quotes, accents
    dropped where GSM-7 lacks them, other scripts transliterated (``anyascii``:
    "Дмитрий" -> "Dmitriy"); a character with no Latin form is left out.

    For a reader whose SMS is UCS-2 anyway (``Traits.sms_alphabet``, Korean) only the
    typographic quotes and dashes are made plain, Hangul and names stay as written."""
    if ucs2_reader():
        return text.translate(_GSM7_REPLACE)
    out = []
    for ch in text.translate(_GSM7_REPLACE):
        if ch in _GSM7_SET:
            out.append(ch)
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch)
                       if not unicodedata.combining(c))
        if not (base and all(c in _GSM7_SET for c in base)):
            base = "".join(c for c in anyascii(ch) if c in _GSM7_SET)
        out.append(base)
    return "".join(out)


#: UCS-2 budget: a message that must keep characters outside GSM-7 (table talk in another
#: script, an emoji) is sent as UCS-2 in at most 2 segments of 67 UTF-16 units.
SMS_MAX_UCS2_UNITS = 134
#: A Korean reader's SMS budget in UCS-2 parts (issue 37), set so that a Korean text carries
#: what an English one carries in 2 GSM-7 parts (306 septets). Measured over the 655 SMS
#: prompts of random games of 2-9 players (tests/pbm/test_sms_equal_information.py): with
#: 2 parts (134 units) a Korean prompt told 56 news lines where English told 1,015 and lost
#: the face-down row in 329; with 3 parts (201) 798 lines, 251 prompts telling less than
#: English; with 4 parts (268) 1,611 lines and never less than English, the row always.
#: Korean prose takes ~0.60 of its English characters, but the menu, the deadline and the
#: card effects take more (0.7 and up), and a UCS-2 part holds 67 units against 153.
#: Parts per decision of both languages: benchmarks/README.md (``sms_budget.py``).
KO_SMS_PARTS = 4
SMS_MAX_KO_UNITS = 67 * KO_SMS_PARTS


def ucs2_reader() -> bool:
    """True while writing for a reader whose SMS is counted in UCS-2 (``Traits``)."""
    return traits(current()).sms_alphabet == "ucs2"


def ucs2_budget() -> int:
    """The UTF-16 units one SMS may take for the current reader (``Traits.sms_parts``
    parts of 67; English: ``SMS_MAX_UCS2_UNITS``, Korean: ``SMS_MAX_KO_UNITS``)."""
    return 67 * traits(current()).sms_parts


def utf16_units(text: str) -> int:
    """Length in UTF-16 code units (an emoji outside the BMP takes two)."""
    return len(text.encode("utf-16-le")) // 2


def cut_utf16(text: str, units: int) -> str:
    """``text`` cut to at most ``units`` UTF-16 units, never inside a character or before a
    combining mark (the cut moves back to the start of that letter)."""
    out, used = [], 0
    for ch in text:
        size = 2 if ord(ch) > 0xFFFF else 1
        if used + size > units:
            break
        out.append(ch)
        used += size
    while out and unicodedata.combining(out[-1]):
        out.pop()
    return "".join(out)


def relay_sms(head: str, quote: str, tail: str, more: str) -> str:
    """A relayed text (table talk) kept faithful: GSM-7 in 2 segments when it can be,
    else UCS-2 within ``SMS_MAX_UCS2_UNITS``; cut with ``more`` (a pointer to the full text)
    when it does not fit. Only ``quote`` may leave GSM-7; ``head`` and ``tail`` are made
    GSM-7 safe."""
    head, tail = to_gsm7(head), to_gsm7(tail)
    plain = quote.translate(_GSM7_REPLACE)
    if is_gsm7(plain):
        whole = f'{head} "{plain}" {tail}'.strip()
        if gsm7_septets(whole) <= SMS_MAX_SEPTETS:
            return whole
        room = SMS_MAX_SEPTETS - gsm7_septets(f'{head} ""... {more}') - 1
        cut = plain[:max(room, 0)]
        while gsm7_septets(cut) > room:
            cut = cut[:-1]
        return f'{head} "{cut.rstrip()}..." {more}'
    whole = f'{head} "{quote}" {tail}'.strip()
    budget = ucs2_budget()
    if utf16_units(whole) <= budget:
        return whole
    room = budget - utf16_units(f'{head} "…" {more}')
    return f'{head} "{cut_utf16(quote, max(room, 0)).rstrip()}…" {more}'


def fit_choices(parts: Sequence[Sequence[str]], limit: int = SMS_MAX_SEPTETS,
                priority: Sequence[int] | None = None) -> list[str]:
    """The variant ``fit_sms`` takes for each part (``""`` for a part left out), made
    GSM-7 safe; counted in UTF-16 units for a Korean reader (``limit`` scaled to
    ``ucs2_budget()``). A caller that must say what was left out asks this first."""
    if ucs2_reader():
        limit = limit * ucs2_budget() // SMS_MAX_SEPTETS
        measure = utf16_units
    else:
        measure = gsm7_septets
    chosen = [to_gsm7(p[-1]) for p in parts]

    def size(items: Sequence[str]) -> int:
        return measure(" ".join(x for x in items if x))

    for i in priority if priority is not None else range(len(parts)):
        for option in parts[i]:
            trial = [*chosen[:i], to_gsm7(option), *chosen[i + 1 :]]
            if size(trial) <= limit:
                chosen = trial
                break
    return chosen


def fit_sms(parts: Sequence[Sequence[str]], limit: int = SMS_MAX_SEPTETS,
            priority: Sequence[int] | None = None) -> str:
    """Join SMS parts, taking for each part the longest variant that still fits.

    ``parts`` is a list of alternatives, longest first (the last may be ``""``); parts are
    fitted in ``priority`` order (default: first to last) and joined in their own order.
    The result is GSM-7 and at most ``limit`` septets. For a Korean reader it is UCS-2
    and at most ``SMS_MAX_KO_UNITS`` UTF-16 units (``KO_SMS_PARTS`` parts of 67), ``limit``
    scaled alike.
    """
    text = " ".join(x for x in fit_choices(parts, limit, priority) if x)
    if ucs2_reader():
        units = limit * ucs2_budget() // SMS_MAX_SEPTETS
        if utf16_units(text) > units:
            text = cut_utf16(text, units - 1).rstrip() + "…"
        return text
    if gsm7_septets(text) > limit:  # only if even the shortest variants overflow
        cut = text[: limit - 3]
        while gsm7_septets(cut) > limit - 3:  # extended characters take two septets
            cut = cut[:-1]
        text = cut.rstrip() + "..."
    return text
