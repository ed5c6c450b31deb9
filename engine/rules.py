"""What may be done now (:func:`pending`, :func:`legal_commands`) and doing it
(:func:`apply`): turn order, every turn action with its preconditions, and the answers
to votes and Event cards."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import combinations, repeat
from operator import is_
from typing import Any

from engine.board import (
    Events,
    discard_kept,
    fountain_owner_card,
    kept_card,
    maroon,
    maroon_unless_fountain,
    move_pawn,
    move_treasure,
    name,
    open_stage,
    say,
    ship_has_room,
)
from engine.cards import EventTitle, Hold, Location, Ship, VoteKind
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
    Timeout,
    UseAtlantis,
    UseMap,
    View,
    Vote,
    parse_command,
)
from engine.errors import GameOverError, IllegalCommandError, NotYourDecisionError
from engine.eventcards import (
    apply_atlantis_orders,
    face_down,
    give_map,
    map_options_ok,
    marque_moves,
    refill,
    renew_sudden_death_row,
    reveal,
    shoot,
    treasure_map_effect,
    use_marque,
    view_cards,
)
from engine.events import Decision, DecisionKind, Event
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
    release,
    writable,
)
from engine.votes import call_vote, cast_vote, take, take_options, vote_options

_ACTION = frozenset({DecisionKind.ACTION})

#: Which open decision each command can answer.
ANSWERS: dict[type[Command], frozenset[DecisionKind]] = {
    View: _ACTION,
    Reveal: _ACTION,
    Force: _ACTION,
    Row: _ACTION,
    Board: _ACTION,
    Land: _ACTION,
    Attack: _ACTION,
    Mutiny: _ACTION,
    Brawl: _ACTION,
    Maroon: _ACTION,
    Shift: _ACTION,
    UseMap: _ACTION,
    Marque: frozenset({DecisionKind.ACTION, DecisionKind.LETTER_OF_MARQUE}),
    Save: frozenset({DecisionKind.LETTER_OF_MARQUE}),
    Vote: frozenset({DecisionKind.VOTE}),
    Choose: frozenset({DecisionKind.CHOOSE}),
    Shoot: frozenset({DecisionKind.SHOOT}),
    Give: frozenset({DecisionKind.GIVE}),
    Take: frozenset({DecisionKind.TAKE}),
    TakeNone: frozenset({DecisionKind.TAKE}),
    Discard: frozenset({DecisionKind.LETTER_OF_MARQUE}),
    Timeout: frozenset(DecisionKind),
    Place: frozenset({DecisionKind.PLACE}),
    Fountain: frozenset({DecisionKind.FOUNTAIN}),
    Accept: frozenset({DecisionKind.FOUNTAIN}),
}


def actions_per_turn(state: GameState) -> int:
    """2 in a 2-player game, else 1."""
    return 2 if len(state.names) == 2 else 1


@lru_cache(maxsize=256)
def _action_stage(seat: int, action: int, of: int) -> ActionStage:
    """Stages are immutable values: turns share them."""
    return ActionStage(seat, action, of)


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


def turn_actions(s: GameState, seat: int) -> tuple[Command, ...]:
    """Every legal turn action of ``seat`` (rules reference section 5)."""
    # The hottest part of legal moves: ``face_down``, ``GameState.location`` and
    # ``ship_has_room`` are written out here, on the plain keys of ``lines``/``rowboats``.
    down = tuple([i for i, card in enumerate(s.row, 1) if card is not None])
    row_actions = _row_actions(down, seat, len(s.names))  # shared, never copied
    out: list[Command] = []
    lines, rowboats = s.lines, s.rowboats
    for key in _SHIP_KEYS:
        line = lines[key]
        if seat in line:
            if rowboats[key] is None:
                out.append(_ROW)
            i = line.index(seat)
            if i == 0:
                out.append(_ATTACK)
                out += [_maroon(t) for t in line[1:]]
            if i == 1:
                out.append(_MUTINY)
            if i == len(line) - 1:
                treasure = s.treasure
                out += [shift for shift, other in _SHIFT_FROM[key] if treasure[other] > 0]
            break
    else:
        tortuga = lines["TORTUGA"]
        if seat in tortuga:
            out += [_ROW_TO[ship] for ship in _SHIPS if rowboats[ship.value] is None]
            if tortuga[0] == seat:
                out.append(_BRAWL)
        else:
            ship = s.location(seat).ship  # a rowboat (location() raises if nowhere)
            assert ship is not None
            if ship_has_room(s, ship):
                out.append(_BOARD)
            out.append(_LAND)
    if s.kept[seat]:  # both cards below must be kept by the seat
        if kept_card(s, seat, EventTitle.LETTER_OF_MARQUE) is not None:
            out += marque_moves(s)
        if map_options_ok(s, seat):
            out += _USE_MAP
    return row_actions + tuple(out) if out else row_actions


# Commands are immutable values: the legal-move lists share these instead of building new
# ones for every state.
_ROW, _ATTACK, _MUTINY, _BRAWL, _BOARD, _LAND = Row(), Attack(), Mutiny(), Brawl(), Board(), Land()
_SHIPS, _HOLDS = tuple(Ship), tuple(Hold)
_ROW_TO = {ship: Row(ship) for ship in Ship}
_SHIFT = {hold: Shift(hold) for hold in Hold}
_SHIP_KEYS = tuple(ship.value for ship in Ship)
#: Cabin Boy's SHIFT options by ship key, with the treasure key each one empties.
_SHIFT_FROM = {ship.value: tuple((_SHIFT[to], hold_key(ship, to.other)) for to in _HOLDS)
               for ship in Ship}
_USE_MAP = tuple(UseMap(h) for h in Hold)
_PLACE = (Place(Hold.BRITISH), Place(Hold.FRENCH))
_FOUNTAIN = (Fountain(), Accept())
_SAVE = Save()
_DISCARD = Discard()
_TAKE_NONE = TakeNone()


@lru_cache(maxsize=16)
def _maroon(target: int) -> Maroon:
    return Maroon(target)


def _decision_legal(s: GameState, stage: Stage, seat: int) -> tuple[Command, ...]:
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
    if isinstance(stage, ActionStage):
        return turn_actions(s, seat)
    if isinstance(stage, VoteStage):
        return vote_options(s, seat)
    if isinstance(stage, PlaceStage):
        return _PLACE
    if isinstance(stage, ChooseStage):
        return tuple(Choose(p) for p in stage.positions)
    if isinstance(stage, MarqueStage):
        moves = marque_moves(s)  # OQ-8: with nobody to move, save it or let it go
        return (*moves, _SAVE) if moves else (_SAVE, _DISCARD)
    if isinstance(stage, ShootStage):
        return tuple(Shoot(t) for t in range(s.n) if t != seat)
    if isinstance(stage, GiveStage):
        return tuple(Give(t) for t in range(s.n))
    if isinstance(stage, TakeStage):
        return (*take_options(s, seat), _TAKE_NONE)  # the Captain *may* take 1 treasure
    if isinstance(stage, FountainStage):
        return _FOUNTAIN
    return ()


def _context(s: GameState, stage: Stage, seat: int) -> dict[str, Any]:
    # ``seat`` is awaited (see pending), so this is ``s.decision_id(seat)`` without
    # asking the stage again.
    if type(stage) is ActionStage:  # the usual case, built in one go
        return {"decision_id": f"{s.stage_serial}.{seat}", "action": stage.action,
                "of": stage.of, "turn": s.turn_number}
    ctx: dict[str, Any] = {"decision_id": f"{s.stage_serial}.{seat}"}
    if isinstance(stage, VoteStage):
        ctx.update(vote=stage.vote.value, caller=stage.caller,
                   participants=list(stage.participants))
    elif isinstance(stage, PlaceStage):
        ctx.update(ship=stage.ship.value)
    elif isinstance(stage, ChooseStage):
        ctx.update(positions=list(stage.positions), forced_by=stage.by)
    elif isinstance(stage, MarqueStage | ShootStage | GiveStage):
        ctx.update(card=_STAGE_CARD[type(stage)])
    elif isinstance(stage, TakeStage):
        ctx.update(source="GALLEON" if s.treasure["GALLEON"] > 0 else "SHIP")
    elif isinstance(stage, FountainStage):
        ctx.update(cause=stage.cause, by=stage.by)
    return ctx


_STAGE_CARD: dict[type, str] = {
    MarqueStage: EventTitle.LETTER_OF_MARQUE.value,
    ShootStage: EventTitle.PISTOL.value,
    GiveStage: EventTitle.TREASURE_MAP.value,
}


def pending(state: GameState) -> list[Decision]:
    """Who must answer what, with every legal answer. Empty once the game is over.

    Everything except a vote is a single seat; a vote yields one decision per participant
    still to answer. Atlantis orders are never pending (see :func:`legal_commands`).
    """
    stage = state.stage
    if stage is None:
        return []
    kind = stage.kind
    if kind is None:  # the game is over
        return []
    out: list[Decision] = []
    for seat in stage.awaiting():
        # Decision(seat, kind, legal, context) without the frozen dataclass's __init__
        # (one object.__setattr__ per field): the same object, built at a third of the cost.
        decision = _new(Decision)
        fields = decision.__dict__
        fields["seat"] = seat
        fields["kind"] = kind
        fields["legal"] = _decision_legal(state, stage, seat)
        fields["context"] = _context(state, stage, seat)
        out.append(decision)
    return out


_new = object.__new__


def may_order_atlantis(state: GameState, seat: int) -> bool:
    """True if ``seat`` owns an unused Atlantis and has no standing order yet."""
    return (
        not state.over
        and kept_card(state, seat, EventTitle.ATLANTIS) is not None
        and not state.atlantis_ordered[seat]
    )


def legal_commands(state: GameState, seat: int) -> list[Command]:
    """Every command ``seat`` may send now (``[]`` if nothing): the answers to its open
    decision, plus ``ATLANTIS`` for an Atlantis owner without a standing order."""
    stage = state.stage
    out: list[Command] = []
    if stage is not None and not state.over and seat in stage.awaiting():
        out += _decision_legal(state, stage, seat)
    if 0 <= seat < state.n and may_order_atlantis(state, seat):
        out.append(UseAtlantis())
    return out


# ---------------------------------------------------------------- applying

#: Plays the default for a silent seat (the answer to ``TIMEOUT``): engine.defaults, which
#: builds on this module, plugs its ``apply_default`` in here when the engine is imported.
play_default: Callable[[GameState, int], tuple[GameState, list[Event]]] | None = None


def apply(state: GameState, seat: int, command: Command | str) -> tuple[GameState, list[Event]]:
    """Apply ``seat``'s command; return the new state and what happened.

    Never mutates ``state``. ``command`` may be canonical text. Raises
    :class:`~engine.errors.CommandParseError`, :class:`~engine.errors.GameOverError`,
    :class:`~engine.errors.NotYourDecisionError` (nothing of this kind is awaited from the
    seat) or :class:`~engine.errors.IllegalCommandError` (the rules forbid it now).
    """
    if isinstance(command, str):
        command = parse_command(command)
    cache = state.__dict__.get("_legal_cache")
    if cache is not None:  # the usual case: pending() was asked, the command is one of its
        legal = cache.get(seat)  # memoised answers (only an awaited seat has an entry)
        if legal is not None and any(map(is_, legal, repeat(command))):
            stage = state.stage
            assert stage is not None
            return _applied(state, seat, command, stage)
    if state.over:
        raise GameOverError(f"the game is over; {command} was not applied")
    if not 0 <= seat < state.n:
        raise NotYourDecisionError(f"there is no seat {seat + 1} in this game")
    if isinstance(command, UseAtlantis):
        return _order_atlantis(state, seat)
    if isinstance(command, Timeout):
        assert play_default is not None, "engine.defaults is imported with the engine"
        return play_default(state, seat)
    stage = state.stage
    assert stage is not None
    if seat not in stage.awaiting():
        raise NotYourDecisionError(
            f"{command}: nothing is awaited from {state.names[seat]} now"
        )
    kinds = ANSWERS[type(command)]
    if stage.kind not in kinds:
        wanted = stage.kind.value if stage.kind else "nothing"
        raise NotYourDecisionError(
            f"{command} answers {' or '.join(sorted(k.value for k in kinds))}, but "
            f"{state.names[seat]} is asked for {wanted}"
        )
    if not _offered(command, _decision_legal(state, stage, seat)):
        raise IllegalCommandError(f"{command} is not allowed: {_why(state, seat, command)}")
    return _applied(state, seat, command, stage)


def _applied(state: GameState, seat: int, command: Command, stage: Stage
             ) -> tuple[GameState, list[Event]]:
    """The checked ``command`` carried out on a fork of ``state``."""
    s = state.fork()
    ev: list[Event] = []
    _HANDLERS[type(stage)](s, ev, seat, command, stage)
    if s.stage is None:
        _finish_action(s, ev)
    s.version += 1
    release(s)
    return s, ev


def _offered(command: Command, legal: tuple[Command, ...]) -> bool:
    """``command in legal``, first by identity (a command taken from :func:`pending` is one
    of the memoised objects: no equality tests), then by value."""
    return any(map(is_, legal, repeat(command))) or command in legal


def _order_atlantis(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    if kept_card(state, seat, EventTitle.ATLANTIS) is None:
        raise IllegalCommandError(f"ATLANTIS is not allowed: {state.names[seat]} does not "
                                  "own Atlantis")
    if state.atlantis_ordered[seat]:
        raise IllegalCommandError("ATLANTIS is not allowed: the order is already standing")
    s = state.fork()
    ev: list[Event] = []
    writable(s, "atlantis_ordered")[seat] = True
    say(ev, "atlantis.ordered",
        "Your Atlantis order stands: it is carried out just before the next turn begins.",
        audience=[seat], seat=seat)
    s.version += 1
    release(s)
    return s, ev


def _finish_action(s: GameState, ev: Events) -> None:
    """The action and everything it triggered are resolved: refill the row, then the next
    action of this turn or the next turn (Atlantis orders first)."""
    refill(s, ev)
    if s.over:
        return
    renew_sudden_death_row(s, ev)
    per_turn = actions_per_turn(s)
    if s.turn_action < per_turn:
        s.turn_action += 1
        open_stage(s, _action_stage(s.turn_seat, s.turn_action, per_turn))
        say(ev, "turn.action", f"{name(s, s.turn_seat)} takes action {s.turn_action} of "
            f"{per_turn}.", seat=s.turn_seat, action=s.turn_action, of=per_turn)
        return
    s.turn_seat = (s.turn_seat + 1) % s.n
    apply_atlantis_orders(s, ev)
    _begin_turn(s, ev)


def _begin_turn(s: GameState, ev: Events) -> None:
    per_turn = actions_per_turn(s)
    s.turn_number += 1
    s.turn_action = 1
    open_stage(s, _action_stage(s.turn_seat, 1, per_turn))
    say(ev, "turn.started", f"It is {name(s, s.turn_seat)}'s turn.", seat=s.turn_seat,
        turn=s.turn_number)


# ---------------------------------------------------------------- handlers by stage

Handler = Callable[[GameState, Events, int, Command, Any], None]


def _on_place(s: GameState, ev: Events, seat: int, command: Command, stage: PlaceStage) -> None:
    assert isinstance(command, Place)
    treasure = writable(s, "treasure")
    treasure["UNPLACED"] -= 1
    treasure[hold_key(stage.ship, command.hold)] += 1
    say(ev, "treasure.placed",
        f"{name(s, seat)} placed the {stage.ship.label}'s starting treasure in its "
        f"{command.hold.value.capitalize()} hold.", seat=seat, ship=stage.ship.value,
        hold=command.hold.value)
    if stage.ship is Ship.FD:
        open_stage(s, PlaceStage(s.lines["JR"][0], Ship.JR))
    else:
        s.turn_seat = s.lines["JR"][0]
        _begin_turn(s, ev)


def _on_vote(s: GameState, ev: Events, seat: int, command: Command, stage: VoteStage) -> None:
    assert isinstance(command, Vote)
    cast_vote(s, ev, seat, command)


def _on_choose(s: GameState, ev: Events, seat: int, command: Command, stage: Stage) -> None:
    assert isinstance(command, Choose)
    reveal(s, ev, command.position, seat)


def _on_marque(s: GameState, ev: Events, seat: int, command: Command,
               stage: MarqueStage) -> None:
    if isinstance(command, Discard):
        writable(s, "discard").append(stage.card)
        say(ev, "card.discarded", f"{name(s, seat)} let the Letter of Marque go: nobody was "
            "on Tortuga or in a rowboat, so it had no effect.", seat=seat,
            title=EventTitle.LETTER_OF_MARQUE.value)
        return
    assert isinstance(command, Marque | Save)
    use_marque(s, ev, seat, command, stage.card, saved=False)


def _on_shoot(s: GameState, ev: Events, seat: int, command: Command, stage: ShootStage) -> None:
    assert isinstance(command, Shoot)
    shoot(s, ev, seat, command.target, stage.card)


def _on_give(s: GameState, ev: Events, seat: int, command: Command, stage: GiveStage) -> None:
    assert isinstance(command, Give)
    give_map(s, ev, seat, command.target, stage.card)


def _on_take(s: GameState, ev: Events, seat: int, command: Command, stage: Stage) -> None:
    if isinstance(command, TakeNone):
        say(ev, "treasure.declined", f"{name(s, seat)} took no treasure.", seat=seat)
        return
    assert isinstance(command, Take)
    take(s, ev, seat, command)


def _on_fountain(s: GameState, ev: Events, seat: int, command: Command,
                 stage: FountainStage) -> None:
    if isinstance(command, Fountain):
        card = fountain_owner_card(s, seat)
        assert card is not None
        discard_kept(s, seat, card)
        say(ev, "card.used",
            f"{name(s, seat)} drank from the Fountain of Youth and was not marooned.",
            seat=seat, title=EventTitle.FOUNTAIN_OF_YOUTH.value, cause=stage.cause)
    else:
        maroon(s, ev, seat, stage.cause)


def _on_action(s: GameState, ev: Events, seat: int, command: Command, stage: Stage) -> None:
    _ACTIONS[type(command)](s, ev, seat, command)


def _with_clear_stage(handler: Handler) -> Handler:
    def run(s: GameState, ev: Events, seat: int, command: Command, stage: Any) -> None:
        s.stage = None
        handler(s, ev, seat, command, stage)
    return run


_HANDLERS: dict[type, Handler] = {
    PlaceStage: _with_clear_stage(_on_place),
    ActionStage: _with_clear_stage(_on_action),
    VoteStage: _on_vote,
    ChooseStage: _with_clear_stage(_on_choose),
    MarqueStage: _with_clear_stage(_on_marque),
    ShootStage: _with_clear_stage(_on_shoot),
    GiveStage: _with_clear_stage(_on_give),
    TakeStage: _with_clear_stage(_on_take),
    FountainStage: _with_clear_stage(_on_fountain),
}


# ---------------------------------------------------------------- turn actions

Action = Callable[[GameState, Events, int, Any], None]


def _act_view(s: GameState, ev: Events, seat: int, c: View) -> None:
    view_cards(s, ev, seat, c.positions)


def _act_reveal(s: GameState, ev: Events, seat: int, c: Reveal) -> None:
    reveal(s, ev, c.position, seat)


def _act_force(s: GameState, ev: Events, seat: int, c: Force) -> None:
    a, b = c.positions
    say(ev, "event.forced",
        f"{name(s, seat)} forced {name(s, c.target)} to choose between Event cards {a} "
        f"and {b}.", seat=seat, target=c.target, positions=[a, b])
    open_stage(s, ChooseStage(c.target, c.positions, seat))


def _act_row(s: GameState, ev: Events, seat: int, c: Row) -> None:
    ship = c.ship or s.location(seat).ship
    assert ship is not None
    move_pawn(s, ev, seat, Location.rowboat_of(ship), "ROW")


def _act_board(s: GameState, ev: Events, seat: int, c: Board) -> None:
    ship = s.location(seat).ship
    assert ship is not None
    move_pawn(s, ev, seat, Location.of_ship(ship), "BOARD")


def _act_land(s: GameState, ev: Events, seat: int, c: Land) -> None:
    move_pawn(s, ev, seat, Location.TORTUGA, "LAND")


def _vote_action(kind: VoteKind) -> Action:
    def act(s: GameState, ev: Events, seat: int, c: Command) -> None:
        call_vote(s, ev, kind, seat)
    return act


def _act_maroon(s: GameState, ev: Events, seat: int, c: Maroon) -> None:
    say(ev, "captain.maroons", f"Captain {name(s, seat)} marooned {name(s, c.target)}.",
        seat=seat, target=c.target)
    maroon_unless_fountain(s, ev, c.target, "MAROON", seat)


def _act_shift(s: GameState, ev: Events, seat: int, c: Shift) -> None:
    ship = s.location(seat).ship
    assert ship is not None
    move_treasure(
        s, ev, hold_key(ship, c.to.other), hold_key(ship, c.to),
        f"Cabin Boy {name(s, seat)} moved 1 treasure on the {ship.label} into the "
        f"{c.to.value.capitalize()} hold.",
    )


def _act_marque(s: GameState, ev: Events, seat: int, c: Marque) -> None:
    card = kept_card(s, seat, EventTitle.LETTER_OF_MARQUE)
    assert card is not None
    use_marque(s, ev, seat, c, card, saved=True)


def _act_map(s: GameState, ev: Events, seat: int, c: UseMap) -> None:
    treasure_map_effect(s, ev, seat, c.hold)


_ACTIONS: dict[type[Command], Action] = {
    View: _act_view,
    Reveal: _act_reveal,
    Force: _act_force,
    Row: _act_row,
    Board: _act_board,
    Land: _act_land,
    Attack: _vote_action(VoteKind.ATTACK),
    Mutiny: _vote_action(VoteKind.MUTINY),
    Brawl: _vote_action(VoteKind.BRAWL),
    Maroon: _act_maroon,
    Shift: _act_shift,
    Marque: _act_marque,
    UseMap: _act_map,
}


# ---------------------------------------------------------------- explanations


def _why(s: GameState, seat: int, c: Command) -> str:
    """A short reason why a well-formed command is illegal now."""
    down = face_down(s)
    loc = s.location(seat)
    line = s.lines.get(loc.value, [])
    if isinstance(c, View | Reveal | Force):
        positions = c.positions if isinstance(c, View | Force) else (c.position,)
        missing = [p for p in positions if p not in down]
        if missing:
            return f"there is no face-down Event card at position {missing[0]}"
        if isinstance(c, View) and len(c.positions) == 1 and len(down) >= 2:
            return "VIEW needs two positions while two or more cards are face down"
        if isinstance(c, Force):
            if c.target == seat:
                return "you cannot force yourself"
            if not 0 <= c.target < s.n:
                return f"there is no seat {c.target + 1}"
            if len(down) < 2:
                return "FORCE needs two face-down cards"
    if isinstance(c, Row):
        if loc.is_rowboat:
            return "you are already in a rowboat"
        if loc.is_ship and c.ship is not None:
            return "from a ship, ROW takes no ship: you row to your own ship's rowboat"
        if loc is Location.TORTUGA and c.ship is None:
            return "from Tortuga, say which rowboat: ROW FD or ROW JR"
        return "that rowboat is occupied"
    if isinstance(c, Board | Land) and not loc.is_rowboat:
        return "you are not in a rowboat"
    if isinstance(c, Board):
        return "that ship already has 5 pawns"
    if isinstance(c, Attack | Maroon) and not (loc.is_ship and line[0] == seat):
        return "only a ship's Captain may do that"
    if isinstance(c, Maroon):
        return "the Captain may maroon only another pawn on his own ship"
    if isinstance(c, Mutiny):
        return "only a ship's First Mate may call a Mutiny"
    if isinstance(c, Brawl):
        return "only the Governor of Tortuga may call a Brawl"
    if isinstance(c, Shift):
        if not (loc.is_ship and line[-1] == seat):
            return "only a ship's Cabin Boy may move treasure between its holds"
        return "the other hold is empty"
    if isinstance(c, UseMap):
        return ("you need a Treasure Map given before this turn, a place on a ship and "
                "treasure on the Galleon")
    if isinstance(c, Marque):
        if isinstance(s.stage, ActionStage) and kept_card(
                s, seat, EventTitle.LETTER_OF_MARQUE) is None:
            return "you have no saved Letter of Marque"
        return "the target must be on Tortuga or in a rowboat, and the ship must have room"
    if isinstance(c, Vote):
        return (f"you hold {len(s.hands[seat])} Vote card(s); two cards need an unused "
                "El Dorado")
    if isinstance(c, Discard):
        return "someone is on Tortuga or in a rowboat: use the Letter of Marque or SAVE it"
    if isinstance(c, Shoot | Give | Choose | Take | TakeNone):
        return "that is not one of the offered choices"
    return "the rules do not allow it now"
