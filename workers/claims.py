"""Claiming outbox rows for sending: the one UPDATE ... RETURNING that takes them, its
extra columns (board picture, parts, an earlier unsent row), and the lease."""

from __future__ import annotations

import functools
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from pbm.config import Settings
from pbm.models import UNSENT, BoardImage, OutboundMessage, OutboundPart, OutboundStatus
from pbm.session_keys import CLAIMED_PNGS


def outbox_table() -> sa.Table:
    return OutboundMessage.__table__  # type: ignore[attr-defined, no-any-return]


def claim(session: Session, outbox_id: int, now: datetime, settings: Settings) -> Any | None:
    """Take the row for sending; None when it is sent, failed, or being sent by someone else."""
    rows = claim_many(session, [outbox_id], now, settings)
    return rows[0] if rows else None


def claim_many(session: Session, outbox_ids: list[int], now: datetime, settings: Settings
               ) -> list[Any]:
    """Take these rows for sending (one UPDATE), in id order: those not sent, failed, or
    being sent by someone else. The same statement reads each one's board picture (kept
    in ``session.info`` for ``board_png``)."""
    sqlite = session.get_bind().dialect.name == "sqlite"
    stale = now - timedelta(seconds=settings.outbox_lease_seconds)
    # a Row with the outbox columns and the extra ones (or a _Claimed standing for it)
    rows: list[Any] = sorted(session.execute(_claim_statement(sqlite),
                                  {"ids": list(outbox_ids), "now": now, "stale": stale}).all(),
                  key=lambda r: r.id)
    if rows and sqlite:
        earlier = _earlier_unsent_alone(session, rows, outbox_ids)  # one statement
        with_parts = _rows_with_parts(session, [row.id for row in rows])  # and one more
        rows = [_Claimed(row, earlier, row.id in with_parts) for row in rows]
    pngs: dict[str, bytes] = session.info.setdefault(CLAIMED_PNGS, {})
    for row in rows:
        if row.board_png is not None:
            pngs[row.board_image_key] = bytes(row.board_png)
    return rows



@functools.lru_cache(maxsize=2)
def _claim_statement(sqlite: bool) -> sa.Update:
    """The claim's UPDATE ... RETURNING, built once per process: its ids (``ids``), the
    time (``now``) and the lease's start (``stale``) are parameters."""
    table = outbox_table()
    ids: sa.BindParameter[list[int]] = sa.bindparam("ids", expanding=True)
    # SQLite (3.40) does not see the updated row's qualified columns in a RETURNING
    # subquery: there the order and parts are asked apart (the embedded default only)
    extra = () if sqlite else (_has_parts(table), _earlier_unsent_of(table, ids))
    lease_over = sa.or_(table.c.claimed_at < sa.bindparam("stale", type_=table.c.claimed_at.type),
                        table.c.claimed_at.is_(None))
    return (
        sa.update(table)
        .where(table.c.id.in_(ids))
        .where(sa.or_(table.c.status == OutboundStatus.PENDING,
                      sa.and_(table.c.status == OutboundStatus.SENDING, lease_over)))
        .values(status=OutboundStatus.SENDING, attempts=table.c.attempts + 1,
                claimed_at=sa.bindparam("now", type_=table.c.claimed_at.type))
        .returning(*table.c, _board_png_of(table), *extra)
    )


def _board_png_of(table: sa.Table) -> sa.Label[Any]:
    """The picture an outbox row names (``board-<game>-<version>``, a Korean reader's
    ``board-<game>-<version>-ko``), as a column."""
    boards = BoardImage.__table__  # type: ignore[attr-defined]
    suffix = sa.case((boards.c.language == "en", sa.literal("")),
                     else_=sa.literal("-") + boards.c.language)
    key = (sa.literal("board-") + sa.cast(boards.c.game_id, sa.String) + sa.literal("-")
           + sa.cast(boards.c.version, sa.String) + suffix)
    return sa.select(boards.c.png).where(
        boards.c.game_id == table.c.game_id, key == table.c.board_image_key
    ).scalar_subquery().label("board_png")


def _has_parts(table: sa.Table) -> sa.Label[Any]:
    """Whether an outbox row has extra parts (``OutboundPart``), as a column."""
    parts = OutboundPart.__table__  # type: ignore[attr-defined]
    return sa.exists().where(parts.c.outbox_id == _outer(table, "id")).label("has_parts")


def _outer(table: sa.Table, column: str) -> sa.ColumnElement[Any]:
    """A column of the updated row, qualified by hand: SQLite's RETURNING renders columns
    unqualified, which inside a subquery would name the subquery's own table."""
    return sa.literal_column(f"{table.name}.{column}", type_=table.c[column].type)


def _earlier_unsent_of(table: sa.Table, batch: Any) -> sa.Label[Any]:
    """As a column: an unsent row, outside ``batch``, made before this one for the same
    recipient (player, else address) and channel. A message never overtakes it."""
    other = table.alias("earlier")
    player, address = _outer(table, "player_id"), _outer(table, "to_address")
    same = sa.or_(sa.and_(player.is_not(None), other.c.player_id == player),
                  sa.and_(player.is_(None), other.c.to_address == address))
    return sa.select(sa.func.min(other.c.id)).where(
        same, other.c.channel == _outer(table, "channel"), other.c.id < _outer(table, "id"),
        other.c.id.not_in(batch), other.c.status.in_(UNSENT),
    ).scalar_subquery().label("earlier_unsent")


class _Claimed:
    """A claimed row whose ``earlier_unsent`` was asked separately (SQLite)."""

    def __init__(self, row: Any, earlier_unsent: int | None, has_parts: bool) -> None:
        self._row = row
        self.earlier_unsent = earlier_unsent
        self.has_parts = has_parts

    def __getattr__(self, name: str) -> Any:
        return getattr(self._row, name)


def _rows_with_parts(session: Session, ids: list[int]) -> set[int]:
    """Which of these outbox rows have extra parts (``_has_parts`` as a statement)."""
    parts = OutboundPart.__table__  # type: ignore[attr-defined]
    return set(session.execute(sa.select(parts.c.outbox_id).where(
        parts.c.outbox_id.in_(ids)).distinct()).scalars())


def _earlier_unsent_alone(session: Session, rows: list[Any], batch: list[int]) -> int | None:
    """``_earlier_unsent_of`` for all claimed rows at once, as a statement of its own."""
    table = outbox_table()
    before = [sa.and_((table.c.player_id == r.player_id) if r.player_id is not None
                      else (table.c.to_address == r.to_address),
                      table.c.channel == r.channel, table.c.id < r.id) for r in rows]
    found = session.execute(sa.select(sa.func.min(table.c.id)).where(
        sa.or_(*before), table.c.id.not_in(batch),
        table.c.status.in_(UNSENT))).scalar()
    return int(found) if found is not None else None


def lease_expired(table: sa.Table, now: datetime, settings: Settings) -> sa.ColumnElement[bool]:
    """The row's claim is older than the lease (or it has none: nobody can be waited for)."""
    stale = now - timedelta(seconds=settings.outbox_lease_seconds)
    return sa.or_(table.c.claimed_at < stale, table.c.claimed_at.is_(None))
