"""What a seat may do now: the turn actions offered, the answers to each kind of decision
(memoised on the state), and why a refused command is refused."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import combinations, groupby, repeat
from operator import is_not

from engine import reasons as R
from engine.board import kept_card
from engine.cards import (
    EVENT_CARDS,
    MAX_PLAYERS,
    SHIP_CAPACITY,
    EventTitle,
    Hold,
    Location,
    Ship,
)
from engine.commands import (
    Accept,
    Attack,
    Board,
    Brawl,
    Choose,
    Command,
    Discard,
    Force,
    Fountain,
    Give,
    Land,
    Maroon,
    Marque,
    Mutiny,
    Place,
    Reveal,
    Row,
    Save,
    Shift,
    Shoot,
    Take,
    TakeNone,
    UseMap,
    View,
    Vote,
)
from engine.eventcards import face_down, marque_moves, usable_map
from engine.reasons import Reason
from engine.state import (
    ActionStage,
    ChooseStage,
    FountainStage,
    GameState,
    GiveStage,
    MarqueStage,
    PlaceStage,
    ShootStage,
    Stage,
    TakeStage,
    VoteStage,
    hold_key,
)
from engine.votes import take_options, vote_options


def actions_per_turn(state: GameState) -> int:
    """2 in a 2-player game, else 1."""
    return 2 if len(state.names) == 2 else 1


@lru_cache(maxsize=256)
def action_stage(seat: int, action: int, of: int) -> ActionStage:
    """Stages are immutable values: turns share them."""
    return ActionStage(seat, action, of)


#: The first action's stage of a turn (:func:`action_stage`), by actions per turn and seat.
FIRST_ACTION = {of: tuple(action_stage(seat, 1, of) for seat in range(MAX_PLAYERS))
                for of in (1, 2)}


# ---------------------------------------------------------------- legal moves


@lru_cache(maxsize=4096)
def _row_actions(down: tuple[int, ...], seat: int, n: int) -> tuple[Command, ...]:
    """VIEW, REVEAL and FORCE options for face-down positions ``down`` (memoised: commands
    are immutable values)."""
    out: list[Command] = []
    pairs = list(combinations(down, 2))
    if len(down) >= 2:
        out += [View(pair) for pair in pairs]
    elif down:
        out.append(View((down[0],)))  # OQ-14: view the last face-down card alone
    out += [Reveal(p) for p in down]
    others = [t for t in range(n) if t != seat]
    out += [Force(pair, t) for pair in pairs for t in others]  # OQ-14: Force needs 2
    return tuple(out)


_NONES = repeat(None)  # (endless: map() stops with the row)

Run = tuple[Command, ...]


def turn_actions(s: GameState, seat: int) -> tuple[Command, ...]:
    """Every legal turn action of ``seat`` (rules reference section 5)."""
    row_part, out = turn_runs(s, seat)
    flat = row_part[0]
    return flat + tuple([c for run in out for c in run]) if out else flat


def turn_runs(s: GameState, seat: int) -> tuple[tuple[Run, tuple[Run, ...]], list[Run]]:
    """:func:`turn_actions` as its runs of one command type (``groupby(actions, type)``),
    in two parts: the VIEW, REVEAL and FORCE options as ``(all of them, their runs)`` (a
    memoised pair, shared) and the runs of the others (a new list of non-empty tuples).
    No run of the first part has the type of the second part's first run."""
    # The hottest part of legal moves: ``face_down``, ``GameState.location`` and
    # ``ship_has_room`` are written out here, on the plain keys of ``lines``/``rowboats``.
    key = (tuple(map(is_not, s.row, _NONES)), seat, len(s.names))
    row_part = _row_part(key)
    out: list[Run] = []
    lines, rowboats = s.lines, s.rowboats
    on_ship = False
    for ship in _SHIP_KEYS:
        line = lines[ship]
        if seat in line:
            on_ship = True
            if rowboats[ship] is None:
                out.append(_ROW_RUN)
            i = line.index(seat)
            last = len(line) - 1
            if i == 0:
                out.append(_ATTACK_RUN)
                if last:
                    tail = tuple(line[1:])
                    out.append(_maroons(tail))
            elif i == 1:
                out.append(_MUTINY_RUN)
            if i == last:
                treasure = s.treasure
                shifts = tuple([shift for shift, other in _SHIFT_FROM[ship]
                                if treasure[other] > 0])
                if shifts:
                    out.append(shifts)
            break
    else:
        tortuga = lines["TORTUGA"]
        if seat in tortuga:
            if rowboats["FD"] is None:
                out.append(_ROWS_BOTH if rowboats["JR"] is None else _ROWS_FD)
            elif rowboats["JR"] is None:
                out.append(_ROWS_JR)
            if tortuga[0] == seat:
                out.append(_BRAWL_RUN)
        else:
            if rowboats["FD"] == seat:  # a rowboat (location() raises if nowhere)
                ship = "FD"
            elif rowboats["JR"] == seat:
                ship = "JR"
            else:
                s.location(seat)
                raise AssertionError("location() raises first")
            if len(lines[ship]) < SHIP_CAPACITY:
                out.append(_BOARD_RUN)
            out.append(_LAND_RUN)
    kept = s.kept[seat]
    if kept:  # both cards below must be kept by the seat
        if any(map(_IS_MARQUE.__getitem__, kept)):  # kept_card(s, seat, LETTER_OF_MARQUE)
            moves = marque_moves(s)
            if moves:
                out.append(moves)
        # map_options_ok(s, seat), its cheap conditions first (the same answer)
        if (on_ship and s.treasure["GALLEON"] > 0 and any(map(_IS_MAP.__getitem__, kept))
                and usable_map(s, seat) is not None):
            out.append(_USE_MAP)
    return row_part, out


@lru_cache(maxsize=4096)
def _row_part(key: tuple[tuple[bool, ...], int, int]) -> tuple[Run, tuple[Run, ...]]:
    """The VIEW, REVEAL and FORCE options and their runs, by (which row positions hold a
    card, seat, players)."""
    face_down, seat, n = key
    flat = _row_actions(tuple([i for i, down in enumerate(face_down, 1) if down]), seat, n)
    runs = tuple(tuple(group) for _, group in groupby(flat, type))
    return flat, runs


@lru_cache(maxsize=4096)
def _maroons(crew: tuple[int, ...]) -> Run:
    """The Maroon options of a Captain's crew (seats behind him, in line order)."""
    return tuple(map(_maroon, crew))


# Commands are immutable values: the legal-move lists share these instead of building new
# ones for every state.
_ROW, _ATTACK, _MUTINY, _BRAWL, _BOARD, _LAND = Row(), Attack(), Mutiny(), Brawl(), Board(), Land()
_HOLDS = tuple(Hold)
_ROW_TO = {ship: Row(ship) for ship in Ship}
_IS_MARQUE = [title is EventTitle.LETTER_OF_MARQUE for title in EVENT_CARDS]  # by card id
_IS_MAP = [title is EventTitle.TREASURE_MAP for title in EVENT_CARDS]
_SHIFT = {hold: Shift(hold) for hold in Hold}
_SHIP_KEYS = tuple(ship.value for ship in Ship)
#: Cabin Boy's SHIFT options by ship key, with the treasure key each one empties.
_SHIFT_FROM = {ship.value: tuple((_SHIFT[to], hold_key(ship, to.other)) for to in _HOLDS)
               for ship in Ship}
_USE_MAP = tuple(UseMap(h) for h in Hold)
_ROW_RUN, _ATTACK_RUN, _MUTINY_RUN, _BRAWL_RUN = (_ROW,), (_ATTACK,), (_MUTINY,), (_BRAWL,)
_ROWS_BOTH, _ROWS_FD, _ROWS_JR = (_ROW_TO[Ship.FD], _ROW_TO[Ship.JR]), (_ROW_TO[Ship.FD],), (
    _ROW_TO[Ship.JR],)
_BOARD_RUN, _LAND_RUN = (_BOARD,), (_LAND,)
_PLACE = (Place(Hold.BRITISH), Place(Hold.FRENCH))
_FOUNTAIN = (Fountain(), Accept())
_SAVE = Save()
_DISCARD = Discard()
_TAKE_NONE = TakeNone()


@lru_cache(maxsize=16)
def _maroon(target: int) -> Maroon:
    return Maroon(target)


@lru_cache(maxsize=64)
def _choices(positions: tuple[int, int]) -> tuple[Command, ...]:
    return tuple(Choose(p) for p in positions)


@lru_cache(maxsize=128)
def _shots(n: int, seat: int) -> tuple[Command, ...]:
    return tuple(Shoot(t) for t in range(n) if t != seat)


@lru_cache(maxsize=16)
def _gifts(n: int) -> tuple[Command, ...]:
    return tuple(Give(t) for t in range(n))


def decision_legal(s: GameState, stage: Stage, seat: int) -> tuple[Command, ...]:
    # Memoised on the state object: a GameState is never changed once public functions
    # have returned it (apply works on a copy), and the cache is not a dataclass field,
    # so it takes no part in equality, copies or JSON.
    d = s.__dict__
    cache: dict[int, tuple[Command, ...]] | None = d.get("_legal_cache")
    if cache is None:
        cache = d["_legal_cache"] = {}
    else:
        legal = cache.get(seat)
        if legal is not None:
            return legal
    legal = cache[seat] = _compute_legal(s, stage, seat)
    return legal


def _compute_legal(s: GameState, stage: Stage, seat: int) -> tuple[Command, ...]:
    legal = _LEGAL.get(type(stage))
    return () if legal is None else legal(s, stage, seat)


def _marque_legal(s: GameState, stage: Stage, seat: int) -> tuple[Command, ...]:
    moves = marque_moves(s)  # OQ-8: with nobody to move, save it or let it go
    return (*moves, _SAVE) if moves else (_SAVE, _DISCARD)


def _choose_legal(s: GameState, stage: Stage, seat: int) -> tuple[Command, ...]:
    assert isinstance(stage, ChooseStage)
    return _choices(stage.positions)


#: The legal answers to each kind of stage (the over stage has none).
_LEGAL: dict[type, Callable[[GameState, Stage, int], tuple[Command, ...]]] = {
    ActionStage: lambda s, stage, seat: turn_actions(s, seat),
    VoteStage: lambda s, stage, seat: vote_options(s, seat),
    PlaceStage: lambda s, stage, seat: _PLACE,
    ChooseStage: _choose_legal,
    MarqueStage: _marque_legal,
    ShootStage: lambda s, stage, seat: _shots(len(s.names), seat),
    GiveStage: lambda s, stage, seat: _gifts(len(s.names)),
    # the Captain *may* take 1 treasure
    TakeStage: lambda s, stage, seat: (*take_options(s, seat), _TAKE_NONE),
    FountainStage: lambda s, stage, seat: _FOUNTAIN,
}


# ---------------------------------------------------------------- explanations


def why_illegal(s: GameState, seat: int, c: Command) -> Reason:
    """A short reason why a well-formed command is illegal now."""
    down = face_down(s)
    loc = s.location(seat)
    line = s.lines.get(loc.value, [])
    if isinstance(c, View | Reveal | Force):
        positions = c.positions if isinstance(c, View | Force) else (c.position,)
        missing = [p for p in positions if p not in down]
        if missing:
            return R.NO_FACE_DOWN(n=missing[0])
        if isinstance(c, View) and len(c.positions) == 1 and len(down) >= 2:
            return R.VIEW_TWO(cmd="VIEW")
        if isinstance(c, Force):
            if c.target == seat:
                return R.FORCE_SELF()
            if not 0 <= c.target < s.n:
                return R.NO_SEAT(n=c.target + 1)
            if len(down) < 2:
                return R.FORCE_TWO(cmd="FORCE")
    if isinstance(c, Row):
        if loc.is_rowboat:
            return R.IN_ROWBOAT()
        if loc.is_ship and c.ship is not None:
            return R.ROW_FROM_SHIP()
        if loc is Location.TORTUGA and c.ship is None:
            return R.ROW_WHICH(cmd="ROW FD or ROW JR")
        return R.ROWBOAT_TAKEN()
    if isinstance(c, Board | Land) and not loc.is_rowboat:
        return R.NOT_IN_ROWBOAT()
    if isinstance(c, Board):
        return R.SHIP_FULL()
    if isinstance(c, Attack | Maroon) and not (loc.is_ship and line[0] == seat):
        return R.CAPTAIN_ONLY()
    if isinstance(c, Maroon):
        return R.MAROON_OWN()
    if isinstance(c, Mutiny):
        return R.FIRST_MATE_ONLY()
    if isinstance(c, Brawl):
        return R.GOVERNOR_ONLY()
    if isinstance(c, Shift):
        if not (loc.is_ship and line[-1] == seat):
            return R.CABIN_BOY_ONLY()
        return R.HOLD_EMPTY()
    if isinstance(c, UseMap):
        return R.MAP_NEEDS()
    if isinstance(c, Marque):
        if isinstance(s.stage, ActionStage) and kept_card(
                s, seat, EventTitle.LETTER_OF_MARQUE) is None:
            return R.NO_MARQUE()
        return R.MARQUE_TARGET()
    if isinstance(c, Vote):
        held = len(s.hands[seat])
        return (R.VOTE_ONE_CARD if held == 1 else R.VOTE_CARDS)(n=held)
    if isinstance(c, Discard):
        return R.DISCARD_MARQUE()
    if isinstance(c, Shoot | Give | Choose | Take | TakeNone):
        return R.NOT_OFFERED()
    return R.NOT_NOW()
