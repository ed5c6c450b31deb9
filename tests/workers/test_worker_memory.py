"""A worker's resident memory stays flat: the encoded picture parts are remembered under a
digest of the PNG, and freed heap is given back to the system between tasks."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from pbm.transports import mail
from workers import memory

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 80


def test_a_picture_part_is_remembered_under_a_digest_not_the_png() -> None:
    first = mail.picture_part("board-1-2@tortuga.test", "png", PNG)
    again = mail.picture_part("board-1-2@tortuga.test", "png", bytes(bytearray(PNG)))
    assert again is first, "the same picture (another bytes object) is encoded once"
    # (private: what the cache holds is the point; its keys must not hold the PNG)
    assert len(mail._PICTURE_PARTS) <= mail.PICTURE_PARTS_KEPT
    for key in mail._PICTURE_PARTS:
        assert all(len(k) < 100 for k in key), "no key holds the picture's bytes"
    other = mail.picture_part("board-1-2@tortuga.test", "png", PNG[:-1] + b"\x00")
    assert other != first


def test_a_pictures_headers_are_not_kept_by_the_folded_header_memo() -> None:
    """A picture's Content-ID and file name are written once (its part is remembered whole):
    they would only fill the memo of headers that recur."""
    mail.folded_header.cache_clear()
    for n in range(3):
        mail.picture_part(f"board-9-{n}@tortuga.test", "png", PNG + bytes([n]))
    assert mail.folded_header.cache_info().currsize == 0
    assert mail.folded_header.cache_info().maxsize == mail.FOLDED_KEPT <= 256


def test_the_heap_is_trimmed_after_every_few_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    done, trimmed_after = [0], []  # tasks run; how many had run at each trim
    monkeypatch.setattr(memory, "trim", lambda: trimmed_after.append(done[0]) or True)
    for _ in range(memory.TRIM_EVERY * 3):
        memory.after_task()
        done[0] += 1
    # whatever count this process had reached: three trims, TRIM_EVERY tasks apart
    first, second, third = trimmed_after
    assert third - second == second - first == memory.TRIM_EVERY


def test_celery_calls_the_trim_after_each_task() -> None:
    from celery.signals import task_postrun

    import workers.app  # noqa: F401 - connects the signal

    receivers = [r() if callable(r) and not hasattr(r, "__name__") else r
                 for *_, r in task_postrun.receivers]
    assert memory.after_task in receivers


@pytest.mark.skipif(not sys.platform.startswith("linux") or not memory.can_trim(),
                    reason="malloc_trim is glibc's")
def test_a_trim_gives_freed_heap_back_to_the_system() -> None:
    """Many blocks freed between a few kept (a fragmented heap, as after a reply): the
    resident size stays up until ``trim`` returns the free pages."""
    script = textwrap.dedent("""
        import gc
        from workers import memory

        def rss():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * 4096

        blocks = [bytes(4000) + bytes([i % 256]) for i in range(20000)]  # about 80 MB
        kept = blocks[::64]  # a few stay: the heap cannot shrink from its top
        del blocks
        gc.collect()
        before = rss()
        memory.trim()
        print(before - rss(), len(kept))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    assert int(out[0]) > 40 * 2**20, f"only {int(out[0]) / 2**20:.1f} MB given back"
