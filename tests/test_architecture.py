"""The import graph of engine/, pbm/ and workers/ has no circle: every import counts as an
edge, also one inside a function or under ``TYPE_CHECKING``, and a package's re-exports."""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "pbm", "workers")

def module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES
                 ) -> dict[str, set[str]]:
    """Module -> the modules of these packages it imports, found by reading the source."""
    files = {module_name(root, p): p for pkg in packages for p in (root / pkg).rglob("*.py")
             if "migrations" not in p.parts}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                stem = node.module or ""
                if node.level:  # relative: ``from . import x``, ``from ..y import z``
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    stem = ".".join([*up, stem] if stem else up)
                targets = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in files else stem
                           for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in files:  # `import pbm.x.y` of a name: its module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def way_back(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """The shortest import path from ``start`` back to itself, if there is one."""
    paths = {start: [start]}
    queue = deque([start])
    while queue:
        module = queue.popleft()
        for target in sorted(graph[module]):
            if target == start:
                return [*paths[module], start]
            if target not in paths:
                paths[target] = [*paths[module], target]
                queue.append(target)
    return None


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each module that lies on one (modules already reported skipped)."""
    found: list[list[str]] = []
    for start in sorted(graph):
        if not any(start in circle for circle in found) and (circle := way_back(graph, start)):
            found.append(circle)
    return found


def test_every_kind_of_import_is_an_edge(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    sources = {
        "__init__.py": "from pkg.a import thing\n",  # a package re-export
        "a.py": "def f():\n    from pkg import b\n",  # a function-level import
        "b.py": "from .sub import c\nimport json\n",  # relative, and outside the graph
        "sub/__init__.py": "",
        "sub/c.py": "from ..a import f\nimport pkg.sub.d as d\n",
        "sub/d.py": "from pkg.sub.c import name_in_c\n",
    }
    for name, text in sources.items():
        (package / name).write_text(text)
    assert import_graph(tmp_path, ("pkg",)) == {
        "pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.sub.c"}, "pkg.sub": set(),
        "pkg.sub.c": {"pkg.a", "pkg.sub.d"}, "pkg.sub.d": {"pkg.sub.c"}}


def test_no_module_of_engine_pbm_or_workers_imports_itself_round_a_circle() -> None:
    found = circles(import_graph())
    assert found == [], "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_circle_finder_reports_the_path_of_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b"}, "b": set()}) == []


# ------------------------------------------------------------------ hooks installed at start-up

#: calls that install process-wide hooks: SQLAlchemy events and our ``install_*`` functions
HOOK_CALLS = ("listen", "listens_for")


def _callee(call: ast.Call) -> str:
    function = call.func
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else ""


def import_time_hooks(source: str) -> list[str]:
    """The hook installations a module runs when imported: calls of ``event.listen``,
    ``listens_for`` or an ``install_*`` function in its body (also in a decorator, a class
    body or an ``if`` at module level; not inside a function, which runs only when called)."""
    found: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for part in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
                if part is not None:
                    visit(part)
            return
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.Call):
            name = _callee(node)
            if name in HOOK_CALLS or name.startswith("install"):
                found.append(f"line {node.lineno}: {name}()")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return found


def test_no_module_of_pbm_or_workers_installs_a_hook_when_imported() -> None:
    found = {f"{path.relative_to(ROOT)} {hook}"
             for pkg in ("pbm", "workers") for path in sorted((ROOT / pkg).rglob("*.py"))
             for hook in import_time_hooks(path.read_text())}
    assert found == set(), "hooks installed on import (call them at start-up):\n" + \
        "\n".join(sorted(found))


def test_the_hook_finder_sees_module_level_calls_only() -> None:
    source = (
        "from sqlalchemy import event\n"
        "install_outbox_hook()\n"
        "event.listen(Session, 'after_flush', f)\n"
        "if True:\n    txcache.install()\n"
        "@event.listens_for(Session, 'after_commit')\ndef g(s): pass\n"
        "def start():\n    install_outbox_hook()\n    event.listen(Session, 'x', f)\n"
        "class C:\n    def m(self):\n        install_outbox_hook()\n"
        "run = lambda: install_outbox_hook()\n"
    )
    assert import_time_hooks(source) == [
        "line 2: install_outbox_hook()", "line 3: listen()", "line 5: install()",
        "line 6: listens_for()"]
