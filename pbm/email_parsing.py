"""Parsing raw email that never raises, and the container count that bounds its depth: below
both ``pbm.hygiene`` (which refuses a hostile structure) and ``pbm.inbound`` (which stores
and reads the message); both re-export these names."""

from __future__ import annotations

import re
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.parser import BytesParser

# A header that opens a container part, folded or not ("Content-Type:\r\n multipart/mixed").
_CONTAINER = re.compile(rb"^content-type:[ \t\r\n]*(?:multipart|message)/",
                        re.IGNORECASE | re.MULTILINE)

#: More container parts than this are never parsed as a tree (only the headers are read).
MAX_PARSED_CONTAINERS = 200


def container_count(raw: bytes) -> int:
    """How many multipart / message parts ``raw`` declares (at most, a bound on depth)."""
    return len(_CONTAINER.findall(raw))


def parse_email(raw: bytes) -> EmailMessage:
    """A parsed message; never raises (defects are recorded on the message).

    A message nested deeper than the parser's stack allows is read for its headers only
    (``pbm.hygiene`` refuses it; storing it still needs its sender and Message-ID).
    """
    try:
        if container_count(raw) <= MAX_PARSED_CONTAINERS:
            return message_from_bytes(raw, policy=policy.default)
    except (RecursionError, MemoryError, ValueError, TypeError, LookupError):
        pass
    return parse_headers(raw)


def parse_headers(raw: bytes) -> EmailMessage:
    """The message's headers only (the body is neither parsed nor copied); never raises."""
    ends = [i for i in (raw.find(b"\n\n"), raw.find(b"\n\r\n")) if i != -1]
    head = raw[:min(ends) + 1] if ends else raw
    try:
        return BytesParser(policy=policy.default).parsebytes(
            head, headersonly=True)
    except Exception:
        return EmailMessage()
