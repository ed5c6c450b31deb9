"""Races on the real deployment: replies posted to the web app at the same moment, applied
by a real Celery worker with two processes (as the Procfile runs it), against PostgreSQL
and Redis; the sweep and the admin act from this test's own process meanwhile.

Each case runs on ``PBM_RACE_GAMES`` games (default 50) and checks the end state of every
one: started, resolved, continued, nothing applied twice, no game left waiting for nobody.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from email.utils import make_msgid
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

import engine
from pbm import db, games
from pbm.inbound.applying import SETTLED
from pbm.models import Deadline, DeadlineStatus, Game, GameEvent, InboundMessage
from tests.services import drop_database, migrated_database
from tests.workers import helpers as h
from tests.workers.conftest import WORKER_REDIS_DB, redis_db
from tests.workers.servers import Dovecot, wait_until
from tests.workers.stack import Stack

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

GAMES = int(os.environ.get("PBM_RACE_GAMES", "50"))
FINAL = ("done", "ignored", "quarantined")


@pytest.fixture(scope="module")
def stack(postgres_url: str, redis_url: str) -> Iterator[Stack]:
    database = migrated_database(postgres_url, "pbm_channels")
    deployment = Stack(database, redis_db(redis_url, WORKER_REDIS_DB),
                       INBOUND_PER_SENDER_PER_HOUR="1000000")
    deployment.apply()
    try:
        deployment.web()
        deployment.worker("worker", concurrency=2)  # no beat: nothing starts a game for us
        yield deployment
    finally:
        deployment.stop()
        drop_database(postgres_url, database)


# ------------------------------------------------------------------ replies as clients send them


def client_reply(game_id: int, seat: int, body: str) -> bytes:
    """The seat's player answering the latest email we wrote them, as a mail client does:
    In-Reply-To and References name it, and its text is quoted below."""
    _, player = h.seat_row(game_id, seat)
    [latest] = h.outbox(game_id, seat=seat, channel="email")[-1:]
    quoted = "\r\n".join("> " + line for line in latest.text.splitlines())
    lines = [f"From: {player.display_name} <{player.email}>", f"To: {latest.reply_to}",
             f"Subject: Re: {latest.subject}", f"Message-ID: {make_msgid(domain='example.org')}",
             f"In-Reply-To: {latest.message_id}",
             f"References: {latest.in_reply_to or ''} {latest.message_id}".replace("  ", " "),
             "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8"]
    text = f"{body}\r\n\r\nOn Tue, Tortuga by Mail wrote:\r\n{quoted}\r\n"
    return ("\r\n".join(lines) + "\r\n\r\n" + text).encode()


def post_email(stack: Stack, client: httpx.Client, raw: bytes) -> int:
    response = client.post(stack.web_url + "/webhooks/email", content=raw, headers={
        "Authorization": f"Bearer {stack.values['INBOUND_EMAIL_SECRET']}",
        "Content-Type": "message/rfc822"})
    assert response.status_code == 200, response.text
    return int(response.json()["id"])


def at_once(*actions: Callable[[], Any]) -> list[Any]:
    """Run the actions in threads released together; their results in order."""
    barrier = threading.Barrier(len(actions))

    def go(action: Callable[[], Any]) -> Any:
        barrier.wait(10)
        return action()

    with ThreadPoolExecutor(len(actions)) as pool:
        return [f.result(120) for f in [pool.submit(go, a) for a in actions]]


def processed(ids: Sequence[int], stack: Stack, timeout: float = 240) -> list[InboundMessage]:
    def done() -> list[InboundMessage] | None:
        with db.session_scope(write=False) as session:
            rows = list(session.execute(sa.select(InboundMessage).where(
                InboundMessage.id.in_(list(ids)))).scalars())
        return rows if len(rows) == len(set(ids)) and all(r.status in FINAL for r in rows) \
            else None

    try:
        return wait_until(done, timeout, f"{len(set(ids))} replies to be processed", step=0.2)  # type: ignore[no-any-return]
    except AssertionError:
        print(stack.logs())
        raise


def games_with_a_reply(last: bool = False) -> tuple[list[int], dict[int, tuple[int, bytes]]]:
    """``GAMES`` new 3-player games, and for each the seat its first decision waits for and
    that seat's reply with its first (``last``: last) legal answer."""
    ids, replies = [], {}
    for _ in range(GAMES):
        game_id = h.new_game(h.email_players(3))
        decision = h.pending(game_id)[0]
        ids.append(game_id)
        answer = decision.legal[-1] if last else decision.legal[0]
        replies[game_id] = (decision.seat, client_reply(game_id, decision.seat, str(answer)))
    return ids, replies


def either_first(game_id: int, post: Callable[[], Any], other: Callable[[], Any]) -> Any:
    """``post`` and ``other`` at once, one of them held back by up to the reply's own trip
    to the worker (which one, and how long, seeded by the game); ``post``'s result."""
    lead = random.Random(game_id).uniform(-0.3, 0.3)
    row, _ = at_once(lambda: time.sleep(max(0.0, -lead)) or post(),
                     lambda: time.sleep(max(0.0, lead)) or other())
    return row


# ------------------------------------------------------------------ end states


def game_row(game_id: int) -> Game:
    with db.session_scope(write=False) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game


def open_deadline_keys(game_id: int) -> set[tuple[int | None, str | None]]:
    with db.session_scope(write=False) as session:
        return {(d.seat, d.decision_key) for d in session.execute(sa.select(Deadline).where(
            Deadline.game_id == game_id, Deadline.status == DeadlineStatus.OPEN)).scalars()}


def assert_goes_on(game_id: int) -> None:
    """The game is running, its log replays to its state, and every decision it waits for
    has an open deadline: someone is asked, and the sweep will wake it."""
    game = game_row(game_id)
    assert game.status == "running", f"game {game_id} is {game.status}"
    with db.session_scope(write=False) as session:
        assert games.replay_matches(session, game_id), f"game {game_id} does not replay"
    state = h.state_of(game_id)
    awaited = {(d.seat, state.decision_id(d.seat)) for d in engine.pending(state)}
    assert awaited, f"game {game_id} waits for nobody"
    assert awaited <= open_deadline_keys(game_id), f"game {game_id}: a decision has no deadline"


def texts_to(game_id: int, seat: int, kind: str | None = None) -> list[str]:
    where = {"seat": seat} | ({"kind": kind} if kind else {})
    return [m.text for m in h.outbox(game_id, **where)]


# ------------------------------------------------------------------ the cases


@pytest.mark.slow
def test_the_last_two_joins_at_once_start_every_game(stack: Stack) -> None:
    ids, pairs = [], []
    for _ in range(GAMES):
        specs = h.email_players(3)
        game_id = h.new_game(specs, start=False)
        db.run_transaction(lambda s, g=game_id: games.invite(s, g, now=h.utcnow()))
        db.run_transaction(lambda s, g=game_id: games.respond(s, g, 0, join=True,
                                                              now=h.utcnow()))
        ids.append(game_id)
        pairs.append((client_reply(game_id, 1, "JOIN"), client_reply(game_id, 2, "JOIN")))

    with httpx.Client(timeout=30) as client:
        posted = [row for a, b in pairs for row in at_once(
            lambda a=a: post_email(stack, client, a), lambda b=b: post_email(stack, client, b))]
    rows = processed(posted, stack)

    assert {r.status for r in rows} == {"done"}
    stuck = [g for g in ids if game_row(g).status != "running"]
    assert not stuck, f"{len(stuck)} of {GAMES} games left inviting with every seat joined"
    for game_id in ids:
        assert_goes_on(game_id)
        for seat in range(3):
            assert any(k in ("prompt", "game_started")
                       for k in {m.kind for m in h.outbox(game_id, seat=seat)}), \
                f"game {game_id}: seat {seat + 1} was never told the game began"


def _commands_to_a_vote(names: list[str]) -> tuple[int, list[tuple[int, str]], list[int]]:
    """A seed, the commands that bring its game to a vote, and the last two voters."""
    for seed in range(1, 400):
        state, played = engine.new_game(names, seed), []
        for _ in range(40):
            decisions = engine.pending(state)
            voters = [d.seat for d in decisions if d.kind == engine.DecisionKind.VOTE]
            if len(voters) >= 2:
                for seat in voters[:-2]:
                    command = engine.default_command(state, seat)
                    state, _ = engine.apply(state, seat, command)
                    played.append((seat, str(command)))
                return seed, played, voters[-2:]
            decision = decisions[0]
            calls = [c for c in decision.legal if isinstance(c, engine.Attack | engine.Mutiny
                                                              | engine.Brawl)]
            command = calls[0] if calls else engine.default_command(state, decision.seat)
            state, _ = engine.apply(state, decision.seat, command)
            played.append((decision.seat, str(command)))
    raise AssertionError("no seed reaches a vote")


@pytest.mark.slow
def test_two_votes_at_once_close_the_vote_once(stack: Stack) -> None:
    names = ["Ann", "Bob", "Cleo", "Dirk", "Eve"]
    seed, played, last_two = _commands_to_a_vote(names)
    ids, pairs = [], []
    for _ in range(GAMES):
        game_id = h.new_game(h.email_players(5), seed=seed)

        def bring(session: Any, g: int = game_id) -> None:
            for seat, command in played:
                assert games.submit(session, g, seat, command, origin="test",
                                    now=h.utcnow()).ok

        db.run_transaction(bring)
        ids.append(game_id)
        pairs.append([client_reply(game_id, seat, "VOTE 1") for seat in last_two])
    before = {g: h.state_of(g).stage_serial for g in ids}

    with httpx.Client(timeout=30) as client:
        posted = [row for a, b in pairs for row in at_once(
            lambda a=a: post_email(stack, client, a), lambda b=b: post_email(stack, client, b))]
    processed(posted, stack)

    for game_id in ids:
        votes = [c for c in h.commands(game_id) if c[2].startswith("inbound:")]
        assert sorted(seat for seat, _, _ in votes) == sorted(last_two), votes
        state = h.state_of(game_id)
        assert state.stage_serial > before[game_id], f"game {game_id}: the vote never closed"
        assert not any(d.kind == engine.DecisionKind.VOTE for d in engine.pending(state))
        if not state.over:
            assert_goes_on(game_id)
        with db.session_scope(write=False) as session:
            results = session.execute(sa.select(sa.func.count()).select_from(GameEvent).where(
                GameEvent.game_id == game_id, GameEvent.kind == "vote.result")).scalar()
        assert results == 1, f"game {game_id}: the vote closed {results} times"


@pytest.mark.slow
def test_a_reply_and_its_timeout_at_once_play_one_answer(stack: Stack) -> None:
    ids, replies = games_with_a_reply(last=True)
    from pbm.sweep import sweep_deadlines

    posted = []
    with httpx.Client(timeout=30) as client:
        for game_id in ids:
            with db.session_scope() as session:  # this game's deadline and grace are over
                session.execute(sa.update(Deadline).where(
                    Deadline.game_id == game_id, Deadline.status == DeadlineStatus.OPEN)
                    .values(due_at=h.utcnow() - timedelta(hours=3)))
            posted.append(either_first(
                game_id, lambda g=game_id: post_email(stack, client, replies[g][1]),
                lambda: db.run_transaction(lambda s: sweep_deadlines(s, h.utcnow()))))
    processed(posted, stack)

    outcomes = {"reply": 0, "timeout": 0}
    for game_id in ids:
        seat = replies[game_id][0]
        applied = [c for c in h.commands(game_id)
                   if c[0] == seat and (c[2] == "timeout" or c[2].startswith("inbound:"))]
        assert len(applied) == 1, f"game {game_id}: {applied} (one answer, not two)"
        if applied[0][2] == "timeout":
            outcomes["timeout"] += 1
            assert any(SETTLED in t for t in texts_to(game_id, seat, "reply")), \
                f"game {game_id}: the late reply was not told its question was settled"
        else:
            outcomes["reply"] += 1
        assert_goes_on(game_id)
    print(f"\nreply vs timeout at once, {GAMES} games: {outcomes}")


@pytest.mark.slow
def test_a_reply_through_imap_and_the_webhook_at_once_is_applied_once(
        stack: Stack, dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbm.config import reset_settings
    from workers.tasks import poll_imap

    for key, value in {"IMAP_HOST": "127.0.0.1", "IMAP_PORT": str(dovecot.port),
                       "IMAP_SSL": "false", "IMAP_USERNAME": dovecot.user,
                       "IMAP_PASSWORD": dovecot.password}.items():
        monkeypatch.setenv(key, value)  # this process polls, the worker applies
    reset_settings()

    ids, raws = games_with_a_reply()
    posted = []
    with httpx.Client(timeout=30) as client:
        for game_id in ids:
            dovecot.append(raws[game_id][1])
            row, _ = at_once(lambda g=game_id: post_email(stack, client, raws[g][1]),
                             poll_imap)
            posted.append(row)
    processed(posted, stack)

    with db.session_scope(write=False) as session:
        stored = session.execute(sa.select(sa.func.count()).select_from(InboundMessage)
                                 .where(InboundMessage.id.in_(posted))).scalar()
    assert stored == len(set(posted)) == GAMES, "one stored row per message, whichever door"
    for game_id in ids:
        seat = raws[game_id][0]
        assert [c[0] for c in h.commands(game_id) if c[2].startswith("inbound:")] == [seat]
        assert_goes_on(game_id)


@pytest.mark.slow
def test_an_admin_pause_during_a_reply_leaves_a_consistent_game(stack: Stack) -> None:
    ids, replies = games_with_a_reply()
    posted = []
    with httpx.Client(timeout=30) as client:
        for game_id in ids:
            posted.append(either_first(
                game_id, lambda g=game_id: post_email(stack, client, replies[g][1]),
                lambda g=game_id: db.run_transaction(
                    lambda s: games.pause(s, g, "holiday", now=h.utcnow()))))
    processed(posted, stack)

    applied_before_pause = 0
    for game_id in ids:
        seat = replies[game_id][0]
        assert game_row(game_id).status == "paused"
        played = [c for c in h.commands(game_id) if c[2].startswith("inbound:")]
        assert [c[0] for c in played] in ([], [seat])
        if played:
            applied_before_pause += 1
        else:
            assert any("paused" in t.lower() for t in texts_to(game_id, seat, "reply")), \
                f"game {game_id}: the refused reply was not told the game is paused"
        with db.session_scope(write=False) as session:
            assert games.replay_matches(session, game_id)
        db.run_transaction(lambda s, g=game_id: games.resume(s, g, now=h.utcnow()))
        assert_goes_on(game_id)
    print(f"\npause during a reply, {GAMES} games: applied before the pause in "
          f"{applied_before_pause}, refused as paused in {GAMES - applied_before_pause}")


def _play_until_asked_again(game_id: int, seat: int) -> None:
    """Answer every decision (defaults) until ``seat`` is asked a new question."""
    for _ in range(30):
        state = h.state_of(game_id)
        decisions = engine.pending(state)
        if any(d.seat == seat for d in decisions):
            return
        d = decisions[0]
        db.run_transaction(lambda s, d=d, st=state: games.submit(
            s, game_id, d.seat, engine.default_command(st, d.seat), origin="test",
            now=h.utcnow()))
    raise AssertionError(f"seat {seat + 1} was never asked again")


@pytest.mark.parametrize("threading", ["In-Reply-To", "only the quoted prompt"])
@pytest.mark.parametrize("answer", ["a bare number", "a full command legal now"])
def test_a_reply_under_an_older_prompt_plays_nothing_and_gets_todays_menu(
        stack: Stack, answer: str, threading: str) -> None:
    """The policy for full commands too: ``VIEW 1 2`` typed under an older prompt named
    positions of that older row, so it is not played either; the player is asked again."""
    game_id = h.new_game(h.email_players(3))
    first = h.pending(game_id)[0]
    old_prompt = h.outbox(game_id, seat=first.seat, channel="email")[-1]
    db.run_transaction(lambda s: games.submit(s, game_id, first.seat,
                                              engine.default_command(h.state_of(game_id),
                                                                     first.seat),
                                              origin="test", now=h.utcnow()))
    _play_until_asked_again(game_id, first.seat)  # today's menu has an option 1 too
    state = h.state_of(game_id)
    assert state.decision_id(first.seat) not in (None, old_prompt.question)
    legal_now = {str(c) for d in engine.pending(state) if d.seat == first.seat for c in d.legal}
    body = "1" if answer == "a bare number" else sorted(legal_now)[0]
    assert body == "1" or body in legal_now
    quoted = "\r\n".join("> " + line for line in old_prompt.text.splitlines())
    _, player = h.seat_row(game_id, first.seat)
    thread = f"In-Reply-To: {old_prompt.message_id}\r\n" if threading == "In-Reply-To" else ""
    raw = (f"From: {player.email}\r\nTo: {old_prompt.reply_to}\r\nSubject: Re: x\r\n"
           f"Message-ID: {make_msgid(domain='example.org')}\r\n{thread}\r\n"
           f"{body}\r\n\r\nOn Tue, Tortuga wrote:\r\n{quoted}\r\n").encode()
    before = h.commands(game_id)
    with httpx.Client(timeout=30) as client:
        [row] = processed([post_email(stack, client, raw)], stack)

    assert row.status == "done"
    assert h.commands(game_id) == before, "nothing is played for a settled question"
    [told] = [m for m in h.outbox(game_id, seat=first.seat, kind="reply")]
    print(f"\n----- the answer to {body!r} under a settled question\n{told.text}")
    assert SETTLED in told.text
    assert "WHAT YOU CAN DO NOW" in told.text and " 1 = " in told.text, "today's menu"
