"""``pbm game`` verbs that change a game: create, invite, start, pause, resume, extend,
replace and abort, each through ``pbm.games`` in one transaction.
"""

from __future__ import annotations

from typing import Any

import typer

import engine
from pbm import games
from pbm.admin_input import check_game_name, check_language, check_zone, parse_player
from pbm.cli.common import (
    GAME,
    command,
    game_app,
    game_id_of,
    human_errors,
    now_utc,
    say,
    seat_index,
    write_enqueuing,
)
from pbm.config import get_settings
from pbm.deadlines import TimingPolicy

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
    lang: str = typer.Option("", "--lang", metavar="en|ko",
                             help="Language of players who give none (a player line may end "
                                  "with ko or en)."),
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
    lang = check_language(lang, "--lang") if lang else ""
    region = get_settings().phone_region
    specs = [parse_player(text, position, default_zone=tz, region=region, prefer_sms=sms,
                          default_language=lang)
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
    game = write_enqueuing(lambda s: games.create_game(s, name, specs, now=now, seed=seed,
                                              options=options, timing_policy=policy))
    say(f"Created game {game.name} (id {game.id}) with {len(specs)} seats, seed {game.seed}. "
        f"Next: {command('game', 'invite', game.name)}")


def _options(starred: str | None) -> Any:
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
    game_id, now = game_id_of(game), now_utc()
    result = write_enqueuing(lambda s: games.invite(s, game_id, now=now))
    say(result.message)


@game_app.command("start")
@human_errors
def start(
    game: str = GAME,
    force: bool = typer.Option(False, help="Start without waiting for everyone to join."),
) -> None:
    """Deal the game and send the first prompts."""
    game_id, now = game_id_of(game), now_utc()
    result = write_enqueuing(lambda s: games.start(s, game_id, now=now, force=force))
    say(result.message)


@game_app.command("pause")
@human_errors
def pause(
    game: str = GAME,
    reason: str = typer.Option(..., metavar="TEXT", help="Told to every player."),
) -> None:
    """Pause a game: deadlines freeze until it resumes."""
    game_id, now = game_id_of(game), now_utc()
    say(write_enqueuing(lambda s: games.pause(s, game_id, reason, now=now)).message)


@game_app.command("resume")
@human_errors
def resume(game: str = GAME) -> None:
    """Resume a paused game; deadlines move later by the length of the pause."""
    game_id, now = game_id_of(game), now_utc()
    say(write_enqueuing(lambda s: games.resume(s, game_id, now=now)).message)


@game_app.command("extend")
@human_errors
def extend(
    game: str = GAME,
    hours: float = typer.Option(24, metavar="HOURS", help="How many hours to add."),
    seat: int | None = typer.Option(None, metavar="SEAT",
                                    help="Only this seat's deadline (1-based)."),
) -> None:
    """Give more time to the open decisions."""
    game_id, now = game_id_of(game), now_utc()
    index = None if seat is None else seat_index(seat)
    result = write_enqueuing(lambda s: games.extend(s, game_id, hours, now=now, seat=index))
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
    lang: str = typer.Option("", "--lang", metavar="en|ko",
                             help="The newcomer's language, unless PLAYER names one."),
) -> None:
    """Give a seat to another player (who gets a briefing of everything it knew)."""
    spec = parse_player(player, seat, default_zone=check_zone(tz, "--tz"),
                        region=get_settings().phone_region,
                        default_language=check_language(lang, "--lang") if lang else "")
    game_id, now = game_id_of(game), now_utc()
    result = write_enqueuing(
        lambda s: games.replace_seat(s, game_id, seat_index(seat), spec, now=now))
    say(result.message)


@game_app.command("abort")
@human_errors
def abort(
    game: str = GAME,
    reason: str = typer.Option("stopped by the admin", metavar="TEXT",
                              help="Told to every player."),
) -> None:
    """Stop a game for good."""
    game_id, now = game_id_of(game), now_utc()
    say(write_enqueuing(lambda s: games.abort(s, game_id, reason, now=now)).message)
