"""The end of a demo game: the result read from the database, and the closing lines that
say who won and where every message, reply and log lies.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from pbm import games
from pbm.db import session_scope
from pbm.demo.table import Table
from pbm.models import Game


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
