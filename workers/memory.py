"""Giving freed heap back to the system between tasks (glibc's ``malloc_trim``).

A reply allocates and frees tens of kilobytes at a time (rendered messages, MIME text, the
board picture): glibc keeps the freed pages in its arenas, and a worker's resident size
creeps up as the heap fragments although nothing stays allocated (``trace_reply.py
--tracemalloc``). ``malloc_trim(0)`` after every ``TRIM_EVERY`` tasks returns the free pages
at the top of each arena and the wholly free pages inside them. Elsewhere than glibc (musl,
macOS) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from collections.abc import Callable
from typing import Any

#: tasks between two trims (a trim of a worker's heap takes about a millisecond)
TRIM_EVERY = 20


def _load_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


_TRIM = _load_trim()
_lock = threading.Lock()
_since_trim = 0


def can_trim() -> bool:
    """True where the C library has ``malloc_trim`` (glibc): elsewhere ``trim`` does nothing."""
    return _TRIM is not None


def trim() -> bool:
    """Return free heap memory to the system now; True if glibc gave any back."""
    return bool(_TRIM(0)) if _TRIM is not None else False


def after_task(**_: Any) -> None:
    """Celery's ``task_postrun``: trim after every ``TRIM_EVERY`` tasks of this process."""
    global _since_trim
    with _lock:
        _since_trim += 1
        if _since_trim < TRIM_EVERY:
            return
        _since_trim = 0
    trim()
