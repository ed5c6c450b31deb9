"""The player's own new text from a mail body: quoted lines and their attributions, Outlook
headers and forwards dropped (top- or bottom-posted), and inline answers in an original.
"""

from __future__ import annotations

import re

from pbm.replies.mail_body import normalize_text
from pbm.replies.quote_patterns import (
    ADDRESS_END_RE,
    CUT_RE,
    DATEISH_RE,
    FROM_RE,
    HEADER_FIELD_RE,
    INLINE_MARK_RE,
    LIBRARY_ATTRIBUTIONS,
    MARKER_RE,
    WROTE_END_RE,
    WROTE_MID_RE,
    fold_unicode,
)
from pbm.replies.signatures import FOOTER_RE, is_banner, without_contact_details
from pbm.replies.words import META, VERBS

# ------------------------------------------------------------------ body text -> new text


#: No line of a reply is read past this many characters: a command or a SAY is far shorter,
#: and the quote and signature patterns must not scan a 200 KB line (they backtrack).
MAX_LINE_CHARS = 1000


def _lines(text: str) -> list[str]:
    return [line[:MAX_LINE_CHARS] for line in normalize_text(text).split("\n")]


def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _is_attribution(text: str) -> bool:
    """True for a whole "On <date>, <name> wrote:" line, in any supported language."""
    if (WROTE_END_RE.search(text) or WROTE_MID_RE.search(text)) and DATEISH_RE.search(text):
        return True
    if ADDRESS_END_RE.search(text) and re.search(r"\d", text) and len(text) < 300:
        return True
    if re.search(r"\bezt\s+[ií]rta\b", text, re.IGNORECASE):
        return True
    return any(r.match(text) for r in LIBRARY_ATTRIBUTIONS)


def _attribution_span(lines: list[str], i: int) -> int:
    """How many lines (1-3) starting at ``i`` form a "... wrote:" header; 0 if none."""
    first = lines[i].strip()
    if not first or _is_quoted(first):
        return 0
    if _is_attribution(first):
        return 1
    if not DATEISH_RE.search(first) or len(first) > 250:
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
    return len(line) <= 160 and bool(WROTE_END_RE.search(line)) and " " in line.strip()


def _is_outlook_header(lines: list[str], i: int) -> bool:
    first = fold_unicode(lines[i].strip())
    if not FROM_RE.match(first):
        return False
    following = [fold_unicode(ln.strip()) for ln in lines[i + 1 : i + 7] if ln.strip()]
    return sum(bool(HEADER_FIELD_RE.match(ln)) for ln in following[:5]) >= 1


def _next_nonblank(lines: list[str], i: int) -> int | None:
    while i < len(lines):
        if lines[i].strip():
            return i
        i += 1
    return None


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
        if in_banner or is_banner(stripped):
            in_banner = True  # drop the banner's whole paragraph
            i += 1
            continue
        if _is_quoted(line):
            i += 1
            continue
        if MARKER_RE.match(stripped):
            return kept, i
        span = _attribution_span(lines, i)
        if span or _is_short_attribution(stripped):
            nxt = _next_nonblank(lines, i + max(span, 1))
            if nxt is not None and _is_quoted(lines[nxt]):
                i = nxt  # the quote follows: drop the header, keep what comes after the quote
                continue
            if span:
                return kept, None
        if _is_outlook_header(lines, i) or CUT_RE.match(stripped):
            return kept, i
        if FOOTER_RE.match(stripped):
            return kept, None
        kept.append(stripped)
        i += 1
    return kept, None


def _tidy(kept: list[str]) -> str:
    lines = [without_contact_details(line) if line else "" for line in kept]
    lines = [line for i, line in enumerate(lines) if line or (kept[i] == "")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def strip_quoted(text: str, max_lines: int | None = None) -> str:
    """The player's own new text from a mail body (top- or bottom-posted); with
    ``max_lines``, at least its first ``max_lines`` lines (and not much more)."""
    kept, _original = _split_reply(_lines(text),
                                   None if max_lines is None else 2 * max_lines)
    return _tidy(kept)


def inline_candidates(text: str) -> list[str]:
    """Lines the player may have typed inside an unquoted copy of our message.

    Outlook leaves the original unquoted under a "From:/Sent:" block; players then answer
    inline, next to the question. Only our own messages are looked at (they carry the
    reply marker), and lines shaped like ours (indented, menu lines with "=", labels with
    ":", asides in brackets, list items) are never candidates. The parser keeps a candidate
    only when it reads as a whole command.
    """
    lines = _lines(text)
    _kept, start = _split_reply(lines)
    if start is None:
        return []
    rest = lines[start:]
    if not any(MARKER_RE.match(ln.strip()) for ln in rest):
        return []
    found: list[str] = []
    in_header = True
    for index, line in enumerate(rest):
        stripped = line.strip()
        if in_header:
            if not stripped or MARKER_RE.match(stripped):
                in_header = False
            continue
        if not stripped or _is_quoted(line) or MARKER_RE.match(stripped):
            continue
        if _is_outlook_header(rest, index) or CUT_RE.match(stripped):
            break  # an older message below ours
        marked = INLINE_MARK_RE.match(stripped)
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
