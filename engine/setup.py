"""Setting up a game (rules reference section 3)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from engine.board import open_stage, shuffle
from engine.cards import (
    EVENT_CARDS,
    EVENT_INFO,
    GALLEON_START,
    HAND_SIZE,
    LOYALTY_TABLE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROW_SIZE,
    STARRED_POOL,
    VOTE_DECK,
    EventTitle,
    Loyalty,
    Ship,
)
from engine.errors import SetupError
from engine.state import TREASURE_KEYS, GameOptions, GameState, PlaceStage


def check_starred(starred: Sequence[EventTitle]) -> None:
    """Raise :class:`SetupError` unless ``starred`` is 3 different playable starred titles."""
    if len(starred) != 3 or len(set(starred)) != 3:
        raise SetupError(f"choose exactly 3 different starred Event cards, got {list(starred)}")
    for title in starred:
        if title not in STARRED_POOL:
            raise SetupError(f"{title.label} is not a starred Event card; the starred pool is "
                             f"{', '.join(t.label for t in STARRED_POOL)}")
        if not EVENT_INFO[title].implemented:
            raise SetupError(
                f"{title.label} cannot be selected: its printed text has not been verified, "
                "so the engine does not play it (rules reference OQ-2/OQ-3); choose from "
                "Atlantis, El Dorado, Fountain of Youth"
            )


def cards_in_play(n_players: int, starred: Sequence[EventTitle]) -> list[EventTitle]:
    """The titles of the game's Event deck (any order): every non-starred card, the 3 chosen
    starred cards, no Albatross with 2 or 3 players."""
    titles = []
    for title in EVENT_CARDS:
        info = EVENT_INFO[title]
        if info.starred and title not in starred:
            continue
        if title is EventTitle.ALBATROSS and n_players <= 3:
            continue
        titles.append(title)
    return titles


def _loyalties(s: GameState, options: GameOptions) -> list[Loyalty]:
    if options.loyalties is None:  # the usual case
        deal = list(_default_deal(s.n))
        shuffle(s, deal)
        return deal
    british, french, dutch = LOYALTY_TABLE[s.n]
    wanted = Counter({Loyalty.BRITISH: british, Loyalty.FRENCH: french, Loyalty.DUTCH: dutch})
    given = list(options.loyalties)
    if len(given) != s.n or Counter(given) != +wanted:
        raise SetupError(
            f"loyalties must be {british} British, {french} French and {dutch} Dutch "
            f"for {s.n} players, got {[x.value for x in given]}"
        )
    return given


@lru_cache(maxsize=16)
def _default_deal(n: int) -> tuple[Loyalty, ...]:
    """The loyalty cards of an ``n``-player game before the shuffle."""
    british, french, dutch = LOYALTY_TABLE[n]
    wanted = {Loyalty.BRITISH: british, Loyalty.FRENCH: french, Loyalty.DUTCH: dutch}
    return tuple(x for x in Loyalty for _ in range(wanted[x]))


def _vote_order(s: GameState, options: GameOptions) -> list[int]:
    if options.vote_deck is not None:
        order = list(options.vote_deck)
        if sorted(order) != list(range(len(VOTE_DECK))):
            raise SetupError(f"vote_deck must list each of the {len(VOTE_DECK)} Vote card ids "
                             f"0..{len(VOTE_DECK) - 1} once")
        return order
    order = list(range(len(VOTE_DECK)))
    shuffle(s, order)
    return order


def _event_order(s: GameState, options: GameOptions) -> tuple[list[int], list[int]]:
    armada = EVENT_CARDS.index(EventTitle.SPANISH_ARMADA)
    if options.event_deck is not None:
        titles = cards_in_play(s.n, options.starred)
        given = list(options.event_deck)
        unplayable = sorted({t.label for t in given if not EVENT_INFO[t].implemented})
        if unplayable:
            raise SetupError(f"{', '.join(unplayable)} cannot be put into play: the printed "
                             "text has not been verified (rules reference OQ-2/OQ-3)")
        if Counter(given) != Counter(titles):
            raise SetupError(
                "event_deck must hold exactly the game's Event cards "
                f"({len(titles)} cards for {s.n} players with the chosen starred cards), "
                f"got {len(given)}"
            )
        if given[-1] is not EventTitle.SPANISH_ARMADA:
            raise SetupError("event_deck must end with the Spanish Armada")
        free = {t: [i for i, x in enumerate(EVENT_CARDS) if x is t] for t in set(given)}
        deck = [free[t].pop(0) for t in given]
    else:
        unshuffled, left_out = _default_deck(s.n, tuple(options.starred))
        deck = list(unshuffled)
        shuffle(s, deck)
        deck.append(armada)
        return deck, list(left_out)
    box = sorted(set(range(len(EVENT_CARDS))) - set(deck))
    return deck, box


@lru_cache(maxsize=64)
def _default_deck(n: int, starred: tuple[EventTitle, ...]
                  ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The game's Event card ids before the shuffle (Spanish Armada left out) and the box
    (the ids not in the deck, sorted): the same for every game of ``n`` players."""
    used = Counter(cards_in_play(n, starred))
    deck = []
    armada = EVENT_CARDS.index(EventTitle.SPANISH_ARMADA)
    for i, title in enumerate(EVENT_CARDS):
        if used[title] > 0 and i != armada:
            deck.append(i)
            used[title] -= 1
    box = sorted(set(range(len(EVENT_CARDS))) - {*deck, armada})
    return tuple(deck), tuple(box)


def _pawn_order(s: GameState, options: GameOptions) -> list[int]:
    if options.pawn_order is not None:
        order = list(options.pawn_order)
        if sorted(order) != list(range(s.n)):
            raise SetupError(f"pawn_order must list each seat 0..{s.n - 1} once, got {order}")
        return order
    order = list(range(s.n))
    shuffle(s, order)
    return order


def new_game(names: Sequence[str], seed: int, options: GameOptions | None = None) -> GameState:
    """Set up a game for ``names`` (in seating order, which is fixed from now on).

    Deals loyalties and Vote cards, builds the Event deck (Spanish Armada at the bottom)
    and the row, draws the pawns onto the ships alternately and puts out the treasure.
    The first decisions are the two Captains placing their token (Flying Dutchman first);
    then the Jolly Roger's Captain takes the first turn.
    """
    options = options or GameOptions()
    names = tuple(names)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise SetupError(f"Tortuga 1667 needs {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                         f"got {len(names)}")
    if any(not isinstance(x, str) or not x.strip() for x in names):
        raise SetupError(f"every player needs a non-empty name, got {list(names)}")
    if len(set(names)) != len(names):
        raise SetupError(f"player names must be different, got {list(names)}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise SetupError(f"seed must be an int, got {seed!r}")
    check_starred(options.starred)
    n = len(names)
    s = GameState(
        names=names,
        seed=seed,
        options=options,
        loyalties=[],
        hands=[[] for _ in range(n)],
        vote_deck=[],
        lines={"FD": [], "JR": [], "TORTUGA": []},
        rowboats={"FD": None, "JR": None},
        treasure=dict.fromkeys(TREASURE_KEYS, 0),
        event_deck=[],
        row=[],
        discard=[],
        box=[],
        kept=[[] for _ in range(n)],
        peeks=[{} for _ in range(n)],
        seen=[[] for _ in range(n)],
        atlantis_ordered=[False] * n,
        pawn_order=(),
    )
    s.loyalties = _loyalties(s, options)
    votes = _vote_order(s, options)
    s.hands = [votes[HAND_SIZE * i:HAND_SIZE * (i + 1)] for i in range(n)]
    s.vote_deck = votes[HAND_SIZE * n:]
    deck, s.box = _event_order(s, options)
    s.row = list(deck[:ROW_SIZE])
    s.event_deck = deck[ROW_SIZE:]
    order = _pawn_order(s, options)
    s.pawn_order = tuple(order)
    s.lines["FD"] = order[0::2]
    s.lines["JR"] = order[1::2]
    s.treasure["GALLEON"] = GALLEON_START
    s.treasure["TORTUGA_BRITISH"] = 1
    s.treasure["TORTUGA_FRENCH"] = 1
    s.treasure["UNPLACED"] = 2  # the two Captains' tokens, until placed
    # OQ-17: "clockwise" is the seating order of ``names``, fixed here; the Jolly Roger's
    # Captain takes the first turn (see engine.actions._on_place).
    open_stage(s, PlaceStage(s.lines["FD"][0], Ship.FD))
    return s
