"""The message model one template render sees: the payload's fields as the templates show
them (``msg``), the recap, the vote result, refusals in player words, folded notes, the
headline and inbox preview."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from typing import Any

from engine.events import DecisionKind
from pbm.i18n.languages import SOURCE_LANGUAGE
from pbm.i18n.translate import N_, _, current
from pbm.message_payloads import (
    Common,
    GameOver,
    Invitation,
    Notice,
    Paused,
    Reminder,
    Reply,
    Resumed,
    SeatReplaced,
    TableTalk,
    TimedOut,
    VoteResult,
    asks_to_join,
)
from pbm.messages import MessageContext, MessageKind, board_content_id, board_image_key
from pbm.render import event_lines, mail_words
from pbm.render.board import awaited_model, board_model, me_model
from pbm.render.ending import ending
from pbm.render.names import (
    HELP_FILES,
    SYMBOL_NAMES,
    command_words,
    format_deadline,
    game_word,
    help_file,
    subject_for,
    title_label,
)
from pbm.render.news import CARDS, all_cards_lines, card_effect, card_line, news, voice
from pbm.render.reasons import say_done, say_note, say_reason
from pbm.render.refusals import plain_reason
from pbm.render.setting_words import english, say_answer, say_notice
from pbm.replies.extract import REPLY_MARKER
from pbm.replies.menu import display_command

#: Events left out of recaps (noise there; LOG still lists them).
RECAP_SKIP = frozenset({"event.refilled", "vote.cast", "turn.started"})
RECAP_LIMIT = 25


def recap(events: Sequence[Mapping[str, Any]], limit: int = RECAP_LIMIT,
          reader: int | None = None, names: Mapping[int, str] | None = None,
          explained: set[str] | None = None) -> dict[str, Any]:
    """Event lines for "since your last message", in the reader's words
    (``pbm.render.news``): text, private flag, the effects of cards first named; the
    oldest dropped."""
    kept = [e for e in events if e.get("kind") not in RECAP_SKIP]
    lines = [{"text": n["text"], "private": n["private"], "kind": n["kind"],
              "cards": n["cards"], "priority": n["priority"], "seq": n["seq"],
              "cause_seq": n["cause_seq"]}
             for n in news(kept, reader, names or {}, explained=explained)]
    dropped = max(0, len(lines) - limit)
    return {"lines": lines[dropped:], "dropped": dropped}


def _vote_result(events: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    for e in reversed(events):
        if e.get("kind") == "vote.result":
            data = e.get("data") or {}
            counts = data.get("counts") or {}
            if current() != SOURCE_LANGUAGE:  # the engine's sentence is English
                said = voice(e, None, {})
                symbol = {k: game_word("symbols", k, k) for k in SYMBOL_NAMES}
                return {
                    "text": said[1] if said else "",
                    "vote": game_word("actions", str(data.get("vote", "")),
                                      str(data.get("vote", "")).capitalize()),
                    "outcome": str(data.get("outcome", "")).lower(),
                    "symbols": [symbol.get(s, s) for s in data.get("symbols") or []],
                    "counts": {symbol.get(k, k): v for k, v in sorted(counts.items())},
                    "cards": [mail_words.described(c)
                              for c in data.get("cards") or data.get("revealed") or []],
                }
            return {
                "text": e["text"],
                "vote": str(data.get("vote", "")).capitalize(),
                "outcome": str(data.get("outcome", "")).lower(),
                "symbols": [SYMBOL_NAMES.get(s, s) for s in data.get("symbols") or []],
                "counts": {SYMBOL_NAMES.get(k, k): v for k, v in sorted(counts.items())},
                "cards": list(data.get("cards") or data.get("revealed") or []),
            }
    return None


#: The payload fields the section templates read (``msg``; None where a kind has none).
_TEMPLATE_FIELDS = (
    "inviter", "message", "respond_by", "reason", "policy", "if_silent", "grace", "why",
    "paused", "paused_for", "old_name", "new_name", "aborted", "unmasking", "unmasking_chart",
    "vote_ledger",
)


def template_fields(ctx: MessageContext, names: Mapping[int, str]) -> dict[str, Any]:
    """What the section templates show of the payload (``msg``): durations as text, the
    unmasking and the vote ledger in the reader's words (``mail_words``)."""
    p = ctx.payload
    msg: dict[str, Any] = dict.fromkeys(_TEMPLATE_FIELDS)
    msg.update(players=[], timing={}, speaker="", text="")
    if isinstance(p, Invitation):
        msg.update(inviter=p.inviter, message=p.message, players=[n for n in p.players if n],
                   timing={k: _hours_text(v) for k, v in asdict(p.timing).items() if v}
                   if p.timing else {},
                   respond_by=_hours_text(p.respond_by_hours) if p.respond_by_hours else None)
    elif isinstance(p, Reminder):
        msg.update(policy=p.policy, if_silent=p.if_silent,
                   grace=_hours_text(p.grace_hours) if p.grace_hours else None)
    elif isinstance(p, TimedOut):
        msg.update(why=p.why, paused=p.paused)
    elif isinstance(p, Paused):
        msg.update(reason=p.reason)
    elif isinstance(p, Resumed):
        msg.update(reason=p.reason,
                   paused_for=_hours_text(p.paused_hours) if p.paused_hours else None)
    elif isinstance(p, SeatReplaced):
        msg.update(old_name=p.old_name, new_name=p.new_name)
    elif isinstance(p, TableTalk):
        msg.update(speaker=p.speaker or _("A player"), text=p.text)
    elif isinstance(p, GameOver):
        msg.update(aborted=p.aborted, reason=p.reason, unmasking_chart=p.unmasking_chart,
                   unmasking=mail_words.story(p.unmasking, names) if p.unmasking else None)
    if ctx.common.vote_ledger:
        msg["vote_ledger"] = mail_words.ledger(list(ctx.common.vote_ledger))
    return msg


def _reply_moves(ctx: MessageContext, reply: Reply) -> tuple[list[Any], list[Any]]:
    """(done, rejected) of a REPLY: as given, else from the service's own ``Result``."""
    result, view = reply.result, ctx.seat_view
    done: list[Any] = list(reply.done or ())
    rejected: list[Any] = list(reply.rejected or ())
    if reply.done is None and result is not None:
        done = [display_command(str(c), view) for c in result.get("done") or []]
    if reply.rejected is None and result is not None:
        rejected = [{"command": display_command(str(r.get("command", "")), view),
                     "reason": r.get("why") or str(r.get("reason", ""))}
                    for r in result.get("not_done") or []]
    return done, rejected


def _hours_text(amount: Any) -> str:
    """A number of hours from the message's JSON as a duration (anything else as it is)."""
    try:
        value = float(amount)
    except (TypeError, ValueError):
        return str(amount)
    return mail_words.hours_text(value)


def visible_events(ctx: MessageContext) -> list[dict[str, Any]]:
    """The context's events this recipient may see (defence in depth: the service filters
    already; an event for other seats never reaches a template)."""
    out = []
    for event in ctx.events:
        audience = event.get("audience")
        if audience is None or (ctx.seat is not None and ctx.seat in audience):
            out.append(event)
    return out


def build_model(ctx: MessageContext) -> dict[str, Any]:
    if ctx.seat_view is not None and ctx.seat is not None and ctx.seat_view["seat"] != ctx.seat:
        raise ValueError(f"the seat view of seat {ctx.seat_view['seat']} was given for a "
                         f"message to seat {ctx.seat}")
    events = visible_events(ctx)
    if len(events) != len(ctx.events):
        ctx = replace(ctx, events=events)
    view = ctx.seat_view
    public = view["public"] if view else None
    payload, common = ctx.payload, ctx.common
    asked = payload if isinstance(payload, Reply) else Reply()
    reply = asked.reply
    done, rejected = _reply_moves(ctx, asked)
    result_event = payload.result if isinstance(payload, VoteResult) else None
    names = {p["seat"]: p["name"] for p in public["players"]} if public else {}
    explained: set[str] = set()  # Event cards explained once per message (pbm.render.news)
    outcome = _outcome(ctx, names, explained)
    outcome_seqs = {line["seq"] for line in outcome}
    if isinstance(result_event, Mapping) and result_event.get("audience") is not None:
        result_event = None
    model: dict[str, Any] = {
        "ctx": ctx,
        "kind": ctx.kind.value,
        "game": ctx.game_name,
        "player": ctx.player_name,
        "msg": template_fields(ctx, names),
        "marker": _marker(),
        "lang": current(),
        "board": board_model(public, view) if public else None,
        "board_cid": board_content_id(board_image_key(ctx.game_id, public["version"],
                                                      ctx.language))
        if public else None,
        "me": me_model(view) if view else None,
        "awaited": awaited_model(view) if ctx.kind is not MessageKind.GAME_OVER else None,
        "deadline": format_deadline(ctx.deadline, ctx.time_zone, ctx.now),
        "time_zone": ctx.time_zone,
        "recap": recap([e for e in ctx.events if not (
            ctx.kind is MessageKind.VOTE_RESULT and e.get("kind") == "vote.result")
            and e.get("seq") not in outcome_seqs],
            reader=ctx.seat, names=names, explained=explained),
        "outcome": outcome,
        "vote_result": _vote_result(
            [*ctx.events, result_event] if isinstance(result_event, Mapping) else ctx.events),
        "table_talk": [{"name": t.name, "text": t.text} for t in common.table_talk],
        "reply": {
            "understood": reply.get("understood") or [],
            "meta": reply.get("meta") or [],
            "not_understood": reply.get("not_understood") or [],
            # a question is no greeting: listed as a question, with where answers are
            "questions": [x for x in reply.get("ignored") or [] if is_question(str(x))],
            "ignored": [x for x in reply.get("ignored") or [] if not is_question(str(x))],
        },
        "done": [say_done(d) for d in done],
        "rejected": rejected,
        "help": asked.help,
        "help_file": None if asked.help is None
        else help_file(HELP_FILES.get(asked.help.upper(), "general")),
        "help_cards": help_cards(asked.help),
        "help_title": help_title(asked.help),
        "show_log": asked.log,
        "log_events": log_events(ctx, names),
        "reply_to": common.reply_to,
        "question": common.question,  # the footer's "Ref: Q12.3" (pbm.inbound.answered)
        "played": display_command(payload.played, view)
        if isinstance(payload, TimedOut) and payload.played else None,
        "timed_out_you": payload.you if isinstance(payload, TimedOut) else True,
        # settings (pbm.player_settings), in the reader's words (pbm.render.setting_words)
        "answers": [say_answer(a) for a in asked.answers],
        "subject": subject_for(ctx.game_name),  # one-tap mailto: buttons reply in thread
    }
    model["viewed"] = viewed_cards(model) if ctx.kind is MessageKind.REPLY else []
    model["ending"] = ending(ctx.events, ctx.seat, names, model["board"]) if (
        isinstance(payload, GameOver) and not payload.aborted) else None
    board = model["board"]
    if board and board.get("end_reason"):  # the service's English, in the reader's words
        board["end_reason"] = _(str(board["end_reason"]))
    if ctx.kind is MessageKind.REPLY:
        model["rejected"] = [
            {**r, "reason": plain_reason(str(r["command"]), r["reason"], view,
                                         model["awaited"], model["board"])}
            for r in model["rejected"]]
        model["reply"]["understood"] = [
            {**u, "note": say_note(u["note"])} if isinstance(u, Mapping) and u.get(
                "note") else u for u in model["reply"]["understood"]]
        model["reply"]["not_understood"] = [
            {**n, "reason": say_reason(n["reason"])} if isinstance(n, Mapping) and n.get(
                "reason") else n for n in model["reply"]["not_understood"]]
    if ctx.kind is MessageKind.REPLY:
        model["hints"] = reply_hints(model)
        if model["hints"]:  # a hint answers the line better than a guessed command
            model["reply"]["not_understood"] = [
                {**n, "suggestion": None} for n in model["reply"]["not_understood"]]
    else:
        model["hints"] = []
    model["folded"] = _folded_notes(common, view)
    awaited = model["awaited"]  # the Event row's cards answer REVEAL n with one tap
    model["reveal_taps"] = bool(common.reply_to and awaited and any(
        o.verb == "REVEAL" for o in awaited["menu"]))
    model["headline"] = _headline(ctx, model)
    model["preview"] = _preview(model)
    return model


_PASS = re.compile(r"\b(pass|skip|no action|nothing)\b")
_FINAL = re.compile(r"\b(undo|cancel|take (it )?back|meant|mistake|wrong one|change (it|my)|"
                    r"instead)\b")
_OPTIONS = re.compile(r"\b(options?|choices|what can i|what do i|what should i|how do i|"
                      r"what now|menu)\b")


def is_question(line: str) -> bool:
    """True for a line that asks something ("What does the Albatross do?")."""
    return line.rstrip().endswith(("?", "\uff1f"))


def reply_hints(model: Mapping[str, Any]) -> list[str]:
    """Answers to lines a newcomer writes that are no command ("pass", "undo", "sorry I
    meant 2", "cancel", "what are my options"): what the game allows instead."""
    reply = model["reply"]
    lines = [str(n.get("line", "")) for n in reply["not_understood"]]
    lines += [str(x) for x in [*reply["ignored"], *reply["questions"]]]
    text = " ".join(lines).lower()
    awaited = model["awaited"]
    hints = []
    if _FINAL.search(text):
        payload = model["ctx"].payload
        last = payload.last_applied if isinstance(payload, Reply) else None
        hints.append((_("Your last move, {last}, was applied and is final: the rules allow no "
                        "take-backs.").format(last=command_words(str(last))) if last else
                      _("A move once applied is final: the rules allow no take-backs."))
                     + (_(" Your next choice is below.") if awaited else ""))
    if _PASS.search(text):
        hints.append(_("There is no passing: on your turn you take one action.")
                     if awaited and awaited["kind"] == DecisionKind.ACTION else
                     _("There is no passing: answer what is awaited, or wait for your turn."))
    if _OPTIONS.search(text) and not hints:
        hints.append(_("Your options are below: reply with one of them, or its number.")
                     if awaited else _("Nothing is awaited from you now; reply STATUS for "
                                       "the board."))
    return hints


def help_cards(topic: Any) -> list[str]:
    """The Event card effects a HELP asks for: all of them (HELP CARDS / EVENTS), or the one
    card named (HELP ALBATROSS, HELP black spot); from the engine's card table."""
    if topic is None:
        return []
    topic = str(topic).strip()
    if topic.upper() in ("CARDS", "EVENTS", "CARD", "EVENT"):
        return all_cards_lines()
    if topic.upper() in HELP_FILES:  # a command word (HELP ATLANTIS is also a card)
        line = card_line(topic) if topic.upper() == "ATLANTIS" else ""
        return [line] if line else []
    line = card_line(topic)
    return [line] if line else []


#: HELP topics that are no command, in the reader's words (the heading of a HELP answer).
_HELP_TITLES = {"CARDS": N_("cards"), "EVENTS": N_("cards"), "TURN": N_("turn"),
                "ACTIONS": N_("turn"), "RANKS": N_("turn"), "TALK": N_("talk"),
                "VOTES": N_("vote"), "SETTINGS": N_("settings")}


def help_title(topic: Any) -> str:
    """The HELP topic as the reader reads it ("CARDS"; a Korean reader: "카드")."""
    if topic is None:
        return ""
    text = str(topic)
    if current() == SOURCE_LANGUAGE:  # as the player wrote it
        return text
    key = text.strip().upper()
    if key in _HELP_TITLES:
        return _(_HELP_TITLES[key])
    found = card_effect(text)
    if found is not None and key not in HELP_FILES:
        return str(title_label(next(code for code, (name, _e) in CARDS.items()
                                    if name == found[0])))
    return command_words(key)


def log_events(ctx: MessageContext, names: Mapping[int, str]) -> list[Mapping[str, Any]]:
    """The events LOG lists, each with its ``text`` in the reader's language (English: the
    engine's sentences as they are; any other: ``pbm.render.event_lines``)."""
    if current() == SOURCE_LANGUAGE:
        return list(ctx.events)
    return [{**e, "text": event_lines.line(e, ctx.seat, names).text} for e in ctx.events]


def _outcome(ctx: MessageContext, names: Mapping[int, str],
             explained: set[str]) -> list[dict[str, Any]]:
    """What the reader's own move did, for the answer to it (REPLY): the events of the
    applied commands that this seat may see (``Result.events``), the reader's own first."""
    result = ctx.payload.result if isinstance(ctx.payload, Reply) else None
    if result is None:
        return []
    events = [e for e in result.get("events") or [] if isinstance(e, Mapping) and (
        e.get("audience") is None or ctx.seat in (e.get("audience") or ()))]
    lines = news([e for e in events if e.get("kind") not in RECAP_SKIP or (
        e.get("kind") == "vote.cast" and e.get("audience") is not None)],
        ctx.seat, names, explained=explained)
    return sorted(lines, key=lambda line: line["priority"])


def _marker() -> str:
    """The line above which a reply is read. Another language adds its words after the
    English ones, so the reply parser finds it as it finds the English marker
    (``pbm.replies.quote_patterns``: "--- Reply above this line" starts the line)."""
    if current() == "en":
        return REPLY_MARKER
    words = _("reply above this line")
    return f"{REPLY_MARKER.removesuffix(' ---')} · {words} ---"


def _folded_notes(common: Common, view: Mapping[str, Any] | None) -> list[str]:
    """Sentences folded in from what would have been a message of its own (an
    acknowledgement, a timeout notice): see ``pbm.outbox.fold_into_next``."""
    notes = []
    if common.timed_out:
        played = _("a Vote card") if common.timed_out_secret else \
            command_words(display_command(common.timed_out, view))
        notes.append(_("Time ran out: {played} was played for you.").format(played=played))
    if common.read_as:
        notes.append(_("We read your reply as {commands}.").format(commands="; ".join(
            command_words(c) for c in common.read_as)))
    return notes


def _preview(model: Mapping[str, Any]) -> str:
    """The inbox preview: what is needed and by when ("Your turn: choose one action by
    Tue 18 Mar 18:00 CET"), else the headline."""
    headline = str(model["headline"]).rstrip(".")
    deadline = model["deadline"]
    awaited = model["awaited"]
    if awaited and model["kind"] != MessageKind.GAME_OVER.value:
        needed = str(awaited["headline"]).rstrip(".")
        if needed not in headline:  # an answer or a notice: then what is still needed
            headline = f"{headline}. {needed}"
        return f"{headline}. {deadline['sentence'].rstrip('.')}" if deadline else headline
    return headline


def _headline(ctx: MessageContext, m: Mapping[str, Any]) -> str:
    kind, p = ctx.kind, ctx.payload
    awaited = m["awaited"]
    if asks_to_join(p):
        prefix = {MessageKind.REMINDER: _("Reminder: "),
                  MessageKind.FINAL_WARNING: _("Last call: ")}.get(kind, "")
        return prefix + _("You are invited to play Tortuga 1667: game {game}").format(
            game=ctx.game_name)
    if kind is MessageKind.GAME_STARTED:
        return _("Game {game} has started").format(game=ctx.game_name)
    if kind in (MessageKind.PROMPT, MessageKind.STATUS, MessageKind.REMINDER,
                MessageKind.FINAL_WARNING, MessageKind.RESUMED) and awaited:
        prefix = {MessageKind.REMINDER: _("Reminder: "),
                  MessageKind.FINAL_WARNING: _("Last call: ")}.get(kind, "")
        return prefix + str(awaited["headline"])
    if kind is MessageKind.STATUS:
        return _("Nothing is awaited from you right now")
    if isinstance(p, Notice):
        said = [line for line in m["recap"]["lines"]  # a card told with its effect: both
                if p.headline_seq is not None
                and p.headline_seq in (line["seq"], line.get("cause_seq"))]
        if said:  # the event in the reader's words (``pbm.render.news``)
            return str(said[0]["text"]).rstrip(".")
        lines = m["recap"]["lines"]
        if p.digest and current() != "en" and lines:  # counted, then the latest
            return _("{count} new events; latest: {latest}").format(
                count=len(lines), latest=str(lines[-1]["text"]).rstrip("."))
        if p.headline:  # a notice the service wrote, in the reader's words
            told = say_notice(p.headline)
            if told is not None:
                return told
            if current() == "en" or not lines:
                return english(p.headline)
            return str(lines[-1]["text"]).rstrip(".")  # the event it tells, as news says it
        return m["recap"]["lines"][-1]["text"] if m["recap"]["lines"] else _(
            "News from your game")
    if kind is MessageKind.VOTE_RESULT:
        vr = m["vote_result"]
        return vr["text"] if vr else _("The vote is over")
    if isinstance(p, TimedOut):
        if not p.you:
            who = p.who or _("A player")
            if m["played"]:
                return _("{who} ran out of time: {move} was played for them").format(
                    who=who, move=command_words(str(m["played"])))
            return _("{who} ran out of time").format(who=who)
        if m["played"]:
            return _("Time ran out: {move} was played for you").format(
                move=command_words(str(m["played"])))
        if p.paused:
            return _("Time ran out: the game is paused")
        return _("Time ran out: a default answer was played for you")
    if kind is MessageKind.PAUSED:
        return _("Game {game} is paused").format(game=ctx.game_name)
    if kind is MessageKind.RESUMED:
        return _("Game {game} is running again").format(game=ctx.game_name)
    if isinstance(p, SeatReplaced):
        if p.you_were_replaced:
            return _("You have left game {game}").format(game=ctx.game_name)
        if p.briefing and m["me"]:
            return _("Welcome aboard: you take over a seat in game {game}").format(
                game=ctx.game_name)
        new = p.new_name or _("A new player")
        return _("{new} takes over {old}'s seat").format(new=new, old=p.old_name or _("a seat"))
    if kind is MessageKind.TABLE_TALK:
        return _("{name} says").format(name=m["msg"]["speaker"])
    if isinstance(p, Reply):
        if m["answers"] and not (m["done"] or m["rejected"]):
            return settings_headline([english(a) for a in p.answers])
        if m["viewed"]:
            return _("You saw {cards}").format(cards=_(" and ").join(
                _("card {n}: {title}").format(n=c["position"], title=c["title"])
                for c in m["viewed"]))
        if m["done"]:
            return _("Done: {moves}").format(moves="; ".join(command_words(d)
                                                            for d in m["done"]))
        if p.brief:
            return _("Still not understood: nothing was changed")
        if m["rejected"] or m["reply"]["not_understood"]:
            return _("Nothing was changed")
        return _("Your reply")
    if isinstance(p, GameOver):
        board = m["board"]
        if p.aborted:
            return _("The game was stopped")
        if board and board["winner_name"]:
            return _("Game over: the {team} win").format(team=board["winner_name"])
        return _("Game over")
    return _("Game {game}").format(game=ctx.game_name)


def settings_headline(answers: Sequence[str]) -> str:
    """The subject line of an answer to settings: ``Your settings`` or ``Set: ZONE, VIA``."""
    verbs = [a.split(" ", 1)[0].rstrip(":") for a in answers]
    return _("Your settings") if verbs == ["SETTINGS"] else _("Set: {settings}").format(
        settings=", ".join(verbs))


def viewed_cards(model: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The Event cards a VIEW in this reply showed the player (from its own seat view)."""
    me = model["me"]
    if not me:
        return []
    known = {p["position"]: p["title"] for p in me["peeks"]}
    out = []
    for done in model["done"]:
        words = str(done).split()
        if words and words[0].upper() == "VIEW":
            out += [{"position": int(w), "title": known[int(w)]}
                    for w in words[1:] if w.isdigit() and int(w) in known]
    return out
