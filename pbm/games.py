"""The game service: THE ONLY WAY A GAME CHANGES.

Every function takes an open ``Session`` and does its work inside it: it locks the game
row (``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite's write transactions are serialised
by ``pbm.db``), loads the engine snapshot, changes it through the engine, and writes the
snapshot, the command log, the events, the deadlines and the outbox rows. The caller commits
(``pbm.db.run_transaction`` retries a write conflict) and then enqueues
``pbm.outbox.pending_outbox_ids``. ``Game.version`` is checked on every write, so a stale
writer can never overwrite a newer state.

Human errors raise ``GameError`` (one clear line); a player's command that the rules refuse
returns a ``Result`` with ``ok=False`` and changes nothing.
"""

from __future__ import annotations

import json
import re
import secrets
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, func, select

import engine
from pbm import deadlines as timing  # deadline rows; the sweep (pbm.timing) calls games
from pbm import outbox, settings, txcache, unmasking
from pbm.deadlines import INVITATION, TimingPolicy
from pbm.messages import Channel, MessageContext, MessageKind, RenderedMessage
from pbm.models import (
    CommandLog,
    Deadline,
    DeadlineStatus,
    Game,
    GameEvent,
    GameStatus,
    InboundMessage,
    InvitationStatus,
    OutboundMessage,
    Player,
    Seat,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 9
SAY_LIMIT = 500  # characters of one table-talk message
TOKEN_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o/1/l: read aloud safely
TOKEN_LENGTH = 16  # 80 bits
EMAIL_RE = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")
PHONE_RE = re.compile(r"^\+[1-9]\d{6,14}$")
HAPPENS_TO_KINDS = {"pawn.marooned", "vote_card.lost", "card.given", "pawn.moved"}


# ---------------------------------------------------------------- errors and results


class GameError(Exception):
    """A request the service refuses; ``str()`` is one line for a human."""

    code = "game/error"


class GameNotFound(GameError):
    code = "game/not_found"


class WrongState(GameError):
    code = "game/wrong_state"


class InvalidRequest(GameError):
    code = "request/invalid"


@dataclass
class Result:
    """What a request did, for the REPLY message and the CLI.

    ``done``: canonical commands applied; ``not_done``: [{command, reason, code}] refused;
    ``ignored``: commands not looked at after a refusal; ``awaiting``: this seat's open
    decisions now (``Decision.to_dict()``); ``waiting_for``: [{seat, number, name, kind}] of
    every seat the game waits for; ``events``: new events this seat may see.
    """

    ok: bool
    game_id: int
    game_name: str
    seat: int | None
    message: str
    code: str | None = None
    done: list[str] = field(default_factory=list)
    not_done: list[dict[str, str]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    awaiting: list[dict[str, Any]] = field(default_factory=list)
    waiting_for: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    game_status: str = ""
    state_version: int = 0
    notified: list[int] = field(default_factory=list)  # seats that got a message

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PlayerSpec:
    """Who to seat: a display name and at least one of email / phone."""

    name: str
    email: str | None = None
    phone: str | None = None
    time_zone: str = "UTC"
    channel: str | None = None  # "email" / "sms"; default: email if there is one

    @classmethod
    def parse(cls, text: str, time_zone: str = "UTC") -> PlayerSpec:
        """``"Ann <ann@example.org>"``, ``"Bob +15551234567"`` or both: ``"Cy <c@x.org>
        +4915112345678"``."""
        raw = text.strip()
        email = phone = None
        match = re.search(r"<([^<>]*)>", raw)
        if match:
            email = match.group(1).strip()
            raw = (raw[: match.start()] + raw[match.end() :]).strip()
        number = re.search(r"\+\d[\d\s().-]*\d", raw)
        if number:
            phone = re.sub(r"[^\d+]", "", number.group(0))
            raw = (raw[: number.start()] + raw[number.end() :]).strip()
        rest = []
        for token in raw.split():
            if EMAIL_RE.match(token) and email is None:
                email = token
            else:
                rest.append(token)
        spec = cls(name=" ".join(rest), email=email, phone=phone, time_zone=time_zone)
        spec.validate(text)
        return spec

    def validate(self, original: str | None = None) -> None:
        """Raise ``InvalidRequest`` naming what is wrong with this player."""
        shown = original or self.name
        if not self.name or len(self.name) > 40:
            raise InvalidRequest(f"player {shown!r}: give a name of 1-40 characters")
        if not self.email and not self.phone:
            raise InvalidRequest(f"player {shown!r}: give an email <a@b.c> or a phone +123...")
        if self.email and not EMAIL_RE.match(self.email):
            raise InvalidRequest(f"player {shown!r}: {self.email!r} is not an email address")
        if self.phone and not PHONE_RE.match(self.phone):
            raise InvalidRequest(f"player {shown!r}: {self.phone!r} is not a phone number "
                                 "in international form (+15551234567)")
        if not timing.is_valid_zone(self.time_zone):
            raise InvalidRequest(f"player {shown!r}: unknown time zone {self.time_zone!r}")
        if self.channel not in (None, "email", "sms"):
            raise InvalidRequest(f"player {shown!r}: channel must be email or sms")
        if self.channel == "sms" and not self.phone:
            raise InvalidRequest(f"player {shown!r}: SMS needs a phone number")


# ---------------------------------------------------------------- loading


def get_game(session: Session, ref: int | str) -> Game:
    """A game by id or by name (``GameNotFound`` otherwise)."""
    game: Game | None = None
    if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
        game = session.get(Game, int(ref))
    if game is None and isinstance(ref, str):
        game = session.exec(select(Game).where(Game.name == ref)).first()
    if game is None:
        raise GameNotFound(f"no game {ref!r} (see `pbm game list`)")
    return game


def lock_game(session: Session, game_id: int) -> Game:
    """Load a game for writing: row-locked on PostgreSQL, freshly read everywhere.

    Once per transaction (``pbm.txcache``): the lock holds until the end of it, so later
    calls return the same row. The same statement reads the numbers of the game's last
    command and event (``_next_seq``)."""
    entries = txcache.memo(session)
    cached = entries.get(("game", game_id))
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    last_command = select(func.max(CommandLog.seq)).where(CommandLog.game_id == game_id)
    last_event = select(func.max(GameEvent.seq)).where(GameEvent.game_id == game_id)
    row = session.exec(
        select(Game, last_command.scalar_subquery(), last_event.scalar_subquery())
        .where(Game.id == game_id)
        .with_for_update(of=Game)
        .execution_options(populate_existing=True)
    ).first()
    if row is None:
        raise GameNotFound(f"no game {game_id!r} (see `pbm game list`)")
    game, commands, events = row
    entries[("game", game_id)] = game
    entries[("seq", "command_log", game_id)] = int(commands or 0) + 1
    entries[("seq", "game_events", game_id)] = int(events or 0) + 1
    return game


def load_state(game: Game) -> engine.GameState:
    """The engine state of a started game."""
    if not game.state_json:
        raise WrongState(f"game {game.name!r} has not started")
    return engine.from_json(game.state_json)


def policy_of(game: Game) -> TimingPolicy:
    return TimingPolicy.from_json(game.timing_json)


def options_of(game: Game) -> engine.GameOptions:
    return engine.GameOptions.from_dict(json.loads(game.options_json or "{}"))


def seats_of(session: Session, game_id: int) -> list[tuple[Seat, Player]]:
    """The game's seats with their players, in seat order (read once per transaction)."""
    txcache.flush_pending(session, Seat)
    cached = txcache.memo(session).get(("seats", game_id))
    if cached is not None and all(s.player_id == p.id for s, p in cached):
        return list(cached)
    rows = session.exec(
        select(Seat, Player)
        .where(Seat.game_id == game_id, Seat.player_id == Player.id)
        .order_by(col(Seat.seat_index))
    ).all()
    pairs = [(s, p) for s, p in rows]
    txcache.memo(session)[("seats", game_id)] = pairs
    return list(pairs)


def seat_of(session: Session, game_id: int, seat_index: int) -> tuple[Seat, Player]:
    for seat, player in seats_of(session, game_id):
        if seat.seat_index == seat_index:
            return seat, player
    raise InvalidRequest(f"no seat {seat_index + 1} in this game")


def find_seat_by_token(session: Session, token: str) -> Seat | None:
    """The seat a reply token names (routing of replies), or None. Its game's seats and
    players come in the same statement (remembered for ``seats_of``)."""
    token = token.strip().lower()
    same_game = select(Seat.game_id).where(Seat.reply_token == token).scalar_subquery()
    pairs = [(s, p) for s, p in session.exec(
        select(Seat, Player)
        .where(Seat.game_id == same_game, Seat.player_id == Player.id)
        .order_by(col(Seat.seat_index))
    ).all()]
    if not pairs:
        return None
    txcache.memo(session)[("seats", pairs[0][0].game_id)] = pairs
    return next((s for s, _ in pairs if s.reply_token == token), None)


def new_token() -> str:
    """An unguessable reply token (80 bits, lower-case letters and digits)."""
    return "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(TOKEN_LENGTH))


def _next_seq(session: Session, model: type[CommandLog] | type[GameEvent], game_id: int) -> int:
    """The next free ``seq`` of the game's command log or events (``lock_game`` read it;
    ``pbm.txcache`` moves it on as rows are flushed)."""
    txcache.flush_pending(session, model)
    key = ("seq", model.__tablename__, game_id)
    entries = txcache.memo(session)
    if key not in entries:
        current = session.exec(
            select(func.max(model.seq)).where(model.game_id == game_id)
        ).one()
        entries[key] = int(current or 0) + 1
    return int(entries[key])


def record_events(
    session: Session,
    game: Game,
    events: Iterable[engine.Event],
    *,
    now: datetime,
    command_seq: int | None = None,
    state_version: int | None = None,
) -> list[GameEvent]:
    """Store events with their audience; returns the stored rows."""
    assert game.id is not None
    seq = _next_seq(session, GameEvent, game.id)
    rows = []
    for event in events:
        audience = None if event.audience is None else ",".join(
            str(s) for s in sorted(event.audience)
        )
        row = GameEvent(
            game_id=game.id,
            seq=seq,
            command_seq=command_seq,
            kind=event.kind,
            text=event.text,
            audience=audience,
            data_json=json.dumps(dict(event.data), default=str, sort_keys=True),
            state_version=game.state_version if state_version is None else state_version,
            created_at=now,
        )
        session.add(row)
        rows.append(row)
        seq += 1
    session.flush()
    return rows


def _service_event(kind_: str, sentence: str, audience_: Iterable[int] | None = None,
                   **data: Any) -> engine.Event:
    return engine.Event(kind_, sentence, None if audience_ is None else frozenset(audience_),
                        data)


def _save_state(game: Game, state: engine.GameState, now: datetime) -> None:
    game.state_json = engine.to_json(state)
    game.state_version = state.version
    game.updated_at = now


def waiting_for(session: Session, game: Game, state: engine.GameState | None = None
                ) -> list[dict[str, Any]]:
    """[{seat, number, name, kind}] of every seat the game is waiting for now."""
    if game.status in {GameStatus.CREATED, GameStatus.INVITING}:
        return [
            {"seat": s.seat_index, "number": s.seat_index + 1, "name": p.display_name,
             "kind": INVITATION}
            for s, p in seats_of(session, game.id)  # type: ignore[arg-type]
            if s.invitation_status != InvitationStatus.JOINED
        ]
    if state is None and game.state_json:
        state = load_state(game)
    if state is None or state.over:
        return []
    names = {s.seat_index: p.display_name for s, p in seats_of(session, game.id)}  # type: ignore[arg-type]
    return [
        {"seat": d.seat, "number": d.seat + 1, "name": names.get(d.seat, state.names[d.seat]),
         "kind": d.kind.value}
        for d in engine.pending(state)
    ]


def _result(session: Session, game: Game, seat: int | None, *, ok: bool, message: str,
            state: engine.GameState | None = None, **kw: Any) -> Result:
    if state is None and game.state_json:
        state = load_state(game)
    awaiting = []
    if state is not None and seat is not None and not state.over:
        awaiting = [d.to_dict() for d in engine.pending(state) if d.seat == seat]
    return Result(
        ok=ok, game_id=game.id, game_name=game.name, seat=seat,  # type: ignore[arg-type]
        message=message, awaiting=awaiting, waiting_for=waiting_for(session, game, state),
        game_status=game.status, state_version=game.state_version, **kw,
    )


# ---------------------------------------------------------------- players and creation


def upsert_player(session: Session, spec: PlayerSpec) -> Player:
    """The player with this email or phone (updating blanks), or a new one."""
    spec.validate()
    by_email = session.exec(select(Player).where(Player.email == spec.email)).first() \
        if spec.email else None
    by_phone = session.exec(select(Player).where(Player.phone == spec.phone)).first() \
        if spec.phone else None
    if by_email and by_phone and by_email.id != by_phone.id:
        raise InvalidRequest(
            f"{spec.email} and {spec.phone} belong to two different players "
            f"({by_email.display_name}, {by_phone.display_name})"
        )
    player = by_email or by_phone
    if player is None:
        player = Player(
            display_name=spec.name,
            email=spec.email,
            phone=spec.phone,
            time_zone=spec.time_zone,
            preferred_channel=spec.channel or ("email" if spec.email else "sms"),
        )
    else:
        player.display_name = spec.name
        player.email = player.email or spec.email
        player.phone = player.phone or spec.phone
        if spec.time_zone != "UTC":
            player.time_zone = spec.time_zone
        if spec.channel:
            player.preferred_channel = spec.channel
    session.add(player)
    session.flush()
    return player


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
    _check_distinct(players)
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


def _check_distinct(players: Sequence[PlayerSpec]) -> None:
    seen: dict[str, str] = {}
    for spec in players:
        spec.validate()
        for label, value in (("name", spec.name.casefold()), ("email", (spec.email or "").lower()),
                             ("phone", spec.phone or "")):
            if not value:
                continue
            key = f"{label}:{value}"
            if key in seen:
                raise InvalidRequest(f"two players share the {label} {value!r}")
            seen[key] = spec.name


# ---------------------------------------------------------------- invitations and start


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
            session, game, seat, player, MessageKind.INVITATION, now=now,
            dedupe=f"g{game_id}:s{seat.seat_index}:invitation:{seat.reply_token}",
            deadline=now + timedelta(hours=policy.invitation_hours),
            extra={"players": [p.display_name for _, p in seats_of(session, game_id)],
                   "respond_by_hours": policy.invitation_hours, "timing": _timing_extra(policy)},
        )
        if rows:
            sent.append(seat.seat_index)
            seat.invitation_status = InvitationStatus.INVITED
            if not timing.open_deadlines(session, game_id, kind=INVITATION,
                                         seat=seat.seat_index):
                timing.open_deadline(session, game, seat.seat_index, f"invite:{seat.reply_token}",
                                     INVITATION, policy, player.time_zone, now)
    game.status = GameStatus.INVITING
    game.updated_at = now
    session.add(game)
    session.flush()
    return _result(session, game, None, ok=True, notified=sent,
                   message=f"invited {len(sent)} player(s) to {game.name}")


def _timing_extra(policy: TimingPolicy) -> dict[str, float]:
    return {"action_hours": policy.hours_for("ACTION"), "vote_hours": policy.hours_for("VOTE"),
            "other_hours": policy.hours_for("CHOOSE"), "away_hours": policy.away_hours}


def respond(session: Session, game_id: int, seat_index: int, *, join: bool,
            now: datetime) -> Result:
    """A player's JOIN or DECLINE. The last JOIN starts the game (policy ``auto_start``)."""
    game = lock_game(session, game_id)
    seat, player = seat_of(session, game_id, seat_index)
    if game.status not in {GameStatus.CREATED, GameStatus.INVITING}:
        already = "joined" if seat.invitation_status == InvitationStatus.JOINED else "started"
        return _result(session, game, seat_index, ok=False, code="game/started",
                       message=f"{game.name} has already {already}; nothing to answer")
    for deadline in timing.open_deadlines(session, game_id, kind=INVITATION, seat=seat_index):
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
        return _result(session, game, seat_index, ok=True, done=["DECLINE"],
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
    return _result(session, game, seat_index, ok=True, done=["JOIN"],
                   message=f"{player.display_name} joined {game.name}")


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
    timing.close_all(session, game_id, DeadlineStatus.CANCELLED, now)
    _save_state(game, state, now)
    game.status = GameStatus.RUNNING
    game.started_at = now
    session.add(game)
    session.flush()
    playing = ", ".join(p.display_name for _, p in seats)
    started = record_events(session, game, [_service_event(
        "game.started", f"{game.name} has begun with {len(seats)} players: {playing}."
        + (f" Left out (had not joined): {', '.join(left_out)}." if left_out else ""))],
        now=now)
    policy = policy_of(game)
    _sync_deadlines(session, game, state, policy, now)
    notified = []
    for seat, player in seats:
        decision = state.decision_id(seat.seat_index)
        if decision is not None:
            kind, dedupe = MessageKind.PROMPT, f"g{game_id}:s{seat.seat_index}:prompt:{decision}"
        else:
            kind, dedupe = MessageKind.GAME_STARTED, f"g{game_id}:s{seat.seat_index}:started"
        outbox.notify(session, game, seat, player, kind, now=now, dedupe=dedupe, state=state,
                      deadline=_due(session, game_id, seat.seat_index), announced=started,
                      extra={"started": True, "decision_ids": [decision] if decision else []})
        notified.append(seat.seat_index)
    return _result(session, game, None, ok=True, state=state, notified=notified,
                   message=f"{game.name} started with {playing}"
                   + (f"; left out (had not joined): {', '.join(left_out)}" if left_out else ""))


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
        outbox.notify(session, game, seat, player, MessageKind.NOTICE, now=now, recap=False,
                      dedupe=f"g{game.id}:s{seat.seat_index}:left_out:{seat.reply_token}",
                      extra={"headline": f"{game.name} has started without you, as you had "
                             f"not joined. The players: {names}."})
    renumber = {s.seat_index: new for new, (s, _) in enumerate(playing)}
    renumber.update({s.seat_index: None for s, _ in out})
    for seat, _ in out:
        session.delete(seat)
    session.flush()
    for seat, _ in playing:  # one at a time: (game_id, seat_index) is unique at every step
        if renumber[seat.seat_index] != seat.seat_index:
            seat.seat_index = renumber[seat.seat_index]  # type: ignore[assignment]
            session.add(seat)
            session.flush()
    for model in (OutboundMessage, InboundMessage, Deadline):
        for row in session.exec(select(model).where(model.game_id == game.id)):
            if row.seat is not None and renumber.get(row.seat, row.seat) != row.seat:
                row.seat = renumber[row.seat]
                session.add(row)
    session.flush()
    return playing, [p.display_name for _, p in out]


# ---------------------------------------------------------------- commands


def _due(session: Session, game_id: int, seat: int) -> datetime | None:
    open_ = [d for d in timing.open_deadlines(session, game_id, seat=seat) if d.kind != INVITATION]
    return open_[0].due_at if open_ else None


def _sync_deadlines(session: Session, game: Game, state: engine.GameState,
                    policy: TimingPolicy, now: datetime) -> None:
    zones = {s.seat_index: p.time_zone for s, p in seats_of(session, game.id)}  # type: ignore[arg-type]
    decisions = [(d.seat, state.decision_id(d.seat) or "", d.kind.value)
                 for d in engine.pending(state)]
    created = timing.sync_decision_deadlines(session, game, decisions, policy,
                                             lambda seat: zones.get(seat, "UTC"), now)
    settings.hold_new_deadlines(session, game, created, now)  # AWAY seats, own QUIET hours
    session.flush()


def _parse(command: engine.Command | str) -> engine.Command:
    if isinstance(command, engine.Command):
        return command
    return engine.parse_command(command)


def submit(
    session: Session,
    game_id: int,
    seat: int,
    commands: engine.Command | str | Sequence[engine.Command | str],
    *,
    origin: str,
    now: datetime,
    decision_id: str | None = None,
    inbound_message_id: int | None = None,
    first_tell: Callable[[engine.GameState], None] | None = None,
) -> Result:
    """Apply a seat's command(s) in order, stopping at the first the rules refuse.

    In one transaction: command log, snapshot, events, deadlines, and the outbox (a PROMPT
    for every newly opened decision, a NOTICE to seats something happened to, the vote
    result to voters, GAME_OVER at the end). ``decision_id``, if given, must still be the
    seat's open decision, else nothing is applied (the reply answered a closed question).
    ``origin``: ``"inbound:<id>"``, ``"timeout"``, ``"admin"``, ``"cli"``...
    ``first_tell(post)`` writes messages that must reach seats before the prompts (the
    timeout notice): it runs once the deadlines are synced, before any other message.
    """
    batch = [commands] if isinstance(commands, engine.Command | str) else list(commands)
    game = lock_game(session, game_id)
    refused = _not_playable(session, game, seat)
    if refused is not None:
        refused.ignored = [str(c) for c in batch]
        return refused
    pre = state = load_state(game)
    if decision_id is not None and state.decision_id(seat) != decision_id:
        return _result(session, game, seat, ok=False, code="command/not_your_decision",
                       state=state, ignored=[str(c) for c in batch],
                       message="that answers a question that is already closed; "
                               "nothing was changed")
    done: list[str] = []
    not_done: list[dict[str, str]] = []
    ignored: list[str] = []
    stored: list[GameEvent] = []
    seq = _next_seq(session, CommandLog, game_id)
    for i, raw in enumerate(batch):
        try:
            command = _parse(raw)
            state, events = engine.apply(state, seat, command)
        except engine.EngineError as exc:
            not_done.append({"command": str(raw), "reason": exc.message, "code": exc.code})
            ignored = [str(c) for c in batch[i + 1 :]]
            break
        session.add(CommandLog(
            game_id=game_id, seq=seq, seat=seat, command=str(command),
            state_version=state.version, origin=origin[:64],
            inbound_message_id=inbound_message_id, created_at=now,
        ))
        stored += record_events(session, game, events, now=now, command_seq=seq,
                                state_version=state.version)
        done.append(str(command))
        seq += 1
    if not done:
        failure = not_done[0]
        return _result(session, game, seat, ok=False, code=failure["code"], state=pre,
                       not_done=not_done, ignored=ignored, message=failure["reason"])
    _save_state(game, state, now)
    session.add(game)
    session.flush()
    if state.version != pre.version:  # a version of our own making: no picture stored yet
        txcache.memo(session)[("board", game_id, state.version)] = False
    notified = _after_change(session, game, pre, state, stored, actor=seat, now=now,
                             first_tell=first_tell)
    visible = [outbox.event_dict(e) for e in stored if e.visible_to(seat)]
    message = f"done: {', '.join(done)}"
    if not_done:
        message += f"; not done: {not_done[0]['command']} ({not_done[0]['reason']})"
    return _result(session, game, seat, ok=not not_done, state=state, done=done,
                   not_done=not_done, ignored=ignored, events=visible, notified=notified,
                   code=not_done[0]["code"] if not_done else None, message=message)


def _not_playable(session: Session, game: Game, seat: int) -> Result | None:
    if game.status == GameStatus.RUNNING:
        if not 0 <= seat < len(seats_of(session, game.id)):  # type: ignore[arg-type]
            return _result(session, game, None, ok=False, code="request/invalid",
                           message=f"no seat {seat + 1} in {game.name}")
        return None
    reasons = {
        GameStatus.PAUSED: ("game/paused", f"{game.name} is paused ({game.pause_reason}); "
                            "nothing was changed"),
        GameStatus.FINISHED: ("game/over", f"{game.name} is over; nothing was changed"),
        GameStatus.ABORTED: ("game/over", f"{game.name} was stopped; nothing was changed"),
    }
    code, message = reasons.get(
        GameStatus(game.status),
        ("game/not_started", f"{game.name} has not started yet; nothing was changed"),
    )
    return _result(session, game, seat, ok=False, code=code, message=message)


def _concerns(event: GameEvent, seat: int) -> bool:
    """True if the event happened *to* ``seat`` (worth a message of its own)."""
    seats = event.audience_seats()
    if seats is not None:
        return seat in seats
    data = json.loads(event.data_json or "{}")
    if data.get("target") == seat:
        return True
    return event.kind in HAPPENS_TO_KINDS and data.get("seat") == seat and data.get("by") not in {
        "ROW", "BOARD", "LAND", "row", "board", "land"}


def _after_change(session: Session, game: Game, pre: engine.GameState, post: engine.GameState,
                  events: list[GameEvent], *, actor: int | None, now: datetime,
                  first_tell: Callable[[engine.GameState], None] | None = None) -> list[int]:
    """Deadlines and messages after the state moved from ``pre`` to ``post``."""
    assert game.id is not None
    if post.over:
        if first_tell is not None:
            first_tell(post)
        return _finish(session, game, post, now)
    _sync_deadlines(session, game, post, policy_of(game), now)
    if first_tell is not None:
        first_tell(post)
    pre_vote = engine.public_view(pre).vote
    voters = set(pre_vote.participants) if pre_vote is not None else set()
    vote_results = [e for e in events if e.kind == "vote.result"]
    notified = []
    for seat, player in seats_of(session, game.id):
        s = seat.seat_index
        decision = post.decision_id(s)
        if decision is not None and decision != pre.decision_id(s):
            kind, dedupe = MessageKind.PROMPT, f"prompt:{decision}"
        elif s != actor and vote_results and s in voters:  # its own news are in the recap
            kind, dedupe = MessageKind.VOTE_RESULT, f"vote_result:v{post.version}"
        elif s != actor and any(_concerns(e, s) for e in events):
            kind, dedupe = MessageKind.NOTICE, f"notice:v{post.version}"
        else:
            continue
        extra: dict[str, Any] = {"decision_ids": [decision] if decision else []}
        if kind is MessageKind.NOTICE:
            extra["headline"] = next(e.text for e in events if _concerns(e, s))
        if kind is MessageKind.VOTE_RESULT:
            extra["result"] = outbox.event_dict(vote_results[-1])
        outbox.notify(session, game, seat, player, kind, now=now,
                      dedupe=f"g{game.id}:s{s}:{dedupe}", state=post,
                      deadline=_due(session, game.id, s), extra=extra)
        notified.append(s)
    return notified


def _finish(session: Session, game: Game, state: engine.GameState, now: datetime) -> list[int]:
    assert game.id is not None
    timing.close_all(session, game.id, DeadlineStatus.CANCELLED, now)
    game.status = GameStatus.FINISHED
    game.finished_at = now
    session.add(game)
    score = engine.score(state).to_dict()
    story = unmasking.story(session, game.id)  # told now that the game is over
    chart = unmasking.chart_png(story["treasure"])  # an inline image part (cid:), by email
    notified = []
    for seat, player in seats_of(session, game.id):
        outbox.notify(session, game, seat, player, MessageKind.GAME_OVER, now=now,
                      dedupe=f"g{game.id}:s{seat.seat_index}:game_over", state=state,
                      extra={"aborted": False, "reason": state.end_reason, "score": score,
                             "unmasking": story,
                             "unmasking_chart": unmasking.chart_cid(game.id),
                             "inline_images": [(unmasking.chart_cid(game.id), chart)]})
        notified.append(seat.seat_index)
    return notified


def finish(session: Session, game_id: int, *, now: datetime) -> Result:
    """Close a game whose engine state is over (normally done by ``submit`` itself)."""
    game = lock_game(session, game_id)
    state = load_state(game)
    if not state.over:
        raise WrongState(f"game {game.name!r} is not over yet; use abort to stop it")
    if game.status != GameStatus.FINISHED:
        _finish(session, game, state, now)
    return _result(session, game, None, ok=True, state=state, message=f"{game.name} finished")


# ---------------------------------------------------------------- lifecycle (admin)


def pause(session: Session, game_id: int, reason: str, *, now: datetime) -> Result:
    """Stop the clock: deadlines freeze until ``resume``; every seat is told why."""
    game = lock_game(session, game_id)
    if game.status not in {GameStatus.RUNNING, GameStatus.INVITING}:
        raise WrongState(f"game {game.name!r} is {game.status}; only a running game pauses")
    reason = (reason or "paused by the admin").strip()[:500]
    game.status = GameStatus.PAUSED
    game.paused_at = now
    game.pause_reason = reason
    game.updated_at = now
    session.add(game)
    events = record_events(session, game, [_service_event("game.paused",
                                                          f"The game is paused: {reason}")],
                           now=now)
    state = load_state(game) if game.state_json else None
    for seat, player in seats_of(session, game_id):
        outbox.notify(session, game, seat, player, MessageKind.PAUSED, now=now, state=state,
                      dedupe=f"g{game_id}:s{seat.seat_index}:paused:{events[0].seq}",
                      extra={"reason": reason}, announced=events)
    return _result(session, game, None, ok=True, state=state, message=f"{game.name} paused")


def resume(session: Session, game_id: int, *, now: datetime) -> Result:
    """Restart the clock: every open decision gets at least the time it had left when the
    game paused and never less than the policy's floor (``timing.resume_deadlines``); a
    decision left without a deadline (the "pause" timeout policy) gets a fresh one."""
    game = lock_game(session, game_id)
    if game.status != GameStatus.PAUSED:
        raise WrongState(f"game {game.name!r} is {game.status}, not paused")
    paused_for = now - (game.paused_at or now)
    policy = policy_of(game)
    zones = {s.seat_index: p.time_zone for s, p in seats_of(session, game_id)}
    timing.resume_deadlines(session, game_id, game.paused_at or now, now, policy,
                            lambda seat: zones.get(seat, "UTC") if seat is not None else "UTC")
    if game.started_at and game.state_json:
        _sync_deadlines(session, game, load_state(game), policy, now)
    game.status = GameStatus.RUNNING if game.started_at else GameStatus.INVITING
    game.paused_at = None
    game.pause_reason = None
    game.updated_at = now
    session.add(game)
    events = record_events(session, game, [_service_event("game.resumed", "The game goes on.")],
                           now=now)
    state = load_state(game) if game.state_json else None
    for seat, player in seats_of(session, game_id):
        outbox.notify(session, game, seat, player, MessageKind.RESUMED, now=now, state=state,
                      dedupe=f"g{game_id}:s{seat.seat_index}:resumed:{events[0].seq}",
                      deadline=_due(session, game_id, seat.seat_index), announced=events,
                      extra={"paused_hours": round(paused_for.total_seconds() / 3600, 2),
                             "decision_ids": [d for d in [state.decision_id(seat.seat_index)]
                                              if d] if state else []})
    return _result(session, game, None, ok=True, state=state,
                   message=f"{game.name} resumed after {_hours(paused_for)}")


def _hours(delta: timedelta) -> str:
    from pbm.humanize import duration

    return duration(delta)


def extend(session: Session, game_id: int, hours: float, *, now: datetime,
           seat: int | None = None) -> Result:
    """Give more time: the open deadlines (of one seat, or all) move later by ``hours``.

    Each awaited seat is told its new deadline in a short NOTICE (not in a paused game:
    its RESUMED message will carry the deadline as moved by the pause)."""
    if not 0 < hours <= 24 * 30:
        raise InvalidRequest("extend by 1 hour to 30 days")
    game = lock_game(session, game_id)
    if game.status in {GameStatus.FINISHED, GameStatus.ABORTED}:
        raise WrongState(f"game {game.name!r} is {game.status}")
    moved = timing.shift_open_deadlines(session, game_id, timedelta(hours=hours), seat=seat)
    if not moved:
        raise WrongState(f"game {game.name!r} has no open deadline"
                         + (f" for seat {seat + 1}" if seat is not None else ""))
    game.updated_at = now
    session.add(game)
    notified = []
    if game.status != GameStatus.PAUSED:
        for deadline in moved:
            if deadline.seat is None:
                continue
            seat_row, player = seat_of(session, game_id, deadline.seat)
            outbox.notify(
                session, game, seat_row, player, MessageKind.NOTICE, now=now, recap=False,
                deadline=deadline.due_at,
                dedupe=f"g{game_id}:s{deadline.seat}:extended:{deadline.id}:"
                       f"{deadline.due_at.isoformat()}",
                extra={"headline": _more_time_text(deadline, hours, player.time_zone),
                       "extended_hours": hours})
            notified.append(deadline.seat)
    return _result(session, game, seat, ok=True, notified=notified,
                   message=f"{len(moved)} deadline(s) of {game.name} moved "
                           f"{_hours(timedelta(hours=hours))} later")


_AWAITED_WORDS = {"ACTION": "your turn", "VOTE": "your vote",
                  INVITATION: "your answer to the invitation (JOIN or DECLINE)"}


def _more_time_text(deadline: Deadline, hours: float, time_zone: str) -> str:
    """The NOTICE line: ``You have 24 more hours: your turn is now due <local> (<UTC>).``"""
    from pbm.render import format_deadline

    when = format_deadline(deadline.due_at, time_zone)
    assert when is not None
    utc = "" if when["same"] else f" ({when['utc']})"
    what = _AWAITED_WORDS.get(deadline.kind, "your decision")
    more = (f"{hours:g} more hour{'' if hours == 1 else 's'}" if hours == int(hours)
            else f"{_hours(timedelta(hours=hours))} more")  # not "1.5 more hours"
    return (f"You have {more}: {what} is now due "
            f"{when['local']}{utc}.")


def replace_seat(session: Session, game_id: int, seat_index: int, spec: PlayerSpec, *,
                 now: datetime) -> Result:
    """A new player takes over a seat and gets a briefing of everything that seat knew."""
    game = lock_game(session, game_id)
    if game.status in {GameStatus.FINISHED, GameStatus.ABORTED}:
        raise WrongState(f"game {game.name!r} is {game.status}")
    seat, old = seat_of(session, game_id, seat_index)
    new = upsert_player(session, spec)
    if any(p.id == new.id for _, p in seats_of(session, game_id)):
        raise InvalidRequest(f"{new.display_name} already plays in {game.name}")
    if any(spec.name.casefold() == p.display_name.casefold()
           for s, p in seats_of(session, game_id) if s.seat_index != seat_index):
        raise InvalidRequest(f"another player in {game.name} is already called {spec.name!r}")
    state = load_state(game) if game.state_json else None
    outbox.notify(session, game, seat, old, MessageKind.NOTICE, now=now, recap=False,
                  state=state,
                  dedupe=f"g{game_id}:s{seat_index}:replaced:{seat.reply_token}",
                  extra={"headline": f"{new.display_name} takes over your seat in {game.name}. "
                                     "Thank you for playing.", "you_were_replaced": True})
    seat.replaced_player_ids = ",".join(x for x in [seat.replaced_player_ids, str(old.id)] if x)
    seat.player_id = new.id  # type: ignore[assignment]
    seat.reply_token = new_token()
    seat.thread_message_id = outbox.new_thread_id(game_id, seat_index)
    seat.thread_started = False
    session.add(seat)
    text = f"{new.display_name} takes over seat {seat_index + 1} from {old.display_name}."
    if state is not None:
        names = list(state.names)
        names[seat_index] = new.display_name
        state.names = tuple(names)
        _save_state(game, state, now)
        session.add(game)
        session.flush()
        seat.invitation_status = InvitationStatus.JOINED
        for deadline in timing.open_deadlines(session, game_id, seat=seat_index):
            fresh = now + timedelta(hours=policy_of(game).hours_for(deadline.kind))
            if deadline.due_at < fresh:  # the newcomer gets a full window
                timing.shift_open_deadlines(session, game_id, fresh - deadline.due_at,
                                            seat=seat_index)
    else:
        seat.invitation_status = InvitationStatus.PENDING
    event = record_events(session, game, [_service_event("seat.replaced", text,
                                                         seat=seat_index)], now=now)[0]
    briefing_events = outbox.events_for(session, game_id, seat_index, limit=None)
    for other, player in seats_of(session, game_id):
        if other.seat_index == seat_index:
            if state is None:
                continue  # before the start the newcomer is simply invited
            outbox.notify(session, game, other, player, MessageKind.SEAT_REPLACED, now=now,
                          state=state, events=briefing_events,
                          dedupe=f"g{game_id}:s{seat_index}:briefing:{seat.reply_token}",
                          deadline=_due(session, game_id, seat_index),
                          extra={"previous_player": old.display_name, "briefing": True,
                                 "decision_ids": [d for d in [state.decision_id(seat_index)]
                                                  if d]})
            other.last_event_seq = event.seq
        else:
            outbox.notify(session, game, other, player, MessageKind.NOTICE, now=now,
                          state=state, recap=False, events=[event],
                          dedupe=f"g{game_id}:s{other.seat_index}:replaced:{event.seq}",
                          extra={"headline": text})
    if state is None and game.status == GameStatus.INVITING:
        invite(session, game_id, now=now)
    game.updated_at = now
    session.add(game)
    session.flush()
    return _result(session, game, seat_index, ok=True, state=state, message=text)


def abort(session: Session, game_id: int, reason: str, *, now: datetime) -> Result:
    """Stop a game for good; everyone is told (and, if it had started, sees the loyalties)."""
    game = lock_game(session, game_id)
    if game.status in {GameStatus.FINISHED, GameStatus.ABORTED}:
        raise WrongState(f"game {game.name!r} is already {game.status}")
    reason = (reason or "stopped by the admin").strip()[:500]
    timing.close_all(session, game_id, DeadlineStatus.CANCELLED, now)
    game.status = GameStatus.ABORTED
    game.finished_at = now
    game.updated_at = now
    game.pause_reason = reason
    session.add(game)
    record_events(session, game,
                  [_service_event("game.aborted", f"The game was stopped: {reason}")], now=now)
    state = load_state(game) if game.state_json else None
    for seat, player in seats_of(session, game_id):
        outbox.notify(session, game, seat, player, MessageKind.GAME_OVER, now=now, state=state,
                      dedupe=f"g{game_id}:s{seat.seat_index}:game_over",
                      extra={"aborted": True, "reason": reason,
                             "score": engine.score(state).to_dict() if state else None})
    return _result(session, game, None, ok=True, state=state, message=f"{game.name} aborted")


# ---------------------------------------------------------------- talk and status


def say(session: Session, game_id: int, seat_index: int, text: str | Sequence[str], *,
        now: datetime) -> Result:
    """Public table talk: relayed at once by email (and to SMS players who asked for it
    live); everyone else finds it in the recap of their next message. Several lines (of one
    reply) are one event each but one message per seat."""
    from pbm.hygiene import clean_text

    game = lock_game(session, game_id)
    if game.status not in {GameStatus.RUNNING, GameStatus.PAUSED, GameStatus.INVITING}:
        return _result(session, game, seat_index, ok=False, code="game/over",
                       message=f"{game.name} is {game.status}: nobody is listening")
    _, speaker = seat_of(session, game_id, seat_index)
    lines = [" ".join(clean_text(t or "").split()) for t in
             ([text] if isinstance(text, str) else text)]
    lines = [t for t in lines if t]
    if not lines:
        return _result(session, game, seat_index, ok=False, code="request/invalid",
                       message="SAY needs some text after it")
    cut = any(len(t) > SAY_LIMIT for t in lines)
    lines = [t[:SAY_LIMIT] for t in lines]
    talk = record_events(session, game, [_service_event(
        "table.talk", f"{speaker.display_name}: {t}", seat=seat_index,
        name=speaker.display_name, text=t) for t in lines], now=now)
    event, text = talk[0], " / ".join(lines)
    notified = []
    for other, player in seats_of(session, game_id):
        if other.seat_index == seat_index:
            continue
        if not outbox.hears_talk_live(player):
            continue  # folded into its next message (extra["table_talk"])
        outbox.notify(session, game, other, player, MessageKind.TABLE_TALK, now=now,
                      events=talk, dedupe=f"g{game_id}:s{other.seat_index}:talk:{event.seq}",
                      extra={"from": speaker.display_name,
                             "from_seat_number": seat_index + 1, "text": text})
        notified.append(other.seat_index)
    message = "relayed to the table" + (f" (cut to {SAY_LIMIT} characters)" if cut else "")
    return _result(session, game, seat_index, ok=True, done=["SAY"], notified=notified,
                   message=message)


def status(session: Session, game_id: int, seat_index: int, *, now: datetime,
           dedupe: str | None = None) -> Result:
    """A player's STATUS: their full picture again (board, secrets, what is awaited)."""
    game = lock_game(session, game_id)
    seat, player = seat_of(session, game_id, seat_index)
    state = load_state(game) if game.state_json else None
    outbox.notify(session, game, seat, player, MessageKind.STATUS, now=now, state=state,
                  dedupe=f"g{game_id}:s{seat_index}:status:{dedupe or now.isoformat()}",
                  deadline=_due(session, game_id, seat_index))
    return _result(session, game, seat_index, ok=True, state=state, done=["STATUS"],
                   notified=[seat_index], message="your status is on its way")


def preview(session: Session, game_id: int, seat_index: int, channel: Channel | None = None
            ) -> tuple[MessageContext, RenderedMessage]:
    """The exact message this seat would get now (its PROMPT, else its STATUS), rendered
    for its channel; nothing is written."""
    from pbm import render

    game = get_game(session, game_id)
    seat, player = seat_of(session, game.id, seat_index)  # type: ignore[arg-type]
    state = load_state(game) if game.state_json else None
    decision = state.decision_id(seat_index) if state is not None else None
    kind = MessageKind.PROMPT if decision else MessageKind.STATUS
    if game.status in {GameStatus.CREATED, GameStatus.INVITING}:
        kind = MessageKind.INVITATION
    ctx = outbox.build_context(
        session, game, seat, player, kind, state=state,
        deadline=_due(session, game.id, seat_index),  # type: ignore[arg-type]
        extra={"decision_ids": [decision] if decision else [],
               "respond_by_hours": policy_of(game).invitation_hours,
               "timing": _timing_extra(policy_of(game))},
    )
    channels = outbox.channels_for(player)
    chosen = channel or (channels[0] if channels else Channel.EMAIL)
    return ctx, render.render(ctx, chosen)


# ---------------------------------------------------------------- deadlines (timing sweep)


def send_reminder(session: Session, deadline: Deadline, now: datetime,
                  report: timing.SweepReport) -> None:
    """One reminder (or the final warning) for an open deadline."""
    game = lock_game(session, deadline.game_id)
    if game.status not in {GameStatus.RUNNING, GameStatus.INVITING} or deadline.seat is None:
        return
    policy = policy_of(game)
    seat, player = seat_of(session, game.id, deadline.seat)  # type: ignore[arg-type]
    state = None
    if deadline.kind != INVITATION:
        state = load_state(game)
        if state.decision_id(deadline.seat) != deadline.decision_key:
            deadline.status, deadline.resolved_at = DeadlineStatus.DONE, now
            deadline.next_reminder_at = None
            return
    if now >= deadline.due_at:  # too late to remind: the timeout policy acts next
        deadline.next_reminder_at = None
        session.add(deadline)
        return
    final = timing.is_final_warning(deadline, policy)
    kind = MessageKind.FINAL_WARNING if final else MessageKind.REMINDER
    outbox.notify(session, game, seat, player, kind, now=now, state=state,
                  deadline=deadline.due_at,
                  dedupe=f"g{game.id}:s{deadline.seat}:remind:{deadline.id}:"
                         f"{deadline.reminders_sent}",
                  extra={"decision_kind": deadline.kind, "policy": policy.on_timeout,
                         "invitation": deadline.kind == INVITATION,
                         "decision_ids": [deadline.decision_key],
                         **_if_silent(state, deadline.seat, policy)})
    (report.final_warnings if final else report.reminders).append(deadline.id)  # type: ignore[arg-type]
    deadline.reminders_sent += 1
    deadline.next_reminder_at = timing.next_reminder(
        deadline, settings.quiet_policy(policy, player), player.time_zone, now)
    session.add(deadline)


def _if_silent(state: engine.GameState | None, seat: int, policy: TimingPolicy
               ) -> dict[str, str]:
    """What a reminder says is played for this very decision if the seat stays silent."""
    if state is None or policy.on_timeout != "default":
        return {}
    return {"if_silent": engine.describe_default(state, seat),
            "if_silent_sms": engine.describe_default(state, seat, short=True)}


def nudge(session: Session, game_id: int, *, now: datetime) -> int:
    """Remind every awaited seat now (the admin's "nudge"); returns how many reminders
    were written.

    Each counts as the deadline's next scheduled reminder (a nudge never doubles the
    schedule) and ignores the quiet hours: the admin asked for it now.
    """
    game = lock_game(session, game_id)
    if game.status not in {GameStatus.RUNNING, GameStatus.INVITING}:
        raise WrongState(f"game {game.name!r} is {game.status}: nobody is awaited")
    report = timing.SweepReport()
    for deadline in timing.open_deadlines(session, game_id):
        if deadline.seat is not None:
            send_reminder(session, deadline, now, report)
    return len(report.reminders) + len(report.final_warnings)


def default_command(state: engine.GameState, seat: int) -> engine.Command:
    """The safe answer played for a seat that ran out of time (the engine's choice)."""
    return engine.default_command(state, seat)


def handle_expired(session: Session, deadline: Deadline, now: datetime,
                   report: timing.SweepReport) -> None:
    """After deadline + grace: play the default (and tell the table) or pause the game.
    A default that completes a round of silence (``timing.is_stalled``) pauses the game
    too, with the admin alerted and the table told."""
    game = lock_game(session, deadline.game_id)
    policy = policy_of(game)
    if now < deadline.due_at + timedelta(hours=policy.grace_hours):
        return
    if game.status not in {GameStatus.RUNNING, GameStatus.INVITING}:
        return
    assert game.id is not None
    if deadline.kind == INVITATION:
        _escalate(session, game, deadline, now, report,
                  f"seat {(deadline.seat or 0) + 1} has not answered the invitation; "
                  f"start with --force or replace the seat")
        return
    assert deadline.seat is not None
    state = load_state(game)
    if state.decision_id(deadline.seat) != deadline.decision_key:
        deadline.status, deadline.resolved_at = DeadlineStatus.DONE, now
        deadline.next_reminder_at = None
        return
    silent_seat, player = seat_of(session, game.id, deadline.seat)
    if policy.on_timeout == "pause":
        _escalate(session, game, deadline, now, report,
                  f"{player.display_name} did not answer in time ({deadline.kind})")
        pause(session, game.id, f"waiting for {player.display_name}, who ran out of time",
              now=now)
        report.paused_games.append(game.id)
        return
    told: dict[str, Any] = {}

    def tell_the_silent_seat_first(post: engine.GameState) -> None:
        """TIMED_OUT to the silent seat before any prompt this default opens (the outbox
        delivers each seat's messages in the order they were written)."""
        notice = session.exec(
            select(GameEvent).where(GameEvent.game_id == game.id,
                                    GameEvent.kind == "timeout.played")
            .order_by(col(GameEvent.seq).desc())).first()
        assert notice is not None
        data = json.loads(notice.data_json or "{}")
        told.update(text=notice.text, played=data.get("command"), why=data.get("why"))
        outbox.notify(session, game, silent_seat, player, MessageKind.TIMED_OUT,
                      now=now, state=post, deadline=_due(session, game.id, deadline.seat),
                      dedupe=f"g{game.id}:s{deadline.seat}:timeout:{deadline.id}",
                      extra={"played": told["played"], "why": told["why"],
                             "decision_kind": deadline.kind})

    result = submit(session, game.id, deadline.seat, engine.Timeout(),
                    origin=timing.TIMEOUT_ORIGIN, now=now, decision_id=deadline.decision_key,
                    first_tell=tell_the_silent_seat_first)
    if not result.ok:
        raise RuntimeError(f"the default for seat {deadline.seat + 1} failed: "
                           f"{result.message}")
    deadline.status, deadline.resolved_at = DeadlineStatus.TIMED_OUT, now
    deadline.next_reminder_at = None
    session.add(deadline)
    report.timeouts.append(deadline.id)  # type: ignore[arg-type]
    game = lock_game(session, game.id)
    after = load_state(game)
    for other, other_player in seats_of(session, game.id):
        if other.seat_index == deadline.seat or other.seat_index in result.notified:
            continue  # told first, or its new message carries the news in its recap
        outbox.notify(session, game, other, other_player, MessageKind.NOTICE, now=now,
                      state=after, deadline=_due(session, game.id, other.seat_index),
                      dedupe=f"g{game.id}:s{other.seat_index}:timeout:{deadline.id}",
                      extra={"headline": told["text"], "who": player.display_name,
                             "who_seat_number": deadline.seat + 1})
    seat_count = len(seats_of(session, game.id))
    if game.status == GameStatus.RUNNING and timing.is_stalled(session, game.id, seat_count):
        _pause_stalled(session, game, deadline, now, report)


def _pause_stalled(session: Session, game: Game, deadline: Deadline, now: datetime,
                   report: timing.SweepReport) -> None:
    """Every seat ran out of time since anyone last answered: stop playing defaults."""
    assert game.id is not None
    outbox.alert_admin(
        session, game, "paused: nobody answers",
        f"{game.name}: every seat has run out of time at least once since anyone last "
        f"answered, so the game is paused instead of playing defaults forever. Replace "
        f"seats or ask the players, then: pbm game resume {shlex.quote(game.name)}",
        now=now, dedupe=f"stalled:{deadline.id}")
    pause(session, game.id, timing.STALL_REASON, now=now)
    report.paused_games.append(game.id)


def _escalate(session: Session, game: Game, deadline: Deadline, now: datetime,
              report: timing.SweepReport, why: str) -> None:
    deadline.escalated = True
    deadline.status, deadline.resolved_at = DeadlineStatus.TIMED_OUT, now
    deadline.next_reminder_at = None
    session.add(deadline)
    outbox.alert_admin(session, game, "a deadline passed", f"{game.name}: {why}.", now=now,
                       dedupe=f"deadline:{deadline.id}")
    report.escalations.append(deadline.id)  # type: ignore[arg-type]


# ---------------------------------------------------------------- "tell me everything"


DIGEST_EVERY = timedelta(hours=1)  # at most one digest per player and game this often
NOT_NEWS = frozenset({"table.talk"})  # relayed live or folded into the next prompt


def send_digests(session: Session, now: datetime, report: timing.SweepReport | None = None,
                 *, limit: int = 500) -> list[int]:
    """Players who chose "tell me everything" get the public events they have not been
    told yet, batched: at most one digest per hour per game, never in their quiet hours.

    Run by ``timing.sweep_deadlines`` (every sweep); each seat in its own savepoint.
    Returns the ids of the outbox rows written (also in ``report.digests``).
    """
    from pbm.render import RECAP_SKIP

    report = report if report is not None else timing.SweepReport()
    news = select(GameEvent.id).where(
        GameEvent.game_id == Seat.game_id,
        col(GameEvent.seq) > Seat.last_event_seq,
        col(GameEvent.audience).is_(None),
        col(GameEvent.kind).not_in(RECAP_SKIP | NOT_NEWS),
    ).exists()
    candidates = session.exec(
        select(Seat.game_id, Seat.seat_index)
        .join(Player, col(Player.id) == Seat.player_id)
        .join(Game, col(Game.id) == Seat.game_id)
        .where(col(Player.tell_everything).is_(True), Game.status == GameStatus.RUNNING, news)
        .order_by(col(Seat.game_id), col(Seat.seat_index))
        .limit(limit)
    ).all()
    written: list[int] = []
    for game_id, seat_index in candidates:
        try:
            with session.begin_nested():
                written += _send_digest(session, game_id, seat_index, now)
        except Exception as exc:  # one bad seat must not stop the others
            report.errors.append(f"digest for game {game_id} seat {seat_index + 1}: {exc}")
    report.digests += written
    return written


def last_digest_at(session: Session, game_id: int, seat_index: int) -> datetime | None:
    """When this seat was last sent a "tell me everything" digest."""
    return session.exec(
        select(func.max(OutboundMessage.created_at)).where(
            OutboundMessage.game_id == game_id, OutboundMessage.seat == seat_index,
            col(OutboundMessage.dedupe_key).startswith(f"g{game_id}:s{seat_index}:digest:"))
    ).one()


def _send_digest(session: Session, game_id: int, seat_index: int, now: datetime) -> list[int]:
    from pbm.render import RECAP_SKIP

    last = last_digest_at(session, game_id, seat_index)
    if last is not None and now - last < DIGEST_EVERY:
        return []
    game = get_game(session, game_id)
    seat, player = seat_of(session, game_id, seat_index)
    if timing.in_quiet_hours(now, player.time_zone,
                             settings.quiet_policy(policy_of(game), player)):
        return []  # the morning's digest (or the next prompt's recap) has it
    game = lock_game(session, game_id)
    if game.status != GameStatus.RUNNING or not player.tell_everything:
        return []
    session.refresh(seat)
    unseen = outbox.events_for(session, game_id, seat_index, after=seat.last_event_seq,
                               limit=None)  # the seat's own private news ride along
    news = [e for e in unseen if e.audience is None and e.kind not in RECAP_SKIP | NOT_NEWS]
    if not news:
        return []
    state = load_state(game)
    sms_only = outbox.channels_for(player) == [Channel.SMS]
    if sms_only:  # one short text: how much happened, the latest of it, the talk waiting
        talk = sum(e.kind == "table.talk" for e in unseen)
        headline = (f"{len(news)} new event{'s' if len(news) > 1 else ''}"
                    + (f" and {talk} SAY message{'s' if talk > 1 else ''} (LOG)" if talk else "")
                    + f"; latest: {news[-1].text}")
    else:
        headline = f"Everything that happened in {game.name} since your last message"
    rows = outbox.notify(
        session, game, seat, player, MessageKind.NOTICE, now=now, events=unseen,
        state=None if sms_only else state,  # an SMS digest is the news, not the prompt again
        deadline=_due(session, game_id, seat_index),
        dedupe=f"g{game_id}:s{seat_index}:digest:{unseen[-1].seq}",
        extra={"headline": headline, "digest": True,
               "decision_ids": [d for d in [state.decision_id(seat_index)] if d]})
    return [r.id for r in rows if r.id is not None]


# ---------------------------------------------------------------- audit


def command_log(session: Session, game_id: int) -> list[CommandLog]:
    """The game's applied commands, in order."""
    return list(session.exec(
        select(CommandLog).where(CommandLog.game_id == game_id).order_by(col(CommandLog.seq))
    ))


def replay(session: Session, game_id: int) -> engine.GameState:
    """The state rebuilt from seed, options and the command log (names as now seated)."""
    game = get_game(session, game_id)
    names = [p.display_name for _, p in seats_of(session, game_id)]
    log = [(row.seat, engine.parse_command(row.command)) for row in command_log(session, game_id)]
    return engine.replay(names, game.seed, options_of(game), log)


def replay_matches(session: Session, game_id: int) -> bool:
    """True if replaying the command log gives exactly the stored snapshot."""
    game = get_game(session, game_id)
    return engine.to_json(replay(session, game_id)) == game.state_json
