"""What the admin page can do to a game, each through ``pbm.games``.

``ACTIONS`` lists the confirmable actions of the game page (label, confirmation text,
fields, statuses where they apply, and ``run``). ``CreateForm`` reads and checks the "new
game" form. Nothing here touches game state directly: every change is one call into
``pbm.games`` in one transaction (``pbm.db.run_transaction``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session

import engine
from pbm import games
from pbm.admin.ops import OpError, nudge_now, requeue_inbound
from pbm.admin_input import InputError, check_game_name, player_from_fields
from pbm.config import get_settings
from pbm.db import run_transaction
from pbm.deadlines import TimingPolicy, is_valid_zone
from pbm.models import Game, GameStatus
from workers.enqueue import enqueue_inbound

log = logging.getLogger(__name__)
MAX_PLAYERS = 9
MIN_PLAYERS = 2


class ActionError(Exception):
    """An action that cannot be done; the message is shown to the admin."""


# ------------------------------------------------------------------ reading state


def load_state(session: Session, game_id: int) -> Any:
    """The game's engine state, or None before it starts (or when there is no game)."""
    game = session.get(Game, game_id)
    if game is None or not game.state_json:
        return None
    return engine.from_json(game.state_json)


def public_view(state: Any) -> dict[str, Any] | None:
    """What everyone may see of ``state`` (None before the game starts)."""
    return None if state is None else engine.public_view(state).to_dict()


def seat_secrets(state: Any) -> dict[int, dict[str, Any]]:
    """Every seat's secrets (loyalty, hand, peeks): only for the spoilers toggle."""
    secrets = {}
    for seat in range(len(state.names)):
        v = engine.view(state, seat).to_dict()
        secrets[seat] = {"name": v["name"], "loyalty": v["loyalty"], "hand": v["hand"],
                         "peeks": v["peeks"]}
    return secrets


# ------------------------------------------------------------------ the new-game form


@dataclass
class PlayerRow:
    """One line of the new-game form."""

    name: str = ""
    email: str = ""
    phone: str = ""
    time_zone: str = ""
    language: str = ""  # "" (English, or a known player's own), "en", "ko"

    @property
    def blank(self) -> bool:
        return not (self.name or self.email or self.phone)


@dataclass
class CreateForm:
    """The new-game form: name, players, time zone, timing policy."""

    name: str = ""
    time_zone: str = "UTC"
    players: list[PlayerRow] = field(default_factory=list)
    action_hours: str = "48"
    vote_hours: str = "24"
    other_hours: str = "24"
    invitation_hours: str = "72"
    grace_hours: str = "1"
    on_timeout: str = "default"
    quiet_start: str = "22"
    quiet_end: str = "8"
    auto_start: bool = True
    prefer_sms: bool = False
    confirm: str = ""

    @classmethod
    def empty(cls) -> CreateForm:
        """A blank form with a line for every possible player."""
        return cls(players=[PlayerRow() for _ in range(MAX_PLAYERS)])

    @classmethod
    def from_form(cls, form: Mapping[str, Any]) -> CreateForm:
        """Read the submitted form (unknown or missing fields take their defaults)."""

        def get(key: str, default: str = "") -> str:
            value = form.get(key, default)
            return value.strip()[:200] if isinstance(value, str) else default

        players = [
            PlayerRow(get(f"p{i}_name")[:60], get(f"p{i}_email")[:254], get(f"p{i}_phone")[:32],
                      get(f"p{i}_tz")[:64], get(f"p{i}_lang")[:8])
            for i in range(MAX_PLAYERS)
        ]
        return cls(
            name=get("name")[:80], time_zone=get("time_zone", "UTC") or "UTC", players=players,
            action_hours=get("action_hours", "48"), vote_hours=get("vote_hours", "24"),
            other_hours=get("other_hours", "24"), invitation_hours=get("invitation_hours", "72"),
            grace_hours=get("grace_hours", "1"), on_timeout=get("on_timeout", "default"),
            quiet_start=get("quiet_start", "22"), quiet_end=get("quiet_end", "8"),
            auto_start=get("auto_start") == "1", prefer_sms=get("prefer_sms") == "1",
            confirm=get("confirm"),
        )

    @property
    def seated(self) -> list[PlayerRow]:
        """The filled-in player lines, in seat order."""
        return [p for p in self.players if not p.blank]

    def zone_of(self, row: PlayerRow) -> str:
        """A player's time zone: their own, else the game's."""
        return row.time_zone or self.time_zone

    def timing(self) -> Any:
        """The ``pbm.deadlines.TimingPolicy`` this form asks for (raises ValueError)."""
        policy = TimingPolicy(
            invitation_hours=_hours(self.invitation_hours, "invitation"),
            grace_hours=_hours(self.grace_hours, "grace", allow_zero=True),
            on_timeout=self.on_timeout,
            quiet_start=_whole_hour(self.quiet_start),
            quiet_end=_whole_hour(self.quiet_end),
            auto_start=self.auto_start,
        )
        return policy.with_hours(action=_hours(self.action_hours, "turn"),
                                 vote=_hours(self.vote_hours, "vote"),
                                 other=_hours(self.other_hours, "other decision"))

    def player_specs(self) -> list[Any]:
        """The ``pbm.games.PlayerSpec`` of every filled-in line (raises ``InputError``
        naming the line's position and player)."""
        region = _phone_region()
        return [player_from_fields(position, p.name, p.email, p.phone, p.time_zone,
                                   default_zone=self.time_zone, region=region,
                                   prefer_sms=self.prefer_sms, language=p.language)
                for position, p in enumerate(self.players, start=1) if not p.blank]

    def validate(self) -> list[str]:
        """What is wrong with the form (empty when it can be created)."""
        errors = []
        if not self.name:
            errors.append("Give the game a name (e.g. harbour).")
        else:
            try:
                check_game_name(self.name)
            except InputError as exc:
                errors.append(_sentence(str(exc)))
        seated = self.seated
        if not MIN_PLAYERS <= len(seated) <= MAX_PLAYERS:
            errors.append(f"A game has {MIN_PLAYERS} to {MAX_PLAYERS} players; "
                          f"this one has {len(seated)}.")
        names = [p.name.lower() for p in seated]
        for position, p in enumerate(self.players, start=1):
            if p.blank:
                continue
            if p.name and names.count(p.name.lower()) > 1:
                errors.append(f"Two players are called {p.name}; names must differ.")
            try:
                player_from_fields(position, p.name, p.email, p.phone, p.time_zone,
                                   region=_phone_region(), language=p.language)
            except InputError as exc:
                errors.append(_sentence(str(exc)))
        if not is_valid_zone(self.time_zone):
            errors.append(f"Unknown time zone {self.time_zone} for the game "
                          "(e.g. Europe/Paris).")
        try:
            self.timing()
        except ValueError as exc:
            errors.append(f"Timing: {exc}.")
        return list(dict.fromkeys(errors))


def _hours(text: str, what: str, *, allow_zero: bool = False) -> float:
    try:
        hours = float(text)
    except ValueError:
        raise ValueError(f"the {what} time must be a number of hours, not {text!r}") from None
    low_ok = hours >= 0 if allow_zero else hours > 0
    if not low_ok or hours > 24 * 30:
        raise ValueError(f"the {what} time must be {'0' if allow_zero else 'more than 0'} "
                         "to 720 hours")
    return hours


def _whole_hour(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"quiet hours are whole hours 0-23, not {text!r}") from None


def _phone_region() -> str | None:
    return get_settings().phone_region


def create_game(form: CreateForm, admin: str, now: datetime) -> int:
    """Create the game of a checked form through ``pbm.games``; returns its id."""
    try:
        players = form.player_specs()
        game = run_transaction(lambda s: games.create_game(
            s, form.name, players, now=now, timing_policy=form.timing()))
    except (games.GameError, ValueError) as exc:
        raise ActionError(str(exc)) from exc
    assert game.id is not None
    return game.id


# ------------------------------------------------------------------ game actions


@dataclass(frozen=True)
class FormField:
    """One input of an action's confirmation form."""

    name: str
    label: str
    kind: str = "text"  # text, textarea, number, seat, select, email, tel
    required: bool = True
    default: str = ""
    help: str = ""
    options: tuple[tuple[str, str], ...] = ()


Runner = Callable[[int, Mapping[str, str], str, datetime], str]


@dataclass(frozen=True)
class Action:
    """A confirmable action of the game page."""

    name: str
    label: str
    button: str
    confirm: str
    statuses: frozenset[str]
    runner: Runner
    fields: tuple[FormField, ...] = ()
    danger: bool = False
    primary: bool = False

    @property
    def field_names(self) -> set[str]:
        return {f.name for f in self.fields}

    def run(self, game_id: int, values: Mapping[str, str], admin: str, now: datetime) -> str:
        """Check the game's status and the fields, then do it; returns the flash message."""
        for f in self.fields:
            if f.required and not values.get(f.name, "").strip():
                raise ActionError(f"{f.label} is required.")

        try:
            return self.runner(game_id, values, admin, now)
        except ActionError:
            raise
        except (games.GameError, ValueError) as exc:
            raise ActionError(_sentence(str(exc))) from exc
        except Exception as exc:  # a bug elsewhere: the transaction rolled back; say so
            log.exception("admin action %s on game %s failed", self.name, game_id)
            raise ActionError(f"The action failed and changed nothing ({type(exc).__name__}: "
                              f"{exc}). The details are in the server log.") from exc


def _sentence(text: str) -> str:
    """A service error as a sentence for the page."""
    text = text.strip() or "That did not work."
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def _seat(values: Mapping[str, str], key: str = "seat") -> int:
    """A 1-based seat number from a form, as the 0-based index the service uses."""
    try:
        return int(values[key]) - 1
    except (KeyError, ValueError):
        raise ActionError("Pick a seat.") from None


def _game_call(name: str, *args: Any, **kwargs: Any) -> Any:
    """Call ``pbm.games.<name>(session, ...)`` in one transaction; the outbox rows it wrote
    are handed to the workers after the commit (the hook ``pbm.web`` installs at start-up;
    the relay finds any whose hand-over is lost)."""
    function = getattr(games, name)
    return run_transaction(lambda s: function(s, *args, **kwargs))



def _invite(game_id: int, values: Mapping[str, str], admin: str, now: datetime) -> str:
    result = _game_call("invite", game_id, now=now)
    return f"Invitations sent to {len(result.notified)} player(s). They answer JOIN or DECLINE."


def _start(game_id: int, values: Mapping[str, str], admin: str, now: datetime) -> str:
    try:
        result = _game_call("start", game_id, now=now, force=values.get("force") == "1")
    except games.WrongState as exc:
        text = str(exc).replace(" (or use --force)", "").replace(
            " (or use --force to start without them)", "")
        if "still waiting" in text or "declined" in text:
            text += ": tick the box to start without them"
        raise ActionError(_sentence(text)) from exc
    return f"Game {result.message}. The first prompts are on their way."


def _pause(game_id: int, values: Mapping[str, str], admin: str, now: datetime) -> str:
    reason = values.get("reason", "").strip()[:500]
    _game_call("pause", game_id, reason, now=now)
    return f"Game paused: {reason}"


def _resume(game_id: int, values: Mapping[str, str], admin: str, now: datetime) -> str:
    result = _game_call("resume", game_id, now=now)
    return f"Game {result.message}. Deadlines moved by the pause."  # the name as it is


def _extend(game_id: int, values: Mapping[str, str], admin: str, now: datetime) -> str:
    try:
        hours = float(values.get("hours", ""))
    except ValueError:
        raise ActionError("Give the extension in hours, e.g. 24.") from None
    if not 0 < hours <= 24 * 14:
        raise ActionError("An extension is between 0 and 336 hours.")
    seat = values.get("seat", "").strip()
    index = _seat(values) if seat else None
    result = _game_call("extend", game_id, hours, now=now, seat=index)
    return f"Extended: {result.message}."  # the game's name as it is


def _nudge(game_id: int, values: Mapping[str, str], admin: str, now: datetime) -> str:
    count = run_transaction(lambda s: nudge_now(s, game_id, now))
    return f"Reminder sent to {count} awaited player(s)." if count else "Nobody is awaited."


def _replace(game_id: int, values: Mapping[str, str], admin: str, now: datetime) -> str:

    seat = _seat(values)
    spec = player_from_fields(seat + 1, values.get("name", "")[:60],
                              values.get("email", "")[:254], values.get("phone", "")[:32],
                              values.get("time_zone", ""), region=_phone_region(),
                              language=values.get("language", "")[:8])
    _game_call("replace_seat", game_id, seat, spec, now=now)
    return f"Seat {seat + 1} now belongs to {spec.name}; they were sent what the seat knows."


def _abort(game_id: int, values: Mapping[str, str], admin: str, now: datetime) -> str:
    reason = values.get("reason", "").strip()[:500]
    _game_call("abort", game_id, reason, now=now)
    return "Game aborted. Every player was told."


_LIVE = frozenset({GameStatus.RUNNING.value})
_NOT_OVER = frozenset({GameStatus.CREATED.value, GameStatus.INVITING.value,
                       GameStatus.RUNNING.value, GameStatus.PAUSED.value})

ACTIONS: dict[str, Action] = {a.name: a for a in (
    Action("invite", "Invite", "Send invitations",
           "Every player gets an invitation to answer JOIN or DECLINE.",
           frozenset({GameStatus.CREATED.value, GameStatus.INVITING.value}), _invite,
           primary=True),
    Action("start", "Start", "Start the game",
           "The game starts now: loyalties and vote cards are dealt and the first prompts "
           "go out. Players who have not joined are left out and told (2 must have joined).",
           frozenset({GameStatus.CREATED.value, GameStatus.INVITING.value}), _start,
           (FormField("force", "Start without the players who have not joined", "checkbox",
                      required=False, default="1"),),
           primary=True),
    Action("pause", "Pause", "Pause the game",
           "Deadlines stop and every player is told why. Replies are kept but not applied "
           "until the game resumes.", _LIVE, _pause,
           (FormField("reason", "Reason (sent to the players)", "textarea"),)),
    Action("resume", "Resume", "Resume the game",
           "Deadlines restart, moved later by the length of the pause, and every player is "
           "told.", frozenset({GameStatus.PAUSED.value}), _resume, primary=True),
    Action("extend", "Extend deadline", "Extend",
           "The current deadline(s) and their reminders move later; each awaited player "
           "is told the new deadline.", _LIVE, _extend,
           (FormField("hours", "Extra hours", "number", default="24"),
            FormField("seat", "Only this seat", "seat", required=False))),
    Action("nudge", "Nudge now", "Send a reminder now",
           "Every awaited player gets a reminder now, whatever the reminder schedule says.",
           _LIVE, _nudge),
    Action("replace", "Replace a seat", "Replace",
           "The seat keeps its place, loyalty and cards; the new player gets the whole picture "
           "and the old one is told they are out.", _NOT_OVER, _replace,
           (FormField("seat", "Seat", "seat"),
            FormField("name", "New player's name"),
            FormField("email", "Email", "email", required=False),
            FormField("phone", "Phone (+15551234567)", "tel", required=False),
            FormField("time_zone", "Time zone", required=False, default="UTC"))),
    Action("abort", "Abort", "Abort the game",
           "The game ends now without a winner and every player is told. This cannot be "
           "undone.", _NOT_OVER, _abort,
           (FormField("reason", "Reason (sent to the players)", "textarea"),), danger=True),
)}


def available(status: str) -> list[Action]:
    """The actions that apply to a game in ``status``, in display order."""
    return [a for a in ACTIONS.values() if status in a.statuses]


def retry_inbound(message_id: int, now: datetime) -> str:
    """Put a quarantined message back in line for processing."""
    try:
        ids = run_transaction(lambda s: requeue_inbound(s, message_id))
    except OpError as exc:
        raise ActionError(str(exc)) from exc

    enqueue_inbound(ids)
    return f"Message {message_id} is back in line for processing."
