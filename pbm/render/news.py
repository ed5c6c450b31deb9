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

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.cards import EVENT_CARD_TABLE
from pbm.i18n.cards import CARD_EFFECTS, PLAYER_EFFECTS
from pbm.i18n.languages import SOURCE_LANGUAGE
from pbm.i18n.translate import _, current
from pbm.render import event_lines
from pbm.render.names import title_label

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
    """``Black Spot: the revealer is marooned.`` (empty if the card is unknown): the
    card's name and the catalogue's effect (``pbm.i18n.cards``) in the reader's language
    (``검은 딱지: 공개한 사람이 고립됩니다.``)."""
    found = card_effect(code_or_name)
    if found is None:
        return ""
    name, effect = found
    code = _BY_NAME[name.lower()]
    effect = _(PLAYER_EFFECTS.get(code) or CARD_EFFECTS.get(code, effect))
    return _("{card}: {effect}").format(card=title_label(code),
                                        effect=effect[:1].lower() + effect[1:])


def all_cards_lines() -> list[str]:
    """Every playable Event card and its effect, one line each (HELP CARDS)."""
    return [card_line(info.title.value) for info in EVENT_CARD_TABLE if info.implemented]


def _twin(event: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> bool:
    """True if ``events`` hold the private form of ``event`` (its seat's own line)."""
    kind = event.get("kind")
    return any(e.get("kind") == kind and e.get("audience") for e in events)


def _engine_text(event: Mapping[str, Any], reader: int | None,
                 names: Mapping[int, str]) -> str:
    """The engine's own sentence, for an event without the data its line needs (English
    only: the engine writes English); a timeout told to its own seat in the second person."""
    text = str(event.get("text", ""))
    data = event.get("data") or {}
    if event.get("kind") == "timeout.played" and reader is not None and \
            data.get("seat") == reader:
        rest = text.split(" ran out of time", 1)[-1]
        for third, second in ((" they ", " you "), (" their ", " your "), (" them", " you")):
            rest = rest.replace(third, second)
        return "You ran out of time" + rest
    return text.replace("Event card(s)", "Event cards")  # (as older stored events say it)


def _priority(event: Mapping[str, Any], reader: int | None, said: event_lines.Line) -> int:
    """Where a line goes: the reader's own move, what happened to the reader, a vote, the
    rest."""
    kind = str(event.get("kind", ""))
    data = event.get("data") or {}
    private = event.get("audience") is not None
    mine = reader is not None and data.get("seat") == reader
    to_reader = reader is not None and data.get("target") == reader
    if kind == "vote.cast" or (kind == "event.viewed" and private):
        return MINE
    if kind in ("vote.called", "vote.result"):
        return MINE if reader is not None and data.get("caller") == reader else VOTE
    if kind == "card.given" and isinstance(data.get("target"), int):
        return TO_YOU if said.key.endswith("/to_you") else MINE if said.by_reader else OTHER
    if kind in ("pawn.marooned", "vote_card.lost", "timeout.played") or (
            kind == "pawn.moved" and data.get("by") == "LETTER_OF_MARQUE"):
        return TO_YOU if mine else OTHER
    if kind in ("pawn.moved", "event.revealed"):
        return MINE if mine else OTHER
    if kind == "card.used" and to_reader:
        return MINE if mine else TO_YOU
    if kind == "event.forced" and to_reader:
        return TO_YOU
    if said.by_reader or (kind == "card.kept" and mine):
        return MINE
    if to_reader:
        return TO_YOU
    return MINE if private else OTHER


def voice(event: Mapping[str, Any], reader: int | None, names: Mapping[int, str],
          events: Sequence[Mapping[str, Any]] = ()) -> tuple[int, str] | None:
    """(priority, sentence) of ``event`` for ``reader`` in the current language
    (``pbm.render.event_lines``); None to leave it out.

    ``events`` are the other events of the same message (to drop a public line whose
    private twin the reader also has)."""
    kind = str(event.get("kind", ""))
    data = event.get("data") or {}
    private = event.get("audience") is not None
    mine = reader is not None and data.get("seat") == reader
    if kind in ("event.refilled", "vote.cast", "turn.started") and not private:
        return None
    if mine and not private and kind in ("event.viewed", "vote_card.drawn",
                                         "vote_card.lost") and _twin(event, events):
        return None  # "Anne looked at Event cards 1 and 3": the reader has "You looked at"
    told = kind == "vote_card.lost" and not private and _marooned_too(event, events)
    said = event_lines.line(event, reader, names, told=told)
    text = said.text if said.complete or current() != SOURCE_LANGUAGE else \
        _engine_text(event, reader, names)
    return _priority(event, reader, said), text


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
    return event_lines.joined(cause, effect, reader, names)


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
