"""What each engine event says to one reader, in every language, by the one table
(``pbm.render.event_table.LINES``).

An event (``kind``, ``data``) is told by a catalogue sentence chosen by its kind and a
variant (the reader's own move ``/you``, another player's, the card or cause involved);
the sentence names its values (``{who}``, ``{to}``, ``{card}``), which are filled by name
in the reader's language: players (the reader is "you"), places and ships from the
glossary, Event card titles, Vote cards. English is the message ids themselves; every other
language is its catalogue (``pbm/locale/<lang>/LC_MESSAGES/messages.po``), whose sentences
may choose particles after a value (``{to:으로/로/로}``, :mod:`pbm.i18n.fill`).

:func:`line` returns the key and the sentence; an event that lacks the data its sentence
needs (an event stored before the engine wrote it) is told by the engine's own sentence in
English (``Line.complete`` False).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import VOTE_DECK, EventTitle
from pbm.i18n import glossary
from pbm.i18n.fill import fill
from pbm.i18n.languages import traits
from pbm.i18n.translate import _, current, ngettext, pgettext
from pbm.render.event_table import (
    AND,
    CARD_SEEN,
    CAUSES,
    END_REASONS,
    LINE,
    LINES,
    LIST,
    LIST_SEEN,
    OUTCOMES,
    SYMBOLS_SHOWN,
    VOTES_CALLED,
)


def vote_card_symbol(code: str) -> str:
    """A symbol as a Vote card names it (``BRITISH`` -> "British")."""
    words = {"CANNON": pgettext("vote card", "Cannon"), "TORCH": pgettext("vote card", "Torch"),
             "WATER": pgettext("vote card", "Water"), "SKULL": pgettext("vote card", "Skull"),
             "HELM": pgettext("vote card", "Helm"),
             "BRITISH": pgettext("vote card", "British"),
             "FRENCH": pgettext("vote card", "French")}
    return words.get(code, code.capitalize())



@dataclass(frozen=True)
class Line:
    """One event's sentence for one reader: its :data:`LINES` key and its text.

    ``complete`` is False when the event lacks the data the sentence needs; English then
    tells the engine's own sentence.
    """

    key: str
    text: str
    complete: bool = True

    @property
    def by_reader(self) -> bool:
        """True when the reader is the sentence's subject (a ``/you`` variant)."""
        return self.key.endswith("/you") or self.key.endswith("/yourself")


# ---------------------------------------------------------------- values by name


class Words:
    """The values of one reader's sentences: players, places, cards, in the reader's
    language (the glossary's terms, the catalogue's words)."""

    def __init__(self, reader: int | None, names: Mapping[int, str]) -> None:
        self.reader = reader
        self.names = names
        #: True once a sentence named a seat whose name is not known ("someone")
        self.unknown = False

    def player(self, seat: Any) -> str:
        """A player by name (never "you"): ``{name}`` in the language's player form."""
        if isinstance(seat, int) and seat in self.names:
            return fill(traits(current()).player_name, name=self.names[seat])
        self.unknown = self.unknown or isinstance(seat, int)
        return _("someone")

    def named(self, seat: Any) -> str:
        """A player by name where English names even the reader (a line of pawns, the
        Captain's order); a language may say "you" there (``pgettext`` "named reader")."""
        if seat == self.reader and self.reader is not None and seat in self.names:
            return pgettext("named reader", "{name}").format(name=self.names[seat])
        return self.player(seat)

    def person(self, seat: Any) -> str:
        """A player as the reader reads them: "you" for the reader."""
        if seat == self.reader and self.reader is not None:
            return _("you")
        return self.player(seat)

    @staticmethod
    def term(section: str, key: str) -> str:
        try:
            return glossary.term(section, key, current())
        except KeyError:
            return key

    def ship(self, code: Any) -> str:
        return self.term("ships", str(code))

    def place(self, code: Any) -> str:
        """``JR`` -> "the Jolly Roger"; ``FD_ROWBOAT`` -> "the Flying Dutchman's rowboat"."""
        where = str(code)
        if where == "TORTUGA":
            return self.term("places", where)
        if where in ("FD", "JR", "GALLEON"):
            return _("the {ship}").format(ship=self.ship(where))
        if where.endswith("_ROWBOAT"):
            return _("the {ship}'s rowboat").format(ship=self.ship(where.split("_")[0]))
        return where

    def treasure_place(self, key: Any) -> str:
        """``FD_BRITISH`` -> "the Flying Dutchman's British hold"; ``GALLEON`` -> "the
        Spanish Galleon"."""
        key = str(key)
        where, _sep, hold = key.rpartition("_")
        if hold in ("BRITISH", "FRENCH") and where in ("FD", "JR"):
            return _("the {ship}'s {hold} hold").format(ship=self.ship(where),
                                                        hold=self.term("teams", hold))
        if key == "UNPLACED":
            return _("the starting treasure")
        return self.place(key)

    def card(self, title: Any) -> str:
        """An Event card's name by its code (``BLACK_SPOT`` -> "Black Spot")."""
        try:
            return glossary.event_name(str(title), current())
        except KeyError:
            return _("an Event card")

    def vote_card(self, card: Any) -> str:
        """A Vote card's three symbols ("Cannon / British / Skull", "2 Torch / ...")."""
        try:
            info = VOTE_DECK[int(card)]
        except (TypeError, ValueError, IndexError):
            return _("a Vote card")
        parts = []
        for symbols in (info.top, info.middle, info.bottom):
            word = vote_card_symbol(symbols[0].value)
            parts.append(word if len(symbols) == 1 else
                         _("{n} {symbol}").format(n=len(symbols), symbol=word))
        return " / ".join(parts)

    @staticmethod
    def joined(items: Sequence[str], pattern: str = LIST) -> str:
        """``a, b, c`` by the language's list pattern."""
        if not items:
            return ""
        out = items[0]
        for item in items[1:]:
            out = _(pattern).format(items=out, item=item, line=out, name=item)
        return out


# ---------------------------------------------------------------- the sentence of each kind

Said = tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], bool]
Teller = Callable[[Mapping[str, Any], "Context"], Said]


@dataclass(frozen=True)
class Context:
    """One event as one reader reads it."""

    data: Mapping[str, Any]
    private: bool
    words: Words
    told: bool  # a ``vote_card.lost`` whose marooning the same message tells

    @property
    def seat(self) -> Any:
        return self.data.get("seat")

    @property
    def mine(self) -> bool:
        return self.words.reader is not None and self.seat == self.words.reader

    def you(self, key: str, seat: Any = None) -> str:
        """``key/you`` when the reader is ``seat`` (the event's seat by default)."""
        seat = self.seat if seat is None else seat
        return f"{key}/you" if self.words.reader is not None and seat == self.words.reader \
            else key

    @property
    def who(self) -> dict[str, Any]:
        return {"who": self.words.person(self.seat)}


def _seat_known(c: Context) -> bool:
    return isinstance(c.seat, int)


def _simple(c: Context, key: str) -> Said:
    return c.you(key), c.who, _seat_known(c)


def _treasure_moved(c: Context) -> Said:
    d, w = c.data, c.words
    if d.get("by") == "SHIFT":
        where, _sep, hold = str(d.get("to", "")).rpartition("_")
        return c.you("treasure.moved/shift", d.get("cabin_boy")), {
            "player": w.player(d.get("cabin_boy")), "ship": w.ship(where),
            "hold": w.term("teams", hold)}
    values = {**c.who, "source": w.treasure_place(d.get("source")),
              "to": w.treasure_place(d.get("to"))}
    if d.get("title") == "TREASURE_MAP":
        return c.you("treasure.moved/map"), values
    if _seat_known(c):
        return c.you("treasure.moved/take"), values
    return "treasure.moved", values, False  # the Cabin Boy's shift, before it named him


def _card_kept(c: Context) -> Said:
    title = str(c.data.get("title", ""))
    key = f"card.kept/{title}" if f"card.kept/{title}" in LINES else "card.kept"
    return c.you(key), {**c.who, "card": c.words.card(title)}, _seat_known(c)


def _card_used(c: Context) -> Said:
    d, w = c.data, c.words
    title = str(d.get("title", ""))
    key = f"card.used/{title}" if f"card.used/{title}" in LINES else "card.used"
    values = {**c.who, "target": w.person(d.get("target")), "card": w.card(title),
              "ship": w.ship(d.get("ship", ""))}
    if c.mine and d.get("target") == c.seat and f"{key}/yourself" in LINES:
        return f"{key}/yourself", values
    return c.you(key), values, _seat_known(c)


def _card_given(c: Context) -> Said:
    d, w = c.data, c.words
    giver, target = d.get("seat"), d.get("target")
    values = {"who": w.person(giver), "giver": w.person(giver),
              "target": w.person(target), "card": w.card(d.get("title"))}
    if giver == target:
        return c.you("card.given/kept"), values, isinstance(target, int)
    if target == w.reader and w.reader is not None:
        return "card.given/to_you", values
    return c.you("card.given"), values, isinstance(target, int)


def _event_viewed(c: Context) -> Said:
    d, w = c.data, c.words
    cards = d.get("cards")
    if c.private and isinstance(cards, Mapping) and cards:
        seen = w.joined([_(CARD_SEEN).format(n=p, name=w.card(t)) for p, t in cards.items()],
                        LIST_SEEN)
        return "event.viewed/private", {"cards": seen}
    positions = [str(p) for p in d.get("positions") or []]
    if not positions:
        return c.you("event.viewed"), c.who, False
    n = len(positions)
    text = ngettext("You looked at Event card {cards}.", "You looked at Event cards {cards}.",
                    n) if c.mine else \
        ngettext("{who} looked at Event card {cards}.", "{who} looked at Event cards {cards}.",
                 n)
    key = c.you("event.viewed/positions")  # (its sentence has a plural: ngettext)
    return key, {**c.who, "cards": _(AND).join(positions), "_text": text}, _seat_known(c)


def _event_revealed(c: Context) -> Said:
    d = c.data
    complete = _seat_known(c) and str(d.get("title")) in EventTitle.__members__
    return c.you("event.revealed"), {**c.who, "card": c.words.card(d.get("title")),
                                     "n": d.get("position")}, complete


def _event_forced(c: Context) -> Said:
    d, w = c.data, c.words
    positions = [*(d.get("positions") or []), "?", "?"]
    values = {**c.who, "target": w.person(d.get("target")), "a": positions[0],
              "b": positions[1]}
    if d.get("target") == w.reader and w.reader is not None:
        return "event.forced/to_you", values
    return c.you("event.forced"), values, _seat_known(c)


def _game_over(c: Context) -> Said:
    d, w = c.data, c.words
    winner = str(d.get("winner", ""))
    reason = str(d.get("reason", ""))
    loyalties = d.get("loyalties")
    players = [w.player(i) for i, team in enumerate(loyalties or []) if team == winner]
    return "game.over", {
        "team": w.term("teams", winner) if winner else "",
        "reason": _(END_REASONS[reason]) if reason in END_REASONS else _("the game ended"),
        "players": w.joined(players), "british": d.get("british"),
        "french": d.get("french")}, bool(loyalties) and reason in END_REASONS


def _pawn_moved(c: Context) -> Said:
    d, w = c.data, c.words
    values = {**c.who, "source": w.place(d.get("source", "")), "to": w.place(d.get("to", ""))}
    key = "pawn.moved/LETTER_OF_MARQUE" if d.get("by") == "LETTER_OF_MARQUE" else "pawn.moved"
    return c.you(key), values, _seat_known(c) and bool(d.get("source"))


def _pawn_marooned(c: Context) -> Said:
    d, w = c.data, c.words
    source = str(d.get("source", ""))
    cause = CAUSES.get(str(d.get("cause", "")))
    key = "pawn.marooned/again" if source == "TORTUGA" else "pawn.marooned"
    key += "/cause" if cause else ""
    values = {**c.who, "source": w.place(source), "cause": _(cause) if cause else ""}
    return c.you(key), values, _seat_known(c) and bool(source)


def _pawn_reordered(c: Context) -> Said:
    d, w = c.data, c.words
    order = w.joined([w.named(s) for s in d.get("line") or []], LINE)
    return "pawn.reordered", {"where": w.place(d.get("location", "")), "order": order}


def _captain(c: Context) -> Said:
    return "captain.maroons", {"player": c.words.named(c.seat),
                               "target_player": c.words.named(c.data.get("target"))}


def _vote_card_lost(c: Context) -> Said:
    d = c.data
    if c.private:
        return "vote_card.lost/private", {"card": c.words.vote_card(d.get("card"))}, \
            d.get("card") is not None
    key = "vote_card.lost/told" if c.told else "vote_card.lost"
    key += "" if d.get("lost") else "/none"
    return c.you(key), c.who, _seat_known(c)


def _vote_card_drawn(c: Context) -> Said:
    if c.private:
        card = c.data.get("card")
        return "vote_card.drawn/private", {"card": c.words.vote_card(card)}, card is not None
    return _simple(c, "vote_card.drawn")


def _vote_called(c: Context) -> Said:
    d, w = c.data, c.words
    vote = str(d.get("vote", ""))
    voters = w.joined([w.person(p) for p in d.get("participants") or []]) or _("nobody")
    return c.you("vote.called", d.get("caller")), {
        "who": w.person(d.get("caller")), "voters": voters,
        "vote": _(VOTES_CALLED[vote]) if vote in VOTES_CALLED else vote}, \
        isinstance(d.get("caller"), int)


def _vote_cast(c: Context) -> Said:
    w = c.words
    if c.private:
        cards = c.data.get("cards") or []
        return "vote.cast/private", {"cards": _(AND).join(w.vote_card(x) for x in cards)}, \
            bool(cards)
    return "vote.cast", c.who, _seat_known(c)


def _vote_changed(c: Context) -> Said:
    w, d = c.words, c.data
    return "vote.changed", {"cards": _(AND).join(w.vote_card(x) for x in d.get("cards") or []),
                            "old": _(AND).join(w.vote_card(x)
                                               for x in d.get("replaced") or [])}


def _vote_result(c: Context) -> Said:
    d, w = c.data, c.words
    vote = str(d.get("vote", ""))
    outcome = OUTCOMES.get((vote, str(d.get("outcome", ""))))
    shown = _(", ").join(_(SYMBOLS_SHOWN[s]) if s in SYMBOLS_SHOWN else str(s).lower()
                         for s in d.get("symbols") or []) or _("no cards")
    values = {"vote": w.term("actions", vote), "symbols": shown,
              "outcome": outcome() if outcome else _("the vote is counted")}
    return c.you("vote.result", d.get("caller")), values, outcome is not None


TELLERS: dict[str, Teller] = {
    "turn.started": lambda d, c: (c.you("turn.started"), c.who),
    "turn.action": lambda d, c: (c.you("turn.action"), {**c.who, "n": d.get("action"),
                                                        "of": d.get("of")}, _seat_known(c)),
    "treasure.placed": lambda d, c: (c.you("treasure.placed"), {
        **c.who, "ship": c.words.ship(d.get("ship", "")),
        "hold": c.words.term("teams", str(d.get("hold", "")))}, _seat_known(c)),
    "treasure.declined": lambda d, c: _simple(c, "treasure.declined"),
    "treasure.moved": lambda d, c: _treasure_moved(c),
    "treasure.tortuga": lambda d, c: ("treasure.tortuga", {"british": d.get("british"),
                                                           "french": d.get("french")}),
    "treasure.stormy": lambda d, c: ("treasure.stormy/ship", {
        "amount": d.get("amount"), "ship": c.words.ship(d["ship"])}) if d.get("ship")
    else ("treasure.stormy", {}),
    "card.no_effect": lambda d, c: (f"card.no_effect/{d.get('title')}"
                                    if f"card.no_effect/{d.get('title')}" in LINES
                                    else "card.no_effect", {}),
    "card.discarded": lambda d, c: _simple(c, "card.discarded"),
    "card.kept": lambda d, c: _card_kept(c),
    "card.used": lambda d, c: _card_used(c),
    "card.given": lambda d, c: _card_given(c),
    "event.viewed": lambda d, c: _event_viewed(c),
    "event.revealed": lambda d, c: _event_revealed(c),
    "event.forced": lambda d, c: _event_forced(c),
    "event.refilled": lambda d, c: ("event.refilled", {"n": d.get("position")}),
    "event.row_reshuffled": lambda d, c: ("event.row_reshuffled", {}),
    "event.row_dealt": lambda d, c: ("event.row_dealt", {"deck": d.get("deck"),
                                                         "cards": d.get("dealt")},
                                     d.get("dealt") is not None),
    "event.reshuffled": lambda d, c: ("event.reshuffled", {}),
    "event.none_left": lambda d, c: ("event.none_left", {}),
    "game.sudden_death": lambda d, c: ("game.sudden_death", {"british": d.get("british")}),
    "game.over": lambda d, c: _game_over(c),
    "pawn.moved": lambda d, c: _pawn_moved(c),
    "pawn.marooned": lambda d, c: _pawn_marooned(c),
    "pawn.reordered": lambda d, c: _pawn_reordered(c),
    "albatross.struck": lambda d, c: ("albatross.struck", {"ship": c.words.ship(
        d.get("ship", ""))}),
    "fountain.window": lambda d, c: _simple(c, "fountain.window"),
    "captain.maroons": lambda d, c: _captain(c),
    "vote_card.lost": lambda d, c: _vote_card_lost(c),
    "vote_card.drawn": lambda d, c: _vote_card_drawn(c),
    "vote.called": lambda d, c: _vote_called(c),
    "vote.cast": lambda d, c: _vote_cast(c),
    "vote.changed": lambda d, c: _vote_changed(c),
    "el_dorado.used": lambda d, c: _simple(c, "el_dorado.used"),
    "vote.result": lambda d, c: _vote_result(c),
    "attack.nothing": lambda d, c: ("attack.nothing", {}),
    "atlantis.ordered": lambda d, c: ("atlantis.ordered", {}),
    "atlantis.lapsed": lambda d, c: ("atlantis.lapsed", {}),
    "timeout.played": lambda d, c: (c.you("timeout.played"), c.who, False),
    "seat.away": lambda d, c: ("seat.away", c.who, _seat_known(c)),
    "seat.back": lambda d, c: ("seat.back", c.who, _seat_known(c)),
    "table.talk": lambda d, c: ("table.talk", {"name": str(d["name"]), "text": str(d["text"])})
    if d.get("name") and d.get("text") else ("table.talk/unknown", {}),
}


def line(event: Mapping[str, Any], reader: int | None, names: Mapping[int, str], *,
         told: bool = False) -> Line:
    """The sentence of ``event`` for ``reader`` in the current language (:data:`LINES`).

    ``told``: a public ``vote_card.lost`` whose marooning the same message also tells
    ("You lost a Vote card." after "You were marooned on Tortuga again ...")."""
    kind = str(event.get("kind", ""))
    data = event.get("data") or {}
    context = Context(data, event.get("audience") is not None, Words(reader, names), told)
    teller = TELLERS.get(kind)
    if teller is None:
        return Line("other", _(LINES["other"]), False)
    said = teller(data, context)
    key, values = said[0], dict(said[1])
    complete = bool(said[2]) if len(said) > 2 else True
    if key in ("seat.away", "seat.back") and not (
            isinstance(context.seat, int) and context.seat in names):
        key, values = "table.talk/unknown", {}
    sentence = values.pop("_text", None) or _(LINES[key])
    text = fill(sentence, **values)
    if key != "table.talk":  # what a player said is quoted as written
        text = text[:1].upper() + text[1:]
    return Line(key, text, complete and not context.words.unknown)


def joined(cause: Mapping[str, Any], effect: Mapping[str, Any], reader: int | None,
           names: Mapping[int, str]) -> str:
    """One sentence for a card played on someone and what it did to them, cause first (a
    Letter of Marque and the move, a Pistol shot and the marooning)."""
    data, done = cause.get("data") or {}, effect.get("data") or {}
    words = Words(reader, names)
    source = str(done.get("source", ""))
    values = {"who": words.person(data.get("seat")), "target": words.person(data.get("target")),
              "source": words.place(source), "to": words.place(done.get("to", ""))}
    you = reader is not None and data.get("target") == reader
    if data.get("title") == "LETTER_OF_MARQUE":
        key = "joined/LETTER_OF_MARQUE" + ("/yourself" if you and data.get("seat") == reader
                                           else "")
    else:
        key = "joined/PISTOL" + ("/again" if source == "TORTUGA" else "") + \
            ("/to_you" if you else "")
    text = fill(_(LINES[key]), **values)
    return text[:1].upper() + text[1:]
