"""The board and the Vote cards in the few words of an SMS: ``Cannon/Brit/Skull``,
``FD: Ann Capt, you; holds B1 F0.`` (the words from the catalogue, the marks from the
reader's language traits)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbm.i18n.languages import traits
from pbm.i18n.translate import N_, _, current
from pbm.render.gsm7 import to_gsm7
from pbm.render.names import short_name, title_label

#: The symbols of a Vote card in an SMS (catalogue ids: the reader's words).
SMS_SYMBOL = {"CANNON": N_("Cannon"), "TORCH": N_("Torch"), "WATER": N_("Water"),
              "BRITISH": N_("Brit"), "FRENCH": N_("Fren"), "SKULL": N_("Skull"),
              "HELM": N_("Helm")}
#: The ranks in an SMS (catalogue ids).
SMS_RANK = {"CAPTAIN": N_("Capt"), "FIRST_MATE": N_("1stMate"), "CABIN_BOY": N_("CabinBoy"),
            "GOVERNOR": N_("Gov")}


def _word(table: Mapping[str, str], code: str) -> str:
    return _(table[code]) if code in table else code


def sms_card(card: Mapping[str, Any], section: str | None = None,
             mark: str | None = None) -> str:
    """A Vote card's symbols for SMS: one section (``Cannon+Torch``) or all three
    (``Cannon/Brit/Skull``: top, middle, bottom), the section ``mark`` (the one a vote
    counts) in capitals (``TORCH/Brit/Skull``) or, in a script without them, in brackets."""

    def one(symbols: Sequence[str]) -> str:
        return "+".join(_word(SMS_SYMBOL, x) for x in symbols) or _("blank")

    def few(symbols: Sequence[str]) -> str:  # a special card: 2Torch/2Fren/2Skull
        if len(symbols) > 1 and len(set(symbols)) == 1:
            return f"{len(symbols)}{_word(SMS_SYMBOL, symbols[0])}"
        return one(symbols)

    if section is not None:
        return one(card[section])
    brackets = traits(current()).sms_card_mark == "brackets"
    return "/".join((f"[{few(card[part])}]" if brackets else few(card[part]).upper())
                    if part == mark else few(card[part]) for part in ("top", "middle", "bottom"))


def _sms_person(public: Mapping[str, Any], seat: int, me: int | None, width: int,
                kept_cards: bool = True) -> str:
    player = next(p for p in public["players"] if p["seat"] == seat)
    name = _("you") if seat == me else short_name(to_gsm7(player["name"]), width)
    ranks = "+".join(_word(SMS_RANK, r) for r in player.get("ranks") or [])
    kept = ",".join(title_label(t) for t in player.get("kept") or []) if kept_cards and \
        seat != me else ""
    return name + (f" {ranks}" if ranks else "") + (f" ({kept})" if kept else "")


def sms_board(public: Mapping[str, Any], me: int | None, width: int = 10,
              kept: bool = True) -> str:
    """Both ships' lines with ranks and holds, Tortuga, the Galleon and the score; with
    ``kept``, the cards in front of the others (the player's own are in the second text)."""
    parts = []
    for ship in public["ships"]:
        code = ship["ship"]
        line = ", ".join(_sms_person(public, s, me, width, kept)
                         for s in ship["line"]) or _("empty")
        rower = public["rowboats"].get(code)
        boat = _("; rowboat {who}").format(who=_sms_person(public, rower, me, width, kept)) \
            if rower is not None else ""
        parts.append(_("{ship}: {line}{boat}; holds B{british} F{french}.").format(
            ship=code, line=line, boat=boat, british=ship["british"], french=ship["french"]))
    ashore = ", ".join(_sms_person(public, s, me, width, kept)
                       for s in public["tortuga"]) or _("nobody")
    parts.append(_("Tortuga: {who}; B{british} F{french}.").format(
        who=ashore, british=public["tortuga_british"], french=public["tortuga_french"]))
    score = public["score"]
    parts.append(_("Galleon {galleon}. Score B{british} F{french}.").format(
        galleon=public["galleon"], british=score["british"], french=score["french"]))
    return " ".join(parts)
