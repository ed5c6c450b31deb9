"""Who may use the admin page: admins from settings, argon2 password checks, sign-in throttle.

``ADMIN_USERS`` is ``name:hash,name:hash`` with argon2 hashes made by ``pbm admin
hash-password``. An argon2 hash itself contains commas (``m=65536,t=3,p=4``), so entries
are split only at a comma that starts a new ``name:$`` pair. Anything that is not an argon2
hash is refused: a plain-text password in the environment never signs anyone in.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from pwdlib import PasswordHash

log = logging.getLogger(__name__)

_HASHER = PasswordHash.recommended()
# Verified against unknown names so a wrong name costs as much time as a wrong password.
_DUMMY_HASH = _HASHER.hash("not-a-real-password")
_ENTRY_SPLIT = re.compile(r",\s*(?=[^,:$\s]+:\$)")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.@-]{1,60}$")


def hash_password(password: str) -> str:
    """An argon2id hash of ``password``, for ``ADMIN_USERS``."""
    return _HASHER.hash(password)


def parse_admin_users(spec: str) -> dict[str, str]:
    """``{name: argon2 hash}`` from an ``ADMIN_USERS`` value; malformed entries are skipped."""
    admins: dict[str, str] = {}
    for raw in _ENTRY_SPLIT.split(spec.strip()) if spec.strip() else []:
        name, sep, hashed = raw.strip().partition(":")
        if not sep or not NAME_PATTERN.match(name):
            log.warning("ADMIN_USERS: ignoring an entry without a valid 'name:' prefix")
            continue
        if not hashed.startswith("$argon2"):
            log.warning("ADMIN_USERS: ignoring %r: not an argon2 hash (plain text?)", name)
            continue
        admins[name] = hashed
    return admins


def check_password(admins: dict[str, str], name: str, password: str) -> bool:
    """True when ``name`` is an admin and ``password`` matches; constant work either way."""
    hashed = admins.get(name)
    try:
        ok = _HASHER.verify(password, hashed or _DUMMY_HASH)
    except Exception:  # a corrupt hash in settings must not crash sign-in
        log.warning("ADMIN_USERS: the hash of %r cannot be read", name)
        return False
    return ok and hashed is not None


@dataclass
class _Record:
    failures: int = 0
    locked_until: float = 0.0


@dataclass
class SignInThrottle:
    """Refuses sign-in for a while after ``max_failures`` wrong passwords in a row.

    Counted per key (``name:alice``, ``ip:203.0.113.9``); a key is locked when it reaches
    ``max_failures`` consecutive failures, for ``base_lockout`` seconds, doubling with each
    further failure up to ``max_lockout``. A success clears the keys it used. Times are
    plain seconds (``time.monotonic()`` in the app, any number in tests). In memory, per
    process: the web service runs one process; the table is bounded so a spray of names or
    addresses cannot grow it without limit.
    """

    max_failures: int = 5
    base_lockout: float = 60.0
    max_lockout: float = 900.0
    max_keys: int = 10_000
    _records: OrderedDict[str, _Record] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def retry_after(self, keys: list[str], now: float) -> float:
        """Seconds until any of ``keys`` may try again (0 when none is locked)."""
        with self._lock:
            waits = [r.locked_until - now for k in keys if (r := self._records.get(k))]
        return max([0.0, *waits])

    def failed(self, keys: list[str], now: float) -> None:
        """Count one wrong password against each key; lock those that reached the limit."""
        with self._lock:
            for key in keys:
                record = self._records.pop(key, None) or _Record()
                record.failures += 1
                extra = record.failures - self.max_failures
                if extra >= 0:
                    lockout = min(self.base_lockout * 2**extra, self.max_lockout)
                    record.locked_until = now + lockout
                self._records[key] = record
            while len(self._records) > self.max_keys:
                self._records.popitem(last=False)

    def succeeded(self, keys: list[str]) -> None:
        """A right password: the keys start again from zero."""
        with self._lock:
            for key in keys:
                self._records.pop(key, None)

    def clear(self) -> None:
        """Forget everything (tests)."""
        with self._lock:
            self._records.clear()


def throttle_keys(name: str, client_ip: str | None) -> list[str]:
    """The throttle keys of one sign-in attempt."""
    keys = [f"name:{name.strip().lower()[:60]}"]
    if client_ip:
        keys.append(f"ip:{client_ip}")
    return keys


THROTTLE = SignInThrottle()
