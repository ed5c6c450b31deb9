"""Rate limits: per sender for what comes in, per channel for what goes out.

Inbound: a sender may have at most ``inbound_per_sender_per_hour`` messages processed per
hour; the count comes from the stored inbound rows themselves, so it is global across web
processes and workers and needs no extra server. Messages over the limit are kept (nothing
is lost) but not acted on, and nobody is answered: a mail loop dies out.

Outbound: a token bucket per channel (``outbound_email_per_second``,
``outbound_sms_per_second``), shared by every worker through Redis when Redis is configured
(one Lua script, Redis's own clock), per process otherwise (the embedded default has one
worker). If Redis cannot be reached the limiter lets the message through: the broker is the
same Redis, so nothing is being sent at speed then anyway.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import redis
import sqlalchemy as sa
from redis.commands.core import Script
from sqlmodel import Session, col

from pbm.config import Settings
from pbm.models import InboundMessage, UTCDateTime

log = logging.getLogger(__name__)

#: reserve a slot when the wait for it is at most this long; otherwise come back later
MAX_RESERVE_WAIT = 5.0


def inbound_count(session: Session, channel: str, sender: str, since: datetime,
                  *, before_id: int | None = None) -> int:
    """How many messages ``sender`` sent on ``channel`` since ``since`` (stored rows)."""
    params = {"channel": channel, "sender": sender, "since": since, "before_id": before_id}
    return int(session.execute(_count_statement(before_id is not None), params).scalar_one())


@functools.lru_cache(maxsize=2)
def _count_statement(before: bool) -> sa.Select[Any]:
    """``inbound_count``'s statement, built once per process (values as parameters)."""
    received_at = col(InboundMessage.received_at)
    query = sa.select(sa.func.count()).select_from(InboundMessage).where(
        col(InboundMessage.channel) == sa.bindparam("channel"),
        col(InboundMessage.sender) == sa.bindparam("sender"),
        received_at >= sa.bindparam("since", type_=UTCDateTime()),
    )
    if before:
        query = query.where(col(InboundMessage.id) < sa.bindparam("before_id"))
    return query


def inbound_allowed(session: Session, channel: str, sender: str, now: datetime,
                    settings: Settings, *, message_id: int | None = None) -> bool:
    """True when this sender is within its hourly limit (counting messages before this one)."""
    since = now - timedelta(hours=1)
    earlier = inbound_count(session, channel, sender, since, before_id=message_id)
    return earlier < settings.inbound_per_sender_per_hour


# Reserve one token: tokens may go below zero (a queue of reservations) but only as far as
# max_wait allows. Returns {reserved 0/1, seconds to wait as a string}.
_BUCKET_LUA = """
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local max_wait = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local data = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(data[1]) or capacity
local ts = tonumber(data[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate)
local wait = 0
if tokens < 1 then wait = (1 - tokens) / rate end
local reserved = 0
if wait <= max_wait then
  tokens = tokens - 1
  reserved = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(capacity / rate + max_wait) + 60)
return {reserved, tostring(wait)}
"""


class OutboundLimiter:
    """A token bucket per channel; ``reserve(channel)`` says how long to wait before sending.

    ``clock`` (seconds, monotonic) times the in-process bucket; the Redis bucket uses Redis's
    own clock so that every worker agrees.
    """

    def __init__(self, settings: Settings, redis_url: str | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rates = {
            "email": max(settings.outbound_email_per_second, 0.001),
            "sms": max(settings.outbound_sms_per_second, 0.001),
        }
        self.redis_url = redis_url
        self._client: redis.Redis | None = None
        self._script: Script | None = None
        self._local: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()
        self._clock = clock

    def _capacity(self, rate: float) -> float:
        return max(1.0, rate)  # one second of burst

    def reserve(self, channel: str, *, max_wait: float = MAX_RESERVE_WAIT) -> tuple[bool, float]:
        """Take a sending slot. Returns (reserved, wait): sleep ``wait`` then send if reserved;
        if not reserved, try again in about ``wait`` seconds."""
        rate = self.rates.get(channel, 1.0)
        if self.redis_url:
            try:
                return self._reserve_redis(channel, rate, max_wait)
            except Exception as exc:  # Redis down: fail open, see module docstring
                log.warning("rate limiter unavailable (%s); sending without it", exc)
                return True, 0.0
        return self._reserve_local(channel, rate, max_wait)

    def _reserve_redis(self, channel: str, rate: float, max_wait: float) -> tuple[bool, float]:
        if self._client is None:
            assert self.redis_url is not None  # reserve() comes here only with one
            self._client = redis.Redis.from_url(self.redis_url, socket_timeout=5,
                                                socket_connect_timeout=5)
            self._script = self._client.register_script(_BUCKET_LUA)
        assert self._script is not None
        reserved, wait = self._script(keys=[f"pbm:ratelimit:out:{channel}"],
                                      args=[rate, self._capacity(rate), max_wait])
        return bool(int(reserved)), float(wait)

    def _reserve_local(self, channel: str, rate: float, max_wait: float) -> tuple[bool, float]:
        with self._lock:
            now = self._clock()
            capacity = self._capacity(rate)
            tokens, ts = self._local.get(channel, (capacity, now))
            tokens = min(capacity, tokens + max(0.0, now - ts) * rate)
            wait = (1 - tokens) / rate if tokens < 1 else 0.0
            reserved = wait <= max_wait
            if reserved:
                tokens -= 1
            self._local[channel] = (tokens, now)
            return reserved, wait
