"""``pbm game`` verbs that only read: list, show (with the board as text), log, and the
preview of what a seat would receive.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.table import Table
from sqlmodel import col, select

import engine
from pbm import db, games
from pbm.cli.common import GAME, console, format_when, game_app, human_errors, seat_index
from pbm.messages import Channel
from pbm.models import CommandLog, Deadline, DeadlineStatus, Game, GameEvent, OutboundMessage


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
                          format_when(game.updated_at))
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
    with db.session_scope(write=False) as session:
        g = games.get_game(session, game)
        assert g.id is not None
        state = games.load_state(g) if g.state_json else None
        console.print(f"[bold]{g.name}[/bold] (id {g.id}) - {g.status}"
                      + (f" - paused: {g.pause_reason}" if g.pause_reason else ""),
                      highlight=False)
        console.print(f"created {format_when(g.created_at)}, started {format_when(g.started_at)}, "
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
                            format_when(d.due_at if d else None, zones.get(w["seat"])),
                            str(d.reminders_sent) if d else "-")
        if waiting:
            console.print(awaited)
        sent = Table("id", "when", "to", "kind", "channel", "status")
        recent = session.exec(select(OutboundMessage).where(OutboundMessage.game_id == g.id)
                              .order_by(col(OutboundMessage.id).desc()).limit(messages)).all()
        for m in recent:
            sent.add_row(str(m.id), format_when(m.created_at), m.to_address, m.kind, m.channel,
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
            table.add_row(str(row.seq), format_when(row.created_at),
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
                ev.add_row(str(e.seq), format_when(e.created_at), e.kind, e.text,
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
        ctx, rendered = games.preview(session, g.id, seat_index(seat), chosen)  # type: ignore[arg-type]
    console.print(f"[bold]{ctx.kind.value}[/bold] to {ctx.player_name} - {rendered.subject}",
                  highlight=False)
    body = rendered.sms if chosen is Channel.SMS and rendered.sms else rendered.text
    console.print(body, markup=False, highlight=False)
