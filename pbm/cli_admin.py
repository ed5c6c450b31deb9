"""Admin verbs of the ``pbm`` command: ``pbm game ...``, ``pbm quarantine ...``, ``pbm db ...``.

Every change goes through ``pbm.games`` in one transaction; new outbox rows are handed to
the workers after the commit (and the relay finds any whose hand-over is lost). A human
error (unknown game, a game that already started, ten players, a duplicate email) prints
one line and exits with code 2, never a traceback.
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table
from sqlalchemy.exc import OperationalError, ProgrammingError
from sqlmodel import Session, col, select

from pbm import db, games
from pbm.admin_input import check_game_name, check_zone, parse_player
from pbm.config import get_settings
from pbm.messages import Channel
from pbm.models import (
    CommandLog,
    Deadline,
    DeadlineStatus,
    Game,
    GameEvent,
    InboundMessage,
    InboundStatus,
    OutboundMessage,
)
from pbm.timing import TimingPolicy, zone

F = TypeVar("F", bound=Callable[..., Any])

# plain (click) help: wrapped to the terminal, no <bool> placeholders, nothing cut off
game_app = typer.Typer(help="Create and run games.", no_args_is_help=True,
                       rich_markup_mode=None)
quarantine_app = typer.Typer(help="Inbound messages that failed processing.",
                             no_args_is_help=True, rich_markup_mode=None)
db_app = typer.Typer(help="The database schema.", no_args_is_help=True, rich_markup_mode=None)
GAME = typer.Argument(..., metavar="GAME", help="Game name or id.")

console = Console(width=120)
err = Console(stderr=True)


def now_utc() -> datetime:
    return datetime.now(UTC)


def say(text: str) -> None:
    """Print a result line as it is: no markup, no colouring, never wrapped."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def command(*words: str) -> str:
    """A ``pbm`` command line for the admin to run next, every word shell-quoted."""
    return " ".join(["pbm", *(shlex.quote(w) for w in words)])


def fail(message: str) -> None:
    """Print one line for a human and exit 2."""
    err.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def human_errors(func: F) -> F:
    """Turn refusals and a missing schema into one line and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except games.GameError as exc:
            fail(str(exc))
        except ValueError as exc:
            fail(str(exc))
        except (OperationalError, ProgrammingError) as exc:
            text = str(exc.orig).lower()
            if "no such table" in text or "does not exist" in text:
                fail("the database has no tables yet: run `pbm db upgrade`")
            if "unable to open" in text or "connection" in text:
                fail(f"cannot reach the database: {str(exc.orig).splitlines()[0]}")
            raise
        return None

    return wrapper  # type: ignore[return-value]


def _write(work: Callable[[Session], Any]) -> Any:
    """Run ``work`` in one retried transaction; enqueue its messages after the commit."""
    try:
        from workers.hooks import install_outbox_hook

        install_outbox_hook()
    except Exception:
        pass
    return db.run_transaction(work)


def _game_id(ref: str) -> int:
    with db.session_scope(write=False) as session:
        game_id = games.get_game(session, ref).id
    assert game_id is not None
    return game_id


def _seat_index(seat: int) -> int:
    if seat < 1:
        raise games.InvalidRequest("seats are numbered from 1")
    return seat - 1


def _when(value: datetime | None, tz: str | None = None) -> str:
    if value is None:
        return "-"
    utc = value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if tz and tz != "UTC":
        local = value.astimezone(zone(tz)).strftime("%a %H:%M")
        return f"{utc} ({local} {tz})"
    return utc


# ---------------------------------------------------------------- pbm game


@game_app.command("create")
@human_errors
def create(
    name: str = typer.Argument(..., metavar="NAME",
                               help="A short unique name: lower-case letters, digits, hyphens "
                                    "(harbour-2)."),
    player: list[str] = typer.Option(
        ..., "--player", "-p", metavar="PLAYER",
        help='A seat, in order: a name, then an email, a phone (any notation, with +country '
             'unless PHONE_REGION is set) or both, and an optional IANA zone: '
             '"Ann <ann@example.org>", "Bob +1 555 123 4567", '
             '"Cy <c@x.org> +49 151 1234567 Europe/Berlin".',
    ),
    seed: int | None = typer.Option(None, metavar="N",
                                    help="Random seed (the same seed deals the same)."),
    starred: str | None = typer.Option(
        None, metavar="CARDS", help="The 3 starred Event cards, comma separated (default "
                                    "ATLANTIS,EL_DORADO,FOUNTAIN_OF_YOUTH)."),
    tz: str = typer.Option("UTC", metavar="ZONE", help="Time zone of players who give none."),
    sms: bool = typer.Option(False, help="Prefer SMS for players with a phone."),
    action_hours: float = typer.Option(48, metavar="HOURS", help="Hours for a turn action."),
    vote_hours: float = typer.Option(24, metavar="HOURS", help="Hours for a vote."),
    other_hours: float = typer.Option(24, metavar="HOURS", help="Hours for other decisions."),
    invite_hours: float = typer.Option(72, metavar="HOURS",
                                       help="Hours to answer the invitation."),
    grace_hours: float = typer.Option(1, metavar="HOURS",
                                      help="Grace after a deadline before the policy acts."),
    on_timeout: str = typer.Option("default", metavar="default|pause",
                                   help="Play a safe move, or pause the game."),
    quiet: str = typer.Option("22-8", metavar="START-END",
                              help="Quiet hours for reminders, local time."),
    auto_start: bool = typer.Option(True, help="Start when everyone has joined."),
) -> None:
    """Create a game (nobody is told until `pbm game invite`)."""
    name = check_game_name(name)
    tz = check_zone(tz, "--tz")
    region = get_settings().phone_region
    specs = [parse_player(text, position, default_zone=tz, region=region, prefer_sms=sms)
             for position, text in enumerate(player, start=1)]
    try:
        start, end = (int(x) for x in quiet.split("-"))
    except ValueError:
        raise games.InvalidRequest(f"quiet hours look like 22-8, not {quiet!r}") from None
    policy = TimingPolicy(invitation_hours=invite_hours, grace_hours=grace_hours,
                          on_timeout=on_timeout, quiet_start=start, quiet_end=end,
                          auto_start=auto_start).with_hours(
        action=action_hours, vote=vote_hours, other=other_hours)
    options = _options(starred)
    now = now_utc()
    game = _write(lambda s: games.create_game(s, name, specs, now=now, seed=seed,
                                              options=options, timing_policy=policy))
    say(f"Created game {game.name} (id {game.id}) with {len(specs)} seats, seed {game.seed}. "
        f"Next: {command('game', 'invite', game.name)}")


def _options(starred: str | None) -> Any:
    import engine

    if not starred:
        return engine.GameOptions()
    titles = []
    for raw in starred.split(","):
        key = raw.strip().upper().replace(" ", "_").replace("'", "")
        try:
            titles.append(engine.EventTitle(key))
        except ValueError:
            raise games.InvalidRequest(f"no Event card called {raw.strip()!r}") from None
    return engine.GameOptions(starred=tuple(titles))


@game_app.command("invite")
@human_errors
def invite(game: str = GAME) -> None:
    """Send the invitations (players answer JOIN or DECLINE)."""
    game_id, now = _game_id(game), now_utc()
    result = _write(lambda s: games.invite(s, game_id, now=now))
    say(result.message)


@game_app.command("start")
@human_errors
def start(
    game: str = GAME,
    force: bool = typer.Option(False, help="Start without waiting for everyone to join."),
) -> None:
    """Deal the game and send the first prompts."""
    game_id, now = _game_id(game), now_utc()
    result = _write(lambda s: games.start(s, game_id, now=now, force=force))
    say(result.message)


@game_app.command("pause")
@human_errors
def pause(
    game: str = GAME,
    reason: str = typer.Option(..., metavar="TEXT", help="Told to every player."),
) -> None:
    """Pause a game: deadlines freeze until it resumes."""
    game_id, now = _game_id(game), now_utc()
    say(_write(lambda s: games.pause(s, game_id, reason, now=now)).message)


@game_app.command("resume")
@human_errors
def resume(game: str = GAME) -> None:
    """Resume a paused game; deadlines move later by the length of the pause."""
    game_id, now = _game_id(game), now_utc()
    say(_write(lambda s: games.resume(s, game_id, now=now)).message)


@game_app.command("extend")
@human_errors
def extend(
    game: str = GAME,
    hours: float = typer.Option(24, metavar="HOURS", help="How many hours to add."),
    seat: int | None = typer.Option(None, metavar="SEAT",
                                    help="Only this seat's deadline (1-based)."),
) -> None:
    """Give more time to the open decisions."""
    game_id, now = _game_id(game), now_utc()
    index = None if seat is None else _seat_index(seat)
    result = _write(lambda s: games.extend(s, game_id, hours, now=now, seat=index))
    say(result.message)


@game_app.command("replace")
@human_errors
def replace(
    game: str = GAME,
    seat: int = typer.Argument(..., metavar="SEAT", help="Seat number (1-based)."),
    player: str = typer.Option(..., metavar="PLAYER",
                               help='The newcomer: "Dee <dee@example.org>", as in create.'),
    tz: str = typer.Option("UTC", metavar="ZONE",
                           help="The newcomer's time zone, unless PLAYER names one."),
) -> None:
    """Give a seat to another player (who gets a briefing of everything it knew)."""
    spec = parse_player(player, seat, default_zone=check_zone(tz, "--tz"),
                        region=get_settings().phone_region)
    game_id, now = _game_id(game), now_utc()
    result = _write(lambda s: games.replace_seat(s, game_id, _seat_index(seat), spec, now=now))
    say(result.message)


@game_app.command("abort")
@human_errors
def abort(
    game: str = GAME,
    reason: str = typer.Option("stopped by the admin", metavar="TEXT",
                              help="Told to every player."),
) -> None:
    """Stop a game for good."""
    game_id, now = _game_id(game), now_utc()
    say(_write(lambda s: games.abort(s, game_id, reason, now=now)).message)


@game_app.command("list")
@human_errors
def list_games(
    status: str | None = typer.Option(None, metavar="STATUS",
                                         help="Only games with this status."),
) -> None:
    """Every game, newest first."""
    with db.session_scope(write=False) as session:
        query = select(Game).order_by(col(Game.id).desc())
        if status:
            query = query.where(Game.status == status)
        rows = list(session.exec(query))
        table = Table("id", "name", "status", "seats", "awaiting", "updated")
        for game in rows:
            waiting = games.waiting_for(session, game)
            table.add_row(str(game.id), game.name, game.status,
                          str(len(games.seats_of(session, game.id))),  # type: ignore[arg-type]
                          ", ".join(f"{w['name']} ({w['kind']})" for w in waiting) or "-",
                          _when(game.updated_at))
    if not rows:
        console.print("No games yet. Create one: pbm game create NAME --player ...",
                      markup=False)
        return
    console.print(table)


@game_app.command("show")
@human_errors
def show(
    game: str = GAME,
    spoilers: bool = typer.Option(False, help="Also show loyalties and hands (secrets)."),
    messages: int = typer.Option(10, metavar="N", help="How many recent messages to list."),
) -> None:
    """The board, who is awaited, deadlines, messages sent. Secrets only with --spoilers."""
    import engine

    with db.session_scope(write=False) as session:
        g = games.get_game(session, game)
        assert g.id is not None
        state = games.load_state(g) if g.state_json else None
        console.print(f"[bold]{g.name}[/bold] (id {g.id}) - {g.status}"
                      + (f" - paused: {g.pause_reason}" if g.pause_reason else ""),
                      highlight=False)
        console.print(f"created {_when(g.created_at)}, started {_when(g.started_at)}, "
                      f"version {g.state_version}" + (f", seed {g.seed}" if spoilers else ""),
                      highlight=False)
        public = engine.public_view(state).to_dict() if state is not None else None
        seats = Table("seat", "player", "contact", "joined", "where", "ranks", "hand")
        if spoilers:
            seats.add_column("loyalty")
            seats.add_column("hand cards")
        for seat, player in games.seats_of(session, g.id):
            contact = " ".join(x for x in [player.email, player.phone] if x)
            row = [str(seat.seat_index + 1), player.display_name, contact,
                   seat.invitation_status, "-", "-", "-"]
            if public is not None:
                info = public["players"][seat.seat_index]
                where = info["location"] + (f" #{info['position']}" if info["position"] else "")
                row[4:7] = [where, ", ".join(info["ranks"]) or "-", str(info["hand_size"])]
            if spoilers:
                if state is not None:
                    view = engine.view(state, seat.seat_index).to_dict()
                    row += [view["loyalty"], "; ".join(c["text"] for c in view["hand"])]
                else:
                    row += ["-", "-"]
            seats.add_row(*row)
        console.print(seats)
        if public is not None:
            _print_board(public)
        waiting = games.waiting_for(session, g, state)
        deadlines = {(d.seat, d.kind): d for d in session.exec(
            select(Deadline).where(Deadline.game_id == g.id,
                                   Deadline.status == DeadlineStatus.OPEN))}
        awaited = Table("awaiting", "decision", "due", "reminders")
        zones = {s.seat_index: p.time_zone for s, p in games.seats_of(session, g.id)}
        for w in waiting:
            d = deadlines.get((w["seat"], w["kind"]))
            awaited.add_row(f"{w['number']} {w['name']}", w["kind"],
                            _when(d.due_at if d else None, zones.get(w["seat"])),
                            str(d.reminders_sent) if d else "-")
        if waiting:
            console.print(awaited)
        sent = Table("id", "when", "to", "kind", "channel", "status")
        recent = session.exec(select(OutboundMessage).where(OutboundMessage.game_id == g.id)
                              .order_by(col(OutboundMessage.id).desc()).limit(messages)).all()
        for m in recent:
            sent.add_row(str(m.id), _when(m.created_at), m.to_address, m.kind, m.channel,
                         m.status)
        if recent:
            console.print(sent)


def _print_board(public: dict[str, Any]) -> None:
    names = {p["seat"]: p["name"] for p in public["players"]}

    def line(seats: list[int]) -> str:
        return ", ".join(names[s] for s in seats) or "(empty)"

    board = Table("place", "line (front first)", "British", "French")
    for ship in public["ships"]:
        board.add_row(ship["ship"], line(ship["line"]), str(ship["british"]), str(ship["french"]))
    board.add_row("TORTUGA", line(public["tortuga"]), str(public["tortuga_british"]),
                  str(public["tortuga_french"]))
    for boat, seat in public["rowboats"].items():
        board.add_row(f"{boat} rowboat", names.get(seat, "(empty)") if seat is not None
                      else "(empty)", "", "")
    board.add_row("Galleon", "", str(public["galleon"]), "")
    console.print(board)
    score = public["score"]
    console.print(f"Event row: {public['row']}  deck {public['deck_size']}  "
                  f"score British {score['british']} / French {score['french']}"
                  + (f"  winner {public['winner']}" if public.get("winner") else ""),
                  highlight=False)


@game_app.command("log")
@human_errors
def log(
    game: str = GAME,
    limit: int = typer.Option(50, metavar="N", help="How many of the latest commands."),
    events: bool = typer.Option(False, help="Show the public events too."),
    spoilers: bool = typer.Option(False, help="With --events: private events as well."),
) -> None:
    """The applied commands (and events), oldest first."""
    with db.session_scope(write=False) as session:
        g = games.get_game(session, game)
        names = {s.seat_index: p.display_name for s, p in games.seats_of(session, g.id)}  # type: ignore[arg-type]
        rows = list(session.exec(select(CommandLog).where(CommandLog.game_id == g.id)
                                 .order_by(col(CommandLog.seq).desc()).limit(limit)))[::-1]
        table = Table("#", "when", "seat", "command", "origin", "version")
        for row in rows:
            table.add_row(str(row.seq), _when(row.created_at),
                          f"{row.seat + 1} {names.get(row.seat, '?')}", row.command,
                          row.origin, str(row.state_version))
        console.print(table if rows else "No commands yet.")
        if events:
            ev = Table("#", "when", "kind", "text", "to")
            stored = session.exec(select(GameEvent).where(GameEvent.game_id == g.id)
                                  .order_by(col(GameEvent.seq))).all()
            for e in stored:
                if e.audience is not None and not spoilers:
                    continue
                ev.add_row(str(e.seq), _when(e.created_at), e.kind, e.text,
                           "all" if e.audience is None else e.audience)
            console.print(ev)


@game_app.command("preview")
@human_errors
def preview(
    game: str = GAME,
    seat: int = typer.Argument(..., metavar="SEAT", help="Seat number (1-based)."),
    channel: str | None = typer.Option(None, metavar="email|sms",
                                          help="Default: the player's."),
) -> None:
    """The exact prompt this seat would get now (rendered, not sent)."""
    chosen = None
    if channel is not None:
        try:
            chosen = Channel(channel.lower())
        except ValueError:
            raise games.InvalidRequest("channel is email or sms") from None
    with db.session_scope(write=False) as session:
        g = games.get_game(session, game)
        ctx, rendered = games.preview(session, g.id, _seat_index(seat), chosen)  # type: ignore[arg-type]
    console.print(f"[bold]{ctx.kind.value}[/bold] to {ctx.player_name} - {rendered.subject}",
                  highlight=False)
    body = rendered.sms if chosen is Channel.SMS and rendered.sms else rendered.text
    console.print(body, markup=False, highlight=False)


# ---------------------------------------------------------------- pbm quarantine


@quarantine_app.command("list")
@human_errors
def quarantine_list() -> None:
    """Inbound messages whose processing failed, newest first."""
    with db.session_scope(write=False) as session:
        rows = session.exec(select(InboundMessage)
                            .where(InboundMessage.status == InboundStatus.QUARANTINED)
                            .order_by(col(InboundMessage.id).desc())).all()
        table = Table("id", "received", "channel", "from", "attempts", "error")
        for m in rows:
            table.add_row(str(m.id), _when(m.received_at), m.channel, m.sender,
                          str(m.attempts), (m.error or "").splitlines()[-1][:80]
                          if m.error else "-")
    console.print(table if rows else "Nothing in quarantine.")


@quarantine_app.command("retry")
@human_errors
def quarantine_retry(message_id: int = typer.Argument(..., metavar="ID",
                                                     help="Inbound message id.")) -> None:
    """Put a quarantined message back in line for processing."""
    from pbm import inbound

    ids = _write(lambda s: inbound.requeue(s, message_id))
    try:
        from workers.enqueue import enqueue_inbound

        enqueue_inbound(ids)
    except Exception:
        pass
    console.print(f"Message {message_id} is back in line for processing.")


# ---------------------------------------------------------------- pbm db


@db_app.command("upgrade")
@human_errors
def db_upgrade(
    revision: str = typer.Option("head", metavar="REVISION", help="Target revision."),
) -> None:
    """Create or upgrade the schema (safe to run again)."""
    from pbm.config import get_settings

    url = get_settings().database_url
    db.upgrade(url, revision)
    console.print(f"Database at revision {db.current_revision(url)}.", highlight=False)


@db_app.command("current")
@human_errors
def db_current() -> None:
    """The schema revision of the database."""
    console.print(str(db.current_revision() or "empty (run pbm db upgrade)"), highlight=False)

