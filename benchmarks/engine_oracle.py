"""Equivalence oracle: this tree's engine against another commit's, command by command.

Usage (from the repository root)::

    .venv/bin/python benchmarks/engine_oracle.py                 # 2,000 games against main
    .venv/bin/python benchmarks/engine_oracle.py --games 500 --baseline d163d18

The ``engine/`` of ``--baseline`` (default ``main``) is extracted with ``git archive`` and
imported under another package name (``engine_ref``), so both engines run in one process.
Random games of 2..9 players (seeds ``--first-seed`` on;
every other group of 8 games with the playable starred cards in another order) are played
on both at once. Before every command the oracle
compares, on both engines: ``to_json(state)``, ``pending`` (``Decision.to_dict``),
``legal_commands`` of every seat, ``view(state, seat).to_dict()`` of every seat,
``public_view``, ``score`` and ``decision_id``; after it, the events (``Event.to_dict``) or
the error raised (class and message). Besides random legal commands (chosen as
``engine.simulate`` chooses them), it plays ``TIMEOUT`` (the default) now and then, and
tries commands that are not legal for the seat (taken from other seats' and other games'
legal lists): both engines must refuse them with the same error, or accept them alike.
Every few commands the reference's JSON is loaded by this tree's engine (and the other way
round) and must come back identical: stored games keep loading. Finally the whole logs and
the final states (``to_json``) of ``engine.simulate.random_game`` must match for
``--sim-games`` seeds.

The last line is ``OK: G games, C commands compared`` or the first difference found.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import tarfile
import tempfile
from itertools import groupby
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
import engine.simulate  # noqa: E402
from engine.cards import EVENT_CARDS, SELECTABLE_STARRED, EventTitle  # noqa: E402


class Mismatch(AssertionError):
    """The two engines disagree."""


def load_reference(ref: str, folder: Path, repo: Path = ROOT) -> tuple[ModuleType, ModuleType]:
    """Extract ``ref``'s engine as package ``engine_ref`` under ``folder``; import it."""
    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", ref, "engine"],
                             check=True, capture_output=True).stdout
    tar = folder / "engine.tar"
    tar.write_bytes(archive)
    with tarfile.open(tar) as t:
        t.extractall(folder, filter="data")
    package = folder / "engine_ref"
    (folder / "engine").rename(package)
    pattern = re.compile(r"\b(from|import) engine\b")
    for path in package.glob("*.py"):
        text = path.read_text()
        path.write_text(pattern.sub(r"\1 engine_ref", text))
    sys.path.insert(0, str(folder))
    import engine_ref
    import engine_ref.simulate

    return engine_ref, engine_ref.simulate


def _outcome(eng: ModuleType, state: Any, seat: int, text: str) -> tuple[Any, Any]:
    """(new state or None, events as dicts or (error class, message))."""
    try:
        after, events = eng.apply(state, seat, text)
    except eng.EngineError as e:
        return None, (type(e).__name__, str(e))
    return after, [e.to_dict() for e in events]


def _snapshot(eng: ModuleType, state: Any) -> dict[str, Any]:
    n = len(state.names)
    return {
        "json": eng.to_json(state),
        "pending": [d.to_dict() for d in eng.pending(state)],
        "legal": [[str(c) for c in eng.legal_commands(state, s)] for s in range(-1, n + 1)],
        "views": [eng.view(state, s).to_dict() for s in range(n)],
        "public": eng.public_view(state).to_dict(),
        "score": eng.score(state).to_dict(),
        "ids": [state.decision_id(s) for s in range(n)],
        "over": state.over,
    }


def _compare(what: str, mine: Any, ref: Any) -> None:
    if mine != ref:
        if isinstance(mine, dict) and isinstance(ref, dict):
            for key in mine.keys() | ref.keys():
                if mine.get(key) != ref.get(key):
                    raise Mismatch(f"{what}: {key}: this tree {mine.get(key)!r}\n"
                                   f"   reference {ref.get(key)!r}")
        raise Mismatch(f"{what}: this tree {mine!r}\n   reference {ref!r}")


def _fresh_load(eng: ModuleType, text: str) -> Any:
    return eng.from_json(text)


def play(ref: ModuleType, n: int, seed: int, full_deck: bool, pool: list[str],
         rng: random.Random) -> int:
    """One game on both engines; return the number of commands compared."""
    options_mine = options_ref = None
    if full_deck:
        pool_titles = SELECTABLE_STARRED[seed % len(SELECTABLE_STARRED):] + SELECTABLE_STARRED
        titles = pool_titles[:3]
        options_mine = engine.GameOptions(starred=tuple(titles))
        options_ref = ref.GameOptions(starred=tuple(ref.EventTitle(t.value) for t in titles))
    names = [f"Player {i + 1}" for i in range(n)]
    mine = engine.new_game(names, seed, options_mine)
    theirs = ref.new_game(names, seed, options_ref)
    atlantis = EVENT_CARDS.index(EventTitle.ATLANTIS)
    count = 0
    while True:
        a, b = _snapshot(engine, mine), _snapshot(ref, theirs)
        _compare(f"{n}p seed {seed} after {count} commands", a, b)
        if count % 7 == 3:  # stored games load in either engine and come back identical
            _compare("reference JSON loaded here", engine.to_json(engine.from_json(b["json"])),
                     b["json"])
            _compare("JSON loaded by the reference", ref.to_json(ref.from_json(a["json"])),
                     a["json"])
            mine = engine.from_json(a["json"])  # carry on from a cold, loaded state
        if mine.over or count > 5000:
            return count
        decisions = engine.pending(mine)
        pool.extend(str(c) for d in decisions for c in d.legal[:3])
        del pool[:-400]
        roll = rng.random()
        owners = [s for s, kept in enumerate(mine.kept) if atlantis in kept]
        if roll < 0.04 and owners:
            seat, text = owners[0], "ATLANTIS"
        elif roll < 0.08:
            seat, text = rng.choice(decisions).seat, "TIMEOUT"
        elif roll < 0.16 and pool:
            seat, text = rng.randrange(n), rng.choice(pool)
        else:
            decision = rng.choice(decisions)
            groups = [list(g) for _, g in groupby(decision.legal, key=type)]
            seat, text = decision.seat, str(rng.choice(rng.choice(groups)))
        after_mine, ev_mine = _outcome(engine, mine, seat, text)
        after_ref, ev_ref = _outcome(ref, theirs, seat, text)
        _compare(f"{n}p seed {seed} command {count} (seat {seat}: {text}) events", ev_mine, ev_ref)
        count += 1
        if after_mine is not None:
            _compare("the state passed to apply is unchanged", engine.to_json(mine), a["json"])
            mine, theirs = after_mine, after_ref


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="main", help="git ref of the reference engine")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--sim-games", type=int, default=400)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--repo", type=Path, default=ROOT,
                        help="git repository holding --baseline (default: this one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engine_oracle_") as folder:
        ref, ref_sim = load_reference(args.baseline, Path(folder), args.repo)
        rng = random.Random(args.first_seed)
        pool: list[str] = []
        commands = 0
        for i in range(args.games):
            seed = args.first_seed + i
            commands += play(ref, 2 + i % 8, seed, bool(i // 8 % 2), pool, rng)
        sims = 0
        for i in range(args.sim_games):
            seed, n = args.first_seed + i, 2 + i % 8
            mine_end, mine_played = engine.simulate.random_game(n, seed)
            ref_end, ref_played = ref_sim.random_game(n, seed)
            mine_log = [(s, str(c)) for s, c in mine_played]
            ref_log = [(s, str(c)) for s, c in ref_played]
            _compare(f"random_game {n}p seed {seed} log", mine_log, ref_log)
            _compare(f"random_game {n}p seed {seed} final state", engine.to_json(mine_end),
                     ref.to_json(ref_end))
            sims += len(mine_log)
    print(f"OK: {args.games} games, {commands} commands compared state by state against "
          f"{args.baseline}; {args.sim_games} random_game logs ({sims} commands) and final "
          "states identical")


if __name__ == "__main__":
    main()
