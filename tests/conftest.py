"""Session-wide fixtures: real PostgreSQL and Redis servers (see tests/services.py), each
xdist worker's own part of them, and the order the slow tests run in."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.services import (
    EmbeddedServers,
    drop_session_database,
    redis_block,
    resolve_postgres,
    resolve_redis,
    session_database,
)

#: Fixture scopes whose setup is paid once per module or class: tests sharing one go to one
#: xdist worker together (``xdist_group``), so a stack of servers starts once.
SHARED_SCOPES = {"module", "class", "package"}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (its hook, same name)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order and group the tests for ``./dev test``'s parallel run (``--dist loadgroup``):

    - the tests of one module that use a module- (or class-) scoped fixture run together
      on one worker: the fixture (a database, a live server, a whole deployment) is set up
      once, not once per worker;
    - slow tests (``@pytest.mark.slow``) and such groups with a slow test in them first,
      in file order; other tests keep their order. xdist hands out the groups first,
      largest first, then the single tests in this order: every worker starts on the long
      ones and ends on short ones, so they finish together. A serial run goes in this
      order too.
    """
    slow_groups: set[str] = set()
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info is not None else ()
        if any(d[-1].scope in SHARED_SCOPES for d in defs if d):
            group = item.nodeid.split("::")[0]
            item.add_marker(pytest.mark.xdist_group(group))
            if item.get_closest_marker("slow"):
                slow_groups.add(group)

    def first(item: pytest.Item) -> bool:
        grouped = item.get_closest_marker("xdist_group")
        slow = item.get_closest_marker("slow") is not None or (
            grouped is not None and grouped.args[0] in slow_groups)
        return not slow

    items.sort(key=first)


@pytest.fixture(scope="session")
def embedded_servers() -> Iterator[EmbeddedServers]:
    servers = EmbeddedServers()
    yield servers
    servers.stop_all()


@pytest.fixture(scope="session")
def postgres_url(embedded_servers: EmbeddedServers) -> Iterator[str]:
    """A SQLAlchemy URL of a real, answering PostgreSQL server: a database of this session
    (xdist worker) alone, dropped at its end."""
    server = resolve_postgres(embedded_servers)
    url = session_database(server)
    yield url
    drop_session_database(server, url)


@pytest.fixture(scope="session")
def redis_url(embedded_servers: EmbeddedServers) -> str:
    """The URL of a real, answering Redis server, at this session's (xdist worker's) first
    database number."""
    return redis_block(resolve_redis(embedded_servers))


@pytest.fixture(autouse=True)
def fresh_board_pictures() -> None:
    """Each test starts without the process's remembered board pictures (``pbm.outbox``):
    a test that fakes the drawing must not hand its fake to the next one."""
    import sys

    pictures = sys.modules.get("pbm.outbox_pictures")
    if pictures is not None:
        pictures.clear_pictures()
