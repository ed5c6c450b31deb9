"""Real CPU time of the render side of a reply, without a profiler.

Usage (from the repository root; any tree that has ``benchmarks/trace_reply.py``)::

    .venv/bin/python benchmarks/render_timers.py --games 8 --replies 60 --loop 7

Runs ``trace_reply.py`` with the given arguments, with a CPU-time counter around
``pbm.render.render`` (and inside it the text, the HTML, CSS inlining, the model), the board
picture (``pbm.outbox_pictures.board_picture``), ``pbm.outbox.build_context`` and the MIME bytes of
each email sent (``email_bytes``, as the file transport calls it); prints each one's
total, calls and ms per call. ``--loop N`` then renders every message of the run again, N
passes in a tight loop, checks each is the same as in the run, and prints the best pass's ms
per message. cProfile inflates Jinja's many small calls about tenfold against C code: these
are the figures to compare with the worker CPU per reply.
"""

from __future__ import annotations

import argparse
import functools
import runpy
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path.cwd()))

import pbm.outbox as outbox
import pbm.outbox_pictures as outbox_pictures
import pbm.render as render
import pbm.render.email as email
import pbm.transports.files as files

SPENT: Counter[str] = Counter()
CALLS: Counter[str] = Counter()
SEEN: list[tuple[Any, Any, Any]] = []


def timed(module: Any, name: str, label: str | None = None) -> None:
    """Count the CPU time of ``module.name`` under ``label``."""
    inner = getattr(module, name)

    @functools.wraps(inner)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            SPENT[label or name] += time.process_time() - start
            CALLS[label or name] += 1

    setattr(module, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loop", type=int, default=0)
    args, rest = parser.parse_known_args()
    for name in ("build_model", "render_html", "render_text"):
        timed(render, name)
    if hasattr(email, "inline_css"):  # the stylesheet given to one inliner per process
        timed(email, "inline_css", "css_inline")
    else:
        timed(email.css_inline, "inline", "css_inline")
    timed(outbox_pictures, "board_picture")
    timed(outbox, "build_context")
    timed(files, "email_bytes")  # the MIME of each email the file transport writes
    rendering = render.render

    def kept(ctx: Any, channel: Any) -> Any:
        out = rendering(ctx, channel)
        SEEN.append((ctx, channel, out))
        return out

    render.render = kept
    timed(render, "render")
    sys.argv = ["trace_reply.py", *rest]
    runpy.run_path("benchmarks/trace_reply.py", run_name="__main__")
    for label, spent in SPENT.most_common():
        print(f"{label:16} {spent * 1000:8.1f} ms total {CALLS[label]:5d} calls "
              f"{spent * 1000 / CALLS[label]:6.2f} ms per call")
    if args.loop:
        passes = []
        for _ in range(args.loop):
            start = time.process_time()
            for ctx, channel, out in SEEN:
                assert rendering(ctx, channel) == out, (ctx.kind, channel)
            passes.append((time.process_time() - start) * 1000 / len(SEEN))
        print(f"tight loop over {len(SEEN)} messages, {args.loop} passes: best "
              f"{min(passes):.3f} ms per message (the same bytes as in the run)")


if __name__ == "__main__":
    main()
