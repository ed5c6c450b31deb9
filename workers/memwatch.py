"""What a worker process's memory is made of, every so many tasks (a diagnostic, opt-in).

Off unless ``WORKER_MEMORY_WATCH`` names a folder: then ``workers.app`` connects
:func:`start` to ``worker_process_init`` and :func:`after_task` to ``task_postrun``, and
each pool process appends to ``memwatch-<pid>.log`` in that folder, every
``WORKER_MEMORY_EVERY`` tasks (default 1,000), one report:

- resident memory split by mapping (``/proc/self/smaps``): the brk heap, anonymous
  mappings (glibc's other arenas and large blocks, pymalloc's arenas, Pillow's image
  blocks), shared libraries and other files, the stack;
- glibc's own account (``mallinfo2``): bytes in use, free bytes it keeps, mmapped blocks;
- Python's own: its small-object allocator's arenas (used and free bytes in them); and
  ``tracemalloc``, started in the pool process with ``WORKER_MEMORY_FRAMES`` frames
  (default 1; 0: not started, for resident sizes without tracing): traced bytes, and the
  source lines that grew most since the first report and since the previous one;
- the process's caches that can grow: every ``functools.lru_cache`` with entries, the
  SQLAlchemy engines' compiled-statement caches, the Jinja environments' template caches,
  the psycopg connections' prepared statements.

Tracing slows every allocation: a run with the watch on says where memory goes, not how
fast a reply is. ``benchmarks/bench_pipeline.py --memwatch`` turns it on and prints the
largest pool process's reports at the end.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import os
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

#: the environment variables that turn the watch on and tune it
ENV_DIR, ENV_EVERY, ENV_FRAMES = ("WORKER_MEMORY_WATCH", "WORKER_MEMORY_EVERY",
                                  "WORKER_MEMORY_FRAMES")
TOP_LINES = 12
#: an lru_cache with fewer entries is left out of the report
MIN_ENTRIES = 16
_LRU_WRAPPER: type = functools._lru_cache_wrapper


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
        "uordblks", "fordblks", "keepcost")]


def _load_mallinfo() -> Any:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallinfo2 = libc.mallinfo2
    except (OSError, AttributeError):  # not glibc, or glibc before 2.33
        return None
    mallinfo2.restype = _MallInfo2
    return mallinfo2


class _Watch:
    def __init__(self, folder: Path, every: int, frames: int) -> None:
        self.path = folder / f"memwatch-{os.getpid()}.log"
        self.every = every
        self.frames = frames
        self.tasks = 0
        self.lock = threading.Lock()
        # per source line: (bytes, blocks); kept as sums, not snapshots (a snapshot of a
        # worker holds every traced block and would itself be tens of MB of the RSS watched)
        self.first: dict[str, tuple[int, int]] | None = None
        self.previous: dict[str, tuple[int, int]] | None = None
        self.mallinfo = _load_mallinfo()
        self.started = time.monotonic()


_WATCH: _Watch | None = None


def enabled() -> bool:
    """True when ``WORKER_MEMORY_WATCH`` asks for the watch."""
    return bool(os.environ.get(ENV_DIR))


def start(**_: Any) -> None:
    """``worker_process_init``: start tracing this pool process and write report 0."""
    global _WATCH
    folder = Path(os.environ[ENV_DIR])
    folder.mkdir(parents=True, exist_ok=True)
    _WATCH = _Watch(folder, int(os.environ.get(ENV_EVERY, "1000")),
                    int(os.environ.get(ENV_FRAMES, "1")))
    if _WATCH.frames:
        tracemalloc.start(_WATCH.frames)
    _report(_WATCH)


def after_task(**_: Any) -> None:
    """``task_postrun``: a report after every ``WORKER_MEMORY_EVERY`` tasks."""
    watch = _WATCH
    if watch is None:
        return
    with watch.lock:
        watch.tasks += 1
        due = watch.tasks % watch.every == 0
    if due:
        _report(watch)


def smaps_split(text: str | None = None) -> dict[str, int]:
    """Resident kB of this process by kind of mapping: ``heap`` (brk), ``anon`` (anonymous
    mmaps), ``libs`` (``.so`` files), ``files`` (other files), ``stack``, ``other``."""
    if text is None:
        text = Path("/proc/self/smaps").read_text()
    split = dict.fromkeys(("heap", "anon", "libs", "files", "stack", "other"), 0)
    kind = "other"
    for line in text.splitlines():
        head, _, rest = line.partition(" ")
        if head == "Rss:":
            split[kind] += int(rest.split()[0])
        elif "-" in head and not head.endswith(":"):  # a mapping's first line
            fields = line.split(None, 5)
            name = fields[5].strip() if len(fields) == 6 else ""
            if name == "[heap]":
                kind = "heap"
            elif name.startswith("[stack"):
                kind = "stack"
            elif not name:
                kind = "anon"
            elif name.startswith("["):
                kind = "other"
            elif ".so" in name.rsplit("/", 1)[-1]:
                kind = "libs"
            else:
                kind = "files"
    return split


def pymalloc_stats() -> dict[str, int]:
    """Python's small-object allocator (``sys._debugmallocstats``, which writes to the C
    stderr): arenas (1 MiB each) now and at most, bytes in used and in free blocks of them.
    Free blocks inside arenas that cannot be given back is Python's own fragmentation."""
    keys = {"# arenas allocated current": "arenas", "# arenas highwater mark": "arenas_max",
            "# bytes in allocated blocks": "used", "# bytes in available blocks": "free"}
    with tempfile.TemporaryFile("w+") as out:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(out.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read()
    found: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() in keys:
            found[keys[key.strip()]] = int(value.strip().replace(",", ""))
    return found


def _rollup() -> dict[str, int]:
    wanted = ("Rss", "Pss", "Shared_Clean", "Shared_Dirty", "Private_Clean",
              "Private_Dirty", "Anonymous")
    values: dict[str, int] = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in wanted:
            values[key] = int(rest.split()[0])
    return values


def cache_sizes() -> list[tuple[str, int, int]]:
    """(name, entries, bound) of this process's caches that hold something: every
    ``lru_cache``/``cache`` with entries, SQLAlchemy engines' compiled-statement caches,
    Jinja environments' template caches, psycopg connections' prepared statements (bound
    0: none). Found by one walk over the garbage collector's objects: nothing is created."""
    from jinja2 import Environment
    from psycopg import Connection
    from sqlalchemy.engine import Engine

    found: list[tuple[str, int, int]] = []
    for obj in gc.get_objects():
        if isinstance(obj, Engine):
            cache: Any = obj._compiled_cache
            if cache is not None:
                found.append((f"sqlalchemy compiled statements ({obj.url.database})",
                              len(cache), cache.capacity))
        elif isinstance(obj, Environment):
            templates: Any = obj.cache
            if templates is not None and len(templates):
                found.append((f"jinja templates {id(obj):x}", len(templates),
                              templates.capacity))
        elif isinstance(obj, Connection):
            names = getattr(obj._prepared, "_names", {})
            found.append((f"psycopg prepared statements {id(obj):x}"
                          f"{' (closed)' if obj.closed else ''}", len(names),
                          obj.prepared_max or 0))
        elif isinstance(obj, _LRU_WRAPPER):
            memo: Any = obj
            info = memo.cache_info()
            if info.currsize >= MIN_ENTRIES:
                wrapped = memo.__wrapped__
                found.append((f"{getattr(wrapped, '__module__', '?')}."
                              f"{getattr(wrapped, '__qualname__', '?')}"
                              f" hits {info.hits} misses {info.misses}",
                              info.currsize, info.maxsize or 0))
    return sorted(found, key=lambda item: -item[1])


def _by_line() -> dict[str, tuple[int, int]]:
    snapshot = tracemalloc.take_snapshot().filter_traces(
        (tracemalloc.Filter(False, tracemalloc.__file__),
         tracemalloc.Filter(False, __file__)))
    sums = {}
    for stat in snapshot.statistics("lineno"):
        frame = stat.traceback[0]
        sums[f"{frame.filename}:{frame.lineno}"] = (stat.size, stat.count)
    return sums


def growth(now: dict[str, tuple[int, int]], base: dict[str, tuple[int, int]],
           top: int = TOP_LINES) -> list[tuple[str, int, int]]:
    """The ``top`` source lines whose traced bytes grew most from ``base`` to ``now``:
    (line, bytes, blocks)."""
    diffs = [(line, size - base.get(line, (0, 0))[0], count - base.get(line, (0, 0))[1])
             for line, (size, count) in now.items()]
    diffs.extend((line, -size, -count) for line, (size, count) in base.items()
                 if line not in now)
    return sorted(diffs, key=lambda d: -abs(d[1]))[:top]


def _report(watch: _Watch) -> None:
    lines = [f"== task {watch.tasks} ({time.monotonic() - watch.started:.0f} s)"
             f" pid {os.getpid()}",
             "rss kB " + " ".join(f"{k}={v}" for k, v in _rollup().items()),
             "split kB " + " ".join(f"{k}={v}" for k, v in smaps_split().items())]
    if watch.mallinfo is not None:
        info = watch.mallinfo()
        lines.append(f"glibc kB in_use={info.uordblks // 1024} free_kept={info.fordblks // 1024}"
                     f" mmapped={info.hblkhd // 1024} arena={info.arena // 1024}")
    arenas = pymalloc_stats()
    lines.append(f"python blocks={sys.getallocatedblocks()} gc_objects={len(gc.get_objects())}"
                 f" pymalloc_arenas={arenas.get('arenas')} max={arenas.get('arenas_max')}"
                 f" used_kB={arenas.get('used', 0) // 1024}"
                 f" free_kB={arenas.get('free', 0) // 1024}")
    if tracemalloc.is_tracing():
        traced, peak = tracemalloc.get_traced_memory()
        lines.append(f"tracemalloc kB traced={traced // 1024} peak={peak // 1024}")
        now = _by_line()
        for title, base in (("since the first report", watch.first),
                            ("since the previous report", watch.previous)):
            if base is None:
                continue
            lines.append(f"top growth {title}:")
            lines.extend(f"  {size / 1024:+9.1f} KB {count:+7d} blocks  {line}"
                         for line, size, count in growth(now, base))
        if watch.first is None:
            watch.first = now
        watch.previous = now
    lines.append("caches (entries/bound):")
    lines.extend(f"  {entries:6d}/{bound:<6d} {name}" for name, entries, bound in cache_sizes())
    with watch.path.open("a") as out:
        out.write("\n".join(lines) + "\n")
