"""What may be done now (:func:`pending`, :func:`legal_commands`) and doing it
(:func:`apply`): which decision each command answers, the checks, and turn order; the
legal answers come from :mod:`engine.legal`, their effects from :mod:`engine.actions`."""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from operator import is_
from typing import Any

from engine import reasons as R
from engine.actions import ACTIONS, HANDLERS, KEEPS_STAGE
from engine.board import Events, kept_card, open_stage, say
from engine.cards import EventTitle
from engine.commands import (
    Accept,
    Attack,
    Board,
    Brawl,
    ChangeVote,
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
from engine.eventcards import apply_atlantis_orders, refill, renew_sudden_death_row
from engine.events import Decision, DecisionKind, Event
from engine.legal import FIRST_ACTION, action_stage, decision_legal, why_illegal
from engine.legal import actions_per_turn as actions_per_turn
from engine.state import (
    ActionStage,
    ChooseStage,
    FountainStage,
    GameState,
    GiveStage,
    MarqueStage,
    OverStage,
    PlaceStage,
    ShootStage,
    Stage,
    TakeStage,
    VoteStage,
    release,
    writable,
)
from engine.votes import change_options, change_vote

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
    ChangeVote: frozenset({DecisionKind.VOTE}),
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
        fields["legal"] = decision_legal(state, stage, seat)
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
        out += decision_legal(state, stage, seat)
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
        raise GameOverError(R.GAME_OVER_NOT_APPLIED(cmd=str(command)))
    if not 0 <= seat < state.n:
        raise NotYourDecisionError(R.NO_SEAT_IN_GAME(n=seat + 1))
    if isinstance(command, UseAtlantis):
        return _order_atlantis(state, seat)
    if isinstance(command, ChangeVote):
        return _change_vote(state, seat, command)
    if isinstance(command, Timeout):
        assert play_default is not None, "engine.defaults is imported with the engine"
        return play_default(state, seat)
    stage = state.stage
    assert stage is not None
    if seat not in stage.awaiting():
        raise NotYourDecisionError(
            R.REFUSED_FOR(cmd=str(command), reason=R.NOTHING_AWAITED(name=state.names[seat])))
    kinds = ANSWERS[type(command)]
    if stage.kind not in kinds:
        wanted = stage.kind.value if stage.kind else "nothing"
        raise NotYourDecisionError(R.ANSWERS_OTHER(
            cmd=str(command), kinds=" or ".join(sorted(k.value for k in kinds)),
            name=state.names[seat], wanted=wanted))
    if not _offered(command, decision_legal(state, stage, seat)):
        raise IllegalCommandError(R.NOT_ALLOWED(cmd=str(command),
                                                  reason=why_illegal(state, seat, command)))
    return _applied(state, seat, command, stage)


def _applied(state: GameState, seat: int, command: Command, stage: Stage
             ) -> tuple[GameState, list[Event]]:
    """The checked ``command`` carried out on a fork of ``state``, with its events."""
    s = state.fork()
    ev: list[Event] = []
    kind = type(stage)
    if kind is ActionStage:  # the usual case: straight to the action's effect
        s.stage = None
        ACTIONS[type(command)](s, ev, seat, command)
    else:
        if kind is not KEEPS_STAGE:
            s.stage = None
        HANDLERS[kind](s, ev, seat, command, stage)
    if s.stage is None:
        _finish_action(s, ev)
    s.version += 1
    del s.__dict__["_parent"]  # release(s)
    return s, ev


def _change_vote(state: GameState, seat: int, command: ChangeVote
                 ) -> tuple[GameState, list[Event]]:
    """A seat that has answered an open vote replaces its answer (the vote stays open)."""
    stage = state.stage
    before = stage.hand_before(seat) if isinstance(stage, VoteStage) else None
    if before is None or not isinstance(stage, VoteStage):
        raise NotYourDecisionError(
            R.REFUSED_FOR(cmd=str(command), reason=R.NO_OPEN_VOTE(name=state.names[seat])))
    if command not in change_options(state, seat):
        played = tuple(sorted(before.index(c) + 1 for c in dict(stage.played)[seat]))
        why = R.SAME_VOTE() if command.cards == played else R.REVOTE_CARDS(n=len(before))
        raise IllegalCommandError(R.NOT_ALLOWED(cmd=str(command), reason=why))
    s = state.fork()
    ev: list[Event] = []
    change_vote(s, ev, seat, command)
    s.version += 1
    release(s)
    return s, ev


def _offered(command: Command, legal: tuple[Command, ...]) -> bool:
    """``command in legal``, first by identity (a command taken from :func:`pending` is one
    of the memoised objects: no equality tests), then by value."""
    return any(map(is_, legal, repeat(command))) or command in legal


def _order_atlantis(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    if kept_card(state, seat, EventTitle.ATLANTIS) is None:
        raise IllegalCommandError(R.NOT_ALLOWED(cmd="ATLANTIS",
                                                reason=R.NO_ATLANTIS(name=state.names[seat])))
    if state.atlantis_ordered[seat]:
        raise IllegalCommandError(R.NOT_ALLOWED(cmd="ATLANTIS", reason=R.ATLANTIS_STANDING()))
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
    if s.refill_position is not None:  # (refill does nothing without a spot to refill)
        refill(s, ev)
    if type(s.stage) is OverStage:
        return
    if s.sudden_death:
        renew_sudden_death_row(s, ev)
    n = len(s.names)
    per_turn = 2 if n == 2 else 1  # actions_per_turn
    if s.turn_action < per_turn:
        s.turn_action += 1
        open_stage(s, action_stage(s.turn_seat, s.turn_action, per_turn))
        say(ev, "turn.action", f"{s.names[s.turn_seat]} takes action {s.turn_action} "
            f"of {per_turn}.", seat=s.turn_seat, action=s.turn_action, of=per_turn)
        return
    s.turn_seat = (s.turn_seat + 1) % n
    if True in s.atlantis_ordered:
        apply_atlantis_orders(s, ev)
    # engine.actions._begin_turn written out (this runs after nearly every action)
    seat = s.turn_seat
    s.turn_number += 1
    s.turn_action = 1
    s.stage = FIRST_ACTION[per_turn][seat]
    s.stage_serial += 1
    say(ev, "turn.started", f"It is {s.names[seat]}'s turn.", seat=seat,
        turn=s.turn_number)
