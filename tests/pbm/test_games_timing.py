"""Deadlines: reminders in the players' waking hours, timeouts, pause and extension.
Time is passed in; the tests travel through days without sleeping."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

import engine
from pbm import db, deadlines, games
from pbm import sweep as deadline_sweep
from pbm.deadlines import TimingPolicy
from pbm.models import (
    CommandLog,
    Deadline,
    DeadlineStatus,
    Game,
    GameEvent,
    OutboundMessage,
    Player,
    Seat,
)
from tests.pbm.conftest import new_game, play_until, rows, state_of, submit

CALLS_A_VOTE = (engine.Attack, engine.Mutiny, engine.Brawl)


def sweep(eng: Engine, now: datetime) -> deadlines.SweepReport:
    return db.run_transaction(lambda s: deadline_sweep.sweep_deadlines(s, now), eng)


def in_a_vote(state: engine.GameState) -> bool:
    return any(d.kind is engine.DecisionKind.VOTE for d in engine.pending(state))


def test_the_default_policy_suits_days_long_play() -> None:
    policy = TimingPolicy()
    assert policy.hours_for("ACTION") == 48
    assert policy.hours_for("VOTE") == 24
    assert policy.hours_for("CHOOSE") == policy.hours_for("LETTER_OF_MARQUE") == 24
    assert policy.hours_for("INVITATION") == 72
    assert (policy.grace_hours, policy.final_warning_hours, policy.on_timeout) == (1, 2,
                                                                                   "default")
    assert TimingPolicy.from_json(policy.to_json()) == policy
    assert TimingPolicy.from_json('{"grace_hours": 3, "unknown": 1}').grace_hours == 3


def test_reminders_wait_out_quiet_hours_in_the_players_own_zone() -> None:
    policy = TimingPolicy()
    late_in_berlin = datetime(2026, 3, 2, 22, 30, tzinfo=UTC)  # 23:30 in Berlin
    far = late_in_berlin + timedelta(days=1)
    assert deadlines.polite_time(late_in_berlin, "Europe/Berlin", policy, far) == datetime(
        2026, 3, 3, 7, 0, tzinfo=UTC)  # 08:00 Berlin
    assert deadlines.polite_time(late_in_berlin, "America/New_York", policy, far) == \
        late_in_berlin  # 17:30 in New York
    soon = late_in_berlin + timedelta(hours=3)  # due before the Berlin morning: go earlier
    assert deadlines.polite_time(late_in_berlin, "Europe/Berlin", policy, soon) == datetime(
        2026, 3, 2, 20, 45, tzinfo=UTC)
    opened = datetime(2026, 3, 2, 12, tzinfo=UTC)
    assert deadlines.reminder_times(policy, opened, opened + timedelta(hours=24)) == [
        opened + timedelta(hours=12), opened + timedelta(hours=22)]


def test_the_sweep_reminds_halfway_then_warns_before_the_deadline(eng: Engine,
                                                                   now: datetime) -> None:
    game_id = new_game(eng, now, 3)  # Monday 12:00 UTC; players in UTC
    deadline = rows(eng, Deadline, game_id=game_id, status="open")[0]
    assert deadline.due_at == now + timedelta(hours=24)
    # Half way is midnight, in quiet hours: the reminder waits for 08:00.
    assert deadline.next_reminder_at == datetime(2026, 3, 3, 8, 0, tzinfo=UTC)

    assert sweep(eng, datetime(2026, 3, 3, 1, 0, tzinfo=UTC)).total == 0
    first = sweep(eng, datetime(2026, 3, 3, 8, 1, tzinfo=UTC))
    second = sweep(eng, datetime(2026, 3, 3, 10, 1, tzinfo=UTC))
    third = sweep(eng, datetime(2026, 3, 3, 11, 0, tzinfo=UTC))

    assert (first.reminders, second.final_warnings, third.total) == ([deadline.id],
                                                                     [deadline.id], 0)
    sent = [r for r in rows(eng, OutboundMessage, game_id=game_id)
            if r.kind in {"reminder", "final_warning"}]
    assert [(r.kind, r.seat) for r in sent] == [("reminder", deadline.seat),
                                                ("final_warning", deadline.seat)]
    assert rows(eng, Deadline, id=deadline.id)[0].reminders_sent == 2


def test_a_timed_out_vote_gets_a_default_card_and_the_table_is_told(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 5, seed=4)
    now, _ = play_until(eng, game_id, now, random.Random(3), in_a_vote,
                        prefer=lambda c: isinstance(c, CALLS_A_VOTE))
    voters = [d.seat for d in engine.pending(state_of(eng, game_id))]
    last_event = max(e.seq for e in rows(eng, GameEvent, game_id=game_id))
    last_id = max(r.id for r in rows(eng, OutboundMessage))

    assert sweep(eng, now + timedelta(hours=24, minutes=30)).timeouts == []  # grace
    report = sweep(eng, now + timedelta(hours=25, minutes=1))

    assert len(report.timeouts) == len(voters) and not report.errors
    timed_out = [r for r in rows(eng, CommandLog, game_id=game_id) if r.origin == "timeout"]
    assert sorted(r.seat for r in timed_out) == sorted(voters)
    assert all(r.command == "TIMEOUT" for r in timed_out)  # the draw replays from the log
    with db.session_scope(eng) as session:
        assert games.replay_matches(session, game_id)
    results = [e for e in rows(eng, GameEvent, game_id=game_id)
               if e.kind == "vote.result" and e.seq > last_event]
    assert len(results) == 1, "the vote resolved once the last default card was played"
    assert {d.status for d in rows(eng, Deadline, game_id=game_id)
            if d.id in report.timeouts} == {DeadlineStatus.TIMED_OUT}
    new = [r for r in rows(eng, OutboundMessage) if r.id > last_id]
    told = [r for r in new if r.kind == "timed_out"]
    assert sorted(r.seat for r in told) == sorted(voters)
    # The table is told, but never which card a voter was given.
    public = [e for e in rows(eng, GameEvent, game_id=game_id) if e.kind == "timeout.played"]
    assert len(public) == len(voters) and all(e.audience is None for e in public)
    assert all("one Vote card of their hand, drawn at random, was played" in e.text
               for e in public)
    for row in new:
        if row.seat not in voters:
            assert "VOTE " not in row.text
    assert {r.seat for r in new} == set(range(5))


def test_the_pause_policy_pauses_the_game_and_alerts_the_admin(eng: Engine,
                                                               now: datetime) -> None:
    game_id = new_game(eng, now, 3, timing_policy=TimingPolicy(on_timeout="pause"))
    waiting = engine.pending(state_of(eng, game_id))[0].seat

    report = sweep(eng, now + timedelta(days=3))

    game = rows(eng, Game, id=game_id)[0]
    assert report.paused_games == [game_id] and game.status == "paused"
    assert f"Player {waiting + 1}" in (game.pause_reason or "")
    alerts = [r for r in rows(eng, OutboundMessage) if r.kind == "admin_alert"]
    assert len(alerts) == 1 and alerts[0].to_address == "admin@tortuga.localhost"
    assert rows(eng, CommandLog, game_id=game_id) == []
    assert sweep(eng, now + timedelta(days=4)).total == 0


def test_a_paused_game_keeps_its_deadlines_frozen(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    db.run_transaction(lambda s: games.pause(s, game_id, "tournament break", now=now), eng)

    report = sweep(eng, now + timedelta(days=10))

    assert report.total == 0 and rows(eng, CommandLog, game_id=game_id) == []
    resumed_at = now + timedelta(days=10)
    db.run_transaction(lambda s: games.resume(s, game_id, now=resumed_at), eng)
    deadline = rows(eng, Deadline, game_id=game_id, status="open")[0]
    assert deadline.due_at == resumed_at + timedelta(hours=24)
    assert sweep(eng, resumed_at + timedelta(hours=2)).timeouts == []


def test_extend_gives_a_seat_more_time(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    deadline = rows(eng, Deadline, game_id=game_id, status="open")[0]
    db.run_transaction(lambda s: games.extend(s, game_id, 36, now=now, seat=deadline.seat), eng)

    assert rows(eng, Deadline, id=deadline.id)[0].due_at == deadline.due_at + timedelta(
        hours=36)
    assert sweep(eng, deadline.due_at + timedelta(hours=2)).timeouts == []
    assert len(sweep(eng, deadline.due_at + timedelta(hours=38)).timeouts) == 1


def test_extend_tells_the_awaited_seat_its_new_deadline_in_its_own_zone(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 3, sms_seats=(0, 1, 2))
    deadline = rows(eng, Deadline, game_id=game_id, status="open")[0]
    seat = rows(eng, Seat, game_id=game_id, seat_index=deadline.seat)[0]
    db.run_transaction(lambda s: setattr(s.get(Player, seat.player_id), "time_zone",
                                         "Europe/Berlin"), eng)
    before = max(r.id for r in rows(eng, OutboundMessage))

    result = db.run_transaction(lambda s: games.extend(s, game_id, 24, now=now), eng)

    new = [r for r in rows(eng, OutboundMessage) if r.id > before]
    assert result.notified == [deadline.seat]
    assert [(r.seat, r.kind) for r in new] == [(deadline.seat, "notice")]
    due = deadline.due_at + timedelta(hours=24)  # Wednesday 12:00 UTC
    assert deadline.kind == "PLACE"  # the opening Captain's choice of hold
    assert new[0].sms_body == (
        "Tortuga Test game: You have 24 more hours: your decision is now due "
        "Wed 04 Mar 2026, 13:00 CET (Wed 04 Mar, 12:00 UTC). STATUS=full picture")
    assert rows(eng, Deadline, id=deadline.id)[0].due_at == due

    db.run_transaction(lambda s: games.pause(s, game_id, "lunch", now=now), eng)
    db.run_transaction(lambda s: games.extend(s, game_id, 2, now=now), eng)
    assert [r.kind for r in rows(eng, OutboundMessage) if r.id > new[0].id] == ["paused"] * 3, \
        "while paused nobody is told: RESUMED carries the deadline"


def test_an_unanswered_invitation_is_reminded_and_then_escalated(eng: Engine,
                                                                 now: datetime) -> None:
    game_id = new_game(eng, now, 3, start=False)
    db.run_transaction(lambda s: games.respond(s, game_id, 0, join=True, now=now), eng)

    reminded = sweep(eng, now + timedelta(hours=46))  # half way is 00:00: waits for 08:00
    escalated = sweep(eng, now + timedelta(hours=74))

    assert len(reminded.reminders) == 2 and len(escalated.escalations) == 2
    kinds = Counter(r.kind for r in rows(eng, OutboundMessage, game_id=game_id))
    assert kinds["reminder"] == 2 and kinds["admin_alert"] == 2
    assert rows(eng, Game, id=game_id)[0].status == "inviting"


def test_an_answer_closes_its_deadline_and_opens_the_next(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 4)
    decision = engine.pending(state_of(eng, game_id))[0]
    submit(eng, game_id, decision.seat, decision.legal[0], now + timedelta(hours=1))

    deadlines = rows(eng, Deadline, game_id=game_id)
    done = [d for d in deadlines if d.status == DeadlineStatus.DONE and d.kind != "INVITATION"]
    assert len(done) == 1 and done[0].seat == decision.seat
    state = state_of(eng, game_id)
    open_ = {(d.seat, d.decision_key) for d in deadlines if d.status == "open"}
    assert open_ == {(d.seat, state.decision_id(d.seat)) for d in engine.pending(state)}


def _expire_next(eng: Engine, game_id: int,
                 now: datetime) -> tuple[datetime, deadlines.SweepReport]:
    """Sweep just after the earliest open deadline's grace period."""
    due = min(d.due_at for d in rows(eng, Deadline, game_id=game_id, status="open"))
    now = max(now, due + timedelta(hours=1, minutes=1))
    return now, sweep(eng, now)


def test_a_table_where_nobody_answers_is_paused_after_one_round_of_timeouts(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 3, seed=5)
    submit(eng, game_id, engine.pending(state_of(eng, game_id))[0].seat,
           engine.pending(state_of(eng, game_id))[0].legal[0], now)  # someone answered once

    for _ in range(20):
        now, report = _expire_next(eng, game_id, now)
        assert not report.errors
        if report.paused_games:
            break
    game = rows(eng, Game, id=game_id)[0]

    assert report.paused_games == [game_id] and game.status == "paused"
    assert game.pause_reason == "nobody has answered for a full round"
    defaults = [r for r in rows(eng, CommandLog, game_id=game_id) if r.origin == "timeout"]
    assert {r.seat for r in defaults} == {0, 1, 2}
    assert {r.seat for r in defaults[:-1]} == {0, 1, 2} - {defaults[-1].seat}, \
        "paused as soon as the last silent seat completed the round, not later"
    alerts = [r for r in rows(eng, OutboundMessage) if r.kind == "admin_alert"]
    assert len(alerts) == 1 and "paused: nobody answers" in alerts[0].subject
    assert "pbm game resume" in alerts[0].text
    paused = [r for r in rows(eng, OutboundMessage, game_id=game_id) if r.kind == "paused"]
    assert sorted(r.seat for r in paused) == [0, 1, 2]
    assert all("nobody has answered for a full round" in r.text for r in paused)
    assert sweep(eng, now + timedelta(days=10)).total == 0, "a paused game stays put"

    # Resumed by the admin, the count starts afresh: one more timeout does not pause it.
    db.run_transaction(lambda s: games.resume(s, game_id, now=now), eng)
    now, report = _expire_next(eng, game_id, now)
    assert len(report.timeouts) >= 1 and report.paused_games == []
    assert rows(eng, Game, id=game_id)[0].status == "running"


def test_one_silent_seat_is_played_by_default_while_the_others_play_on(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 3, seed=9)
    silent, rng = 1, random.Random(2)
    timeouts: list[datetime] = []
    while len(timeouts) < 3:
        state = state_of(eng, game_id)
        assert not state.over, "the game should outlast three silent turns"
        others = [d for d in engine.pending(state) if d.seat != silent]
        if others:
            decision = rng.choice(others)
            now += timedelta(minutes=30)
            assert submit(eng, game_id, decision.seat,
                          rng.choice(decision.legal), now).ok
            continue
        now, report = _expire_next(eng, game_id, now)
        assert report.timeouts and report.paused_games == [] and not report.errors
        timeouts.append(now)

    assert rows(eng, Game, id=game_id)[0].status == "running"
    defaults = [r for r in rows(eng, CommandLog, game_id=game_id) if r.origin == "timeout"]
    assert {r.seat for r in defaults} == {silent} and len(defaults) >= 3
    assert [r for r in rows(eng, OutboundMessage) if r.kind == "admin_alert"] == []
    messages = rows(eng, OutboundMessage, game_id=game_id)
    for when in timeouts:  # every seat hears of it at once, the silent one first of all
        told = {r.seat for r in messages
                if r.created_at == when and "Player 2" in r.text and "ran out of time" in r.text}
        assert told >= {0, 2}, when
        assert any(r.seat == silent and r.created_at == when and (
            r.kind == "timed_out" or "Time ran out" in r.text)  # or folded into its prompt
                   for r in messages)


def test_a_nudge_reminds_the_awaited_seat_now_in_place_of_the_next_scheduled_reminder(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 3)
    deadline = rows(eng, Deadline, game_id=game_id, status="open")[0]
    late = now + timedelta(hours=11)  # 23:00 UTC: quiet hours, but the admin asked

    assert db.run_transaction(lambda s: games.nudge(s, game_id, now=late), eng) == 1

    reminders = [r for r in rows(eng, OutboundMessage, game_id=game_id) if r.kind == "reminder"]
    assert [(r.seat, r.created_at) for r in reminders] == [(deadline.seat, late)]
    assert sweep(eng, datetime(2026, 3, 3, 8, 1, tzinfo=UTC)).reminders == [], \
        "the nudge was the half-way reminder"
    assert sweep(eng, datetime(2026, 3, 3, 10, 1, tzinfo=UTC)).final_warnings == [deadline.id]
    db.run_transaction(lambda s: games.pause(s, game_id, "lunch", now=now), eng)
    with pytest.raises(games.WrongState, match="paused: nobody is awaited"):
        db.run_transaction(lambda s: games.nudge(s, game_id, now=late), eng)


def flat(text: str) -> str:
    """Text with its line wrapping undone."""
    return " ".join(text.split())


def _view(eng: Engine, game_id: int, now: datetime) -> None:
    """The awaited seat answers (PLACE, or VIEW on its turn): public news for the table."""
    decision = engine.pending(state_of(eng, game_id))[0]
    command = next((c for c in decision.legal if str(c).startswith("VIEW")), decision.legal[0])
    assert submit(eng, game_id, decision.seat, command, now).ok


def test_tell_me_everything_sends_an_hourly_digest_of_untold_public_events(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 5, sms_seats=(4,))  # Monday 12:00 UTC, players in UTC
    by_seat = {s.seat_index: s.player_id for s in rows(eng, Seat, game_id=game_id)}

    def flag(session: Session) -> None:
        for seat in (1, 4):  # seat 1 reads email, seat 4 prefers SMS; seat 0 is a control
            session.get(Player, by_seat[seat]).tell_everything = True  # type: ignore[union-attr]

    db.run_transaction(flag, eng)

    def digests(seat: int | None = None) -> list[OutboundMessage]:
        return [r for r in rows(eng, OutboundMessage, game_id=game_id)
                if ":digest:" in r.dedupe_key and (seat is None or r.seat == seat)]

    for minutes in (10, 20, 30):  # PLACE, PLACE, VIEW: seats 1 and 4 are not concerned
        _view(eng, game_id, now + timedelta(minutes=minutes))
    public = [e.text for e in rows(eng, GameEvent, game_id=game_id)
              if e.audience is None and e.kind in {"treasure.placed", "event.viewed"}]

    first = sweep(eng, now + timedelta(minutes=40))

    assert len(first.digests) == 2 and not first.errors
    [email] = digests(1)
    assert email.channel == "email" and email.kind == "notice"
    assert "Everything that happened in Test game" in email.text
    assert all(text in flat(email.text) for text in public)
    [sms] = digests(4)
    assert sms.channel == "sms" and sms.sms_body is not None
    assert sms.sms_body.startswith(f"Tortuga Test game: {len(public)} new events; latest: ")
    assert digests(0) == [], "only players who asked for everything"
    told = {s.seat_index: s.last_event_seq for s in rows(eng, Seat, game_id=game_id)}
    newest = max(e.seq for e in rows(eng, GameEvent, game_id=game_id))
    assert told[1] == told[4] == newest
    assert sweep(eng, now + timedelta(minutes=41)).digests == [], "nothing new"

    _view(eng, game_id, now + timedelta(minutes=50))  # seat 3 looks; seat 4 is prompted
    latest = [e.text for e in rows(eng, GameEvent, game_id=game_id)
              if e.audience is None and e.kind == "event.viewed"][-1]
    assert sweep(eng, now + timedelta(minutes=80)).digests == [], "at most one an hour"
    second = sweep(eng, now + timedelta(minutes=101))
    assert [r.seat for r in rows(eng, OutboundMessage) if r.id in second.digests] == [1]
    assert latest in flat(digests(1)[-1].text) and public[0] not in flat(digests(1)[-1].text)
    assert len(digests(4)) == 1, "seat 4's prompt told it already"

    _view(eng, game_id, now + timedelta(hours=4))  # seat 4 looks at 16:00 (no REPLY here)
    night = datetime(2026, 3, 2, 23, 30, tzinfo=UTC)
    assert sweep(eng, night).digests == [], "quiet hours: it waits for the morning"
    morning = sweep(eng, datetime(2026, 3, 3, 8, 5, tzinfo=UTC))
    assert sorted(r.seat for r in rows(eng, OutboundMessage)
                  if r.id in morning.digests) == [1, 4]


# ---------------------------------------------------------------- fair timeouts (issue 13)


def test_the_last_call_for_a_place_decision_says_which_hold_this_captain_gets(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 4, sms_seats=(0, 1, 2, 3))
    state = state_of(eng, game_id)
    captain = engine.pending(state)[0].seat
    will_play = str(engine.default_command(state, captain))
    deadline = rows(eng, Deadline, game_id=game_id, status="open")[0]

    sweep(eng, deadline.due_at - timedelta(hours=3, minutes=59))  # the half-way reminder
    sweep(eng, deadline.due_at - timedelta(hours=1, minutes=59))

    (reminder,) = [r for r in rows(eng, OutboundMessage, game_id=game_id)
                   if r.kind == "reminder"]
    assert f"No reply = {will_play} (a random hold)." in (reminder.sms_body or "")
    (last_call,) = [r for r in rows(eng, OutboundMessage, game_id=game_id)
                    if r.kind == "final_warning"]
    print(f"\n--- email text ---\n{last_call.text}--- SMS ---\n{last_call.sms_body}")
    assert ("If no answer arrives by the deadline, this is played for you: your ship's "
            "starting treasure goes into a hold drawn at random (British or French, even "
            f"odds) (drawn for this question: {will_play})") in " ".join(last_call.text.split())
    assert "for a turn" not in last_call.text and "for a vote" not in last_call.text
    assert f"No reply = {will_play} (a random hold)." in (last_call.sms_body or "")

    report = sweep(eng, deadline.due_at + timedelta(hours=1, minutes=1))
    assert report.timeouts == [deadline.id]
    assert will_play.split()[1] == ("BRITISH" if state_of(eng, game_id).treasure[
        "FD_BRITISH"] else "FRENCH"), "the timeout played what the last call announced"


def test_the_timeout_notice_reaches_the_silent_seat_before_the_prompt_that_follows(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 2, seed=3)
    while engine.pending(state_of(eng, game_id))[0].kind is engine.DecisionKind.PLACE:
        d = engine.pending(state_of(eng, game_id))[0]
        assert submit(eng, game_id, d.seat, d.legal[0], now).ok
    seat = engine.pending(state_of(eng, game_id))[0].seat  # action 1 of 2 of its turn
    before = max(r.id for r in rows(eng, OutboundMessage))

    now, report = _expire_next(eng, game_id, now)

    assert report.timeouts and not report.errors
    mine = [r for r in rows(eng, OutboundMessage, game_id=game_id)
            if r.id > before and r.seat == seat]
    assert [r.kind for r in mine] == ["timed_out", "prompt"]
    assert "Why: a turn must be taken" in mine[0].text
    other = [r for r in rows(eng, OutboundMessage, game_id=game_id)
             if r.id > before and r.seat != seat]
    assert other and all("Player" in r.text and "ran out of time" in r.text for r in other)


def test_a_timed_out_captain_takes_no_treasure_and_the_table_reads_why(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 5, seed=4)
    now, _ = play_until(eng, game_id, now, random.Random(5),
                        lambda s: any(d.kind is engine.DecisionKind.TAKE
                                      for d in engine.pending(s)),
                        prefer=lambda c: isinstance(c, engine.Attack))
    before = state_of(eng, game_id).treasure

    now, report = _expire_next(eng, game_id, now)

    assert report.timeouts and state_of(eng, game_id).treasure == before
    (notice,) = [e for e in rows(eng, GameEvent, game_id=game_id) if e.kind == "timeout.played"]
    assert "no treasure was taken (TAKE NONE)" in notice.text
    assert "taking it would hand it to a team" in notice.text


def test_after_a_three_day_pause_every_decision_has_at_least_the_floor_and_reminders_follow(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 4)
    paused_at = now + timedelta(hours=23)  # the PLACE decision has 1 hour left
    db.run_transaction(lambda s: games.pause(s, game_id, "holiday", now=paused_at), eng)
    resumed_at = paused_at + timedelta(days=3)
    before = max(r.id for r in rows(eng, OutboundMessage))

    db.run_transaction(lambda s: games.resume(s, game_id, now=resumed_at), eng)

    floor = timedelta(hours=TimingPolicy().resume_floor_hours)
    assert floor == timedelta(hours=12)
    open_ = rows(eng, Deadline, game_id=game_id, status="open")
    assert open_ and all(d.due_at >= resumed_at + floor for d in open_)
    assert all(d.next_reminder_at is not None and d.next_reminder_at > resumed_at
               for d in open_)
    resumed = [r for r in rows(eng, OutboundMessage, game_id=game_id)
               if r.id > before and r.kind == "resumed"]
    assert len(resumed) == 4
    assert sweep(eng, resumed_at + timedelta(minutes=5)).total == 0, \
        "no reminder on the heels of the RESUMED message"
    assert sweep(eng, resumed_at + floor - timedelta(minutes=1)).final_warnings
    assert sweep(eng, resumed_at + floor + timedelta(minutes=59)).timeouts == []


def test_a_resume_keeps_a_longer_remaining_time_than_the_floor(eng: Engine,
                                                                now: datetime) -> None:
    game_id = new_game(eng, now, 4)
    paused_at = now + timedelta(hours=4)  # 20 hours left
    db.run_transaction(lambda s: games.pause(s, game_id, "lunch", now=paused_at), eng)
    resumed_at = paused_at + timedelta(days=3)
    db.run_transaction(lambda s: games.resume(s, game_id, now=resumed_at), eng)
    (deadline,) = rows(eng, Deadline, game_id=game_id, status="open")
    assert deadline.due_at == resumed_at + timedelta(hours=20)


def test_resuming_after_the_pause_policy_gives_the_silent_seat_a_fresh_deadline(
    eng: Engine, now: datetime
) -> None:
    game_id = new_game(eng, now, 3, timing_policy=TimingPolicy(on_timeout="pause"))
    sweep(eng, now + timedelta(days=2))
    assert rows(eng, Game, id=game_id)[0].status == "paused"
    assert rows(eng, Deadline, game_id=game_id, status="open") == []
    resumed_at = now + timedelta(days=5)

    db.run_transaction(lambda s: games.resume(s, game_id, now=resumed_at), eng)

    (deadline,) = rows(eng, Deadline, game_id=game_id, status="open")
    state = state_of(eng, game_id)
    assert deadline.decision_key == state.decision_id(deadline.seat)
    assert deadline.due_at >= resumed_at + timedelta(hours=12)
