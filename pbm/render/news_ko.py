"""What happened, in Korean (issue 24): engine events told to a Korean reader.

The engine's sentences are English; a Korean reader's line is written here from the
event's data with the catalogue's words (``pbm.i18n.translate``) and the glossary's game
terms. Events with details the Korean sentences do not cover yet get a short line of what
kind of thing happened (never the English sentence): "보물이 옮겨졌습니다."
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbm.i18n import glossary
from pbm.i18n.translate import N_, _

MINE, TO_YOU, VOTE, OTHER = 0, 1, 2, 3

#: A short line per event kind, when no fuller Korean sentence is written for it.
KIND_LINES = {
    "treasure.moved": N_("A treasure was moved."),
    "treasure.placed": N_("A starting treasure was placed."),
    "treasure.declined": N_("No treasure was taken."),
    "treasure.stormy": N_("Stormy Seas moved treasure back."),
    "treasure.tortuga": N_("Tortuga's treasure changed."),
    "card.kept": N_("An Event card was kept."),
    "card.used": N_("An Event card was used."),
    "card.no_effect": N_("The Event card had no effect."),
    "card.discarded": N_("An Event card was discarded."),
    "vote_card.lost": N_("A Vote card was lost."),
    "vote_card.drawn": N_("You drew a new Vote card."),
    "vote.changed": N_("A vote was changed."),
    "turn.action": N_("A player took an action."),
    "pawn.reordered": N_("The crew changed places."),
    "game.sudden_death": N_("Sudden death: the game ends soon."),
    "game.over": N_("The game is over."),
    "fountain.window": N_("The Fountain of Youth may be used."),
    "event.row_reshuffled": N_("The Event cards were reshuffled."),
    "event.row_dealt": N_("New Event cards were dealt."),
    "event.reshuffled": N_("The Event cards were reshuffled."),
    "event.none_left": N_("No Event card is left."),
    "event.forced": N_("A player was forced to reveal an Event card."),
    "el_dorado.used": N_("El Dorado was used to play two Vote cards."),
    "captain.maroons": N_("The Captain marooned a player."),
    "attack.nothing": N_("The Attack took nothing."),
    "atlantis.ordered": N_("Atlantis was ordered."),
    "atlantis.lapsed": N_("The Atlantis order lapsed."),
    "albatross.struck": N_("Two Albatrosses struck a ship."),
    "seat.away": N_("A player is away."),
    "seat.back": N_("A player is back."),
    "table.talk": N_("A player spoke to the table."),
}

_PLACES = {"FD": ("ships", "FD"), "JR": ("ships", "JR"), "TORTUGA": ("places", "TORTUGA")}


def _who(names: Mapping[int, str], seat: Any, reader: int | None) -> str:
    if seat == reader:
        return _("you")
    return names.get(seat, _("someone")) if isinstance(seat, int) else _("someone")


def _place(code: str) -> str:
    if code in _PLACES:
        return glossary.term(*_PLACES[code], "ko")
    if code.endswith("_ROWBOAT"):
        ship = code.split("_")[0]
        return _("the {ship} rowboat").format(ship=glossary.term("ships", ship, "ko")
                                              if ship in ("FD", "JR") else ship)
    return code


def card_name(code: str) -> str:
    try:
        return glossary.event_name(code, "ko")
    except KeyError:
        return _("an Event card")


def voice(event: Mapping[str, Any], reader: int | None, names: Mapping[int, str],
          events: Sequence[Mapping[str, Any]] = ()) -> tuple[int, str] | None:
    """(priority, Korean sentence) of ``event`` for ``reader``; None to leave it out (the
    same choices as ``pbm.render.news.voice``)."""
    kind = str(event.get("kind", ""))
    data = event.get("data") or {}
    private = event.get("audience") is not None
    seat = data.get("seat")
    mine = reader is not None and seat == reader
    if kind in ("event.refilled", "turn.started") and not private:
        return None
    if kind == "vote.cast":
        return (MINE, _("You played your Vote card.")) if private else None
    if mine and not private and kind in ("event.viewed", "vote_card.drawn") and any(
            e.get("kind") == kind and e.get("audience") is not None for e in events):
        return None
    if kind == "event.viewed":
        cards = data.get("cards") or {}
        if private and cards:
            seen = ", ".join(_("card {n} is {name}").format(n=p, name=card_name(str(t)))
                             for p, t in cards.items())
            return MINE, _("You looked: {cards}.").format(cards=seen)
        return OTHER, _("{who} looked at Event cards.").format(who=_who(names, seat, reader))
    if kind == "event.revealed":
        return (MINE if mine else OTHER), _("{who} revealed {name} (card {n}).").format(
            who=_who(names, seat, reader), name=card_name(str(data.get("title"))),
            n=data.get("position"))
    if kind == "pawn.marooned":
        source = str(data.get("source", ""))
        cause = {"BLACK_SPOT": card_name("BLACK_SPOT"), "PISTOL": card_name("PISTOL"),
                 "MAROON": _("the Captain's order"),
                 "MUTINY": glossary.term("actions", "MUTINY", "ko"),
                 "ALBATROSS": card_name("ALBATROSS")}.get(str(data.get("cause", "")), "")
        where = _place(source)
        if source == "TORTUGA":
            text = (_("{who} was marooned on Tortuga again ({cause}).") if cause
                    else _("{who} was marooned on Tortuga again.")).format(
                who=_who(names, seat, reader), cause=cause)
        else:
            text = (_("{who} was marooned from {where} to Tortuga ({cause}).") if cause
                    else _("{who} was marooned from {where} to Tortuga.")).format(
                who=_who(names, seat, reader), where=where, cause=cause)
        return (TO_YOU if mine else OTHER), text
    if kind == "pawn.moved":
        return (MINE if mine else OTHER), _("{who} moved from {source} to {to}.").format(
            who=_who(names, seat, reader), source=_place(str(data.get("source", ""))),
            to=_place(str(data.get("to", ""))))
    if kind == "card.given" and isinstance(data.get("target"), int):
        giver, target = data.get("seat"), data.get("target")
        title = card_name(str(data.get("title")))
        if giver == target:
            return (MINE if mine else OTHER), _("{who} kept the {card}.").format(
                who=_who(names, giver, reader), card=title)
        return (TO_YOU if target == reader else MINE if mine else OTHER), \
            _("{giver} gave the {card} to {target}.").format(
                giver=_who(names, giver, reader), card=title,
                target=_who(names, target, reader))
    if kind == "vote.called" and isinstance(data.get("caller"), int):
        vote = str(data.get("vote", ""))
        word = glossary.term("actions", vote, "ko") if vote in (
            "ATTACK", "MUTINY", "BRAWL") else vote
        return (MINE if data["caller"] == reader else VOTE), \
            _("{who} called a {vote} vote.").format(who=_who(names, data["caller"], reader),
                                                    vote=word)
    if kind == "vote.result":
        vote = str(data.get("vote", ""))
        word = glossary.term("actions", vote, "ko") if vote in (
            "ATTACK", "MUTINY", "BRAWL") else vote
        won = str(data.get("outcome", "")) == "SUCCESS"
        shown = ", ".join(glossary.term("symbols", x, "ko") if (
            "symbols", x) in glossary.terms() else x for x in data.get("symbols") or [])
        text = (_("The {vote} vote succeeded.") if won
                else _("The {vote} vote failed.")).format(vote=word)
        if shown:
            text = _("{result} Cards shown: {symbols}.").format(result=text, symbols=shown)
        return (MINE if data.get("caller") == reader else VOTE), text
    if kind == "timeout.played" and mine:
        return TO_YOU, _("You ran out of time: a safe default was played for you.")
    if kind in KIND_LINES:
        return (MINE if private or mine else OTHER), _(KIND_LINES[kind])
    return (MINE if private or mine else OTHER), _("Something happened in the game.")
