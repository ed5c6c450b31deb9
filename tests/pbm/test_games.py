"""pbm.games: whole games through the service, refusals, lifecycle verbs, the outbox."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import select

import engine
from pbm import db, games
from pbm import outbox as outbox_module
from pbm.deadlines import TimingPolicy
from pbm.message_payloads import GameOver
from pbm.models import (
    BoardImage,
    CommandLog,
    Deadline,
    DeadlineStatus,
    Game,
    GameEvent,
    GameStatus,
    OutboundMessage,
    Player,
    Seat,
)
from tests.pbm.conftest import new_game, play_until, player_specs, rows, state_of, submit


def prompt_key(row: OutboundMessage) -> tuple[int, str]:
    """(seat, decision id) a PROMPT row answers, from its dedupe key."""
    parts = row.dedupe_key.split(":")  # g1:s0:prompt:12.0:email
    assert parts[2] == "prompt"
    return int(parts[1][1:]), parts[3]


REPLY_WORD = {"ACTION": "VIEW", "VOTE": "VOTE", "PLACE": "PLACE", "CHOOSE": "CHOOSE",
              "LETTER_OF_MARQUE": "SAVE", "SHOOT": "SHOOT", "GIVE": "GIVE", "TAKE": "TAKE",
              "FOUNTAIN": "FOUNTAIN"}


def test_a_five_player_game_runs_from_invitation_to_the_end_with_one_prompt_per_decision(
    eng: Engine, now: datetime
) -> None:
    manual = TimingPolicy(auto_start=False)
    game_id = new_game(eng, now, 5, seed=11, start=False, timing_policy=manual)
    for seat in range(5):
        joined = db.run_transaction(
            lambda s, seat=seat: games.respond(s, game_id, seat, join=True, now=now), eng)
        assert joined.ok and joined.done == ["JOIN"]
    assert rows(eng, Game, id=game_id)[0].status == GameStatus.INVITING
    started = db.run_transaction(lambda s: games.start(s, game_id, now=now), eng)
    assert started.ok and started.notified == [0, 1, 2, 3, 4]

    start_time = now
    now, opened = play_until(eng, game_id, now, random.Random(5))

    game = rows(eng, Game, id=game_id)[0]
    assert game.status == GameStatus.FINISHED and game.finished_at is not None
    seats = {s.seat_index: s for s in rows(eng, Seat, game_id=game_id)}
    players = {p.id: p for p in rows(eng, Player)}
    outbox = rows(eng, OutboundMessage, game_id=game_id)
    kinds = Counter(r.kind for r in outbox)
    assert kinds["invitation"] == 5 and kinds["game_over"] == 5
    first_deciders = {seat for (seat, _), (_, when) in opened.items() if when == start_time}
    assert kinds["game_started"] == 5 - len(first_deciders), "the others get GAME_STARTED"

    prompts = [r for r in outbox if r.kind == "prompt"]
    per_decision = Counter(prompt_key(r) for r in prompts)
    assert set(per_decision) == set(opened), "every decision prompted, nothing else"
    assert set(per_decision.values()) == {1}, "never two prompts for one decision"
    for row in prompts:
        seat = seats[row.seat]
        kind, opened_at = opened[prompt_key(row)]
        assert row.created_at == opened_at, "prompted in the transaction that opened it"
        assert REPLY_WORD[kind] in row.text, (kind, row.text)
        assert row.to_address == players[seat.player_id].email
        assert row.reply_to == f"play+{seat.reply_token}@tortuga.localhost"
        assert row.in_reply_to == seat.thread_message_id  # threaded under the invitation
        assert f"Player {row.seat + 1}" in row.text and row.html
        assert row.board_image_key is not None
    if any(e.kind == "vote.result" for e in rows(eng, GameEvent, game_id=game_id)):
        assert kinds["vote_result"] > 0, "voters who are not prompted next hear the result"
    invitations = [r for r in outbox if r.kind == "invitation"]
    assert all(r.message_id == seats[r.seat].thread_message_id for r in invitations)
    assert len({r.dedupe_key for r in outbox}) == len(outbox)

    # Loyalties are revealed to everyone at the end.
    final = state_of(eng, game_id)
    with db.session_scope(eng, write=False) as session:
        g = session.get(Game, game_id)
        for seat, player in games.seats_of(session, game_id):
            ctx = outbox_module.build_context(session, g, seat, player, GameOver(),
                                              state=final)
            public = ctx.seat_view["public"]
            assert public["loyalties"] == [x.value for x in final.loyalties]

    # Seed + command log replay to the stored snapshot; one board picture per version.
    log = rows(eng, CommandLog, game_id=game_id)
    assert [r.seq for r in log] == list(range(1, len(log) + 1))
    assert [r.state_version for r in log] == sorted(r.state_version for r in log)
    with db.session_scope(eng, write=False) as session:
        assert games.replay_matches(session, game_id)
    images = rows(eng, BoardImage, game_id=game_id)
    assert len({i.version for i in images}) == len(images)
    assert not [d for d in rows(eng, Deadline, game_id=game_id) if d.status == "open"]


def test_a_command_the_rules_refuse_changes_nothing_and_says_why(eng: Engine,
                                                                 now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    before = rows(eng, Game, id=game_id)[0]
    outbox_before = len(rows(eng, OutboundMessage))
    state = state_of(eng, game_id)
    idle = next(s for s in range(3) if state.decision_id(s) is None)

    not_awaited = submit(eng, game_id, idle, engine.Reveal(1), now)
    unparseable = submit(eng, game_id, engine.pending(state)[0].seat, "DANCE", now)

    assert not not_awaited.ok and not_awaited.code == "command/not_your_decision"
    assert not unparseable.ok and unparseable.code == "command/unparseable"
    assert "DANCE" in unparseable.message
    after = rows(eng, Game, id=game_id)[0]
    assert (after.version, after.state_json) == (before.version, before.state_json)
    assert rows(eng, CommandLog, game_id=game_id) == []
    assert len(rows(eng, OutboundMessage)) == outbox_before


def test_a_reply_to_a_closed_decision_is_refused_without_touching_the_game(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 4)
    state = state_of(eng, game_id)
    decision = engine.pending(state)[0]
    old_id = state.decision_id(decision.seat)
    assert submit(eng, game_id, decision.seat, decision.legal[0], now).ok
    version = rows(eng, Game, id=game_id)[0].version

    stale = submit(eng, game_id, decision.seat, decision.legal[0], now, decision_id=old_id)

    assert not stale.ok and stale.code == "command/not_your_decision"
    assert "already closed" in stale.message
    assert rows(eng, Game, id=game_id)[0].version == version
    assert len(rows(eng, CommandLog, game_id=game_id)) == 1


def test_several_commands_apply_in_order_until_the_first_refusal(eng: Engine,
                                                                 now: datetime) -> None:
    game_id = new_game(eng, now, 2, seed=3)
    state = state_of(eng, game_id)
    while engine.pending(state)[0].kind is not engine.DecisionKind.ACTION:
        d = engine.pending(state)[0]
        submit(eng, game_id, d.seat, d.legal[0], now)
        state = state_of(eng, game_id)
    seat = engine.pending(state)[0].seat
    view = next(c for c in engine.legal_commands(state, seat) if isinstance(c, engine.View))
    logged = len(rows(eng, CommandLog, game_id=game_id))

    result = submit(eng, game_id, seat, [view, "REVEAL 9", "LAND"], now)

    assert result.done == [str(view)]
    assert result.not_done[0]["command"] == "REVEAL 9"
    assert result.ignored == ["LAND"]
    assert not result.ok and len(rows(eng, CommandLog, game_id=game_id)) == logged + 1
    assert any("looked at" in e["text"] for e in result.events)


REFUSED_SETUPS: list[tuple[list[games.PlayerSpec], str]] = [
    (player_specs(10), "2 to 9 players, not 10"),
    (player_specs(1), "not 1"),
    ([games.PlayerSpec("Ann", email="a@x.org"), games.PlayerSpec("Bob", email="A@x.org")],
     "share the email"),
    ([games.PlayerSpec("Ann", email="a@x.org"), games.PlayerSpec("ann", email="b@x.org")],
     "share the name"),
    ([games.PlayerSpec("Ann", email="a@x"), games.PlayerSpec("Bob", email="b@x.org")],
     "not an email address"),
    ([games.PlayerSpec("Ann", phone="555"), games.PlayerSpec("Bob", email="b@x.org")],
     "international form"),
    ([games.PlayerSpec("Ann", email="a@x.org", time_zone="Mars/Base"),
      games.PlayerSpec("Bob", email="b@x.org")], "unknown time zone"),
]


def test_creating_a_game_refuses_human_errors_with_one_clear_line(eng: Engine,
                                                                  now: datetime) -> None:
    for players, expected in REFUSED_SETUPS:
        with pytest.raises(games.InvalidRequest, match=expected) as refused:
            db.run_transaction(lambda s, p=players: games.create_game(s, "G", p, now=now), eng)
        assert "\n" not in str(refused.value)
    assert rows(eng, Game) == [] and rows(eng, Player) == []


def test_a_game_name_is_unique(eng: Engine, now: datetime) -> None:
    new_game(eng, now, 3, name="Same", start=False)
    with pytest.raises(games.InvalidRequest, match="already exists"):
        new_game(eng, now, 3, name="Same", start=False)


def test_player_specs_parse_names_emails_and_phones() -> None:
    assert games.PlayerSpec.parse("Ann Bonny <ann@example.org>") == games.PlayerSpec(
        "Ann Bonny", email="ann@example.org")
    assert games.PlayerSpec.parse("Bob +1 (555) 123-4567").phone == "+15551234567"
    both = games.PlayerSpec.parse("Cy <cy@x.org> +4915112345678")
    assert (both.name, both.email, both.phone) == ("Cy", "cy@x.org", "+4915112345678")
    with pytest.raises(games.InvalidRequest, match="give an email"):
        games.PlayerSpec.parse("Nobody")


def test_start_waits_for_everyone_unless_forced_and_a_decline_needs_a_replacement(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 3, start=False)
    db.run_transaction(lambda s: games.respond(s, game_id, 0, join=True, now=now), eng)
    with pytest.raises(games.WrongState, match="waiting for Player 2, Player 3"):
        db.run_transaction(lambda s: games.start(s, game_id, now=now), eng)
    db.run_transaction(lambda s: games.respond(s, game_id, 1, join=False, now=now), eng)
    with pytest.raises(games.WrongState, match=r"seat 2 \(Player 2\) declined"):
        db.run_transaction(lambda s: games.start(s, game_id, now=now), eng)
    with pytest.raises(games.WrongState, match=r"only 1 of 3 players joined"):
        db.run_transaction(lambda s: games.start(s, game_id, now=now, force=True), eng)
    admin = [r for r in rows(eng, OutboundMessage) if r.kind == "admin_alert"]
    assert len(admin) == 1 and "declined" in admin[0].subject

    db.run_transaction(lambda s: games.replace_seat(
        s, game_id, 1, games.PlayerSpec("Dee", email="dee@example.org"), now=now), eng)
    dee_invites = [r for r in rows(eng, OutboundMessage, kind="invitation")
                   if r.to_address == "dee@example.org"]
    assert len(dee_invites) == 1
    db.run_transaction(lambda s: games.respond(s, game_id, 1, join=True, now=now), eng)
    result = db.run_transaction(lambda s: games.start(s, game_id, now=now, force=True), eng)

    assert result.ok and rows(eng, Game, id=game_id)[0].status == GameStatus.RUNNING
    assert state_of(eng, game_id).names == ("Player 1", "Dee")  # Player 3 never joined
    with pytest.raises(games.WrongState, match="already started"):
        db.run_transaction(lambda s: games.start(s, game_id, now=now), eng)


def test_invitations_are_written_once_even_when_sent_again(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3, start=False)
    db.run_transaction(lambda s: games.invite(s, game_id, now=now), eng)
    invitations = rows(eng, OutboundMessage, kind="invitation")
    assert len(invitations) == 3
    assert {r.in_reply_to for r in invitations} == {None}
    deadlines = rows(eng, Deadline, game_id=game_id)
    assert [d.kind for d in deadlines] == ["INVITATION"] * 3
    assert {d.due_at - now for d in deadlines} == {timedelta(hours=72)}


def test_pause_refuses_commands_and_resume_moves_deadlines_by_the_pause_length(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 4)
    due_before = {d.id: d.due_at for d in rows(eng, Deadline, game_id=game_id, status="open")}
    assert due_before
    db.run_transaction(lambda s: games.pause(s, game_id, "holiday", now=now), eng)
    state = state_of(eng, game_id)
    d = engine.pending(state)[0]

    refused = submit(eng, game_id, d.seat, d.legal[0], now + timedelta(hours=1))
    later = now + timedelta(hours=30)
    db.run_transaction(lambda s: games.resume(s, game_id, now=later), eng)

    assert not refused.ok and refused.code == "game/paused" and "holiday" in refused.message
    due_after = {d.id: d.due_at for d in rows(eng, Deadline, game_id=game_id, status="open")}
    assert due_after == {i: due + timedelta(hours=30) for i, due in due_before.items()}
    kinds = Counter(r.kind for r in rows(eng, OutboundMessage, game_id=game_id))
    assert kinds["paused"] == 4 and kinds["resumed"] == 4
    assert submit(eng, game_id, d.seat, d.legal[0], later).ok


def test_replacing_a_seat_briefs_the_newcomer_with_everything_that_seat_knew(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 4, seed=5)
    now, _ = play_until(eng, game_id, now, random.Random(2),
                        lambda s: s.version >= 12 and not s.over)
    old_seat = rows(eng, Seat, game_id=game_id, seat_index=2)[0]
    private = [c for c in rows(eng, CommandLog, game_id=game_id)]
    assert private

    result = db.run_transaction(lambda s: games.replace_seat(
        s, game_id, 2, games.PlayerSpec("Newcomer", email="new@example.org"), now=now), eng)

    assert result.ok
    seat = rows(eng, Seat, game_id=game_id, seat_index=2)[0]
    assert seat.reply_token != old_seat.reply_token
    assert seat.thread_message_id != old_seat.thread_message_id
    with db.session_scope(eng, write=False) as session:
        assert games.find_seat_by_token(session, old_seat.reply_token) is None
        assert games.replay_matches(session, game_id)
    briefing = [r for r in rows(eng, OutboundMessage, kind="seat_replaced")]
    assert len(briefing) == 1 and briefing[0].to_address == "new@example.org"
    assert briefing[0].message_id == seat.thread_message_id
    assert state_of(eng, game_id).names[2] == "Newcomer"
    others = [r for r in rows(eng, OutboundMessage, kind="notice")
              if "takes over" in r.text]
    assert {r.to_address for r in others} >= {"p1@example.org", "p3@example.org"}
    with db.session_scope(eng, write=False) as session:
        ctx, _ = games.preview(session, game_id, 2)
    assert ctx.player_name == "Newcomer"


def test_abort_tells_everyone_and_closes_every_deadline(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    db.run_transaction(lambda s: games.abort(s, game_id, "server move", now=now), eng)
    game = rows(eng, Game, id=game_id)[0]
    assert game.status == GameStatus.ABORTED
    assert not rows(eng, Deadline, game_id=game_id, status=DeadlineStatus.OPEN)
    assert len(rows(eng, OutboundMessage, kind="game_over")) == 3
    with pytest.raises(games.WrongState, match="already aborted"):
        db.run_transaction(lambda s: games.abort(s, game_id, "again", now=now), eng)
    refused = submit(eng, game_id, 0, "VIEW 1 2", now)
    assert not refused.ok and refused.code == "game/over"


def test_table_talk_is_relayed_by_email_and_folded_into_the_next_sms(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 3, sms_seats=(2,))
    result = db.run_transaction(lambda s: games.say(s, game_id, 0, "  Trust   me,  mates " +
                                                    "x" * 600, now=now), eng)
    assert result.ok and result.notified == [1] and "cut to 500" in result.message
    talk = rows(eng, OutboundMessage, kind="table_talk")
    assert [r.to_address for r in talk] == ["p2@example.org"]
    assert "Trust me, mates" in talk[0].text
    with db.session_scope(eng, write=False) as session:
        ctx, _ = games.preview(session, game_id, 2)
    assert ctx.common.table_talk[0].text.startswith("Trust me, mates")
    empty = db.run_transaction(lambda s: games.say(s, game_id, 1, "   ", now=now), eng)
    assert not empty.ok


def test_a_status_request_writes_one_status_message(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    for _ in range(2):
        db.run_transaction(lambda s: games.status(s, game_id, 1, now=now, dedupe="in7"), eng)
    status = rows(eng, OutboundMessage, kind="status")
    assert len(status) == 1 and status[0].to_address == "p2@example.org"


def test_an_sms_player_gets_sms_prompts_and_email_takes_over_after_stop(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 3, sms_seats=(0, 1, 2), seed=9)
    sms = [r for r in rows(eng, OutboundMessage, game_id=game_id) if r.channel == "sms"]
    assert sms and all(r.sms_body and r.to_address.startswith("+1555") for r in sms)
    assert all(r.message_id is None for r in sms)
    with db.session_scope(eng) as session:
        for player in session.exec(select(Player)):
            player.sms_opted_out = True
    now, _ = play_until(eng, game_id, now, random.Random(1),
                        lambda s: s.version >= 3)
    later = [r for r in rows(eng, OutboundMessage, game_id=game_id) if r.id > sms[-1].id]
    assert later and {r.channel for r in later} == {"email"}
