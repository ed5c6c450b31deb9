"""The engine is pure: standard library only, no I/O, clock or global random."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def imported_modules() -> set[str]:
    names: set[str] = set()
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def test_the_engine_imports_only_the_standard_library() -> None:
    outside = {m for m in imported_modules()
               if m != "engine" and m not in sys.stdlib_module_names}
    assert outside == set()


def test_the_engine_uses_no_clock_files_or_global_random() -> None:
    assert not {"time", "datetime", "os", "io", "pathlib", "socket"} & imported_modules()
    for path in ENGINE.glob("*.py"):
        text = path.read_text()
        assert "open(" not in text, path
        for call in ("random.random(", "random.choice(", "random.shuffle(", "random.seed("):
            assert call not in text, (path, call)
