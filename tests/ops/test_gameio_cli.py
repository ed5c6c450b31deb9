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
