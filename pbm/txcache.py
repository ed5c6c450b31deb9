"""Reads remembered for one transaction, so a reply's processing asks the database once.

Applying one reply reads the same things many times over: the game's seats and players
(every message lists them), its open deadlines (every message shows one), the locked game
row, the next command and event numbers, whether this version's board picture is stored.
``pbm.games``, ``pbm.outbox`` and ``pbm.sweep`` remember these in ``session.info`` under
keys such as ``("seats", game_id)`` and read them from there until the transaction ends.

The memo stays true to the database because everything it holds is a row object of this
session (the same object a fresh query would return from the identity map) and:

- it is forgotten whenever a transaction of the session ends (commit, rollback, savepoint);
- rows this session inserts are added to it at flush, rows it deletes removed
  (``after_flush``), so a memo of open deadlines or events includes the new ones;
- a statement run through ``session.execute`` that writes a remembered table (a bulk
  UPDATE, a Core INSERT) forgets that table's entries;
- a write on ``session.connection()`` bypasses the session's events: its writer gives the
  rows it inserted to ``inserted`` (the command log and events of a move, the outbox and
  board picture rows), which learns them as a flush would.

Writes by other transactions are no concern inside a transaction that holds the game's row
lock (``pbm.games.lock_game``), which every writer of a game takes first.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from sqlalchemy import bindparam, event
from sqlalchemy.orm import (
    ORMExecuteState,
    Session,
    SessionTransaction,
    UOWTransaction,
    make_transient,
    make_transient_to_detached,
)
from sqlmodel import Session as ModelSession
from sqlmodel import col, select
from sqlmodel.sql.expression import Select

from pbm.models import BoardImage, CommandLog, Deadline, GameEvent, Player, Seat

KEY = "pbm.txcache"
T = TypeVar("T")
_installed = False  # the listeners below (``install``)

#: the memo kinds that hold rows of each table (a write to the table forgets them)
_KINDS_OF_TABLE = {
    "seats": ("seats",), "players": ("seats",), "deadlines": ("deadlines",),
    "games": ("game",), "game_events": ("events", "seq", "ledger"),
    "command_log": ("seq", "last_command"),
    "board_images": ("board",),
}
_UNTRACKED_TABLES = frozenset({"inbound_messages", "outbound_messages"})


class ListenersMissing(RuntimeError):
    """The memo was asked for before its listeners were installed: it could serve rows
    this transaction has since changed."""


def memo(session: Session) -> dict[tuple[Any, ...], Any]:
    """This transaction's memo (empty at the start of every transaction)."""
    if not _installed:
        raise ListenersMissing("pbm.txcache needs its Session listeners: build the engine "
                               "with pbm.db (make_engine, get_engine) or call "
                               "pbm.db.install_session_hooks() at start-up")
    return session.info.setdefault(KEY, {})  # type: ignore[no-any-return]


def remember(session: Session, key: tuple[Any, ...], load: Callable[[], T]) -> T:
    """The value remembered under ``key``, or ``load()`` remembered."""
    entries = memo(session)
    if key not in entries:
        entries[key] = load()
    return entries[key]  # type: ignore[no-any-return]


def forget(session: Session, *kinds: str) -> None:
    """Forget the entries of these kinds (every entry if none is named)."""
    entries = session.info.get(KEY)
    if not entries:
        return
    if not kinds:
        entries.clear()
        return
    for key in [k for k in entries if k[0] in kinds]:
        del entries[key]


def forget_game(session: Session, game_id: int) -> None:
    """Forget the rows of one game this transaction remembered (its seats, deadlines and
    events), e.g. once its lock is taken and rows read before may be stale."""
    entries = session.info.get(KEY)
    if not entries:
        return
    for key in [k for k in entries
                if k[0] in ("seats", "deadlines", "events", "ledger") and len(k) > 1
                and k[1] == game_id]:
        del entries[key]


def flush_pending(session: Session, model: type) -> None:
    """Flush first when rows of ``model`` wait to be inserted (a query would autoflush them;
    the memo learns about them at flush)."""
    if session.autoflush and any(isinstance(obj, model) for obj in session.new):
        session.flush()


# ------------------------------------------------------------------------------ keeping it true


def _after_flush(session: Session, _flush: UOWTransaction) -> None:
    entries = session.info.get(KEY)
    if not entries:
        return
    for obj in session.new:
        _note_new(session, entries, obj)
    for obj in session.deleted:
        table = getattr(obj, "__tablename__", None)
        if table in _KINDS_OF_TABLE:
            forget(session, *_KINDS_OF_TABLE[table])


def as_loaded(session: Session, rows: Iterable[Any]) -> None:
    """Objects whose rows a Core statement on ``session.connection()`` just wrote (their
    ids set): this session's persistent objects with no change pending, as a SELECT makes
    them; one already in the session is taken out first, its pending history with it."""
    for row in rows:
        if row in session:
            session.expunge(row)
            make_transient(row)
        make_transient_to_detached(row)
        session.add(row)


def inserted(session: Session, rows: Iterable[Any]) -> None:
    """Rows this session just inserted without a flush (a Core INSERT on
    ``session.connection()``): the memo learns them as a flush would have told it. A
    command log row may be given as its ``CommandLog`` or as a mapping of its columns."""
    entries = session.info.get(KEY)
    if not entries:
        return
    for row in rows:
        _note_new(session, entries, row)


def _note_new(session: Session, entries: dict[tuple[Any, ...], Any], obj: Any) -> None:
    if isinstance(obj, Mapping):  # a command log row written by a Core INSERT
        _note_command(entries, obj["game_id"], obj["seq"], obj["seat"], obj["command"])
    elif isinstance(obj, Seat | Player):
        forget(session, "seats")
    elif isinstance(obj, Deadline):
        rows = entries.get(("deadlines", obj.game_id))
        if rows is not None:
            rows.append(obj)
    elif isinstance(obj, GameEvent):
        entries.pop(("ledger", obj.game_id), None)  # vote ledgers read it again
        cached = entries.get(("events", obj.game_id))
        if cached is not None and obj.seq > cached[0]:
            cached[1].append(obj)
            cached[1].sort(key=lambda e: e.seq)
        _bump(entries, ("seq", "game_events", obj.game_id), obj.seq)
    elif isinstance(obj, CommandLog):
        _note_command(entries, obj.game_id, obj.seq, obj.seat, obj.command)
    elif isinstance(obj, BoardImage):
        entries[("board", obj.game_id, obj.version, obj.language)] = True


def _note_command(entries: dict[tuple[Any, ...], Any], game_id: int, seq: int, seat: int,
                  command: str) -> None:
    _bump(entries, ("seq", "command_log", game_id), seq)
    key = ("last_command", game_id, seat)
    if entries.get(key, (-1, ""))[0] < seq:  # the seat's newest command
        entries[key] = (seq, command)


def _bump(entries: dict[tuple[Any, ...], Any], key: tuple[Any, ...], seq: int) -> None:
    if key in entries:
        entries[key] = max(entries[key], seq + 1)


def _on_execute(state: ORMExecuteState) -> None:
    if state.is_select or not state.session.info.get(KEY):
        return
    table = getattr(state.statement, "table", None)
    name = getattr(table, "name", None)
    if name in _UNTRACKED_TABLES:
        return
    if name in _KINDS_OF_TABLE:
        forget(state.session, *_KINDS_OF_TABLE[name])
    else:
        forget(state.session)  # some other write: forget everything, to be safe


def _after_transaction_end(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is not None and not transaction.nested:
        return  # the inner span of a flush, not the end of a transaction
    session.info.pop(KEY, None)


def install() -> None:
    """Install the listeners that keep every session's memo true (once per process;
    ``pbm.db.install_session_hooks`` calls it)."""
    global _installed
    if _installed:
        return
    event.listen(Session, "after_flush", _after_flush)
    event.listen(Session, "do_orm_execute", _on_execute)
    event.listen(Session, "after_transaction_end", _after_transaction_end)
    _installed = True


def seats_of(session: ModelSession, game_id: int, *, fresh: bool = False
             ) -> list[tuple[Seat, Player]]:
    """The game's seats with their players, in seat order (read once per transaction;
    ``fresh``: read now, the session's objects refreshed from the database)."""
    flush_pending(session, Seat)
    cached: list[tuple[Seat, Player]] | None = \
        None if fresh else memo(session).get(("seats", game_id))
    if cached is not None and all(s.player_id == p.id for s, p in cached):
        return list(cached)
    rows = session.exec(_seats_statement(fresh), params={"game_id": game_id}).all()
    pairs = [(s, p) for s, p in rows]
    memo(session)[("seats", game_id)] = pairs
    return list(pairs)


@functools.lru_cache(maxsize=2)
def _seats_statement(fresh: bool) -> Select[Seat, Player]:
    """``seats_of``'s statement (``game_id`` a parameter), built once per process."""
    return (select(Seat, Player)
            .where(Seat.game_id == bindparam("game_id"), Seat.player_id == Player.id)
            .order_by(col(Seat.seat_index))
            .execution_options(populate_existing=fresh))
