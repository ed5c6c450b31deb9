"""``pbm game export NAME > game.json`` on one server and ``pbm game import`` on another,
as real ``pbm`` processes: the game arrives whole and goes on there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

import engine
from pbm import db, games

PBM = Path(sys.executable).parent / "pbm"


def run(args: list[str], url: str, cwd: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url, "DATA_DIR": str(cwd / "var"),
           "BROKER_URL": "filesystem://", "REDIS_URL": ""}
    return subprocess.run([str(PBM), *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=cwd, **kw)  # type: ignore[call-overload]


@pytest.mark.slow
def test_a_game_exported_by_the_cli_is_imported_by_the_cli_and_plays_on(tmp_path: Path
                                                                         ) -> None:
    old, new = f"sqlite:///{tmp_path / 'old.db'}", f"sqlite:///{tmp_path / 'new.db'}"
    for url in (old, new):
        assert run(["db", "upgrade"], url, tmp_path).returncode == 0
    created = run(["game", "create", "reef", "-p", "Ann <ann@example.org>", "-p",
                   "Bob +15551234567", "-p", "Cy <cy@example.org>"], old, tmp_path)
    assert created.returncode == 0, created.stderr
    assert run(["game", "start", "reef", "--force"], old, tmp_path).returncode == 0
    with db.session_scope(db.get_engine(old)) as session:
        game = games.get_game(session, "reef")
        state = games.load_state(game)
        decision = engine.pending(state)[0]
        games.submit(session, game.id, decision.seat, [str(decision.legal[0])],
                     origin="test", now=datetime.now(UTC))

    exported = run(["game", "export", "reef"], old, tmp_path)
    assert exported.returncode == 0, exported.stderr
    (tmp_path / "game.json").write_text(exported.stdout)
    imported = run(["game", "import", str(tmp_path / "game.json")], new, tmp_path)
    again = run(["game", "import", str(tmp_path / "game.json")], new, tmp_path)

    assert imported.returncode == 0, imported.stderr
    assert "its replay matches its state" in imported.stdout
    assert again.returncode == 2 and "exists here already" in again.stderr
    document = json.loads(exported.stdout)
    assert len(document["commands"]) == 1 and len(document["seats"]) == 3
    with db.session_scope(db.get_engine(new)) as session:
        moved = games.get_game(session, "reef")
        assert engine.to_json(games.load_state(moved)) == engine.to_json(
            engine.from_json(document["game"]["state_json"]))
        state = games.load_state(moved)
        decision = engine.pending(state)[0]
        result = games.submit(session, moved.id, decision.seat, [str(decision.legal[0])],
                              origin="test", now=datetime.now(UTC))
        assert result.ok
    db.dispose_engines()


def test_an_export_is_readable_by_its_owner_alone_and_says_what_it_holds(tmp_path: Path
                                                                         ) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    assert run(["db", "upgrade"], url, tmp_path).returncode == 0
    assert run(["game", "create", "cove", "-p", "Ann <ann@example.org>", "-p",
                "Bob <bob@example.org>"], url, tmp_path).returncode == 0
    os.umask(0o022)
    written = run(["game", "export", "cove", "--output", str(tmp_path / "cove.json")], url,
                  tmp_path)
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "cove.json").stat().st_mode & 0o777 == 0o600
    assert "reply token" in written.stderr and "0600" in written.stderr
    with (tmp_path / "redirected.json").open("w") as out:  # `pbm game export cove > file`
        redirected = subprocess.run(
            [str(PBM), "game", "export", "cove"], stdout=out, stderr=subprocess.PIPE,
            text=True, timeout=120, cwd=tmp_path,
            env={**os.environ, "DATABASE_URL": url, "DATA_DIR": str(tmp_path / "var"),
                 "BROKER_URL": "filesystem://", "REDIS_URL": ""})
    assert redirected.returncode == 0, redirected.stderr
    assert (tmp_path / "redirected.json").stat().st_mode & 0o777 == 0o600
    assert json.loads((tmp_path / "redirected.json").read_text())["game"]["name"] == "cove"


def test_an_import_checks_names_as_create_does(tmp_path: Path) -> None:
    old, new = f"sqlite:///{tmp_path / 'old.db'}", f"sqlite:///{tmp_path / 'new.db'}"
    for url in (old, new):
        assert run(["db", "upgrade"], url, tmp_path).returncode == 0
    assert run(["game", "create", "cove", "-p", "Ann <ann@example.org>", "-p",
                "Bob <bob@example.org>"], old, tmp_path).returncode == 0
    document = json.loads(run(["game", "export", "cove"], old, tmp_path).stdout)
    for label, change in {
        "game name": lambda d: d["game"].update(name="x\r\nBcc: eve@evil.example"),
        "player name": lambda d: d["players"][0].update(display_name="Ann\r\nBcc: e@e.x"),
        "email": lambda d: d["players"][0].update(email="ann@example.org\r\nBcc: e@e.x"),
    }.items():
        forged = json.loads(json.dumps(document))
        change(forged)
        (tmp_path / "forged.json").write_text(json.dumps(forged))
        refused = run(["game", "import", str(tmp_path / "forged.json")], new, tmp_path)
        assert refused.returncode == 2, (label, refused.stdout, refused.stderr)
        assert "cannot import" in refused.stderr, label
    refused = run(["game", "import", str(tmp_path / "forged.json"), "--name", "Bad Name!"],
                  new, tmp_path)
    assert refused.returncode == 2 and "game name" in refused.stderr
