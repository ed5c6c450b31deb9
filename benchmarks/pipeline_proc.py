"""The processes of ``bench_pipeline.py``: the web app and a Celery worker, each counting
the SQL statements and commits it runs into a Redis hash, plus a no-op task.

    python -m benchmarks.pipeline_proc web PORT
    python -m benchmarks.pipeline_proc worker CONCURRENCY

Counting uses SQLAlchemy events on every engine (``before_cursor_execute``, ``commit``);
counts are kept in the process and added to the Redis hash ``bench:sql`` (fields
``statements`` and ``commits``) by a thread every 0.2 s, so no statement waits for Redis.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import event
from sqlalchemy.engine import Engine

COUNTS_KEY = "bench:sql"
NOOP_KEY = "bench:noop"
TASK_NOOP = "bench.noop"


class _Counter:
    def __init__(self) -> None:
        self.counts = {"statements": 0, "commits": 0}
        self.lock = threading.Lock()
        self.pid = 0

    def add(self, field: str) -> None:
        if self.pid != os.getpid():  # first event in this (forked) process
            self.pid = os.getpid()
            self.counts = {"statements": 0, "commits": 0}
            threading.Thread(target=self._flush_forever, daemon=True).start()
        with self.lock:
            self.counts[field] += 1

    def _flush_forever(self) -> None:
        import redis

        client = redis.Redis.from_url(os.environ["REDIS_URL"])
        while True:
            time.sleep(0.2)
            with self.lock:
                counts, self.counts = self.counts, {"statements": 0, "commits": 0}
            if any(counts.values()):
                pipe = client.pipeline()
                for field, value in counts.items():
                    pipe.hincrby(COUNTS_KEY, field, value)
                pipe.execute()


COUNTER = _Counter()


def install_counter() -> None:
    """Count every statement and commit of every engine of this process."""
    def statement(*_args: Any) -> None:
        COUNTER.add("statements")

    def commit(*_args: Any) -> None:
        COUNTER.add("commits")

    event.listen(Engine, "before_cursor_execute", statement)
    event.listen(Engine, "commit", commit)


def worker(concurrency: int) -> None:
    from workers.app import app

    @app.task(name=TASK_NOOP)  # type: ignore[untyped-decorator]
    def noop() -> None:
        """Nothing, but tell the bench it ran (one Redis INCR)."""
        _noop_client().incr(NOOP_KEY)

    install_counter()
    if os.environ.get("BENCH_PROFILE_DIR"):
        profile_pool_processes(os.environ["BENCH_PROFILE_DIR"])
    app.worker_main(["worker", "--loglevel=WARNING", f"--concurrency={concurrency}",
                     "--pool=prefork", "--without-gossip", "--without-mingle",
                     "--without-heartbeat", "-n", f"bench-{os.getpid()}@%h"])


def profile_pool_processes(folder: str, every: int = 200) -> None:
    """cProfile each pool process from its start, in CPU time; write its stats to
    ``folder/worker-<pid>.pstats`` every ``every`` tasks (the whole task as Celery runs it:
    what ``trace_reply.py`` does not see)."""
    import cProfile
    import time

    from celery.signals import task_postrun, worker_process_init

    state: dict[str, Any] = {}

    def start(**_: Any) -> None:
        state["profile"], state["tasks"] = cProfile.Profile(time.process_time), 0
        state["profile"].enable()

    def dump(**_: Any) -> None:
        state["tasks"] += 1
        if state["tasks"] % every == 0:
            state["profile"].dump_stats(f"{folder}/worker-{os.getpid()}.pstats")

    worker_process_init.connect(start, weak=False)
    task_postrun.connect(dump, weak=False)


_CLIENT: Any = None


def _noop_client() -> Any:
    global _CLIENT
    import redis

    if _CLIENT is None:
        _CLIENT = redis.Redis.from_url(os.environ["REDIS_URL"])
    return _CLIENT


def web(port: int, processes: int = 1) -> None:
    import uvicorn

    install_counter()
    if processes > 1:  # each uvicorn worker process imports this module's counter anew
        uvicorn.run("benchmarks.pipeline_proc:counted_app", host="127.0.0.1", port=port,
                    log_level="warning", workers=processes)
    else:
        uvicorn.run("pbm.web:app", host="127.0.0.1", port=port, log_level="warning")


def __getattr__(name: str) -> Any:
    """``counted_app``: the web app, with this process's statements counted (for the
    uvicorn worker processes of ``web(port, processes > 1)``)."""
    if name != "counted_app":
        raise AttributeError(name)
    install_counter()
    from pbm.web import app

    return app


if __name__ == "__main__":
    if sys.argv[1] == "worker":
        worker(int(sys.argv[2]))
    else:
        web(int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 1)
