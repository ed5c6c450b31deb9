"""Turn a ``MessageContext`` into what a player receives: email text, email HTML, SMS.

Templates (Jinja2, ``templates/``) only see a per-seat model built here from the
recipient's own ``SeatView`` dict and the events that seat may see; never the game state.
HTML is autoescaped and has its CSS inlined; undefined template variables are errors.

Every message of one game carries the same subject (``subject_for``) so mail clients keep
each game in one thread; the service adds Message-ID / In-Reply-To. Email prompts show the
board picture ``cid:<board_content_id>``: :func:`board_png` draws it from the *public* view
only, so the service renders it once per game version and reuses it;
``RenderedMessage.board_image_key`` is set exactly when the HTML shows the picture.

``ctx.extra`` keys, by ``MessageKind`` (all optional; "a | b" = either name works):

- every kind: ``reply_to`` (str) the reply address, shown in the footer; ``players``
  (list of ``{"seat", "number", "name"}`` or of names); ``table_talk`` (list of
  ``{"name", "text"}``) SAY messages folded into this message (SMS-only players).
- ``INVITATION`` (``seat_view`` None): ``inviter`` (str), ``message`` (a note from the
  organiser), ``respond_by_hours`` (float), ``timing`` (``{"action_hours", "vote_hours",
  "other_hours"}``: how long players get per decision); ``ctx.deadline`` = answer by.
- ``GAME_STARTED`` / ``PROMPT`` / ``STATUS``: nothing more (``events`` = the recap,
  ``deadline`` = when the decision is due); ``started`` (bool) marks the first prompt of
  the game (it then also lists the seats); ``vote_ledger`` (``pbm.vote_ledger``: the
  seat's own last votes, shown by email only).
- ``NOTICE``: ``headline`` (str) what happened to this seat, else the latest event.
- ``VOTE_RESULT``: ``result`` (the ``vote.result`` event dict), else found in ``events``.
- ``REMINDER`` / ``FINAL_WARNING``: ``invitation`` (bool: a reminder to JOIN or DECLINE),
  ``policy`` = ``"default"`` (a safe default is played at the deadline, the default) or
  ``"pause"`` (the game pauses and the admin is told); ``if_silent`` / ``if_silent_sms``
  what is played for this decision if no answer comes (``engine.describe_default``).
- ``TIMED_OUT``: ``played`` (canonical command played; None when it is a secret, e.g. a
  vote card), ``you`` (bool: it was this seat's decision, default True), ``who`` (name of
  the seat that timed out); ``paused`` (bool) when the policy paused the game instead;
  ``why`` (str) why that default favours no team.
- ``PAUSED``: ``reason``; ``RESUMED``: ``reason``, ``paused_hours``.
- ``SEAT_REPLACED``: ``old_name | previous_player``, ``new_name``, ``briefing`` (bool: this
  is the newcomer's briefing pack: secrets, board, recent history in ``events``),
  ``you_were_replaced`` (bool: to the player who leaves).
- ``TABLE_TALK``: ``from_name | from`` (speaker, required), ``text`` (required).
- ``REPLY``: ``reply`` (``ReplyResult.to_dict()``), ``done`` (list of str applied, in
  display form), ``rejected`` (list of ``{"command", "reason"}``: well formed but refused);
  without those two, ``result`` (``pbm.games.Result.to_dict()``) supplies them;
  ``help`` (topic str, "" for general help; None for no help) and ``log`` (bool: list
  ``events`` as the recent public history).
- ``GAME_OVER``: ``aborted`` (bool), ``reason`` (str); the public view carries the winner
  and every loyalty; ``unmasking`` (``pbm.unmasking.story``), ``unmasking_chart`` (the
  chart's Content-ID) and ``inline_images`` ([(Content-ID, PNG)]: pictures the HTML shows
  as ``cid:``, returned in ``RenderedMessage.inline_images``).
"""

from __future__ import annotations

from pbm.i18n import translate
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
from pbm.render.sms import (
    SMS_RANK,
    SMS_STATUS_PARTS,
    SMS_SYMBOL,
    sms_board,
    sms_card,
    sms_help,
    sms_messages,
)

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
    pictures = tuple((str(cid), bytes(png)) for cid, png in ctx.extra.get("inline_images") or ()
                     if f'src="cid:{cid}"' in html)  # the unmasking chart (pbm.unmasking)
    return RenderedMessage(subject=subject, text=text, html=html, board_image_key=key,
                           inline_images=pictures)
