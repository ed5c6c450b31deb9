"""A game from creation to its end: create, invite, JOIN/DECLINE, start (also forced),
finish when the engine says it is over, and abort.
"""

from __future__ import annotations

import json
import secrets
import shlex
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlmodel import Session, select

import engine
from pbm import deadlines, outbox
from pbm.deadlines import INVITATION, TimingPolicy
from pbm.games import unmasking
from pbm.games.base import (
    InvalidRequest,
    Result,
    WrongState,
    due_at_of,
    load_state,
    lock_game,
    make_result,
    options_of,
    policy_of,
    record_events,
    save_state,
    seat_of,
    seats_of,
    service_event,
    sync_deadlines,
    timing_of,
)
from pbm.games.players import PlayerSpec, check_distinct, new_token, upsert_player
from pbm.message_payloads import GameOver, GameStarted, Invitation, Notice, Prompt
from pbm.models import (
    Deadline,
    DeadlineStatus,
    Game,
    GameStatus,
    InboundMessage,
    InvitationStatus,
    OutboundMessage,
    Player,
    Seat,
    ServiceEventKind,
)
from pbm.replies.reasons import ALREADY_JOINED, ALREADY_STARTED, LEFT_OUT

MIN_PLAYERS, MAX_PLAYERS = 2, 9


def create_game(
    session: Session,
    name: str,
    players: Sequence[PlayerSpec],
    *,
    now: datetime,
    seed: int | None = None,
    options: engine.GameOptions | None = None,
    timing_policy: TimingPolicy | None = None,
) -> Game:
    """A new game with 2-9 seats, in seat order; nobody is told until ``invite``."""
    name = name.strip()
    if not name or len(name) > 80:
        raise InvalidRequest("give the game a name of 1-80 characters")
    if session.exec(select(Game.id).where(Game.name == name)).first() is not None:
        raise InvalidRequest(f"a game named {name!r} already exists")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise InvalidRequest(
            f"Tortuga 1667 takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}"
        )
    check_distinct(players)
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    options = options or engine.GameOptions()
    try:  # let the engine judge the options before anyone is invited
        engine.new_game([p.name for p in players], seed, options)
    except engine.SetupError as exc:
        raise InvalidRequest(exc.message) from exc
    except NotImplementedError:
        pass
    game = Game(
        name=name,
        status=GameStatus.CREATED,
        seed=seed,
        options_json=json.dumps(options.to_dict(), sort_keys=True),
        timing_json=(timing_policy or TimingPolicy()).to_json(),
        created_at=now,
        updated_at=now,
    )
    session.add(game)
    session.flush()
    assert game.id is not None
    for index, spec in enumerate(players):
        player = upsert_player(session, spec)
        session.add(Seat(
            game_id=game.id,
            player_id=player.id,  # type: ignore[arg-type]
            seat_index=index,
            reply_token=new_token(),
            thread_message_id=outbox.new_thread_id(game.id, index),
        ))
    session.flush()
    return game


def invite(session: Session, game_id: int, *, now: datetime) -> Result:
    """Invite every seat that has not answered yet (INVITATION messages, 72 h deadline)."""
    game = lock_game(session, game_id)
    if game.status not in {GameStatus.CREATED, GameStatus.INVITING}:
        raise WrongState(f"game {game.name!r} is {game.status}: invitations are over")
    policy = policy_of(game)
    sent = []
    for seat, player in seats_of(session, game_id):
        if seat.invitation_status in {InvitationStatus.JOINED, InvitationStatus.DECLINED}:
            continue
        rows = outbox.notify(
            session, game, seat, player, Invitation(
                players=tuple(p.display_name for _, p in seats_of(session, game_id)),
                respond_by_hours=policy.invitation_hours, timing=timing_of(policy)),
            now=now, dedupe=f"g{game_id}:s{seat.seat_index}:invitation:{seat.reply_token}",
            deadline=now + timedelta(hours=policy.invitation_hours),
        )
        if rows:
            sent.append(seat.seat_index)
            seat.invitation_status = InvitationStatus.INVITED
            if not deadlines.open_deadlines(session, game_id, kind=INVITATION,
                                            seat=seat.seat_index):
                deadlines.open_deadline(session, game, seat.seat_index,
                                        f"invite:{seat.reply_token}", INVITATION, policy,
                                        player.time_zone, now)
    game.status = GameStatus.INVITING
    game.updated_at = now
    session.add(game)
    session.flush()
    return make_result(session, game, None, ok=True, notified=sent,
                       message=f"invited {len(sent)} player(s) to {game.name}")


def respond(session: Session, game_id: int, seat_index: int, *, join: bool,
            now: datetime) -> Result:
    """A player's JOIN or DECLINE. The last JOIN starts the game (policy ``auto_start``)."""
    game = lock_game(session, game_id)
    seat, player = seat_of(session, game_id, seat_index)
    if game.status not in {GameStatus.CREATED, GameStatus.INVITING}:
        why = (ALREADY_JOINED if seat.invitation_status == InvitationStatus.JOINED
               else ALREADY_STARTED)(game=game.name)
        return make_result(session, game, seat_index, ok=False, code="game/started",
                           message=why, why=why.to_dict())
    for deadline in deadlines.open_deadlines(session, game_id, kind=INVITATION, seat=seat_index):
        deadline.status = DeadlineStatus.DONE
        deadline.resolved_at = now
        deadline.next_reminder_at = None
    if not join:
        seat.invitation_status = InvitationStatus.DECLINED
        session.add(seat)
        outbox.alert_admin(
            session, game, f"{player.display_name} declined",
            f"{player.display_name} (seat {seat_index + 1}) declined {game.name}. "
            f"Replace the seat: pbm game replace {shlex.quote(game.name)} {seat_index + 1} "
            "--player ...",
            now=now, dedupe=f"g{game_id}:s{seat_index}:declined:{seat.reply_token}",
        )
        return make_result(session, game, seat_index, ok=True, done=["DECLINE"],
                           message=f"{player.display_name} declined {game.name}")
    seat.invitation_status = InvitationStatus.JOINED
    session.add(seat)
    session.flush()
    everyone = all(s.invitation_status == InvitationStatus.JOINED
                   for s, _ in seats_of(session, game_id))
    if everyone and policy_of(game).auto_start:
        started = start(session, game_id, now=now)
        started.done.insert(0, "JOIN")
        started.seat = seat_index
        started.message = f"{player.display_name} joined; everyone is in: {started.message}"
        return started
    return make_result(session, game, seat_index, ok=True, done=["JOIN"],
                       message=f"{player.display_name} joined {game.name}")


def games_everyone_joined(session: Session) -> list[int]:
    """Ids of games still inviting whose every seat has joined (a start that was due and
    did not happen: the sweep starts them, so no such game waits for ever)."""
    not_joined = select(Seat.id).where(
        Seat.game_id == Game.id, Seat.invitation_status != InvitationStatus.JOINED).exists()
    return [int(i) for i in session.exec(
        select(Game.id).where(Game.status == GameStatus.INVITING, ~not_joined)).all()
        if i is not None]


def start_if_everyone_joined(session: Session, game_id: int, *, now: datetime) -> Result | None:
    """Start an inviting game whose every seat has joined (policy ``auto_start``), under its
    lock; None when there is nothing to do (started meanwhile, a seat not joined)."""
    game = lock_game(session, game_id)
    if game.status != GameStatus.INVITING or not policy_of(game).auto_start:
        return None
    if any(s.invitation_status != InvitationStatus.JOINED for s, _ in seats_of(session, game_id)):
        return None
    return start(session, game_id, now=now)


def start(session: Session, game_id: int, *, now: datetime, force: bool = False) -> Result:
    """Deal the game (``engine.new_game``) once everyone joined, or now with ``force``."""
    game = lock_game(session, game_id)
    if game.status not in {GameStatus.CREATED, GameStatus.INVITING}:
        raise WrongState(f"game {game.name!r} has already started ({game.status})")
    seats = seats_of(session, game_id)
    declined = [f"seat {s.seat_index + 1} ({p.display_name})" for s, p in seats
                if s.invitation_status == InvitationStatus.DECLINED]
    if declined and not force:
        raise WrongState(f"{', '.join(declined)} declined: replace before starting "
                         "(or use --force to start without them)")
    missing = [p.display_name for s, p in seats if s.invitation_status != InvitationStatus.JOINED]
    if missing and not force:
        raise WrongState(f"still waiting for {', '.join(missing)} to join (or use --force)")
    left_out: list[str] = []
    if missing and game.status == GameStatus.INVITING:  # forced: who has not joined sits out
        seats, left_out = _leave_out(session, game, seats, now)
    try:
        state = engine.new_game([p.display_name for _, p in seats], game.seed, options_of(game))
    except engine.SetupError as exc:
        raise InvalidRequest(exc.message) from exc
    for seat, _ in seats:
        seat.invitation_status = InvitationStatus.JOINED
        session.add(seat)
    deadlines.close_all(session, game_id, DeadlineStatus.CANCELLED, now)
    save_state(game, state, now)
    game.status = GameStatus.RUNNING
    game.started_at = now
    session.add(game)
    session.flush()
    playing = ", ".join(p.display_name for _, p in seats)
    started = record_events(session, game, [service_event(
        ServiceEventKind.GAME_STARTED,
        f"{game.name} has begun with {len(seats)} players: {playing}."
        + (f" Left out (had not joined): {', '.join(left_out)}." if left_out else ""))],
        now=now)
    policy = policy_of(game)
    sync_deadlines(session, game, state, policy, now)
    notified = []
    for seat, player in seats:
        decision = state.decision_id(seat.seat_index)
        payload: Prompt | GameStarted
        if decision is not None:
            payload, dedupe = Prompt(started=True), \
                f"g{game_id}:s{seat.seat_index}:prompt:{decision}"
        else:
            payload, dedupe = GameStarted(started=True), f"g{game_id}:s{seat.seat_index}:started"
        outbox.notify(session, game, seat, player, payload, now=now, dedupe=dedupe, state=state,
                      deadline=due_at_of(session, game_id, seat.seat_index), announced=started)
        notified.append(seat.seat_index)
    return make_result(session, game, None, ok=True, state=state, notified=notified,
                       message=f"{game.name} started with {playing}"
                       + (f"; left out (had not joined): {', '.join(left_out)}"
                          if left_out else ""))


def _leave_out(session: Session, game: Game, seats: list[tuple[Seat, Player]], now: datetime,
               ) -> tuple[list[tuple[Seat, Player]], list[str]]:
    """A forced start: the seats that have not joined are told and removed, and the others
    are numbered 0..n-1 again (the engine's seats); messages, replies and deadlines follow
    their seat. Returns (the seats that play, the names left out)."""
    playing = [(s, p) for s, p in seats if s.invitation_status == InvitationStatus.JOINED]
    out = [(s, p) for s, p in seats if s.invitation_status != InvitationStatus.JOINED]
    if len(playing) < MIN_PLAYERS:
        raise WrongState(f"only {len(playing)} of {len(seats)} players joined {game.name}: "
                         f"a game needs {MIN_PLAYERS}; wait for JOINs or replace seats")
    names = ", ".join(p.display_name for _, p in playing)
    for seat, player in out:
        outbox.notify(session, game, seat, player, Notice(
                          headline=LEFT_OUT(game=game.name, names=names)),
                      now=now, recap=False,
                      dedupe=f"g{game.id}:s{seat.seat_index}:left_out:{seat.reply_token}")
    renumber = {s.seat_index: new for new, (s, _) in enumerate(playing)}
    left_out = {s.seat_index for s, _ in out}
    for seat, _ in out:
        session.delete(seat)
    session.flush()
    for seat, _ in playing:  # one at a time: (game_id, seat_index) is unique at every step
        if renumber[seat.seat_index] != seat.seat_index:
            seat.seat_index = renumber[seat.seat_index]
            session.add(seat)
            session.flush()
    rows: list[OutboundMessage | InboundMessage | Deadline] = [
        *session.exec(select(OutboundMessage).where(OutboundMessage.game_id == game.id)),
        *session.exec(select(InboundMessage).where(InboundMessage.game_id == game.id)),
        *session.exec(select(Deadline).where(Deadline.game_id == game.id))]
    for row in rows:
        if row.seat is not None:
            new_index = None if row.seat in left_out else renumber.get(row.seat, row.seat)
            if new_index != row.seat:
                row.seat = new_index
                session.add(row)
    session.flush()
    return playing, [p.display_name for _, p in out]


def finish_game(session: Session, game: Game, state: engine.GameState, now: datetime) -> list[int]:
    assert game.id is not None
    deadlines.close_all(session, game.id, DeadlineStatus.CANCELLED, now)
    game.status = GameStatus.FINISHED
    game.finished_at = now
    session.add(game)
    story = unmasking.story(session, game.id)  # told now that the game is over
    chart = unmasking.chart_png(story["treasure"])  # an inline image part (cid:), by email
    notified = []
    for seat, player in seats_of(session, game.id):
        outbox.notify(session, game, seat, player, GameOver(
                          reason=state.end_reason, unmasking=story,
                          unmasking_chart=unmasking.chart_cid(game.id),
                          inline_images=((unmasking.chart_cid(game.id), chart),)),
                      now=now, dedupe=f"g{game.id}:s{seat.seat_index}:game_over", state=state)
        notified.append(seat.seat_index)
    return notified


def finish(session: Session, game_id: int, *, now: datetime) -> Result:
    """Close a game whose engine state is over (normally done by ``submit`` itself)."""
    game = lock_game(session, game_id)
    state = load_state(game)
    if not state.over:
        raise WrongState(f"game {game.name!r} is not over yet; use abort to stop it")
    if game.status != GameStatus.FINISHED:
        finish_game(session, game, state, now)
    return make_result(session, game, None, ok=True, state=state, message=f"{game.name} finished")


def abort(session: Session, game_id: int, reason: str, *, now: datetime) -> Result:
    """Stop a game for good; everyone is told (and, if it had started, sees the loyalties)."""
    game = lock_game(session, game_id)
    if game.status in {GameStatus.FINISHED, GameStatus.ABORTED}:
        raise WrongState(f"game {game.name!r} is already {game.status}")
    reason = (reason or "stopped by the admin").strip()[:500]
    deadlines.close_all(session, game_id, DeadlineStatus.CANCELLED, now)
    game.status = GameStatus.ABORTED
    game.finished_at = now
    game.updated_at = now
    game.pause_reason = reason
    session.add(game)
    record_events(session, game, [service_event(
        ServiceEventKind.GAME_ABORTED, f"The game was stopped: {reason}")], now=now)
    state = load_state(game) if game.state_json else None
    for seat, player in seats_of(session, game_id):
        outbox.notify(session, game, seat, player, GameOver(aborted=True, reason=reason),
                      now=now, state=state, dedupe=f"g{game_id}:s{seat.seat_index}:game_over")
    return make_result(session, game, None, ok=True, state=state, message=f"{game.name} aborted")
