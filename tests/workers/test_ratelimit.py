"""The outbound token bucket, shared through a real Redis, and its in-process fallback."""

from __future__ import annotations

import pytest

from pbm.config import Settings
from pbm.ratelimit import OutboundLimiter
from tests.workers.conftest import WORKER_REDIS_DB, redis_db


def settings(per_second: float) -> Settings:
    return Settings(outbound_email_per_second=per_second, outbound_sms_per_second=per_second)


@pytest.mark.redis
def test_workers_share_one_bucket_per_channel_through_redis(redis_url: str) -> None:
    url = redis_db(redis_url, WORKER_REDIS_DB)
    first, second = OutboundLimiter(settings(2), url), OutboundLimiter(settings(2), url)

    burst = [first.reserve("sms"), second.reserve("sms")]  # two processes, one bucket
    queued = first.reserve("sms", max_wait=5)
    refused = second.reserve("sms", max_wait=0.1)

    assert burst == [(True, 0.0), (True, 0.0)]
    assert queued[0] and 0.3 < queued[1] <= 0.5  # the next slot, half a second away
    assert not refused[0] and refused[1] > 0.5  # too far ahead: come back later
    assert first.reserve("email") == (True, 0.0)  # channels do not share a bucket


def test_without_redis_each_process_keeps_its_own_bucket() -> None:
    limiter = OutboundLimiter(settings(1))

    assert limiter.reserve("email") == (True, 0.0)
    reserved, wait = limiter.reserve("email", max_wait=5)
    assert reserved and 0.9 < wait <= 1.0


def test_an_unreachable_redis_lets_messages_through() -> None:
    limiter = OutboundLimiter(settings(1), "redis://127.0.0.1:1/0")

    assert limiter.reserve("sms") == (True, 0.0)
