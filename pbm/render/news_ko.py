"""What happened, in Korean (issue 24): engine events told to a Korean reader.

The engine's sentences are English; a Korean reader's line is written here from the
event's data with the catalogue's words (``pbm.i18n.translate``) and the glossary's game
terms, never from the English sentence. Every event kind the engine writes has its own
sentence (``tests/pbm/test_news_korean.py`` enumerates the engine's kinds), in the second
person for the reader's own moves ("당신이 3번 카드(알바트로스)를 공개했습니다."):

- :func:`voice` is the reader's line in news (prompts, answers, recaps), with the same
  choices as ``pbm.render.news.voice`` (which lines to leave out, their priority);
- :func:`log_line` is an event's line in LOG, for every event (LOG also tells the public
  lines news leaves out, e.g. whose turn began).

Players are "민준 님" (the reader: "당신"), so the particles after them are the ones after a
final consonant (님이, 님을, 당신이); the particle after a game word is chosen by its last
syllable (:func:`josa`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards import VOTE_DECK
from pbm.i18n import glossary
from pbm.i18n.translate import N_, _

MINE, TO_YOU, VOTE, OTHER = 0, 1, 2, 3

#: Event kinds written by the service, not the engine: a line each.
KIND_LINES = {
    "seat.away": N_("A player is away."),
    "seat.back": N_("A player is back."),
    "table.talk": N_("A player spoke to the table."),
}

_PLACES = {"FD": ("ships", "FD"), "JR": ("ships", "JR"), "TORTUGA": ("places", "TORTUGA"),
           "GALLEON": ("ships", "GALLEON")}
_OUTCOMES = {
    ("ATTACK", "SUCCESS"): N_("the Attack succeeds"),
    ("ATTACK", "FAILURE"): N_("the Attack fails"),
    ("BRAWL", "BRITISH"): N_("the British flags win"),
    ("BRAWL", "FRENCH"): N_("the French flags win"),
    ("BRAWL", "TIE"): N_("a tie: the treasure is split"),
    ("MUTINY", "SUCCESS"): N_("the Mutiny succeeds"),
    ("MUTINY", "FAILURE"): N_("the Mutiny fails"),
}
_END_REASONS = {
    "sudden death: took the lead": N_("sudden death: one team took the lead"),
    "the Spanish Armada arrived": N_("the Spanish Armada arrived"),
    "the Spanish Armada arrived with the teams tied": N_(
        "the Spanish Armada arrived with the teams tied"),
}


def josa(word: str, after_consonant: str, after_vowel: str) -> str:
    """``word`` with the particle its last syllable takes: ``josa("공격", "을", "를")`` ->
    ``"공격을"``; ``"로"`` after ㄹ as after a vowel (``"토르투가로"``, ``"일로"``)."""
    last = word.rstrip()[-1:] if word.strip() else ""
    if not ("\uac00" <= last <= "\ud7a3"):
        return word + after_vowel
    final = (ord(last) - 0xAC00) % 28
    if after_vowel == "로" and final == 8:  # ㄹ
        return word + after_vowel
    return word + (after_consonant if final else after_vowel)


def _who(names: Mapping[int, str], seat: Any, reader: int | None) -> str:
    """"당신" for the reader, "민준 님" for another player ("어떤 선원" when unknown):
    every form ends in a consonant, so sentences write 이 / 을 / 은 after it."""
    if seat == reader and reader is not None:
        return _("you")
    if isinstance(seat, int) and seat in names:
        return _("{name} (player)").format(name=names[seat])
    return _("a crew member")


def _place(code: str) -> str:
    if code in _PLACES:
        return glossary.term(*_PLACES[code], "ko")
    if code.endswith("_ROWBOAT"):
        ship = code.split("_")[0]
        return _("the {ship} rowboat").format(ship=glossary.term("ships", ship, "ko")
                                              if ship in ("FD", "JR") else ship)
    return code


def _treasure_place(key: str) -> str:
    """``FD_BRITISH`` -> "플라잉 더치맨의 영국 보관함"; ``GALLEON`` -> "스페인 갈레온"."""
    if "_" in key and key != "UNPLACED":
        where, hold = key.rsplit("_", 1)
        if hold in ("BRITISH", "FRENCH"):
            return _("the {hold} hold of {where}").format(
                hold=glossary.term("teams", hold, "ko"), where=_place(where))
    if key == "UNPLACED":
        return _("the starting treasure")
    return _place(key)


def card_name(code: str) -> str:
    try:
        return glossary.event_name(code, "ko")
    except KeyError:
        return _("an Event card")


def _vote_word(vote: str) -> str:
    return glossary.term("actions", vote, "ko") if vote in ("ATTACK", "MUTINY", "BRAWL") \
        else vote


def vote_card_text(card: Any) -> str:
    """A Vote card's three symbols in Korean: "대포 / 영국 국기 / 해골"."""
    try:
        info = VOTE_DECK[int(card)]
    except (TypeError, ValueError, IndexError):
        return _("a Vote card")
    parts = []
    for symbols in (info.top, info.middle, info.bottom):
        word = glossary.term("symbols", symbols[0].value, "ko")
        parts.append(word if len(symbols) == 1 else f"{word} {len(symbols)}")
    return " / ".join(parts)


def _names_list(names: Mapping[int, str], seats: Any, reader: int | None) -> str:
    return ", ".join(_who(names, s, reader) for s in seats or []) or _("nobody")


def _sentence(event: Mapping[str, Any], reader: int | None,
              names: Mapping[int, str]) -> str:
    """The Korean sentence of one event, whatever its audience (LOG and news)."""
    kind = str(event.get("kind", ""))
    data = event.get("data") or {}
    private = event.get("audience") is not None
    seat = data.get("seat")
    who = _who(names, seat, reader)
    title = str(data.get("title", ""))
    if kind == "turn.started":
        return _("It is {who}'s turn.").format(who=who)
    if kind == "turn.action":
        return _("{who} takes action {n} of {of}.").format(who=who, n=data.get("action"),
                                                          of=data.get("of"))
    if kind == "treasure.placed":
        return _("{who} placed the {ship}'s starting treasure in its {hold} hold.").format(
            who=who, ship=_place(str(data.get("ship", ""))),
            hold=glossary.term("teams", str(data.get("hold")), "ko")
            if data.get("hold") in ("BRITISH", "FRENCH") else data.get("hold"))
    if kind == "treasure.declined":
        return _("{who} took no treasure.").format(who=who)
    if kind == "treasure.moved":
        source, to = str(data.get("source", "")), str(data.get("to", ""))
        if title == "TREASURE_MAP":
            return _("{who} followed a Treasure Map: 1 treasure from the Spanish Galleon into "
                     "{to}.").format(who=who, to=_treasure_place(to))
        if isinstance(seat, int):
            return _("{who} took 1 treasure from {source} into {to}.").format(
                who=who, source=_treasure_place(source), to=_treasure_place(to))
        return _("1 treasure moved from {source} to {to}.").format(
            source=_treasure_place(source), to=josa(_treasure_place(to), "으로", "로"))
    if kind == "treasure.tortuga":
        return _("Tortuga's treasure now lies {british} British, {french} French.").format(
            british=data.get("british"), french=data.get("french"))
    if kind == "treasure.stormy":
        if data.get("ship"):
            return _("Stormy Seas: {amount} treasure from the {ship} returned to the "
                     "Galleon.").format(amount=data.get("amount"),
                                        ship=_place(str(data.get("ship"))))
        return _("Stormy Seas: Tortuga's treasure returned to 1 British and 1 French.")
    if kind == "card.no_effect":
        if title == "EIGHT_BELLS":
            return _("Eight Bells has no effect: nobody to reorder.")
        if title == "STORMY_SEAS":
            return _("Stormy Seas has no effect on a rowboat.")
        return _("The Event card had no effect.")
    if kind == "card.discarded":
        return _("{who} let the Letter of Marque go: nobody was on Tortuga or in a rowboat, "
                 "so it had no effect.").format(who=who)
    if kind == "card.kept":
        if title == "LETTER_OF_MARQUE":
            return _("{who} saved the Letter of Marque for later.").format(who=who)
        if title == "ALBATROSS":
            return _("{who} must keep the Albatross.").format(who=who)
        return _("{who} now owns {card}.").format(who=who, card=josa(card_name(title),
                                                                    "을", "를"))
    if kind == "card.used":
        target = _who(names, data.get("target"), reader)
        if title == "FOUNTAIN_OF_YOUTH":
            return _("{who} drank from the Fountain of Youth and was not marooned.").format(
                who=who)
        if title == "LETTER_OF_MARQUE":
            return _("{who} used a Letter of Marque on {target} for the {ship}.").format(
                who=who, target=target, ship=_place(str(data.get("ship", ""))))
        if title == "PISTOL":
            return _("{who} shot {target} with the Pistol.").format(who=who, target=target)
        if title == "ATLANTIS":
            return _("{who} sailed through Atlantis.").format(who=who)
        return _("{who} used {card}.").format(who=who, card=josa(card_name(title), "을", "를"))
    if kind == "card.given" and isinstance(data.get("target"), int):
        giver, given_to = data.get("seat"), data.get("target")
        if giver == given_to:
            return _("{who} kept the {card}.").format(who=who, card=josa(card_name(title),
                                                                         "을", "를"))
        return _("{giver} gave the {card} to {target}.").format(
            giver=_who(names, giver, reader), card=josa(card_name(title), "을", "를"),
            target=_who(names, given_to, reader))
    if kind == "event.viewed":
        cards = data.get("cards") or {}
        if private and cards:
            seen = ", ".join(_("card {n} is {name}").format(n=p, name=card_name(str(t)))
                             for p, t in cards.items())
            return _("You looked: {cards}.").format(cards=seen)
        positions = data.get("positions") or []
        if positions:
            return _("{who} secretly looked at Event cards {cards}.").format(
                who=who, cards=_(" and ").join(str(p) for p in positions))
        return _("{who} looked at Event cards.").format(who=who)
    if kind == "event.revealed":
        return _("{who} revealed {name} (card {n}).").format(
            who=who, name=card_name(title), n=data.get("position"))
    if kind == "event.forced":
        positions = list(data.get("positions") or [])
        return _("{who} made {target} reveal Event card {a} or {b}.").format(
            who=who, target=_who(names, data.get("target"), reader),
            a=positions[0] if positions else "?", b=positions[1] if len(positions) > 1 else "?")
    if kind == "event.refilled":
        return _("A new face-down Event card was laid at position {n}.").format(
            n=data.get("position"))
    if kind == "event.row_reshuffled":
        return _("The Event deck is empty: the row was shuffled and laid out again; revealed "
                 "cards will no longer be replaced.")
    if kind == "event.row_dealt":
        return _("A new row of Event cards was dealt; {deck} remain in the deck.").format(
            deck=data.get("deck"))
    if kind == "event.reshuffled":
        return _("Sudden death goes on: the discard pile was shuffled into a new Event deck.")
    if kind == "event.none_left":
        return _("No Event cards are left to deal.")
    if kind == "game.sudden_death":
        return _("The Spanish Armada arrived with the teams tied at {british}: sudden death! "
                 "The first team to take the lead wins.").format(british=data.get("british"))
    if kind == "game.over":
        winner = str(data.get("winner", ""))
        reason = str(data.get("reason", ""))
        return _("The game is over: the {team} win ({reason}). British {british}, French "
                 "{french}.").format(
            team=glossary.term("teams", winner, "ko") if ("teams", winner) in glossary.terms()
            else winner, reason=_(_END_REASONS[reason]) if reason in _END_REASONS
            else _("the game ended"), british=data.get("british"), french=data.get("french"))
    if kind == "pawn.moved":
        source, to = _place(str(data.get("source", ""))), _place(str(data.get("to", "")))
        if data.get("by") == "LETTER_OF_MARQUE":
            return _("{who} was moved from {source} to {to} by a Letter of Marque.").format(
                who=who, source=source, to=josa(to, "으로", "로"))
        return _("{who} moved from {source} to {to}.").format(
            who=who, source=source, to=josa(to, "으로", "로"))
    if kind == "pawn.marooned":
        source = str(data.get("source", ""))
        cause = {"BLACK_SPOT": card_name("BLACK_SPOT"), "PISTOL": card_name("PISTOL"),
                 "MAROON": _("the Captain's order"),
                 "MUTINY": glossary.term("actions", "MUTINY", "ko"),
                 "ALBATROSS": card_name("ALBATROSS")}.get(str(data.get("cause", "")), "")
        if source == "TORTUGA":
            return (_("{who} was marooned on Tortuga again ({cause}).") if cause
                    else _("{who} was marooned on Tortuga again.")).format(who=who, cause=cause)
        return (_("{who} was marooned from {where} to Tortuga ({cause}).") if cause
                else _("{who} was marooned from {where} to Tortuga.")).format(
            who=who, where=_place(source), cause=cause)
    if kind == "pawn.reordered":
        order = " → ".join(_who(names, s, reader) for s in data.get("line") or [])
        return _("Eight Bells: the line on {where} is now {order}.").format(
            where=_place(str(data.get("location", ""))), order=order)
    if kind == "albatross.struck":
        return _("Two Albatrosses aboard the {ship}: everyone on it is marooned.").format(
            ship=_place(str(data.get("ship", ""))))
    if kind == "fountain.window":
        return _("{who} is about to be marooned and may drink from the Fountain of "
                 "Youth.").format(who=who)
    if kind == "captain.maroons":
        return _("Captain {who} marooned {target}.").format(
            who=who, target=_who(names, data.get("target"), reader))
    if kind == "vote_card.lost":
        if private:
            return _("You lost the Vote card {card}.").format(
                card=vote_card_text(data.get("card")))
        return (_("{who} was marooned on Tortuga again and lost a Vote card.")
                if data.get("lost") else
                _("{who} was marooned on Tortuga again but had no Vote card to lose.")
                ).format(who=who)
    if kind == "vote_card.drawn":
        if private:
            return _("You drew a new Vote card: {card}.").format(
                card=vote_card_text(data.get("card")))
        return _("{who} drew an extra Vote card.").format(who=who)
    if kind == "vote.called":
        return _("{who} called for {vote}; voting: {voters}.").format(
            who=_who(names, data.get("caller"), reader),
            vote=josa(_vote_word(str(data.get("vote", ""))), "을", "를"),
            voters=_names_list(names, data.get("participants"), reader))
    if kind == "vote.cast":
        if private:
            cards = data.get("cards") or []
            return _("You played {cards}.").format(cards=_(" and ").join(
                vote_card_text(c) for c in cards)) if cards else _("You played your Vote card.")
        return _("{who} has voted.").format(who=who)
    if kind == "vote.changed":
        return _("You now play {cards} (instead of {old}).").format(
            cards=_(" and ").join(vote_card_text(c) for c in data.get("cards") or []),
            old=_(" and ").join(vote_card_text(c) for c in data.get("replaced") or []))
    if kind == "el_dorado.used":
        return _("{who} used El Dorado to play two Vote cards.").format(who=who)
    if kind == "vote.result":
        vote = str(data.get("vote", ""))
        outcome = _OUTCOMES.get((vote, str(data.get("outcome", ""))))
        shown = ", ".join(glossary.term("symbols", x, "ko") if (
            "symbols", x) in glossary.terms() else x for x in data.get("symbols") or []) \
            or _("no cards")
        text = (_("Your {vote} vote shows {symbols}: {outcome}.")
                if data.get("caller") == reader and reader is not None else
                _("The {vote} vote shows {symbols}: {outcome}.")).format(
            vote=_vote_word(vote), symbols=shown,
            outcome=_(outcome) if outcome else _("the vote is counted"))
        return text
    if kind == "attack.nothing":
        return _("The Attack succeeded but there is no treasure to take.")
    if kind == "atlantis.ordered":
        return _("Your Atlantis order stands: it is carried out just before the next turn "
                 "begins.")
    if kind == "atlantis.lapsed":
        return _("Your Atlantis order could not be carried out (you must be on a ship and the "
                 "other ship must have room); you keep the card.")
    if kind == "timeout.played":
        if seat == reader and reader is not None:
            return _("You ran out of time: a safe default was played for you.")
        return _("{who} ran out of time: a safe default was played for them.").format(who=who)
    if kind in ("seat.away", "seat.back") and isinstance(seat, int) and seat in names:
        return (_("{who} is away.") if kind == "seat.away" else _("{who} is back.")).format(
            who=who)
    if kind in KIND_LINES:
        return _(KIND_LINES[kind])
    return _("Something happened in the game.")


def joined(cause: Mapping[str, Any], effect: Mapping[str, Any], reader: int | None,
           names: Mapping[int, str]) -> str:
    """A card and what it did to someone in one sentence, cause first
    (``pbm.render.news.caused_pairs``)."""
    data, done = cause.get("data") or {}, effect.get("data") or {}
    who = _who(names, data.get("seat"), reader)
    target = _who(names, data.get("target"), reader)
    source = str(done.get("source", ""))
    if data.get("title") == "LETTER_OF_MARQUE":
        return _("{who} used a Letter of Marque to move {target} from {source} to "
                 "{to}.").format(who=who, target=target, source=_place(source),
                                 to=josa(_place(str(done.get("to", ""))), "으로", "로"))
    if source == "TORTUGA":
        return _("{who} shot {target} with the Pistol: marooned on Tortuga again.").format(
            who=who, target=target)
    return _("{who} shot {target} with the Pistol: marooned from {where} to "
             "Tortuga.").format(who=who, target=target, where=_place(source))


def log_line(event: Mapping[str, Any], reader: int | None, names: Mapping[int, str]) -> str:
    """The Korean line of ``event`` in LOG (every event has one)."""
    return _sentence(event, reader, names)


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
        return (MINE, _sentence(event, reader, names)) if private else None
    if mine and not private and kind in ("event.viewed", "vote_card.drawn") and any(
            e.get("kind") == kind and e.get("audience") is not None for e in events):
        return None
    if kind == "vote_card.lost" and mine and not private and any(
            e.get("kind") == kind and e.get("audience") for e in events):
        return None
    if kind == "vote_card.lost" and not private and any(
            e.get("kind") == "pawn.marooned" and (e.get("data") or {}).get("seat") == seat
            and e.get("audience") is None for e in events):  # the marooning is told there
        who = _who(names, seat, reader)
        return (TO_YOU if mine else OTHER), (
            _("{who} lost a Vote card.") if data.get("lost") else
            _("{who} had no Vote card to lose.")).format(who=who)
    text = _sentence(event, reader, names)
    if kind in ("vote.called", "vote.result"):
        return (MINE if data.get("caller") == reader and reader is not None else VOTE), text
    if kind == "card.given" and isinstance(data.get("target"), int):
        return (TO_YOU if data.get("target") == reader and not mine else
                MINE if mine else OTHER), text
    if kind in ("pawn.marooned", "vote_card.lost", "timeout.played") or (
            kind == "pawn.moved" and data.get("by") == "LETTER_OF_MARQUE"):
        return (TO_YOU if mine else OTHER), text
    if data.get("target") == reader and reader is not None:
        return TO_YOU, text
    return (MINE if private or mine else OTHER), text
