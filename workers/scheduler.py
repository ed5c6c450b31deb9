"""celery-redbeat, made to survive a Redis restart.

redbeat keeps its schedule and its lock (the guarantee that exactly one beat runs) in Redis.
When Redis restarts without its data, stock redbeat dies on the lost lock; when Redis is
down at the wrong moment it dies on the connection error. This scheduler instead waits for
Redis, takes the lock again if it is free (another beat that took it meanwhile wins, and
this one stands by), and re-installs the schedule that was lost with the data.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from redbeat.schedulers import LUA_EXTEND_TO_SCRIPT, RedBeatScheduler, get_redis
from redis.exceptions import LockError, RedisError

log = logging.getLogger(__name__)

STARTUP_WAIT = 600.0  # seconds to wait for Redis when starting


class ResilientRedBeatScheduler(RedBeatScheduler):  # type: ignore[misc]
    """A RedBeatScheduler that outlives Redis restarts and outages (see module doc)."""

    def setup_schedule(self) -> None:
        deadline = time.monotonic() + STARTUP_WAIT
        while True:
            try:
                super().setup_schedule()
                return
            except RedisError as exc:
                if time.monotonic() > deadline:
                    raise
                log.warning("beat: Redis unavailable (%s); waiting", exc)
                time.sleep(2)

    def _take_lock(self) -> bool:
        """Take the beat lock if nobody holds it; True if this beat holds it now."""
        client = get_redis(self.app)
        lock = client.lock(self.lock_key, timeout=self.lock_timeout, sleep=self.max_interval)
        lock.lua_extend = client.register_script(LUA_EXTEND_TO_SCRIPT)
        if not lock.acquire(blocking=False):
            return False
        self.lock = lock
        log.info("beat: acquired the lock again; reinstalling the schedule")
        super().setup_schedule()
        return True

    def tick(self, min: Any = min, **kwargs: Any) -> float:
        try:
            if self.lock_key and self.lock is None and not self._take_lock():
                return float(self.max_interval)
            return float(super().tick(min=min, **kwargs))
        except LockError:
            log.warning("beat: the lock was lost (Redis restarted?); trying to take it again")
            self.lock = None
            try:
                return 0.0 if self._take_lock() else float(self.max_interval)
            except RedisError as exc:
                log.warning("beat: Redis unavailable (%s)", exc)
                return float(self.max_interval)
        except RedisError as exc:
            log.warning("beat: Redis unavailable (%s); retrying", exc)
            return float(self.max_interval)
