"""The news in an SMS (issue 37): which news lines fit and in what order, what is said
of those that do not ("+2 more: NEWS"), the line a prompt's own head tells again, and the
ship codes spelled out ("(FD=Flying Dutchman)")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbm.i18n.translate import _
from pbm.render.gsm7 import (
    SMS_MAX_SEPTETS,
    fit_choices,
    fit_sms,
    gsm7_septets,
    is_gsm7,
    to_gsm7,
    ucs2_budget,
    ucs2_reader,
    utf16_units,
)
from pbm.render.names import SHIP_NAMES, game_word, short_name

#: At most this many news lines at the top of one SMS (the most important first).
SMS_NEWS_LINES = 4
#: the event kind of a SAY line (``pbm.models.ServiceEventKind.TABLE_TALK``)
TALK_KIND = "table.talk"
#: the event kind of the game's start (``pbm.models.ServiceEventKind.GAME_STARTED``)
STARTED_KIND = "game.started"


def news_parts(lines: Sequence[Mapping[str, Any]], talk: Sequence[Mapping[str, Any]] = (),
                limit: int = SMS_NEWS_LINES) -> tuple[list[list[str]], list[int], list[int]]:
    """SMS parts for news ``lines`` (``pbm.render.news``) and relayed table talk, in
    their own order, and the order to fit them in: what the reader's move did and what
    happened to the reader first, then table talk, votes, the rest; newer before older.
    Each line comes with its card's effect when that fits, else alone, else not at all.
    (``_news_left_out`` counts what ``limit`` leaves out.)"""
    ranked: list[tuple[tuple[int, int], list[str]]] = []
    # talk is said once, as "X says:" below; the recap's own line of it would repeat it
    lines = [line for line in lines if line.get("kind") != TALK_KIND]
    for i, line in enumerate(lines):
        text = to_gsm7(str(line["text"]))
        effects = " ".join(f"({to_gsm7(c)})" for c in line.get("cards") or [])
        alts = [f"{text} {effects}", text, ""] if effects else [text, ""]
        ranked.append(((int(line["priority"]) if int(line["priority"]) < 2 else
                       int(line["priority"]) + 1, -i), alts))
    for j, said in enumerate(talk):
        who = short_name(to_gsm7(str(said.get("name") or "A player")), 12)
        text = to_gsm7(str(said.get("text") or ""))
        says = _('{name} says: "{text}"')
        alts = [says.format(name=who, text=text),
                says.format(name=who, text=text[:60].rstrip() + "..."), ""] \
            if len(text) > 60 else [says.format(name=who, text=text), ""]
        ranked.append(((2, -j), alts))
    if len(ranked) > limit:
        order = sorted(range(len(ranked)), key=lambda k: ranked[k][0])[:limit]
        ranked = [ranked[k] for k in sorted(order)]
    priority = sorted(range(len(ranked)), key=lambda k: ranked[k][0])
    return [alts for _rank, alts in ranked], priority, [rank[0] for rank, _alts in ranked]


def news_left_out(lines: Sequence[Mapping[str, Any]], talk: Sequence[Mapping[str, Any]],
                   limit: int = SMS_NEWS_LINES) -> int:
    """How many news lines and table talk ``_news_parts`` leaves out for its ``limit``."""
    told = [line for line in lines if line.get("kind") != TALK_KIND]
    return max(0, len(told) + len(talk) - limit)


def more_news(n: int) -> str:
    """What an SMS says of the news it had no room for: ``+2 more: NEWS``."""
    return _("+{n} more: NEWS").format(n=n)


def fit_with_news(parts: Sequence[Sequence[str]], news: range, left_out: int,
                  priority: Sequence[int]) -> str:
    """``fit_sms`` of ``parts`` whose last part is the pointer to more (``NEWS/STATUS=
    more``): when news lines (the parts in ``news``) do not fit, or ``left_out`` were left
    out before, the pointer says how many (``+2 more: NEWS``), never silently."""
    most = left_out + len(news)
    # every line's own sentence first, its card's effect only with the room left after
    # all of them (a long effect must not push another line out)
    plain = [[*p[1:]] if k in news and len(p) > 2 else p for k, p in enumerate(parts)]
    reserved = [*plain[:-1], [more_news(most)] if most else plain[-1]]
    chosen = fit_choices(reserved, priority=priority)
    for k in priority:
        if k in news and len(parts[k]) > 2 and chosen[k]:
            richer = fit_choices([[c] for c in chosen[:k]] + [[parts[k][0], chosen[k]]]
                                 + [[c] for c in chosen[k + 1:]])
            chosen[k] = richer[k]
    dropped = left_out + sum(1 for k in news if not chosen[k])
    last = [more_news(dropped)] if dropped else [*parts[-1], ""] if most else [chosen[-1]]
    return fit_sms([*[[c] for c in chosen[:-1]], last])


#: The event a prompt's own head tells again, by what is awaited: the vote called, the
#: forced choice, the Fountain of Youth's window, the turn's action count.
_SAID_BY_PROMPT = {"VOTE": "vote.called", "CHOOSE": "event.forced",
                   "FOUNTAIN": "fountain.window", "ACTION": "turn.action"}


def said_by_prompt(model: Mapping[str, Any]) -> set[Any]:
    """The seq of the news line the prompt's head says again ("Esme called an Attack
    (...)" after "Esme called an Attack; voting: ..."): told once, by the prompt."""
    awaited = model["awaited"]
    kind = _SAID_BY_PROMPT.get(str(awaited["kind"]).upper()) if awaited else None
    me = model["ctx"].seat
    for event in reversed(model["ctx"].events):
        data = event.get("data") or {}
        if event.get("kind") == kind and (kind == "vote.called" or me in (
                data.get("seat"), data.get("target"))):
            return {event.get("seq")}
    return set()



def ship_legend(text: str) -> str:
    """``FD=Flying Dutchman, JR=Jolly Roger`` for the ship codes ``text`` uses (as a word of
    its own) without the ship's name ("" if none)."""
    words = "".join(c if c.isascii() and c.isalpha() else " " for c in text).split()
    used = dict.fromkeys(w for w in words if w in SHIP_NAMES)
    names = {code: game_word("ships", code, SHIP_NAMES[code]) for code in used}
    return ", ".join(f"{code}={name}" for code, name in names.items() if name not in text)


def explain_ships(text: str) -> str:
    """``text`` with what FD and JR stand for ("(FD=Flying Dutchman)") when it uses the
    code without the ship's name and the legend fits the budget (issue 37; a prompt makes
    room for it in ``_sms_awaited``)."""
    legend = ship_legend(text)
    if not legend:
        return text
    longer = f"{text} ({legend})"
    fits = utf16_units(longer) <= ucs2_budget() if ucs2_reader() else \
        is_gsm7(longer) and gsm7_septets(longer) <= SMS_MAX_SEPTETS
    return longer if fits else text
