"""One reply, few round trips: what a transaction reads once (``pbm.txcache``), and that
what it remembers stays true. On SQLite and PostgreSQL."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session

import engine
from engine.simulate import random_command
from pbm import db, deadlines, games, inbound, outbox, outbox_pictures, render, txcache
from pbm.config import reset_settings
from pbm.games.base import next_seq, write_state
from pbm.message_payloads import Status
from pbm.models import (
    BoardImage,
    CommandLog,
    Deadline,
    Game,
    GameEvent,
    OutboundMessage,
    Seat,
)
from pbm.session_keys import NEW_OUTBOX_IDS
from tests.pbm.conftest import new_game, rows, state_of


class Statements:
    """The statements and commits an engine runs while counting (BEGIN and PRAGMA aside)."""

    def __init__(self, eng: Engine) -> None:
        self.eng, self.sql, self.commits = eng, [], 0

    def __enter__(self) -> Statements:
        event.listen(self.eng, "before_cursor_execute", self._statement)
        event.listen(self.eng, "commit", self._commit)
        return self

    def __exit__(self, *_exc: Any) -> None:
        event.remove(self.eng, "before_cursor_execute", self._statement)
        event.remove(self.eng, "commit", self._commit)

    def _statement(self, _conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        if not sql.lstrip().upper().startswith(("BEGIN", "PRAGMA")):
            self.sql.append(" ".join(sql.split()))

    def _commit(self, _conn: Any) -> None:
        self.commits += 1

    def count(self, fragment: str) -> int:
        return sum(fragment in s for s in self.sql)


@pytest.fixture
def service(eng: Engine, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
            ) -> Iterator[Engine]:
    """The service on the test database (as the worker runs it)."""
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "var"))
    reset_settings()
    yield db.get_engine(db_url)
    reset_settings()


def reply_to_the_open_decision(eng: Engine, game_id: int, now: datetime) -> bytes:
    state = state_of(eng, game_id)
    decision = engine.pending(state)[0]
    seat, player = db.run_transaction(lambda s: games.seat_of(s, game_id, decision.seat), eng)
    command = random_command(random.Random(5), decision)
    return (f"From: {player.email}\r\nTo: play+{seat.reply_token}@tortuga.localhost\r\n"
            f"Subject: Re: your move\r\nMessage-ID: <r{now.timestamp()}@example.org>\r\n\r\n"
            f"{command}\r\n").encode()


def test_a_transaction_sees_the_deadlines_it_opens_and_closes_without_asking_again(
        eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now)

    def work(session: Any) -> None:
        game = games.lock_game(session, game_id)
        first = deadlines.open_deadlines(session, game_id)
        games.seats_of(session, game_id)
        with Statements(eng) as seen:
            assert games.lock_game(session, game_id) is game
            assert len(games.seats_of(session, game_id)) == 5
            first[0].status = "done"
            new = deadlines.open_deadline(session, game, 4, "test-key", "VOTE",
                                       games.policy_of(game), "UTC", now)
            now_open = deadlines.open_deadlines(session, game_id)
        assert first[0] not in now_open and new in now_open
        assert deadlines.open_deadlines(session, game_id, seat=4, kind="VOTE") == [new]
        assert not any(s.startswith("SELECT") for s in seen.sql), seen.sql

    db.run_transaction(work, eng)
    assert [d.decision_key for d in rows(eng, Deadline, game_id=game_id, status="open")
            if d.seat == 4] == ["test-key"]


def test_the_next_transaction_sees_what_others_changed_in_between(eng: Engine,
                                                                 now: datetime) -> None:
    game_id = new_game(eng, now)
    with db.session_scope(eng) as session:
        before = len(deadlines.open_deadlines(session, game_id))
        session.commit()
        with db.session_scope(eng) as other:  # another worker opens a deadline
            game = games.lock_game(other, game_id)
            deadlines.open_deadline(other, game, 2, "elsewhere", "VOTE",
                                 games.policy_of(game), "UTC", now)
        assert len(deadlines.open_deadlines(session, game_id)) == before + 1


def test_a_bulk_write_to_a_remembered_table_makes_it_read_again(eng: Engine,
                                                               now: datetime) -> None:
    game_id = new_game(eng, now)
    table = Deadline.__table__  # type: ignore[attr-defined]

    def work(session: Any) -> int:
        assert deadlines.open_deadlines(session, game_id)
        session.execute(sa.update(table).where(table.c.game_id == game_id)
                        .values(status="cancelled"))
        return len(deadlines.open_deadlines(session, game_id))

    assert db.run_transaction(work, eng) == 0


def test_a_message_written_before_is_not_written_again_and_leaves_the_seat_as_it_was(
        eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now)

    def status(session: Any) -> tuple[list[int], tuple[Any, ...], list[int]]:
        game = games.lock_game(session, game_id)
        seat, player = games.seat_of(session, game_id, 1)
        written = outbox.notify(session, game, seat, player, Status(),
                                now=now + timedelta(hours=1), dedupe="test-status",
                                state=games.load_state(game))
        marks = (seat.last_event_seq, seat.thread_message_id, seat.thread_started,
                 seat.last_prompted_at)
        return [r.id for r in written], marks, list(session.info.get(NEW_OUTBOX_IDS,
                                                                      []))

    first, marks, enqueued = db.run_transaction(status, eng)
    again, marks_again, enqueued_again = db.run_transaction(status, eng)

    assert len(first) == 1 and enqueued == first, "the hook hands the new row to a worker"
    assert again == [] and enqueued_again == [] and marks_again == marks
    assert len(rows(eng, OutboundMessage, dedupe_key="test-status:email")) == 1


def test_the_board_picture_is_drawn_once_per_version_and_only_for_email(
        eng: Engine, now: datetime, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[int] = []
    draw = render.board_png
    monkeypatch.setattr(render, "board_png", lambda view: drawn.append(1) or draw(view))
    outbox_pictures.clear_pictures()  # none drawn by earlier tests

    def one_decision_and_two_status_requests(game_id: int) -> None:
        decision = engine.pending(state_of(eng, game_id))[0]
        assert db.run_transaction(lambda s: games.submit(
            s, game_id, decision.seat, random_command(random.Random(3), decision),
            origin="test", now=now), eng).ok
        for seat in range(2):
            db.run_transaction(lambda s, seat=seat: games.status(
                s, game_id, seat, now=now, dedupe=f"t{seat}"), eng)

    by_email = new_game(eng, now, name="by email")
    drawn.clear()
    one_decision_and_two_status_requests(by_email)
    version = state_of(eng, by_email).version
    assert len(drawn) == 1, "one new version by email; STATUS reuses its picture"
    assert [b.version for b in rows(eng, BoardImage, game_id=by_email)
            if b.version == version] == [version]

    by_sms = new_game(eng, now, name="by text", sms_seats=(0, 1, 2, 3, 4))  # same players
    drawn.clear()
    one_decision_and_two_status_requests(by_sms)
    assert drawn == [] and rows(eng, BoardImage, game_id=by_sms) == []
    assert all(r.board_image_key is None for r in rows(eng, OutboundMessage, game_id=by_sms))


def test_a_replaced_seat_is_seen_with_its_new_player_in_the_same_transaction(
        eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now)

    def work(session: Any) -> str:
        games.seats_of(session, game_id)  # remembered
        games.replace_seat(session, game_id, 2, games.PlayerSpec(
            "Newcomer", email="new@example.org"), now=now)
        return games.seat_of(session, game_id, 2)[1].display_name

    assert db.run_transaction(work, eng) == "Newcomer"
    assert len(rows(eng, Seat, game_id=game_id)) == 5


MEMO_IN_A_FRESH_PROCESS = """
import sqlalchemy as sa
from sqlmodel import Session
from pbm import txcache

with Session(sa.create_engine("sqlite://")) as session:  # no engine of pbm.db built yet
    try:
        txcache.memo(session)
        print("memo without listeners")
    except txcache.ListenersMissing:
        print("refused")

from pbm import db
from pbm.message_payloads import Status

with Session(db.make_engine("sqlite://")) as session:
    session.connection()
    txcache.memo(session)[("k",)] = 1
    session.commit()
    print("forgotten at commit" if txcache.KEY not in session.info else "kept after commit")
"""


def test_the_memo_is_refused_until_its_listeners_are_installed_and_an_engine_installs_them(
) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", MEMO_IN_A_FRESH_PROCESS], capture_output=True,
                          text=True, timeout=60, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["refused", "forgotten at commit"]


def test_a_moves_log_and_events_written_without_a_flush_are_known_to_the_transaction(
        eng: Engine, now: datetime) -> None:
    """``submit`` writes the command log and events with Core (one statement on PostgreSQL):
    the transaction still knows the next numbers, the seat's last command and the new
    events (as this session's rows) without asking, as if a flush had told it."""
    game_id = new_game(eng, now)
    decision = engine.pending(state_of(eng, game_id))[0]
    command = random_command(random.Random(3), decision)
    postgres = eng.dialect.name == "postgresql"

    def work(session: Any) -> tuple[list[tuple[int, int]], int]:
        games.lock_game(session, game_id)
        seen_before = outbox.events_for(session, game_id, decision.seat, limit=None)
        with Statements(eng) as seen:
            assert games.submit(session, game_id, decision.seat, command, origin="test",
                                now=now).ok
        writes = [s for s in seen.sql if s.startswith(("INSERT", "WITH"))
                  and ("command_log" in s or "game_events" in s)]
        assert len(writes) == (1 if postgres else 2), writes
        with Statements(eng) as after:
            next_event = next_seq(session, GameEvent, game_id)
            next_command = next_seq(session, CommandLog, game_id)
            new = outbox.events_for(session, game_id, decision.seat, limit=None)[
                len(seen_before):]
        assert after.sql == [], "the numbers and the events are known without a read"
        assert new and all(sa.inspect(e).persistent and e.id for e in new)
        assert next_command == 2 and next_event == new[-1].seq + 1
        assert txcache.memo(session)[("last_command", game_id, decision.seat)] == (
            1, str(command))
        return [(e.id or 0, e.seq) for e in new], next_event

    written, next_event = db.run_transaction(work, eng)
    stored = [(e.id, e.seq) for e in rows(eng, GameEvent, game_id=game_id)
              if e.command_seq == 1]
    assert sorted(stored) == sorted(written)
    assert [(c.seq, c.command) for c in rows(eng, CommandLog, game_id=game_id)] == [
        (1, str(command))]
    assert max(seq for _, seq in stored) == next_event - 1


def test_a_moves_game_row_and_deadlines_written_without_a_flush_are_known_to_the_transaction(
        eng: Engine, now: datetime) -> None:
    """``submit`` writes the game's new state and its deadlines with Core: the game holds its
    new version with nothing left to flush, the deadlines it closed and opened are known
    without a read, and a later change to a new deadline is still written."""
    game_id = new_game(eng, now)
    decision = engine.pending(state_of(eng, game_id))[0]
    command = random_command(random.Random(3), decision)

    def work(session: Any) -> tuple[int, list[tuple[int, str]]]:
        game = games.lock_game(session, game_id)
        answered = games.load_state(game).decision_id(decision.seat)
        assert any(d.decision_key == answered for d in deadlines.open_deadlines(session, game_id))
        version = game.version
        assert games.submit(session, game_id, decision.seat, command, origin="test",
                            now=now).ok
        assert not sa.inspect(game).modified and game.version == version + 1
        with Statements(eng) as seen:
            opened = deadlines.open_deadlines(session, game_id)
        assert seen.sql == [], "the deadlines are known without a read"
        assert not any(d.decision_key == answered for d in opened), "the answered one closed"
        assert opened and all(sa.inspect(d).persistent and d.id for d in opened)
        assert not any(isinstance(o, Deadline | Game) for o in session.dirty)
        opened[-1].calendar_sequence = 7  # a later change, as the calendar makes one
        return game.version, sorted((d.id or 0, d.decision_key) for d in opened)

    version, opened = db.run_transaction(work, eng)
    assert rows(eng, Game, id=game_id)[0].version == version
    stored = rows(eng, Deadline, game_id=game_id, status="open")
    assert sorted((d.id, d.decision_key) for d in stored) == opened
    assert [d.calendar_sequence for d in stored if d.id == opened[-1][0]] == [7]


def test_a_stale_write_of_a_moves_state_fails_as_a_conflict(eng: Engine, now: datetime
                                                             ) -> None:
    """``write_state`` checks the game's version as the ORM's flush does: a writer holding
    an older version fails (PostgreSQL: ``StaleDataError``; SQLite: its snapshot is stale)
    and the newer state stays."""
    game_id = new_game(eng, now)
    state = state_of(eng, game_id)
    with Session(eng) as first, Session(eng) as second:
        game = first.get(Game, game_id)
        newer = second.get(Game, game_id)
        assert game is not None and newer is not None
        newer.pause_reason = "someone else wrote first"
        second.commit()
        expected = newer.version
        with pytest.raises((StaleDataError, OperationalError)) as failure:
            write_state(first, game, state, now + timedelta(hours=1))
        assert db.is_conflict(failure.value)
    stored = rows(eng, Game, id=game_id)[0]
    assert (stored.pause_reason, stored.version) == ("someone else wrote first", expected)


def test_the_seats_a_reply_told_are_written_in_one_statement_without_a_flush(
        service: Engine, now: datetime) -> None:
    """``outbox.write_told`` writes the seats' told marks at the end of a reply's processing
    in one UPDATE, instead of the unit of work at the commit: no flush is left to run, and
    the marks stored are the ones the messages made."""
    game_id = new_game(service, now)
    later = now + timedelta(minutes=5)
    stored = db.run_transaction(lambda s: inbound.store_email(
        s, reply_to_the_open_decision(service, game_id, later), later), service)
    flushes: list[int] = []

    def count(session: Any, *_context: Any) -> None:
        flushes.append(len(session.dirty))

    event.listen(sa.orm.Session, "before_flush", count)
    try:
        with Statements(service) as seen:
            assert str(inbound.process(stored.id, later)) == "done"
    finally:
        event.remove(sa.orm.Session, "before_flush", count)
    assert flushes == [], "nothing left for the unit of work"
    assert seen.count("UPDATE seats") == 1
    told = {m.seat for m in rows(service, OutboundMessage, game_id=game_id, created_at=later)}
    seats = {s.seat_index: s for s in rows(service, Seat, game_id=game_id)}
    assert told and all(seats[s].last_event_seq > 0 for s in told)


def test_a_told_seat_with_other_changes_pending_is_left_to_the_flush(eng: Engine,
                                                                      now: datetime) -> None:
    game_id = new_game(eng, now)

    def status(session: Any) -> tuple[int, bool]:
        game = games.lock_game(session, game_id)
        seat, player = games.seat_of(session, game_id, 1)
        assert outbox.notify(session, game, seat, player, Status(),
                             now=now + timedelta(hours=1), dedupe="test-status",
                             state=games.load_state(game))
        seat.away_used_seconds = 60  # pending beside the told marks
        with Statements(eng) as seen:
            outbox.write_told(session)
        assert seen.sql == [] and seat in session.dirty
        return seat.last_event_seq, seat.last_prompted_at is None

    told, unprompted = db.run_transaction(status, eng)
    stored = rows(eng, Seat, game_id=game_id, seat_index=1)[0]
    assert (stored.away_used_seconds, stored.last_event_seq, unprompted) == (60, told, True)
