"""Email rendering: the Jinja environment over ``templates/``, the text and the CSS-inlined
HTML of a message, and which sections each kind of message shows."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import css_inline
from jinja2 import (
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    FunctionLoader,
    StrictUndefined,
    select_autoescape,
)

from pbm.i18n import translate
from pbm.i18n.languages import languages, locale_dirs, translations
from pbm.message_payloads import GameOver, Prompt, Reply, SeatReplaced, asks_to_join
from pbm.messages import MessageContext, MessageKind
from pbm.render.folding import FoldGettext
from pbm.render.names import command_words
from pbm.resources import templates_dir

TEMPLATES = templates_dir()


def _language_file(name: str) -> str | None:
    """A help file a language folder carries (``pbm.render.names.help_file`` names it by
    its absolute path: ``help//<locale dir>/<lang>/help/general.txt``)."""
    path = Path(name.removeprefix("help/"))
    if not path.is_absolute() or not path.is_file() or not any(
            path.is_relative_to(folder) for folder in locale_dirs()):
        return None
    return path.read_text(encoding="utf-8")


@cache
def env_for(lang: str) -> Environment:
    """The templates of one reader's language: Jinja2's i18n extension with that
    language's catalogue (``pbm.i18n.translate``; English: the ids themselves)."""
    env = Environment(
        loader=ChoiceLoader([FileSystemLoader(TEMPLATES), FunctionLoader(_language_file)]),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.i18n", FoldGettext],
        auto_reload=False,  # templates are part of the release: compiled once per process
        cache_size=-1,  # and kept in a plain dict: no LRU (its lock and reordering) per include
    )
    translate.install_jinja(env, lang)
    env.extend(fold_gettext=translations(lang).gettext)  # before any compile

    env.filters["cmd"] = command_words
    # a sentence the service stored in English (a game's end reason): the catalogue's
    env.filters["said"] = translations(lang).gettext
    return env


_env = env_for("en")


def warm() -> int:
    """Compile every email template in every language now; returns how many. A worker's
    parent process calls it before forking its pool (``workers.app``), so no child pays
    the compiling (a fifth of its first messages' render) and they share the code."""
    names = sorted(f"email/{p.name}" for p in (TEMPLATES / "email").iterdir()
                   if p.suffix in (".txt", ".html"))
    for lang in languages():
        env = env_for(lang)
        for name in names:
            env.get_template(name)
    return len(names) * len(languages())


def render_text(model: Mapping[str, Any]) -> str:
    text = env_for(translate.current()).get_template("email/message.txt").render(**model)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


#: the email stylesheet (``templates/email/message.css``), given to one inliner once per
#: process: the HTML carries no ``<style>`` for css_inline to find, parse and drop each time
_INLINER = css_inline.CSSInliner(extra_css=(TEMPLATES / "email" / "message.css").read_text())


def inline_css(html: str) -> str:
    """``html`` with the email stylesheet inlined into its elements' ``style`` attributes
    (the same bytes as css_inline given the stylesheet as a ``<style>`` element in the
    head)."""
    return _INLINER.inline(html)


def render_html(model: Mapping[str, Any]) -> str:
    return inline_css(
        env_for(translate.current()).get_template("email/message.html").render(**model))


#: The sections of an email, in order, by kind (templates/email/_<section>.txt / .html).
SECTIONS: dict[MessageKind, tuple[str, ...]] = {
    MessageKind.INVITATION: ("invitation",),
    MessageKind.GAME_STARTED: ("started", "awaited", "secrets", "board"),
    MessageKind.PROMPT: ("awaited", "talk", "recap", "secrets", "board"),
    MessageKind.NOTICE: ("recap", "awaited", "board"),
    MessageKind.VOTE_RESULT: ("vote_result", "recap", "board"),
    MessageKind.REMINDER: ("awaited", "policy", "talk", "recap", "secrets", "board"),
    MessageKind.FINAL_WARNING: ("policy", "awaited", "talk", "recap", "secrets", "board"),
    MessageKind.TIMED_OUT: ("timed_out", "recap", "board"),
    MessageKind.PAUSED: ("paused",),
    MessageKind.RESUMED: ("resumed", "awaited", "secrets", "board"),
    MessageKind.SEAT_REPLACED: ("replaced", "awaited", "secrets", "recap", "board"),
    MessageKind.TABLE_TALK: ("table_talk",),
    MessageKind.REPLY: ("reply", "help", "log", "awaited"),
    MessageKind.STATUS: ("awaited", "talk", "secrets", "board", "recap"),
    MessageKind.GAME_OVER: ("game_over", "recap", "board"),
}


def sections_of(ctx: MessageContext, model: Mapping[str, Any]) -> tuple[str, ...]:
    """The email sections of this message (``SECTIONS``, adjusted by its payload)."""
    kind, payload = ctx.kind, ctx.payload
    if kind in (MessageKind.REMINDER, MessageKind.FINAL_WARNING) and asks_to_join(payload):
        return ("invitation",)
    if isinstance(payload, SeatReplaced):
        if payload.you_were_replaced:
            return ("left",)
        if not (payload.briefing and model["me"]):
            return ("recap", "awaited")
    if kind is MessageKind.TIMED_OUT and not model["timed_out_you"]:
        return ("recap", "awaited", "board")
    sections = SECTIONS.get(kind, ())
    if isinstance(payload, GameOver) and payload.unmasking:  # pbm.games.unmasking
        sections = (*sections[:1], "unmasking", *sections[1:])
    if isinstance(payload, Reply) and payload.brief:  # a person who keeps failing
        return ("reply",)
    if kind is MessageKind.REPLY and model["answers"]:
        sections = ("answers", *sections)
    if ctx.common.vote_ledger and "board" in sections:  # pbm.vote_ledger, before the board
        at = sections.index("board")
        sections = (*sections[:at], "ledger", *sections[at:])
    if isinstance(payload, Prompt) and payload.started:
        sections = ("started", *sections)
    if model["me"] is None:
        sections = tuple(x for x in sections if x not in ("secrets", "started", "replaced"))
    return sections
