"""The transport's view of a claimed outbox row: its Message-ID, the outgoing message
with the board picture (read by the claim, else from the table) and its extra parts."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from pbm.config import Settings
from pbm.messages import Channel, board_content_id
from pbm.models import BoardImage, OutboundPart
from pbm.session_keys import CLAIMED_PNGS
from pbm.transports import Attachment, InlineImage, OutgoingMessage

_BOARD_KEY = re.compile(r"^board-(\d+)-(\d+)(?:-([a-z]{2,8}))?$")


def message_id_for(row: Any, settings: Settings) -> str:
    """The row's Message-ID; a stable one derived from the row when the service set none."""
    return str(row.message_id or f"<outbox-{row.id}@{settings.mail_domain}>")


def outgoing(session: Session, row: Any, settings: Settings) -> OutgoingMessage:
    """The transport's view of an outbox row (with the board picture, if it has one)."""
    images: tuple[InlineImage, ...] = ()
    if row.channel == Channel.EMAIL and row.html and row.board_image_key:
        png = board_png(session, row.board_image_key)
        if png is not None:
            images = (InlineImage(cid=board_content_id(row.board_image_key), content=png),)
    attachments: tuple[Attachment, ...] = ()
    if row.channel == Channel.EMAIL and getattr(row, "has_parts", True):  # other pictures, events
        inline, attachments = outbound_parts(session, row.id)
        images = (*images, *inline) if row.html else images
    status_callback = None
    if row.channel == Channel.SMS and settings.sms_transport == "twilio":
        status_callback = settings.public_base_url.rstrip("/") + "/webhooks/twilio/status"
    return OutgoingMessage(
        channel=row.channel,
        to=row.to_address,
        subject=row.subject or "",
        text=row.text or "",
        html=row.html,
        sms=row.sms_body,
        reply_to=row.reply_to,
        message_id=message_id_for(row, settings),
        in_reply_to=row.in_reply_to,
        references=(row.in_reply_to,) if row.in_reply_to else (),
        images=images,
        attachments=attachments,
        key=str(row.id),
        status_callback=status_callback,
    )


def outbound_parts(session: Session, outbox_id: int
                   ) -> tuple[tuple[InlineImage, ...], tuple[Attachment, ...]]:
    """The row's extra parts (``OutboundPart``): inline pictures and attachments."""
    table = OutboundPart.__table__  # type: ignore[attr-defined]
    rows = session.execute(sa.select(table.c.content_type, table.c.filename,
                                     table.c.content_id, table.c.content)
                           .where(table.c.outbox_id == outbox_id).order_by(table.c.id)).all()
    inline = tuple(InlineImage(cid=r.content_id, content=bytes(r.content),
                               subtype=r.content_type.partition("/")[2] or "png")
                   for r in rows if r.content_id)
    attached = tuple(Attachment(content_type=r.content_type, filename=r.filename,
                                content=bytes(r.content)) for r in rows if not r.content_id)
    return inline, attached


def board_png(session: Session, key: str) -> bytes | None:
    """The stored picture named ``board-<game>-<version>[-<language>]``, if any."""
    claimed = session.info.get(CLAIMED_PNGS, {}).get(key)
    if claimed is not None:
        return claimed  # type: ignore[no-any-return]

    match = _BOARD_KEY.match(key)
    if not match:
        return None
    table = BoardImage.__table__  # type: ignore[attr-defined]
    png = session.execute(sa.select(table.c.png).where(
        table.c.game_id == int(match.group(1)), table.c.version == int(match.group(2)),
        table.c.language == (match.group(3) or "en"))
    ).scalar()
    return bytes(png) if png is not None else None
