"""``pbm admin ...``: commands for the admin web page (mounted in ``pbm/cli/__init__.py``)."""

from __future__ import annotations

import sys

import typer

from pbm.admin.auth import NAME_PATTERN, hash_password

app = typer.Typer(help="Admins of the web page.", no_args_is_help=True,
                  rich_markup_mode=None)


@app.command("hash-password")
def hash_password_command(
    name: str = typer.Option(
        "", "--name", metavar="NAME",
        help="Print 'NAME:HASH', ready for ADMIN_USERS (else the hash alone).",
    ),
    stdin: bool = typer.Option(
        False, "--stdin", help="Read the password from the first line of standard input."
    ),
) -> None:
    """Print an argon2 hash of a password for ADMIN_USERS (the password is never stored)."""
    if name and not NAME_PATTERN.match(name):
        raise typer.BadParameter("letters, digits and . _ @ - only (up to 60)", param_hint="--name")
    if stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    if len(password) < 8:
        typer.echo("A password needs at least 8 characters.", err=True)
        raise typer.Exit(2)
    hashed = hash_password(password)
    typer.echo(f"{name}:{hashed}" if name else hashed)


@app.command("sign-out")
def sign_out_command(
    name: str = typer.Argument(..., metavar="NAME", help="The admin to sign out."),
) -> None:
    """End every open web session of an admin (a lost laptop, a leaked cookie)."""
    from pbm.admin.sessions import close_all  # here: needs the database

    ended = close_all(name)
    typer.echo(f"Ended {ended} session(s) of {name}.")
