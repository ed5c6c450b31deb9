"""Fixtures of the demo tests: the demo's own settings (SQLite file, filesystem broker, file
transports) in a temporary folder, for this test process, undone afterwards."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from pbm.demo import Table, demo_environment, fresh_folder, make_table


@pytest.fixture
def demo_folder(tmp_path: Path) -> Iterator[Path]:
    """A fresh demo folder whose settings this process uses until the test ends."""
    import workers.app
    from pbm.config import reset_settings
    from pbm.db import dispose_engines

    folder = fresh_folder(tmp_path / "demo")
    names = list(demo_environment(folder))
    saved = {name: os.environ.get(name) for name in names}
    transport = workers.app.app.conf.broker_transport
    yield folder
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    reset_settings()
    dispose_engines()
    workers.app.app.conf.broker_transport = transport
    workers.app.reconfigure()


@pytest.fixture
def table(demo_folder: Path) -> Iterator[Table]:
    """A prepared 5-player demo table (game created, invitations written, no workers)."""
    table = Table(demo_folder, 7, make_table(5))
    table.prepare()
    yield table
    table.close()


def process_inline() -> None:
    """Do the workers' job in this process: process new replies, deliver pending messages."""
    from pbm import inbound
    from pbm.config import get_settings
    from pbm.db import session_scope
    from workers.delivery import deliver

    now = datetime.now(UTC)
    with session_scope(write=False) as session:
        new = session.execute(sa.text(
            "SELECT id FROM inbound_messages WHERE status = 'new' ORDER BY id")).scalars().all()
        pending = session.execute(sa.text(
            "SELECT id FROM outbound_messages WHERE status = 'pending' ORDER BY id")
        ).scalars().all()
    for inbound_id in new:
        inbound.process(inbound_id, now)
    for outbox_id in pending:
        deliver(outbox_id, now, get_settings())
