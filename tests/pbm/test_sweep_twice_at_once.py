"""Two deadline sweeps at once are harmless. Around a beat takeover (a host died, another
beat took the Redis lock) a sweep the old beat queued can run beside the new beat's, on
two hosts' workers: each reminder must still be sent once and each default played once.
Real PostgreSQL, two threads, each sweep in its own transaction, started together."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from pbm import db, deadlines, games
from pbm import sweep as deadline_sweep
from pbm.games.audit import replay_matches
from pbm.messages import MessageKind
from pbm.models import CommandLog, Deadline, DeadlineStatus, OutboundMessage
from tests.pbm.conftest import new_game, rows

pytestmark = pytest.mark.postgres

GAMES = 8


def sweep_twice_at_once(eng: Engine, moment: datetime, monkeypatch: pytest.MonkeyPatch
                        ) -> list[deadlines.SweepReport]:
    """Two sweeps over the same due deadlines, interleaved the worst way: the first acts
    on its first deadline (holding that game's lock) and waits until the second has read
    the same list of due deadlines; then the first goes on and commits, and the second
    works through the list it read before that commit."""
    first_holds, second_read = threading.Event(), threading.Event()

    def first_waits(original: Callable[..., None]) -> Callable[..., None]:
        def act(session: Any, deadline: Deadline, now: datetime, report: Any) -> None:
            original(session, deadline, now, report)
            if threading.current_thread().name == "first" and not first_holds.is_set():
                first_holds.set()
                assert second_read.wait(timeout=60), "the second sweep never came"
        return act

    due = deadline_sweep.open_deadlines_due

    def second_reads(*args: Any) -> list[int]:
        found = due(*args)
        if threading.current_thread().name == "second":
            second_read.set()
        return found

    monkeypatch.setattr(games, "send_reminder", first_waits(games.send_reminder))
    monkeypatch.setattr(games, "handle_expired", first_waits(games.handle_expired))
    monkeypatch.setattr(deadline_sweep, "open_deadlines_due", second_reads)
    reports: list[deadlines.SweepReport] = []
    failures: list[BaseException] = []

    def sweep() -> None:
        try:
            if threading.current_thread().name == "second":
                assert first_holds.wait(timeout=60)
            reports.append(db.run_transaction(
                lambda s: deadline_sweep.sweep_deadlines(s, moment), eng))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=sweep, name=name) for name in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    monkeypatch.undo()
    assert not failures, failures
    assert first_holds.is_set() and second_read.is_set()
    return reports


def test_two_sweeps_at_once_remind_once_and_play_each_default_once(
        pg_db_url: str, now: datetime, monkeypatch: pytest.MonkeyPatch) -> None:
    eng = db.get_engine(pg_db_url)
    ids = [new_game(eng, now, 3, name=f"sweep-{n}", seed=7) for n in range(GAMES)]
    opened = [d for d in rows(eng, Deadline) if d.status == DeadlineStatus.OPEN]
    assert {d.game_id for d in opened} == set(ids)

    remind_at = max(d.next_reminder_at for d in opened if d.next_reminder_at)
    assert remind_at < min(d.due_at for d in opened)
    reports = sweep_twice_at_once(eng, remind_at, monkeypatch)
    nudges = Counter((m.game_id, m.seat, m.kind) for m in rows(eng, OutboundMessage)
                     if m.kind in (MessageKind.REMINDER, MessageKind.FINAL_WARNING))
    assert nudges == Counter({(d.game_id, d.seat, MessageKind.REMINDER): 1 for d in opened})
    print(f"\nreminders, final warnings by sweep: "
          f"{[(len(r.reminders), len(r.final_warnings)) for r in reports]}, "
          f"errors: {[r.errors for r in reports]}")

    late = max(d.due_at for d in opened) + timedelta(hours=2)  # past the 1 h grace
    reports = sweep_twice_at_once(eng, late, monkeypatch)
    print(f"defaults by sweep: {[len(r.timeouts) for r in reports]}, "
          f"errors: {[r.errors for r in reports]}")
    defaults = Counter(c.game_id for c in rows(eng, CommandLog) if c.origin == "timeout")
    assert defaults == Counter(d.game_id for d in opened)  # one default per silent seat
    with db.session_scope(eng, write=False) as session:
        assert all(replay_matches(session, game_id) for game_id in ids)
    db.dispose_engines()
