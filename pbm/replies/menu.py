"""The numbered menu of a prompt, shared by the renderer and the reply parser.

``build_menu(seat_view)`` turns the seat's pending decisions (every legal answer, in
canonical text) into a short numbered list, so ``2`` in a reply means option 2 of the
prompt. Small choices are listed one by one (``1 = VOTE 1``); large ones become a
template that needs more words (``3 = FORCE _ _ name``).

Numbering: when the decision is a single choice of one number (a vote card, a position to
reveal when forced, a seat to shoot or give to), options are numbered *by that number*, so
``2`` and ``VOTE 2`` mean the same card and ``3`` and ``SHOOT 3`` the same seat. Otherwise
options are numbered 1, 2, 3 ... in a fixed order. Atlantis (a standing order, never a
pending decision) comes last when its owner may still use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.events import DecisionKind
from pbm.i18n import glossary
from pbm.i18n.languages import SOURCE_LANGUAGE
from pbm.i18n.translate import N_, _, current

# Placeholders used in templates: "_" is a number (an Event card position or a Vote card),
# "name" a player (name, unique prefix or seat number), "FD/JR" a ship.
NUMBER, NAME, SHIP = "_", "name", "FD/JR"

#: Decisions whose options are numbered by their one numeric argument.
_BY_ARGUMENT = {"VOTE", "CHOOSE", "SHOOT", "GIVE"}

#: Enumerate a verb's commands one by one up to this many; above it, show a template.
_MAX_LISTED = {"MAROON": 2, "MARQUE": 2, "VOTE": 9, "SHOOT": 9, "GIVE": 9}

_VERB_ORDER = (
    "PLACE", "VOTE", "CHOOSE", "SHOOT", "GIVE", "TAKE", "FOUNTAIN", "ACCEPT", "MARQUE", "SAVE",
    "VIEW", "REVEAL", "FORCE", "ROW", "BOARD", "LAND", "ATTACK", "MAROON", "MUTINY", "SHIFT",
    "BRAWL", "MAP", "ATLANTIS",
)

_ACTION_ORDER = (
    "VIEW", "REVEAL", "FORCE", "ROW", "BOARD", "LAND", "ATTACK", "MAROON", "MUTINY", "SHIFT",
    "BRAWL", "MARQUE", "MAP", "ATLANTIS",
)


@dataclass(frozen=True)
class MenuOption:
    """One numbered option: a canonical command, or a template when it needs more words.

    ``command`` is canonical text (``MAROON 3``) or a template (``FORCE _ _ name``);
    ``display`` is what the player reads (``MAROON Cleo``), ``label`` says what it does and
    ``example`` is a complete legal command in display form (``FORCE 1 4 Cleo``).
    """

    number: int
    command: str
    display: str
    label: str
    example: str | None = None
    verb: str = ""

    @property
    def is_template(self) -> bool:
        """True when the option needs more words from the player."""
        return any(tok in (NUMBER, NAME, SHIP) for tok in self.command.split())

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (stored with a prompt, read back when a reply arrives)."""
        return {
            "number": self.number,
            "command": self.command,
            "display": self.display,
            "label": self.label,
            "example": self.example,
            "verb": self.verb,
            "is_template": self.is_template,
        }


# ------------------------------------------------------------------ seat view helpers


def player_names(seat_view: Mapping[str, Any]) -> dict[int, str]:
    """Seat index -> display name, from a seat view."""
    return {int(p["seat"]): str(p["name"]) for p in seat_view["public"]["players"]}


def pending_legal(seat_view: Mapping[str, Any]) -> list[str]:
    """Every legal command of the seat now (canonical text), Atlantis included."""
    legal: list[str] = []
    for decision in seat_view.get("pending") or []:
        for cmd in decision.get("legal") or []:
            if cmd not in legal:
                legal.append(cmd)
    if atlantis_available(seat_view) and "ATLANTIS" not in legal:
        legal.append("ATLANTIS")
    return legal


def atlantis_available(seat_view: Mapping[str, Any]) -> bool:
    """True when the seat owns Atlantis, has not ordered it, and the game is on."""
    public = seat_view.get("public") or {}
    return (
        "ATLANTIS" in (seat_view.get("kept") or [])
        and not seat_view.get("atlantis_ordered")
        and public.get("status") == "playing"
    )


def with_names(command: str, names: Mapping[int, str]) -> str:
    """Canonical text with seat numbers replaced by names: ``MAROON 3`` -> ``MAROON Cleo``."""
    words = command.split()
    if not words:
        return command
    verb = words[0]
    seat_arg = {"MAROON": 1, "SHOOT": 1, "GIVE": 1, "MARQUE": 1, "FORCE": 3}.get(verb)
    if seat_arg is not None and len(words) > seat_arg and words[seat_arg].isdigit():
        seat = int(words[seat_arg]) - 1
        if seat in names:
            words[seat_arg] = names[seat]
    return " ".join(words)


def display_command(command: str, seat_view: Mapping[str, Any] | None) -> str:
    """A canonical command as a player reads it (names instead of seat numbers)."""
    if seat_view is None:
        return command
    return with_names(command, player_names(seat_view))


# ------------------------------------------------------------------ labels


def _label(command: str, seat_view: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """What an option does, in the reader's language while a message is rendered
    (``pbm.i18n.translate``; English otherwise)."""
    words = command.split()
    verb = words[0]
    args = words[1:]
    hold = {"BRITISH": _("British"), "FRENCH": _("French")}
    ship_names = {"FD": _("Flying Dutchman"), "JR": _("Jolly Roger")}
    if verb == "VOTE":
        hand = {int(c["number"]): c for c in seat_view.get("hand") or []}
        if len(args) == 1 and args[0].isdigit() and int(args[0]) in hand:
            card = hand[int(args[0])]
            section = _VOTE_SECTION.get(_vote_kind(seat_view), "")
            text = card["text"]
            lang = current()
            if lang != SOURCE_LANGUAGE:  # the engine's card text is English: the glossary's

                def word(symbol: str) -> str:
                    return glossary.term("symbols", symbol, lang)

                text = " / ".join("+".join(word(x) for x in card.get(part) or []) or "-"
                                  for part in ("top", "middle", "bottom"))
                if section and card.get(section):
                    counted = " + ".join(word(x) for x in card[section])
                    return _("play {counted} (card: {card})").format(counted=counted,
                                                                     card=text)
            if section and card.get(section):
                counted = " + ".join(s.capitalize() for s in card[section])
                return _("play {counted} (card: {card})").format(counted=counted,
                                                                 card=text)
            return _("play {card}").format(card=text)
        return _("play two cards (El Dorado)")
    if verb == "CHOOSE":
        return _("reveal the card at position {n}").format(n=args[0])
    if verb == "SHOOT":
        return _("shoot {name}: marooned").format(name=_name_arg(args, names))
    if verb == "GIVE":
        return _("give the Treasure Map to {name}").format(name=_name_arg(args, names))
    if verb == "PLACE":
        return _("put your starting treasure in the {hold} hold").format(
            hold=hold.get(args[0], args[0]))
    if verb == "TAKE":
        if args == ["NONE"]:
            return _("take no treasure (you may decline it)")
        if len(args) == 2:
            return _("Galleon treasure into your {hold} hold").format(
                hold=hold.get(args[1], args[1]))
        return _("from their {source} hold into your {hold} hold").format(
            source=hold.get(args[0], args[0]), hold=hold.get(args[2], args[2]))
    if verb == "MARQUE":
        if args and args[0] == NAME:
            return _("Letter of Marque: move a player to a ship")
        ship = ship_names.get(args[-1], args[-1]) if args else _("a ship")
        return _("Letter of Marque: {name} to the {ship}").format(
            name=_name_arg(args, names), ship=ship)
    if verb == "ROW":
        if args:
            return _("row to the {ship}'s rowboat").format(
                ship=ship_names.get(args[0], args[0]))
        return _("move to your ship's rowboat")
    if verb == "SHIFT":
        return _("Cabin Boy: move 1 treasure into the {hold} hold").format(
            hold=hold.get(args[-1], args[-1]))
    if verb == "MAP":
        return _("Treasure Map: 1 Galleon treasure into your ship's {hold} hold").format(
            hold=hold.get(args[0], args[0]))
    if verb == "MAROON":
        if args and args[0] == NAME:
            return _("Captain: maroon a crewmate to Tortuga")
        return _("Captain: maroon {name} to Tortuga").format(name=_name_arg(args, names))
    fixed = {
        "VIEW": N_("secretly look at 2 Event cards") if len(args) != 1
        else N_("secretly look at it"),
        "REVEAL": N_("reveal an Event card and resolve it"),
        "FORCE": N_("make a player reveal one of 2 cards"),
        "BOARD": N_("climb aboard your rowboat's ship"),
        "LAND": N_("row ashore to Tortuga"),
        "ATTACK": N_("Captain: call an Attack on the Galleon"),
        "MUTINY": N_("First Mate: call a Mutiny"),
        "BRAWL": N_("Governor: call a Brawl on Tortuga"),
        "SAVE": N_("keep the Letter of Marque for later"),
        "DISCARD": N_("let the Letter of Marque go: no effect"),
        "FOUNTAIN": N_("use the Fountain of Youth: stay"),
        "ACCEPT": N_("accept: go to Tortuga"),
        "ATLANTIS": N_("Atlantis: move to the other ship before the next turn"),
    }
    if verb == "REVEAL" and args and args[0] != NUMBER:
        return _("reveal it and resolve it")
    return _(fixed[verb]) if verb in fixed else verb.lower()


_VOTE_SECTION = {"ATTACK": "top", "BRAWL": "middle", "MUTINY": "bottom"}


def _vote_kind(seat_view: Mapping[str, Any]) -> str:
    for decision in seat_view.get("pending") or []:
        if decision.get("kind") == DecisionKind.VOTE:
            return str((decision.get("context") or {}).get("vote", ""))
    return ""


def _name_arg(args: Sequence[str], names: Mapping[int, str]) -> str:
    if args and args[0].isdigit():
        return names.get(int(args[0]) - 1, _("seat {n}").format(n=args[0]))
    return _("a player")


# ------------------------------------------------------------------ templates


def _template(verb: str, commands: Sequence[str]) -> str | None:
    """A template covering ``commands`` of one verb, or None to list them one by one."""
    shapes = {len(c.split()) for c in commands}
    if verb == "VIEW":
        return "VIEW _ _" if shapes == {3} else ("VIEW _" if len(commands) > 1 else None)
    if verb == "REVEAL":
        return "REVEAL _" if len(commands) > 1 else None
    if verb == "FORCE":
        return "FORCE _ _ name"
    if verb == "VOTE":
        return "VOTE _ _" if shapes == {3} else None
    limit = _MAX_LISTED.get(verb)
    if limit is not None and len(commands) > limit:
        return {"MAROON": "MAROON name", "MARQUE": "MARQUE name FD/JR",
                "SHOOT": "SHOOT name", "GIVE": "GIVE name"}.get(verb)
    return None


def build_menu(seat_view: Mapping[str, Any] | None) -> list[MenuOption]:
    """The numbered options of this seat's prompt (empty when nothing is awaited)."""
    if not seat_view:
        return []
    names = player_names(seat_view)
    legal = pending_legal(seat_view)
    if not legal:
        return []
    decisions = seat_view.get("pending") or []
    kinds = {d.get("kind") for d in decisions}

    by_verb: dict[str, list[str]] = {}
    for cmd in legal:
        by_verb.setdefault(cmd.split()[0], []).append(cmd)
    order = _ACTION_ORDER if "ACTION" in kinds else _VERB_ORDER
    verbs = sorted(by_verb, key=lambda v: order.index(v) if v in order else 99)

    options: list[MenuOption] = []
    numbered_by_argument = len(kinds) == 1 and next(iter(kinds)) in _BY_ARGUMENT

    def next_number() -> int:
        return max((o.number for o in options), default=0) + 1

    for verb in verbs:
        commands = by_verb[verb]
        singles = [c for c in commands if len(c.split()) == 2]
        groups: list[list[str]] = [commands]
        if verb == "VOTE" and singles and len(singles) < len(commands):
            groups = [singles, [c for c in commands if c not in singles]]
        for group in groups:
            template = _template(verb, group)
            if template is not None:
                example = display_command(group[0], seat_view)
                options.append(MenuOption(
                    next_number(), template, template, _label(template, seat_view, names),
                    example, verb,
                ))
                continue
            for cmd in group:
                args = cmd.split()[1:]
                use_arg = (numbered_by_argument and verb in _BY_ARGUMENT and len(args) == 1
                           and args[0].isdigit())
                number = int(args[0]) if use_arg else next_number()
                if any(o.number == number for o in options):
                    number = next_number()
                options.append(MenuOption(
                    number, cmd, display_command(cmd, seat_view),
                    _label(cmd, seat_view, names), None, verb,
                ))
    options.sort(key=lambda o: o.number)
    return options


def find_option(menu: Sequence[MenuOption], number: int) -> MenuOption | None:
    """The option with this number, if any."""
    for option in menu:
        if option.number == number:
            return option
    return None
