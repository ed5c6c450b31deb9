"""What is played for a seat that ran out of time: one written policy, a rule per decision.

The policy: **a default never favours a team.** Where the rules let the seat do nothing
(take no treasure, keep a card unused), the default does nothing. Where the rules force a
choice, the default draws it at random, evenly over the legal answers of that kind, from
the game's own seeded random source: :func:`apply_default` (the engine's answer to the
``TIMEOUT`` command) advances ``state.rng_counter`` and draws from a stream of its own, so
a replay of the command log draws exactly the same default, and no other draw of the game
(a vote's shuffle) can be inferred from it. No default ever spends a kept card (Letter of
Marque, Treasure Map, Fountain of Youth, El Dorado, Atlantis).

:data:`POLICY` is the table (decision -> what is played -> why), :func:`default_command`
previews the command :func:`apply_default` would play now (reminders quote it), and
:func:`describe_default` says it in the player's words.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine import reasons as R
from engine import rules
from engine.commands import (
    Accept,
    Board,
    Choose,
    Command,
    Give,
    Land,
    Marque,
    Place,
    Reveal,
    Row,
    Save,
    Shoot,
    TakeNone,
    UseMap,
    View,
    Vote,
)
from engine.errors import GameOverError, NotYourDecisionError
from engine.events import Decision, DecisionKind, Event
from engine.rules import apply, pending
from engine.state import GameState


@dataclass(frozen=True)
class DefaultRule:
    """The default of one decision kind: what is played, said to the seat (``plays``), to
    the table (``table``) and by SMS (``short``), and why it favours no team (``why``)."""

    kind: DecisionKind
    plays: str
    table: str
    short: str
    why: str


#: The timeout policy, one rule per decision kind ``engine.pending`` can produce.
POLICY: dict[DecisionKind, DefaultRule] = {rule.kind: rule for rule in (
    DefaultRule(
        DecisionKind.PLACE,
        "your ship's starting treasure goes into a hold drawn at random (British or French, "
        "even odds)",
        "the starting treasure went into a hold drawn at random",
        "a random hold",
        "the treasure must be placed and either hold helps a team, so only a fair coin "
        "favours neither"),
    DefaultRule(
        DecisionKind.ACTION,
        "you secretly VIEW two Event cards drawn at random; nothing on the board changes",
        "they looked at two Event cards drawn at random; nothing on the board changed",
        "2 random cards, just a look",
        "a turn must be taken; looking moves no pawn and no treasure and spends no card"),
    DefaultRule(
        DecisionKind.VOTE,
        "one Vote card of your hand, drawn at random, is played (never two)",
        "one Vote card of their hand, drawn at random, was played",
        "a random card of your hand",
        "a vote needs a card; one drawn at random from the hand the seat was dealt leans "
        "to no team"),
    DefaultRule(
        DecisionKind.CHOOSE,
        "one of the two offered Event cards, drawn at random, is revealed",
        "one of the two offered Event cards was drawn at random and revealed",
        "a random one of the 2 cards",
        "the rules force a reveal; a fair coin between the two cards favours neither "
        "team"),
    DefaultRule(
        DecisionKind.LETTER_OF_MARQUE,
        "SAVE: the Letter of Marque is kept for you and nobody moves",
        "the Letter of Marque was saved for them; nobody moved",
        "SAVE (nobody moves)",
        "using it is a choice; saving it moves nobody and leaves the card to its owner"),
    DefaultRule(
        DecisionKind.SHOOT,
        "the Pistol is fired at another player drawn at random",
        "the Pistol's target was drawn at random among the other players",
        "a random target",
        "the Pistol must be fired; every other seat is equally likely, whatever its team"),
    DefaultRule(
        DecisionKind.GIVE,
        "the Treasure Map goes to a player drawn at random (you included)",
        "the Treasure Map went to a player drawn at random",
        "a random player",
        "the map must go to someone; every seat is equally likely, whatever its team"),
    DefaultRule(
        DecisionKind.TAKE,
        "TAKE NONE: no treasure is taken",
        "no treasure was taken",
        "TAKE NONE",
        "the Captain may decline the treasure, and taking it would hand it to a team"),
    DefaultRule(
        DecisionKind.FOUNTAIN,
        "ACCEPT: you are marooned and keep your Fountain of Youth for later",
        "the Fountain of Youth was not used",
        "ACCEPT (card kept)",
        "drinking is a choice and the card is used only once, so a default never spends "
        "it"),
)}

#: Turn actions a default may fall back on when no card can be viewed: moves only, never
#: a kept card (MARQUE, MAP), a vote or a marooning.
_HARMLESS_MOVES: tuple[type[Command], ...] = (Row, Land, Board)


@dataclass(frozen=True)
class DefaultPreview:
    """What the default would play now for one seat: ``command`` (canonical text) and the
    :class:`DefaultRule` it follows."""

    command: Command
    rule: DefaultRule


def _decision(state: GameState, seat: int) -> Decision:
    if state.over:
        raise GameOverError(R.GAME_OVER())
    mine = [d for d in pending(state) if d.seat == seat]
    if not mine:
        raise NotYourDecisionError(R.NOTHING_AWAITED(name=state.names[seat]))
    return mine[0]


def _stream(state: GameState) -> random.Random:
    """The default's own draw: the state's counter advanced once, a label of its own."""
    return random.Random(f"{state.seed}:default:{state.rng_counter + 1}")


def _draw(decision: Decision, rng: random.Random) -> Command:
    """The default answer to ``decision`` (see :data:`POLICY`)."""
    legal = decision.legal
    kind = decision.kind
    if kind is DecisionKind.TAKE:
        return TakeNone()
    if kind is DecisionKind.LETTER_OF_MARQUE:
        return Save()
    if kind is DecisionKind.FOUNTAIN:
        return Accept()
    if kind is DecisionKind.PLACE:
        return rng.choice([c for c in legal if isinstance(c, Place)])
    if kind is DecisionKind.VOTE:
        return rng.choice([c for c in legal if isinstance(c, Vote) and len(c.cards) == 1])
    if kind is DecisionKind.CHOOSE:
        return rng.choice([c for c in legal if isinstance(c, Choose)])
    if kind is DecisionKind.SHOOT:
        return rng.choice([c for c in legal if isinstance(c, Shoot)])
    if kind is DecisionKind.GIVE:
        return rng.choice([c for c in legal if isinstance(c, Give)])
    views = [c for c in legal if isinstance(c, View)]
    if views:
        return rng.choice(views)
    moves = [c for c in legal if isinstance(c, _HARMLESS_MOVES)]
    if moves:
        return rng.choice(moves)
    # Never reached in a real game (a pawn can always move or look); still no kept card.
    spare = [c for c in legal if not isinstance(c, Marque | UseMap)]
    return rng.choice(spare or [c for c in legal if isinstance(c, Reveal)] or list(legal))


def default_command(state: GameState, seat: int) -> Command:
    """The command :func:`apply_default` would play for ``seat`` now (a preview: the state
    is not changed). Raises :class:`~engine.errors.NotYourDecisionError` if nothing is
    awaited from ``seat``."""
    return _draw(_decision(state, seat), _stream(state))


def preview_default(state: GameState, seat: int) -> DefaultPreview:
    """The default for ``seat`` now and the rule it follows."""
    decision = _decision(state, seat)
    return DefaultPreview(_draw(decision, _stream(state)), POLICY[decision.kind])


def describe_default(state: GameState, seat: int, *, short: bool = False) -> str:
    """What is played if ``seat`` stays silent, in the player's words (second person);
    ``short``: a few words for an SMS."""
    preview = preview_default(state, seat)
    said = _said(state, preview.command)
    words = preview.rule.short if short else preview.rule.plays
    if words.startswith(said):
        return words
    if short:
        return f"{said} ({words})"
    return f"{words} (drawn for this question: {said})"


def _said(state: GameState, command: Command) -> str:
    """A command as the table reads it (names for seat numbers)."""
    if isinstance(command, Shoot | Give):
        return f"{command.keyword} {state.names[command.target]}"
    return str(command)


def apply_default(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    """Play the default for ``seat`` (the engine's answer to ``TIMEOUT``): the draw advances
    ``state.rng_counter``, so the same state and log always give the same default.

    The first event tells the table what was played and why (a vote's card stays secret:
    the seat alone is told which card, as for any vote).
    """
    decision = _decision(state, seat)
    rule = POLICY[decision.kind]
    command = _draw(decision, _stream(state))
    drawn = state.copy()
    drawn.rng_counter += 1
    after, events = apply(drawn, seat, command)
    secret = decision.kind is DecisionKind.VOTE
    shown = None if secret else _said(state, command)
    played = "" if secret else f" ({shown})"
    notice = Event(
        "timeout.played",
        f"{state.names[seat]} ran out of time: {rule.table}{played}. Why: {rule.why}.",
        data={"seat": seat, "kind": decision.kind.value,
              "command": None if secret else str(command), "why": rule.why},
    )
    return after, [notice, *events]


rules.play_default = apply_default  # rules answers TIMEOUT with it (it cannot import us)


__all__ = ["POLICY", "DefaultPreview", "DefaultRule", "apply_default", "default_command",
           "describe_default", "preview_default"]
