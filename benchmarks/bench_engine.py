"""Engine throughput: random playouts of whole games.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_engine.py              # 5-player games/s, decisions/s
    .venv/bin/python benchmarks/bench_engine.py --games 500  # more games for the quick run
    .venv/bin/python benchmarks/bench_engine.py --full       # + 10,000 games of 2..9 players
    .venv/bin/python benchmarks/bench_engine.py --rounds 60  # more interleaved ratio rounds
    .venv/bin/python benchmarks/bench_engine.py --baseline main  # speedup against main

The quick run plays random 5-player games (random legal commands, default starred cards:
Atlantis, El Dorado, Fountain of Youth) and reports games/s and decisions/s (one decision =
one applied command). ``--full`` plays 10,000 games (``--full-games`` to change) cycling
through 2..9 players with every implementable Event card in the deck, checks that every
game ended with all cards and tokens accounted for, and prints per-card reveal counts and
games/s. Times are wall-clock for the engine plus the random driver.

Then, in the same run, ratios measured side by side (see ``benchmarks/ratios.py``): a fixed
sample of ``--positions`` positions from random games (the state before a decision, the
deciding seat and its command) is put through each operation once per round, for
``--rounds`` rounds (after one unreported warm-up round), in an order rotated every round.
The baseline is the JSON round trip ``from_json(to_json(state))`` that the service pays to
load and save a game; reported are the per-round ratios apply / round trip, and pending()
and view() / apply, as median and p90 over rounds, with the absolute time per position for
context. The engine memoises legal moves on a state object, so that memo is cleared before
each operation (a state loaded from the database is always cold).

``--baseline REF`` compares this tree's engine with the engine of git commit ``REF``
(extracted with ``git archive`` into a temporary folder): two child processes
(``benchmarks/playout_worker.py``), one per engine, play the same ``--batch`` random games
(same seeds) turn about, in an order swapped every round, for ``--baseline-rounds`` rounds
after one warm-up round. The speedup of a round is baseline time / this tree's time; its
min, median and p90 over rounds is the last line. Both sides must make the same number of
decisions (same rules); a difference is reported.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from itertools import cycle
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.ratios import (
    interleaved,
    per_round_ratio,
    print_ratios,
    print_times,
    quantile,
    timed,
)
from engine import (
    EVENT_CARDS,
    Command,
    Event,
    EventTitle,
    GameState,
    apply,
    from_json,
    pending,
    to_json,
    view,
)
from engine.cards import DEFAULT_STARRED
from engine.simulate import random_game

Position = tuple[GameState, int, Command]


def quick(games: int, players: int) -> None:
    """Random ``players``-player games: games/s and decisions/s."""
    decisions = 0
    start = time.perf_counter()
    for seed in range(games):
        _, log = random_game(players, seed)
        decisions += len(log)
    elapsed = time.perf_counter() - start
    print(f"{games} random {players}-player games in {elapsed:.2f} s: "
          f"{games / elapsed:.1f} games/s, {decisions / elapsed:.0f} decisions/s "
          f"({decisions / games:.1f} decisions per game)")


def full(games: int) -> None:
    """``games`` games over 2..9 players with every implementable card; reveal counts."""
    reveals: Counter[str] = Counter()
    winners: Counter[str] = Counter()
    sudden = 0
    decisions = 0

    def count(before: GameState, seat: int, command: Command, after: GameState,
              events: list[Event]) -> None:
        for event in events:
            if event.kind == "event.revealed":
                reveals[str(event.data["title"])] += 1

    start = time.perf_counter()
    for i, players in zip(range(games), cycle(range(2, 10)), strict=False):
        final, log = random_game(players, 5_000_000 + i, observe=count)
        decisions += len(log)
        assert final.over and final.winner is not None
        assert sum(final.treasure.values()) == 8
        held = [*final.event_deck, *final.discard, *final.box,
                *(c for c in final.row if c is not None), *(c for k in final.kept for c in k)]
        assert sorted(held) == list(range(24))
        winners[final.winner.value] += 1
        sudden += final.sudden_death
    elapsed = time.perf_counter() - start
    print(f"\n{games} random games of 2..9 players (starred: "
          f"{', '.join(t.label for t in DEFAULT_STARRED)}) in {elapsed:.1f} s: "
          f"{games / elapsed:.1f} games/s, {decisions / elapsed:.0f} decisions/s")
    print("reveals per card:")
    for title in EventTitle:
        if title.info.implemented:
            print(f"  {title.label:<20} {reveals[title.value]:>7}")
    never = [t.label for t in EventTitle if not t.info.implemented]
    print(f"  (never in play: {', '.join(never)}; {len(set(EVENT_CARDS))} titles in all)")
    print(f"winners: {dict(winners)}; games that went to sudden death: {sudden}")


def sample_positions(count: int, players: int) -> list[Position]:
    """``count`` positions spread evenly over enough random ``players``-player games."""
    seen: list[Position] = []
    seed = 2_000_000
    while len(seen) < 8 * count:
        random_game(players, seed, observe=lambda before, seat, command, _after, _events:
                    seen.append((before, seat, command)))
        seed += 1
    step = len(seen) / count
    return [seen[int(i * step)] for i in range(count)]


def _cold(positions: list[Position]) -> None:
    """Forget memoised legal moves (kept in the state's ``__dict__`` under ``_`` names)."""
    for state, _, _ in positions:
        for key in [k for k in state.__dict__ if k.startswith("_")]:
            del state.__dict__[key]


def ratios(rounds: int, count: int, players: int) -> None:
    """Interleaved rounds over one sample of positions; ratios to the JSON round trip."""
    positions = sample_positions(count, players)

    def op(work: Callable[[Position], object]) -> Callable[[int], float]:
        def run(_round: int) -> float:
            _cold(positions)
            return timed(lambda: [work(p) for p in positions], len(positions))
        return run

    times = interleaved({
        "apply": op(lambda p: apply(*p)),
        "json round trip": op(lambda p: from_json(to_json(p[0]))),
        "pending": op(lambda p: pending(p[0])),
        "view": op(lambda p: view(p[0], p[1])),
        "view.to_dict": op(lambda p: view(p[0], p[1]).to_dict()),
    }, rounds + 1)
    times = {name: values[1:] for name, values in times.items()}  # round 0 warms up
    print(f"\nside by side: {count} positions of {players}-player random games, "
          f"{rounds} interleaved rounds after one warm-up round")
    print_times(times, "time per position:")
    print_ratios(times, [("apply", "json round trip"), ("pending", "apply"),
                         ("view", "apply"), ("view.to_dict", "apply")],
                 "ratios (per round, then median / p90 over rounds):")


def _extract(ref: str, folder: Path) -> None:
    """The ``engine`` package of git commit ``ref`` into ``folder``."""
    repo = Path(__file__).resolve().parents[1]
    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", ref, "engine"],
                             check=True, capture_output=True).stdout
    tar = folder / "engine.tar"
    tar.write_bytes(archive)
    with tarfile.open(tar) as t:
        t.extractall(folder, filter="data")


def against_baseline(ref: str, rounds: int, batch: int, players: int) -> None:
    """Baseline engine vs this tree's, same games, turn about; speedup per round."""
    here = Path(__file__).resolve().parents[1]
    worker = Path(__file__).resolve().with_name("playout_worker.py")
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as tmp:
        _extract(ref, Path(tmp))
        sides = {
            f"baseline {ref}": subprocess.Popen(
                [sys.executable, str(worker), tmp, str(players)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True),
            "this tree": subprocess.Popen(
                [sys.executable, str(worker), str(here), str(players)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True),
        }
        decisions: dict[str, int] = {}

        def play(name: str) -> Callable[[int], float]:
            def run(r: int) -> float:
                child = sides[name]
                assert child.stdin is not None and child.stdout is not None
                child.stdin.write(f"{3_000_000 + r * batch} {batch}\n")
                child.stdin.flush()
                seconds, made = child.stdout.readline().split()
                decisions[name] = decisions.get(name, 0) + int(made)
                return float(seconds) / batch
            return run

        times = interleaved({name: play(name) for name in sides}, rounds + 1)
        for child in sides.values():
            assert child.stdin is not None
            child.stdin.close()
            child.wait()
    times = {name: values[1:] for name, values in times.items()}  # round 0 warms up
    base, mine = list(times)
    print(f"\nside by side: {batch} random {players}-player games per side and round, "
          f"{rounds} rounds after one warm-up round")
    for name, values in times.items():
        print(f"  {name:<{max(map(len, times))}}  median "
              f"{1 / quantile(values, 0.5):7.1f} games/s   best {1 / min(values):7.1f} games/s")
    if decisions[base] != decisions[mine]:
        print(f"  NOTE: the engines made different decisions ({decisions[base]} vs "
              f"{decisions[mine]}): their rules differ, so the games differ")
    speedup = per_round_ratio(times, base, mine)
    print(f"speedup (baseline time / this tree's time, per round): min {min(speedup):.2f}x, "
          f"median {quantile(speedup, 0.5):.2f}x, p90 {quantile(speedup, 0.9):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games in the quick run")
    parser.add_argument("--players", type=int, default=5, help="players in the quick run")
    parser.add_argument("--full", action="store_true", help="also run the long 2..9 run")
    parser.add_argument("--full-games", type=int, default=10_000, help="games in --full")
    parser.add_argument("--rounds", type=int, default=30,
                        help="interleaved rounds of the side-by-side ratios (0: skip)")
    parser.add_argument("--positions", type=int, default=100,
                        help="positions put through every operation each round")
    parser.add_argument("--baseline", metavar="REF",
                        help="git commit to compare with, side by side (e.g. main)")
    parser.add_argument("--baseline-rounds", type=int, default=20,
                        help="rounds of the --baseline comparison")
    parser.add_argument("--batch", type=int, default=40,
                        help="games per side and round in the --baseline comparison")
    args = parser.parse_args()
    if args.baseline:
        against_baseline(args.baseline, args.baseline_rounds, args.batch, args.players)
        return
    quick(args.games, args.players)
    if args.rounds > 0:
        ratios(args.rounds, args.positions, args.players)
    if args.full:
        full(args.full_games)


if __name__ == "__main__":
    main()
