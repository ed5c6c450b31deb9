"""A write that numbered a game's command with a number another writer took is a conflict:
``run_transaction`` runs it again from fresh numbers (real PostgreSQL, its real error)."""

from __future__ import annotations

from datetime import datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, func, select

from pbm import db
from pbm.models import CommandLog, Player
from tests.pbm.conftest import new_game, rows

pytestmark = pytest.mark.postgres


def test_a_command_numbered_with_a_taken_number_is_written_again_with_the_next(
        pg_db_url: str, now: datetime) -> None:
    eng = db.get_engine(pg_db_url)
    game_id = new_game(eng, now)
    taken = len(rows(eng, CommandLog, game_id=game_id)) + 1
    with Session(eng) as session:  # another writer's move, numbered first
        session.add(CommandLog(game_id=game_id, seq=taken, seat=0, command="VIEW 1",
                               state_version=1, origin="test"))
        session.commit()
    numbers: list[int] = []

    def write(session: Session) -> int:
        # the first attempt numbers from a stale read, as a lock that waited would
        last = session.exec(select(func.max(CommandLog.seq)).where(
            CommandLog.game_id == game_id)).one() or 0
        seq = taken if not numbers else last + 1
        numbers.append(seq)
        session.add(CommandLog(game_id=game_id, seq=seq, seat=1, command="VIEW 2",
                               state_version=2, origin="test"))
        session.flush()
        return seq

    assert db.run_transaction(write, eng) == taken + 1
    assert numbers == [taken, taken + 1]
    assert [c.seq for c in rows(eng, CommandLog, game_id=game_id)][-2:] == [taken, taken + 1]


def test_any_other_duplicate_is_not_a_conflict_and_is_raised_at_once(
        pg_db_url: str) -> None:
    eng = db.get_engine(pg_db_url)
    attempts: list[int] = []

    def write(session: Session) -> None:
        attempts.append(1)
        session.execute(sa.insert(Player), [
            {"name": "Ann", "email": "same@example.org"},
            {"name": "Bob", "email": "same@example.org"}])

    with pytest.raises(IntegrityError):
        db.run_transaction(write, eng)
    assert len(attempts) == 1
