"""What every admin verb shares: the typer apps, the consoles, one-line refusals (exit 2),
the retried write transaction, and game, seat and time helpers.
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import typer
from rich.console import Console
from sqlalchemy.exc import OperationalError, ProgrammingError
from sqlmodel import Session

from pbm import db, games
from pbm.deadlines import zone
from workers.hooks import install_process_hooks

F = TypeVar("F", bound=Callable[..., Any])


# plain (click) help: wrapped to the terminal, no <bool> placeholders, nothing cut off
game_app = typer.Typer(help="Create and run games.", no_args_is_help=True,
                       rich_markup_mode=None)


quarantine_app = typer.Typer(help="Inbound messages that failed processing.",
                             no_args_is_help=True, rich_markup_mode=None)


@game_app.callback()
@quarantine_app.callback()
def _start_up() -> None:
    # The start-up of `pbm game ...` and `pbm quarantine ...`: their writes hand the new
    # outbox rows to the workers after each commit (``write_enqueuing``).
    install_process_hooks()


db_app = typer.Typer(help="The database schema.", no_args_is_help=True, rich_markup_mode=None)


GAME = typer.Argument(..., metavar="GAME", help="Game name or id.")


console = Console(width=120)


err = Console(stderr=True)


def now_utc() -> datetime:
    return datetime.now(UTC)


def say(text: str) -> None:
    """Print a result line as it is: no markup, no colouring, never wrapped."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def command(*words: str) -> str:
    """A ``pbm`` command line for the admin to run next, every word shell-quoted."""
    return " ".join(["pbm", *(shlex.quote(w) for w in words)])


def fail(message: str) -> None:
    """Print one line for a human and exit 2."""
    err.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def human_errors(func: F) -> F:
    """Turn refusals and a missing schema into one line and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except games.GameError as exc:
            fail(str(exc))
        except ValueError as exc:
            fail(str(exc))
        except (OperationalError, ProgrammingError) as exc:
            text = str(exc.orig).lower()
            if "no such table" in text or "does not exist" in text:
                fail("the database has no tables yet: run `pbm db upgrade`")
            if "unable to open" in text or "connection" in text:
                fail(f"cannot reach the database: {str(exc.orig).splitlines()[0]}")
            raise
        return None

    return wrapper  # type: ignore[return-value]


def write_enqueuing(work: Callable[[Session], Any]) -> Any:
    """Run ``work`` in one retried transaction; its messages are enqueued after the commit
    (by the hook the command group installed at start-up)."""
    return db.run_transaction(work)


def game_id_of(ref: str) -> int:
    with db.session_scope(write=False) as session:
        game_id = games.get_game(session, ref).id
    assert game_id is not None
    return game_id


def seat_index(seat: int) -> int:
    if seat < 1:
        raise games.InvalidRequest("seats are numbered from 1")
    return seat - 1


def format_when(value: datetime | None, tz: str | None = None) -> str:
    if value is None:
        return "-"
    utc = value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if tz and tz != "UTC":
        local = value.astimezone(zone(tz)).strftime("%a %H:%M")
        return f"{utc} ({local} {tz})"
    return utc
