"""Games, replies and database look-ups shared by the channel and end-to-end tests."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from email.utils import make_msgid
from typing import Any

import sqlalchemy as sa

import engine
from pbm import db, games, inbound
from pbm.deadlines import TimingPolicy
from pbm.models import CommandLog, Game, InboundMessage, OutboundMessage, Player, Seat


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_game(specs: Sequence[games.PlayerSpec], *, seed: int = 7, start: bool = True,
             policy: TimingPolicy | None = None, name: str | None = None) -> int:
    """Create (and start, skipping invitations) a game; its id. Outbox rows are written."""
    name = name or f"g-{secrets.token_hex(3)}"

    def work(session: Any) -> int:
        game = games.create_game(session, name, specs, now=utcnow(), seed=seed,
                                 timing_policy=policy)
        if start:
            games.start(session, game.id, now=utcnow(), force=True)
        return int(game.id)

    return int(db.run_transaction(work))


def seed_opening_with(names: Sequence[str], seat: int) -> int:
    """A seed whose first decision belongs to ``seat``."""
    for seed in range(1, 500):
        if engine.pending(engine.new_game(list(names), seed))[0].seat == seat:
            return seed
    raise AssertionError("no such seed")


def email_players(n: int, domain: str = "example.org") -> list[games.PlayerSpec]:
    names = ["Ann", "Bob", "Cleo", "Dirk", "Eve", "Finn", "Gus", "Hal", "Ida"]
    tag = secrets.token_hex(2)
    return [games.PlayerSpec(names[i], f"{names[i].lower()}.{tag}@{domain}") for i in range(n)]


def state_of(game_id: int) -> engine.GameState:
    with db.session_scope(write=False) as session:
        return games.load_state(session.get(Game, game_id))


def pending(game_id: int) -> list[engine.Decision]:
    return list(engine.pending(state_of(game_id)))


def seat_row(game_id: int, seat: int) -> tuple[Seat, Player]:
    with db.session_scope(write=False) as session:
        return games.seat_of(session, game_id, seat)


def reply_email(sender: str, token: str, body: str, domain: str, *,
                headers: dict[str, str] | None = None) -> bytes:
    """A player's reply as a mail client would send it (quoting our prompt below)."""
    lines = [f"From: Player <{sender}>", f"To: play+{token}@{domain}",
             "Subject: Re: [Tortuga] your game", f"Message-ID: {make_msgid(domain='example.org')}",
             f"Date: {utcnow().strftime('%a, %d %b %Y %H:%M:%S +0000')}",
             "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    text = f"{body}\r\n\r\nOn Mon, Tortuga by Mail wrote:\r\n> Your turn.\r\n"
    return ("\r\n".join(lines) + "\r\n\r\n" + text).encode()


def store_email(raw: bytes) -> inbound.Stored:
    return db.run_transaction(lambda s: inbound.store_email(s, raw, utcnow()))  # type: ignore[no-any-return]


def store_sms(sender: str, to: str, body: str, sid: str | None = None) -> inbound.Stored:
    form = {"MessageSid": sid or "SM" + secrets.token_hex(16), "From": sender, "To": to,
            "Body": body, "NumSegments": "1"}
    return db.run_transaction(lambda s: inbound.store_sms(s, form, utcnow()))  # type: ignore[no-any-return]


def commands(game_id: int) -> list[tuple[int, str, str]]:
    with db.session_scope(write=False) as session:
        return [(r.seat, r.command, r.origin) for r in session.execute(
            sa.select(CommandLog).where(CommandLog.game_id == game_id)
            .order_by(CommandLog.seq)).scalars()]


def inbound_row(row_id: int) -> InboundMessage:
    with db.session_scope(write=False) as session:
        return session.get(InboundMessage, row_id)  # type: ignore[return-value]


def outbox(game_id: int | None = None, **where: Any) -> list[OutboundMessage]:
    with db.session_scope(write=False) as session:
        query = sa.select(OutboundMessage).order_by(OutboundMessage.id)
        if game_id is not None:
            query = query.where(OutboundMessage.game_id == game_id)
        for key, value in where.items():
            query = query.where(getattr(OutboundMessage, key) == value)
        return list(session.execute(query).scalars())


def player(player_id: int) -> Player:
    with db.session_scope(write=False) as session:
        return session.get(Player, player_id)  # type: ignore[return-value]


def broker_idle(redis_url: str) -> bool:
    """True when the Redis broker holds no task: none queued, none delivered and not yet
    acknowledged (tasks are acknowledged after they ran, ``task_acks_late``). A task a
    killed worker held counts as delivered until it is restored and run again."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        if client.hlen("unacked"):
            return False
        return not any(client.llen(key) for key in client.scan_iter(match="pbm*")
                       if client.type(key) == b"list")
    finally:
        client.close()


def settled(redis_url: str, game_id: int) -> bool:
    """Nothing left to do for the game: the broker is idle and none of its outgoing
    messages waits to be sent. What has not arrived by now will not."""
    return broker_idle(redis_url) and all(
        r.status not in ("pending", "sending") for r in outbox(game_id))
