"""Votes as a stage (rules reference section 6): Attack, Brawl and Mutiny.

Participants are fixed when the vote is called; each answers once, secretly, in any order;
the vote resolves when the last answer arrives. One card from the top of the Vote deck is
added, the cards are revealed in random order (never attributed), the played cards go to
the bottom of the deck in shuffled order, and every participant draws one.
"""

from __future__ import annotations

from functools import lru_cache

from engine.board import (
    Events,
    discard_kept,
    kept_card,
    maroon_unless_fountain,
    open_stage,
    say,
    shuffle,
    treasure_changed,
)
from engine.cards import VOTE_DECK, EventTitle, Hold, Location, Symbol, VoteKind
from engine.commands import ChangeVote, Take, Vote
from engine.state import GameState, TakeStage, VoteStage, hold_key, writable


def participants_of(s: GameState, kind: VoteKind, caller: int) -> tuple[int, ...]:
    """Who takes part when ``caller`` calls a vote now: the Attack ship's whole line, all of
    Tortuga for a Brawl, the ship minus its Captain for a Mutiny; without Vote cards no one
    takes part."""
    line = s.lines[_LINE_KEY[s.location(caller)]]
    if kind is VoteKind.MUTINY:
        line = line[1:]
    hands = s.hands
    return tuple([seat for seat in line if hands[seat]])


_LINE_KEY = {loc: loc.value for loc in Location}  # (an enum's .value is slow to read)


_ARTICLE = {VoteKind.ATTACK: "an", VoteKind.BRAWL: "a", VoteKind.MUTINY: "a"}


def call_vote(s: GameState, ev: Events, kind: VoteKind, caller: int) -> None:
    """Open the vote stage (resolves at once if nobody can take part)."""
    participants = participants_of(s, kind, caller)
    who = ", ".join(s.names[p] for p in participants) or "nobody"
    say(ev, "vote.called",
        f"{s.names[caller]} called for {_ARTICLE[kind]} {kind.value.capitalize()}; "
        f"voting: {who}.",
        vote=kind.value, caller=caller, participants=list(participants))
    # VoteStage(kind, caller, participants) without the frozen dataclass's __init__ (as in
    # cast_vote), fields in their order.
    stage = _new(VoteStage)
    fields = stage.__dict__
    fields["vote"] = kind
    fields["caller"] = caller
    fields["participants"] = participants
    fields["played"] = fields["hands"] = ()
    open_stage(s, stage)
    if not participants:
        resolve_vote(s, ev)


def vote_options(s: GameState, seat: int) -> tuple[Vote, ...]:
    """Every legal ``VOTE`` for ``seat``: one card, or two with an unused El Dorado."""
    return _vote_options(len(s.hands[seat]),
                         kept_card(s, seat, EventTitle.EL_DORADO) is not None)


@lru_cache(maxsize=64)
def _vote_options(k: int, el_dorado: bool) -> tuple[Vote, ...]:
    # Memoised: commands are immutable values, and hands are small.
    options = [Vote((i,)) for i in range(1, k + 1)]
    if el_dorado:
        options += [Vote((i, j)) for i in range(1, k + 1) for j in range(i + 1, k + 1)]
    return tuple(options)


def cast_vote(s: GameState, ev: Events, seat: int, command: Vote) -> None:
    """Record one secret answer; resolve the vote when it is the last."""
    stage = s.stage
    assert isinstance(stage, VoteStage)
    before = tuple(s.hands[seat])
    hand = writable(s, "hands")[seat] = [*before]  # a seat's list is replaced
    cards = tuple([hand[i - 1] for i in command.cards])
    for card in cards:
        hand.remove(card)
    # VoteStage(vote, caller, participants, played, hands) without the frozen dataclass's
    # __init__ (one object.__setattr__ per field): the same object, built at less cost.
    new = _new(VoteStage)
    new.__dict__.update(stage.__dict__)
    new.__dict__["played"] = (*stage.played, (seat, cards))
    new.__dict__["hands"] = (*stage.hands, (seat, before))
    s.stage = new
    say(ev, "vote.cast", f"{s.names[seat]} has voted.", seat=seat)
    played = " and ".join([_DESCRIBED[c] for c in cards])
    say(ev, "vote.cast", f"You played {played}.", audience=[seat], seat=seat,
        cards=list(cards))
    # (not new.awaiting(): while fewer have answered than take part, someone is awaited)
    if len(new.played) >= len(stage.participants) and not new.awaiting():
        resolve_vote(s, ev)


_new = object.__new__


def change_options(s: GameState, seat: int) -> tuple[ChangeVote, ...]:
    """Every legal ``REVOTE`` for ``seat``: while the vote is open and ``seat`` has answered,
    any answer it could have given from the hand it voted from, but the one it gave."""
    stage = s.stage
    if not isinstance(stage, VoteStage):
        return ()
    before = stage.hand_before(seat)
    if before is None:
        return ()
    played = dict(stage.played)[seat]
    current = tuple(sorted(before.index(card) + 1 for card in played))
    options = _vote_options(len(before), kept_card(s, seat, EventTitle.EL_DORADO) is not None)
    return tuple(ChangeVote(o.cards) for o in options if o.cards != current)


def change_vote(s: GameState, ev: Events, seat: int, command: ChangeVote) -> None:
    """Replace ``seat``'s secret answer in the open vote: the cards it played go back to its
    hand, in their places, and the new ones are played. Only the seat is told; the table
    sees nothing (the vote is still open and nobody has seen a card)."""
    stage = s.stage
    assert isinstance(stage, VoteStage)
    before = stage.hand_before(seat)
    assert before is not None
    old = dict(stage.played)[seat]
    cards = tuple([before[i - 1] for i in command.cards])
    writable(s, "hands")[seat] = [card for card in before if card not in cards]
    new = _new(VoteStage)
    new.__dict__.update(stage.__dict__)
    new.__dict__["played"] = tuple(
        [(voter, cards if voter == seat else ids) for voter, ids in stage.played])
    s.stage = new
    played = " and ".join([_DESCRIBED[c] for c in cards])
    instead = " and ".join([_DESCRIBED[c] for c in old])
    say(ev, "vote.changed", f"You now play {played} (instead of {instead}).",
        audience=[seat], seat=seat, cards=list(cards), replaced=list(old))


_OUTCOME_TEXT: dict[tuple[VoteKind, str], str] = {
    (VoteKind.ATTACK, "SUCCESS"): "the Attack succeeds",
    (VoteKind.ATTACK, "FAILURE"): "the Attack fails",
    (VoteKind.BRAWL, "BRITISH"): "the British flags win",
    (VoteKind.BRAWL, "FRENCH"): "the French flags win",
    (VoteKind.BRAWL, "TIE"): "a tie",
    (VoteKind.MUTINY, "SUCCESS"): "the Mutiny succeeds",
    (VoteKind.MUTINY, "FAILURE"): "the Mutiny fails",
}


def resolve_vote(s: GameState, ev: Events) -> None:
    """Reveal, count, return the cards, let participants draw, then carry out the result."""
    stage = s.stage
    assert isinstance(stage, VoteStage)
    kind = stage.vote
    cards = [c for _, ids in stage.played for c in ids]
    if s.vote_deck:
        cards.append(writable(s, "vote_deck").pop(0))
    shuffle(s, cards)
    section = _SECTION[kind]  # VOTE_DECK[c].section(kind) by card id
    symbols = [sym for c in cards for sym in section[c]]
    counts: dict[Symbol, int] = {}
    for sym in symbols:
        counts[sym] = counts.get(sym, 0) + 1
    if kind is _ATTACK:
        cannons, torches, waters = (counts.get(Symbol.CANNON, 0), counts.get(Symbol.TORCH, 0),
                                    counts.get(Symbol.WATER, 0))
        success = cannons >= 1 and torches - waters >= 1  # each water cancels one torch
        outcome = "SUCCESS" if success else "FAILURE"
    elif kind is _BRAWL:
        british, french = counts.get(Symbol.BRITISH, 0), counts.get(Symbol.FRENCH, 0)
        outcome = "BRITISH" if british > french else "FRENCH" if french > british else "TIE"
    else:
        skulls, helms = counts.get(Symbol.SKULL, 0), counts.get(Symbol.HELM, 0)
        outcome = "SUCCESS" if skulls > helms else "FAILURE"  # a tie changes nothing
    for seat, ids in stage.played:
        if len(ids) == 2:
            card = kept_card(s, seat, EventTitle.EL_DORADO)
            assert card is not None
            discard_kept(s, seat, card)
            say(ev, "el_dorado.used",
                f"{s.names[seat]} used El Dorado to play two Vote cards.", seat=seat)
    codes = [_CODE[sym] for sym in symbols]
    shown = ", ".join([code.lower() for code in codes]) or "no cards"
    code = _CODE[kind]
    say(ev, "vote.result",
        f"The {code.capitalize()} vote shows {shown}: {_OUTCOME_TEXT[kind, outcome]}.",
        vote=code, caller=stage.caller, outcome=outcome,
        symbols=codes,
        revealed=[_DESCRIBED[c] for c in cards],
        counts={_CODE[sym]: n for sym, n in sorted(counts.items())})
    bottom = list(cards)
    shuffle(s, bottom)
    deck = writable(s, "vote_deck")
    deck.extend(bottom)
    if stage.participants and deck:
        hands = writable(s, "hands")
        for seat in stage.participants:
            if deck:
                drawn = deck.pop(0)
                hands[seat] = [*hands[seat], drawn]
                say(ev, "vote_card.drawn", f"You drew {_DESCRIBED[drawn]}.",
                    audience=[seat], seat=seat, card=drawn)
    s.stage = None
    if kind is _ATTACK and outcome == "SUCCESS":
        _attack_succeeded(s, ev, stage.caller)
    elif kind is _BRAWL:
        _brawl_result(s, ev, outcome)
    elif kind is VoteKind.MUTINY and outcome == "SUCCESS":
        ship = s.location(stage.caller)
        captain = s.lines[ship.value][0]
        maroon_unless_fountain(s, ev, captain, "MUTINY", stage.caller)


# Enum attributes are slow to read: the hot paths use these plain values.
_CODE: dict[str, str] = {**{sym: sym.value for sym in Symbol},
                         **{kind: kind.value for kind in VoteKind}}
_ATTACK, _BRAWL = VoteKind.ATTACK, VoteKind.BRAWL
_DESCRIBED = tuple(card.describe() for card in VOTE_DECK)  # by Vote card id
_SECTION = {kind: tuple(card.section(kind) for card in VOTE_DECK) for kind in VoteKind}


def take_options(s: GameState, captain: int) -> tuple[Take, ...]:
    """Where a successful Attack's treasure may come from and go (OQ-9: maybe nowhere)."""
    loc = s.location(captain)
    ship = loc.ship
    assert ship is not None
    if s.treasure["GALLEON"] > 0:
        return _FROM_GALLEON
    other = ship.other
    return tuple(
        _TAKE[to, source] for source in Hold if s.treasure[hold_key(other, source)] > 0
        for to in Hold
    )


# Commands are immutable values: the options share these.
_FROM_GALLEON = tuple(Take(to) for to in Hold)
_TAKE = {(to, source): Take(to, source) for source in Hold for to in Hold}


def _attack_succeeded(s: GameState, ev: Events, captain: int) -> None:
    if take_options(s, captain):
        open_stage(s, TakeStage(captain))
    else:
        # OQ-9: an Attack with nothing to take may be held; success moves nothing.
        say(ev, "attack.nothing", "The Attack succeeded but there is no treasure to take.",
            caller=captain)


def take(s: GameState, ev: Events, captain: int, command: Take) -> None:
    """Move the plundered token: from the Galleon, else from the other ship's hold."""
    ship = s.location(captain).ship
    assert ship is not None
    if command.source is None:
        src, where = "GALLEON", "the Spanish Galleon"
    else:
        src = hold_key(ship.other, command.source)
        where = f"the {ship.other.label}'s {command.source.value.capitalize()} hold"
    s.stage = None
    dst = hold_key(ship, command.to)
    treasure = writable(s, "treasure")
    treasure[src] -= 1
    treasure[dst] += 1
    say(ev, "treasure.moved",
        f"{s.names[captain]} took 1 treasure from {where} into the {ship.label}'s "
        f"{command.to.value.capitalize()} hold.", source=src, to=dst, seat=captain)
    treasure_changed(s, ev)


def _brawl_result(s: GameState, ev: Events, outcome: str) -> None:
    before = (s.treasure["TORTUGA_BRITISH"], s.treasure["TORTUGA_FRENCH"])
    total = before[0] + before[1]
    if outcome == "BRITISH":
        after = (total, 0)
    elif outcome == "FRENCH":
        after = (0, total)
    else:
        after = (total // 2, total - total // 2)
    treasure = writable(s, "treasure")
    treasure["TORTUGA_BRITISH"], treasure["TORTUGA_FRENCH"] = after
    say(ev, "treasure.tortuga",
        f"Tortuga's treasure now lies {after[0]} British, {after[1]} French.",
        british=after[0], french=after[1])
    if after != before:
        treasure_changed(s, ev)

