"""One stored message on its way through the steps of ``pbm.inbound.pipeline``: what each
step found for the next, and the disposition every step returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from enum import StrEnum

from sqlmodel import Session

import engine
from pbm import outbox
from pbm.config import Settings
from pbm.inbound.answered import Answered
from pbm.inbound.answering import Outcome
from pbm.inbound.routing import Routed
from pbm.inbound.storage import InboundRow, finish
from pbm.models import Game, Player, Processed, ProcessResult, Seat
from pbm.replies import Extracted, Meta, ReplyResult


class Disposition(StrEnum):
    """What a step decided: go on to the next step, or the message's end (its row's status,
    written by the step that ended it; SKIPPED writes nothing)."""

    CONTINUE = "continue"  # on to the next step
    SKIPPED = "skipped"  # not this worker's any more (another one finished it)
    IGNORED = "ignored"  # kept, and not a player's command (why: the row's error)
    DONE = "done"  # applied and answered (or a carrier keyword mirrored)


@dataclass
class Work:
    """The message, and what the steps so far found out about it."""

    session: Session
    inbound_id: int
    now: datetime
    settings: Settings
    row: InboundRow | None = None  # the stored row, read under lock by the first step
    result: Processed | None = None  # what became of it, as ``process`` returns it
    raw: bytes = b""  # an email's bytes
    body: str = ""  # an SMS's text
    message: EmailMessage | None = None  # an email, parsed
    routed: Routed | None = None  # the seat the message is for, as routed before the lock
    player: Player | None = None  # the seat's player (SMS: the number's, before routing)
    seat: Seat | None = None  # the seat, read under the game's lock
    extracted: Extracted | None = None
    answered: Answered | None = None  # the question the reply answers, if known
    table_talk: bool = False  # the reply answers relayed table talk, not a menu
    game: Game | None = None  # locked
    state: engine.GameState | None = None
    parsed: ReplyResult | None = None
    relayed: list[Meta] = field(default_factory=list)  # the SAY lines relayed
    outcome: Outcome = field(default_factory=Outcome)

    @property
    def stored(self) -> InboundRow:
        """The stored row (every step after the first has it)."""
        assert self.row is not None, "the stored row is read by the first step"
        return self.row

    def finish(self, status: Disposition, error: str | None = None, *,
               game_id: int | None = None, seat: int | None = None) -> Disposition:
        """End the message with ``status`` (IGNORED or DONE) and ``error`` on its row; the
        seats it told are marked as such in one statement (``outbox.write_told``)."""
        outbox.write_told(self.session)
        finish(self.session, self.stored.id, status.value, self.now, error=error,
               game_id=game_id, seat=seat)
        self.result = Processed(ProcessResult(status.value), error)
        return status

    def finish_at_seat(self, status: Disposition, error: str | None = None) -> Disposition:
        """:meth:`finish`, the row marked with the game and seat it was routed to."""
        assert self.routed is not None
        return self.finish(status, error, game_id=self.routed.game_id,
                           seat=self.routed.seat_index)
