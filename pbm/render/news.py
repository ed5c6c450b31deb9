"""What happened, told to one reader: engine events in the reader's words.

The engine writes one English sentence per event for everyone ("Cleo was marooned from the
Jolly Roger to Tortuga."). A player reads better news about themself in the second person,
with the cause, and with every Event card explained the first time a message names it:

- :func:`voice` turns one event into the reader's sentence (or None: a line the reader
  also gets in a private form, a line of noise);
- :func:`news` turns a list of events into ordered, de-duplicated lines with a priority
  (what the reader's own move revealed first, then what happened to the reader, then votes,
  then the rest), each Event card explained once per message;
- :func:`card_effect` is the one place a card's effect is said: the engine's card table
  (``engine.cards.EVENT_CARD_TABLE``, its ``summary``); templates never write one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.cards import EVENT_CARD_TABLE
from pbm.i18n.cards import CARD_EFFECTS
from pbm.i18n.translate import _, is_korean
from pbm.render import news_ko
from pbm.render.names import title_label

#: Where a pawn can be, as the engine's events say it (``data["source"]`` / ``["to"]``).
WHERE = {"FD": "the Flying Dutchman", "JR": "the Jolly Roger", "TORTUGA": "Tortuga",
         "FD_ROWBOAT": "the Flying Dutchman's rowboat",
         "JR_ROWBOAT": "the Jolly Roger's rowboat"}

#: Why a pawn was marooned (``data["cause"]``), said after "marooned".
CAUSE = {"BLACK_SPOT": "by the Black Spot", "PISTOL": "by a Pistol shot",
         "MAROON": "on the Captain's order", "MUTINY": "by the Mutiny",
         "ALBATROSS": "by two Albatrosses aboard one ship"}

#: Event card title code -> (name, effect in plain words), from the engine's one table.
CARDS: dict[str, tuple[str, str]] = {
    info.title.value: (info.name, info.summary) for info in EVENT_CARD_TABLE}
_BY_NAME = {name.lower(): code for code, (name, _) in CARDS.items()}

# Priorities of a news line (lower = said first, kept first in an SMS).
MINE, TO_YOU, VOTE, OTHER = 0, 1, 2, 3


def card_effect(code_or_name: str) -> tuple[str, str] | None:
    """(name, effect) of an Event card from its code (``BLACK_SPOT``) or name (any case,
    a prefix of a word is enough: ``albatros``, ``black spot``, ``map``)."""
    key = code_or_name.strip().upper().replace(" ", "_").replace("'", "")
    if key in CARDS:
        return CARDS[key]
    words = code_or_name.lower().replace("'", "").split()
    if not words:
        return None
    for name, code in _BY_NAME.items():
        if name.replace("'", "").startswith(" ".join(words)):
            return CARDS[code]
    for name, code in _BY_NAME.items():
        if any(w.startswith(words[0]) for w in name.replace("'", "").split()) and \
                len(words[0]) >= 3:
            return CARDS[code]
    return None


def card_line(code_or_name: str) -> str:
    """``Black Spot: the revealer is marooned.`` (empty if the card is unknown); for a
    Korean reader the glossary's name and the catalogue's effect (``pbm.i18n.cards``):
    ``검은 딱지: 공개한 사람이 고립됩니다.``"""
    found = card_effect(code_or_name)
    if found is None:
        return ""
    name, effect = found
    if is_korean():
        code = _BY_NAME[name.lower()]
        return f"{title_label(code)}: {_(CARD_EFFECTS.get(code, effect))}"
    effect = without_rule_status(effect)
    return f"{name}: {effect[0].lower()}{effect[1:]}"


def all_cards_lines() -> list[str]:
    """Every playable Event card and its effect, one line each (HELP CARDS)."""
    return [card_line(info.title.value) for info in EVENT_CARD_TABLE if info.implemented]


def plain(text: str) -> str:
    """The engine's sentence in plain words: no "(s)", no "from Tortuga to Tortuga"."""
    text = re.sub(r"Event card\(s\) (\d+)\.", r"Event card \1.", text)
    text = re.sub(r"Event card\(s\) (\d+: [^;]*)\.$", r"Event card \1.", text)
    text = text.replace("Event card(s)", "Event cards").replace("(s)", "s")
    text = text.replace("was marooned from Tortuga to Tortuga", "was marooned on Tortuga "
                        "again")
    return without_rule_status(text)


def without_rule_status(text: str) -> str:
    """``text`` without the rule's status ("Provisional: ...", "(provisional rule)"): it
    belongs in the docs, not in a player's message (issue 37)."""
    text = re.sub(r" ?\(provisional rule\)", "", text)
    return re.sub(r"Provisional: (\w)", lambda m: m.group(1).upper(), text)


def _name(names: Mapping[int, str], seat: Any, reader: int | None) -> str:
    if seat == reader:
        return "you"
    return names.get(seat, "someone") if isinstance(seat, int) else "someone"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def voice(event: Mapping[str, Any], reader: int | None, names: Mapping[int, str],
          events: Sequence[Mapping[str, Any]] = ()) -> tuple[int, str] | None:
    """(priority, sentence) of ``event`` for ``reader``; None to leave it out.

    ``events`` are the other events of the same message (to drop a public line whose
    private twin the reader also has). A Korean reader's lines: ``pbm.render.news_ko``."""
    if is_korean():
        return news_ko.voice(event, reader, names, events)
    kind = str(event.get("kind", ""))
    data = event.get("data") or {}
    text = plain(str(event.get("text", "")))
    private = event.get("audience") is not None
    seat = data.get("seat")
    mine = reader is not None and seat == reader
    if kind in ("event.refilled", "vote.cast", "turn.started") and not private:
        return None
    if mine and not private and kind in ("event.viewed", "vote_card.drawn") and any(
            e.get("kind") == kind and e.get("audience") is not None for e in events):
        return None  # "Anne looked at Event cards 1 and 3": the reader has "You looked at"
    if kind == "vote.cast":
        return (MINE, text) if private else None
    if kind == "event.viewed" and private:
        cards = data.get("cards") or {}
        seen = "; ".join(f"card {p} is {CARDS.get(str(t), (t, ''))[0]}"
                         for p, t in cards.items())
        return MINE, f"You looked: {seen}." if seen else text
    if kind == "event.revealed" and isinstance(seat, int) and data.get("title") in CARDS:
        name = CARDS.get(str(data.get("title")), (str(data.get("title")), ""))[0]
        who = _cap(_name(names, seat, reader))
        return (MINE if mine else OTHER), f"{who} revealed {name} (card {data.get('position')})."
    if kind in ("pawn.marooned", "pawn.moved") and not (
            isinstance(seat, int) and data.get("source")):
        return (TO_YOU if mine else OTHER), text  # an event without its details
    if kind == "pawn.marooned":
        who = _name(names, seat, reader)
        was = "were" if mine else "was"
        cause = CAUSE.get(str(data.get("cause", "")), "")
        source = str(data.get("source", ""))
        where = "on Tortuga again" if source == "TORTUGA" else \
            f"from {WHERE.get(source, source)} to Tortuga"
        return (TO_YOU if mine else OTHER), \
            f"{_cap(who)} {was} marooned {where}{' ' + cause if cause else ''}."
    if kind == "vote_card.lost":
        if private:
            return TO_YOU, text
        if mine and any(e.get("kind") == kind and e.get("audience") for e in events):
            return None
        told = _marooned_too(event, events)  # "marooned on Tortuga again" is said there
        if mine:
            if data.get("lost"):
                return TO_YOU, ("You lost a Vote card." if told else
                                "You were marooned on Tortuga again and lost a Vote card.")
            return TO_YOU, ("You had no Vote card to lose." if told else
                            "You were marooned on Tortuga again but had no Vote card to lose.")
        if told:
            who = _cap(_name(names, seat, reader))
            return OTHER, (f"{who} lost a Vote card." if data.get("lost") else
                           f"{who} had no Vote card to lose.")
        return OTHER, text
    if kind == "pawn.moved":
        who = _name(names, seat, reader)
        src, dst = str(data.get("source", "")), str(data.get("to", ""))
        how = str(data.get("by", ""))
        if how == "LETTER_OF_MARQUE":
            return (TO_YOU if mine else OTHER), (
                f"{_cap(who)} {'were' if mine else 'was'} moved from {WHERE.get(src, src)} to "
                f"{WHERE.get(dst, dst)} by a Letter of Marque.")
        return (MINE if mine else OTHER), \
            f"{_cap(who)} moved from {WHERE.get(src, src)} to {WHERE.get(dst, dst)}."
    if kind == "card.given" and isinstance(data.get("target"), int):
        giver, target = data.get("seat"), data.get("target")
        title = CARDS.get(str(data.get("title")), ("a card", ""))[0]
        if target == reader and giver == reader:
            return MINE, f"You kept the {title}."
        if target == reader:
            return TO_YOU, f"{_cap(_name(names, giver, reader))} gave you the {title}."
        if giver == reader:
            return MINE, f"You gave the {title} to {_name(names, target, reader)}."
        if giver == target:
            return OTHER, f"{_cap(_name(names, giver, reader))} kept the {title}."
        return OTHER, text
    if kind == "timeout.played" and mine:  # "Anne ran out of time: they looked at..."
        rest = text.split(" ran out of time", 1)[-1]
        for third, second in ((" they ", " you "), (" their ", " your "),
                              (" them", " you")):
            rest = rest.replace(third, second)
        return TO_YOU, "You ran out of time" + rest
    if kind == "vote.called" and isinstance(data.get("caller"), int):
        caller = data["caller"]
        who = ", ".join(_name(names, p, reader) for p in data.get("participants") or []) \
            or "nobody"
        vote = str(data.get("vote", "")).capitalize()
        article = "an" if vote == "Attack" else "a"
        return (MINE if caller == reader else VOTE), \
            f"{_cap(_name(names, caller, reader))} called {article} {vote}; voting: {who}."
    if kind == "vote.result":
        caller = data.get("caller")
        prio = VOTE
        if caller == reader:
            text = text.replace("The ", "Your ", 1) if text.startswith("The ") else text
            prio = MINE
        return prio, text
    if kind == "card.kept" and mine:
        text = re.sub(r"^\S+ must keep", "You must keep", text)
        text = re.sub(r"^\S+ now owns", "You now own", text)
        text = re.sub(r"^\S+ saved", "You saved", text)
        return MINE, text
    if kind == "card.used" and data.get("target") == reader and reader is not None:
        me = names.get(reader, "?")
        if mine and text.startswith(me + " "):  # one's own card on oneself
            return MINE, "You" + text[len(me):].replace(f" {me} ", " yourself ")
        return TO_YOU, text.replace(f" {me} ", " you ")
    if kind == "event.forced" and data.get("target") == reader and reader is not None:
        positions = [*(data.get("positions") or []), "?", "?"]
        return TO_YOU, (f"{_cap(_name(names, seat, reader))} forced you to choose between "
                        f"Event cards {positions[0]} and {positions[1]}.")
    me = names.get(reader, "") if reader is not None else ""
    if mine and me and text.startswith(me + " "):
        rest = text[len(me) + 1:]
        for third, second in (("was ", "were "), ("is ", "are "), ("has ", "have "),
                              ("takes ", "take "), ("must ", "must ")):
            if rest.startswith(third):
                rest = second + rest[len(third):]
                break
        return MINE, "You " + rest.replace(" and was ", " and were ")
    if data.get("target") == reader and reader is not None:
        return TO_YOU, text
    return (MINE if private else OTHER), text


def _cards_named(event: Mapping[str, Any], line: str) -> list[str]:
    """The Event card codes a line names (from its data, else from its words)."""
    data = event.get("data") or {}
    codes = []
    if data.get("title") in CARDS:
        codes.append(str(data["title"]))
    for value in (data.get("cards") or {}).values() if isinstance(data.get("cards"),
                                                                  Mapping) else ():
        if value in CARDS:
            codes.append(str(value))
    if not codes:
        codes = [code for code, (name, _) in CARDS.items() if name in line]
    return codes


def _marooned_too(event: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> bool:
    """True if ``events`` also tell the marooning that cost ``event``'s seat a Vote card."""
    seat = (event.get("data") or {}).get("seat")
    return any(e.get("kind") == "pawn.marooned" and (e.get("data") or {}).get("seat") == seat
               and e.get("audience") is None for e in events)


#: A card played on someone and what it did to them: (title, effect kind, data key, value).
_CAUSED = {"LETTER_OF_MARQUE": ("pawn.moved", "by", "LETTER_OF_MARQUE"),
           "PISTOL": ("pawn.marooned", "cause", "PISTOL")}


def caused_pairs(events: Sequence[Mapping[str, Any]]) -> dict[int, int]:
    """Effect index -> cause index: a Letter of Marque and the move it made, a Pistol shot
    and the marooning it made, told as one sentence (cause first) instead of two."""
    pairs: dict[int, int] = {}
    for i, event in enumerate(events):
        data = event.get("data") or {}
        caused = _CAUSED.get(str(data.get("title")))
        if event.get("kind") != "card.used" or caused is None:
            continue
        kind, key, value = caused
        for j in range(i + 1, len(events)):
            effect = events[j].get("data") or {}
            if events[j].get("kind") == kind and effect.get(key) == value and \
                    effect.get("seat") == data.get("target") and j not in pairs:
                pairs[j] = i
                break
    return pairs


def joined(cause: Mapping[str, Any], effect: Mapping[str, Any], reader: int | None,
           names: Mapping[int, str]) -> str:
    """One sentence for a card and what it did (``caused_pairs``), cause first."""
    if is_korean():
        return news_ko.joined(cause, effect, reader, names)
    data, done = cause.get("data") or {}, effect.get("data") or {}
    user = _cap(_name(names, data.get("seat"), reader))
    target = _name(names, data.get("target"), reader)
    if target == "you" and data.get("seat") == reader:
        target = "yourself"
    source = str(done.get("source", ""))
    if data.get("title") == "LETTER_OF_MARQUE":
        to = str(done.get("to", ""))
        return (f"{user} used a Letter of Marque to move {target} from "
                f"{WHERE.get(source, source)} to {WHERE.get(to, to)}.")
    subject = "you were" if done.get("seat") == reader else f"{target} was"
    where = "on Tortuga again" if source == "TORTUGA" else \
        f"from {WHERE.get(source, source)} to Tortuga"
    return f"{user} shot {target} with the Pistol: {subject} marooned {where}."


def news(events: Iterable[Mapping[str, Any]], reader: int | None, names: Mapping[int, str],
         *, explain: bool = True, explained: set[str] | None = None) -> list[dict[str, Any]]:
    """The reader's lines for ``events``, in event order: ``{"text", "priority", "cards"}``;
    ``cards`` are effect lines of the cards first named here (each card once per message:
    ``explained`` carries the codes already explained in this message). A card and what it
    did to someone are one line (``caused_pairs``)."""
    events = list(events)
    done: set[str] = explained if explained is not None else set()
    out: list[dict[str, Any]] = []
    seen_text: set[str] = set()
    pairs = caused_pairs(events)
    causes = set(pairs.values())
    for index, event in enumerate(events):
        if index in causes:
            continue  # told with its effect
        said = voice(event, reader, names, events)
        if said is None:
            continue
        priority, text = said
        if index in pairs:
            cause = events[pairs[index]]
            said_cause = voice(cause, reader, names, events)
            priority = min(priority, said_cause[0]) if said_cause else priority
            text = joined(cause, event, reader, names)
        if text in seen_text:
            continue
        seen_text.add(text)
        cards = []
        if explain:
            named = _cards_named(events[pairs[index]], text) if index in pairs else []
            for code in named + _cards_named(event, text):
                if code not in done:
                    done.add(code)
                    cards.append(card_line(code))
        out.append({"text": text, "priority": priority, "cards": cards,
                    "kind": event.get("kind", ""), "seq": event.get("seq"),
                    "cause_seq": events[pairs[index]].get("seq") if index in pairs else None,
                    "private": event.get("audience") is not None})
    return out


def sms_news(lines: Sequence[Mapping[str, Any]], budget: int) -> list[list[str]]:
    """SMS parts (alternatives, longest first) for news ``lines``: the most important first
    (lower priority, then newer), each with its card effect when it fits."""
    order = sorted(range(len(lines)), key=lambda i: (lines[i]["priority"], -i))
    keep = sorted(order[:budget])
    parts = []
    for i in keep:
        line = lines[i]
        text = str(line["text"])
        effects = " ".join(f"({c})" for c in line["cards"])
        parts.append([f"{text} {effects}".strip(), text, ""] if effects else [text, ""])
    return parts
