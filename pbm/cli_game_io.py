"""``pbm game export NAME > game.json`` and ``pbm game import game.json``: move a game to
another server (``pbm.gameio``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from pbm import db
from pbm.cli_admin_common import GAME, fail, game_app, human_errors, say, write_enqueuing
from pbm.gameio import ImportRefused, dumps, export_game, import_game


@game_app.command("export")
@human_errors
def export(ref: str = GAME) -> None:
    """Write the game (players, seats, settings, command log, events, deadlines) as JSON to
    standard output."""
    with db.session_scope(write=False) as session:
        document = export_game(session, int(ref) if ref.isdigit() else ref)
    sys.stdout.write(dumps(document) + "\n")


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
