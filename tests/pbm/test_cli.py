"""The admin CLI: `pbm game ...`, `pbm quarantine ...`, `pbm db upgrade`. Human errors give
one line and exit code 2, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbm import db
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


def pbm(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PBM), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env}, cwd=cwd)


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
    (["game", "create", "G10", *[x for i in range(10) for x in ("-p", f"P{i} <p{i}@x.org>")]],
     "takes 2 to 9 players, not 10"),
    (["game", "create", "Dup", "-p", "Ann <a@x.org>", "-p", "Bea <a@x.org>"],
     "share the email"),
    (["game", "create", "Bad", "-p", "Ann", "-p", "Bea <b@x.org>"], "give an email"),
    (["game", "create", "Q", *PLAYERS, "--quiet", "late"], "quiet hours"),
    (["game", "create", "S", *PLAYERS, "--starred", "ATLANTIS,NOPE,EL_DORADO"],
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
    code, out, err = pbm("game", "create", "Harbour", *PLAYERS, "--seed", "5",
                         "--action-hours", "36", "--on-timeout", "pause")
    assert code == 0, err
    assert "Created game Harbour" in out
    assert pbm("game", "create", "Harbour", *PLAYERS)[2] == \
        "error: a game named 'Harbour' already exists\n"

    assert pbm("game", "invite", "Harbour")[0] == 0
    code, out, _ = pbm("game", "list")
    assert "Harbour" in out and "inviting" in out and "INVITATION" in out
    code, _, err = pbm("game", "start", "Harbour")
    assert code == 2 and "still waiting for Ann, Bob, Cy" in err
    assert pbm("game", "start", "Harbour", "--force")[0] == 0
    code, _, err = pbm("game", "start", "Harbour", "--force")
    assert code == 2 and "already started" in err

    code, shown, _ = pbm("game", "show", "Harbour")
    assert code == 0 and "Ann" in shown and "TORTUGA" in shown and "awaiting" in shown
    assert "loyalty" not in shown
    code, spoiled, _ = pbm("game", "show", "Harbour", "--spoilers")
    assert "loyalty" in spoiled and ("BRITISH" in spoiled or "FRENCH" in spoiled)

    code, preview, _ = pbm("game", "preview", "Harbour", "2")
    assert code == 0 and "to Bob" in preview
    code, sms, _ = pbm("game", "preview", "Harbour", "2", "--channel", "sms")
    assert code == 0 and len(sms.splitlines()) > 1

    assert pbm("game", "pause", "Harbour", "--reason", "storm")[0] == 0
    assert pbm("game", "resume", "Harbour")[0] == 0
    assert pbm("game", "extend", "Harbour", "--hours", "12")[0] == 0
    code, out, _ = pbm("game", "replace", "Harbour", "3", "--player", "Dee <dee@example.org>")
    assert code == 0 and "Dee takes over seat 3 from Cy" in out
    assert pbm("game", "log", "Harbour", "--events")[0] == 0
    assert pbm("game", "abort", "Harbour", "--reason", "test over")[0] == 0
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
