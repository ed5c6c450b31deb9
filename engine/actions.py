"""Carrying out a checked command: the handler for each kind of decision, the turn
actions' effects, and the start of a turn."""

from __future__ import annotations

from collections.abc import Callable
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
    open_stage,
    say,
)
from engine.cards import EventTitle, Location, Ship, VoteKind
from engine.commands import (
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
from engine.eventcards import give_map, reveal, shoot, treasure_map_effect, use_marque, view_cards
from engine.legal import FIRST_ACTION
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
    writable,
)
from engine.votes import call_vote, cast_vote, take


def _begin_turn(s: GameState, ev: Events) -> None:
    # actions_per_turn and open_stage written out: this runs after nearly every action.
    seat = s.turn_seat
    s.turn_number += 1
    s.turn_action = 1
    s.stage = FIRST_ACTION[2 if len(s.names) == 2 else 1][seat]
    s.stage_serial += 1
    say(ev, "turn.started", f"It is {s.names[seat]}'s turn.", seat=seat,
        turn=s.turn_number)



_new = object.__new__


# ---------------------------------------------------------------- handlers by stage

Handler = Callable[[GameState, Events, int, Command, Any], None]


def _on_place(s: GameState, ev: Events, seat: int, command: Command, stage: PlaceStage) -> None:
    assert isinstance(command, Place)
    treasure = writable(s, "treasure")
    treasure["UNPLACED"] -= 1
    treasure[hold_key(stage.ship, command.hold)] += 1
    say(ev, "treasure.placed",
        f"{s.names[seat]} placed the {stage.ship.label}'s starting treasure in its "
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
        say(ev, "card.discarded", f"{s.names[seat]} let the Letter of Marque go: nobody was "
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
        say(ev, "treasure.declined", f"{s.names[seat]} took no treasure.", seat=seat)
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
            f"{s.names[seat]} drank from the Fountain of Youth and was not marooned.",
            seat=seat, title=EventTitle.FOUNTAIN_OF_YOUTH.value, cause=stage.cause)
    else:
        maroon(s, ev, seat, stage.cause)


def _on_action(s: GameState, ev: Events, seat: int, command: Command, stage: Stage) -> None:
    ACTIONS[type(command)](s, ev, seat, command)


#: The handler of each kind of decision. Every stage but a vote (which records answers
#: until the last one) is closed before its handler runs: :func:`engine.rules._applied`
#: clears ``s.stage`` first unless the stage's type is in :data:`KEEPS_STAGE`.
HANDLERS: dict[type, Handler] = {
    PlaceStage: _on_place,
    ActionStage: _on_action,
    VoteStage: _on_vote,
    ChooseStage: _on_choose,
    MarqueStage: _on_marque,
    ShootStage: _on_shoot,
    GiveStage: _on_give,
    TakeStage: _on_take,
    FountainStage: _on_fountain,
}
KEEPS_STAGE = VoteStage


# ---------------------------------------------------------------- turn actions

Action = Callable[[GameState, Events, int, Any], None]


def _act_view(s: GameState, ev: Events, seat: int, c: View) -> None:
    view_cards(s, ev, seat, c.positions)


def _act_reveal(s: GameState, ev: Events, seat: int, c: Reveal) -> None:
    reveal(s, ev, c.position, seat)


def _act_force(s: GameState, ev: Events, seat: int, c: Force) -> None:
    a, b = c.positions
    say(ev, "event.forced",
        f"{s.names[seat]} forced {s.names[c.target]} to choose between Event cards {a} "
        f"and {b}.", seat=seat, target=c.target, positions=[a, b])
    # ChooseStage(c.target, c.positions, seat) without the frozen dataclass's __init__
    # (one object.__setattr__ per field): the same object, built at less cost.
    stage = _new(ChooseStage)
    fields = stage.__dict__
    fields["seat"] = c.target
    fields["positions"] = c.positions
    fields["by"] = seat
    s.stage = stage
    s.stage_serial += 1  # (open_stage)


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
    say(ev, "captain.maroons", f"Captain {s.names[seat]} marooned {s.names[c.target]}.",
        seat=seat, target=c.target)
    maroon_unless_fountain(s, ev, c.target, "MAROON", seat)


def _act_shift(s: GameState, ev: Events, seat: int, c: Shift) -> None:
    ship = s.location(seat).ship
    assert ship is not None
    move_treasure(
        s, ev, hold_key(ship, c.to.other), hold_key(ship, c.to),
        f"Cabin Boy {s.names[seat]} moved 1 treasure on the {ship.label} into the "
        f"{c.to.value.capitalize()} hold.", by="SHIFT", cabin_boy=seat,
    )


def _act_marque(s: GameState, ev: Events, seat: int, c: Marque) -> None:
    card = kept_card(s, seat, EventTitle.LETTER_OF_MARQUE)
    assert card is not None
    use_marque(s, ev, seat, c, card, saved=True)


def _act_map(s: GameState, ev: Events, seat: int, c: UseMap) -> None:
    treasure_map_effect(s, ev, seat, c.hold)


ACTIONS: dict[type[Command], Action] = {
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
