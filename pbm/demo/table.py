"""The demo table at play: its players (simulated or human), the organiser's view of the
database, and the loop that delivers messages and posts replies until the game is over.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import sqlalchemy as sa
from sqlmodel import col

import engine
from pbm import db, games
from pbm.db import get_engine, session_scope
from pbm.demo.mailroom import Delivered, Mailroom, Posted
from pbm.demo.seating import SeatSpec
from pbm.demo.simplayer import SimPlayer
from pbm.demo.transcript import Transcript
from pbm.demo.workers import DemoError, Workers, adopt_environment, demo_environment
from pbm.messages import Channel
from pbm.models import CommandLog, Game, GameEvent, GameStatus
from workers.hooks import install_process_hooks

STALL_NUDGE_SECONDS = 8.0  # nobody acts for this long: awaited players ask for STATUS
STALL_FAIL_SECONDS = 90.0  # ... and after this long the demo gives up
QUIET_POLL = 0.05


class Seat(Protocol):
    """Someone at the table, simulated or human."""

    spec: SeatSpec

    def receive(self, message: Delivered) -> None: ...

    def next_reply(self) -> tuple[Delivered, str] | None: ...


@dataclass
class SimSeat:
    """A simulated person at one seat."""

    spec: SeatSpec
    player: SimPlayer

    def receive(self, message: Delivered) -> None:
        self.player.receive(message, message.text)

    def next_reply(self) -> tuple[Delivered, str] | None:
        reply = self.player.next_reply()
        return None if reply is None else (reply[0], reply[1])  # type: ignore[return-value]

    def status_request(self) -> tuple[Delivered, str] | None:
        reply = self.player.status_request()
        return None if reply is None else (reply[0], reply[1])  # type: ignore[return-value]


@dataclass
class Progress:
    """What the table has done so far (read from the database by the organiser)."""

    status: str = GameStatus.CREATED
    decisions: int = 0
    revealed: int = 0
    event_total: int = 0
    awaited: list[dict[str, Any]] = field(default_factory=list)
    over: bool = False


@dataclass
class Tally:
    """Counts for the final summary."""

    sent: dict[str, int] = field(default_factory=lambda: {"email": 0, "sms": 0})
    replies: dict[str, int] = field(default_factory=lambda: {"email": 0, "sms": 0})
    status_requests: int = 0


class Table:
    """One demo game: folder, database, workers, players, and the loop that runs it."""

    def __init__(self, folder: Path, seed: int, seats: list[SeatSpec], *,
                 players: dict[int, Seat] | None = None, game_name: str | None = None,
                 pace: float = 0.0) -> None:
        self.folder = folder
        self.pace = pace  # seconds a simulated player thinks before each reply
        self.seed = seed
        self.specs = seats
        self.env = demo_environment(folder)
        self.game_name = game_name or f"demo-{seed}"
        self.game_id: int | None = None
        names = tuple(s.name for s in seats)
        self.seats: dict[int, Seat] = players or {}
        for spec in seats:
            if spec.index not in self.seats:
                self.seats[spec.index] = SimSeat(spec, SimPlayer(
                    spec.name, spec.channel, seed, friends=names, language=spec.language))
        self.by_address = {s.address.lower(): s.index for s in seats}
        self.mailroom = Mailroom(folder, folder / "inbox")
        self.transcript = Transcript(folder / "transcript.txt", folder)
        self.tally = Tally()
        self.workers = Workers(self.env, folder / "logs")
        self._last_state_version = -1
        self._progress = Progress()
        self._kinds: dict[int, str] = {}

    # -- set-up

    def prepare(self) -> None:
        """Adopt the demo settings, migrate the database, create and invite the game."""
        adopt_environment(self.env)

        db.upgrade()
        install_process_hooks()  # new outbox rows go to the workers after each commit
        specs = [games.PlayerSpec(s.name, email=s.email, phone=s.phone, channel=s.channel,
                                  language=s.language)
                 for s in self.specs]
        now = datetime.now(UTC)

        def create(session: Any) -> int:
            game = games.create_game(session, self.game_name, specs, now=now, seed=self.seed)
            assert game.id is not None
            return game.id

        game_id = self.game_id = db.run_transaction(create)
        db.run_transaction(lambda s: games.invite(s, game_id, now=datetime.now(UTC)))
        self.transcript.header([
            f"Tortuga by Mail - demo game {self.game_name} (seed {self.seed}), "
            f"{len(self.specs)} players:",
            *[f"  seat {s.index + 1}: {s.name} by {s.channel} ({s.address})"
              for s in self.specs],
            "Every message the service sent and every reply, in order. The .eml files are "
            "under outbox/email/ (sent) and inbox/email/ (replies); SMS in outbox/sms.jsonl "
            "and inbox/sms.jsonl.",
        ])

    # -- the organiser's view of the database (never shown to players)

    def quiet(self) -> bool:
        """True when nothing waits to be processed or sent."""
        with get_engine().connect() as conn:
            busy_in = conn.execute(sa.text(
                "SELECT count(*) FROM inbound_messages WHERE status IN ('new', 'processing')"
            )).scalar()
            busy_out = conn.execute(sa.text(
                "SELECT count(*) FROM outbound_messages WHERE status IN ('pending', 'sending')"
            )).scalar()
        return not busy_in and not busy_out

    def progress(self) -> Progress:
        with session_scope(write=False) as session:
            game = session.get(Game, self.game_id)
            assert game is not None
            p = self._progress
            p.status = game.status
            p.over = game.status in (GameStatus.FINISHED, GameStatus.ABORTED)
            p.decisions = session.execute(sa.select(sa.func.count()).select_from(CommandLog)
                                          .where(col(CommandLog.game_id) == self.game_id)
                                          ).scalar() or 0
            if game.state_json and game.state_version != self._last_state_version:
                self._last_state_version = game.state_version
                state = engine.from_json(game.state_json)
                public = engine.public_view(state)
                p.revealed = session.execute(
                    sa.select(sa.func.count()).select_from(GameEvent)
                    .where(col(GameEvent.game_id) == self.game_id,
                           col(GameEvent.kind) == "event.revealed")).scalar() or 0
                p.event_total = p.revealed + len(public.row) + public.deck_size
            p.awaited = games.waiting_for(session, game)
        return p

    def kinds(self, ids: list[int]) -> dict[int, str]:
        """The outbox kind of each message (for the transcript's labels)."""
        missing = [i for i in ids if i not in self._kinds]
        if missing:
            with get_engine().connect() as conn:
                rows = conn.execute(sa.text(
                    "SELECT id, kind FROM outbound_messages WHERE id IN "
                    f"({','.join(str(int(i)) for i in missing)})")).all()
            self._kinds.update({int(r[0]): str(r[1]) for r in rows})
        return self._kinds

    # -- moving messages

    def deliver(self) -> list[tuple[Delivered, int | None]]:
        """Hand every new message to its addressee (and the transcript)."""
        arrived = self.mailroom.collect()
        kinds = self.kinds([d.outbox_id for d in arrived if d.outbox_id is not None])
        out = []
        for message in arrived:
            seat = self.by_address.get(message.to.lower())
            name = self.specs[seat].name if seat is not None else "the admin"
            self.transcript.outgoing(message, name,
                                     kinds.get(message.outbox_id or -1, "message"))
            self.tally.sent[message.channel] = self.tally.sent.get(message.channel, 0) + 1
            if seat is not None:
                self.seats[seat].receive(message)
            out.append((message, seat))
        return out

    def post(self, seat: int, message: Delivered, text: str) -> Posted:
        """Send one reply from ``seat`` through the normal inbound path."""
        spec = self.specs[seat]
        if spec.channel == Channel.SMS:
            posted = self.mailroom.send_sms(spec.address, text)
        else:
            posted = self.mailroom.send_email(spec.name, spec.address, message, text)
        self.transcript.incoming(posted, spec.name)
        self.tally.replies[spec.channel] = self.tally.replies.get(spec.channel, 0) + 1
        return posted

    def wait_quiet(self, timeout: float = 120.0, tick: Callable[[], None] | None = None) -> None:
        end = time.monotonic() + timeout
        while not self.quiet():
            self.workers.check()
            if tick is not None:
                tick()
            if time.monotonic() > end:
                raise DemoError(f"the workers did not finish their work within {timeout:.0f} s;"
                                f" see {self.folder / 'logs'}")
            time.sleep(QUIET_POLL)

    # -- the loop

    def run(self, *, on_progress: Callable[[Progress], None] | None = None,
            tick: Callable[[], None] | None = None, human: int | None = None,
            until: Callable[[Progress], bool] | None = None) -> Progress:
        """Play until the game is over (or ``until`` says so). ``tick`` runs often (a
        human's terminal); ``human`` is the seat typed at the keyboard, if any."""
        last_activity = last_change = time.monotonic()
        decisions = -1
        nudged_at = -1
        while True:
            self.wait_quiet(tick=tick)
            arrived = self.deliver()
            progress = self.progress()
            if on_progress is not None:
                on_progress(progress)
            if (progress.over and not arrived and self.quiet()) or (
                    until is not None and until(progress)):
                return progress
            if progress.decisions != decisions:
                decisions, last_change = progress.decisions, time.monotonic()
            acted = False
            for index in sorted(self.seats):
                if index == human:
                    continue
                if acted:  # what the last reply caused reaches everyone first
                    arrived += self.deliver()
                reply = self.seats[index].next_reply()
                if reply is None:
                    continue
                if self.pace:
                    time.sleep(self.pace)
                self.post(index, reply[0], reply[1])
                acted = True
                self.wait_quiet(tick=tick)  # one reply at a time: the same seed, the same game
            if tick is not None:
                tick()
            if arrived or acted:
                last_activity = time.monotonic()
                continue
            waiting_for_human = human is not None and any(
                a["seat"] == human for a in progress.awaited)
            if waiting_for_human or progress.over:
                last_activity = last_change = time.monotonic()
                time.sleep(QUIET_POLL)
                continue
            now = time.monotonic()
            if now - last_activity > STALL_NUDGE_SECONDS and nudged_at != decisions:
                # Nobody was asked anything: the awaited players ask for their picture again.
                nudged_at = decisions
                for awaited in progress.awaited:
                    seat = self.seats.get(awaited["seat"])
                    request = seat.status_request() if isinstance(seat, SimSeat) else None
                    if request is not None:
                        self.post(awaited["seat"], request[0], request[1])
                        self.tally.status_requests += 1
            elif now - last_change > STALL_FAIL_SECONDS:
                raise DemoError("the game stalled: no decision for "
                                f"{now - last_change:.0f} s (waiting for {progress.awaited}); "
                                f"see {self.transcript.path}")
            time.sleep(QUIET_POLL)

    def close(self) -> None:
        """Stop the workers and close the transcript (safe to call twice)."""
        self.workers.stop()
        self.transcript.close()
