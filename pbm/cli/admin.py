"""Admin verbs of the ``pbm`` command: ``pbm game ...``, ``pbm quarantine ...``, ``pbm db ...``.

Every change goes through ``pbm.games`` in one transaction; new outbox rows are handed to
the workers after the commit (and the relay finds any whose hand-over is lost). A human
error (unknown game, a game that already started, ten players, a duplicate email) prints
one line and exits with code 2, never a traceback.

The verbs live by group in ``pbm.cli``: ``common`` (apps and helpers), ``game_run`` (verbs
that change a game), ``game_view`` (verbs that read), ``game_io`` (export and import),
``admin_web`` (admins of the web page); ``pbm quarantine`` and ``pbm db`` are here.
"""

from __future__ import annotations

import contextlib

import typer
from rich.table import Table
from sqlmodel import col, select

# The pbm game verbs register on import: first those that change a game, then those that
# read (the help lists them in that order).
import pbm.cli.game_io
import pbm.cli.game_run
import pbm.cli.game_view  # noqa: F401
from pbm import db, inbound
from pbm.cli.common import (
    GAME,
    command,
    console,
    db_app,
    fail,
    format_when,
    game_app,
    human_errors,
    now_utc,
    quarantine_app,
    say,
    write_enqueuing,
)
from pbm.config import get_settings
from pbm.models import InboundMessage, InboundStatus
from workers.enqueue import enqueue_inbound

__all__ = ["GAME", "command", "console", "db_app", "fail", "game_app", "human_errors", "now_utc",
           "quarantine_app", "say"]


# ---------------------------------------------------------------- pbm quarantine


@quarantine_app.command("list")
@human_errors
def quarantine_list() -> None:
    """Inbound messages whose processing failed, newest first."""
    with db.session_scope(write=False) as session:
        rows = session.exec(select(InboundMessage)
                            .where(InboundMessage.status == InboundStatus.QUARANTINED)
                            .order_by(col(InboundMessage.id).desc())).all()
        table = Table("id", "received", "channel", "from", "attempts", "error")
        for m in rows:
            table.add_row(str(m.id), format_when(m.received_at), m.channel, m.sender,
                          str(m.attempts), (m.error or "").splitlines()[-1][:80]
                          if m.error else "-")
    console.print(table if rows else "Nothing in quarantine.")


@quarantine_app.command("retry")
@human_errors
def quarantine_retry(message_id: int = typer.Argument(..., metavar="ID",
                                                     help="Inbound message id.")) -> None:
    """Put a quarantined message back in line for processing."""
    ids = write_enqueuing(lambda s: inbound.requeue(s, message_id))
    with contextlib.suppress(Exception):
        enqueue_inbound(ids)
    console.print(f"Message {message_id} is back in line for processing.")


# ---------------------------------------------------------------- pbm db


@db_app.command("upgrade")
@human_errors
def db_upgrade(
    revision: str = typer.Option("head", metavar="REVISION", help="Target revision."),
) -> None:
    """Create or upgrade the schema (safe to run again)."""
    url = get_settings().database_url
    db.upgrade(url, revision)
    console.print(f"Database at revision {db.current_revision(url)}.", highlight=False)


@db_app.command("current")
@human_errors
def db_current() -> None:
    """The schema revision of the database."""
    console.print(str(db.current_revision() or "empty (run pbm db upgrade)"), highlight=False)
