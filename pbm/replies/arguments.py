"""One verb's arguments: sorting tokens into numbers, players, ships, holds and cards,
and the canonical command text they make (``canonical_text``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.events import DecisionKind
from engine.reasons import NO_SEAT
from pbm.replies import reasons as R
from pbm.replies.name_match import match_name
from pbm.replies.parse_types import AmbiguousCards, NoParse, ParseContext
from pbm.replies.words import FILLER, HOLDS, SELF_WORDS, SHIPS, SYMBOLS, name_key, number_of

# Words that, for one keyword, are part of the phrase rather than noise.
_EXTRA_FILLER: dict[str, frozenset[str]] = {
    "LAND": frozenset({"tortuga", "island", "ashore", "shore", "beach"}),
    "ROW": frozenset({"rowboat", "boat", "rowing", "dinghy", "row", "tortuga", "island",
                      "ashore", "shore", "beach"}),
    "BOARD": frozenset({"board", "ship", "aboard", "onboard"}),
    "ACCEPT": frozenset({"tortuga", "island", "ashore", "shore", "marooned"}),
    "ATTACK": frozenset({"spanish", "attack", "galleon"}),
    "MUTINY": frozenset({"mutiny"}),
    "BRAWL": frozenset({"tortuga", "brawl"}),
    "MAROON": frozenset({"off", "overboard", "out", "ship"}),
    "FORCE": frozenset({"choose", "reveal", "pick", "flip", "between"}),
    "SHIFT": frozenset({"shift", "move", "one", "1"}),
    "TAKE": frozenset({"take", "one", "1"}),
    "MAP": frozenset({"treasure", "map"}),
    "MARQUE": frozenset({"letter", "marque", "of", "lom"}),
    "FOUNTAIN": frozenset({"youth", "fountain", "stay"}),
    "ATLANTIS": frozenset({"atlantis"}),
    "REVEAL": frozenset({"over"}),
    "SAVE": frozenset({"letter", "marque", "it", "for", "later"}),
    "VOTE": frozenset({"with", "flag", "flags", "symbol", "symbols", "sign", "showing"}),
    "PLACE": frozenset({"starting", "start"}),
    "GIVE": frozenset({"map", "treasure"}),
}


#: Words that decline a successful Attack's treasure (``TAKE NONE``).
DECLINE_TREASURE = frozenset({"none", "nothing", "no", "decline", "declined"})


#: Words that name the shore of Tortuga ("row to Tortuga").
_ASHORE = frozenset({"tortuga", "island", "ashore", "shore", "beach"})


TAKES_NAME = {"MAROON", "SHOOT", "GIVE", "MARQUE", "FORCE"}


TAKES_SHIP = {"ROW", "BOARD", "MARQUE"}


TAKES_HOLD = {"SHIFT", "TAKE", "PLACE", "MAP"}


# ------------------------------------------------------------------ arguments


@dataclass
class _Args:
    numbers: list[int] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    ships: list[str] = field(default_factory=list)
    holds: list[str] = field(default_factory=list)
    symbols: list[tuple[int, str]] = field(default_factory=list)  # (count, symbol)
    unknown: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _scan(keyword: str, toks: Sequence[str], ctx: ParseContext) -> _Args:
    """Sort the argument tokens of ``keyword`` into numbers, seats, ships, holds, unknown."""
    args = _Args()
    extra = _EXTRA_FILLER.get(keyword, frozenset())
    takes_name = keyword in TAKES_NAME
    i = 0
    while i < len(toks):
        tok = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if tok in extra:
            i += 1
            continue
        if tok in ("one", "1") and nxt == "of":  # "one of 1 or 4"
            i += 2
            continue
        if tok == "one" and nxt in ("with", "showing", "that", "which", "having", "where"):
            i += 1  # "the one with the torch"
            continue
        if tok == "one" and i > 0 and _is_pronoun_one(toks[i - 1]):
            i += 1  # "the second one", "the cannon one", "this one"
            continue
        if keyword == "VOTE" and tok in ("double", "twin", "pair") and nxt in SYMBOLS:
            i += 1
            continue
        if keyword == "VOTE" and tok in SYMBOLS:
            count = 1
            if args.numbers and i > 0 and number_of(toks[i - 1]) is not None:
                count = args.numbers.pop()  # "two torches"
            elif i > 0 and toks[i - 1] in ("double", "twin", "pair"):
                count = 2
            args.symbols.append((count, SYMBOLS[tok]))
            i += 1
            continue
        if takes_name and number_of(tok) is None:
            seat, used, note = match_name(toks, i, ctx)
            exact = used and name_key("".join(toks[i : i + used])) == name_key(
                ctx.names.get(seat, ""))
            if seat >= 0 and (exact or (tok not in SHIPS and tok not in FILLER)):
                args.seats.append(seat)
                if note:
                    args.notes.append(note)
                i += used
                continue
            if tok in SELF_WORDS and ctx.seat is not None:
                args.seats.append(ctx.seat)
                i += 1
                continue
        if keyword in TAKES_SHIP and tok in SHIPS:
            ship = SHIPS[tok]
            if not args.ships or args.ships[-1] != ship:  # "flying dutchman" is one ship
                args.ships.append(ship)
            i += 1
            continue
        if keyword in TAKES_HOLD and tok in HOLDS:
            args.holds.append(HOLDS[tok])
            i += 1
            continue
        number = number_of(tok)
        if number is not None:
            args.numbers.append(number)
            i += 1
            continue
        if tok in FILLER or tok in SELF_WORDS:
            i += 1
            continue
        args.unknown.append(tok)
        i += 1
    return args


_ORDINALS = frozenset({"first", "second", "third", "fourth", "fifth", "sixth", "seventh",
                       "eighth", "ninth"})


def _is_pronoun_one(previous: str) -> bool:
    """True when "one" after ``previous`` is a pronoun, not the number 1."""
    return (previous in ("this", "that", "the", "which", "other", "last", "left", "right",
                         "middle", "double", "same")
            or previous in SYMBOLS or previous in _ORDINALS
            or bool(re.fullmatch(r"\d+(?:st|nd|rd|th)", previous)))


def _vote_by_symbol(args: _Args, ctx: ParseContext) -> list[int]:
    """Hand card numbers whose symbols fit those named (the counted section first)."""
    hand = list((ctx.seat_view or {}).get("hand") or [])
    kind = ""
    for decision in (ctx.seat_view or {}).get("pending") or []:
        if decision.get("kind") == DecisionKind.VOTE:
            kind = str((decision.get("context") or {}).get("vote", ""))
    counted = {"ATTACK": "top", "BRAWL": "middle", "MUTINY": "bottom"}.get(kind)
    sections = [counted] if counted else []
    sections += [s for s in ("top", "middle", "bottom") if s != counted]

    def fits(card: Mapping[str, Any], section: str) -> bool:
        symbols = list(card.get(section) or [])
        return all(symbols.count(sym) >= count if count > 1 else sym in symbols
                   for count, sym in args.symbols) and all(
            count == 1 or symbols.count(sym) == count for count, sym in args.symbols)

    for section in sections:
        hits = [int(c["number"]) for c in hand if fits(c, section)]
        if hits:
            return hits
    # Symbols of different sections ("the Cannon/British one"): each on the same card.
    if len(args.symbols) > 1:
        return [int(c["number"]) for c in hand
                if all(any(sym in (c.get(s) or []) for s in ("top", "middle", "bottom"))
                       for _, sym in args.symbols)]
    return []


def _only(args: _Args, *allowed: str) -> None:
    """Raise unless every argument kind not in ``allowed`` is empty."""
    for kind in ("numbers", "seats", "ships", "holds", "symbols"):
        if kind not in allowed and getattr(args, kind):
            raise NoParse(R.UNEXPECTED(kind=kind[:-1], value=str(getattr(args, kind)[0])))
    if args.unknown:
        raise NoParse(R.UNEXPECTED_WORD(word=args.unknown[0]))


def _seat_text(args: _Args, ctx: ParseContext, what: str) -> str:
    """The one seat of ``args`` as a seat number; bare numbers count as seat numbers."""
    seats = list(args.seats)
    if not seats and len(args.numbers) == 1:
        number = args.numbers[0]
        if ctx.names and number not in {s + 1 for s in ctx.names}:
            raise NoParse(NO_SEAT(n=number))
        seats = [number - 1]
        args.numbers.clear()
    if len(seats) != 1:
        raise NoParse(R.NEEDS_PLAYER(cmd=what))
    args.seats.clear()
    return str(seats[0] + 1)


def canonical_text(keyword: str, toks: Sequence[str], ctx: ParseContext) -> tuple[str, list[str]]:
    """Canonical text for ``keyword`` with argument tokens ``toks``; raises NoParse."""
    args = _scan(keyword, toks, ctx)
    k = keyword
    if k == "VOTE" and args.symbols:
        _only(args, "symbols")
        cards = _vote_by_symbol(args, ctx)
        if not cards:
            raise NoParse(R.NO_SYMBOL_CARD())
        if len(cards) > 1:
            raise AmbiguousCards(cards)
        args.numbers, args.symbols = cards, []
    if k in ("VIEW", "VOTE"):
        _only(args, "numbers")
        if len(args.numbers) not in (1, 2):
            raise NoParse(R.ONE_OR_TWO_NUMBERS(cmd=k))
        hand = len((ctx.seat_view or {}).get("hand") or []) if ctx.seat_view else None
        if k == "VOTE" and hand is not None:
            for number in args.numbers:
                if not 1 <= number <= hand:
                    raise NoParse(R.NO_VOTE_CARD(n=number, hand=hand))
        return f"{k} " + " ".join(map(str, args.numbers)), args.notes
    if k in ("REVEAL", "CHOOSE"):
        _only(args, "numbers")
        if len(args.numbers) != 1:
            raise NoParse(R.ONE_POSITION(cmd=k))
        return f"{k} {args.numbers[0]}", args.notes
    if k == "FORCE":
        if not args.seats and len(args.numbers) == 3:
            args.seats.append(args.numbers.pop() - 1)
        _only(args, "numbers", "seats")
        if len(args.numbers) != 2 or len(args.seats) != 1:
            raise NoParse(R.FORCE_ARGS(cmd="FORCE"))
        a, b = args.numbers
        return f"FORCE {a} {b} {args.seats[0] + 1}", args.notes
    if k in ("MAROON", "SHOOT", "GIVE"):
        seat = _seat_text(args, ctx, k)
        _only(args)
        return f"{k} {seat}", args.notes
    if k == "MARQUE":
        seat = _seat_text(args, ctx, k)
        _only(args, "ships")
        if len(args.ships) != 1:
            raise NoParse(R.MARQUE_ARGS(cmd="MARQUE"))
        return f"MARQUE {seat} {args.ships[0]}", args.notes
    if k == "ROW" and ctx.location and ctx.location.endswith("_ROWBOAT") and \
            _ASHORE & set(toks) and not args.ships:
        _only(args)
        return "LAND", args.notes  # "row to Tortuga" from a rowboat: that is landing
    if k == "ROW" and ctx.location == "TORTUGA" and _ASHORE & set(toks):
        raise NoParse(R.ON_TORTUGA())
    if k == "ROW":
        _only(args, "ships")
        if len(args.ships) > 1:
            raise NoParse(R.ROW_ONE_SHIP(cmd="ROW"))
        return ("ROW " + args.ships[0]) if args.ships else "ROW", args.notes
    if k == "BOARD":
        _only(args, "ships")
        here = (ctx.location or "").removesuffix("_ROWBOAT")
        if args.ships and ctx.location and ctx.location.endswith("_ROWBOAT") \
                and args.ships[-1] != here:
            raise NoParse(R.BOARD_OWN(verb="BOARD", cmd=here))
        return "BOARD", args.notes
    if k in ("SHIFT", "PLACE", "MAP"):
        _only(args, "holds")
        if not args.holds or (k != "SHIFT" and len(args.holds) != 1) or len(args.holds) > 2:
            raise NoParse(R.HOLD_ARG(cmd=k))
        hold = args.holds[-1]
        return {"SHIFT": f"SHIFT TO {hold}", "PLACE": f"PLACE {hold}",
                "MAP": f"MAP {hold}"}[k], args.notes
    if k == "TAKE" and not args.holds and DECLINE_TREASURE & set(toks):
        return "TAKE NONE", args.notes  # "take none", "no treasure", "nothing"
    if k == "TAKE":
        _only(args, "holds")
        if len(args.holds) == 2:
            return f"TAKE {args.holds[0]} TO {args.holds[1]}", args.notes
        if len(args.holds) != 1:
            raise NoParse(R.TAKE_ARGS(cmd="TAKE"))
        to = args.holds[0]
        text = f"TAKE TO {to}"
        if text not in ctx.legal:
            sources = [c for c in ctx.legal if c.startswith("TAKE ") and c.endswith(f" TO {to}")]
            if len(sources) == 1:
                return sources[0], args.notes
        return text, args.notes
    _only(args)
    return k, args.notes
