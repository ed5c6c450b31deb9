"""The SMS form of a message: one text per kind, STATUS and LOG in two, the short HELP and
the answer to a reply; 2 segments each (GSM-7, or UCS-2 where the language says so).

The wording of each kind is in ``templates/sms/<name>.txt`` (:func:`sms_words`: for each
part of the text its wordings, longest first); this module chooses what to say and fits
it (``fit_sms``: the longest wording that fits, parts in priority order), with the news
(``sms_news``), the menu (``sms_menu``) and the board (``sms_board``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pbm.i18n import translate
from pbm.i18n.languages import traits
from pbm.message_payloads import GameStarted, Prompt, Reminder, Reply, asks_to_join
from pbm.messages import MessageContext, MessageKind
from pbm.render.email import TEMPLATES, env_for
from pbm.render.gsm7 import (
    SMS_MAX_KO_UNITS,
    SMS_MAX_SEPTETS,
    fit_sms,
    gsm7_septets,
    relay_sms,
    to_gsm7,
    utf16_units,
)
from pbm.render.model import RECAP_SKIP, help_cards
from pbm.render.names import (
    HELP_FILES,
    help_file,
    short_game,
    short_name,
)
from pbm.render.names import command_words as _command_words
from pbm.render.refusals import nothing_awaited
from pbm.render.sms_board import sms_board, sms_card
from pbm.render.sms_menu import numbers_and_verbs, sms_options, vote_hand
from pbm.render.sms_news import (
    STARTED_KIND,
    explain_ships,
    fit_with_news,
    news_left_out,
    news_parts,
    said_by_prompt,
    ship_legend,
)


def _sms_awaited(model: Mapping[str, Any], heads: Sequence[str], words: Any) -> str:
    """A prompt by SMS: ``heads`` (the game's name and what comes before the prompt, e.g.
    the game-start facts; longest first, one always kept), the news, what is awaited, the
    menu, the face-down row, the deadline (always) and the pointer to more; ``words``:
    its sentences (``templates/sms/awaited.txt``)."""
    awaited = model["awaited"]
    deadline = model["deadline"]
    # a prompt never drops its deadline: its short form at least (``By Tue 18:00 UTC.``)
    by = [deadline["sentence"], words.by] if deadline else [""]
    menu = awaited["menu"]
    hand = vote_hand(model)
    info = awaited["sms_info"]
    reply = words.reply
    options = [
        reply + sms_options(menu, None, False, hand),
        reply + sms_options(menu, 10, False, hand),
        reply + sms_options(menu, 6, False, hand),
        reply + sms_options(menu, 6, True, hand),
        words.no_menu,
    ]
    head_alts = [awaited["sms_head"], awaited["sms_head"][:60]]
    language = traits(translate.current())
    if language.sms_terse_menus:  # shorter forms before giving up the menu
        options[-1:-1] = [reply + sms_options(menu, 4, True, hand),
                          reply + numbers_and_verbs(menu)]
        head_alts = [awaited["sms_head"], awaited["sms_short"] or awaited["sms_head"][:40]]
    payload = model["ctx"].payload  # "Game on!" says the game has begun
    started = isinstance(payload, Prompt | GameStarted) and payload.started
    said = said_by_prompt(model)
    lines = [line for line in model["recap"]["lines"] if line["seq"] not in said
             and not (started and line["kind"] == STARTED_KIND)]
    news, news_order, news_rank = news_parts(lines, model["table_talk"])
    left_out = news_left_out(lines, model["table_talk"]) + model["recap"]["dropped"]
    legend = ship_legend(" ".join([*heads[:1], head_alts[0], options[0], info]))
    parts = [
        list(heads),
        *news,
        head_alts,
        options,
        [f"({legend})" if legend else "", ""],
        [info, info[:80], ""],
        by,
        [words.more_news if news else words.more, words.all],
    ]
    n = len(news)
    at_head, at_menu, at_legend, at_info, at_by, at_more = range(n + 1, n + 7)
    urgent = [1 + k for k in news_order if news_rank[k] < 3]  # the reader's own, talk
    first = (at_menu, at_head) if language.sms_menu_first else (at_head, at_menu)
    # the deadline's short form is always kept (a part without ""), its sentence after the
    # menu; the face-down row before the news; FD/JR spelled out before the news where the
    # language says so (Korean has the room: KO_SMS_PARTS), else after it
    early, late = ((at_legend,), ()) if language.sms_legend_first else ((), (at_legend,))
    priority = (*first, at_by, 0, at_more, at_info, *early, *urgent,
                *[1 + k for k in news_order if news_rank[k] >= 3], *late)
    return fit_with_news(parts, range(1, n + 1), left_out, priority)


def sms_words(name: str, **values: Any) -> Any:
    """``templates/sms/<name>.txt`` rendered with ``values`` in the reader's language: a
    module whose variables are the sentences (``parts``: for each part of the text its
    wordings, longest first, for ``fit_sms``)."""
    template = env_for(translate.current()).get_template(f"sms/{name}.txt")
    return template.make_module(values) if values else template.module  # macros only


def _sms(ctx: MessageContext, model: Mapping[str, Any]) -> str:
    """The one SMS of a message (STATUS has its own two: ``_sms_status``): at most 2
    segments, the game named, STATUS for the full picture."""
    kind, payload = ctx.kind, ctx.payload
    msg = model["msg"]
    game = short_game(ctx.game_name)
    head = sms_words("common").head(game)
    awaited = model["awaited"]
    me = model["me"]
    if asks_to_join(payload):
        return fit_sms(sms_words(
            "invitation", inviter=short_name(msg["inviter"], 20) if msg["inviter"] else None,
            players=msg["players"], again=kind is not MessageKind.INVITATION, game=game,
            deadline=model["deadline"], time_zone=model["time_zone"]).parts)
    if kind is MessageKind.TABLE_TALK:
        said = sms_words("table_talk", head=head, speaker=short_name(str(msg["speaker"]), 20))
        return relay_sms(said.said, str(msg["text"]), said.answer, said.cut)
    if kind is MessageKind.PAUSED:
        return fit_sms(sms_words("paused", head=head, reason=msg["reason"]).parts)
    if kind is MessageKind.REPLY:
        return _sms_reply(model, head)
    if awaited and kind in (MessageKind.PROMPT, MessageKind.REMINDER,
                            MessageKind.FINAL_WARNING, MessageKind.RESUMED,
                            MessageKind.SEAT_REPLACED, MessageKind.GAME_STARTED,
                            MessageKind.NOTICE):
        start = _sms_start(me) if me else None
        words = sms_words("awaited", kind=kind.value, me=me, start=start.long if start else "",
                          deadline=model["deadline"], if_silent=payload.if_silent_sms
                          if isinstance(payload, Reminder) else None)
        prefixes = [words.prefix]
        if start and (kind is MessageKind.GAME_STARTED or (
                isinstance(payload, Prompt) and payload.started)):
            # the first prompt of a seat that must act at once (the Captains placing the
            # starting treasure) carries the game-start facts: its team above all
            prefixes = [start.long, start.short]
        folded = " ".join(model["folded"])
        return _sms_awaited(model, [" ".join(x for x in (head, folded, p + words.silent) if x)
                                    for p in prefixes], words)
    if kind is MessageKind.GAME_STARTED and me:
        return fit_sms(sms_words("game_started", head=head, me=me,
                                 start=_sms_start(me).long).parts)
    if kind is MessageKind.TIMED_OUT:
        return fit_sms(sms_words("timed_out", head=head, played=model["played"]).parts)
    if kind is MessageKind.GAME_OVER:
        return _sms_game_over(model, head)
    if kind in (MessageKind.VOTE_RESULT, MessageKind.NOTICE):
        return _sms_news(model, head)
    return fit_sms(sms_words("other", head=head, headline=model["headline"]).parts)


def _sms_news(model: Mapping[str, Any], head: str) -> str:
    """A vote result or a notice by SMS: what happened to the reader, then the news."""
    vote_result = model["vote_result"] if model["kind"] == MessageKind.VOTE_RESULT else None
    first = vote_result["text"] if vote_result else model["headline"].rstrip(".") + "."
    lines = list(model["recap"]["lines"])
    # the headline's event stays where it happened (after its cause); told first only
    # when it is no news line
    at = next((k for k, line in enumerate(lines)
               if line["text"].rstrip(".") + "." == first), None)
    if at is not None:
        lines[at] = {**lines[at], "priority": -1}  # kept whatever else is dropped
    news, order, _ranks = news_parts(lines, model["table_talk"])
    left_out = news_left_out(lines, model["table_talk"]) + model["recap"]["dropped"]
    heads = [[first]] if at is None else []
    top = len(heads) + 1
    return fit_with_news([[head], *heads, *news, [sms_words("common").more(bool(news)), ""]],
                         range(top, len(news) + top), left_out,
                         priority=[*range(top), len(news) + top, *[top + k for k in order]])


def _sms_start(me: Mapping[str, Any]) -> Any:
    """The game-start facts (``long``, and ``short``: the cards without their sections)."""
    hand = " ".join(f"{c['number']}={sms_card(c['sections'])}" for c in me["hand"])
    return sms_words("start", me=me, hand=hand)


def _sms_game_over(model: Mapping[str, Any], head: str) -> str:
    """Game over by SMS: the result, the score, every loyalty unmasked, the winners named,
    the reader's own fate."""
    board = model["board"]
    loyalties = board["loyalties"] if board and board["loyalties"] else []
    teams = [", ".join(f"{short_name(x['name'], w)} {x['loyalty']}" for x in loyalties)
             for w in (20, 10, 6)] if loyalties else [""]
    told = model["ending"] or {}
    why = told.get("why") or ""
    words = sms_words("game_over", head=head, board=board, me=model["me"], teams=teams,
                      notes=" ".join(model["folded"]),  # "We read your reply as REVEAL 1."
                      result=model["headline"].rstrip(".") + ".",
                      cause=to_gsm7(told.get("cause") or ""), why=why,
                      short=told.get("short") or why)
    return fit_sms(words.parts, priority=words.priority)


# ------------------------------------------------------------------ SMS: STATUS, HELP, LOG

SMS_STATUS_PARTS = 2  # STATUS by SMS: at most this many messages of 2 segments each


def _sms_status(model: Mapping[str, Any], head: str) -> list[str]:
    """STATUS by SMS: the board, then the player's secrets and what is awaited."""
    me = model["me"]
    board_view = model["ctx"].seat_view["public"] if model["ctx"].seat_view else None
    if board_view is None:
        return [fit_sms([[head], [model["headline"]], ["HELP=how to play", ""]])]
    seat = me["seat"] if me else None
    board = [sms_board(board_view, seat, w, kept) for kept in (True, False)
             for w in (12, 8, 5)]
    n = SMS_STATUS_PARTS
    limit = SMS_MAX_SEPTETS  # a Korean reader's: SMS_MAX_KO_UNITS (fit_sms scales it)
    say = sms_words("picture")
    first = fit_sms([[say.board_head(head, n, board_view["turn_number"])],
                     [say.team(me["loyalty_name"]) if me else ""], board], limit=limit)
    secrets: list[list[str]] = [[say.own_head(head, n)]]
    if me:
        hand = " ".join(f"{c['number']}={sms_card(c['sections'])}" for c in me["hand"])
        secrets.append([say.hand(hand), say.short_hand(hand)])
        secrets.append([say.known(", ".join(f"{p['position']}={p['title']}"
                                            for p in me["peeks"]))])
        if me["kept"]:
            secrets.append([say.kept(", ".join(me["kept"])), ""])
    awaited = model["awaited"]
    deadline = model["deadline"]
    by = say.by(deadline["short"]) if deadline else ""
    if awaited:
        hand_map = vote_hand(model)
        awaited_now = awaited["sms_head"].rstrip(".:?!")
        secrets.append([f"{awaited_now}{by}.", f"{awaited_now[:60]}{by}."])
        reply = say.reply()
        secrets.append([reply + sms_options(awaited["menu"], None, False, hand_map),
                        reply + sms_options(awaited["menu"], 8, False, hand_map),
                        reply + sms_options(awaited["menu"], 6, True, hand_map),
                        say.no_menu()])
        if awaited["sms_info"]:
            secrets.append([awaited["sms_info"], ""])
    else:
        secrets.append([say.nothing_awaited() if board_view.get("vote")
                        else to_gsm7(nothing_awaited(model["board"], sentence=True))])
    secrets.append([say.log(), ""])
    return [first, fit_sms(secrets, limit=limit)]


def sms_help_texts(topic: str) -> list[str]:
    """The SMS help for ``topic``: one text, or two for HELP CARDS (the card commands,
    then every card's name and how to have one explained)."""
    cards = help_cards(topic)
    if len(cards) > 1:
        names = ", ".join(line.split(":", 1)[0] for line in cards)
        return [sms_help(topic), sms_words("common").cards_help(names)]
    return [sms_help(topic)]


def sms_help(topic: str) -> str:
    """The short SMS help for ``topic`` ("" for the general help); a card's name gives
    that card's effect (HELP ALBATROSS, from the engine's card table)."""
    cards = help_cards(topic)
    if len(cards) == 1:
        return str(sms_words("common").card_help(to_gsm7(cards[0])))
    name = HELP_FILES.get(topic.upper(), "general")
    path = TEMPLATES / "help" / f"{help_file(name, sms=True)}.txt"
    return path.read_text(encoding="utf-8").strip()


def _sms_log(model: Mapping[str, Any], head: str) -> list[str]:
    """LOG by SMS: the newest public events that fit in 2 messages, oldest first."""
    lines = [to_gsm7(e["text"]) for e in model["log_events"] if e.get("audience") is None
             and e.get("kind") not in RECAP_SKIP]
    messages: list[str] = []
    ucs2 = traits(translate.current()).sms_alphabet == "ucs2"
    size = utf16_units if ucs2 else gsm7_septets
    budget = (SMS_MAX_KO_UNITS if ucs2 else SMS_MAX_SEPTETS) - size(head) - 12
    for _part in range(SMS_STATUS_PARTS):
        chunk: list[str] = []
        while lines and size(" ".join([lines[-1], *chunk])) <= budget:
            chunk.insert(0, lines.pop())
        if not chunk:
            break
        messages.insert(0, " ".join(chunk))
    if not messages:
        return [fit_sms([[head], [sms_words("common").no_log()]])]
    n = len(messages)
    log = _command_words("LOG")
    return [fit_sms([[f"{head} {log}{f' ({i + 1}/{n})' if n > 1 else ''}:"], [text]])
            for i, text in enumerate(messages)]


def sms_messages(ctx: MessageContext, model: Mapping[str, Any]) -> list[str]:
    """Every SMS of one message: STATUS, and a reply asking for HELP or LOG, may take two
    (each at most 2 segments); everything else is one. FD and JR are spelled out once in
    each text that uses them, where that fits (``explain_ships``)."""
    return [explain_ships(text) for text in _sms_messages(ctx, model)]


def _sms_messages(ctx: MessageContext, model: Mapping[str, Any]) -> list[str]:
    head = sms_words("common").head(to_gsm7(short_game(ctx.game_name)))
    if ctx.kind is MessageKind.STATUS:
        return _sms_status(model, head)
    if ctx.kind is MessageKind.REPLY and (model["help"] is not None or model["show_log"]):
        reply = model["reply"]
        out = []
        if model["done"] or model["rejected"] or reply["not_understood"]:
            out.append(_sms_reply(model, head, hint=False))
        if model["help"] is not None:
            out += [fit_sms([[head], [text]]) for text in sms_help_texts(str(model["help"]))]
        if model["show_log"]:
            out += _sms_log(model, head)
        return out[:SMS_STATUS_PARTS + 1]
    return [_sms(ctx, model)]


def _sms_reply(model: Mapping[str, Any], head: str, hint: bool = True) -> str:
    reply = model["reply"]
    payload = model["ctx"].payload
    if isinstance(payload, Reply) and payload.brief:  # many replies that did nothing
        return fit_sms(sms_words("reply_brief", head=head).parts)
    say = sms_words("reply")
    parts: list[list[str]] = [[head]]
    for answer in model["answers"]:
        # the answer without its asides in brackets first (where the language says so)
        shorter = [re.sub(r" ?\([^()]*\)", "", answer)] \
            if traits(translate.current()).sms_drop_asides else []
        parts.append([answer, *shorter, answer[:150].rsplit(" ", 1)[0] + "..."])
    seen = model["viewed"] if not any(
        line["kind"] == "event.viewed" for line in model["outcome"]) else []
    if seen:
        cards = ", ".join(f"{c['position']}={c['title']}" for c in seen)
        parts.append([say.saw(cards)])
    if model["done"]:
        parts.append([say.done("; ".join(_command_words(d) for d in model["done"]))])
    outcome, outcome_order, _ranks = news_parts(model["outcome"], limit=6)
    first_outcome = len(parts)
    parts += outcome
    for item in model["rejected"][:1]:
        reason = str(item["reason"]).rstrip(".")
        command = _command_words(str(item["command"]))
        parts.append([say.not_done(command, reason),
                      say.not_done(command, reason.split(". ")[-1]), say.not_done(command)])
    for reader_hint in model["hints"]:
        parts.append([reader_hint, ""])
    for item in reply["not_understood"][:1]:
        line = short_name(item["line"], 30)
        did_you_mean = say.did_you_mean(_command_words(str(item["suggestion"]))) \
            if item.get("suggestion") else ""
        parts.append([say.not_understood(did_you_mean, line), say.not_understood(did_you_mean)])
    if reply["meta"] and not (model["done"] or model["rejected"] or reply["not_understood"]
                              or model["answers"]):
        names = ", ".join(_command_words(m["name"]) for m in reply["meta"])
        parts.append([say.ok(names)])
    awaited = model["awaited"]
    if awaited and awaited["kind"] == "ATLANTIS":  # optional: offered, never awaited
        parts.append([say.atlantis(), ""])
    elif awaited:
        hand = vote_hand(model)
        still = say.still()
        options = [
            still + sms_options(awaited["menu"], None, False, hand),
            still + sms_options(awaited["menu"], 10, False, hand),
            still + sms_options(awaited["menu"], 6, True, hand),
            say.no_menu(),
        ]
        parts.append(options)
    elif len(parts) == 1 and not outcome:  # "ok", "thanks": nothing read, nothing asked
        parts.append([to_gsm7(nothing_awaited(model["board"], sentence=True)), ""])
    if hint:
        parts.append([say.help(), ""])
    if not outcome:
        return fit_sms(parts)
    # what the move did comes right after the rest that must be said (done, not done, the
    # menu still awaited), the reader's own lines first; the HELP hint last
    others = [i for i in range(len(parts))
              if not first_outcome <= i < first_outcome + len(outcome)]
    main, last = others[:-1] if hint else others, others[-1:] if hint else []
    return fit_sms(parts, priority=[*main[:first_outcome],
                                    *[first_outcome + k for k in outcome_order],
                                    *main[first_outcome:], *last])
