"""The SQL a piece of service code runs, and PostgreSQL's plan for each statement.

``capture(engine)`` records every statement (with its parameters) executed while it is
open; ``plans(engine, captured)`` EXPLAINs each distinct one (without running it) and
``seq_scans(plan)`` names the tables a plan reads whole. Used by
``benchmarks/bench_scale.py`` and by ``tests/pbm/test_query_plans.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

_EXPLAINABLE = ("SELECT", "UPDATE", "DELETE", "INSERT", "WITH")
_SEQ_SCAN = re.compile(r"Seq Scan on (\w+)")
_SCAN = re.compile(r"((?:Parallel )?(?:Seq|Index Only|Index|Bitmap Heap|Bitmap Index) Scan"
                   r"(?: using \w+)?(?: on \w+)?)")


@dataclass
class Captured:
    """Statements seen, in first-seen order, each once (the first parameters kept)."""

    statements: dict[str, Any] = field(default_factory=dict)
    count: int = 0


@contextmanager
def capture(engine: sa.Engine) -> Iterator[Captured]:
    """Record every statement ``engine`` executes while the block runs."""
    seen = Captured()

    def listen(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any,
               executemany: bool) -> None:
        seen.count += 1
        if not executemany:
            seen.statements.setdefault(statement, parameters)

    event.listen(engine, "before_cursor_execute", listen)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", listen)


def explain(engine: sa.Engine, statement: str, parameters: Any) -> list[str]:
    """PostgreSQL's plan of one statement (not run), one line per plan line."""
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute("EXPLAIN " + statement, parameters)
        lines = [str(row[0]) for row in cursor.fetchall()]
        raw.rollback()
        return lines
    finally:
        raw.close()


def plans(engine: sa.Engine, captured: Captured) -> list[tuple[str, list[str]]]:
    """(statement, plan) of every captured statement that can be explained."""
    out = []
    for statement, parameters in captured.statements.items():
        if statement.lstrip().upper().startswith(_EXPLAINABLE):
            out.append((statement, explain(engine, statement, parameters)))
    return out


def seq_scans(plan: list[str]) -> list[str]:
    """The tables a plan scans sequentially."""
    return [m.group(1) for line in plan for m in _SEQ_SCAN.finditer(line)]


_INDEX_SCAN = re.compile(r"Index (?:Only )?Scan(?: Backward)? using (\w+) on (\w+)")


def whole_reads(plan: list[str], partial: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """The tables a plan reads whole: sequential scans, and index scans with no index
    condition (walking a whole index, e.g. ``ORDER BY id LIMIT 1`` with a filter) unless the
    index is one of the ``partial`` ones (small by design)."""
    tables = seq_scans(plan)
    for i, line in enumerate(plan):
        match = _INDEX_SCAN.search(line)
        if not match or match.group(1) in partial:
            continue
        depth = len(line) - len(line.lstrip())
        details = []
        for below in plan[i + 1:]:
            if len(below) - len(below.lstrip()) <= depth or below.lstrip().startswith("->"):
                break
            details.append(below.strip())
        if not any(d.startswith("Index Cond") for d in details):
            tables.append(match.group(2))
    return tables


def partial_indexes(engine: sa.Engine) -> set[str]:
    """Names of the database's partial indexes."""
    with engine.connect() as conn:
        return set(conn.execute(sa.text(
            "SELECT indexname FROM pg_indexes WHERE indexdef LIKE '% WHERE %'")).scalars())


def scans(plan: list[str]) -> list[str]:
    """Every scan node of a plan, e.g. ``Index Scan using ix_x on deadlines``."""
    return [m.group(1) for line in plan for m in _SCAN.finditer(line)]


def short(statement: str, width: int = 110) -> str:
    """A statement on one line, cut to ``width`` characters."""
    text = " ".join(statement.split())
    return text if len(text) <= width else text[: width - 3] + "..."
