"""The board picture: milliseconds and kilobytes per game version, side by side with the
drawing of another commit.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_board.py                   # this tree, main beside it
    .venv/bin/python benchmarks/bench_board.py --baseline HEAD~3 --rounds 40
    .venv/bin/python benchmarks/bench_board.py --players 9       # 9 seats, long names

One random game of ``--players`` seats (seed ``--seed``) is played; every ``--step``-th
version's public view is a sample, less one that draws what the sample before it drew (as
the service draws one picture per game version, and reuses the one before when a version
changed nothing drawn: ``pbm.outbox_pictures.board_picture``). Each round draws every sample once,
in the game's order, with this tree's ``pbm/board_image.py`` and once with the baseline's
(``git show REF:pbm/board_image.py``, loaded as a module of its own, with the fonts of
REF), in an order swapped every round, after one warm-up round; ``--language ko`` draws the
Korean pictures. Each round starts with no band of a picture remembered
(``board_image.clear_cache``: a band one version left as it was is reused by
the next), so it measures a game's sequence of versions; the lines of text rendered stay
from round to round, as in a worker that has run for a while. Reported: milliseconds per
picture (median and best round) and mean kilobytes for both, whether their PNG bytes are
identical, and as the last line the per-round ratio this tree / baseline (min and median:
below 1 is faster).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.ratios import interleaved, per_round_ratio, quantile, timed
from engine import apply, new_game, pending, public_view
from engine.simulate import random_command
from pbm import board_image

NAMES = ["Ann", "Bartholomew", "Cleo", "Dmitri", "Émile", "Łukasz Wiśniewski", "Дмитрий",
         "Nguyễn Thị Minh Khai", "José María Fernández García"]


#: public view fields the picture does not show (as ``pbm.outbox_pictures.NOT_DRAWN``)
NOT_DRAWN = frozenset({"version", "awaiting", "vote", "action", "actions_per_turn",
                       "vote_deck_size", "starred", "loyalties"})


def _drawn(view: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in view.items() if k not in NOT_DRAWN}, sort_keys=True,
                      default=str)


def sample_views(players: int, seed: int, step: int) -> list[dict[str, Any]]:
    """Public views of every ``step``-th version of one random game, less those that draw
    what the one before drew."""
    rng = random.Random(seed)
    state = new_game(NAMES[:players], seed)
    views = [public_view(state).to_dict()]
    while not state.over:
        decision = rng.choice(pending(state))
        state, _ = apply(state, decision.seat, random_command(rng, decision))
        if state.version % step == 0 or state.over:
            view = public_view(state).to_dict()
            if _drawn(view) != _drawn(views[-1]):
                views.append(view)
    return views


def load_baseline(ref: str, folder: Path) -> ModuleType:
    """``draw_board`` of ``pbm/board_image.py`` at git commit ``ref``, with that commit's
    fonts (``pbm/fonts``; not the system's DejaVu Sans, which Pillow finds by name)."""
    repo = Path(__file__).resolve().parents[1]
    source = subprocess.run(["git", "-C", str(repo), "show", f"{ref}:pbm/board_image.py"],
                            check=True, capture_output=True, text=True).stdout
    fonts = subprocess.run(["git", "-C", str(repo), "archive", ref, "pbm/fonts"], check=True,
                           capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder), "--strip-components=1"], input=fonts,
                   check=True)
    path = folder / "board_image_baseline.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("board_image_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default="main", metavar="REF",
                        help="git commit whose drawing is measured beside this tree's")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--step", type=int, default=1,
                        help="draw every STEP-th version (1: every version, as the service)")
    parser.add_argument("--language", default="en", choices=["en", "ko"])
    args = parser.parse_args()
    views = sample_views(args.players, args.seed, args.step)
    pictures: dict[str, list[bytes]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-board-") as tmp:
        sides = {f"baseline {args.baseline}": load_baseline(args.baseline, Path(tmp)),
                 "this tree": board_image}

        def op(name: str) -> Callable[[int], float]:
            module = sides[name]
            forget: Callable[[], None] = getattr(module, "clear_cache", None) or getattr(
                module, "forget_bands", lambda: None)

            def run(_r: int) -> float:
                forget()
                pngs: list[bytes] = []
                seconds = timed(lambda: pngs.extend(module.draw_board(v, args.language)
                                                    for v in views), len(views))
                pictures[name] = pngs
                return seconds
            return run

        times = interleaved({name: op(name) for name in sides}, args.rounds + 1)
    times = {name: values[1:] for name, values in times.items()}  # round 0 warms up
    every = "every" if args.step == 1 else f"every {args.step}th"
    print(f"{len(views)} public views of one random {args.players}-player game ({every} "
          f"version that changed the picture, language {args.language}), {args.rounds} "
          "rounds after one warm-up round")
    width = max(map(len, times))
    for name, values in times.items():
        sizes = [len(png) for png in pictures[name]]
        print(f"  {name:<{width}}  median {quantile(values, 0.5) * 1e3:6.2f} ms   best "
              f"{min(values) * 1e3:6.2f} ms   mean {sum(sizes) / len(sizes) / 1024:5.1f} KB"
              f"   max {max(sizes) / 1024:5.1f} KB per picture")
    base, mine = list(times)
    same = sum(a == b for a, b in zip(pictures[base], pictures[mine], strict=True))
    print(f"PNG bytes identical: {same} of {len(views)} pictures")
    ratio = per_round_ratio(times, mine, base)
    print(f"this tree / baseline, time per picture (per round): min {min(ratio):.3f}, "
          f"median {quantile(ratio, 0.5):.3f}")


if __name__ == "__main__":
    main()
