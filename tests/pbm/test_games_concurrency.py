"""Two processes submitting to one game at the same moment: every command is applied once,
in one order, and the command log replays to the stored snapshot."""

from __future__ import annotations

import multiprocessing
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine

import engine
from pbm import db, games
from pbm.models import CommandLog, Game
from tests.pbm.conftest import new_game, rows

STEPS = 30


def race(url: str, game_id: int, worker: int, start: Any, now: datetime, out: Any) -> None:
    """Answer the game's first (worker 0) or last (worker 1) open decision, STEPS times."""
    db.dispose_engines()
    eng = db.get_engine(url)
    outcomes = []
    start.wait(30)
    for step in range(STEPS):
        with db.session_scope(eng, write=False) as session:
            state = games.load_state(session.get(Game, game_id))  # type: ignore[arg-type]
        if state.over:
            break
        decisions = engine.pending(state)
        decision = decisions[0] if worker == 0 else decisions[-1]
        decision_id = state.decision_id(decision.seat)
        command = engine.default_command(state, decision.seat)
        when = now + timedelta(minutes=step)
        result = db.run_transaction(lambda s, d=decision, c=command, i=decision_id, t=when:
                                    games.submit(s, game_id, d.seat, c, origin=f"proc{worker}",
                                                 now=t, decision_id=i), eng)
        outcomes.append((result.ok, result.code, decision.seat, decision_id, str(command)))
    db.dispose_engines()
    out.put((worker, outcomes))


def test_two_processes_submitting_at_once_never_lose_or_double_apply_a_command(
    eng: Engine, db_url: str, now: datetime
) -> None:
    game_id = new_game(eng, now, 6, seed=21)
    db.dispose_engines()
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=race, args=(db_url, game_id, w, start, now, out))
             for w in (0, 1)]
    for p in procs:
        p.start()
    start.set()
    results = dict(out.get(timeout=240) for _ in procs)
    for p in procs:
        p.join(60)
        assert p.exitcode == 0

    applied = [o for w in (0, 1) for o in results[w] if o[0]]
    refused = [o for w in (0, 1) for o in results[w] if not o[0]]
    log = rows(eng, CommandLog, game_id=game_id)
    assert [r.seq for r in log] == list(range(1, len(log) + 1))
    assert len(log) == len(applied), "every success is logged once, nothing else is"
    assert Counter(r.origin for r in log) == Counter(
        {f"proc{w}": sum(1 for o in results[w] if o[0]) for w in (0, 1)})
    decisions = [(o[2], o[3]) for o in applied]
    assert len(decisions) == len(set(decisions)), "no decision was answered twice"
    assert refused, "the two processes really collided"
    assert {o[1] for o in refused} <= {"command/not_your_decision", "game/over"}
    with db.session_scope(eng, write=False) as session:
        assert games.replay_matches(session, game_id)
        game = session.get(Game, game_id)
        assert game is not None and game.state_version == log[-1].state_version


def test_two_transactions_writing_one_alert_at_once_write_one_row_and_fail_neither(
    pg_db_url: str, now: datetime
) -> None:
    """The outbox's dedupe key is written with one INSERT ... ON CONFLICT DO NOTHING: a
    check first would see nothing while the other transaction has not committed, and the
    second INSERT would then fail (and set the reply it was part of aside)."""
    import threading

    import sqlalchemy as sa

    from pbm import outbox
    from pbm.models import OutboundMessage

    eng = db.get_engine(pg_db_url)
    first = db.session_scope(eng)
    session = first.__enter__()
    assert outbox.alert_admin(session, None, "x", "y", now=now, dedupe="same") is not None
    outcome: list[Any] = []

    def second() -> None:
        try:
            with db.session_scope(eng) as other:
                other.execute(sa.text("SET application_name = 'second-writer'"))
                outcome.append(outbox.alert_admin(other, None, "x", "y", now=now,
                                                  dedupe="same"))
        except Exception as exc:  # the failure this test is about
            outcome.append(exc)

    thread = threading.Thread(target=second)
    thread.start()
    with eng.connect() as watch:  # the second writer waits on the first's uncommitted row
        for _ in range(600):
            waiting = watch.execute(sa.text(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                "'second-writer' AND wait_event_type = 'Lock'")).scalar()
            if waiting or not thread.is_alive():
                break
            watch.execute(sa.text("SELECT pg_sleep(0.05)"))
    first.__exit__(None, None, None)  # commit
    thread.join(30)

    assert outcome == [None], "the second writer wrote nothing and raised nothing"
    assert len(rows(eng, OutboundMessage, dedupe_key="admin:same")) == 1
