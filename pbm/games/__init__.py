"""The game service, THE ONLY WAY A GAME CHANGES: this package's names are its whole API
(callers import ``pbm.games`` and nothing below it, but ``unmasking``: the whole story of a
finished game, which the game's end tells and the renderer and the tests read).

Every function takes an open ``Session`` and does its work inside it: it locks the game
row (``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite's write transactions are serialised
by ``pbm.db``), loads the engine snapshot, changes it through the engine, and writes the
snapshot, the command log, the events, the deadlines and the outbox rows. The caller commits
(``pbm.db.run_transaction`` retries a write conflict) and then enqueues
``pbm.outbox.pending_outbox_ids``. ``Game.version`` is checked on every write, so a stale
writer can never overwrite a newer state.

Human errors raise ``GameError`` (one clear line); a player's command that the rules refuse
returns a ``Result`` with ``ok=False`` and changes nothing.

The modules, each importing only those above it: ``base`` (errors, ``Result``, lookups,
events, deadlines of open decisions), ``players`` (``PlayerSpec``, players, reply tokens),
``lifecycle`` (create, invite, JOIN/DECLINE, start, finish, abort), ``play`` (``submit``
and its messages), ``reminders``, ``operations`` (pause, resume, extend, replace, SAY,
STATUS, nudge, preview), ``timeouts`` (an expired deadline), ``digests`` ("tell me
everything"); ``audit`` (command log and replay) needs only ``base``; ``away`` (AWAY and BACK:
a player's seats hold their deadlines, the tables are told) needs ``base``.
"""

from __future__ import annotations

import engine
from pbm import outbox
from pbm.games.audit import command_log, replay, replay_matches
from pbm.games.away import come_back, go_away
from pbm.games.base import (
    GameError,
    GameNotFound,
    InvalidRequest,
    Result,
    WrongState,
    find_seat_by_token,
    get_game,
    load_state,
    lock_game,
    options_of,
    policy_of,
    record_events,
    seat_of,
    seats_of,
    service_event,
    waiting_for,
)
from pbm.games.digests import DIGEST_EVERY, NOT_NEWS, last_digest_at, send_digests
from pbm.games.lifecycle import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    abort,
    create_game,
    finish,
    games_everyone_joined,
    invite,
    respond,
    start,
    start_if_everyone_joined,
)
from pbm.games.operations import (
    SAY_LIMIT,
    extend,
    nudge,
    pause,
    preview,
    replace_seat,
    resume,
    say,
    status,
)
from pbm.games.play import HAPPENS_TO_KINDS, submit
from pbm.games.players import (
    EMAIL_RE,
    PHONE_RE,
    TOKEN_ALPHABET,
    TOKEN_LENGTH,
    PlayerSpec,
    new_token,
    upsert_player,
)
from pbm.games.reminders import send_reminder
from pbm.games.timeouts import default_command, handle_expired
from pbm.messages import MessageKind
from pbm.models import Game

# Also reached through ``pbm.games`` by callers and tests: engine, outbox, Game, MessageKind.
__all__ = [
    "DIGEST_EVERY",
    "EMAIL_RE",
    "HAPPENS_TO_KINDS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NOT_NEWS",
    "PHONE_RE",
    "SAY_LIMIT",
    "TOKEN_ALPHABET",
    "TOKEN_LENGTH",
    "Game",
    "GameError",
    "GameNotFound",
    "InvalidRequest",
    "MessageKind",
    "PlayerSpec",
    "Result",
    "WrongState",
    "abort",
    "come_back",
    "command_log",
    "create_game",
    "default_command",
    "due_at_of",
    "engine",
    "extend",
    "find_seat_by_token",
    "finish",
    "games_everyone_joined",
    "get_game",
    "go_away",
    "handle_expired",
    "invite",
    "last_digest_at",
    "load_state",
    "lock_game",
    "new_token",
    "nudge",
    "options_of",
    "outbox",
    "pause",
    "policy_of",
    "preview",
    "record_events",
    "replace_seat",
    "replay",
    "replay_matches",
    "respond",
    "resume",
    "say",
    "seat_of",
    "seats_of",
    "send_digests",
    "send_reminder",
    "service_event",
    "start",
    "start_if_everyone_joined",
    "status",
    "submit",
    "upsert_player",
    "waiting_for",
]
