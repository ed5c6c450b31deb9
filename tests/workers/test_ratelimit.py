"""The outbound token bucket, shared through a real Redis, and its in-process fallback.

Each decision is checked against the bucket's state, never against elapsed time: the Redis
bucket is stopped from refilling between calls (its stored time is set ahead of Redis's
clock, and the script never refills backwards), the in-process bucket is given a clock.
"""

from __future__ import annotations

import pytest
import redis

from pbm.config import Settings
from pbm.ratelimit import OutboundLimiter
from tests.workers.conftest import WORKER_REDIS_DB, redis_db

#: the Redis key of a channel's bucket (pbm.ratelimit's Lua script keeps tokens and time there)
BUCKET = "pbm:ratelimit:out:{}"


def settings(per_second: float) -> Settings:
    return Settings(outbound_email_per_second=per_second, outbound_sms_per_second=per_second)


def hold(client: redis.Redis, channel: str, tokens: float | None = None) -> None:
    """Stop the channel's bucket from refilling (its last time an hour after Redis's clock),
    optionally setting how many tokens it holds."""
    seconds, _ = client.time()
    key = BUCKET.format(channel)
    client.hset(key, "ts", str(seconds + 3600))
    if tokens is not None:
        client.hset(key, "tokens", str(tokens))


def tokens(client: redis.Redis, channel: str) -> float:
    return float(client.hget(BUCKET.format(channel), "tokens") or "nan")


@pytest.mark.redis
def test_workers_share_one_bucket_per_channel_through_redis(redis_url: str) -> None:
    url = redis_db(redis_url, WORKER_REDIS_DB)
    client = redis.Redis.from_url(url)
    first, second = OutboundLimiter(settings(2), url), OutboundLimiter(settings(2), url)
    decisions = []

    hold(client, "sms", tokens=2)  # full: two per second, one second of burst
    for limiter, max_wait in [(first, 5.0), (second, 5.0), (first, 5.0), (second, 0.1)]:
        decisions.append(limiter.reserve("sms", max_wait=max_wait))
        hold(client, "sms")

    assert decisions == [
        (True, 0.0), (True, 0.0),  # the burst, taken by two processes from one bucket
        (True, 0.5),  # queued: the next slot is half a second away
        (False, 1.0),  # the one after is further than max_wait: come back later
    ]
    assert tokens(client, "sms") == -1  # the refused call took nothing
    assert first.reserve("email") == (True, 0.0)  # channels do not share a bucket
    client.close()


@pytest.mark.redis
def test_a_redis_bucket_left_alone_refills_to_its_burst_and_no_more(redis_url: str) -> None:
    url = redis_db(redis_url, WORKER_REDIS_DB)
    client = redis.Redis.from_url(url)
    seconds, _ = client.time()
    client.hset(BUCKET.format("sms"), mapping={"tokens": "-1", "ts": str(seconds - 3600)})

    assert OutboundLimiter(settings(2), url).reserve("sms") == (True, 0.0)
    assert tokens(client, "sms") == 1  # refilled to 2 (not 7199), one taken
    client.close()


def test_without_redis_each_process_keeps_its_own_bucket() -> None:
    now = [100.0]
    limiter = OutboundLimiter(settings(1), clock=lambda: now[0])
    other = OutboundLimiter(settings(1), clock=lambda: now[0])

    assert limiter.reserve("email") == (True, 0.0)
    assert limiter.reserve("email", max_wait=5) == (True, 1.0)  # queued one second on
    assert limiter.reserve("email", max_wait=1.5) == (False, 2.0)  # too far ahead
    assert other.reserve("email") == (True, 0.0)  # another process: a bucket of its own
    now[0] += 2.0  # the two queued seconds pass
    assert limiter.reserve("email", max_wait=0) == (True, 0.0)
    now[0] += 60.0  # a long pause refills one second of burst, no more
    assert limiter.reserve("email") == (True, 0.0)
    assert limiter.reserve("email", max_wait=0) == (False, 1.0)


def test_an_unreachable_redis_lets_messages_through() -> None:
    limiter = OutboundLimiter(settings(1), "redis://127.0.0.1:1/0")

    assert limiter.reserve("sms") == (True, 0.0)
