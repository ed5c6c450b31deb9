"""Fixtures of the service tests: a fresh, migrated database per test on SQLite and on
PostgreSQL, factories for players and games, and a fixed clock."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import select

import engine
from engine.simulate import random_command
from pbm import db, games
from pbm.models import Game
from tests.services import create_database, drop_database, migrated_template


@pytest.fixture(scope="session")
def migrated_postgres_template(postgres_url: str) -> str:
    """A database migrated to the newest revision, copied for each test (fast)."""
    return migrated_template(postgres_url)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[str]:
    """The URL of an empty database (no tables): a SQLite file, or a new PG database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'pbm.db'}"
        return
    server = request.getfixturevalue("postgres_url")
    url = create_database(server, "pbm_test")
    try:
        yield url
    finally:
        db.dispose_engines()
        drop_database(server, url)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[str]:
    """The URL of a fresh database at the newest revision (SQLite file or PG database)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'pbm.db'}"
        db.upgrade(url)
        yield url
        return
    server = request.getfixturevalue("postgres_url")
    url = create_database(
        server, "pbm_test", template=request.getfixturevalue("migrated_postgres_template"))
    try:
        yield url
    finally:
        db.dispose_engines()
        drop_database(server, url)


@pytest.fixture
def pg_db_url(postgres_url: str, migrated_postgres_template: str) -> Iterator[str]:
    """A fresh migrated PostgreSQL database only (for what SQLite cannot show)."""
    url = create_database(postgres_url, "pbm_test", template=migrated_postgres_template)
    try:
        yield url
    finally:
        db.dispose_engines()
        drop_database(postgres_url, url)


@pytest.fixture
def eng(db_url: str) -> Iterator[Engine]:
    """A SQLAlchemy engine on the migrated test database."""
    yield db.get_engine(db_url)
    db.dispose_engines()


@pytest.fixture
def now() -> datetime:
    """A fixed 'now' (a Monday noon UTC); tests move it forward by hand."""
    return datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


# ---------------------------------------------------------------- factories


def player_specs(n: int, *, sms_seats: tuple[int, ...] = ()) -> list[games.PlayerSpec]:
    """``n`` players, Player 1..n, with email (and a phone, preferring SMS, for
    ``sms_seats``)."""
    specs = []
    for i in range(n):
        if i in sms_seats:
            specs.append(games.PlayerSpec(f"Player {i + 1}", email=f"p{i + 1}@example.org",
                                          phone=f"+1555000{i + 1:04d}", channel="sms"))
        else:
            specs.append(games.PlayerSpec(f"Player {i + 1}", email=f"p{i + 1}@example.org"))
    return specs


def new_game(eng: Engine, now: datetime, n: int = 5, *, name: str = "Test game",
             seed: int = 7, start: bool = True, **kw: Any) -> int:
    """Create a game of ``n`` players, invite them, and (``start``) have everyone join."""
    sms_seats = kw.pop("sms_seats", ())
    game_id = db.run_transaction(lambda s: games.create_game(
        s, name, player_specs(n, sms_seats=sms_seats), now=now, seed=seed, **kw).id, eng)
    assert game_id is not None
    db.run_transaction(lambda s: games.invite(s, game_id, now=now), eng)
    if start:
        for seat in range(n):
            db.run_transaction(lambda s, seat=seat: games.respond(s, game_id, seat, join=True,
                                                                   now=now), eng)
    return int(game_id)


def state_of(eng: Engine, game_id: int) -> engine.GameState:
    with db.session_scope(eng, write=False) as session:
        return games.load_state(session.get(Game, game_id))  # type: ignore[arg-type]


def submit(eng: Engine, game_id: int, seat: int, command: Any, now: datetime,
           **kw: Any) -> games.Result:
    return db.run_transaction(lambda s: games.submit(s, game_id, seat, command,
                                                     origin=kw.pop("origin", "test"),
                                                     now=now, **kw), eng)


def rows(eng: Engine, model: Any, **where: Any) -> list[Any]:
    """Every row of ``model`` matching ``where`` (column == value), by id."""
    with db.session_scope(eng, write=False) as session:
        query = select(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return list(session.exec(query.order_by(model.id)))


def play_until(eng: Engine, game_id: int, now: datetime, rng: random.Random,
               stop: Callable[[engine.GameState], bool] = lambda s: s.over, *,
               prefer: Callable[[engine.Command], bool] | None = None,
               step: timedelta = timedelta(minutes=20), limit: int = 5000
               ) -> tuple[datetime, dict[tuple[int, str], tuple[str, datetime]]]:
    """Answer pending decisions with random legal commands through ``pbm.games`` until
    ``stop(state)``. Returns the clock and every decision seen: (seat, decision id) ->
    (kind, when it opened)."""
    opened: dict[tuple[int, str], tuple[str, datetime]] = {}
    for _ in range(limit):
        state = state_of(eng, game_id)
        for d in engine.pending(state):
            opened.setdefault((d.seat, state.decision_id(d.seat) or ""), (d.kind.value, now))
        if stop(state):
            return now, opened
        decision = rng.choice(engine.pending(state))
        choices = [c for c in decision.legal if prefer(c)] if prefer else []
        command = rng.choice(choices) if choices else random_command(rng, decision)
        now += step
        result = submit(eng, game_id, decision.seat, command, now)
        assert result.ok, result
    raise AssertionError("the game did not reach the stop condition")
