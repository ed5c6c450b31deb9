"""``pbm game export NAME > game.json`` and ``pbm game import game.json``: move a game to
another server (``pbm.gameio``)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import typer

from pbm import db
from pbm.cli.common import GAME, fail, game_app, human_errors, say, write_enqueuing
from pbm.gameio import ImportRefused, dumps, export_game, import_game

#: What an export holds, said whenever one is written: it opens every seat.
EXPORT_WARNING = ("this file holds the game's secrets: every seat's reply token (whoever has "
                  "it can play that seat), every loyalty, vote hand and the Event deck's order; "
                  "written readable by you alone (mode 0600): keep it so, delete it after")


def _private_file(path: Path) -> int:
    """``path`` opened for writing, readable and writable by its owner alone."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a file that existed keeps its old mode otherwise
    return fd


@game_app.command("export")
@human_errors
def export(
    ref: str = GAME,
    output: Path | None = typer.Option(None, "--output", "-o", metavar="FILE",
                                       help="Write to FILE (mode 0600) instead of standard "
                                       "output."),
) -> None:
    """Write the game (players, seats with their reply tokens, settings, command log, events,
    deadlines) as JSON, to FILE or standard output; a file is made readable by its owner
    alone, a redirected standard output too."""
    with db.session_scope(write=False) as session:
        document = export_game(session, int(ref) if ref.isdigit() else ref)
    data = (dumps(document) + "\n").encode()
    if output is not None:
        fd = _private_file(output)
    else:
        fd = sys.stdout.fileno()
        sys.stdout.flush()
        if stat.S_ISREG(os.fstat(fd).st_mode):  # `> game.json`: the shell made it
            os.fchmod(fd, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        if output is not None:
            os.close(fd)
    typer.echo(f"exported {document['game']['name']}: {EXPORT_WARNING}", err=True)


@game_app.command("import")
@human_errors
def import_(
    path: Path = typer.Argument(..., metavar="FILE", help="A `pbm game export` file (- for "
                                "standard input)."),
    name: str | None = typer.Option(None, "--name", metavar="NAME",
                                    help="Import under another name."),
) -> None:
    """Import an exported game; refused unless replaying its command log gives its state."""
    text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    try:
        document = json.loads(text)
        game_id = write_enqueuing(lambda session: import_game(session, document, name=name))
    except (json.JSONDecodeError, ImportRefused, KeyError, TypeError) as exc:
        fail(f"cannot import {path}: {exc}")
        return
    say(f"imported game #{game_id} ({name or document['game']['name']}); its replay matches "
        "its state")
