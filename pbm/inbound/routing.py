"""Routing a message to a seat (email: reply token, else the thread of our Message-IDs;
SMS: the player's phone) and checking that the sender is who they claim to be."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import Message
from typing import Any

import sqlalchemy as sa
from publicsuffixlist import PublicSuffixList
from sqlmodel import Session, col

from pbm.config import Settings
from pbm.inbound.mail_headers import header, recipient_addresses
from pbm.inbound.storage import SMS
from pbm.models import Game, GameStatus, OutboundMessage, Player, Seat
from pbm.replies import find_reply_token

ACTIVE_GAMES = (GameStatus.RUNNING, GameStatus.INVITING, GameStatus.PAUSED, GameStatus.CREATED)


@dataclass(frozen=True, slots=True)
class Routed:
    """The seat a message was routed to, as read before its game is locked: what checking
    the sender needs, and no more. The seat and its player are read under the game's lock
    (``pbm.inbound.applying.parse_reply``), where everything about them is decided."""

    game_id: int
    seat_index: int
    player_id: int
    player_email: str | None  # the seat's player's address, to compare with the sender's


def route_email(session: Session, message: Message, sender: str) -> Routed | None:
    """The seat a reply is for, by a secret only that seat's player received: the reply
    token of its address, else a Message-ID of ours it answers (``In-Reply-To`` /
    ``References``) that was sent to the seat's present player. None otherwise: ``From``
    alone never names a seat, it is trivially forged. (The caller checks the sender.)"""
    token = find_reply_token(recipient_addresses(message))
    if token:
        found = session.execute(_routed_statement("reply_token"),
                                {"token": token.strip().lower()}).first()
        if found is not None:
            return Routed(*found)
    referenced = " ".join([header(message, "In-Reply-To"), header(message, "References")])
    ids = [i[:255] for i in re.findall(r"<[^<>\s]+>", referenced)][-50:]
    if ids:
        hit = session.execute(
            sa.select(col(OutboundMessage.game_id), col(OutboundMessage.seat),
                      col(OutboundMessage.player_id))
            .where(col(OutboundMessage.message_id).in_(ids), col(OutboundMessage.seat).is_not(None))
            .order_by(col(OutboundMessage.id).desc()).limit(1)).first()
        if hit is not None:
            seat = session.execute(_routed_statement("game_seat"),
                                   {"game_id": hit.game_id, "seat_index": hit.seat}).first()
            if seat is not None and seat.player_id == hit.player_id:
                return Routed(*seat)
    return None


@functools.lru_cache(maxsize=2)
def _routed_statement(by: str) -> sa.Select[Any]:
    """A seat's ``Routed`` columns (plain columns, no ORM objects), by its reply token
    (``token``) or by ``game_id`` and ``seat_index``; built once per process."""
    seats, players = Seat.__table__, Player.__table__  # type: ignore[attr-defined]
    statement = (sa.select(seats.c.game_id, seats.c.seat_index, seats.c.player_id,
                           players.c.email)
                 .join_from(seats, players, seats.c.player_id == players.c.id))
    if by == "reply_token":
        return statement.where(seats.c.reply_token == sa.bindparam("token"))
    return statement.where(seats.c.game_id == sa.bindparam("game_id"),
                           seats.c.seat_index == sa.bindparam("seat_index"))


def route_sms(session: Session, player_id: int) -> Seat | None:
    """The seat an SMS is for: of the player's active games, the one whose message reached
    them last by SMS (else their most recent seat)."""
    seats: Sequence[Seat] = session.execute(
        sa.select(Seat).join(Game, col(Game.id) == Seat.game_id)
        .where(col(Seat.player_id) == player_id, col(Game.status).in_(ACTIVE_GAMES))
        .order_by(col(Seat.id).desc())
    ).scalars().all()
    if len(seats) <= 1:
        return seats[0] if seats else None
    by_game = {s.game_id: s for s in seats}
    last = session.execute(
        sa.select(col(OutboundMessage.game_id))
        .where(col(OutboundMessage.player_id) == player_id, col(OutboundMessage.channel) == SMS,
               col(OutboundMessage.game_id).in_(list(by_game)))
        .order_by(col(OutboundMessage.created_at).desc(), col(OutboundMessage.id).desc())
        .limit(1)
    ).scalar()
    return by_game.get(last, seats[0]) if last is not None else seats[0]


def sender_authenticated(message: Message, sender: str, settings: Settings) -> bool:
    """True when the receiving server's own ``Authentication-Results`` header shows a DMARC
    pass for the From domain, or a DKIM or SPF pass aligned with it.

    Only the topmost header bearing ``INBOUND_AUTHSERV_ID`` counts: the receiving server
    adds its header on top, so any below it (or without that id) may have been written by
    the sender. Without the id nothing is trusted (and the service refuses to start with
    ``INBOUND_REQUIRE_SENDER_AUTH`` on: ``pbm.deployment``). The receiving server must also
    strip headers claiming its id from incoming mail (RFC 8601, section 5)."""
    domain = sender.rpartition("@")[2].lower()
    wanted = (settings.inbound_authserv_id or "").strip().lower()
    if not domain or not wanted:
        return False
    try:
        values = [str(v) for v in message.get_all("Authentication-Results") or []]
    except Exception:
        return False
    for value in values:
        value = re.sub(r"\([^()]*\)", " ", value)  # comments
        server, _, results = value.partition(";")
        if (server.split() or [""])[0].lower() != wanted:
            continue
        for clause in results.split(";"):
            words = dict(w.lower().partition("=")[::2] for w in clause.split() if "=" in w)
            if _auth_pass(words, domain):
                return True
        return False  # the topmost header of our server decides; none below it counts
    return False


@functools.cache
def _public_suffixes() -> PublicSuffixList:
    """The Public Suffix List shipped with ``publicsuffixlist`` (no download)."""
    return PublicSuffixList()


def organisational_domain(domain: str) -> str | None:
    """The registrable domain of ``domain`` (``mail.example.co.uk`` -> ``example.co.uk``);
    None for a public suffix itself (``org``, ``co.uk``) or nothing."""
    domain = domain.rpartition("@")[2].strip(".").lower()
    if not domain:
        return None
    found = _public_suffixes().privatesuffix(domain)
    return str(found) if found else None


def _aligned(domain: str, other: str) -> bool:
    """DMARC's relaxed alignment: both names share one organisational domain."""
    mine = organisational_domain(domain)
    return mine is not None and mine == organisational_domain(other)


def _auth_pass(words: dict[str, str], domain: str) -> bool:
    if words.get("dmarc") == "pass":
        return _aligned(domain, words.get("header.from", domain))
    if words.get("dkim") == "pass":
        return _aligned(domain, words.get("header.d", words.get("header.i", "")))
    if words.get("spf") == "pass":
        return _aligned(domain, words.get("smtp.mailfrom", words.get("smtp.helo", "")))
    return False
