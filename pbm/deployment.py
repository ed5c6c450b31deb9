"""What a deployment must have set before it may start: checked by every process that
serves, works or signs (``pbm web``, the web app's start-up, the Celery worker and beat).

A process on a loopback base URL (the embedded default, a developer's machine) may use the
development ``SECRET_KEY``; anything reachable from outside may not, because whoever knows
the default could sign an admin session cookie. Sender authentication without the
receiving server's ``authserv-id`` would trust a header the sender wrote himself.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from pbm.config import Settings

#: The development value of ``SECRET_KEY`` (the setting's default).
DEV_SECRET_KEY = "dev-only-change-me"
#: Shorter keys are refused outside loopback: too easy to guess or brute-force offline.
MIN_SECRET_KEY_LENGTH = 24
MAKE_A_KEY = ("make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))' "
              "and set it as SECRET_KEY, the same value on every host")


class InsecureDeployment(RuntimeError):
    """A setting that would leave a reachable deployment open; the message says the fix."""


def is_loopback_url(url: str) -> bool:
    """True when ``url``'s host is this machine only (localhost, 127.0.0.0/8, ::1)."""
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def secret_key_problem(settings: Settings) -> str | None:
    """Why ``SECRET_KEY`` may not sign anything on this deployment, or None."""
    if is_loopback_url(settings.public_base_url):
        return None
    key = settings.secret_key.get_secret_value()
    if key == DEV_SECRET_KEY or not key:
        return (f"SECRET_KEY is unset (the development default) and PUBLIC_BASE_URL "
                f"({settings.public_base_url}) is not loopback: {MAKE_A_KEY}")
    if len(key) < MIN_SECRET_KEY_LENGTH:
        return (f"SECRET_KEY is shorter than {MIN_SECRET_KEY_LENGTH} characters: "
                f"{MAKE_A_KEY}")
    return None


def sender_auth_problem(settings: Settings) -> str | None:
    """Why the sender-authentication settings cannot be honoured, or None."""
    if settings.inbound_require_sender_auth and not (settings.inbound_authserv_id or "").strip():
        return ("INBOUND_REQUIRE_SENDER_AUTH is on but INBOUND_AUTHSERV_ID is unset: without "
                "it any Authentication-Results header would be trusted, including one the "
                "sender wrote. Set it to your receiving server's authserv-id (the first word "
                "of the Authentication-Results headers it adds).")
    return None


def check(settings: Settings) -> None:
    """Raise :class:`InsecureDeployment` naming every problem; nothing when all is well."""
    problems = [p for p in (secret_key_problem(settings), sender_auth_problem(settings)) if p]
    if problems:
        raise InsecureDeployment("refusing to start: " + " | ".join(problems))
