"""Turn a ``MessageContext`` into what a player receives: email text, email HTML, SMS.

Templates (Jinja2, ``templates/``) only see a per-seat model built here from the
recipient's own ``SeatView`` dict and the events that seat may see; never the game state.
HTML is autoescaped and has its CSS inlined; undefined template variables are errors.

Every message of one game carries the same subject (``subject_for``) so mail clients keep
each game in one thread; the service adds Message-ID / In-Reply-To. Email prompts show the
board picture ``cid:<board_content_id>``: :func:`board_png` draws it from the *public* view
only, so the service renders it once per game version and reuses it;
``RenderedMessage.board_image_key`` is set exactly when the HTML shows the picture.

What each kind of message carries is its payload: ``pbm.message_payloads``.
"""

from __future__ import annotations

from pbm.i18n import translate
from pbm.message_payloads import GameOver
from pbm.messages import Channel, MessageContext, RenderedMessage, board_content_id
from pbm.render import shared
from pbm.render.board import awaited_model, board_key_of, board_model, board_png, me_model
from pbm.render.email import SECTIONS, TEMPLATES, render_html, render_text, sections_of
from pbm.render.gsm7 import (
    SMS_MAX_KO_UNITS,
    SMS_MAX_SEPTETS,
    SMS_MAX_UCS2_UNITS,
    cut_utf16,
    fit_sms,
    gsm7_septets,
    is_gsm7,
    relay_sms,
    sms_segments,
    to_gsm7,
    utf16_units,
)
from pbm.render.model import (
    RECAP_LIMIT,
    RECAP_SKIP,
    build_model,
    recap,
    settings_headline,
    viewed_cards,
    visible_events,
)
from pbm.render.names import (
    HELP_FILES,
    RANK_NAMES,
    SHIP_NAMES,
    SYMBOL_NAMES,
    TEAM_NAMES,
    VOTE_RULE,
    VOTE_SECTION,
    format_deadline,
    short_game,
    short_name,
    subject_for,
    title_label,
)
from pbm.render.refusals import plain_reason
from pbm.render.sms import SMS_STATUS_PARTS, sms_help, sms_messages
from pbm.render.sms_board import SMS_RANK, SMS_SYMBOL, sms_board, sms_card

__all__ = [
    "HELP_FILES",
    "RANK_NAMES",
    "RECAP_LIMIT",
    "RECAP_SKIP",
    "SECTIONS",
    "SHIP_NAMES",
    "SMS_MAX_KO_UNITS",
    "SMS_MAX_SEPTETS",
    "SMS_MAX_UCS2_UNITS",
    "SMS_RANK",
    "SMS_STATUS_PARTS",
    "SMS_SYMBOL",
    "SYMBOL_NAMES",
    "TEAM_NAMES",
    "TEMPLATES",
    "VOTE_RULE",
    "VOTE_SECTION",
    "awaited_model",
    "board_key_of",
    "board_model",
    "board_png",
    "cut_utf16",
    "fit_sms",
    "format_deadline",
    "gsm7_septets",
    "is_gsm7",
    "me_model",
    "plain_reason",
    "recap",
    "relay_sms",
    "render",
    "settings_headline",
    "short_game",
    "short_name",
    "sms_board",
    "sms_card",
    "sms_help",
    "sms_segments",
    "subject_for",
    "title_label",
    "to_gsm7",
    "utf16_units",
    "viewed_cards",
    "visible_events",
]


def render(ctx: MessageContext, channel: Channel) -> RenderedMessage:
    """Render one message for one recipient on one channel, in the recipient's language
    (``ctx.language``; ``pbm.i18n.translate``)."""
    with translate.reading(ctx.language):
        return _render(ctx, channel)


def _render(ctx: MessageContext, channel: Channel) -> RenderedMessage:
    model = build_model(ctx)
    model["sections"] = sections_of(ctx, model)
    subject = subject_for(ctx.game_name)
    shows_board = "board" in model["sections"]
    public = None
    if shows_board:  # the public part shared by every seat (pbm.render.shared)
        public = shared.public_board(model) if model["board"] else None
        model["board_text"] = shared.board_text(model, public)
    text = render_text(model)
    if channel is Channel.SMS:
        first, *more = sms_messages(ctx, model)
        return RenderedMessage(subject=subject, text=text, sms=first, sms_more=tuple(more))
    if shows_board:
        model["board_html"] = shared.board_html(model, public)
    html = render_html(model)
    key = board_key_of(ctx)
    if key is None or f'src="cid:{board_content_id(key)}"' not in html:
        key = None  # no picture shown: none carried (no stray attachment)
    images = ctx.payload.inline_images if isinstance(ctx.payload, GameOver) else ()
    pictures = tuple((cid, png) for cid, png in images
                     if f'src="cid:{cid}"' in html)  # the unmasking chart (pbm.games.unmasking)
    return RenderedMessage(subject=subject, text=text, html=html, board_image_key=key,
                           inline_images=pictures)
