"""The worker's memory watch (``workers.memwatch``): off unless asked for, and when on, a
report of where a pool process's memory is, every so many tasks."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workers import memwatch

SMAPS = """\
55d0c0000000-55d0c2000000 rw-p 00000000 00:00 0                          [heap]
Size:              32768 kB
Rss:                3000 kB
7f00a0000000-7f00a4000000 rw-p 00000000 00:00 0
Size:              65536 kB
Rss:                2000 kB
7f00b0000000-7f00b0100000 rw-p 00000000 00:00 0
Rss:                 500 kB
7f00c0000000-7f00c0200000 r-xp 00000000 08:01 1234                       /usr/lib/libc.so.6
Rss:                1200 kB
7f00c1000000-7f00c1010000 r--p 00000000 08:01 1235                       /usr/lib/locale/LC_CTYPE
Rss:                  40 kB
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
Rss:                  80 kB
7ffd10000000-7ffd10002000 r-xp 00000000 00:00 0                          [vdso]
Rss:                   8 kB
"""


def test_resident_memory_is_split_by_kind_of_mapping() -> None:
    assert memwatch.smaps_split(SMAPS) == {
        "heap": 3000, "anon": 2500, "libs": 1200, "files": 40, "stack": 80, "other": 8}


def test_growth_lists_the_lines_that_grew_most_first() -> None:
    before = {"a.py:1": (1000, 10), "b.py:2": (5000, 5), "gone.py:3": (200, 2)}
    after = {"a.py:1": (9000, 90), "b.py:2": (5100, 6), "new.py:4": (3000, 30)}
    assert memwatch.growth(after, before, top=3) == [
        ("a.py:1", 8000, 80), ("new.py:4", 3000, 30), ("gone.py:3", -200, -2)]


def test_the_watch_is_off_without_its_environment_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(memwatch.ENV_DIR, raising=False)
    assert not memwatch.enabled()
    script = textwrap.dedent("""
        from celery.signals import task_postrun
        import workers.app
        receivers = [r() if isinstance(r, weakref.ref) else r for *_, r in task_postrun.receivers]
        print(sorted(f"{r.__module__}.{r.__name__}" for r in receivers if r is not None))
    """).replace("from celery", "import weakref\nfrom celery", 1)
    env = {k: v for k, v in os.environ.items() if k != memwatch.ENV_DIR}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, env=env).stdout
    assert "workers.memory.after_task" in out and "workers.memwatch" not in out


@pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="Linux /proc")
def test_a_pool_process_reports_its_memory_every_so_many_tasks(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import functools, os
        os.environ.update(WORKER_MEMORY_WATCH=os.environ["OUT"], WORKER_MEMORY_EVERY="3",
                          WORKER_MEMORY_FRAMES="1")
        from workers import memwatch

        @functools.lru_cache(maxsize=64)
        def square(n):
            return n * n

        memwatch.start()
        kept = []
        for task in range(7):
            square(task % 20) and [square(n) for n in range(40)]
            kept.append(bytearray(1_000_000))
            memwatch.after_task()
    """)
    subprocess.run([sys.executable, "-c", script], check=True, env={
        **os.environ, "OUT": str(tmp_path)})
    (log,) = tmp_path.glob("memwatch-*.log")
    reports = log.read_text().split("== task ")[1:]
    assert [r.split()[0] for r in reports] == ["0", "3", "6"]
    last = reports[-1]
    assert "split kB heap=" in last and " anon=" in last and "Rss=" in last
    assert "pymalloc_arenas=" in last and "tracemalloc kB traced=" in last
    assert "top growth since the first report:" in last
    grown = last.split("top growth since the previous report:")[1].splitlines()[1]
    assert "<string>:" in grown and "+2929." in grown, "3 bytearrays kept since"
    assert "40/64" in last and "square hits" in last, "the lru_cache and its entries"
