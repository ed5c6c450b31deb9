"""Why, as data: a reason is a code and its parameters, never a sentence to parse back.

As Django's ``ValidationError(message, code, params)``: each :class:`ReasonCode` pairs a
stable code with an English template (``{named}`` placeholders); a :class:`Reason` is one
code with the values of its placeholders. The template is the catalogue's message id, so
every language (English included) says a reason from its code
(``pbm.render.reasons.say``); the reason itself is a ``str``, its plain English text, for
logs and error messages. A parameter may itself be a reason (``{reason}`` nested in
"``X`` is not allowed: ``...``").

The engine's own codes are below; the service declares its codes with the same
:class:`ReasonCode` in ``pbm.replies.reasons``. ``N_`` only marks a template for
Babel's extraction (``babel.cfg`` reads this file); the engine does no translation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Every code declared so far -> its English template.
TEMPLATES: dict[str, str] = {}


def N_(template: str) -> str:
    """Marks ``template`` as a catalogue message id; returns it unchanged."""
    return template


class Reason(str):
    """One reason: a declared ``code`` and the values of its template's placeholders.

    A reason is also its English text (a ``str``): code that only passes a reason on, or
    writes it to a log, needs no change; code that says it to a player reads ``code`` and
    ``params``. Its stored form is :meth:`to_dict` (a JSON dump of the string alone would
    keep the English only)."""

    code: str
    params: Mapping[str, str | int]

    def __new__(cls, code: str, params: Mapping[str, str | int] | None = None) -> Reason:
        values = dict(params or {})
        text = TEMPLATES[code].format(**values)
        self = super().__new__(cls, text)
        self.code, self.params = code, values
        return self

    def __repr__(self) -> str:
        return f"Reason({self.code!r}, {self.params!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Reason, (self.code, dict(self.params)))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form stored with a reply's outcome: ``{"code", "params"}``; a parameter
        that is a reason is stored the same way."""
        return {"code": self.code,
                "params": {k: v.to_dict() if isinstance(v, Reason) else v
                           for k, v in self.params.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reason:
        """The reason :meth:`to_dict` stored."""
        params = {k: cls.from_dict(v) if isinstance(v, Mapping) else v
                  for k, v in dict(data.get("params") or {}).items()}
        return cls(str(data["code"]), params)


class ReasonCode:
    """A kind of reason: its code and English template. Calling it makes a :class:`Reason`
    (``NO_SEAT(n=3)``)."""

    def __init__(self, code: str, template: str) -> None:
        known = TEMPLATES.setdefault(code, template)
        assert known == template, f"reason code {code!r} declared twice"
        self.code, self.template = code, template

    def __call__(self, **params: str | int) -> Reason:
        return Reason(self.code, params)

    def __repr__(self) -> str:
        return f"ReasonCode({self.code!r})"


def as_reason(value: Any) -> Reason | None:
    """A reason from its stored form (:meth:`Reason.to_dict`), or None for anything else (a
    plain English sentence stored before reasons were data)."""
    if isinstance(value, Reason):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("code"), str) \
            and value["code"] in TEMPLATES:
        return Reason.from_dict(value)
    return None


# ------------------------------------------------------------------ the command reader

MISSING = ReasonCode("command.missing", N_("missing {what}"))
NOT_A_NUMBER = ReasonCode("command.not_a_number", N_("{what} must be a number, got '{value}'"))
NUMBER_TOO_LONG = ReasonCode("command.number_too_long",
                             N_("{what} must be a small number, got {value}..."))
OUT_OF_RANGE = ReasonCode("command.out_of_range",
                          N_("{what} must be {low}..{high}, got {value}"))
TOO_SMALL = ReasonCode("command.too_small", N_("{what} must be at least {low}, got {value}"))
NOT_A_HOLD = ReasonCode("command.not_a_hold", N_("expected BRITISH or FRENCH, got '{value}'"))
NOT_A_SHIP = ReasonCode("command.not_a_ship", N_("expected FD or JR, got '{value}'"))
ARITY = ReasonCode("command.arity", N_("{cmd} takes {expected} argument(s), got {n}"))
NOT_DISTINCT = ReasonCode("command.not_distinct", N_("the {what} must be different"))
SHIFT_TO = ReasonCode("command.shift_to", N_("expected SHIFT TO BRITISH or SHIFT TO FRENCH"))
TAKE_TO = ReasonCode("command.take_to", N_("expected TAKE TO <hold> or TAKE <hold> TO <hold>"))
TAKE_FROM_TO = ReasonCode("command.take_from_to", N_("expected TAKE <hold> TO <hold>"))
EMPTY = ReasonCode("command.empty", N_("empty command"))
UNKNOWN_COMMAND = ReasonCode("command.unknown", N_("unknown command '{value}'"))
#: The whole command could not be read (``reason`` says why).
UNPARSEABLE = ReasonCode("command.unparseable", N_("cannot parse '{cmd}': {reason}"))

# ------------------------------------------------------------------ whose turn it is

GAME_OVER = ReasonCode("game.over", N_("the game is over"))
GAME_OVER_NOT_APPLIED = ReasonCode("game.over_not_applied",
                                   N_("the game is over; {cmd} was not applied"))
NO_SEAT_IN_GAME = ReasonCode("seat.none_in_game", N_("there is no seat {n} in this game"))
NOTHING_AWAITED = ReasonCode("seat.nothing_awaited", N_("nothing is awaited from {name} now"))
#: A command refused for the seat (``reason`` says why).
REFUSED_FOR = ReasonCode("seat.refused_for", N_("{cmd}: {reason}"))
ANSWERS_OTHER = ReasonCode("seat.answers_other",
                           N_("{cmd} answers {kinds}, but {name} is asked for {wanted}"))
NO_OPEN_VOTE = ReasonCode("seat.no_open_vote",
                          N_("{name} has no answer in an open vote to change"))
#: A well-formed command the rules forbid now (``reason`` says why).
NOT_ALLOWED = ReasonCode("rules.not_allowed", N_("{cmd} is not allowed: {reason}"))

# ------------------------------------------------------------------ the rules (why not)

NO_FACE_DOWN = ReasonCode("rules.no_face_down",
                          N_("there is no face-down Event card at position {n}"))
VIEW_TWO = ReasonCode("rules.view_two", N_("{cmd} needs two positions while two or more cards "
                                           "are face down"))
FORCE_SELF = ReasonCode("rules.force_self", N_("you cannot force yourself"))
NO_SEAT = ReasonCode("rules.no_seat", N_("there is no seat {n}"))
FORCE_TWO = ReasonCode("rules.force_two", N_("{cmd} needs two face-down cards"))
IN_ROWBOAT = ReasonCode("rules.in_rowboat", N_("you are already in a rowboat"))
ROW_FROM_SHIP = ReasonCode("rules.row_from_ship", N_("from a ship, ROW takes no ship: you row "
                                                     "to your own ship's rowboat"))
ROW_WHICH = ReasonCode("rules.row_which", N_("from Tortuga, say which rowboat: {cmd}"))
ROWBOAT_TAKEN = ReasonCode("rules.rowboat_taken", N_("that rowboat is occupied"))
NOT_IN_ROWBOAT = ReasonCode("rules.not_in_rowboat", N_("you are not in a rowboat"))
SHIP_FULL = ReasonCode("rules.ship_full", N_("that ship already has 5 pawns"))
CAPTAIN_ONLY = ReasonCode("rules.captain_only", N_("only a ship's Captain may do that"))
MAROON_OWN = ReasonCode("rules.maroon_own",
                        N_("the Captain may maroon only another pawn on his own ship"))
FIRST_MATE_ONLY = ReasonCode("rules.first_mate_only",
                             N_("only a ship's First Mate may call a Mutiny"))
GOVERNOR_ONLY = ReasonCode("rules.governor_only",
                           N_("only the Governor of Tortuga may call a Brawl"))
CABIN_BOY_ONLY = ReasonCode("rules.cabin_boy_only",
                            N_("only a ship's Cabin Boy may move treasure between its holds"))
HOLD_EMPTY = ReasonCode("rules.hold_empty", N_("the other hold is empty"))
MAP_NEEDS = ReasonCode("rules.map_needs", N_("you need a Treasure Map given before this turn, "
                                             "a place on a ship and treasure on the Galleon"))
NO_MARQUE = ReasonCode("rules.no_marque", N_("you have no saved Letter of Marque"))
MARQUE_TARGET = ReasonCode("rules.marque_target", N_("the target must be on Tortuga or in a "
                                                     "rowboat, and the ship must have room"))
VOTE_ONE_CARD = ReasonCode("rules.vote_one_card", N_("you hold {n} Vote card; two cards need "
                                                     "an unused El Dorado"))
VOTE_CARDS = ReasonCode("rules.vote_cards", N_("you hold {n} Vote cards; two cards need an "
                                               "unused El Dorado"))
REVOTE_CARDS = ReasonCode("rules.revote_cards", N_("the hand voted from held {n} Vote card(s); "
                                                   "two cards need an unused El Dorado"))
SAME_VOTE = ReasonCode("rules.same_vote", N_("that is already your vote"))
DISCARD_MARQUE = ReasonCode("rules.discard_marque", N_("someone is on Tortuga or in a rowboat: "
                                                       "use the Letter of Marque or SAVE it"))
NOT_OFFERED = ReasonCode("rules.not_offered", N_("that is not one of the offered choices"))
NOT_NOW = ReasonCode("rules.not_now", N_("the rules do not allow it now"))
NO_ATLANTIS = ReasonCode("rules.no_atlantis", N_("{name} does not own Atlantis"))
ATLANTIS_STANDING = ReasonCode("rules.atlantis_standing", N_("the order is already standing"))
