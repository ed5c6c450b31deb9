"""Equal information by SMS in English and Korean (issue 37): every prompt of random games
of 2 to 9 players, with the news since the seat's last prompt, is rendered for an English
and a Korean reader. Both keep the deadline, the face-down row and the news (a Korean
prompt tells the lines an English one tells); news that does not fit is counted
("+2 more: NEWS"), never dropped silently."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import engine
from engine.simulate import random_game
from pbm.i18n.translate import _, reading  # _: gettext's conventional public name
from pbm.messages import Channel, MessageContext, MessageKind
from pbm.render import render, sms_segments, to_gsm7
from pbm.render.gsm7 import KO_SMS_PARTS
from pbm.render.model import build_model
from pbm.render.sms_news import said_by_prompt
from tests.fixtures.messages import NOW, extra_for, make_context

#: How each language says what did not fit.
MORE = {"en": "+{n} more: NEWS", "ko": "+{n}개 더: 기록"}


def prompts_with_news(n_players: int, seed: int
                      ) -> Iterator[tuple[engine.GameState, int, list[dict[str, Any]]]]:
    """(state, seat, the events it may see since its last prompt) for every new prompt."""
    found: list[tuple[engine.GameState, int, list[dict[str, Any]]]] = []
    since: dict[int, list[dict[str, Any]]] = {s: [] for s in range(n_players)}
    seq = [0]

    def observe(before: engine.GameState, seat: int, command: object,
                after: engine.GameState, events: list[engine.Event]) -> None:
        for event in events:
            seq[0] += 1
            for s in range(n_players):
                if event.visible_to(s):
                    since[s].append(dict(event.to_dict(), seq=seq[0]))
        for s in range(n_players):
            decision = after.decision_id(s)
            if decision is not None and decision != before.decision_id(s):
                found.append((after, s, since[s]))
                since[s] = []

    random_game(n_players, seed, observe=observe)
    yield from found


def prompt_context(state: engine.GameState, seat: int, events: list[dict[str, Any]],
                   lang: str) -> MessageContext:
    """The context of ``seat``'s prompt in ``state``, telling ``events``, in ``lang``."""
    return make_context(
        kind=MessageKind.PROMPT, game_id=42, game_name="Nassau", seat=seat,
        player_name=state.names[seat], time_zone="UTC",
        seat_view=engine.view(state, seat).to_dict(), events=events,
        deadline=NOW + timedelta(hours=20), now=NOW,
        extra=extra_for(MessageKind.PROMPT, state, seat, events), language=lang)


def _told(ctx: MessageContext, lang: str) -> dict[str, Any]:
    """What the SMS prompt tells: the seqs of its news lines, the deadline, the row."""
    sms = render(ctx, Channel.SMS).sms or ""
    with reading(lang):  # to_gsm7 keeps Hangul for a Korean reader only
        model = build_model(ctx)
        deadline = model["deadline"]
        forms = [deadline["sentence"], _("By %(when)s.") % {"when": deadline["short"]}]
        said = said_by_prompt(model)  # the prompt's head tells it
        lines = [line for line in model["recap"]["lines"] if line["kind"] != "table.talk"
                 and line["seq"] not in said]
        told = {line["seq"] for line in lines if to_gsm7(str(line["text"])) in sms}
        info = model["awaited"]["sms_info"] if model["awaited"] else ""
        return {"sms": sms, "told": told, "lines": len(lines) + model["recap"]["dropped"],
                "deadline": any(to_gsm7(form) in sms for form in forms),
                "info": bool(info) and to_gsm7(info) in sms}


def test_a_korean_sms_prompt_tells_what_an_english_one_tells() -> None:
    prompts = 0
    told = {"en": 0, "ko": 0}
    for n in range(2, 10):
        for state, seat, events in prompts_with_news(n, 3700 + n):
            base = prompt_context(state, seat, events, "en")
            said = {lang: _told(dataclasses.replace(base, language=lang), lang)
                    for lang in ("en", "ko")}
            prompts += 1
            for lang, what in said.items():
                told[lang] += len(what["told"])
                assert what["deadline"], f"{lang}: a prompt without its deadline\n{what['sms']}"
                unsaid = what["lines"] - len(what["told"])
                if unsaid:
                    assert MORE[lang].format(n=unsaid) in what["sms"], \
                        f"{lang}: {unsaid} news lines dropped silently\n{what['sms']}"
            assert sms_segments(said["ko"]["sms"]) <= KO_SMS_PARTS, said["ko"]["sms"]
            for code, name in (("FD", "플라잉 더치맨"), ("JR", "졸리 로저")):  # spelled out
                if re.search(rf"(?<![A-Za-z]){code}(?![A-Za-z])", said["ko"]["sms"]):
                    assert name in said["ko"]["sms"], said["ko"]["sms"]
            assert said["ko"]["info"] or not said["en"]["info"], \
                f"the face-down row only in English\n{said['en']['sms']}\n{said['ko']['sms']}"
            assert len(said["ko"]["told"]) >= len(said["en"]["told"]), \
                f"Korean tells less news\n{said['en']['sms']}\n{said['ko']['sms']}"
    assert prompts > 500
    assert told["ko"] >= told["en"], told
