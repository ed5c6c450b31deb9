"""The ``pbm`` command: admin verbs, the demo, local play, and the web server.

Sub-command groups live in their own modules and are mounted here; this module only wires
them together so ``pbm --help`` lists everything an admin can do.
"""

from __future__ import annotations

from pathlib import Path

import typer

from pbm.admin_input import InputError, check_language
from pbm.demo import DemoError, run_demo
from pbm.demo.terminal import run_play

app = typer.Typer(
    name="pbm",
    help="Tortuga by Mail: run Tortuga 1667 games by email and SMS.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # plain help: wrapped to the terminal, no <bool> placeholders
)


@app.command()
def demo(
    players: int = typer.Option(5, min=2, max=9, metavar="N", help="How many simulated players."),
    seed: int = typer.Option(1, metavar="N",
                           help="Random seed: the same seed plays the same game."),
    folder: Path | None = typer.Option(None, "--dir", metavar="DIR",
                                       help="Folder (default ./var/demo-seed-N)."),
    pace: float = typer.Option(0.0, min=0.0, max=60.0, metavar="SECONDS",
                               help="Seconds each simulated player thinks before a reply "
                                    "(to watch the game unfold)."),
    lang: str = typer.Option("en", "--lang", metavar="en|ko|mixed",
                             help="The simulated players' language: ko (Korean messages, "
                                  "Korean replies) or mixed (both at one table)."),
) -> None:
    """Run a whole game with simulated players through the real service, on this machine."""
    try:
        run_demo(players=players, seed=seed, folder=folder, echo=typer.echo, pace=pace,
                 language=lang.strip().lower())
    except DemoError as exc:
        typer.echo(f"pbm demo: {exc}", err=True)
        raise typer.Exit(1) from exc
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


@app.command()
def play(
    players: int = typer.Option(5, min=2, max=9, metavar="N",
                             help="How many players, you included."),
    name: str | None = typer.Option(None, "--as", metavar="NAME",
                                      help="Your name (or a demo seat's name)."),
    seed: int = typer.Option(1, metavar="N",
                           help="Random seed for the game and the simulated players."),
    folder: Path | None = typer.Option(None, "--dir", metavar="DIR",
                                       help="Folder (default ./var/play-seed-N)."),
    lang: str = typer.Option("en", "--lang", metavar="en|ko",
                             help="Your language: ko for Korean messages (reply in Korean)."),
) -> None:
    """Take one seat in the terminal; the others are simulated. Reply as by email."""
    try:
        language = check_language(lang, "--lang")
    except InputError as exc:
        typer.echo(f"pbm play: {exc}", err=True)
        raise typer.Exit(2) from exc
    try:
        run_play(players=players, seed=seed, name=name, folder=folder, language=language)
    except DemoError as exc:
        typer.echo(f"pbm play: {exc}", err=True)
        raise typer.Exit(1) from exc
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


@app.command()
def web(
    host: str = typer.Option("127.0.0.1", metavar="HOST", help="Interface to listen on."),
    port: int = typer.Option(8000, metavar="PORT", help="Port to listen on."),
) -> None:
    """Serve the webhooks and the admin page (uvicorn)."""
    import uvicorn  # here: only `pbm web` needs the ASGI server

    from pbm import deployment
    from pbm.config import get_settings

    try:
        deployment.check(get_settings())
    except deployment.InsecureDeployment as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    uvicorn.run("pbm.web:app", host=host, port=port)


from pbm.cli.admin import db_app, game_app, quarantine_app  # noqa: E402
from pbm.cli.admin_web import app as admin_app  # noqa: E402 - sub-apps after the commands

app.add_typer(admin_app, name="admin")
app.add_typer(game_app, name="game")
app.add_typer(quarantine_app, name="quarantine")
app.add_typer(db_app, name="db")

if __name__ == "__main__":
    app()
