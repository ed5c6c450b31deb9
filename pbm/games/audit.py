"""The command log of a game, and its replay from seed, options and log to check the
stored snapshot.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

import engine
from pbm.games.base import get_game, options_of, seats_of
from pbm.models import CommandLog


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
