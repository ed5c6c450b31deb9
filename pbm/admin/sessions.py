"""Admin sessions kept on the server (``admin_sessions``): opened at sign-in, ended by
signing out, by a changed password and by age.

The cookie carries a random token; the table keeps only its SHA-256, so a copy of the
database opens no session. A session is tied to the password hash it was opened with: an
admin whose entry in ``ADMIN_USERS`` changes (new password) or goes is signed out
everywhere at their next request.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

import sqlalchemy as sa

from pbm.db import run_transaction, session_scope
from pbm.models import AdminSessionRecord

#: How long a session lasts from sign-in (the cookie's own age limit is the same).
LIFETIME = timedelta(hours=12)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _table() -> sa.Table:
    return AdminSessionRecord.__table__  # type: ignore[attr-defined, no-any-return]


def open_session(user: str, password_hash: str, now: datetime) -> str:
    """A new session of ``user`` (signed in with ``password_hash``); its cookie token.
    Sessions past their age are removed on the way."""
    token = secrets.token_urlsafe(32)
    table = _table()

    def work(session: sa.orm.Session) -> None:
        session.execute(sa.delete(table).where(table.c.expires_at < now))
        session.execute(sa.insert(table).values(
            id=_digest(token), user=user, password_tag=_digest(password_hash),
            created_at=now, expires_at=now + LIFETIME))

    run_transaction(work)
    return token


def who(token: str, admins: dict[str, str], now: datetime) -> str | None:
    """The admin whose open session ``token`` names, or None (unknown, ended, expired, or
    opened with a password the admin no longer has)."""
    table = _table()
    with session_scope(write=False) as session:
        row = session.execute(sa.select(table.c.user, table.c.password_tag, table.c.expires_at)
                              .where(table.c.id == _digest(token))).first()
    if row is None or row.expires_at <= now:
        return None
    hashed = admins.get(row.user)
    if hashed is None or not secrets.compare_digest(row.password_tag, _digest(hashed)):
        return None
    return str(row.user)


def close_session(token: str) -> None:
    """End the session ``token`` names (signing out)."""
    table = _table()
    run_transaction(lambda session: session.execute(
        sa.delete(table).where(table.c.id == _digest(token))))


def close_all(user: str) -> int:
    """End every session of ``user``; how many there were."""
    table = _table()
    def work(session: sa.orm.Session) -> int:
        ended = session.execute(sa.select(sa.func.count()).where(table.c.user == user))
        count = int(ended.scalar_one())
        session.execute(sa.delete(table).where(table.c.user == user))
        return count

    return run_transaction(work)
