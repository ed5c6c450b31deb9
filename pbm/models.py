"""The tables of the service (SQLModel), as created by the Alembic migrations.

Every timestamp is stored in UTC and loaded as an aware ``datetime`` (``UTCDateTime``).
JSON documents (engine snapshot, options, timing policy) are stored as text: the engine owns
their format, the database only keeps them. ``Game.version`` is SQLAlchemy's
``version_id_col``: every UPDATE of a game checks and bumps it, so a stale writer fails
with ``StaleDataError`` instead of overwriting a newer state.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlmodel import Field, SQLModel

from pbm.messages import board_image_key  # defined once, shared with the renderer

# Named constraints, so migrations (and SQLite batch mode) can find and change them.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(sa.types.TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend (SQLite keeps no zone itself)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: pass an aware UTC time")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    """The current time, aware, in UTC (only for defaults; logic takes ``now``)."""
    return datetime.now(UTC)


def _ts(*, nullable: bool = True, index: bool = False) -> Any:
    return Field(
        default=None,
        sa_column=sa.Column(UTCDateTime(), nullable=nullable, index=index),
    )


def _partial_index(name: str, columns: list[str], where: str) -> sa.Index:
    """An index of the rows matching ``where`` only (PostgreSQL and SQLite alike)."""
    return sa.Index(name, *columns, postgresql_where=sa.text(where),
                    sqlite_where=sa.text(where))


def _created() -> Any:
    return Field(
        default_factory=utcnow, sa_column=sa.Column(UTCDateTime(), nullable=False)
    )


def _text(*, nullable: bool = True) -> Any:
    return Field(default=None, sa_column=sa.Column(sa.Text(), nullable=nullable))


class GameStatus(StrEnum):
    CREATED = "created"
    INVITING = "inviting"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"
    ABORTED = "aborted"


class InvitationStatus(StrEnum):
    PENDING = "pending"  # not yet sent
    INVITED = "invited"
    JOINED = "joined"
    DECLINED = "declined"


class InboundStatus(StrEnum):
    NEW = "new"
    PROCESSING = "processing"
    DONE = "done"
    IGNORED = "ignored"
    QUARANTINED = "quarantined"


class ProcessResult(StrEnum):
    """What ``pbm.inbound.process`` made of a message, at the start of its result (an
    ignored one goes on with ``: why``): the row's end status, or SKIPPED (another worker
    had it; nothing written)."""

    DONE = InboundStatus.DONE.value
    IGNORED = InboundStatus.IGNORED.value
    QUARANTINED = InboundStatus.QUARANTINED.value
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Processed:
    """What ``pbm.inbound.process`` made of a message: its result and, for an ignored one,
    why (the row's error). ``str()`` is the worker's text for it: ``ignored: why``."""

    result: ProcessResult
    detail: str | None = None

    def __str__(self) -> str:
        return f"{self.result}: {self.detail}" if self.detail else str(self.result)


class OutboundStatus(StrEnum):
    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"


#: an outbox row still to be sent
UNSENT = (OutboundStatus.PENDING, OutboundStatus.SENDING)


class DeliveryStatus(StrEnum):
    """What the provider says became of a sent message (Twilio status callbacks use these
    words; SMTP only ever says ``accepted``). Later reports never go back."""

    ACCEPTED = "accepted"  # the provider took it (SMTP 250, Twilio API 201)
    SCHEDULED = "scheduled"
    QUEUED = "queued"
    SENDING = "sending"
    SENT = "sent"  # handed to the carrier
    DELIVERY_UNKNOWN = "delivery_unknown"
    DELIVERED = "delivered"
    UNDELIVERED = "undelivered"
    FAILED = "failed"


class ServiceEventKind(StrEnum):
    """The kinds of ``GameEvent`` the service writes itself (``pbm.games.service_event``);
    the engine's own are its stable codes (``"pawn.marooned"``)."""

    GAME_STARTED = "game.started"
    GAME_PAUSED = "game.paused"
    GAME_RESUMED = "game.resumed"
    GAME_ABORTED = "game.aborted"
    SEAT_REPLACED = "seat.replaced"
    SEAT_AWAY = "seat.away"
    SEAT_BACK = "seat.back"
    TABLE_TALK = "table.talk"


class DeadlineStatus(StrEnum):
    OPEN = "open"
    DONE = "done"  # answered
    TIMED_OUT = "timed_out"  # the timeout policy acted
    CANCELLED = "cancelled"  # the decision closed without this seat (game ended, aborted)


class Player(SQLModel, table=True):
    """A person who can be seated in games; reached by email and/or SMS."""

    __tablename__: ClassVar[str] = "players"

    id: int | None = Field(default=None, primary_key=True)
    display_name: str = Field(max_length=60)
    email: str | None = Field(default=None, max_length=254, unique=True)
    phone: str | None = Field(default=None, max_length=32, unique=True)
    preferred_channel: str = Field(default="email", max_length=10)
    time_zone: str = Field(default="UTC", max_length=64)
    sms_opted_out: bool = False
    email_failing: bool = False
    tell_everything: bool = False  # "tell me everything": every public event, batched
    sms_live_talk: bool = False  # SMS players who asked for table talk at once
    quiet_start: int | None = None  # own quiet hours (QUIET 23-07); None: the game's
    quiet_end: int | None = None
    away_until: datetime | None = _ts()  # AWAY until ...: what the player said
    calendar: bool = False  # CALENDAR ON: prompts carry an iCalendar event
    language: str = Field(default="en", max_length=8,  # "en" or "ko" (LANG KO)
                          sa_column_kwargs={"server_default": "en"})
    created_at: datetime = _created()

    __table_args__ = (
        sa.Index("ix_players_tell_everything", "id",
                 postgresql_where=sa.text("tell_everything IS true"),
                 sqlite_where=sa.text("tell_everything IS true")),
        sa.Index("ix_players_email_lower", sa.text("lower(email)")),
    )


version_col = sa.Column("version", sa.Integer, nullable=False)


class Game(SQLModel, table=True):
    """One play of Tortuga 1667 and the cached engine state after its last command."""

    __tablename__: ClassVar[str] = "games"
    __mapper_args__: ClassVar[dict[str, Any]] = {"version_id_col": version_col}

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80, unique=True)
    status: str = Field(default=GameStatus.CREATED, max_length=16, index=True)
    state_json: str | None = _text()
    state_version: int = 0  # engine state.version of the snapshot
    version: int = Field(default=None, sa_column=version_col)
    seed: int = Field(sa_type=sa.BigInteger)
    options_json: str = Field(default="{}", sa_column=sa.Column(sa.Text(), nullable=False))
    timing_json: str = Field(default="{}", sa_column=sa.Column(sa.Text(), nullable=False))
    paused_at: datetime | None = _ts()
    pause_reason: str | None = Field(default=None, max_length=500)
    started_at: datetime | None = _ts()
    finished_at: datetime | None = _ts()
    created_at: datetime = _created()
    updated_at: datetime = _created()


class Seat(SQLModel, table=True):
    """A player's place in a game; ``reply_token`` names it in reply addresses."""

    __tablename__: ClassVar[str] = "seats"
    __table_args__ = (sa.UniqueConstraint("game_id", "seat_index", name="uq_seats_game_seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    seat_index: int
    reply_token: str = Field(max_length=32, unique=True)
    invitation_status: str = Field(default=InvitationStatus.PENDING, max_length=16)
    thread_message_id: str | None = Field(default=None, max_length=255)  # email thread root
    thread_started: bool = Field(  # an outbox row carries thread_message_id (the root)
        default=False,
        sa_column=sa.Column(sa.Boolean(), nullable=False, server_default=sa.false()))
    last_prompted_at: datetime | None = _ts()
    last_event_seq: int = 0  # events this seat was told about (for "since your last message")
    replaced_player_ids: str = Field(default="", max_length=255)  # earlier holders, comma list
    away_until: datetime | None = _ts()  # this seat's deadlines wait until then (AWAY)
    away_used_seconds: int = 0  # of the game's away allowance (``TimingPolicy``)


class CommandLog(SQLModel, table=True):
    """Every command the engine applied, in order: replaying it rebuilds the state."""

    __tablename__: ClassVar[str] = "command_log"
    __table_args__ = (sa.UniqueConstraint("game_id", "seq", name="uq_command_log_game_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seq: int  # 1, 2, ... per game
    seat: int
    command: str = Field(max_length=200)  # canonical text
    state_version: int  # engine state.version after applying it
    origin: str = Field(max_length=64)  # "inbound:<id>", "timeout", "admin", "cli", ...
    inbound_message_id: int | None = Field(default=None, foreign_key="inbound_messages.id")
    created_at: datetime = _created()


class GameEvent(SQLModel, table=True):
    """Something that happened in a game, with its audience: engine events and the
    service's own (table talk, pause, seat replaced). Recaps and briefings read these."""

    __tablename__: ClassVar[str] = "game_events"
    __table_args__ = (sa.UniqueConstraint("game_id", "seq", name="uq_game_events_game_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seq: int  # 1, 2, ... per game
    command_seq: int | None = None  # the command_log.seq that produced it
    kind: str = Field(max_length=64)
    text: str = Field(sa_column=sa.Column(sa.Text(), nullable=False))
    audience: str | None = Field(default=None, max_length=64)  # None = public; "0,3" = seats
    data_json: str = Field(default="{}", sa_column=sa.Column(sa.Text(), nullable=False))
    state_version: int = 0
    created_at: datetime = _created()

    def audience_seats(self) -> frozenset[int] | None:
        """The seats that may see it, or None when public."""
        if self.audience is None:
            return None
        return frozenset(int(x) for x in self.audience.split(",") if x)

    def visible_to(self, seat: int) -> bool:
        """True if ``seat`` may see this event."""
        seats = self.audience_seats()
        return seats is None or seat in seats


class InboundMessage(SQLModel, table=True):
    """A raw message from a player, stored before anything is done with it."""

    __tablename__: ClassVar[str] = "inbound_messages"
    __table_args__ = (
        sa.UniqueConstraint(
            "channel", "provider_message_id", name="uq_inbound_channel_provider_id"
        ),
        _partial_index("ix_inbound_messages_unfinished", ["id"],
                       "status IN ('new', 'processing')"),
        sa.Index("ix_inbound_messages_sender_received_at", "sender", "channel", "received_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    channel: str = Field(max_length=10)
    provider_message_id: str = Field(max_length=255)
    sender: str = Field(max_length=320)
    recipient: str = Field(default="", max_length=320)
    raw: str = Field(sa_column=sa.Column(sa.Text(), nullable=False))
    received_at: datetime = _created()
    status: str = Field(default=InboundStatus.NEW, max_length=16, index=True)
    error: str | None = _text()
    attempts: int = 0
    game_id: int | None = Field(default=None, foreign_key="games.id", index=True)
    seat: int | None = None
    processed_at: datetime | None = _ts()  # when it was done, ignored or quarantined
    claimed_at: datetime | None = _ts()  # a worker's lease while processing (last claim)


class OutboundMessage(SQLModel, table=True):
    """The outbox: a rendered message waiting to be (or already) delivered."""

    __tablename__: ClassVar[str] = "outbound_messages"
    __table_args__ = (
        _partial_index("ix_outbound_messages_unsent", ["id"],
                       "status IN ('pending', 'sending')"),
        _partial_index("ix_outbound_messages_message_id", ["message_id"],
                       "message_id IS NOT NULL"),
        _partial_index("ix_outbound_messages_provider_id", ["provider_id"],
                       "provider_id IS NOT NULL"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = Field(default=None, foreign_key="games.id", index=True)
    seat: int | None = None
    player_id: int | None = Field(default=None, foreign_key="players.id", index=True)
    channel: str = Field(max_length=10)
    kind: str = Field(max_length=24)
    to_address: str = Field(max_length=320)
    subject: str = Field(default="", max_length=300)
    text: str = Field(default="", sa_column=sa.Column(sa.Text(), nullable=False))
    html: str | None = _text()
    sms_body: str | None = _text()
    board_image_key: str | None = Field(default=None, max_length=100)
    message_id: str | None = Field(default=None, max_length=255)  # our Message-ID
    in_reply_to: str | None = Field(default=None, max_length=255)  # the thread root
    #: the question this message put to its seat: "<stage serial>.<seat>" of the game when
    #: it was written (None without a started game); a reply to it answers that question
    question: str | None = Field(default=None, max_length=40)
    status: str = Field(default=OutboundStatus.PENDING, max_length=16, index=True)
    attempts: int = 0
    last_error: str | None = _text()
    provider_id: str | None = Field(default=None, max_length=255)
    reply_to: str | None = Field(default=None, max_length=320)  # play+TOKEN@domain
    dedupe_key: str = Field(max_length=255, unique=True)
    created_at: datetime = _created()
    sent_at: datetime | None = _ts()  # when the provider accepted it (None until then)
    claimed_at: datetime | None = _ts()  # a worker's lease while sending (last attempt)
    delivery_status: str | None = Field(default=None, max_length=20)  # DeliveryStatus
    delivered_at: datetime | None = _ts()  # when the provider reported it delivered


class OutboundPart(SQLModel, table=True):
    """One more MIME part of an outbound email: a calendar event (``text/calendar``) or an
    inline picture other than the board (``content_id`` set: referenced as ``cid:``)."""

    __tablename__: ClassVar[str] = "outbound_parts"

    id: int | None = Field(default=None, primary_key=True)
    outbox_id: int = Field(foreign_key="outbound_messages.id", index=True)
    content_type: str = Field(max_length=100)  # "text/calendar; method=REQUEST", "image/png"
    filename: str = Field(max_length=100)
    content_id: str | None = Field(default=None, max_length=100)
    content: bytes = Field(sa_column=sa.Column(sa.LargeBinary(), nullable=False))


class BoardImage(SQLModel, table=True):
    """The public board picture of one game version in one language (its labels), stored
    once, shared by the messages of that version's readers of that language."""

    __tablename__: ClassVar[str] = "board_images"
    __table_args__ = (
        sa.UniqueConstraint("game_id", "version", "language",
                            name="uq_board_images_game_version_language"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    version: int  # engine state.version
    language: str = Field(default="en", max_length=8,
                          sa_column_kwargs={"server_default": "en"})
    png: bytes = Field(sa_column=sa.Column(sa.LargeBinary(), nullable=False))
    created_at: datetime = _created()

    @property
    def key(self) -> str:
        """The key outbound rows use to name this picture (``messages.board_content_id``)."""
        return board_image_key(self.game_id, self.version, self.language)


class Deadline(SQLModel, table=True):
    """When one pending decision of one seat is due, and how far its reminders got."""

    __tablename__: ClassVar[str] = "deadlines"
    __table_args__ = (
        _partial_index("ix_deadlines_open_next_reminder_at", ["next_reminder_at"],
                       "status = 'open'"),
        _partial_index("ix_deadlines_open_due_at", ["due_at"], "status = 'open'"),
        _partial_index("ix_deadlines_open_game_id", ["game_id", "seat"], "status = 'open'"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int | None = None  # None for game-level deadlines (the invitation window)
    decision_key: str = Field(max_length=120)
    kind: str = Field(max_length=24)  # DecisionKind value or "INVITATION"
    due_at: datetime = Field(sa_column=sa.Column(UTCDateTime(), nullable=False, index=True))
    reminders_sent: int = 0
    next_reminder_at: datetime | None = _ts(index=True)
    status: str = Field(default=DeadlineStatus.OPEN, max_length=16, index=True)
    escalated: bool = False  # the admin was alerted about it
    created_at: datetime = _created()
    resolved_at: datetime | None = _ts()
    # The player's calendar (CALENDAR ON, ``pbm.deadlines.calendar``): the due time the
    # event they hold says (None: they hold none) and the iCalendar SEQUENCE last sent.
    calendar_due_at: datetime | None = _ts()
    calendar_sequence: int = 0


class AdminSessionRecord(SQLModel, table=True):
    """One signed-in admin session, kept on the server so that signing out (or a new
    password) ends it: the cookie only names it (by a random token whose SHA-256 is ``id``)."""

    __tablename__: ClassVar[str] = "admin_sessions"

    id: str = Field(primary_key=True, max_length=64)  # sha256 hex of the cookie's token
    user: str = Field(max_length=60, index=True)
    password_tag: str = Field(max_length=64)  # sha256 of the password hash signed in with
    created_at: datetime = _created()
    expires_at: datetime = Field(sa_column=sa.Column(UTCDateTime(), nullable=False, index=True))
