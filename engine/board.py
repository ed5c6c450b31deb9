"""Board primitives shared by actions, votes and Event cards: the seeded RNG, pawn
movement, marooning, the Albatross check, treasure moves and the end of the game.

Every function here changes the :class:`~engine.state.GameState` it is given (always a
private copy made by :func:`engine.apply`) and appends what happened to ``ev``.
"""

from __future__ import annotations

import _random
import hashlib
import random
from collections.abc import Iterable
from itertools import chain
from typing import Any

from engine.cards import (
    EVENT_CARDS,
    SHIP_CAPACITY,
    VOTE_DECK,
    EventTitle,
    Location,
    Loyalty,
    Ship,
)
from engine.events import Event
from engine.scoring import team_totals
from engine.state import (
    FountainStage,
    GameState,
    OverStage,
    Stage,
    writable,
)

Events = list[Event]


def rng(s: GameState) -> random.Random:
    """A fresh generator for one random draw, derived from the seed and a counter kept in
    the state, so the state stays JSON-able and replays reproduce every draw."""
    s.rng_counter += 1
    # random.Random(text) seeds twice: its C constructor with hash(text), then its Python
    # seed() with the SHA-512 integer below. Seeding once with that integer gives the same
    # generator (the same C seed function) at about half the cost.
    key = f"{s.seed}:{s.rng_counter}".encode()
    r: random.Random = _new_random(_Random)  # (not seeded: a subclass's __new__ leaves it)
    _seed(r, _from_bytes(key + _sha512(key).digest()))
    r.gauss_next = None  # type: ignore[attr-defined]  # (as seed() leaves it)
    return r


def shuffle(s: GameState, x: list[Any]) -> None:
    """``rng(s).shuffle(x)``: the same draws, with ``_randbelow`` written out (CPython
    3.11+: ``k = n.bit_length()``, draw ``getrandbits(k)`` until below ``n``)."""
    getrandbits = rng(s).getrandbits
    for i, n, k in _SHUFFLE_STEPS[len(x)] if len(x) < 64 else _shuffle_steps(len(x)):
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


def _shuffle_steps(length: int) -> tuple[tuple[int, int, int], ...]:
    """The steps of a shuffle of ``length`` items: ``(i, n, k)`` for ``i`` from the last
    index down to 1, ``n = i + 1`` and ``k = n.bit_length()``."""
    return tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, length)))


_SHUFFLE_STEPS = tuple(_shuffle_steps(length) for length in range(64))


_Random = random.Random
_new_random = random.Random.__new__
_seed = _random.Random.seed
_from_bytes = int.from_bytes
_sha512 = hashlib.sha512


def say(
    ev: Events,
    kind: str,
    text: str,
    audience: Iterable[int] | None = None,
    **data: Any,
) -> None:
    """Append an event (public unless ``audience`` is given)."""
    # Event(kind, text, audience, data) without the frozen dataclass's __init__ (one
    # object.__setattr__ per field): the same object, built at a third of the cost.
    event = _new(Event)
    fields = event.__dict__
    fields["kind"] = kind
    fields["text"] = text
    fields["audience"] = None if audience is None else frozenset(audience)
    fields["data"] = data
    ev.append(event)


_new = object.__new__


def name(s: GameState, seat: int) -> str:
    """A seat's display name."""
    return s.names[seat]


def open_stage(s: GameState, stage: Stage) -> None:
    """Open a new decision (a new decision id)."""
    s.stage = stage
    s.stage_serial += 1


# ---------------------------------------------------------------- cards in front of players


def kept_card(s: GameState, seat: int, title: EventTitle) -> int | None:
    """The id of a ``title`` card kept by ``seat``, if any."""
    for card in s.kept[seat]:
        if EVENT_CARDS[card] is title:
            return card
    return None


def discard_kept(s: GameState, seat: int, card: int) -> None:
    """Move a card from in front of ``seat`` to the Event discard pile."""
    kept = writable(s, "kept")[seat] = [*s.kept[seat]]  # a seat's list is replaced
    kept.remove(card)
    writable(s, "discard").append(card)


# ---------------------------------------------------------------- pawns


def ship_has_room(s: GameState, ship: Ship) -> bool:
    """True while ``ship`` has fewer than 5 pawns."""
    return len(s.lines[_KEY[ship]]) < SHIP_CAPACITY


# Enum attributes (``.value``, properties) are slow to read: the hot paths use these
# tables of plain values instead.
_KEY: dict[str, str] = {**{ship: ship.value for ship in Ship},
                        **{loc: loc.value for loc in Location}}
#: A rowboat's key in ``rowboats`` (its ship's); ships and Tortuga are not in it.
_ROWBOAT_KEY: dict[Location, str] = {
    loc: ship.value for loc in Location if loc.is_rowboat and (ship := loc.ship) is not None}
_SHIPS = tuple(Ship)
_ALBATROSS = EventTitle.ALBATROSS
_IS_ALBATROSS = [title is _ALBATROSS for title in EVENT_CARDS]  # by Event card id


def take_pawn(s: GameState, seat: int) -> Location:
    """Lift ``seat``'s pawn off the board (its line closes up); return where it was."""
    loc = s.location(seat)
    rowboat = _ROWBOAT_KEY.get(loc)
    if rowboat is not None:
        writable(s, "rowboats")[rowboat] = None
    else:
        writable(s, "lines")[_KEY[loc]].remove(seat)
    return loc


def put_pawn(s: GameState, seat: int, loc: Location) -> None:
    """Put ``seat``'s pawn at the back of ``loc`` (or into the rowboat)."""
    rowboat = _ROWBOAT_KEY.get(loc)
    if rowboat is not None:
        assert s.rowboats[rowboat] is None
        writable(s, "rowboats")[rowboat] = seat
    else:
        key = _KEY[loc]
        assert key == "TORTUGA" or len(s.lines[key]) < SHIP_CAPACITY, \
            "ships never hold more than 5"
        writable(s, "lines")[key].append(seat)


def where_name(loc: Location) -> str:
    """``Tortuga``, ``the Jolly Roger``, ``the Flying Dutchman's rowboat``."""
    return _WHERE[loc]


def _where_name(loc: Location) -> str:
    if loc is Location.TORTUGA:
        return "Tortuga"
    ship = loc.ship
    assert ship is not None
    return f"the {ship.label}'s rowboat" if loc.is_rowboat else f"the {ship.label}"


_WHERE = {loc: _where_name(loc) for loc in Location}


def move_pawn(s: GameState, ev: Events, seat: int, dest: Location, how: str) -> None:
    """Move a pawn to the back of ``dest``; an Albatross check follows every movement."""
    src = take_pawn(s, seat)
    put_pawn(s, seat, dest)
    say(ev, "pawn.moved", f"{s.names[seat]} moved from {_WHERE[src]} to {_WHERE[dest]}.",
        seat=seat, source=_KEY[src], to=_KEY[dest], by=how)
    check_albatross(s, ev)


def maroon(s: GameState, ev: Events, seat: int, cause: str) -> None:
    """Maroon ``seat`` according to its location (rules reference 7.1).

    Ship or rowboat: to the back of Tortuga. Already on Tortuga: to the back again and lose
    a random Vote card to the bottom of the Vote deck (OQ-15: the engine picks it).
    """
    src = take_pawn(s, seat)
    writable(s, "lines")["TORTUGA"].append(seat)
    where = ("on Tortuga again" if src is Location.TORTUGA else
             f"from {_WHERE[src]} to Tortuga")
    say(ev, "pawn.marooned", f"{s.names[seat]} was marooned {where}.",
        seat=seat, source=_KEY[src], cause=cause)
    if src is Location.TORTUGA:
        hand = writable(s, "hands")[seat] = [*s.hands[seat]]  # a seat's list is replaced
        if not hand:
            say(ev, "vote_card.lost",
                f"{s.names[seat]} was marooned on Tortuga again but has no Vote card to lose.",
                seat=seat, lost=False)
            return
        card = hand.pop(rng(s).randrange(len(hand)))
        writable(s, "vote_deck").append(card)
        say(ev, "vote_card.lost",
            f"{s.names[seat]} was marooned on Tortuga again and lost a Vote card.",
            seat=seat, lost=True)
        say(ev, "vote_card.lost", f"You lost the Vote card {VOTE_DECK[card].describe()}.",
            audience=[seat], seat=seat, card=card)


def maroon_many(s: GameState, ev: Events, seats: list[int], cause: str) -> None:
    """Maroon several pawns at once: they enter Tortuga in reverse rank order (the last in
    line first). Rules reference 7.1 for Albatross; OQ-16 applies it to any simultaneous
    maroon."""
    def rank_key(seat: int) -> tuple[int, int]:
        loc = s.location(seat)
        if loc.is_rowboat:
            return (0, 0)
        return (1, s.lines[loc.value].index(seat))

    for seat in sorted(seats, key=rank_key, reverse=True):
        maroon(s, ev, seat, cause)


def fountain_owner_card(s: GameState, seat: int) -> int | None:
    """The Fountain of Youth card ``seat`` may still use."""
    return kept_card(s, seat, EventTitle.FOUNTAIN_OF_YOUTH)


def maroon_unless_fountain(s: GameState, ev: Events, seat: int, cause: str,
                           by: int | None) -> None:
    """Maroon ``seat``, or first open the Fountain of Youth window if he owns one.

    Causes that allow the Fountain: BLACK_SPOT, PISTOL, MAROON (Captain), MUTINY.
    """
    if fountain_owner_card(s, seat) is not None:
        open_stage(s, FountainStage(seat, cause, by))
        say(ev, "fountain.window",
            f"{s.names[seat]} is about to be marooned and may drink from the Fountain of "
            "Youth.", seat=seat, cause=cause)
        return
    maroon(s, ev, seat, cause)


def albatrosses_aboard(s: GameState, ship: Ship) -> int:
    """How many Albatross cards the pawns on ``ship`` hold."""
    kept = s.kept
    return sum(
        1 for seat in s.lines[_KEY[ship]] for c in kept[seat] if EVENT_CARDS[c] is _ALBATROSS
    )


def check_albatross(s: GameState, ev: Events) -> None:
    """Two or more Albatrosses aboard one ship maroon everyone on it, in reverse rank order.
    Tortuga and the rowboats are not affected."""
    if sum(map(_IS_ALBATROSS.__getitem__, chain.from_iterable(s.kept))) < 2:
        return  # the usual case: not two Albatrosses in play at all
    for ship in _SHIPS:
        if albatrosses_aboard(s, ship) >= 2:
            crew = list(s.lines[ship.value])
            say(ev, "albatross.struck",
                f"Two Albatrosses aboard the {ship.label}: everyone on it is marooned.",
                ship=ship.value, seats=crew)
            maroon_many(s, ev, crew, "ALBATROSS")


# ---------------------------------------------------------------- treasure and the end


def move_treasure(s: GameState, ev: Events, src: str, dst: str, text: str,
                  **data: Any) -> None:
    """Move one treasure token between two treasure places, then check sudden death
    (``data``: what the event says besides the places)."""
    assert s.treasure[src] > 0
    treasure = writable(s, "treasure")
    treasure[src] -= 1
    treasure[dst] += 1
    say(ev, "treasure.moved", text, source=src, to=dst, **data)
    treasure_changed(s, ev)


def treasure_changed(s: GameState, ev: Events) -> None:
    """During sudden death the first team to take the lead wins at once."""
    if not s.sudden_death or s.over:
        return
    british, french = team_totals(s)
    if british != french:
        winner = Loyalty.BRITISH if british > french else Loyalty.FRENCH
        end_game(s, ev, winner, "sudden death: took the lead")


def end_game(s: GameState, ev: Events, winner: Loyalty, reason: str) -> None:
    """End the game; every loyalty becomes public."""
    british, french = team_totals(s)
    s.stage = OverStage()
    s.stage_serial += 1
    s.winner = winner
    s.end_reason = reason
    s.refill_position = None
    winners = [s.names[i] for i in range(s.n) if s.loyalties[i] is winner]
    say(ev, "game.over",
        f"The game is over: the {winner.value.capitalize()} win ({reason}) with "
        f"{', '.join(winners)}. British {british}, French {french}.",
        winner=winner.value, reason=reason, british=british, french=french,
        loyalties=[x.value for x in s.loyalties])
