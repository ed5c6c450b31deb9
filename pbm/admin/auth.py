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
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache
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


#: Wrong passwords in a row before a key is locked, by the key's kind: one name tried from
#: one address (``user``), and one address trying any names (``ip``: a spray of names).
LIMITS = {"user": 5, "ip": 10}


def _limit(key: str, default: int) -> int:
    return LIMITS.get(key.partition(":")[0], default)


def lockout_seconds(failures: int, limit: int, base: float, most: float) -> float:
    """How long a key with ``failures`` wrong passwords in a row waits (0: not locked)."""
    extra = failures - limit
    return 0.0 if extra < 0 else min(base * 2**extra, most)


@dataclass
class SignInThrottle:
    """Refuses sign-in for a while after too many wrong passwords in a row.

    Counted per key (``user:alice|203.0.113.9``, ``ip:203.0.113.9``): a name is only ever
    locked together with the address that tried it, so nobody can lock an admin out from
    elsewhere. A key is locked when it reaches its limit (``LIMITS``) of consecutive
    failures, for ``base_lockout`` seconds, doubling with each further failure up to
    ``max_lockout``. A success clears the keys it used.

    With Redis configured the counts live there (``RedisThrottle``), shared by every web
    process and host; this in-memory table is the embedded default (one process) and the
    fallback while Redis does not answer. Times are plain seconds (``time.monotonic()`` in
    the app, any number in tests); the table is bounded so a spray of names or addresses
    cannot grow it without limit.
    """

    max_failures: int = 5
    base_lockout: float = 60.0
    max_lockout: float = 900.0
    max_keys: int = 10_000
    _records: LRUCache[str, _Record] = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._records = LRUCache(maxsize=self.max_keys)  # the least recently failed go first

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
                wait = lockout_seconds(record.failures, _limit(key, self.max_failures),
                                       self.base_lockout, self.max_lockout)
                if wait:
                    record.locked_until = now + wait
                self._records[key] = record

    def succeeded(self, keys: list[str]) -> None:
        """A right password: the keys start again from zero."""
        with self._lock:
            for key in keys:
                self._records.pop(key, None)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._records.clear()


@dataclass
class RedisThrottle:
    """The same policy as :class:`SignInThrottle`, kept in Redis so that every web process
    of every host counts together; Redis's key expiry is the clock (no clock is shared
    between hosts). While Redis does not answer, ``fallback`` (this process) counts."""

    url: str
    fallback: SignInThrottle
    prefix: str = "pbm:signin:"
    _client: Any = None

    def _redis(self) -> Any:
        if self._client is None:
            import redis  # here: only deployments with Redis

            self._client = redis.Redis.from_url(self.url, socket_timeout=2,
                                                socket_connect_timeout=2)
        return self._client

    def retry_after(self, keys: list[str], now: float) -> float:
        try:
            waits = [self._redis().pttl(self.prefix + "lock:" + k) for k in keys]
        except Exception as exc:
            log.warning("sign-in throttle: Redis unavailable (%s); counting in memory", exc)
            return self.fallback.retry_after(keys, now)
        return float(max([0.0, *(w / 1000 for w in waits if w > 0)]))

    def failed(self, keys: list[str], now: float) -> None:
        f = self.fallback
        try:
            client = self._redis()
            for key in keys:
                count_key = self.prefix + "count:" + key
                failures = int(client.incr(count_key))
                client.expire(count_key, int(f.max_lockout * 4))
                wait = lockout_seconds(failures, _limit(key, f.max_failures), f.base_lockout,
                                       f.max_lockout)
                if wait:
                    client.set(self.prefix + "lock:" + key, 1, px=int(wait * 1000))
        except Exception as exc:
            log.warning("sign-in throttle: Redis unavailable (%s); counting in memory", exc)
            f.failed(keys, now)

    def succeeded(self, keys: list[str]) -> None:
        self.fallback.succeeded(keys)
        try:
            self._redis().delete(*[self.prefix + kind + k for k in keys
                                   for kind in ("count:", "lock:")])
        except Exception as exc:
            log.warning("sign-in throttle: Redis unavailable (%s)", exc)


class Throttle:
    """The process's sign-in throttle: in Redis when ``REDIS_URL`` is set, else in memory."""

    def __init__(self) -> None:
        self.memory = SignInThrottle()
        self._shared: RedisThrottle | None = None

    def _backend(self) -> SignInThrottle | RedisThrottle:
        from pbm.config import get_settings  # here: settings change in tests

        url = get_settings().redis_url
        if not url:
            return self.memory
        if self._shared is None or self._shared.url != url:
            self._shared = RedisThrottle(url, self.memory)
        return self._shared

    def retry_after(self, keys: list[str], now: float) -> float:
        """Seconds until any of ``keys`` may try again (0 when none is locked)."""
        return self._backend().retry_after(keys, now)

    def failed(self, keys: list[str], now: float) -> None:
        """Count one wrong password against each key."""
        self._backend().failed(keys, now)

    def succeeded(self, keys: list[str]) -> None:
        """A right password: the keys start again from zero."""
        self._backend().succeeded(keys)


def throttle_keys(name: str, client_ip: str | None) -> list[str]:
    """The throttle keys of one sign-in attempt: the name from this address, the address."""
    user = name.strip().lower()[:60]
    ip = client_ip or "unknown"
    return [f"user:{user}|{ip}", f"ip:{ip}"]


THROTTLE = Throttle()
