"""The ground every other module of ``pbm.games`` stands on: errors, ``Result``, lookups of
games, seats and state, stored events, and the deadlines of the open decisions.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import BindParameter, bindparam
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import object_session
from sqlalchemy.orm.attributes import manager_of_class
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, col, func, select
from sqlmodel.sql.expression import Select

import engine
from pbm import deadlines, txcache
from pbm.deadlines import INVITATION, TimingPolicy
from pbm.message_payloads import Timing
from pbm.models import (
    CommandLog,
    Deadline,
    Game,
    GameEvent,
    GameStatus,
    InvitationStatus,
    Player,
    Seat,
)
from pbm.txcache import seats_of as seats_of


class GameError(Exception):
    """A request the service refuses; ``str()`` is one line for a human."""

    code = "game/error"


class GameNotFound(GameError):
    code = "game/not_found"


class WrongState(GameError):
    code = "game/wrong_state"


class InvalidRequest(GameError):
    code = "request/invalid"


@dataclass
class Result:
    """What a request did, for the REPLY message and the CLI.

    ``done``: canonical commands applied; ``not_done``: [{command, reason, code}] refused;
    ``ignored``: commands not looked at after a refusal; ``why``: ``message`` as a stored
    reason (``Reason.to_dict()``) when a player reads it; ``awaiting``: this seat's open
    decisions now (``Decision.to_dict()``); ``waiting_for``: [{seat, number, name, kind}] of
    every seat the game waits for; ``events``: new events this seat may see.
    """

    ok: bool
    game_id: int
    game_name: str
    seat: int | None
    message: str
    code: str | None = None
    done: list[str] = field(default_factory=list)
    #: [{command, reason (English), code, why (the reason's stored form)}]
    not_done: list[dict[str, Any]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    awaiting: list[dict[str, Any]] = field(default_factory=list)
    waiting_for: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    game_status: str = ""
    state_version: int = 0
    notified: list[int] = field(default_factory=list)  # seats that got a message
    why: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def get_game(session: Session, ref: int | str) -> Game:
    """A game by id or by name (``GameNotFound`` otherwise)."""
    game: Game | None = None
    if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
        game = session.get(Game, int(ref))
    if game is None and isinstance(ref, str):
        game = session.exec(select(Game).where(Game.name == ref)).first()
    if game is None:
        raise GameNotFound(f"no game {ref!r} (see `pbm game list`)")
    return game


def lock_game(session: Session, game_id: int) -> Game:
    """Load a game for writing: row-locked on PostgreSQL, freshly read everywhere.

    Once per transaction (``pbm.txcache``): the lock holds until the end of it, so later
    calls return the same row. The same statement reads the numbers of the game's last
    command and event (``next_seq``), unless it had to wait for another writer."""
    entries = txcache.memo(session)
    cached = entries.get(("game", game_id))
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    # Uncontended (the usual case): lock and read the numbers in one statement. A statement
    # that waits for a row lock re-reads the locked row but not its subqueries (PostgreSQL,
    # READ COMMITTED), so when another writer holds the game, wait for it in a statement of
    # its own and read the numbers afresh after it (SQLite ignores both lock clauses).
    row = session.exec(_lock_statement(), params={"game_id": game_id}).first()
    if row is not None:
        game, commands, events = row
    else:
        waited = session.exec(
            select(Game).where(Game.id == game_id).with_for_update(of=Game)
            .execution_options(populate_existing=True)
        ).first()
        if waited is None:
            raise GameNotFound(f"no game {game_id!r} (see `pbm game list`)")
        game = waited
        last_command = select(func.max(CommandLog.seq)).where(CommandLog.game_id == game_id)
        last_event = select(func.max(GameEvent.seq)).where(GameEvent.game_id == game_id)
        commands, events = session.exec(
            select(last_command.scalar_subquery(), last_event.scalar_subquery())).one()
    _reread_after_lock(session, game_id)
    entries[("game", game_id)] = game
    entries[("seq", "command_log", game_id)] = int(commands or 0) + 1
    entries[("seq", "game_events", game_id)] = int(events or 0) + 1
    return game


@functools.cache
def _lock_statement() -> Select[Game, int | None, int | None]:
    """``lock_game``'s uncontended statement, built once per process (``game_id`` a
    parameter): the game row locked unless another writer holds it, and the numbers of
    its last command and event."""
    game_id: BindParameter[int] = bindparam("game_id")
    last_command = select(func.max(CommandLog.seq)).where(CommandLog.game_id == game_id)
    last_event = select(func.max(GameEvent.seq)).where(GameEvent.game_id == game_id)
    return (select(Game, last_command.scalar_subquery(), last_event.scalar_subquery())
            .where(Game.id == game_id)
            .with_for_update(of=Game, skip_locked=True)
            .execution_options(populate_existing=True))


def _reread_after_lock(session: Session, game_id: int) -> None:
    """Read again the game's seats (with their players) and deadlines that the session read
    before the game's lock was taken.

    A command's seats may be read before ``lock_game``; another writer may commit between
    that read and the lock: two JOINs at once each saw the other seat still invited, and
    nobody started the game. Every "are all X?" question must be asked of rows read under
    the lock. Seats of the game or players (of any game: one may sit at this one) held by
    the session come back in one statement (refreshing its objects in place); deadlines
    held are read again on next use; with none held, the seats are read on first use."""
    held = [obj for obj in session.identity_map.values()
            if isinstance(obj, Player) or (isinstance(obj, Seat | Deadline)
                                           and obj.game_id == game_id)]
    txcache.forget_game(session, game_id)
    if not held:
        return  # the seats are read on first use, after the lock
    for deadline in (d for d in held if isinstance(d, Deadline)):
        session.expire(deadline)
    if any(isinstance(s, Seat | Player) for s in held):  # a player: of this game, maybe
        txcache.seats_of(session, game_id, fresh=True)


def load_state(game: Game) -> engine.GameState:
    """The engine state of a started game.

    Parsed once per transaction (``pbm.txcache``, keyed by the snapshot text itself: a
    game whose ``state_json`` changed is parsed again); ``save_state`` remembers the state
    it saved. The service never changes a loaded state in place without saving it."""
    if not game.state_json:
        raise WrongState(f"game {game.name!r} has not started")
    session = object_session(game)
    if session is None:
        return engine.from_json(game.state_json)
    entries = txcache.memo(session)
    cached = entries.get(("state", game.id))
    if cached is not None and (cached[0] is game.state_json or cached[0] == game.state_json):
        return cached[1]  # type: ignore[no-any-return]
    state = engine.from_json(game.state_json)
    entries[("state", game.id)] = (game.state_json, state)
    return state


def policy_of(game: Game) -> TimingPolicy:
    return TimingPolicy.from_json(game.timing_json)


def options_of(game: Game) -> engine.GameOptions:
    return engine.GameOptions.from_dict(json.loads(game.options_json or "{}"))


def seat_of(session: Session, game_id: int, seat_index: int) -> tuple[Seat, Player]:
    for seat, player in seats_of(session, game_id):
        if seat.seat_index == seat_index:
            return seat, player
    raise InvalidRequest(f"no seat {seat_index + 1} in this game")


def find_seat_by_token(session: Session, token: str) -> Seat | None:
    """The seat a reply token names (routing of replies), or None. Its game's seats and
    players come in the same statement (remembered for ``seats_of``)."""
    token = token.strip().lower()
    pairs = [(s, p) for s, p in session.exec(_token_statement(), params={"token": token}).all()]
    if not pairs:
        return None
    txcache.memo(session)[("seats", pairs[0][0].game_id)] = pairs
    return next((s for s, _ in pairs if s.reply_token == token), None)


@functools.cache
def _token_statement() -> Any:
    """``find_seat_by_token``'s statement, built once per process (``token`` a parameter)."""
    same_game = select(Seat.game_id).where(Seat.reply_token == bindparam("token")
                                           ).scalar_subquery()
    return (select(Seat, Player)
            .where(Seat.game_id == same_game, Seat.player_id == Player.id)
            .order_by(col(Seat.seat_index)))


def next_seq(session: Session, model: type[CommandLog] | type[GameEvent], game_id: int) -> int:
    """The next free ``seq`` of the game's command log or events (``lock_game`` read it;
    ``pbm.txcache`` moves it on as rows are flushed)."""
    txcache.flush_pending(session, model)
    key = ("seq", model.__tablename__, game_id)
    entries = txcache.memo(session)
    if key not in entries:
        current = session.exec(
            select(func.max(model.seq)).where(model.game_id == game_id)
        ).one()
        entries[key] = int(current or 0) + 1
    return int(entries[key])


def record_events(
    session: Session,
    game: Game,
    events: Iterable[engine.Event],
    *,
    now: datetime,
    command_seq: int | None = None,
    state_version: int | None = None,
) -> list[GameEvent]:
    """Store events with their audience; returns the stored rows (what the session had
    pending is flushed first, as before)."""
    version = game.state_version if state_version is None else state_version
    session.flush()
    return insert_events(session, game, [(e, command_seq, version) for e in events], now=now)


def insert_events(session: Session, game: Game,
                  events: Sequence[tuple[engine.Event, int | None, int]], *, now: datetime,
                  commands: Sequence[Mapping[str, Any]] = ()) -> list[GameEvent]:
    """Store events (each with the ``command_seq`` that made it and its state version) and
    the ``commands`` (command log rows: mappings of their columns but the id) that made
    them, without the unit of work: on PostgreSQL one statement (``_move_statement``: the
    command log's INSERT in a CTE of the events' INSERT ... RETURNING seq, id), elsewhere
    one executemany per table. Returns the stored events as this session's objects, made
    as a SELECT makes them (``pbm.txcache`` learns the rows)."""
    assert game.id is not None
    if now.tzinfo is None:  # as ``UTCDateTime`` refuses it (these writes bypass the type)
        raise ValueError(f"naive datetime {now!r}: pass an aware UTC time")
    seq = next_seq(session, GameEvent, game.id)
    values: list[dict[str, Any]] = []
    for i, (event, command_seq, version) in enumerate(events):
        audience = None if event.audience is None else ",".join(
            str(s) for s in sorted(event.audience))
        values.append({
            "game_id": game.id, "seq": seq + i, "command_seq": command_seq,
            "kind": event.kind, "text": event.text, "audience": audience,
            "data_json": json.dumps(dict(event.data), default=str, sort_keys=True),
            "state_version": version, "created_at": now})
    connection = session.connection()
    if not values:
        if commands:
            connection.execute(_insert_statement(CommandLog), list(commands))
        found: dict[int, int] = {}
    elif commands and connection.dialect.name == "postgresql":
        params = {f"c_{c.name}": [row[c.name] for row in commands] for c in _columns(CommandLog)}
        params.update({f"e_{c.name}": [row[c.name] for row in values]
                       for c in _columns(GameEvent)})
        found = {seq: row_id for seq, row_id in connection.execute(_move_statement(), params)}
    else:
        if commands:
            connection.execute(_insert_statement(CommandLog), list(commands))
        found = {seq: row_id for seq, row_id in connection.execute(
            _insert_statement(GameEvent), values)}
    txcache.inserted(session, commands)
    new = manager_of_class(GameEvent).new_instance
    rows = []
    for row_values in values:
        row: GameEvent = new()
        row.__dict__.update(row_values, id=found[row_values["seq"]])  # as loaded
        rows.append(row)
    txcache.as_loaded(session, rows)  # persistent, in the identity map (a SELECT finds them)
    txcache.inserted(session, rows)
    return rows


def _columns(model: type[CommandLog] | type[GameEvent]) -> list[sa.Column[Any]]:
    """The table's columns but the id."""
    table: sa.Table = model.__table__  # type: ignore[union-attr]
    return [c for c in table.columns if c.name != "id"]


@functools.lru_cache(maxsize=2)
def _insert_statement(model: type[CommandLog] | type[GameEvent]) -> Any:
    """An INSERT of ``model``'s rows (executemany), built once per process; for events it
    returns (seq, id)."""
    table: sa.Table = model.__table__  # type: ignore[union-attr]
    statement = sa.insert(table)
    return statement.returning(table.c.seq, table.c.id) if model is GameEvent else statement


@functools.cache
def _move_statement() -> sa.TextClause:
    """PostgreSQL: ``WITH logged AS (INSERT INTO command_log SELECT * FROM unnest(...))
    INSERT INTO game_events SELECT * FROM unnest(...) RETURNING seq, id``: each column's
    values as one array parameter (``c_<column>``, ``e_<column>``), so one statement of one
    shape, built and prepared once per process, writes any number of rows."""
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]

    def insert(model: type[CommandLog] | type[GameEvent], prefix: str) -> str:
        columns = _columns(model)
        arrays = ", ".join(f"CAST(:{prefix}_{c.name} AS {c.type.compile(dialect=dialect)}[])"
                           for c in columns)
        return (f"INSERT INTO {model.__tablename__} ({', '.join(c.name for c in columns)}) "
                f"SELECT * FROM unnest({arrays})")

    return sa.text(f"WITH logged AS ({insert(CommandLog, 'c')}) {insert(GameEvent, 'e')} "
                   "RETURNING seq, id")


def service_event(kind_: str, sentence: str, audience_: Iterable[int] | None = None,
                   **data: Any) -> engine.Event:
    return engine.Event(kind_, sentence, None if audience_ is None else frozenset(audience_),
                        data)


def save_state(game: Game, state: engine.GameState, now: datetime) -> None:
    game.state_json = engine.to_json(state)
    session = object_session(game)
    if session is not None:  # the next ``load_state`` of this transaction needs no parse
        txcache.memo(session)[("state", game.id)] = (game.state_json, state)
    game.state_version = state.version
    game.updated_at = now


def write_state(session: Session, game: Game, state: engine.GameState, now: datetime) -> None:
    """``save_state``, written at once without the unit of work when the game has no other
    change pending: one ``UPDATE games ... WHERE id = :game_id AND version = :version`` on
    the session's connection, with the check the ORM makes of ``Game.version`` (a stale
    writer fails with ``StaleDataError``, as at a flush); the game then holds the new values
    as loaded. A game with other changes pending is saved as ``save_state`` does (written
    by its next flush, with them)."""
    if game.id is None or sa.inspect(game).modified:
        save_state(game, state, now)
        session.add(game)
        return
    values = {"state_json": engine.to_json(state), "state_version": state.version,
              "updated_at": now, "version": game.version + 1}
    matched = session.connection().execute(
        _state_statement(), {**values, "game_id": game.id, "old_version": game.version}
    ).rowcount
    if matched != 1:
        raise StaleDataError(f"UPDATE statement on table 'games' expected to update 1 "
                             f"row(s); {matched} were matched.")
    game.__dict__.update(values)  # as loaded: nothing left for a flush
    txcache.memo(session)[("state", game.id)] = (values["state_json"], state)


@functools.cache
def _state_statement() -> sa.Update:
    """``write_state``'s UPDATE, built once per process (its values are parameters)."""
    table: sa.Table = Game.__table__  # type: ignore[attr-defined]
    c = table.c
    return sa.update(table).where(
        c.id == bindparam("game_id"), c.version == bindparam("old_version")).values(
        state_json=bindparam("state_json", type_=c.state_json.type),
        state_version=bindparam("state_version", type_=c.state_version.type),
        updated_at=bindparam("updated_at", type_=c.updated_at.type),
        version=bindparam("version", type_=c.version.type))


def waiting_for(session: Session, game: Game, state: engine.GameState | None = None
                ) -> list[dict[str, Any]]:
    """[{seat, number, name, kind}] of every seat the game is waiting for now."""
    if game.status in {GameStatus.CREATED, GameStatus.INVITING}:
        return [
            {"seat": s.seat_index, "number": s.seat_index + 1, "name": p.display_name,
             "kind": INVITATION}
            for s, p in seats_of(session, game.id)  # type: ignore[arg-type]
            if s.invitation_status != InvitationStatus.JOINED
        ]
    if state is None and game.state_json:
        state = load_state(game)
    if state is None or state.over:
        return []
    names = {s.seat_index: p.display_name for s, p in seats_of(session, game.id)}  # type: ignore[arg-type]
    return [
        {"seat": d.seat, "number": d.seat + 1, "name": names.get(d.seat, state.names[d.seat]),
         "kind": d.kind.value}
        for d in engine.pending(state)
    ]


def make_result(session: Session, game: Game, seat: int | None, *, ok: bool, message: str,
                state: engine.GameState | None = None, **kw: Any) -> Result:
    if state is None and game.state_json:
        state = load_state(game)
    awaiting = []
    if state is not None and seat is not None and not state.over:
        awaiting = [d.to_dict() for d in engine.pending(state) if d.seat == seat]
    return Result(
        ok=ok, game_id=game.id, game_name=game.name, seat=seat,  # type: ignore[arg-type]
        message=message, awaiting=awaiting, waiting_for=waiting_for(session, game, state),
        game_status=game.status, state_version=game.state_version, **kw,
    )


def due_at_of(session: Session, game_id: int, seat: int) -> datetime | None:
    open_ = [d for d in deadlines.open_deadlines(session, game_id, seat=seat)
             if d.kind != INVITATION]
    return open_[0].due_at if open_ else None


def sync_deadlines(session: Session, game: Game, state: engine.GameState,
                    policy: TimingPolicy, now: datetime) -> None:
    """Open and close the game's decision deadlines to match ``state`` (written at once,
    ``pbm.deadlines.sync_decision_deadlines``), then flush whatever else is pending."""
    zones = {s.seat_index: p.time_zone for s, p in seats_of(session, game.id)}  # type: ignore[arg-type]
    decisions = [(d.seat, state.decision_id(d.seat) or "", d.kind.value)
                 for d in engine.pending(state)]
    deadlines.sync_decision_deadlines(  # new ones held for AWAY seats, in their own QUIET hours
        session, game, decisions, policy, lambda seat: zones.get(seat, "UTC"), now,
        adjust=lambda created: hold_new_deadlines(session, game, created, now))
    session.flush()


def hold_new_deadlines(session: Session, game: Game, created: list[Deadline],
                       now: datetime) -> None:
    """Deadlines opened for a seat that is away wait until it is back (already counted in
    its allowance when it went away); reminders keep the player's own quiet hours."""
    if not created:
        return
    policy = policy_of(game)
    seats = {s.seat_index: (s, p) for s, p in seats_of(session, game.id)}  # type: ignore[arg-type]
    for deadline in created:
        if deadline.seat not in seats:
            continue
        seat, player = seats[deadline.seat]
        held = seat.away_until is not None and seat.away_until > now
        own_quiet = player.quiet_start is not None
        if held:
            deadline.due_at += seat.away_until - now  # type: ignore[operator]
        if held or own_quiet:
            deadline.next_reminder_at = deadlines.next_reminder(
                deadline, deadlines.quiet_policy(policy, player), player.time_zone,
                seat.away_until if held else now)  # type: ignore[arg-type]


def timing_of(policy: TimingPolicy) -> Timing:
    """How long a game's players get per decision, as its invitation says."""
    return Timing(action_hours=policy.hours_for("ACTION"), vote_hours=policy.hours_for("VOTE"),
                  other_hours=policy.hours_for("CHOOSE"), away_hours=policy.away_hours)
