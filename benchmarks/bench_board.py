"""The board picture: milliseconds and kilobytes per game version, side by side with the
drawing of another commit.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_board.py                   # this tree, main beside it
    .venv/bin/python benchmarks/bench_board.py --baseline HEAD~3 --rounds 40
    .venv/bin/python benchmarks/bench_board.py --players 9       # 9 seats, long names

One random game of ``--players`` seats (seed ``--seed``) is played; every ``--step``-th
version's public view is a sample (as the service draws one picture per game version). Each
round draws every sample once with this tree's ``pbm/board_image.py`` and once with the
baseline's (``git show REF:pbm/board_image.py``, loaded as a module of its own), in an
order swapped every round, after one warm-up round. Reported: milliseconds per picture
(median and best round) and mean kilobytes for both, and as the last line the per-round
ratio this tree / baseline (min and median: below 1 is faster).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.ratios import interleaved, per_round_ratio, quantile, timed
from engine import apply, new_game, pending, public_view
from engine.simulate import random_command
from pbm import board_image

NAMES = ["Ann", "Bartholomew", "Cleo", "Dmitri", "Émile", "Łukasz Wiśniewski", "Дмитрий",
         "Nguyễn Thị Minh Khai", "José María Fernández García"]


def sample_views(players: int, seed: int, step: int) -> list[dict[str, Any]]:
    """Public views of every ``step``-th version of one random game."""
    rng = random.Random(seed)
    state = new_game(NAMES[:players], seed)
    views = [public_view(state).to_dict()]
    while not state.over:
        decision = rng.choice(pending(state))
        state, _ = apply(state, decision.seat, random_command(rng, decision))
        if state.version % step == 0 or state.over:
            views.append(public_view(state).to_dict())
    return views


def load_baseline(ref: str, folder: Path) -> Callable[[dict[str, Any]], bytes]:
    """``draw_board`` of ``pbm/board_image.py`` at git commit ``ref``."""
    repo = Path(__file__).resolve().parents[1]
    source = subprocess.run(["git", "-C", str(repo), "show", f"{ref}:pbm/board_image.py"],
                            check=True, capture_output=True, text=True).stdout
    path = folder / "board_image_baseline.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("board_image_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    draw: Callable[[dict[str, Any]], bytes] = module.draw_board
    return draw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default="main", metavar="REF",
                        help="git commit whose drawing is measured beside this tree's")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--step", type=int, default=4, help="draw every STEP-th version")
    args = parser.parse_args()
    views = sample_views(args.players, args.seed, args.step)
    sizes: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-board-") as tmp:
        sides = {f"baseline {args.baseline}": load_baseline(args.baseline, Path(tmp)),
                 "this tree": board_image.draw_board}

        def op(name: str) -> Callable[[int], float]:
            draw = sides[name]

            def run(_r: int) -> float:
                pngs: list[bytes] = []
                seconds = timed(lambda: pngs.extend(draw(v) for v in views), len(views))
                sizes[name] = [len(png) for png in pngs]
                return seconds
            return run

        times = interleaved({name: op(name) for name in sides}, args.rounds + 1)
    times = {name: values[1:] for name, values in times.items()}  # round 0 warms up
    print(f"{len(views)} public views of one random {args.players}-player game (every "
          f"{args.step}th version), {args.rounds} rounds after one warm-up round")
    width = max(map(len, times))
    for name, values in times.items():
        kb = sum(sizes[name]) / len(sizes[name]) / 1024
        print(f"  {name:<{width}}  median {quantile(values, 0.5) * 1e3:6.2f} ms   best "
              f"{min(values) * 1e3:6.2f} ms   mean {kb:5.1f} KB   max "
              f"{max(sizes[name]) / 1024:5.1f} KB per picture")
    base, mine = list(times)
    ratio = per_round_ratio(times, mine, base)
    print(f"this tree / baseline, time per picture (per round): min {min(ratio):.3f}, "
          f"median {quantile(ratio, 0.5):.3f}")


if __name__ == "__main__":
    main()
