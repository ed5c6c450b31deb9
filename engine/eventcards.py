"""The Event row (view, reveal, refill, exhaustion, sudden death) and every Event card's
effect, in one dispatch table :data:`EFFECTS` (rules reference sections 8 to 10)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import repeat
from typing import TypeVar

from engine.board import (
    Events,
    check_albatross,
    discard_kept,
    end_game,
    kept_card,
    maroon_unless_fountain,
    move_pawn,
    open_stage,
    say,
    ship_has_room,
    shuffle,
    treasure_changed,
    where_name,
)
from engine.cards import (
    EVENT_CARDS,
    ROW_SIZE,
    SHIP_CAPACITY,
    VOTE_DECK,
    EventTitle,
    Hold,
    Location,
    Loyalty,
    Ship,
)
from engine.commands import Marque, Save
from engine.scoring import team_totals
from engine.state import GameState, GiveStage, MarqueStage, ShootStage, hold_key, writable

# ---------------------------------------------------------------- the row


def face_down(s: GameState) -> list[int]:
    """Row positions (1..5) holding a face-down card."""
    return [i + 1 for i, card in enumerate(s.row) if card is not None]


def view_cards(s: GameState, ev: Events, seat: int, positions: tuple[int, ...]) -> None:
    """Privately look at face-down cards; the seat's knowledge is tracked by position."""
    peeks = writable(s, "peeks")[seat] = {**s.peeks[seat]}  # a seat's dict is replaced
    row, seen = s.row, s.seen[seat]
    new: list[int] = []  # (the positions hold different cards)
    for p in positions:
        card = row[p - 1]
        assert card is not None
        peeks[p] = card
        if card not in seen:
            new.append(card)
    if new:
        writable(s, "seen")[seat] = [*seen, *new]  # a seat's list is replaced
    where = " and ".join(map(str, positions))
    cards = "Event card" if len(positions) == 1 else "Event cards"
    say(ev, "event.viewed", f"{s.names[seat]} looked at {cards} {where}.",
        seat=seat, positions=list(positions))
    titles = "; ".join([f"{p}: {_title(s.row[p - 1])}" for p in positions])
    say(ev, "event.viewed", f"You looked at {cards} {titles}.", audience=[seat],
        seat=seat, cards={str(p): _title_code(s.row[p - 1]) for p in positions})


def _title(card: int | None) -> str:
    assert card is not None
    return _LABEL[EVENT_CARDS[card]]


def _title_code(card: int | None) -> str:
    assert card is not None
    return _CODE[EVENT_CARDS[card]]


# Enum attributes are slow to read: the hot paths use these tables of plain values.
_LABEL = {title: title.label for title in EventTitle}
_CODE = {title: title.value for title in EventTitle}


def _forget_position(s: GameState, position: int) -> None:
    if not any(map(dict.__contains__, s.peeks, repeat(position))):
        return  # nobody knows the spot: no change
    s.peeks = [{k: v for k, v in peeks.items() if k != position} if position in peeks
               else peeks for peeks in s.peeks]  # replaced, never changed in place


def _forget_all(s: GameState) -> None:
    s.peeks = [{} for _ in s.peeks]  # replaced, never changed in place


def reveal(s: GameState, ev: Events, position: int, revealer: int) -> None:
    """Flip the card at ``position``; ``revealer`` resolves it; its spot is refilled when
    the whole action is over (:func:`refill`)."""
    card = s.row[position - 1]
    assert card is not None
    writable(s, "row")[position - 1] = None
    if any(map(dict.__contains__, s.peeks, repeat(position))):  # (else no change)
        _forget_position(s, position)
    s.refill_position = position
    title = EVENT_CARDS[card]
    say(ev, "event.revealed",
        f"{s.names[revealer]} revealed {_LABEL[title]} (card {position}).",
        seat=revealer, position=position, title=_CODE[title])
    s.stage = None
    EFFECTS[title](s, ev, revealer, card)


def refill(s: GameState, ev: Events) -> None:
    """Refill the spot of the card just resolved from the top of the deck. When the deck
    runs out, the row's cards are shuffled and laid out again (all positional knowledge
    is lost) and no further refills happen."""
    position = s.refill_position
    s.refill_position = None
    if position is None or s.row[position - 1] is not None or not s.event_deck:
        return
    writable(s, "row")[position - 1] = writable(s, "event_deck").pop(0)
    say(ev, "event.refilled", f"A new face-down Event card was laid at {position}.",
        position=position, deck=len(s.event_deck))
    if not s.event_deck:
        _exhaust(s, ev)


def _exhaust(s: GameState, ev: Events) -> None:
    cards = [c for c in s.row if c is not None]
    shuffle(s, cards)
    s.row = [*cards, *([None] * (ROW_SIZE - len(cards)))]
    _forget_all(s)
    s.exhausted = True
    say(ev, "event.row_reshuffled",
        "The Event deck is empty: the row was shuffled and laid out again; revealed cards "
        "will no longer be replaced.", count=len(cards))


def _deal_row(s: GameState, ev: Events, cards: list[int]) -> None:
    shuffle(s, cards)
    s.row = [cards.pop(0) if cards else None for _ in range(ROW_SIZE)]
    s.event_deck = cards
    s.exhausted = False
    _forget_all(s)
    say(ev, "event.row_dealt",
        f"A new Event row of {sum(c is not None for c in s.row)} cards was dealt; "
        f"{len(s.event_deck)} remain in the deck.", deck=len(s.event_deck),
        dealt=sum(c is not None for c in s.row))
    if not s.event_deck:
        s.exhausted = True


def renew_sudden_death_row(s: GameState, ev: Events) -> None:
    """OQ-12: in sudden death, when row and deck are both empty, the discard pile (never
    the cards in front of players) becomes a new deck and a new row is dealt."""
    if not s.sudden_death or s.over or s.event_deck or any(c is not None for c in s.row):
        return
    if not s.discard:
        say(ev, "event.none_left", "No Event cards are left to deal.")
        return
    cards = list(s.discard)
    s.discard = []
    say(ev, "event.reshuffled",
        "Sudden death goes on: the discard pile was shuffled into a new Event deck (OQ-12).")
    _deal_row(s, ev, cards)


# ---------------------------------------------------------------- the cards

Effect = Callable[[GameState, Events, int, int], None]


def _spanish_armada(s: GameState, ev: Events, revealer: int, card: int) -> None:
    british, french = team_totals(s)
    if british != french:
        winner = Loyalty.BRITISH if british > french else Loyalty.FRENCH
        writable(s, "discard").append(card)
        end_game(s, ev, winner, "the Spanish Armada arrived")
    elif s.n % 2 == 1:
        writable(s, "discard").append(card)
        end_game(s, ev, Loyalty.DUTCH, "the Spanish Armada arrived with the teams tied")
    else:
        # Even tie: remove the Armada; discards and the unrevealed row cards (not the cards
        # in front of players) form a new deck; deal 5; play continues where it left off.
        s.box = [*s.box, card]
        cards = [*s.discard, *(c for c in s.row if c is not None), *s.event_deck]
        s.discard = []
        s.sudden_death = True
        s.refill_position = None
        say(ev, "game.sudden_death",
            f"The Spanish Armada arrived with the teams tied at {british}: sudden death! "
            "The first team to take the lead wins.", british=british, french=french)
        _deal_row(s, ev, cards)


_CardStage = TypeVar("_CardStage", MarqueStage, ShootStage, GiveStage)


def _card_stage(cls: type[_CardStage], seat: int, card: int) -> _CardStage:
    """``cls(seat, card)`` without the frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` per field): the same object, built at less cost."""
    stage = _new(cls)
    fields = stage.__dict__
    fields["seat"] = seat
    fields["card"] = card
    return stage


_new = object.__new__


def _letter_of_marque(s: GameState, ev: Events, revealer: int, card: int) -> None:
    open_stage(s, _card_stage(MarqueStage, revealer, card))


def marque_moves(s: GameState) -> tuple[Marque, ...]:
    """Every Letter of Marque move: anyone on Tortuga or in a rowboat, to either ship with
    room (OQ-8: possibly none; the card can then only be saved)."""
    lines = s.lines
    ships = tuple([ship for ship, key in _SHIP_KEYS if len(lines[key]) < SHIP_CAPACITY])
    if not ships:
        return ()
    movable = [*lines["TORTUGA"], *(p for p in s.rowboats.values() if p is not None)]
    return _marque_moves(tuple(sorted(movable)), ships)


@lru_cache(maxsize=1024)
def _marque_moves(seats: tuple[int, ...], ships: tuple[Ship, ...]) -> tuple[Marque, ...]:
    # Memoised: commands are immutable values.
    return tuple(Marque(seat, ship) for seat in seats for ship in ships)


_SHIP_KEYS = tuple((ship, ship.value) for ship in Ship)


def use_marque(s: GameState, ev: Events, seat: int, command: Marque | Save, card: int,
               saved: bool) -> None:
    """Answer a revealed Letter of Marque, or play a saved one (a whole action)."""
    if isinstance(command, Save):
        writable(s, "kept")[seat] = [*s.kept[seat], card]
        say(ev, "card.kept", f"{s.names[seat]} saved the Letter of Marque for later.",
            seat=seat, title=EventTitle.LETTER_OF_MARQUE.value)
        return
    if saved:
        discard_kept(s, seat, card)
    else:
        writable(s, "discard").append(card)
    say(ev, "card.used",
        f"{s.names[seat]} used a Letter of Marque on {s.names[command.target]} "
        f"for the {command.ship.label}.", seat=seat, title=EventTitle.LETTER_OF_MARQUE.value,
        target=command.target, ship=command.ship.value)
    move_pawn(s, ev, command.target, Location.of_ship(command.ship), "LETTER_OF_MARQUE")


def _pistol(s: GameState, ev: Events, revealer: int, card: int) -> None:
    open_stage(s, _card_stage(ShootStage, revealer, card))


def shoot(s: GameState, ev: Events, seat: int, target: int, card: int) -> None:
    """The Pistol's target is marooned by location (OQ-7: anyone else, anywhere)."""
    writable(s, "discard").append(card)
    say(ev, "card.used", f"{s.names[seat]} shot {s.names[target]} with the Pistol.",
        seat=seat, title=EventTitle.PISTOL.value, target=target)
    maroon_unless_fountain(s, ev, target, "PISTOL", seat)


def _albatross(s: GameState, ev: Events, revealer: int, card: int) -> None:
    writable(s, "kept")[revealer] = [*s.kept[revealer], card]
    say(ev, "card.kept", f"{s.names[revealer]} must keep the Albatross.", seat=revealer,
        title=EventTitle.ALBATROSS.value)
    check_albatross(s, ev)


def _black_spot(s: GameState, ev: Events, revealer: int, card: int) -> None:
    writable(s, "discard").append(card)
    maroon_unless_fountain(s, ev, revealer, "BLACK_SPOT", None)


def _treasure_map(s: GameState, ev: Events, revealer: int, card: int) -> None:
    open_stage(s, _card_stage(GiveStage, revealer, card))


def give_map(s: GameState, ev: Events, seat: int, target: int, card: int) -> None:
    """The Treasure Map goes face-up in front of ``target`` (any player); it is usable from
    the next turn on (rules reference 9.3: "on a later turn")."""
    writable(s, "kept")[target] = [*s.kept[target], card]
    # Provisional bookkeeping of the provisional effect (OQ-1), so it lives in ``extra``;
    # a fresh dict, never a mutated one: copies of the state share ``extra``'s values.
    s.extra = {**s.extra, _MAP_TURN: {**s.extra.get(_MAP_TURN, {}), str(card): s.turn_number}}
    say(ev, "card.given", f"{s.names[seat]} gave the Treasure Map to {s.names[target]}.",
        seat=seat, target=target, title=EventTitle.TREASURE_MAP.value)


_MAP_TURN = "treasure_map_received_turn"  # card id (str) -> turn it was given


def usable_map(s: GameState, seat: int) -> int | None:
    """A Treasure Map ``seat`` holds since before this turn (9.3: used on a later turn; in a
    2-player game a map given to oneself by the first action waits for the next turn)."""
    received = s.extra.get(_MAP_TURN, {})
    for card in s.kept[seat]:
        if EVENT_CARDS[card] is _TREASURE_MAP and received.get(str(card), -1) < s.turn_number:
            return card
    return None


_TREASURE_MAP = EventTitle.TREASURE_MAP


def map_options_ok(s: GameState, seat: int) -> bool:
    """PROVISIONAL (OQ-1): a Treasure Map may be used by its holder aboard a ship while the
    Galleon has treasure, from the turn after it was given."""
    return (
        usable_map(s, seat) is not None
        and s.location(seat).is_ship
        and s.treasure["GALLEON"] > 0
    )


def treasure_map_effect(s: GameState, ev: Events, seat: int, hold: Hold) -> None:
    """PROVISIONAL effect of the Treasure Map (rules reference 9.3, OQ-1): the printed text
    is unknown. As a whole action its holder discards it to move 1 treasure from the
    Spanish Galleon into ``hold`` of the ship he is on. Swap this one function when the
    real card text is found."""
    card = usable_map(s, seat)
    ship = s.location(seat).ship
    assert card is not None and ship is not None
    discard_kept(s, seat, card)
    dst = hold_key(ship, hold)
    treasure = writable(s, "treasure")
    treasure["GALLEON"] -= 1
    treasure[dst] += 1
    say(ev, "treasure.moved",
        f"{s.names[seat]} followed a Treasure Map: 1 treasure from the Spanish Galleon into "
        f"the {ship.label}'s {hold.value.capitalize()} hold (provisional rule).",
        seat=seat, source="GALLEON", to=dst, title=EventTitle.TREASURE_MAP.value)
    treasure_changed(s, ev)


def _stormy_seas(s: GameState, ev: Events, revealer: int, card: int) -> None:
    writable(s, "discard").append(card)
    loc = s.location(revealer)
    if loc.is_ship:
        ship = loc.ship
        assert ship is not None
        keys = [hold_key(ship, h) for h in Hold]
        treasure = writable(s, "treasure")
        amount = sum(treasure[k] for k in keys)
        for k in keys:
            treasure[k] = 0
        treasure["GALLEON"] += amount
        say(ev, "treasure.stormy",
            f"Stormy Seas: {amount} treasure from the {ship.label} returned to the Galleon.",
            ship=ship.value, amount=amount)
        if amount:
            treasure_changed(s, ev)
    elif loc is Location.TORTUGA:
        treasure = writable(s, "treasure")
        before = (treasure["TORTUGA_BRITISH"], treasure["TORTUGA_FRENCH"])
        treasure["TORTUGA_BRITISH"], treasure["TORTUGA_FRENCH"] = 1, 1
        say(ev, "treasure.stormy",
            "Stormy Seas: Tortuga's treasure returned to 1 British and 1 French.")
        if before != (1, 1):
            treasure_changed(s, ev)
    else:
        say(ev, "card.no_effect", "Stormy Seas has no effect on a rowboat.",
            title=EventTitle.STORMY_SEAS.value)


def _eight_bells(s: GameState, ev: Events, revealer: int, card: int) -> None:
    writable(s, "discard").append(card)
    loc = s.location(revealer)
    if loc.is_rowboat or len(s.lines[loc.value]) < 2:
        say(ev, "card.no_effect", "Eight Bells has no effect: nobody to reorder.",
            title=EventTitle.EIGHT_BELLS.value)
        return
    line = writable(s, "lines")[loc.value]
    shuffle(s, line)
    order = ", ".join(s.names[p] for p in line)
    say(ev, "pawn.reordered", f"Eight Bells: the line on {where_name(loc)} is now {order}.",
        location=loc.value, line=list(line))


def _keep(title: EventTitle) -> Effect:
    def effect(s: GameState, ev: Events, revealer: int, card: int) -> None:
        writable(s, "kept")[revealer] = [*s.kept[revealer], card]
        say(ev, "card.kept", f"{s.names[revealer]} now owns {title.label}.", seat=revealer,
            title=title.value)
    return effect


def _el_dorado(s: GameState, ev: Events, revealer: int, card: int) -> None:
    _keep(EventTitle.EL_DORADO)(s, ev, revealer, card)
    if s.vote_deck:
        drawn = writable(s, "vote_deck").pop(0)
        writable(s, "hands")[revealer] = [*s.hands[revealer], drawn]
        say(ev, "vote_card.drawn", f"{s.names[revealer]} drew an extra Vote card.",
            seat=revealer)
        say(ev, "vote_card.drawn", f"You drew {VOTE_DECK[drawn].describe()}.",
            audience=[revealer], seat=revealer, card=drawn)


def _unplayable(s: GameState, ev: Events, revealer: int, card: int) -> None:
    raise AssertionError(f"{EVENT_CARDS[card].label} is never put into play (OQ-2)")


#: One entry per title: what revealing it does.
EFFECTS: dict[EventTitle, Effect] = {
    EventTitle.SPANISH_ARMADA: _spanish_armada,
    EventTitle.LETTER_OF_MARQUE: _letter_of_marque,
    EventTitle.PISTOL: _pistol,
    EventTitle.ALBATROSS: _albatross,
    EventTitle.BLACK_SPOT: _black_spot,
    EventTitle.TREASURE_MAP: _treasure_map,
    EventTitle.STORMY_SEAS: _stormy_seas,
    EventTitle.EIGHT_BELLS: _eight_bells,
    EventTitle.ATLANTIS: _keep(EventTitle.ATLANTIS),
    EventTitle.FOUNTAIN_OF_YOUTH: _keep(EventTitle.FOUNTAIN_OF_YOUTH),
    EventTitle.EL_DORADO: _el_dorado,
    EventTitle.CABIN_FEVER: _unplayable,
    EventTitle.FACADE: _unplayable,
    EventTitle.CROWS_NEST: _unplayable,
}


def apply_atlantis_orders(s: GameState, ev: Events) -> None:
    """Standing ATLANTIS orders take effect just before a turn begins (OQ-6). The owner
    must be on a ship and the other ship must have room; Atlantis is single use (OQ-5).
    An order that cannot be carried out lapses and the owner keeps the card."""
    if True not in s.atlantis_ordered:  # the usual case, checked without a Python loop
        return
    for seat in range(s.n):
        if not s.atlantis_ordered[seat]:
            continue
        writable(s, "atlantis_ordered")[seat] = False
        card = kept_card(s, seat, EventTitle.ATLANTIS)
        if card is None:
            continue
        ship = s.location(seat).ship
        if not s.location(seat).is_ship or ship is None or not ship_has_room(s, ship.other):
            say(ev, "atlantis.lapsed",
                "Your Atlantis order could not be carried out (you must be on a ship and the "
                "other ship must have room); you keep the card.", audience=[seat], seat=seat)
            continue
        discard_kept(s, seat, card)
        say(ev, "card.used", f"{s.names[seat]} sailed through Atlantis.", seat=seat,
            title=EventTitle.ATLANTIS.value)
        move_pawn(s, ev, seat, Location.of_ship(ship.other), "ATLANTIS")
