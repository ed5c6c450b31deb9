"""A forced start: who has not joined is left out and told, and the rest play as seats
1..n of the engine; a game never invited seats everyone."""

from __future__ import annotations

import random
from datetime import datetime

import pytest
from sqlalchemy.engine import Engine

from pbm import db, games
from pbm.models import GameStatus, OutboundMessage, Seat
from tests.pbm.conftest import new_game, play_until, rows, state_of


def join(eng: Engine, game_id: int, *seats: int, now: datetime) -> None:
    for seat in seats:
        db.run_transaction(
            lambda s, seat=seat: games.respond(s, game_id, seat, join=True, now=now), eng)


def start(eng: Engine, game_id: int, now: datetime) -> games.Result:
    return db.run_transaction(lambda s: games.start(s, game_id, now=now, force=True), eng)


def test_a_forced_start_leaves_out_who_has_not_joined_and_tells_them(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 5, start=False)
    join(eng, game_id, 0, 2, 4, now=now)  # Player 2 and Player 4 never answer

    result = start(eng, game_id, now)

    assert result.message == ("Test game started with Player 1, Player 3, Player 5; "
                              "left out (had not joined): Player 2, Player 4")
    state = state_of(eng, game_id)
    assert state.names == ("Player 1", "Player 3", "Player 5")
    seats = sorted(rows(eng, Seat, game_id=game_id), key=lambda s: s.seat_index)
    assert [(s.seat_index, s.invitation_status) for s in seats] == [
        (0, "joined"), (1, "joined"), (2, "joined")]
    with db.session_scope(eng, write=False) as session:
        assert [p.display_name for _, p in games.seats_of(session, game_id)] == list(state.names)

    told = [r for r in rows(eng, OutboundMessage, game_id=game_id) if r.kind == "notice"]
    assert sorted(r.to_address for r in told) == ["p2@example.org", "p4@example.org"]
    assert all("started without you" in r.subject + r.text for r in told)
    assert {r.seat for r in told} == {None}, "the left-out are no seat of the game"

    invitations = {r.to_address: r.seat for r in rows(eng, OutboundMessage, kind="invitation")}
    assert invitations == {"p1@example.org": 0, "p2@example.org": None, "p3@example.org": 1,
                           "p4@example.org": None, "p5@example.org": 2}
    first = {r.to_address for r in rows(eng, OutboundMessage, game_id=game_id)
             if r.kind in {"prompt", "game_started"}}
    assert first == {"p1@example.org", "p3@example.org", "p5@example.org"}

    play_until(eng, game_id, now, random.Random(3))  # every move through the service
    assert state_of(eng, game_id).over
    assert rows(eng, games.Game, id=game_id)[0].status == GameStatus.FINISHED


def test_a_forced_start_needs_two_players_who_joined(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3, start=False)
    join(eng, game_id, 1, now=now)
    with pytest.raises(games.WrongState, match="only 1 of 3 players joined Test game: "
                                               "a game needs 2"):
        start(eng, game_id, now)
    assert len(rows(eng, Seat, game_id=game_id)) == 3


def test_a_forced_start_of_a_game_never_invited_seats_everyone(
    eng: Engine, now: datetime
) -> None:
    game_id = db.run_transaction(lambda s: games.create_game(
        s, "quiet", [games.PlayerSpec("Ann", email="ann@example.org"),
                     games.PlayerSpec("Bob", email="bob@example.org")], now=now, seed=2).id, eng)
    assert game_id is not None
    result = start(eng, game_id, now)
    assert result.message == "quiet started with Ann, Bob"
    assert state_of(eng, game_id).names == ("Ann", "Bob")
    assert rows(eng, games.Game, id=game_id)[0].status == GameStatus.RUNNING


def test_the_sweep_starts_a_game_whose_every_seat_joined_but_never_started(
    eng: Engine, now: datetime
) -> None:
    from pbm.sweep import sweep_deadlines

    game_id = new_game(eng, now, 3, start=False)
    with db.session_scope(eng) as session:  # every JOIN stored, the start lost (a crash)
        for seat in rows(eng, Seat, game_id=game_id):
            seat.invitation_status = "joined"
            session.add(seat)
    waiting = new_game(eng, now, 3, name="Still inviting", start=False)
    join(eng, waiting, 0, 1, now=now)

    report = db.run_transaction(lambda s: sweep_deadlines(s, now), eng)

    assert report.started_games == [game_id]
    with db.session_scope(eng, write=False) as session:
        assert games.get_game(session, game_id).status == GameStatus.RUNNING
        assert games.get_game(session, waiting).status == GameStatus.INVITING
    prompts = {m.seat for m in rows(eng, OutboundMessage, game_id=game_id)
               if m.kind in ("prompt", "game_started")}
    assert prompts == {0, 1, 2}, "every seat is told the game began"
    again = db.run_transaction(lambda s: sweep_deadlines(s, now), eng)
    assert again.started_games == []
