"""Rows written once: an outbox or board picture row INSERTed unless its unique key is
there already (``ON CONFLICT DO NOTHING``: one statement, no check first), then held by the
session as loaded (``pbm.txcache``)."""

from __future__ import annotations

import functools
from typing import Any, TypeVar

import sqlalchemy as sa
from pydantic_core import PydanticUndefined
from sqlalchemy.orm.attributes import manager_of_class
from sqlmodel import Session, SQLModel

from pbm import txcache
from pbm.models import BoardImage, OutboundMessage
from pbm.session_keys import NEW_OUTBOX_IDS


def insert_row_once(session: Session, row: OutboundMessage | BoardImage, unique: list[str]
                 ) -> bool:
    """INSERT ``row`` unless a row with the same ``unique`` columns exists (ON CONFLICT DO
    NOTHING: one statement, no check first); True if inserted, and the row is then this
    session's with its id."""
    dialect = session.get_bind().dialect.name
    statement, names = _insert_statement(dialect, type(row), tuple(unique))
    # on the session's connection: no autoflush (the seats this transaction told are written
    # together at its next flush, not one UPDATE before each message) and no ORM layer; the
    # memo learns a picture below (``txcache.inserted``), an outbox row it does not keep
    new_id = session.connection().execute(
        statement, {name: getattr(row, name) for name in names}).scalar()
    if new_id is None:
        return False
    row.id = int(new_id)
    txcache.as_loaded(session, [row])
    txcache.inserted(session, [row])
    if isinstance(row, OutboundMessage):
        session.info.setdefault(NEW_OUTBOX_IDS, []).append(row.id)
    return True


_Row = TypeVar("_Row", OutboundMessage, BoardImage)


def new_row(model: type[_Row], values: dict[str, Any]) -> _Row:
    """A new ``model`` row for ``insert_row_once`` holding ``values``, every other field at
    its default, made as a SELECT makes a row object: SQLModel's constructor sets each field
    through the ORM's instrumentation (about 100 us for an outbox row), whose history a row
    written by a Core INSERT and then held as loaded never needs. ``model_dump`` gives what
    the constructor's row gives."""
    row = manager_of_class(model).new_instance()
    fields = row.__dict__
    for name, default in _defaults(model).items():
        if name not in values:
            fields[name] = default() if callable(default) else default
    fields.update(values)
    object.__setattr__(row, "__pydantic_fields_set__", set(values))
    return row


@functools.cache
def _defaults(model: type[SQLModel]) -> dict[str, Any]:
    """``model``'s field defaults (a default factory as itself, to be called)."""
    return {name: field.default_factory or field.default
            for name, field in model.model_fields.items()
            if field.default_factory is not None or field.default is not PydanticUndefined}


@functools.lru_cache(maxsize=16)
def _insert_statement(dialect: str, model: type[SQLModel], unique: tuple[str, ...]
                      ) -> tuple[Any, tuple[str, ...]]:
    """``INSERT ... ON CONFLICT (unique) DO NOTHING RETURNING id`` of every column but
    the id, built once per process (its values are parameters): building the statement
    anew for each row was most of the cost of writing one."""
    if dialect == "postgresql":
        # here: the dialect's INSERT, chosen at run time
        from sqlalchemy.dialects.postgresql import insert
    else:
        # here: the dialect's INSERT, chosen at run time
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
    # SQLModel gives a table model its __table__ at class creation; its types do not say so
    table: sa.Table = model.__table__  # type: ignore[attr-defined]
    names = tuple(c.name for c in table.columns if c.name != "id")
    statement = insert(table).values({name: sa.bindparam(name, type_=table.c[name].type)
                                      for name in names})
    return (statement.on_conflict_do_nothing(index_elements=list(unique))
            .returning(table.c.id), names)


def insert_once(session: Session, row: OutboundMessage) -> bool:
    """Add an outbox row unless one with its dedupe key exists, in one statement (two
    transactions writing the same key at once: one row, no error); True if added.

    THE ONE WAY an outgoing row is written (``notify``, ``alert_admin``, the inbound
    answers, the delivery worker's email copy of a refused SMS): each new row's id is
    remembered for the commit hook that enqueues it."""
    return insert_row_once(session, row, ["dedupe_key"])


