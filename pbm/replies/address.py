"""Reply tokens: each prompt's reply address ``play+TOKEN@domain`` names game and seat."""

from __future__ import annotations

import re
from collections.abc import Iterable
from email.utils import getaddresses

_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{4,128}$")


def reply_address(token: str, domain: str, local: str = "play") -> str:
    """The reply address for ``token``: ``play+TOKEN@domain``."""
    return f"{local}+{token}@{domain}"


def reply_token_from_address(address: str, local: str = "play") -> str | None:
    """The TOKEN of ``play+TOKEN@domain`` (display names and angle brackets allowed).

    Returns ``None`` for any other address. The local part is matched case-insensitively;
    the token is returned exactly as written.
    """
    for _name, addr in getaddresses([address or ""]):
        user, at, _domain = addr.rpartition("@")
        if not at:
            continue
        base, plus, token = user.partition("+")
        if plus and base.lower() == local.lower() and _TOKEN_RE.match(token):
            return token
    return None


def find_reply_token(addresses: Iterable[str], local: str = "play") -> str | None:
    """The first reply token in any of ``addresses`` (To, Cc, Delivered-To header values)."""
    for value in addresses:
        for _name, addr in getaddresses([value or ""]):
            token = reply_token_from_address(addr, local)
            if token:
                return token
    return None
