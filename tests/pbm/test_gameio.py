"""Moving a running game to another server: export, import into an empty database, replay,
and play on."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import select

import engine
from engine.simulate import random_command
from pbm import db, games
from pbm.gameio import ImportRefused, dumps, export_game, import_game
from pbm.models import CommandLog, Deadline, Game, GameEvent, Player, Seat
from tests.pbm.conftest import new_game, rows, state_of, submit


def _target(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'new-server.db'}"
    db.upgrade(url)
    return url


def _export(eng, game_id):  # type: ignore[no-untyped-def]
    with db.session_scope(eng, write=False) as session:
        return json.loads(dumps(export_game(session, game_id)))


def test_an_imported_game_replays_to_the_same_state_and_goes_on(eng, now, tmp_path):  # type: ignore[no-untyped-def]
    game_id = new_game(eng, now, 5, name="moving-game", sms_seats=(2,))
    rng = random.Random(3)
    for _ in range(25):  # a game well under way: turns, votes, deadlines
        state = state_of(eng, game_id)
        decision = rng.choice(engine.pending(state))
        now += timedelta(minutes=20)
        assert submit(eng, game_id, decision.seat, random_command(rng, decision), now).ok
    document = _export(eng, game_id)
    target = db.get_engine(_target(tmp_path))

    new_id = db.run_transaction(lambda s: import_game(s, document), target)

    before, after = state_of(eng, game_id), state_of(target, new_id)
    assert engine.to_json(after) == engine.to_json(before)
    with db.session_scope(target, write=False) as session:
        assert games.replay_matches(session, new_id)
        game = session.get(Game, new_id)
        assert game is not None and game.name == "moving-game" and game.status == "running"
        seats = list(session.exec(select(Seat).where(Seat.game_id == new_id)))
        players = {p.id: p for p in session.exec(select(Player))}
    old_seats = rows(eng, Seat, game_id=game_id)
    assert [s.reply_token for s in sorted(seats, key=lambda s: s.seat_index)] == \
        [s.reply_token for s in old_seats]
    assert players[seats[2].player_id].phone is not None
    assert len(rows(target, CommandLog, game_id=new_id)) == len(
        rows(eng, CommandLog, game_id=game_id)) == 25
    assert len(rows(target, GameEvent, game_id=new_id)) == len(
        rows(eng, GameEvent, game_id=game_id))
    assert [(d.seat, d.decision_key, d.status, d.due_at) for d in
            rows(target, Deadline, game_id=new_id)] == \
        [(d.seat, d.decision_key, d.status, d.due_at) for d in
         rows(eng, Deadline, game_id=game_id)]
    # The game goes on: the same next commands give the same states on both servers.
    for _ in range(10):
        state = state_of(target, new_id)
        decision = rng.choice(engine.pending(state))
        command = random_command(rng, decision)
        now += timedelta(minutes=20)
        assert submit(target, new_id, decision.seat, command, now).ok
        assert submit(eng, game_id, decision.seat, command, now).ok
        assert engine.to_json(state_of(target, new_id)) == engine.to_json(
            state_of(eng, game_id))
    db.dispose_engines()


def test_an_import_whose_log_does_not_replay_to_its_state_is_refused(eng, now, tmp_path):  # type: ignore[no-untyped-def]
    game_id = new_game(eng, now, 4, name="tampered")
    state = state_of(eng, game_id)
    decision = engine.pending(state)[0]
    assert submit(eng, game_id, decision.seat, random_command(random.Random(1), decision), now).ok
    document = _export(eng, game_id)
    document["commands"].pop()  # the log no longer explains the snapshot
    target = db.get_engine(_target(tmp_path))

    with pytest.raises(ImportRefused, match="replaying"):
        db.run_transaction(lambda s: import_game(s, document), target)
    assert rows(target, Game) == []
    db.dispose_engines()


def test_an_import_refuses_a_name_taken_on_the_new_server(eng, now):  # type: ignore[no-untyped-def]
    game_id = new_game(eng, now, 4, name="twice")
    document = _export(eng, game_id)
    with pytest.raises(ImportRefused, match="exists here already"):
        db.run_transaction(lambda s: import_game(s, document), eng)
    renamed = db.run_transaction(lambda s: import_game(s, document, name="twice-again"), eng)
    with db.session_scope(eng, write=False) as session:
        assert games.replay_matches(session, renamed)
