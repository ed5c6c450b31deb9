"""AWAY and BACK as they touch games: each of a player's seats in an active game holds its
deadlines while the player is away, within the game's allowance
(``TimingPolicy.away_hours``, counted per seat), and gives the unused hold back on BACK;
every other seat of the table is told. ``pbm.player_settings`` reads the setting and calls these.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from pbm import deadlines, outbox
from pbm.games.base import due_at_of, load_state, lock_game, policy_of, record_events, service_event
from pbm.humanize import local_time, rough_span
from pbm.message_payloads import Notice
from pbm.models import Game, GameStatus, Player, Seat, ServiceEventKind
from pbm.replies import reasons as R
from pbm.txcache import seats_of

#: Games whose seats an AWAY / BACK concerns.
ACTIVE = (GameStatus.RUNNING, GameStatus.PAUSED, GameStatus.INVITING)


def _moment(name: str, at: datetime, zone: str) -> dict[str, str]:
    """A moment as a notice's parameters: its words in ``zone`` and the moment itself."""
    return {name: local_time(at, zone), f"{name}_at": R.moment(at, zone)}


def _active_seats(session: Session, player: Player) -> list[tuple[Seat, Game]]:
    """The player's seats in active games, each game locked (in id order, so that two
    transactions locking several games never wait for each other in a circle): AWAY and
    BACK move deadlines that a timeout or a reply of that game may be reading."""
    found = session.exec(
        select(Seat.game_id).join(Game, col(Game.id) == Seat.game_id)
        .where(Seat.player_id == player.id, col(Game.status).in_(ACTIVE))).all()
    for game_id in sorted({int(g) for g in found}):
        lock_game(session, game_id)
    return [(s, g) for s, g in session.exec(
        select(Seat, Game).join(Game, col(Game.id) == Seat.game_id)
        .where(Seat.player_id == player.id, col(Game.status).in_(ACTIVE))
        .order_by(col(Seat.id))).all()]


def go_away(session: Session, player: Player, until: datetime, now: datetime) -> list[str]:
    """Hold the player's deadlines in every active game until ``until``, each within what
    is left of its allowance; tell each table. Returns one line per game."""
    player.away_until = until
    session.add(player)
    lines: list[str] = []
    for seat, game in _active_seats(session, player):
        _come_back(session, seat, now)  # a new AWAY replaces the one before
        allowance = timedelta(hours=policy_of(game).away_hours)
        left = max(timedelta(0), allowance - timedelta(seconds=seat.away_used_seconds))
        end = min(until, now + left)
        hold = end - now
        if hold <= timedelta(0):
            lines.append(R.AWAY_USED_UP(game=game.name, span=rough_span(allowance),
                                        span_seconds=R.seconds(allowance)))
            _tell_table(session, game, seat, player, now, ServiceEventKind.SEAT_AWAY,
                        lambda tz: R.AWAY_NOTICE_USED_UP(name=player.display_name,
                                                         **_moment("until", until, tz)))
            continue
        seat.away_until = end
        seat.away_used_seconds += int(hold.total_seconds())
        session.add(seat)
        deadlines.shift_open_deadlines(session, game.id, hold, seat=seat.seat_index)  # type: ignore[arg-type]
        capped = end < until
        span: dict[str, str | int] = {"span": rough_span(allowance),
                                      "span_seconds": R.seconds(allowance)}
        lines.append(R.AWAY_HELD_CAPPED(game=game.name, **_moment("until", end,
                                                                  player.time_zone), **span)
                     if capped else
                     R.AWAY_HELD(game=game.name, **_moment("until", end, player.time_zone)))

        def away(tz: str, end: datetime = end, capped: bool = capped,
                 span: dict[str, str | int] = span) -> str:
            said = {"name": player.display_name, **_moment("until", until, tz),
                    **_moment("end", end, tz)}
            return (R.AWAY_NOTICE_CAPPED(**said, **span) if capped else R.AWAY_NOTICE(**said))

        _tell_table(session, game, seat, player, now, ServiceEventKind.SEAT_AWAY, away)
    return lines


def come_back(session: Session, player: Player, now: datetime) -> list[str]:
    """BACK: the unused part of each hold is given back (deadlines move earlier by it and
    the allowance is refunded); each table is told. Returns the names of those games."""
    player.away_until = None
    session.add(player)
    lines = []
    for seat, game in _active_seats(session, player):
        if _come_back(session, seat, now):
            lines.append(game.name)
            _tell_table(session, game, seat, player, now, ServiceEventKind.SEAT_BACK,
                        lambda tz: R.BACK_NOTICE(name=player.display_name))
    return lines


def _come_back(session: Session, seat: Seat, now: datetime) -> bool:
    if seat.away_until is None:
        return False
    unused = seat.away_until - now
    seat.away_until = None
    session.add(seat)
    if unused <= timedelta(0):
        return False
    seat.away_used_seconds = max(0, seat.away_used_seconds - int(unused.total_seconds()))
    deadlines.shift_open_deadlines(session, seat.game_id, -unused, seat=seat.seat_index)
    return True


def _tell_table(session: Session, game: Game, seat: Seat, player: Player, now: datetime,
                kind: ServiceEventKind, sentence: Callable[[str], str]) -> None:
    """A public event, and a short NOTICE to every other seat of the game (the times in
    ``sentence(zone)`` in each reader's own zone, stored as a reason: code and parameters;
    the event itself in English, in UTC)."""
    what = kind.removeprefix("seat.")  # "away", "back": in the notices' dedupe keys
    events = record_events(session, game, [service_event(
        kind, sentence("UTC"), seat=seat.seat_index, name=player.display_name)], now=now)
    state = load_state(game) if game.state_json else None
    for other, other_player in seats_of(session, game.id):  # type: ignore[arg-type]
        if other.seat_index == seat.seat_index:
            continue
        outbox.notify(session, game, other, other_player,
                      Notice(headline=sentence(other_player.time_zone)), now=now,
                      state=state, events=events, announced=events,
                      deadline=due_at_of(session, game.id, other.seat_index),  # type: ignore[arg-type]
                      dedupe=f"g{game.id}:s{other.seat_index}:{what}:{events[0].seq}")
