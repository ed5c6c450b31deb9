"""Count status and result words written as bare strings in pbm/ and workers/ (migrations
left out): ``"pending"`` where ``OutboundStatus.PENDING`` is meant.

A word counts unless it is in an enum's body, a docstring, an f-string, a dict key, a
subscript or the key of ``.get()``/``.pop()``/``.setdefault()`` (render data and message
text use some of the same words). What is left is read by eye: a word may be English.

Run: ``.venv/bin/python tools/status_literals.py [root]`` (one line per word, then the count).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tools import service_sources

WORDS = frozenset({
    "new", "processing", "done", "ignored", "quarantined", "pending", "sending", "sent",
    "failed", "accepted", "scheduled", "queued", "delivery_unknown", "delivered",
    "undelivered", "open", "timed_out", "cancelled", "created", "inviting", "running",
    "paused", "finished", "aborted", "invited", "joined", "declined", "skipped", "retry",
    "applied", "refused", "not_understood", "loop_guard", "rate_limited", "unreadable"})


def _not_values(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are not values (keys, docstrings, enum bodies)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
                getattr(base, "id", getattr(base, "attr", "")) in ("StrEnum", "Enum")
                for base in node.bases):
            skip |= {id(n) for n in ast.walk(node)}
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) \
                and node.body and isinstance(node.body[0], ast.Expr):
            skip.add(id(node.body[0].value))
        if isinstance(node, ast.Dict):
            skip |= {id(k) for k in node.keys if k is not None}
        if isinstance(node, ast.Subscript):
            skip.add(id(node.slice))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("get", "pop", "setdefault") and node.args:
            skip.add(id(node.args[0]))
        if isinstance(node, ast.JoinedStr):
            skip |= {id(n) for n in ast.walk(node)}
    return skip


def status_literals(root: Path) -> list[str]:
    """``path:line: 'word'`` for each bare status word under ``root``."""
    found = []
    for path in service_sources(root):
        tree = ast.parse(path.read_text())
        skip = _not_values(tree)
        found += [f"{path.relative_to(root)}:{node.lineno}: {node.value!r}"
                  for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and node.value in WORDS and id(node) not in skip]
    return found


if __name__ == "__main__":
    lines = status_literals(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
    print("\n".join(lines))
    print(f"{len(lines)} status words as bare strings")
