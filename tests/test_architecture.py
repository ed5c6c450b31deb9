"""The import graph of engine/, pbm/ and workers/ has no circle: every import counts as an
edge, also one inside a function or under ``TYPE_CHECKING``, and a package's re-exports.

Importing a module of pbm/ or workers/ sets up nothing for the whole process: no session
hook installed, no other library patched, no logging configured (start-up does that)."""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
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
    return [f"line {node.lineno}: {_callee(node)}()" for node in at_import(ast.parse(source))
            if isinstance(node, ast.Call)
            and (_callee(node) in HOOK_CALLS or _callee(node).startswith("install"))]


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


# ------------------------------------------------------------- no process set-up on import

#: calls that set up the logging of the whole process
LOG_SETUP = frozenset({"pbm.logs.configure", "logging.basicConfig",
                       "logging.config.dictConfig", "logging.config.fileConfig"})


#: what a module may set up on import (path, what it sets) -> why
ALLOWED_AT_IMPORT = {
    ("pbm/models.py", "SQLModel.metadata.naming_convention"):
        "the schema's constraint names: the table classes below it are built with them",
}


def imported_names(tree: ast.AST) -> dict[str, str]:
    """Each name an import binds (at any depth) -> the dotted name it stands for:
    ``from pbm.logs import configure as c``: ``c`` -> ``pbm.logs.configure``."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = \
                    alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _root(node: ast.expr) -> str:
    """``a`` of ``a.b.c`` (or of ``a.b().c``); "" when it starts with no name."""
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def _patches(node: ast.AST, foreign: set[str]) -> bool:
    """True when ``node`` sets an attribute of an imported library's object:
    ``kombu_redis.QoS.ack = ...``, or ``setattr(kombu_redis.QoS, ...)``."""
    if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Attribute) and _root(t) in foreign for t in targets)
    return isinstance(node, ast.Call) and _callee(node) == "setattr" and bool(node.args) \
        and _root(node.args[0]) in foreign


def at_import(tree: ast.Module) -> Iterator[ast.AST]:
    """The nodes a module runs when imported: its body, decorators and default values and
    class bodies included; function bodies, lambdas and ``if __name__ == "__main__"`` not."""
    def visit(node: ast.AST) -> Iterator[ast.AST]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for part in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
                if part is not None:
                    yield from visit(part)
            return
        if isinstance(node, ast.Lambda) or (isinstance(node, ast.If)
                                            and "__main__" in ast.unparse(node.test)):
            return
        yield node
        for child in ast.iter_child_nodes(node):
            yield from visit(child)

    yield from visit(tree)


def patchers(module: str, tree: ast.Module) -> set[str]:
    """``module.f`` for each function of ``module`` that patches another library (an
    attribute of something imported from outside engine/, pbm/ and workers/)."""
    names = imported_names(tree)
    foreign = {n for n, target in names.items() if target.split(".")[0] not in PACKAGES}
    return {f"{module}.{node.name}" for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and any(_patches(inner, foreign) for inner in ast.walk(node))}


def import_time_setup(module: str, tree: ast.Module, patching: set[str]) -> list[str]:
    """What ``module`` sets up for the whole process when imported: a patch of another
    library (made there, or by calling a function of ``patching``) or the log set-up
    (``LOG_SETUP``)."""
    names = imported_names(tree)
    foreign = {n for n, target in names.items() if target.split(".")[0] not in PACKAGES}
    defined = {node.name for node in tree.body
               if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    found: list[str] = []
    for node in at_import(tree):
        if _patches(node, foreign):
            found.append(f"line {node.lineno}: patches {ast.unparse(node)[:60]}")
        if not isinstance(node, ast.Call):
            continue
        callee = ast.unparse(node.func)
        head, _, rest = callee.partition(".")
        full = f"{module}.{callee}" if head in defined else \
            ".".join(filter(None, [names.get(head, head), rest]))
        if full in LOG_SETUP:
            found.append(f"line {node.lineno}: sets up logging ({callee}())")
        elif full in patching:
            found.append(f"line {node.lineno}: patches a library ({callee}())")
    return found


def import_time_setups(root: Path = ROOT) -> set[str]:
    """``path line ...`` for each set-up that a module of pbm/ or workers/ runs on import."""
    trees = {module_name(root, path): (path, ast.parse(path.read_text(), str(path)))
             for pkg in ("pbm", "workers") for path in sorted((root / pkg).rglob("*.py"))
             if "migrations" not in path.parts}
    patching = set().union(*(patchers(m, tree) for m, (_, tree) in trees.items()))
    return {f"{path.relative_to(root)} {what}" for m, (path, tree) in trees.items()
            for what in import_time_setup(m, tree, patching)}


def test_no_module_of_pbm_or_workers_patches_a_library_or_sets_up_logging_when_imported(
        ) -> None:
    found = {line for line in import_time_setups()
             if not any(line.startswith(f"{path} ") and f"patches {what} =" in line
                        for path, what in ALLOWED_AT_IMPORT)}
    assert found == set(), "process set-up on import (do it at start-up):\n" + \
        "\n".join(sorted(found))


def test_the_set_up_finder_sees_patches_and_log_set_up_at_module_level_only() -> None:
    source = (
        "import logging\n"
        "from kombu.transport import redis as kombu_redis\n"
        "from pbm.logs import configure as configure_logs\n"
        "from pbm import logs, models\n"
        "def tolerate():\n    kombu_redis.QoS.ack = wrap(kombu_redis.QoS.ack)\n"
        "def ours():\n    models.Game.x = 1\n    local = object()\n    local.y = 2\n"
        "configure_logs()\n"
        "logs.configure()\n"
        "logging.basicConfig()\n"
        "tolerate()\n"
        "ours()\n"
        "setattr(kombu_redis.QoS, 'ack', None)\n"
        "def start():\n    configure_logs()\n    tolerate()\n"
        "@signal.connect\ndef on_start(**_):\n    tolerate()\n"
        "if __name__ == '__main__':\n    configure_logs()\n"
    )
    tree = ast.parse(source)
    assert patchers("m", tree) == {"m.tolerate"}
    assert import_time_setup("m", tree, patchers("m", tree)) == [
        "line 11: sets up logging (configure_logs())",
        "line 12: sets up logging (logs.configure())",
        "line 13: sets up logging (logging.basicConfig())",
        "line 14: patches a library (tolerate())",
        "line 16: patches setattr(kombu_redis.QoS, 'ack', None)"]
