"""One sentence per event, cause before effect, in the order things happened (issue 37):
every prompt and notice of random games of 2 to 9 players, by SMS and by email, in English
and in Korean, is checked line by line against the events it tells.

- every news line is told at most once in a message, and the lines appear in the order of
  their events (the engine writes a cause before its effect: a revealed Pistol before the
  shot, the shot before the marooning);
- a card and what it did to someone (a Letter of Marque and the move, a Pistol and the
  marooning) are one sentence, not two;
- what the prompt's own head says (the vote called, the forced choice, the Fountain of
  Youth's window, the action count) is not told again as news;
- no rule status ("Provisional", "임시 규칙") and no "You ... was" reach a player."""

from __future__ import annotations

import re
from typing import Any

from pbm.i18n.translate import reading
from pbm.messages import Channel, MessageContext, MessageKind
from pbm.render import render, to_gsm7
from pbm.render.model import build_model
from pbm.render.news import caused_pairs, news
from pbm.render.sms_news import said_by_prompt
from tests.fixtures.messages import with_fields
from tests.pbm.test_sms_equal_information import prompt_context, prompts_with_news

NEVER = re.compile(r"Provisional|provisional rule|임시 규칙|\bYou (was|has|is)\b|"
                   r"\bYou [^.:;]* and was\b")


def _flat(text: str) -> str:
    return " ".join(text.split())


def story_problems(ctx: MessageContext, lang: str) -> list[str]:
    """What is wrong with the story one message tells (empty: nothing)."""
    rendered = render(ctx, Channel.SMS)
    email = render(ctx, Channel.EMAIL).text
    problems = []
    with reading(lang):  # to_gsm7 keeps Hangul for a Korean reader only
        model = build_model(ctx)
        lines = [line for line in model["recap"]["lines"] if line["kind"] != "table.talk"]
        title = re.search(r"^=+$", email, re.M)  # the title names the news it is for
        body = _flat(email[title.end():] if title else email)
        texts = {"sms": rendered.sms or "", "email": body}
        said = said_by_prompt(model) if ctx.kind is MessageKind.PROMPT else set()
        for channel, text in texts.items():
            found = []
            for line in lines:
                line_text = _flat(to_gsm7(str(line["text"])) if channel == "sms"
                                  else str(line["text"]))
                count = text.count(line_text)
                if count > 1 and len(line_text) > 12:
                    problems.append(f"{channel}: told {count} times: {line_text}")
                if count:
                    found.append((text.index(line_text), line["seq"], line_text))
                if channel == "sms" and count and line["seq"] in said:
                    problems.append(f"sms: the prompt says it again: {line_text}")
            order = [seq for _at, seq, _t in sorted(found)]
            if order != sorted(order):
                problems.append(f"{channel}: not in the order things happened: "
                                f"{[t for _a, _s, t in sorted(found)]}")
            if NEVER.search(text):
                problems.append(f"{channel}: {NEVER.search(text)!r} in {text}")
    events = list(ctx.events)
    for effect, cause in caused_pairs(events).items():
        told = {line["seq"] for line in lines}
        if events[cause]["seq"] in told and events[effect]["seq"] in told:
            problems.append(f"a card and its effect told as two lines: {events[cause]['text']}")
    return problems


def _notice(ctx: MessageContext) -> MessageContext | None:
    """The notice of something that happened to the reader, with the same news."""
    mine = [e for e in ctx.events if (e.get("data") or {}).get("target") == ctx.seat
            or (e["kind"] == "pawn.marooned" and (e.get("data") or {}).get("seat") == ctx.seat)]
    if not mine:
        return None
    return with_fields(ctx, MessageKind.NOTICE, headline_seq=mine[-1]["seq"])


def test_every_message_tells_each_event_once_and_in_the_order_it_happened() -> None:
    problems: list[str] = []
    checked = 0
    for n in range(2, 10):
        for state, seat, events in prompts_with_news(n, 3800 + n):
            for lang in ("en", "ko"):
                ctx = prompt_context(state, seat, events, lang)
                for message in (ctx, _notice(ctx)):
                    if message is None:
                        continue
                    checked += 1
                    problems += [f"{lang} {message.kind.value}: {p}"
                                 for p in story_problems(message, lang)]
    assert checked > 1000
    assert not problems, f"{len(problems)} problems, e.g.:\n" + "\n".join(problems[:8])


def test_a_letter_of_marque_and_its_move_are_one_sentence_cause_first() -> None:
    names = {0: "Anne", 1: "Zed"}
    used = {"seq": 1, "kind": "card.used", "audience": None,
            "text": "Anne used a Letter of Marque on Zed for the Jolly Roger.",
            "data": {"seat": 0, "title": "LETTER_OF_MARQUE", "target": 1, "ship": "JR"}}
    moved = {"seq": 2, "kind": "pawn.moved", "audience": None,
             "text": "Zed moved from Tortuga to the Jolly Roger.",
             "data": {"seat": 1, "source": "TORTUGA", "to": "JR", "by": "LETTER_OF_MARQUE"}}
    assert [x["text"] for x in news([used, moved], 1, names)] == [
        "Anne used a Letter of Marque to move you from Tortuga to the Jolly Roger."]
    self_used = {**used, "text": "Zed used a Letter of Marque on Zed for the Jolly Roger.",
                 "data": {**used["data"], "seat": 1}}
    assert [x["text"] for x in news([self_used], 1, names)] == [
        "You used a Letter of Marque on yourself for the Jolly Roger."]
    fountain: dict[str, Any] = {
        "seq": 3, "kind": "card.used", "audience": None,
        "text": "Zed drank from the Fountain of Youth and was not marooned.",
        "data": {"seat": 1, "title": "FOUNTAIN_OF_YOUTH"}}
    assert news([fountain], 1, names)[0]["text"] == \
        "You drank from the Fountain of Youth and were not marooned."
