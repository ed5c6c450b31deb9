"""Input hygiene at the edge: what a stranger's bytes may contain before we keep or echo them.

- ``clean_text`` / ``clean_line``: text without NUL, other control characters, lone
  surrogates (undecodable bytes) or bidirectional overrides; safe to store in PostgreSQL and
  to show in a message.
- ``mime_problem``: why a raw email is refused (too big, too many parts, nested too deep,
  too many header fields, a line too long), or None. It is checked before the message is
  fully parsed, so a hostile structure never reaches the recursive MIME parser.
"""

from __future__ import annotations

import re
from email.message import Message

from pbm.config import Settings
from pbm.email_parsing import MAX_PARSED_CONTAINERS, container_count, parse_email, parse_headers

# C0 controls but tab / newline / carriage return, DEL, C1 controls, lone surrogates, and the
# bidirectional embeddings, overrides and isolates (they reorder what a reader sees).
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff"
                     "\u202a-\u202e\u2066-\u2069]")
_LINE_BREAKS = re.compile(r"[\t\r\n\x0b\x0c\x85\u2028\u2029]+")


def clean_text(text: str) -> str:
    """``text`` without control characters, surrogates or bidi overrides (lines kept)."""
    return _UNSAFE.sub("", text)


def clean_line(text: str) -> str:
    """``text`` as one safe line: :func:`clean_text`, line breaks and tabs made spaces."""
    return clean_text(_LINE_BREAKS.sub(" ", text)).strip()


#: Larger messages are not parsed whole by the web process (memory): their parts and depth
#: are checked by the worker, which refuses them the same way.
PARSE_AT_EDGE_BYTES = 2 * 1024 * 1024

def mime_problem(raw: bytes, settings: Settings, message: Message | None = None) -> str | None:
    """Why this raw email is refused, or None when its size and structure are within limits.
    ``message``: ``raw`` already parsed by ``pbm.email_parsing.parse_email`` (else it is parsed)."""
    if len(raw) > settings.inbound_email_max_bytes:
        return f"message larger than {settings.inbound_email_max_bytes} bytes"
    limit = settings.mime_max_line_bytes
    if has_line_longer_than(raw, limit):
        return f"a line longer than {limit} bytes"
    # Every nested level needs a container part: few containers means a shallow tree, so the
    # (recursive) parser below can never run out of stack.
    if container_count(raw) > min(settings.mime_max_parts, MAX_PARSED_CONTAINERS):
        return f"more than {settings.mime_max_parts} MIME parts"
    if message is None and len(raw) > PARSE_AT_EDGE_BYTES:
        headers = len(parse_headers(raw).keys())  # the parts are checked by the worker
        limit = settings.mime_max_headers
        return f"more than {limit} header fields in one part" if headers > limit else None
    if message is None:
        message = parse_email(raw)
    return structure_problem(message, settings)


def has_line_longer_than(raw: bytes, limit: int) -> bool:
    """True when a line of ``raw`` has more than ``limit`` bytes (a few hundred look-ups).

    Such a line covers a whole aligned block of ``limit // 2`` bytes; only blocks without a
    line break are measured.
    """
    block = max(1, limit // 2)
    for start in range(0, len(raw) - block + 1, block):
        if raw.find(b"\n", start, start + block) != -1:
            continue
        line_start = raw.rfind(b"\n", 0, start) + 1
        line_end = raw.find(b"\n", start)
        if (len(raw) if line_end == -1 else line_end) - line_start > limit:
            return True
    return False


def structure_problem(message: Message, settings: Settings) -> str | None:
    """Parts, depth and header fields of a parsed message against the limits (no recursion)."""
    parts = 0
    stack: list[tuple[Message, int]] = [(message, 1)]
    while stack:
        part, depth = stack.pop()
        parts += 1
        if parts > settings.mime_max_parts:
            return f"more than {settings.mime_max_parts} MIME parts"
        if depth > settings.mime_max_depth:
            return f"MIME parts nested more than {settings.mime_max_depth} deep"
        if len(part.keys()) > settings.mime_max_headers:
            return f"more than {settings.mime_max_headers} header fields in one part"
        payload = part.get_payload() if part.is_multipart() else None
        if isinstance(payload, list):
            stack.extend((child, depth + 1) for child in payload if isinstance(child, Message))
    return None
