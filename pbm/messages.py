"""What the service says to a player: kinds of message and their rendered form.

The contract between ``pbm.games`` (which decides *who* is told *what*, at commit time) and
``pbm.render`` (which turns it into email text, email HTML and SMS). Templates only ever see
a ``MessageContext``: the recipient's own ``SeatView`` and the events that seat may see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from pbm.message_payloads import Common, MessageKind, Payload

__all__ = ["Channel", "MessageContext", "MessageKind", "RenderedMessage", "board_content_id",
           "board_image_key"]


class Channel(StrEnum):
    """How a message travels."""

    EMAIL = "email"
    SMS = "sms"


@dataclass(frozen=True, kw_only=True)
class MessageContext:
    """Everything a template may use for one recipient. Never another seat's secrets.

    ``payload`` is what this kind of message carries (``pbm.message_payloads``: its class
    gives the ``kind``); ``common`` what any kind may carry (reply address, folded talk).
    ``seat_view`` is ``engine.view(state, seat).to_dict()`` (None before the game starts);
    ``events`` are the ``to_dict()`` forms of engine events whose audience includes this seat.
    """

    payload: Payload
    game_id: int
    game_name: str
    seat: int | None
    player_name: str
    time_zone: str = "UTC"
    seat_view: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    deadline: datetime | None = None
    common: Common = field(default_factory=Common)
    now: datetime | None = None  # when the message is written: the time left to a deadline
    language: str = "en"  # the reader's language (``Player.language``): "en" or "ko"

    @property
    def kind(self) -> MessageKind:
        return self.payload.KIND


@dataclass(frozen=True)
class RenderedMessage:
    """One message, rendered at commit time and stored in the outbox."""

    subject: str
    text: str
    html: str | None = None
    sms: str | None = None
    sms_more: tuple[str, ...] = ()  # further SMS of the same message (STATUS: 2 at most)
    board_image_key: str | None = None  # the board picture the HTML shows (see below)
    inline_images: tuple[tuple[str, bytes], ...] = ()  # other pictures: (Content-ID, PNG)


def board_image_key(game_id: int, version: int, language: str = "en") -> str:
    """The stable key of a game version's board picture in one language (``BoardImage``
    rows, outbox rows): ``board-7-12`` (English, as always), ``board-7-12-ko``."""
    return f"board-{game_id}-{version}" if language == "en" else \
        f"board-{game_id}-{version}-{language}"


def board_content_id(key: str) -> str:
    """The Content-ID of the picture ``key``: the one name both the HTML (``cid:...``) and
    the image part (``Content-ID: <...>``) use, so they always match."""
    return f"{key}@board.tortuga"
