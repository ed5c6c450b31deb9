"""The ``pbm`` command: admin verbs, the demo, local play, and the web server.

Sub-command groups live in their own modules and are mounted here; this module only wires
them together so ``pbm --help`` lists everything an admin can do.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    name="pbm",
    help="Tortuga by Mail: run Tortuga 1667 games by email and SMS.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command()
def demo(
    players: int = typer.Option(5, min=2, max=9, help="How many simulated players."),
    seed: int = typer.Option(1, help="Random seed: the same seed plays the same game."),
) -> None:
    """Run a whole game with simulated players through the real service, on this machine."""
    typer.echo("pbm demo: not yet - the game service lands in a later issue.")


@app.command()
def web(
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
) -> None:
    """Serve the webhooks and the admin page (uvicorn)."""
    import uvicorn

    uvicorn.run("pbm.web:app", host=host, port=port)


from pbm.admin.cli import app as admin_app  # noqa: E402 - sub-apps after the commands
from pbm.cli_admin import db_app, game_app, quarantine_app  # noqa: E402

app.add_typer(admin_app, name="admin")
app.add_typer(game_app, name="game")
app.add_typer(quarantine_app, name="quarantine")
app.add_typer(db_app, name="db")

if __name__ == "__main__":
    app()
