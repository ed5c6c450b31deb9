"""A child process of ``bench_engine.py --baseline``: plays random games with the engine
found under a given source tree, on request, so that two engines (this tree's and a
baseline's) can be timed turn about in one run.

Usage: ``python benchmarks/playout_worker.py ROOT PLAYERS``; then one request per stdin
line, ``FIRST_SEED COUNT``, answered by one stdout line ``SECONDS DECISIONS``.
"""

from __future__ import annotations

import sys
import time


def main() -> None:
    root, players = sys.argv[1], int(sys.argv[2])
    sys.path.insert(0, root)
    from engine.simulate import random_game  # the engine under ROOT, not this tree's

    for line in sys.stdin:
        first, count = map(int, line.split())
        decisions = 0
        start = time.process_time()
        for seed in range(first, first + count):
            decisions += len(random_game(players, seed)[1])
        print(f"{time.process_time() - start} {decisions}", flush=True)


if __name__ == "__main__":
    main()
