"""Count what hides the import graph of pbm/ and workers/ (migrations left out).

- imports inside function bodies (of any module; of the project's own modules; and how
  many carry a ``# here: <why>`` comment on their line or the line above);
- names starting with an underscore imported from another project module (gettext's ``_``
  included: it is the convention, not a private name).

Run: ``.venv/bin/python tools/import_audit.py [root]``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tools import service_sources

PROJECT = ("engine", "pbm", "workers")


def audit(root: Path) -> dict[str, int]:
    """The counts for the tree at ``root``."""
    counts = {"inside": 0, "inside_project": 0, "inside_with_reason": 0, "underscore": 0}
    for path in service_sources(root):
        source = path.read_text()
        lines = source.splitlines()
        tree = ast.parse(source)
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                counts["inside"] += 1
                module = node.module if isinstance(node, ast.ImportFrom) \
                    else node.names[0].name
                relative = isinstance(node, ast.ImportFrom) and node.level > 0
                if relative or (module or "").split(".")[0] in PROJECT:
                    counts["inside_project"] += 1
                near = lines[max(0, node.lineno - 2):node.lineno]
                if any("# here:" in line for line in near):
                    counts["inside_with_reason"] += 1
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and \
                    (node.module or "").split(".")[0] in PROJECT:
                counts["underscore"] += sum(
                    1 for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__"))
    return counts


if __name__ == "__main__":
    found = audit(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("."))
    print(f"imports inside functions: {found['inside']} (of project modules: "
          f"{found['inside_project']}; with a '# here:' reason: {found['inside_with_reason']})")
    print(f"underscore names imported from a project module: {found['underscore']}")
