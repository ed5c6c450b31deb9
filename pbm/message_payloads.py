"""What each kind of message carries besides the seat's view and events: one frozen
dataclass per ``MessageKind`` (its payload), and :class:`Common`, what any kind may carry.

``pbm.games`` builds them (who is told what, at commit time); ``pbm.render`` reads them.
Event-shaped data (a ``vote.result`` event, a reply's parse report, the unmasking story)
stays in the JSON form its producer documents (``to_dict()``), typed ``JSON`` here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, ClassVar

JSON = dict[str, Any]


class MessageKind(StrEnum):
    """Every kind of message a player can receive (each has its payload class below)."""

    INVITATION = "invitation"
    GAME_STARTED = "game_started"
    PROMPT = "prompt"  # a decision is awaited from this seat (turn, vote, choice, card)
    NOTICE = "notice"  # something happened to this seat; nothing awaited
    VOTE_RESULT = "vote_result"
    REMINDER = "reminder"
    FINAL_WARNING = "final_warning"
    TIMED_OUT = "timed_out"
    PAUSED = "paused"
    RESUMED = "resumed"
    SEAT_REPLACED = "seat_replaced"
    TABLE_TALK = "table_talk"
    REPLY = "reply"  # the answer to a player's reply: done / not understood / still awaited
    STATUS = "status"  # the full picture, on request
    GAME_OVER = "game_over"


@dataclass(frozen=True)
class Said:
    """One SAY message folded into a message (for a player who does not hear talk live)."""

    name: str
    text: str


@dataclass(frozen=True)
class Common:
    """What a message of any kind may carry."""

    #: The reply address, shown in the footer (one-tap reply buttons need it).
    reply_to: str | None = None
    #: The question the message puts to the seat (the footer's ``Ref: Q12.3``).
    question: str | None = None
    #: SAY messages folded into this message (SMS-only players).
    table_talk: tuple[Said, ...] = ()
    #: How the seat's last reply was read, folded in (``pbm.outbox.fold_into_next``).
    read_as: tuple[str, ...] = ()
    #: What was played for the seat at a deadline, folded in (None: nothing to say).
    timed_out: str | None = None
    #: The command played at the deadline is a secret (a Vote card): it is not named.
    timed_out_secret: bool = False
    #: The seat's own last votes (``pbm.vote_ledger``), shown by email before the board.
    vote_ledger: tuple[JSON, ...] = ()


@dataclass(frozen=True)
class Payload:
    """The base of every kind's payload; ``KIND`` names its kind."""

    KIND: ClassVar[MessageKind]


@dataclass(frozen=True)
class Timing:
    """How long players get per decision, in hours (the invitation says it)."""

    action_hours: float | None = None
    vote_hours: float | None = None
    other_hours: float | None = None
    away_hours: float | None = None


@dataclass(frozen=True)
class Invitation(Payload):
    """An invitation to join a game (no seat view yet; ``deadline`` = answer by)."""

    KIND = MessageKind.INVITATION
    inviter: str | None = None
    message: str | None = None  # a note from the organiser
    players: tuple[str, ...] = ()  # the names invited
    respond_by_hours: float | None = None
    timing: Timing | None = None


@dataclass(frozen=True)
class GameStarted(Payload):
    """The game has begun and nothing is awaited from this seat yet."""

    KIND = MessageKind.GAME_STARTED
    started: bool = False  # the first message of the game: its start facts are told


@dataclass(frozen=True)
class Prompt(Payload):
    """A decision is awaited from this seat (turn, vote, choice, card)."""

    KIND = MessageKind.PROMPT
    started: bool = False  # the first prompt of the game: it also lists the seats


@dataclass(frozen=True)
class Status(Payload):
    """The full picture, on request."""

    KIND = MessageKind.STATUS


@dataclass(frozen=True)
class Notice(Payload):
    """Something happened to this seat; nothing awaited."""

    KIND = MessageKind.NOTICE
    headline: str | None = None  # what the service says happened (a reason: code and
    # parameters, ``engine.reasons``, said in the reader's words); else the news
    headline_seq: int | None = None  # the event the headline tells, said in the reader's words
    digest: bool = False  # a digest of many events: counted, then the latest
    you_were_replaced: bool = False  # to the player who leaves the game


@dataclass(frozen=True)
class VoteResult(Payload):
    """The outcome of a vote this seat took part in."""

    KIND = MessageKind.VOTE_RESULT
    result: JSON | None = None  # the ``vote.result`` event dict; else found in the events


@dataclass(frozen=True)
class Reminder(Payload):
    """A decision (or an invitation) is still awaited before its deadline."""

    KIND = MessageKind.REMINDER
    invitation: bool = False  # a reminder to JOIN or DECLINE
    policy: str | None = None  # "default": a safe default is played; "pause": the game pauses
    if_silent: str | None = None  # what is played if no answer comes (``describe_default``)
    if_silent_sms: str | None = None  # the same, short
    grace_hours: float | None = None  # a late reply still counts this long


@dataclass(frozen=True)
class FinalWarning(Reminder):
    """The last reminder before the deadline (sent by SMS too)."""

    KIND = MessageKind.FINAL_WARNING


@dataclass(frozen=True)
class TimedOut(Payload):
    """Time ran out on a decision."""

    KIND = MessageKind.TIMED_OUT
    played: str | None = None  # the command played; None when it is a secret (a Vote card)
    why: str | None = None  # why that default favours no team
    you: bool = True  # it was this seat's decision
    who: str | None = None  # the name of the seat that timed out
    paused: bool = False  # the policy paused the game instead


@dataclass(frozen=True)
class Paused(Payload):
    KIND = MessageKind.PAUSED
    reason: str | None = None


@dataclass(frozen=True)
class Resumed(Payload):
    KIND = MessageKind.RESUMED
    reason: str | None = None
    paused_hours: float | None = None


@dataclass(frozen=True)
class SeatReplaced(Payload):
    """A seat changed hands: the newcomer's briefing, or the news to the one who leaves."""

    KIND = MessageKind.SEAT_REPLACED
    old_name: str | None = None
    new_name: str | None = None
    briefing: bool = False  # the newcomer's briefing pack: secrets, board, recent history
    you_were_replaced: bool = False


@dataclass(frozen=True)
class TableTalk(Payload):
    """A SAY relayed at once."""

    KIND = MessageKind.TABLE_TALK
    speaker: str = ""
    text: str = ""


@dataclass(frozen=True)
class Reply(Payload):
    """The answer to a player's reply: done / not understood / still awaited.

    Without ``done`` and ``rejected`` (None), ``result`` supplies them."""

    KIND = MessageKind.REPLY
    reply: JSON = field(default_factory=dict)  # ``ReplyResult.to_dict()``
    done: tuple[str, ...] | None = None  # commands applied, in display form
    rejected: tuple[Mapping[str, str], ...] | None = None  # {"command", "reason"}: refused
    result: JSON | None = None  # ``pbm.games.Result.to_dict()``
    help: str | None = None  # the HELP topic ("" the general help; None: no help)
    log: bool = False  # list the events as the recent public history
    answers: tuple[str, ...] = ()  # answers to settings (ZONE, AWAY, ...)
    brief: bool = False  # many replies that did nothing: a short answer
    last_applied: str | None = None  # the seat's last move, when a line asks to undo it


@dataclass(frozen=True)
class GameOver(Payload):
    """The game ended (or was stopped); the public view carries the winner and loyalties."""

    KIND = MessageKind.GAME_OVER
    aborted: bool = False
    reason: str | None = None
    unmasking: JSON | None = None  # ``pbm.games.unmasking.story``
    unmasking_chart: str | None = None  # the chart's Content-ID
    inline_images: tuple[tuple[str, bytes], ...] = ()  # (Content-ID, PNG) the HTML shows


#: The payload class of each kind.
PAYLOADS: dict[MessageKind, type[Payload]] = {
    cls.KIND: cls for cls in (Invitation, GameStarted, Prompt, Status, Notice, VoteResult,
                              Reminder, FinalWarning, TimedOut, Paused, Resumed,
                              SeatReplaced, TableTalk, Reply, GameOver)}
_COMMON = frozenset(f.name for f in fields(Common))


def payload_for(kind: MessageKind, **values: Any) -> Payload:
    """The payload of ``kind`` with these fields (a name it lacks is a TypeError)."""
    return PAYLOADS[kind](**values)


def split(kind: MessageKind, values: Mapping[str, Any]) -> tuple[Payload, Common]:
    """``values`` by field name into the payload of ``kind`` and the common fields."""
    common = {k: v for k, v in values.items() if k in _COMMON}
    return payload_for(kind, **{k: v for k, v in values.items() if k not in _COMMON}), \
        Common(**common)


def asks_to_join(payload: Payload) -> bool:
    """An invitation, or a reminder of one: the message asks JOIN or DECLINE."""
    return isinstance(payload, Invitation) or (
        isinstance(payload, Reminder) and payload.invitation)


def leaves_game(payload: Payload) -> bool:
    """The message tells its reader that someone else takes over their seat."""
    return isinstance(payload, Notice | SeatReplaced) and payload.you_were_replaced
