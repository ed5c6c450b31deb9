"""Storing raw messages once per provider id, and each row's life after: claims with a
lease, quarantine, requeue, finishing, and the relay of rows nobody processed."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

import sqlalchemy as sa
from sqlmodel import Session

from pbm.config import Settings, get_settings
from pbm.db import run_transaction
from pbm.hygiene import clean_line, clean_text
from pbm.inbound.mail_headers import (
    email_address,
    email_provider_id,
    encode_raw,
    header,
    parse_headers,
    recipient_addresses,
)
from pbm.models import InboundMessage, InboundStatus
from pbm.outbox import alert_admin

log = logging.getLogger(__name__)


EMAIL = "email"
SMS = "sms"


@dataclass(frozen=True)
class Stored:
    """The stored row's id, and whether this delivery created it (False: a duplicate)."""

    id: int
    created: bool


def store(session: Session, *, channel: str, provider_id: str, sender: str, recipient: str,
          raw: str, now: datetime) -> Stored:
    """Insert one inbound row unless the provider id is already there; commit is the caller's."""
    table = InboundMessage.__table__  # type: ignore[attr-defined]
    provider_id = clean_line(provider_id)[:255] or "sha256:" + hashlib.sha256(
        raw.encode("utf-8", "surrogatepass")).hexdigest()
    values = {"channel": channel, "provider_message_id": provider_id,
              "sender": clean_line(sender)[:320], "recipient": clean_line(recipient)[:320],
              "raw": raw,
              "received_at": now, "status": InboundStatus.NEW.value, "attempts": 0}
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        # here: the dialect's INSERT, chosen at run time
        from sqlalchemy.dialects.postgresql import insert
    else:
        # here: the dialect's INSERT, chosen at run time
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
    statement = insert(table).values(**values).on_conflict_do_nothing(
        index_elements=["channel", "provider_message_id"]).returning(table.c.id)
    new_id = session.execute(statement).scalar()
    if new_id is not None:
        return Stored(int(new_id), True)
    existing = session.execute(
        sa.select(table.c.id).where(table.c.channel == channel,
                                    table.c.provider_message_id == provider_id)
    ).scalar_one()
    return Stored(int(existing), False)


def store_email(session: Session, raw: bytes, now: datetime) -> Stored:
    """Keep one raw email (from IMAP or the webhook), once per Message-ID (its headers are
    all that is read here)."""
    message = parse_headers(raw)
    settings = get_settings()
    recipients = recipient_addresses(message)
    domain = "@" + settings.mail_domain.lower()
    ours = [a for a in recipients if a.endswith(domain)]
    return store(session, channel=EMAIL, provider_id=email_provider_id(message, raw),
                 sender=email_address(header(message, "From")),
                 recipient=(ours or recipients or [""])[0], raw=encode_raw(raw), now=now)


def store_sms(session: Session, form: Mapping[str, str], now: datetime) -> Stored:
    """Keep one inbound SMS webhook (Twilio's form fields), once per MessageSid."""
    sid = str(form.get("MessageSid") or form.get("SmsSid") or "")
    raw = json.dumps(dict(form), sort_keys=True)
    if not sid:
        sid = "sha256:" + hashlib.sha256(raw.encode()).hexdigest()
    return store(session, channel=SMS, provider_id=sid, sender=str(form.get("From", "")),
                 recipient=str(form.get("To", "")), raw=raw, now=now)


#: a message whose processing was started this many times without finishing (the worker
#: died each time) is quarantined instead of being tried again
MAX_PROCESS_ATTEMPTS = 5


class InboundRow(Protocol):
    """A row of the inbound table as the pipeline reads it (a Core row with
    ``InboundMessage``'s columns, not the ORM object)."""

    @property
    def id(self) -> int: ...
    @property
    def channel(self) -> str: ...
    @property
    def sender(self) -> str: ...
    @property
    def player_id(self) -> int | None: ...
    @property
    def received_at(self) -> datetime: ...
    @property
    def attempts(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def raw(self) -> str: ...


def inbound_table() -> sa.Table:
    return InboundMessage.__table__  # type: ignore[attr-defined, no-any-return]


def claim_inbound(session: Session, inbound_id: int, now: datetime, settings: Settings
                  ) -> InboundRow | None:
    """``new`` -> ``processing`` with a lease (``claimed_at``); ``processed_at`` is set only
    when the message is finished (done, ignored or quarantined)."""
    stale = now - timedelta(seconds=settings.outbox_lease_seconds)
    return session.execute(_claim_statement(),
                           {"inbound_id": inbound_id, "now": now, "stale": stale}).first()


@functools.cache
def _claim_statement() -> sa.Update:
    """``claim_inbound``'s UPDATE, built once per process (its values are parameters)."""
    table = inbound_table()
    when = table.c.claimed_at.type
    return (
        sa.update(table)
        .where(table.c.id == sa.bindparam("inbound_id"))
        .where(sa.or_(table.c.status == InboundStatus.NEW,
                      sa.and_(table.c.status == InboundStatus.PROCESSING,
                              sa.or_(table.c.claimed_at < sa.bindparam("stale", type_=when),
                                     table.c.claimed_at.is_(None)))))
        .values(status=InboundStatus.PROCESSING, attempts=table.c.attempts + 1,
                claimed_at=sa.bindparam("now", type_=when))
        .returning(table.c.id, table.c.attempts)
    )


def _lease_expired(table: sa.Table, now: datetime, settings: Settings
                   ) -> sa.ColumnElement[bool]:
    """The claim is older than the lease (or there is none: nobody can be waited for)."""
    stale = now - timedelta(seconds=settings.outbox_lease_seconds)
    return sa.or_(table.c.claimed_at < stale, table.c.claimed_at.is_(None))


def release_claim(inbound_id: int) -> None:
    """Give a claimed row back after a transient failure (best effort: the lease expires)."""
    table = inbound_table()
    try:
        run_transaction(lambda s: s.execute(
            sa.update(table)
            .where(table.c.id == inbound_id, table.c.status == InboundStatus.PROCESSING)
            .values(status=InboundStatus.NEW)), attempts=2)
    except Exception as exc:
        log.warning("could not release inbound %s: %s", inbound_id, exc)


def quarantine(inbound_id: int, error: str, now: datetime) -> None:
    """Keep a message the service could not process aside, with its error; tell the admin."""
    table = inbound_table()
    error = clean_text(error)

    def work(session: Session) -> None:
        session.execute(sa.update(table).where(table.c.id == inbound_id).values(
            status=InboundStatus.QUARANTINED, error=error[:4000], processed_at=now))
        alert_admin(session, None, f"inbound message #{inbound_id} quarantined",
                    f"Inbound message #{inbound_id} could not be processed and was set "
                    f"aside:\n\n{error[:2000]}\n\nSee the quarantine page of the admin site.",
                    now=now, dedupe=f"quarantine:{inbound_id}")

    run_transaction(work)


class RequeueError(ValueError):
    """A message that cannot go back in line (unknown, or not quarantined)."""


def requeue(session: Session, inbound_id: int) -> list[int]:
    """Put a quarantined message back in line (its last error stays for the record);
    returns the ids for the caller to enqueue after the commit."""
    message = session.get(InboundMessage, inbound_id, with_for_update=True)
    if message is None:
        raise RequeueError(f"no inbound message {inbound_id}")
    if message.status != InboundStatus.QUARANTINED:
        raise RequeueError(f"message {inbound_id} is {message.status}, not quarantined")
    message.status = InboundStatus.NEW
    message.attempts = 0  # else one that killed workers would be quarantined again at once
    session.add(message)
    return [inbound_id]


def finish(session: Session, inbound_id: int, status: str, now: datetime, *,
            error: str | None = None, game_id: int | None = None,
            seat: int | None = None) -> None:
    """Mark the inbound row done with ``status``: on the session's connection (the
    processing reads and writes the row as Core, never as an ORM object, so nothing
    pending needs a flush before it; what is, the commit writes)."""
    session.connection().execute(_finish_statement(), {"inbound_id": inbound_id, "status": status,
                                          "error": error, "now": now, "game_id": game_id,
                                          "seat": seat})


@functools.cache
def _finish_statement() -> sa.Update:
    """``finish``'s UPDATE, built once per process (its values are parameters)."""
    table = inbound_table()
    return sa.update(table).where(table.c.id == sa.bindparam("inbound_id")).values(
        status=sa.bindparam("status"), error=sa.bindparam("error", type_=table.c.error.type),
        processed_at=sa.bindparam("now", type_=table.c.processed_at.type),
        game_id=sa.bindparam("game_id", type_=table.c.game_id.type),
        seat=sa.bindparam("seat", type_=table.c.seat.type))


def relay_candidates(session: Session, now: datetime, settings: Settings,
                     limit: int = 500) -> list[int]:
    """Inbound rows that should have been processed by now: never enqueued, or abandoned."""
    table = inbound_table()
    grace = now - timedelta(seconds=settings.relay_grace_seconds)
    rows = session.execute(
        sa.select(table.c.id).where(sa.or_(
            sa.and_(table.c.status == InboundStatus.NEW, table.c.received_at < grace),
            sa.and_(table.c.status == InboundStatus.PROCESSING,
                    _lease_expired(table, now, settings)),
        )).order_by(table.c.id).limit(limit)).scalars()
    return [int(i) for i in rows]
