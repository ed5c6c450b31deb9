"""Helpers to build exact positions for tests and puzzles.

:func:`started` sets up a game and answers the two opening placements.
:func:`arrange` returns a copy of a state with pawns, treasure, Vote hands, Event cards
and the turn set as asked, keeping every card and token accounted for (32 Vote cards,
24 Event cards, 8 treasure tokens). It is a test tool: it changes no rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.board import open_stage
from engine.cards import (
    EVENT_CARDS,
    ROW_SIZE,
    SHIP_CAPACITY,
    TREASURE_TOKENS,
    VOTE_DECK,
    EventTitle,
    Hold,
    Symbol,
)
from engine.commands import Place
from engine.rules import actions_per_turn, apply
from engine.setup import new_game
from engine.state import TREASURE_KEYS, ActionStage, GameOptions, GameState


def started(
    names: Sequence[str] | int,
    seed: int = 0,
    options: GameOptions | None = None,
    fd_hold: Hold = Hold.BRITISH,
    jr_hold: Hold = Hold.BRITISH,
) -> GameState:
    """A new game with both Captains' opening tokens placed; the JR Captain is to act."""
    if isinstance(names, int):
        names = [f"P{i + 1}" for i in range(names)]
    state = new_game(names, seed, options)
    state, _ = apply(state, state.lines["FD"][0], Place(fd_hold))
    state, _ = apply(state, state.lines["JR"][0], Place(jr_hold))
    return state


def vote_cards(
    top: Symbol | None = None,
    middle: Symbol | None = None,
    bottom: Symbol | None = None,
    *,
    special: bool = False,
) -> list[int]:
    """Ids of the Vote cards showing the given symbols (regular cards unless ``special``)."""
    return [
        card.id for card in VOTE_DECK
        if card.special == special
        and (top is None or top in card.top)
        and (middle is None or middle in card.middle)
        and (bottom is None or bottom in card.bottom)
    ]


def _take_title(pool: list[int], title: EventTitle) -> int:
    for card in pool:
        if EVENT_CARDS[card] is title:
            pool.remove(card)
            return card
    raise ValueError(f"no {title.label} card is available in this game to place")


def arrange(
    state: GameState,
    *,
    fd: Sequence[int] | None = None,
    jr: Sequence[int] | None = None,
    tortuga: Sequence[int] | None = None,
    fd_rowboat: int | None = None,
    jr_rowboat: int | None = None,
    treasure: Mapping[str, int] | None = None,
    hands: Mapping[int, Sequence[int]] | None = None,
    vote_deck_top: Sequence[int] = (),
    kept: Mapping[int, Sequence[EventTitle]] | None = None,
    row: Sequence[EventTitle | None] | None = None,
    deck_top: Sequence[EventTitle] = (),
    deck: Sequence[EventTitle] | None = None,
    discard: Sequence[EventTitle] | None = None,
    turn: int | None = None,
) -> GameState:
    """A copy of ``state`` with the given parts replaced.

    Pawns: if any of ``fd``, ``jr``, ``tortuga``, ``fd_rowboat``, ``jr_rowboat`` is given,
    they describe every pawn (lines front to back; unmentioned lines are empty).
    ``treasure``: the layout by key (``"FD_BRITISH"`` ...); missing hold keys are 0,
    Tortuga's areas hold 2 together (1 and 1 unless given) and the Galleon takes the rest
    of the 8 tokens unless given. ``hands``: seat -> Vote card ids
    (other seats keep their hand size; a card taken from them is replaced); the Vote deck
    becomes ``vote_deck_top`` then every other card. ``kept``: seat -> titles
    in front of that seat; ``row``: 5 titles (``None`` = empty spot); ``discard``: titles;
    ``deck_top``: titles on top of the Event deck; ``deck``: the exact deck (the cards left
    over go to the discard pile, or out of the game if ``discard`` is given too). Event
    cards are taken from the deck, row and discard (and replaced kept cards); the rest stay
    in the deck, Armada last.
    ``turn``: make it that seat's turn (first action). Peeks are cleared when cards move.
    """
    s = state.copy()
    if any(x is not None for x in (fd, jr, tortuga, fd_rowboat, jr_rowboat)):
        s.lines = {"FD": list(fd or []), "JR": list(jr or []), "TORTUGA": list(tortuga or [])}
        s.rowboats = {"FD": fd_rowboat, "JR": jr_rowboat}
        placed = [*s.lines["FD"], *s.lines["JR"], *s.lines["TORTUGA"],
                  *(p for p in s.rowboats.values() if p is not None)]
        if sorted(placed) != list(range(s.n)):
            raise ValueError(f"every seat 0..{s.n - 1} must be placed exactly once: {placed}")
        if max(len(s.lines["FD"]), len(s.lines["JR"])) > SHIP_CAPACITY:
            raise ValueError("a ship holds at most 5 pawns")
    if treasure is not None:
        layout = dict.fromkeys(TREASURE_KEYS, 0)
        for key, value in treasure.items():
            if key not in layout:
                raise ValueError(f"unknown treasure key {key!r}")
            layout[key] = value
        areas = ("TORTUGA_BRITISH", "TORTUGA_FRENCH")
        for key, other in (areas, areas[::-1]):
            if key not in treasure:
                layout[key] = 2 - treasure[other] if other in treasure else 1
        if "GALLEON" not in treasure:
            layout["GALLEON"] = TREASURE_TOKENS - sum(layout.values())
        if sum(layout.values()) != TREASURE_TOKENS or min(layout.values()) < 0:
            raise ValueError(f"the layout must place all 8 tokens: {layout}")
        s.treasure = layout
    if hands is not None or vote_deck_top:
        given = dict(hands or {})
        fixed = [c for h in given.values() for c in h] + list(vote_deck_top)
        if len(set(fixed)) != len(fixed):
            raise ValueError("a Vote card cannot be in two places")
        spare = [c for c in [*s.vote_deck, *(c for h in s.hands for c in h)] if c not in fixed]
        new_hands = []
        for seat in range(s.n):
            if seat in given:
                new_hands.append(list(given[seat]))
                continue
            hand = [c for c in s.hands[seat] if c not in fixed]
            spare = [c for c in spare if c not in hand]
            while len(hand) < len(s.hands[seat]):
                hand.append(spare.pop(0))
            new_hands.append(hand)
        s.hands = new_hands
        s.vote_deck = [*vote_deck_top, *spare]
    if kept is not None or row is not None or deck_top or deck is not None or (
            discard is not None):
        pool = [*s.event_deck, *(c for c in s.row if c is not None), *s.discard]
        if kept is not None:
            for seat in kept:
                pool += s.kept[seat]
                s.kept[seat] = []
        if row is not None and len(row) != ROW_SIZE:
            raise ValueError("the row has 5 spots")
        new_row = [None if t is None else _take_title(pool, t) for t in row] if row else None
        if kept is not None:
            for seat, titles in kept.items():
                s.kept[seat] = [_take_title(pool, t) for t in titles]
        new_discard = [_take_title(pool, t) for t in discard] if discard is not None else None
        top = [_take_title(pool, t) for t in (deck if deck is not None else deck_top)]
        if new_row is None:
            new_row = [c if c in pool else None for c in s.row]
            pool = [c for c in pool if c not in new_row]
        if new_discard is None:
            new_discard = [c for c in s.discard if c in pool]
            pool = [c for c in pool if c not in new_discard]
        armada = [c for c in pool if EVENT_CARDS[c] is EventTitle.SPANISH_ARMADA]
        rest = [c for c in pool if c not in armada]
        s.row = new_row
        s.discard = new_discard
        if deck is not None:
            s.event_deck = top
            if discard is None:
                s.discard += [*rest, *armada]
            else:
                s.box = sorted([*s.box, *rest, *armada])
        else:
            s.event_deck = [*top, *rest, *armada]
        for peeks in s.peeks:
            peeks.clear()
    if turn is not None:
        s.turn_seat = turn
        s.turn_action = 1
        s.refill_position = None
        open_stage(s, ActionStage(turn, 1, actions_per_turn(s)))
    return s
