"""A check over the suite: no test sleeps and then asserts.

``time.sleep(2)`` followed by ``assert`` guesses how long the code under test needs: on a
busy machine it asserts too early (a flaky failure), and when the awaited thing never comes
it may pass without having checked anything. Wait on the condition instead
(``tests.workers.servers.wait_until``), or on an event that proves the code has had its
chance before asserting that something did not happen."""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def is_sleep(node: ast.stmt) -> bool:
    """``time.sleep(...)`` or a bare ``sleep(...)`` as a statement of its own."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    func = node.value.func
    return (isinstance(func, ast.Attribute) and func.attr == "sleep"
            and isinstance(func.value, ast.Name) and func.value.id == "time") or (
        isinstance(func, ast.Name) and func.id == "sleep")


def sleeps_then_asserts(source: str) -> list[tuple[str, int]]:
    """(test function, line of the sleep) for every sleep in a test function (``test_*``)
    whose next statement in the same block is an ``assert``."""
    found = []
    for function in ast.walk(ast.parse(source)):
        if not (isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
                and function.name.startswith("test")):
            continue
        for node in ast.walk(function):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if not isinstance(block, list):
                    continue
                for statement, following in pairwise(block):
                    if is_sleep(statement) and isinstance(following, ast.Assert):
                        found.append((function.name, statement.lineno))
    return found


def test_the_check_finds_a_sleep_followed_by_an_assert() -> None:
    source = '''
import time
def test_late():
    start()
    time.sleep(2)
    assert done()
def test_in_a_block():
    with server():
        if ready:
            sleep(0.5)
            assert done()
def helper():
    time.sleep(1)
    assert done()
def test_polls():
    while not done():
        time.sleep(0.1)
    assert done()
'''
    assert sleeps_then_asserts(source) == [("test_late", 5), ("test_in_a_block", 10)]


def test_no_test_sleeps_and_then_asserts() -> None:
    offenders = [f"{path.relative_to(TESTS.parent)}:{line} in {name}"
                 for path in sorted(TESTS.rglob("*.py"))
                 for name, line in sleeps_then_asserts(path.read_text())]
    assert offenders == [], ("sleep then assert: wait on a condition instead "
                             "(tests.workers.servers.wait_until):\n" + "\n".join(offenders))
