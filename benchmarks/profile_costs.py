"""The top costs of a valid reply from a ``trace_reply.py --profile --dump FILE`` profile.

Usage (from the repository root)::

    .venv/bin/python benchmarks/trace_reply.py --games 8 --replies 60 --profile --dump a.prof
    .venv/bin/python benchmarks/profile_costs.py a.prof [b.prof]   # ms per reply, and %

Each row is the cumulative time of the functions named (the same work, by the name it has
in either tree) or, for "(own time)" rows, the time spent in a package's own code; the
shares are of the total profiled time (process + send). cProfile inflates Python-heavy
code (Jinja, SQLAlchemy) about threefold against C (deflate, css_inline): read the rows as
where to look, not as CPU times (``trace_reply.py`` without ``--profile`` gives those).
"""

from __future__ import annotations

import argparse
import pstats

#: (label, [(path suffix, function name)]): cumulative time, the first match of each
CUMULATIVE: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("MIME: build + serialise (transport send)", (("pbm/transports/files.py", "send"),)),
    ("render (Jinja text + HTML, CSS inlining)", (("pbm/render/__init__.py", "render"),)),
    ("board picture (draw + PNG)", (("pbm/outbox_pictures.py", "board_picture"),)),
    ("ORM flush", (("sqlalchemy/orm/session.py", "flush"),)),
    ("outbox INSERTs", (("pbm/outbox_rows.py", "insert_row_once"),)),
    ("build_context (views, events, ledger)", (("pbm/outbox.py", "build_context"),)),
    ("delivery claim (UPDATE ... RETURNING)", (("workers/claims.py", "claim_many"),
                                               ("workers/claims.py", "claim"))),
    ("from_json (state loads)", (("engine/serialize.py", "from_json"),)),
    ("lock_game", (("pbm/games/base.py", "lock_game"),)),
    ("inbound claim + sender's count", (("pbm/inbound/storage.py", "claim_inbound"),
                                        ("pbm/ratelimit.py", "inbound_count"))),
)
#: (label, path fragments): own time of the functions in those files
OWN: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("(own time) SQLAlchemy + SQLModel", ("site-packages/sqlalchemy/", "site-packages/sqlmodel/")),
    ("(own time) Jinja + MarkupSafe", ("site-packages/jinja2/", "site-packages/markupsafe/",
                                       "templates/email/")),
    ("(own time) email package", ("/lib/python3.11/email/",)),
    ("(own time) psycopg", ("site-packages/psycopg/",)),
)


def costs(path: str, replies: int) -> dict[str, float]:
    """ms per reply of every row, and the total."""
    stats = pstats.Stats(path).stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in stats.values())
    out: dict[str, float] = {}
    for label, names in CUMULATIVE:
        out[label] = sum(v[3] for (f, _line, name), v in stats.items()
                         if any(f.endswith(suffix) and name == fn for suffix, fn in names))
    for label, parts in OWN:
        out[label] = sum(v[2] for (f, _line, _name), v in stats.items()
                         if any(p in f for p in parts))
    out["total profiled"] = total
    return {k: v * 1000 / replies for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profiles", nargs="+", help="one or two --dump files (before, after)")
    parser.add_argument("--replies", type=int, default=60)
    args = parser.parse_args()
    tables = [costs(p, args.replies) for p in args.profiles]
    head = " | ".join(f"{name} ms | {name} %" for name in
                      (["before", "after"] if len(tables) == 2 else ["ms"])[:len(tables)])
    print(f"| cost (cProfile, process + send) | {head} |")
    print("|---|" + "---|---|" * len(tables))
    for label in tables[0]:
        cells = []
        for table in tables:
            value, total = table[label], table["total profiled"]
            share = "" if label == "total profiled" else f"{value / total:.0%}"
            cells += [f"{value:.1f}", share]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
