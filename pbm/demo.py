"""``pbm demo``: a whole game with simulated players, through the real service, offline.

A fresh folder (``./var/demo-seed-N/``) holds everything: a SQLite database migrated to
head, the serverless Celery broker (kombu's filesystem transport), and the file transports'
output (every email as an ``.eml`` file, every SMS as a line of ``sms.jsonl``). Real
``celery -A workers.app worker`` and ``beat`` processes run with the demo's settings in
their environment, as in production; only settings differ.

The admin part (create the game, invite) calls ``pbm.games`` like ``pbm game`` does.
Everything after that is players replying: each simulated player (``pbm.simplayer``) reads
only the messages addressed to it and answers through ``pbm.mailroom`` (stored by
``pbm.inbound`` and processed by a worker, as the webhooks do). The table moves in steps:
when the service is quiet (nothing to process, nothing to send) every new message is
delivered, then each player who was asked something replies, one after the other, so the
same seed always plays the same game.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import sqlalchemy as sa

from pbm.demo_workers import (
    DemoError,
    WorkerError,
    Workers,
    adopt_environment,
    demo_environment,
    terminate_as_interrupt,
)
from pbm.mailroom import Delivered, Mailroom, Posted
from pbm.simplayer import SimPlayer

ROSTER = ("Anne", "Bart", "Cleo", "Dirk", "Esme", "Finn", "Gwen", "Hugo", "Ines")
MARKER = ".pbm-demo"
STALL_NUDGE_SECONDS = 8.0  # nobody acts for this long: awaited players ask for STATUS
STALL_FAIL_SECONDS = 90.0  # ... and after this long the demo gives up
QUIET_POLL = 0.05
RULE = "-" * 72


__all__ = ["DemoError", "Table", "WorkerError", "Workers", "adopt_environment",
           "demo_environment", "make_table", "run_demo", "terminate_as_interrupt"]


# ------------------------------------------------------------------ the table


@dataclass(frozen=True)
class SeatSpec:
    """One seat of the demo table: a name, a channel and the address it is reached on."""

    index: int
    name: str
    channel: str  # "email" or "sms"
    email: str | None
    phone: str | None

    @property
    def address(self) -> str:
        return (self.phone if self.channel == "sms" else self.email) or ""


def sms_seats(players: int) -> set[int]:
    """Which seats play by SMS: one at a small table, two from six players."""
    if players < 3:
        return {1}
    return {2, 5} if players >= 6 else {2}


def human_seat(players: int, name: str) -> int:
    """The seat a human called ``name`` takes: that roster seat, else the first."""
    key = " ".join(name.split()).casefold()
    return next((i for i, n in enumerate(ROSTER[:players]) if n.casefold() == key), 0)


def make_table(players: int, human: str | None = None) -> list[SeatSpec]:
    """The demo's seats; ``human`` (a roster name or a new one) takes a seat by email."""
    if not 2 <= players <= len(ROSTER):
        raise DemoError(f"Tortuga 1667 takes 2 to {len(ROSTER)} players, not {players}")
    names = list(ROSTER[:players])
    human_index = None
    if human is not None:
        human = " ".join(human.split())
        if not human or len(human) > 40:
            raise DemoError("--as needs a name of 1 to 40 characters")
        human_index = human_seat(players, human)
        names[human_index] = human
    sms = sms_seats(players) - ({human_index} if human_index is not None else set())
    seats = []
    for i, name in enumerate(names):
        local = "".join(ch for ch in name.lower() if ch.isalnum()) or f"player{i + 1}"
        seats.append(SeatSpec(
            index=i, name=name, channel="sms" if i in sms else "email",
            email=f"{local}{i + 1}@example.org", phone=f"+1555010{i + 1:04d}",
        ))
    return seats


# ------------------------------------------------------------------ folder and settings


def demo_folder(seed: int, base: Path | None = None) -> Path:
    """``./var/demo-seed-N`` (or under ``base``)."""
    return (base or Path("var")) / f"demo-seed-{seed}"


def fresh_folder(folder: Path) -> Path:
    """Wipe and recreate a demo folder; refuse to wipe anything the demo did not make."""
    folder = folder.resolve()
    if folder.exists():
        if any(folder.iterdir()) and not (folder / MARKER).exists():
            raise DemoError(f"{folder} exists and is not a demo folder: choose another --dir")
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / MARKER).write_text("made by pbm demo; wiped by the next run\n")
    return folder


# ------------------------------------------------------------------ transcript


class Transcript:
    """``transcript.txt``: every message and every reply, in order, in plain text."""

    def __init__(self, path: Path, folder: Path) -> None:
        self.path = path
        self.folder = folder
        self.count = 0
        self._fh = path.open("w", encoding="utf-8")

    def write(self, text: str) -> None:
        self._fh.write(text)
        self._fh.flush()

    def header(self, lines: list[str]) -> None:
        self.write("\n".join(lines) + "\n\n")

    def _where(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.folder))
        except ValueError:
            return str(path)

    def _entry(self, title: str, body: str) -> None:
        self.count += 1
        stamp = datetime.now(UTC).strftime("%H:%M:%S")
        self.write(f"{RULE}\n#{self.count} {stamp}  {title}\n{RULE}\n{body.rstrip()}\n\n")

    def outgoing(self, message: Delivered, to_name: str, kind: str) -> None:
        """A message the service sent, as its recipient reads it."""
        where = self._where(message.path)
        if message.channel == "sms":
            self._entry(f"SMS to {to_name} ({message.to}) [{kind}]  {where}", message.text)
        else:
            self._entry(f"EMAIL to {to_name} <{message.to}> [{kind}]  {where}",
                        f"Subject: {message.subject}\n\n{message.text}")

    def incoming(self, posted: Posted, from_name: str) -> None:
        """A player's reply: their own text (the .eml also quotes what it answers)."""
        where = self._where(posted.path)
        if posted.channel == "sms":
            self._entry(f"SMS reply from {from_name} ({posted.sender})  {where}", posted.text)
        else:
            self._entry(f"EMAIL reply from {from_name} <{posted.sender}> to {posted.recipient}"
                        f"  {where}", posted.text + "\n\n(> the message it answers, quoted)")

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()


# ------------------------------------------------------------------ players


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


# ------------------------------------------------------------------ the run


@dataclass
class Progress:
    """What the table has done so far (read from the database by the organiser)."""

    status: str = "created"
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
                 players: dict[int, Seat] | None = None, game_name: str | None = None) -> None:
        self.folder = folder
        self.seed = seed
        self.specs = seats
        self.env = demo_environment(folder)
        self.game_name = game_name or f"demo-{seed}"
        self.game_id: int | None = None
        names = tuple(s.name for s in seats)
        self.seats: dict[int, Seat] = players or {}
        for spec in seats:
            if spec.index not in self.seats:
                self.seats[spec.index] = SimSeat(spec, SimPlayer(spec.name, spec.channel, seed,
                                                                 friends=names))
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
        from pbm import db, games
        from workers.hooks import install_outbox_hook

        db.upgrade()
        install_outbox_hook()  # new outbox rows go to the workers after each commit
        specs = [games.PlayerSpec(s.name, email=s.email, phone=s.phone, channel=s.channel)
                 for s in self.specs]
        now = datetime.now(UTC)

        def create(session: Any) -> int:
            game = games.create_game(session, self.game_name, specs, now=now, seed=self.seed)
            assert game.id is not None
            return game.id

        self.game_id = db.run_transaction(create)
        db.run_transaction(lambda s: games.invite(s, self.game_id, now=datetime.now(UTC)))
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
        from pbm.db import get_engine

        with get_engine().connect() as conn:
            busy_in = conn.execute(sa.text(
                "SELECT count(*) FROM inbound_messages WHERE status IN ('new', 'processing')"
            )).scalar()
            busy_out = conn.execute(sa.text(
                "SELECT count(*) FROM outbound_messages WHERE status IN ('pending', 'sending')"
            )).scalar()
        return not busy_in and not busy_out

    def progress(self) -> Progress:
        import engine
        from pbm import games
        from pbm.db import session_scope
        from pbm.models import CommandLog, Game, GameEvent

        with session_scope(write=False) as session:
            game = session.get(Game, self.game_id)
            assert game is not None
            p = self._progress
            p.status = game.status
            p.over = game.status in ("finished", "aborted")
            p.decisions = session.execute(sa.select(sa.func.count()).select_from(CommandLog)
                                          .where(CommandLog.game_id == self.game_id)).scalar() or 0
            if game.state_json and game.state_version != self._last_state_version:
                self._last_state_version = game.state_version
                state = engine.from_json(game.state_json)
                public = engine.public_view(state)
                p.revealed = session.execute(
                    sa.select(sa.func.count()).select_from(GameEvent)
                    .where(GameEvent.game_id == self.game_id,
                           GameEvent.kind == "event.revealed")).scalar() or 0
                p.event_total = p.revealed + len(public.row) + public.deck_size
            p.awaited = games.waiting_for(session, game)
        return p

    def kinds(self, ids: list[int]) -> dict[int, str]:
        """The outbox kind of each message (for the transcript's labels)."""
        missing = [i for i in ids if i not in self._kinds]
        if missing:
            from pbm.db import get_engine

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
        if spec.channel == "sms":
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


# ------------------------------------------------------------------ summary


@dataclass(frozen=True)
class Result:
    """The end of a demo game, for the terminal and the tests."""

    game_id: int
    status: str
    winner: str | None
    score: dict[str, Any]
    loyalties: list[tuple[str, str]]
    decisions: int
    folder: Path


def result(table: Table) -> Result:
    import engine
    from pbm import games
    from pbm.db import session_scope
    from pbm.models import Game

    with session_scope(write=False) as session:
        game = session.get(Game, table.game_id)
        assert game is not None
        state = games.load_state(game) if game.state_json else None
        decisions = len(games.command_log(session, game.id))  # type: ignore[arg-type]
        status = game.status
        game_id = game.id
    score = engine.score(state).to_dict() if state is not None else {}
    loyalties: list[tuple[str, str]] = []
    if state is not None:
        public = engine.public_view(state)
        if public.loyalties:
            loyalties = [(table.specs[i].name, str(loyalty.value).capitalize())
                         for i, loyalty in enumerate(public.loyalties)]
    winner = score.get("winner")
    return Result(game_id or 0, status, str(winner).capitalize() if winner else None, score,
                  loyalties, decisions, table.folder)


def describe(table: Table, res: Result, seconds: float) -> list[str]:
    """The closing lines: result, loyalties, messages per channel, where everything is."""
    folder = table.folder
    cwd = Path.cwd()

    def rel(path: Path) -> str:
        try:
            return str(path.relative_to(cwd))
        except ValueError:
            return str(path)

    score = res.score
    lines = []
    if res.winner:
        lines.append(f"Game {table.game_name} is over after {res.decisions} decisions: the "
                     f"{res.winner} win (British {score.get('british')}, French "
                     f"{score.get('french')}, Galleon {score.get('galleon')}).")
    else:
        lines.append(f"Game {table.game_name}: {res.status} after {res.decisions} decisions.")
    if res.loyalties:
        lines.append("Loyalties: " + ", ".join(f"{n} {team}" for n, team in res.loyalties) + ".")
    t = table.tally
    lines.append(f"Messages sent: {t.sent.get('email', 0)} emails, {t.sent.get('sms', 0)} SMS. "
                 f"Replies: {t.replies.get('email', 0)} by email, {t.replies.get('sms', 0)} "
                 "by SMS.")
    lines.append(f"Wall time: {seconds:.0f} s.")
    lines.append("Transcript (every message and reply, in order): "
                 f"{rel(folder / 'transcript.txt')}")
    lines.append(f"Emails sent: {rel(folder / 'outbox' / 'email')}/ (.eml); SMS sent: "
                 f"{rel(folder / 'outbox' / 'sms.jsonl')}")
    lines.append(f"Replies: {rel(folder / 'inbox')}/; database: {rel(folder / 'tortuga.db')}; "
                 f"worker logs: {rel(folder / 'logs')}/")
    return lines


# ------------------------------------------------------------------ pbm demo


def run_demo(players: int = 5, seed: int = 1, folder: Path | None = None,
             echo: Callable[[str], None] = print) -> Result:
    """Play a whole game with simulated players; print where everything lies."""
    from rich.console import Console
    from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bar

    started = time.monotonic()
    seats = make_table(players)
    place = fresh_folder(folder or demo_folder(seed))
    console = Console()
    echo(f"Demo folder: {place}")
    echo("Players: " + ", ".join(f"{s.name} ({s.channel})" for s in seats))
    table = Table(place, seed, seats)
    with terminate_as_interrupt():
        try:
            table.prepare()
            table.workers.start()
            echo("Workers: celery worker (2 processes) and beat, with the filesystem broker; "
                 f"logs in {place / 'logs'}")
            with Bar(TextColumn("{task.description:<22}"), BarColumn(),
                     TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=console,
                     disable=not console.is_terminal) as bar:
                cards = bar.add_task("Event cards revealed", total=21, info="")
                decisions = bar.add_task("Decisions made", total=None, info="")
                last_line = [0.0]

                def show(p: Progress) -> None:
                    total = max(p.event_total, p.revealed, 1)
                    bar.update(cards, completed=p.revealed, total=total,
                               info=f"{p.revealed}/{total}")
                    messages = sum(table.tally.sent.values())
                    bar.update(decisions, completed=p.decisions,
                               info=f"{p.decisions} ({messages} messages sent)")
                    if (not console.is_terminal and p.event_total
                            and time.monotonic() - last_line[0] > 10):
                        last_line[0] = time.monotonic()
                        echo(f"  ... {p.revealed}/{p.event_total} Event cards revealed, "
                             f"{p.decisions} decisions made")

                table.run(on_progress=show)
        except KeyboardInterrupt:
            echo("Interrupted: stopping the workers.")
            raise
        finally:
            table.close()
    res = result(table)
    for line in describe(table, res, time.monotonic() - started):
        echo(line)
    return res
