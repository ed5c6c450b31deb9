"""The "since your last message" recap: a seat is marked as told only the events a message
actually showed it, so nothing drops out of the recap of its next prompt."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

import engine
from pbm import db, games, outbox, render
from pbm.message_payloads import Reply, payload_for
from pbm.messages import Channel, MessageKind
from pbm.models import GameEvent, OutboundMessage, Seat
from tests.pbm.conftest import new_game, rows, state_of, submit


def flat(text: str) -> str:
    return " ".join(text.split())


def play(eng: Engine, game_id: int, now: datetime) -> games.Result:
    """The awaited seat answers (PLACE, or VIEW on its turn)."""
    decision = engine.pending(state_of(eng, game_id))[0]
    command = next((c for c in decision.legal if str(c).startswith("VIEW")), decision.legal[0])
    result = submit(eng, game_id, decision.seat, command, now)
    assert result.ok, result
    return result


def test_a_public_event_stays_in_the_recap_of_the_next_prompt_after_a_pause_and_resume(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 5)  # seed 7: seats 0 and 2 place, then seat 2's turn
    play(eng, game_id, now + timedelta(minutes=1))
    play(eng, game_id, now + timedelta(minutes=2))
    viewed = play(eng, game_id, now + timedelta(minutes=3))  # seat 2 looks at an Event card
    waiting = 4
    assert waiting not in viewed.notified, "seat 4 is not told at once: it is recap news"
    news = [e for e in rows(eng, GameEvent, game_id=game_id)
            if e.audience is None and e.kind == "event.viewed"]
    assert len(news) == 1

    db.run_transaction(lambda s: games.pause(s, game_id, "lunch", now=now + timedelta(hours=1)),
                       eng)
    db.run_transaction(lambda s: games.resume(s, game_id, now=now + timedelta(hours=2)), eng)
    seat_3 = play(eng, game_id, now + timedelta(hours=3))  # seat 3 looks; seat 4's turn

    assert waiting in seat_3.notified
    prompt = rows(eng, OutboundMessage, game_id=game_id, seat=waiting, kind="prompt")[-1]
    recap = flat(prompt.text).split("SINCE YOUR LAST MESSAGE", 1)[-1]
    assert "SINCE YOUR LAST MESSAGE" in prompt.text
    assert flat(news[0].text) in recap
    told = rows(eng, Seat, game_id=game_id, seat_index=waiting)[0].last_event_seq
    assert told == max(e.seq for e in rows(eng, GameEvent, game_id=game_id)
                       if e.visible_to(waiting))


def test_a_notice_about_a_replaced_seat_leaves_earlier_news_for_the_next_recap(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 5)
    for minutes in (1, 2, 3):  # PLACE, PLACE, VIEW: seat 4 is not told yet
        play(eng, game_id, now + timedelta(minutes=minutes))
    [news] = [e for e in rows(eng, GameEvent, game_id=game_id)
              if e.audience is None and e.kind == "event.viewed"]

    db.run_transaction(lambda s: games.replace_seat(
        s, game_id, 1, games.PlayerSpec("Newcomer", email="new@example.org"),
        now=now + timedelta(minutes=4)), eng)
    [notice] = [r for r in rows(eng, OutboundMessage, game_id=game_id, seat=4, kind="notice")
                if "takes over" in r.text]
    assert rows(eng, Seat, game_id=game_id, seat_index=4)[0].last_event_seq < news.seq
    play(eng, game_id, now + timedelta(minutes=5))  # seat 3 looks; seat 4's turn

    prompt = rows(eng, OutboundMessage, game_id=game_id, seat=4, kind="prompt")[-1]
    assert flat(news.text) in flat(prompt.text).split("SINCE YOUR LAST MESSAGE", 1)[-1]
    assert flat(news.text) not in flat(notice.text)


def _news(eng: Engine, game_id: int, now: datetime, *audiences: frozenset[int] | None
          ) -> list[GameEvent]:
    def work(session: Session) -> list[GameEvent]:
        game = games.get_game(session, game_id)
        return games.record_events(session, game, [
            engine.Event("test.news", f"News number {i} for the table.", audience, {})
            for i, audience in enumerate(audiences)], now=now)

    return db.run_transaction(work, eng)


def test_a_reply_marks_as_told_only_the_history_its_log_lists(eng: Engine,
                                                            now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    seat = 2
    private, public = _news(eng, game_id, now, frozenset({seat}), None)
    before = rows(eng, Seat, game_id=game_id, seat_index=seat)[0].last_event_seq

    def reply(log: bool, key: str) -> None:
        def work(session: Session) -> None:
            game = games.get_game(session, game_id)
            seat_row, player = games.seat_of(session, game_id, seat)
            shown = [e for e in outbox.events_for(session, game_id, seat, limit=None)
                     if e.audience is None][-15:] if log else None
            outbox.notify(session, game, seat_row, player, Reply(log=log, done=("SAY hello",)),
                          now=now, state=games.load_state(game), dedupe=key, events=shown)

        db.run_transaction(work, eng)

    reply(False, "plain")
    assert rows(eng, Seat, game_id=game_id, seat_index=seat)[0].last_event_seq == before
    reply(True, "log")  # LOG lists the public history, not the private news before it
    assert rows(eng, Seat, game_id=game_id, seat_index=seat)[0].last_event_seq == before
    [log] = [r for r in rows(eng, OutboundMessage, dedupe_key="log:email")]
    assert public.text in log.text and private.text not in log.text

    db.run_transaction(lambda s: games.status(s, game_id, seat, now=now, dedupe="s"), eng)
    [status] = rows(eng, OutboundMessage, game_id=game_id, seat=seat, kind="status")
    assert private.text in flat(status.text) and public.text in flat(status.text)
    assert rows(eng, Seat, game_id=game_id, seat_index=seat)[0].last_event_seq == public.seq


EXTRA: dict[MessageKind, dict[str, Any]] = {
    MessageKind.NOTICE: {"headline": "Something happened to you."},
    MessageKind.TABLE_TALK: {"speaker": "Player 1", "text": "ahoy"},
    MessageKind.REPLY: {"done": ("SAY ahoy",)},
    MessageKind.PAUSED: {"reason": "lunch"},
    MessageKind.RESUMED: {"paused_hours": 1},
    MessageKind.GAME_OVER: {"aborted": True, "reason": "stopped"},
    MessageKind.VOTE_RESULT: {},
}
VARIANTS = [(kind, EXTRA.get(kind, {})) for kind in MessageKind] + [
    (MessageKind.REMINDER, {"invitation": True}),
    (MessageKind.SEAT_REPLACED, {"you_were_replaced": True}),
    (MessageKind.SEAT_REPLACED, {"briefing": False}),
    (MessageKind.TIMED_OUT, {"you": False, "who": "Player 1"}),
    (MessageKind.REPLY, {"log": True}),
]


def test_the_service_knows_which_messages_show_their_events(eng: Engine,
                                                           now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    [news] = _news(eng, game_id, now, None)
    with db.session_scope(eng, write=False) as session:
        game = games.get_game(session, game_id)
        seat, player = games.seat_of(session, game_id, 0)
        state = games.load_state(game)
        for kind, extra in VARIANTS:
            ctx = outbox.build_context(session, game, seat, player, payload_for(kind, **extra),
                                       state=None if kind is MessageKind.INVITATION else state,
                                       events=[news])
            text = flat(render.render(ctx, Channel.EMAIL).text)
            assert (news.text in text) == outbox.shows_events(ctx.payload), (kind, extra)
