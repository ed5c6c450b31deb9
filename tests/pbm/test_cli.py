"""The admin CLI: `pbm game ...`, `pbm quarantine ...`, `pbm db upgrade`. Human errors give
one line and exit code 2, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbm import db, games
from pbm.cli import app
from pbm.config import reset_settings
from pbm.models import Game, InboundMessage, OutboundMessage
from tests.pbm.conftest import rows

PBM = Path(sys.executable).parent / "pbm"
PLAYERS = ["-p", "Ann <ann@example.org>", "-p", "Bob +15551234567 America/New_York",
           "-p", "Cy <cy@example.org>"]


@pytest.fixture
def cli_db(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Point the CLI at the test database (and keep its files in tmp_path)."""
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("BROKER_URL", "memory://")
    reset_settings()
    yield db_url
    from workers.hooks import uninstall_outbox_hook

    uninstall_outbox_hook()  # the in-process CLI installed it: later tests must not publish
    reset_settings()


def join(url: str, game: str, *seats: int) -> None:
    """These seats answer JOIN (as their reply would, through the service)."""
    with db.session_scope(db.get_engine(url)) as session:
        game_id = games.get_game(session, game).id
        assert game_id is not None
        for seat in seats:
            games.respond(session, game_id, seat, join=True, now=datetime.now(UTC))


def pbm(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PBM), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env}, cwd=cwd)


@pytest.mark.slow
def test_db_upgrade_works_from_any_directory_and_human_errors_are_one_line(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    env = {"DATABASE_URL": url, "DATA_DIR": str(tmp_path / "var")}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    before = run(["game", "list"], env, elsewhere)
    upgraded = run(["db", "upgrade"], env, elsewhere)
    unknown = run(["game", "start", "no-such-game"], env, elsewhere)

    assert before.returncode == 2 and before.stderr.strip().count("\n") == 0
    assert "pbm db upgrade" in before.stderr
    assert upgraded.returncode == 0, upgraded.stderr
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(db.alembic_config(url)).get_current_head()
    assert head in upgraded.stdout and db.current_revision(url) == head
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == "error: no game 'no-such-game' (see `pbm game list`)"
    assert "Traceback" not in unknown.stderr + unknown.stdout


HUMAN_ERRORS: list[tuple[list[str], str]] = [
    (["game", "create", "g10", *[x for i in range(10) for x in ("-p", f"P{i} <p{i}@x.org>")]],
     "takes 2 to 9 players, not 10"),
    (["game", "create", "dup", "-p", "Ann <a@x.org>", "-p", "Bea <a@x.org>"],
     "share the email"),
    (["game", "create", "bad", "-p", "Ann", "-p", "Bea <b@x.org>"], "give an email"),
    (["game", "create", "q", *PLAYERS, "--quiet", "late"], "quiet hours"),
    (["game", "create", "s", *PLAYERS, "--starred", "ATLANTIS,NOPE,EL_DORADO"],
     "no Event card called 'NOPE'"),
    (["game", "show", "missing"], "no game 'missing'"),
    (["game", "replace", "missing", "1", "--player", "Dee <d@x.org>"], "no game"),
    (["quarantine", "retry", "999"], "no inbound message 999"),
]


def test_human_errors_exit_2_with_one_line(cli_db: str) -> None:
    for args, expected in HUMAN_ERRORS:
        code, out, err = pbm(*args)
        assert code == 2, (args, out + err)
        assert expected in err and err.count("\n") == 1 and err.startswith("error: ")
        assert "Traceback" not in out + err


def test_a_game_is_run_from_the_command_line(cli_db: str) -> None:
    code, out, err = pbm("game", "create", "harbour", *PLAYERS, "--seed", "5",
                         "--action-hours", "36", "--on-timeout", "pause")
    assert code == 0, err
    assert "Created game harbour" in out and out.rstrip().endswith("Next: pbm game invite harbour")
    assert pbm("game", "create", "harbour", *PLAYERS)[2] == \
        "error: a game named 'harbour' already exists\n"

    assert pbm("game", "invite", "harbour")[0] == 0
    code, out, _ = pbm("game", "list")
    assert "harbour" in out and "inviting" in out and "INVITATION" in out
    code, _, err = pbm("game", "start", "harbour")
    assert code == 2 and "still waiting for Ann, Bob, Cy" in err
    assert pbm("game", "start", "harbour", "--force") == (
        2, "", "error: only 0 of 3 players joined harbour: a game needs 2; wait for JOINs or "
               "replace seats\n")
    join(cli_db, "harbour", 0, 1)  # Ann and Bob answer JOIN, Cy never does
    assert pbm("game", "start", "harbour", "--force") == (
        0, "harbour started with Ann, Bob; left out (had not joined): Cy\n", "")
    code, _, err = pbm("game", "start", "harbour", "--force")
    assert code == 2 and "already started" in err

    code, shown, _ = pbm("game", "show", "harbour")
    assert code == 0 and "Ann" in shown and "TORTUGA" in shown and "awaiting" in shown
    assert "loyalty" not in shown
    code, spoiled, _ = pbm("game", "show", "harbour", "--spoilers")
    assert "loyalty" in spoiled and ("BRITISH" in spoiled or "FRENCH" in spoiled)

    code, preview, _ = pbm("game", "preview", "harbour", "2")
    assert code == 0 and "to Bob" in preview
    code, sms, _ = pbm("game", "preview", "harbour", "2", "--channel", "sms")
    assert code == 0 and len(sms.splitlines()) > 1

    assert pbm("game", "pause", "harbour", "--reason", "storm")[0] == 0
    assert pbm("game", "resume", "harbour")[0] == 0
    assert pbm("game", "extend", "harbour", "--hours", "12")[0] == 0
    code, out, _ = pbm("game", "replace", "harbour", "2", "--player", "Dee <dee@example.org>")
    assert code == 0 and "Dee takes over seat 2 from Bob" in out
    assert pbm("game", "log", "harbour", "--events")[0] == 0
    assert pbm("game", "abort", "harbour", "--reason", "test over")[0] == 0
    assert rows(db.get_engine(cli_db), Game)[0].status == "aborted"
    kinds = {r.kind for r in rows(db.get_engine(cli_db), OutboundMessage)}
    assert {"invitation", "paused", "resumed", "seat_replaced", "game_over"} <= kinds


def test_a_quarantined_message_can_be_retried(cli_db: str) -> None:
    with db.session_scope(db.get_engine(cli_db)) as session:
        session.add(InboundMessage(channel="email", provider_message_id="<x@y>",
                                   sender="ann@example.org", raw="garbage",
                                   status="quarantined", error="boom\nValueError: bad"))
    code, listed, _ = pbm("quarantine", "list")
    assert code == 0 and "ValueError: bad" in listed
    code, out, _ = pbm("quarantine", "retry", "1")
    assert code == 0 and "back in line" in out
    assert rows(db.get_engine(cli_db), InboundMessage)[0].status == "new"
    code, _, err = pbm("quarantine", "retry", "1")
    assert code == 2 and "not quarantined" in err


#: The admin's mistakes of issue 17, each with the one line the CLI prints (exit status 2).
ADMIN_MISTAKES: list[tuple[list[str], str]] = [
    (["game", "create", "bad name!", *PLAYERS],
     "error: game name 'bad name!': use 1-40 lower-case letters, digits and hyphens, "
     "e.g. bad-name"),
    (["game", "create", "reef", "-p", "Ann #1 <ann@example.org>", "-p", "Bob <bob@example.org>"],
     "error: player 1 (Ann): did not understand '#1' in 'Ann #1 <ann@example.org>'; write a "
     'player like "Ann <ann@example.org> +44 7700 900123 Europe/London"'),
    (["game", "create", "reef", "-p", "Ann <ann@example.org>", "-p", "Bob 07700 900123"],
     "error: player 2 (Bob): '07700 900123' has no +country code (write it like "
     "+44 7700 900123, or set PHONE_REGION)"),
    (["game", "create", "reef", "-p", "Ann <ann@example.org>", "-p", "Bob +44 12",
      "-p", "Cy <cy@example.org>"],
     "error: player 2 (Bob): '+44 12' is not a phone number (too short or too long)"),
    (["game", "create", "reef", "-p", "Ann <ann@example.org>", "-p", "Bob <bob@example.org>",
      "-p", "Cy <cy@example>"],
     "error: player 3 (Cy): 'cy@example' is not an email address (The part after the @-sign "
     "is not valid. It should have a period)"),
    (["game", "create", "reef", *PLAYERS, "--tz", "Mars/Base"],
     "error: --tz: unknown time zone 'Mars/Base' (an IANA name such as Europe/Paris or "
     "America/New_York)"),
    (["game", "create", "reef", "-p", "Ann <ann@example.org>",
      "-p", "Bob <bob@example.org> Mars/Base"],
     "error: player 2 (Bob): unknown time zone 'Mars/Base' (an IANA name such as "
     "Europe/Paris or America/New_York)"),
    (["game", "create", "reef", "-p", "<ann@example.org>", "-p", "Bob <bob@example.org>"],
     'error: player 1: give a name first (e.g. "Ann <ann@example.org> +44 7700 900123 '
     'Europe/London")'),
    (["game", "create", "reef", "-p", "Ann <ann@example.org>", "-p", "Bob"],
     'error: player 2 (Bob): give an email address or a phone number (e.g. "Ann '
     '<ann@example.org> +44 7700 900123 Europe/London")'),
    (["game", "replace", "harbour", "3", "--player", "Dee dee@example"],
     "error: player 3 (Dee): 'dee@example' is not an email address (The part after the "
     "@-sign is not valid. It should have a period)"),
]


@pytest.mark.parametrize(("args", "line"), ADMIN_MISTAKES,
                         ids=[" ".join(a)[:60] for a, _ in ADMIN_MISTAKES])
def test_each_admin_mistake_exits_2_with_one_line_naming_it(
    cli_db: str, args: list[str], line: str
) -> None:
    assert pbm(*args) == (2, "", line + "\n")
    assert rows(db.get_engine(cli_db), Game) == [], "nothing was created"


def test_players_are_read_in_any_common_notation_and_stored_in_e164(
    cli_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PHONE_REGION", "GB")
    reset_settings()
    code, _, err = pbm("game", "create", "reef",
                         "-p", "Ann (+44) 7700 900123", "-p", "Bob 07700 900124 Europe/London",
                         "-p", "Cy cy@example.org +1 (555) 010-0200", "--tz", "America/Denver")
    assert (code, err) == (0, ""), err
    with db.session_scope(db.get_engine(cli_db), write=False) as session:
        seated = [(p.display_name, p.email, p.phone, p.time_zone)
                  for _, p in games.seats_of(session, games.get_game(session, "reef").id)]  # type: ignore[arg-type]
    assert seated == [("Ann", None, "+447700900123", "America/Denver"),
                      ("Bob", None, "+447700900124", "Europe/London"),
                      ("Cy", "cy@example.org", "+15550100200", "America/Denver")]


def test_commands_printed_for_the_admin_are_shell_quoted() -> None:
    from pbm.cli.admin import command

    assert command("game", "invite", "harbour") == "pbm game invite harbour"
    assert command("game", "replace", "bad name!", "3") == "pbm game replace 'bad name!' 3"


HELP_PAGES = [[], ["game"], ["game", "create"], ["game", "start"], ["game", "show"],
              ["game", "log"], ["game", "replace"], ["game", "preview"], ["quarantine"],
              ["db", "upgrade"], ["admin", "hash-password"], ["demo"], ["play"], ["web"]]


def test_help_has_no_type_placeholders_and_cuts_nothing_at_80_columns() -> None:
    runner = CliRunner(env={"COLUMNS": "80"})
    for page in HELP_PAGES:
        result = runner.invoke(app, [*page, "--help"])
        assert result.exit_code == 0, (page, result.output)
        assert "<bool>" not in result.output and "…" not in result.output, result.output
        assert max(len(line) for line in result.output.splitlines()) <= 80, result.output
    create = runner.invoke(app, ["game", "create", "--help"]).output
    assert "ATLANTIS,EL_DORADO,FOUNTAIN_OF_YOUTH" in create
    assert "--sms / --no-sms" in create and "[default: 22-8]" in create
