"""What reading a reply costs (extract + parse), this tree against another commit, turn about.

Usage (from the repository root)::

    .venv/bin/python benchmarks/reader_cost.py --baseline main --runs 5

Every reply of both corpora (tests/fixtures/replies and replies_ko, as the baseline has
them: the same replies in both trees) is read for its seat, by email or SMS, as the worker
reads it (``read_email_reply`` / ``read_sms_reply``). Each run times one pass over the
corpus in each tree (CPU time of the process, the order swapped every run) and prints the
mean per reply, emails and SMS apart; the last line is the median over runs. The
baseline's tree is extracted with ``git archive`` into a temporary folder (its own
``pbm``, ``engine`` and fixtures), and this file is run there with ``--one``. Each reply is
read against its scenario's seat view from ``reader_views.json`` (plain data).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: each corpus's seat views by scenario (the English players' and the Korean ones'), as
#: plain data: the reader's input, the same in both trees
VIEWS = Path(__file__).resolve().with_name("reader_views.json")


def one_pass(root: Path, passes: int) -> dict[str, float]:
    """Mean CPU ms per reply over ``passes`` passes of the corpora of ``root`` (best pass)."""
    sys.path.insert(0, str(root))
    from pbm.replies import read_email_reply, read_sms_reply

    views = json.loads(VIEWS.read_text("utf-8"))
    items: list[tuple[bool, Any, Any, bool]] = []
    for folder in ("replies", "replies_ko"):
        corpus = root / "tests" / "fixtures" / folder
        for name, spec in json.loads((corpus / "manifest.json").read_text("utf-8")).items():
            email = name.endswith(".eml")
            data = (corpus / name).read_bytes() if email else (corpus / name).read_text("utf-8")
            view = views[folder][spec["scenario"]]
            items.append((email, data, view, spec["scenario"] == "invited"))
    best: dict[str, float] = {}
    for _ in range(passes):
        spent = {"email": 0.0, "sms": 0.0}
        for email, data, view, invited in items:
            start = time.process_time()
            if email:
                read_email_reply(data, view, invited=invited)
            else:
                read_sms_reply(data, view, invited=invited)
            spent["email" if email else "sms"] += time.process_time() - start
        emails = sum(1 for i in items if i[0])
        got = {"email": 1000 * spent["email"] / emails,
               "sms": 1000 * spent["sms"] / (len(items) - emails),
               "all": 1000 * sum(spent.values()) / len(items), "replies": len(items)}
        if not best or got["all"] < best["all"]:
            best = got
    return best


def run(tree: Path, passes: int) -> dict[str, float]:
    out = subprocess.run([sys.executable, str(tree / "benchmarks" / "reader_cost.py"), "--one",
                          str(tree), "--passes", str(passes)], cwd=tree, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--passes", type=int, default=3, help="passes per run (best kept)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # run in that tree, print JSON
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_pass(Path(args.one), args.passes)))
        return
    folder = Path(tempfile.mkdtemp(prefix="reader-cost-"))
    try:
        archive = subprocess.run(["git", "archive", args.baseline], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
        shutil.copy(ROOT / "benchmarks" / "reader_cost.py", folder / "benchmarks")
        shutil.copy(VIEWS, folder / "benchmarks")
        # The same replies in both trees: this tree's code is staged with the baseline's
        # corpora (its own new replies would read differently in the baseline).
        results: dict[str, list[dict[str, float]]] = {"baseline": [], "this tree": []}
        staged = Path(tempfile.mkdtemp(prefix="reader-cost-tree-"))
        shutil.copytree(ROOT / "pbm", staged / "pbm")
        shutil.copytree(ROOT / "engine", staged / "engine")
        shutil.copytree(ROOT / "templates", staged / "templates")
        shutil.copytree(folder / "tests", staged / "tests")  # baseline's replies
        shutil.copytree(ROOT / "benchmarks", staged / "benchmarks")
        for k in range(args.runs):
            order = [("baseline", folder), ("this tree", staged)]
            if k % 2:
                order.reverse()
            for name, tree in order:
                got = run(tree, args.passes)
                results[name].append(got)
                print(f"run {k + 1} {name:9}: {got['all']:.3f} ms per reply (email "
                      f"{got['email']:.3f}, SMS {got['sms']:.3f}; {got['replies']:.0f} "
                      "replies)", flush=True)
        base = statistics.median(r["all"] for r in results["baseline"])
        this = statistics.median(r["all"] for r in results["this tree"])
        print(f"median CPU per reply read: baseline {args.baseline} {base:.3f} ms, this tree "
              f"{this:.3f} ms ({this / base:.2f}x)")
        shutil.rmtree(staged, ignore_errors=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
