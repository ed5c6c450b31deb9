"""Turn a MessageContext into what a player receives: email text, email HTML, SMS.

First version: plain templates; richer ones follow. Templates only see the recipient's
``MessageContext`` (their own seat view and the events they may see).
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from pbm.messages import Channel, MessageContext, RenderedMessage

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"

_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def subject_for(game_name: str) -> str:
    """The constant subject of every message of one game, so each game is one thread."""
    return f"[Tortuga: {game_name}] your game"


def render(ctx: MessageContext, channel: Channel) -> RenderedMessage:
    """Render one message for one recipient on one channel."""
    data: dict[str, Any] = {"ctx": ctx, "kind": ctx.kind.value}
    text = _env.get_template("email/message.txt").render(**data)
    if channel is Channel.SMS:
        sms = _env.get_template("sms/message.txt").render(**data).strip()
        return RenderedMessage(subject=subject_for(ctx.game_name), text=text, sms=sms)
    html = _env.get_template("email/message.html").render(**data)
    return RenderedMessage(subject=subject_for(ctx.game_name), text=text, html=html)


def board_image_key(public_view: dict[str, Any]) -> str:
    """A stable key for the board picture of one public view (same view, same key)."""
    blob = json.dumps(public_view, sort_keys=True, default=str).encode()
    return "board-" + hashlib.sha256(blob).hexdigest()[:16]


def board_png(public_view: dict[str, Any]) -> bytes:
    """The public board as a PNG picture."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (480, 120), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), "Tortuga 1667", fill="black", font=ImageFont.load_default(size=14))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
