"""Worker CPU per valid reply, this tree against another commit, turn about.

Usage (from the repository root)::

    .venv/bin/python benchmarks/reply_cpu_side_by_side.py --baseline a0f6b87 --runs 4

The commit's tree is extracted with ``git archive`` into a temporary folder and this
tree's ``benchmarks/trace_reply.py`` is copied into it; then ``trace_reply.py`` runs in
each tree in turn (``--runs`` times each, the order swapped every run; same games, same
seeds, same replies). Each run prints its median CPU (process + send) per valid reply;
the last line is the median over runs of baseline / this tree.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"median ([\d.]+) ms, p90 ([\d.]+) ms, mean ([\d.]+) ms")


def run(tree: Path, extra: list[str]) -> tuple[float, float, float]:
    out = subprocess.run([sys.executable, str(tree / "benchmarks" / "trace_reply.py"), *extra],
                         cwd=tree, capture_output=True, text=True, check=True).stdout
    match = LINE.search(out)
    assert match, out[-2000:]
    return float(match.group(1)), float(match.group(2)), float(match.group(3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--replies", type=int, default=60)
    parser.add_argument("--database", default="bench_trace_reply",
                        help="trace_reply.py's private database (see its --database)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="reply-cpu-"))
    try:
        archive = subprocess.run(["git", "archive", args.baseline], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
        shutil.copy(ROOT / "benchmarks" / "trace_reply.py", folder / "benchmarks")
        extra = ["--games", str(args.games), "--replies", str(args.replies),
                 "--database", args.database]
        ratios = []
        for k in range(args.runs):
            order = [("baseline", folder), ("this tree", ROOT)]
            if k % 2:
                order.reverse()
            got = {name: run(tree, extra) for name, tree in order}
            ratios.append(got["baseline"][0] / got["this tree"][0])
            for name in ("baseline", "this tree"):
                median, p90, mean = got[name]
                print(f"run {k + 1} {name:9}: median {median:6.1f} ms  p90 {p90:6.1f} ms  "
                      f"mean {mean:6.1f} ms CPU per valid reply", flush=True)
        print(f"baseline {args.baseline} / this tree, median CPU per reply: "
              f"min {min(ratios):.2f}x, median {statistics.median(ratios):.2f}x")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
