"""The menu of a decision in the few characters of an SMS: ``1=VIEW _ _ 2=REVEAL _``,
``SHOOT: 1=Ann 3=Cleo``, the Vote cards by their symbols; shorter forms for a tight fit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbm.i18n.translate import _
from pbm.render.names import VOTE_SECTION, short_name
from pbm.render.names import command_words as _command_words
from pbm.render.sms_board import sms_card
from pbm.replies.menu import MenuOption

_BY_ARGUMENT_VERBS = ("VOTE", "CHOOSE", "SHOOT", "GIVE")


#: Optional decisions: offered after the menu by their word, never numbered into it.
OPTIONAL_VERBS = frozenset({"ATLANTIS"})


def sms_options(menu: Sequence[MenuOption], width: int | None, collapse: bool,
                 hand: Mapping[int, str] | None = None) -> str:
    """The menu for an SMS: ``1=VIEW _ _ 2=REVEAL _ ...``, or ``SHOOT: 1=Ann 3=Cleo`` when
    every option is one verb picked by number; names cut to ``width``; with ``collapse``
    long lists of targets become one template (``MAROON name``). An optional decision
    (ATLANTIS) is never numbered among them: it follows as ``Or ATLANTIS (optional)``."""
    optional = [o for o in menu if o.verb in OPTIONAL_VERBS]
    menu = [o for o in menu if o.verb not in OPTIONAL_VERBS]
    if not menu:
        return " ".join(_("{verb} (optional)").format(verb=_command_words(o.verb))
                        for o in optional)
    tail = "".join(_(" Or {verb} (optional).").format(verb=_command_words(o.verb))
                   for o in optional)
    return _sms_menu(menu, width, collapse, hand) + tail


def numbers_and_verbs(menu: Sequence[MenuOption]) -> str:
    """The shortest menu: each option's number and verb (``1=VIEW 2=REVEAL``; a vote: the
    card numbers), one template per verb whose targets are many."""
    items: list[str] = []
    for option in menu:
        if option.verb in OPTIONAL_VERBS:
            continue
        word = _command_words(option.verb)
        if option.is_template:
            items.append(_command_words(option.display))
        elif option.verb == "VOTE":
            items.append(f"{option.number}")
        else:
            items.append(f"{option.number}={word}")
    return " ".join(items)


def _sms_menu(menu: Sequence[MenuOption], width: int | None, collapse: bool,
              hand: Mapping[int, str] | None = None) -> str:
    plain = [o for o in menu if not o.is_template]
    verbs = {o.verb for o in plain}
    if plain and len(verbs) == 1 and next(iter(verbs)) in _BY_ARGUMENT_VERBS:
        verb = next(iter(verbs))
        items: list[str] = []
        for option in menu:
            if option.is_template or option.verb != verb:
                items.append(f"{option.number}={_command_words(option.display)}")
                continue
            arg = option.display.split(" ", 1)[1] if " " in option.display else ""
            if verb == "VOTE" and hand is not None:
                arg = hand.get(option.number, arg)
            elif width is not None:
                arg = short_name(arg, width)
            items.append(f"{option.number}={arg}")
        if verb == "CHOOSE":
            return " ".join(_("{n}=card {n}").format(n=o.number) for o in plain)
        if collapse and verb in ("SHOOT", "GIVE"):
            return _("{verb} name or seat no.").format(verb=_command_words(verb))
        return ("" if verb == "VOTE" else f"{_command_words(verb)}: ") + " ".join(items)
    items = []
    seen_templates: set[str] = set()
    for option in menu:
        display = option.display
        if collapse and not option.is_template and option.verb in (
                "MAROON", "MARQUE", "SHOOT", "GIVE") and len(
                [o for o in menu if o.verb == option.verb]) > 1:
            template = {"MAROON": _("MAROON name"), "MARQUE": _("MARQUE name FD/JR"),
                        "SHOOT": _("SHOOT name"), "GIVE": _("GIVE name")}[option.verb]
            if template in seen_templates:
                continue
            seen_templates.add(template)
            items.append(template)
            continue
        if option.verb == "VOTE" and hand is not None and not option.is_template:
            arg = display.split(" ", 1)[1] if " " in display else ""
            items.append(f"{option.number}={hand.get(option.number, arg)}")
            continue
        if width is not None and option.verb in ("MAROON", "SHOOT", "GIVE", "MARQUE") \
                and not option.is_template:
            verb, _sep, rest = display.partition(" ")
            if option.verb == "MARQUE":
                name, _sep, ship = rest.rpartition(" ")
                display = f"{verb} {short_name(name, width)} {ship}"
            else:
                display = f"{verb} {short_name(rest, width)}"
        items.append(f"{option.number}={_command_words(display)}")
    return " ".join(items)


def vote_hand(model: Mapping[str, Any]) -> dict[int, str] | None:
    """Card number -> its symbols for the section being voted (None if no vote awaited)."""
    awaited = model["awaited"]
    if not awaited or not model["me"] or not awaited.get("vote"):
        return None
    section = VOTE_SECTION.get(awaited["vote"], "top")
    return {c["number"]: sms_card(c["sections"], mark=section) for c in model["me"]["hand"]}
