"""The forgiving parser: a player's lines -> engine commands and meta commands.

Case, punctuation and filler words do not matter; synonyms, name prefixes, seat numbers and
numbered menu picks work; several commands may share a reply (one per line, or joined with
``;`` / ``then`` / ``and`` in front of a new verb). Every line ends up in exactly one bucket
of the :class:`ReplyResult`: understood (an engine command), meta (HELP, STATUS, SAY, ...),
not understood (with a "did you mean" drawn from the seat's legal commands), or ignored.

Nothing here changes a game: the caller applies ``result.commands`` and nothing else.
A command is "understood" when it is well formed and names real things; whether the rules
allow it is the engine's call (``legal_now`` says whether it is among the seat's legal
answers at parse time, which in 2-player games need not hold for a second action).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from engine.commands import parse_command
from engine.errors import CommandParseError
from pbm.replies.menu import (
    MenuOption,
    build_menu,
    display_command,
    find_option,
    pending_legal,
    player_names,
)
from pbm.replies.results import Meta, NotUnderstood, ReplyResult, Understood
from pbm.replies.settings_words import read_setting
from pbm.replies.words import (
    COURTESY_RE,
    FILLER,
    HOLDS,
    INVITE_NO_RE,
    INVITE_YES_RE,
    KEYWORD_WORDS,
    LEADING_FILLER,
    META,
    NEGATIONS,
    NUMBER_WORDS,
    SELF_WORDS,
    SEQUENCE_WORDS,
    SHIPS,
    SYMBOLS,
    TOKEN_RE,
    TRAILING_OK,
    VERBS,
    fold,
    name_key,
    number_of,
    read_int,
    tokens,
)

#: The longest table talk relayed; longer SAY text is cut (and the player told).
SAY_LIMIT = 400

_SAY_RE = re.compile(r"^[\W_]*(?:say|tell|chat|msg)\b[\s:,.\-]*(.*)$", re.IGNORECASE | re.DOTALL)

# Words that, for one keyword, are part of the phrase rather than noise.
_EXTRA_FILLER: dict[str, frozenset[str]] = {
    "LAND": frozenset({"tortuga", "island", "ashore", "shore", "beach"}),
    "ROW": frozenset({"rowboat", "boat", "rowing", "dinghy", "row"}),
    "BOARD": frozenset({"board", "ship"}),
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
    "VOTE": frozenset({"with"}),
    "PLACE": frozenset({"starting", "start"}),
}

#: Words that decline a successful Attack's treasure (``TAKE NONE``).
_DECLINE_TREASURE = frozenset({"none", "nothing", "no", "decline", "declined"})

_TAKES_NAME = {"MAROON", "SHOOT", "GIVE", "MARQUE", "FORCE"}
_TAKES_SHIP = {"ROW", "BOARD", "MARQUE"}
_TAKES_HOLD = {"SHIFT", "TAKE", "PLACE", "MAP"}


# ------------------------------------------------------------------ context


@dataclass(frozen=True)
class ParseContext:
    """What the parser knows about the replying seat (all from its own seat view)."""

    seat: int | None = None
    names: Mapping[int, str] = field(default_factory=dict)
    legal: tuple[str, ...] = ()
    menu: tuple[MenuOption, ...] = ()
    location: str | None = None
    invited: bool = False
    seat_view: Mapping[str, Any] | None = None

    @classmethod
    def from_seat_view(
        cls,
        seat_view: Mapping[str, Any] | None,
        *,
        menu: Sequence[MenuOption] | None = None,
        invited: bool = False,
    ) -> ParseContext:
        """Build the context from ``engine.view(state, seat).to_dict()`` (or None)."""
        if not seat_view:
            return cls(invited=invited)
        seat = int(seat_view["seat"])
        location = None
        for p in seat_view["public"]["players"]:
            if int(p["seat"]) == seat:
                location = p.get("location")
        return cls(
            seat=seat,
            names=player_names(seat_view),
            legal=tuple(pending_legal(seat_view)),
            menu=tuple(build_menu(seat_view) if menu is None else menu),
            location=location,
            invited=invited,
            seat_view=seat_view,
        )

    def display(self, canonical: str) -> str:
        """Canonical text as the player reads it."""
        return display_command(canonical, self.seat_view) if self.seat_view else canonical


class _NoParse(Exception):
    """This reading of the line does not fit; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _AmbiguousCards(Exception):
    """Symbols that fit several Vote cards of the hand (``cards``, by number)."""

    def __init__(self, cards: list[int]) -> None:
        super().__init__(str(cards))
        self.cards = cards


class _AmbiguousName(Exception):
    """Tokens ``start:end`` name more than one player (``seats``): the player must choose."""

    def __init__(self, word: str, start: int, end: int, seats: list[int]) -> None:
        super().__init__(word)
        self.word, self.start, self.end, self.seats = word, start, end, seats


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


def _match_name(toks: Sequence[str], i: int, ctx: ParseContext) -> tuple[int, int, str | None]:
    """(seat, tokens used, note) for a player name starting at ``toks[i]``; seat -1 if none.

    Raises ``_AmbiguousName`` when a prefix, a word of a name or a fuzzy match fits two
    players or more: a name is never guessed.
    """
    keys = {seat: name_key(name) for seat, name in ctx.names.items()}
    word = toks[i]
    guard = word in FILLER or word in SHIPS or word in SELF_WORDS or word in TRAILING_OK
    for k in (3, 2, 1):
        if i + k > len(toks):
            continue
        joined = "".join(toks[i : i + k])
        exact = [s for s, key in keys.items() if key == joined]
        if len(exact) == 1:
            return exact[0], k, None
        prefix = [s for s, key in keys.items() if key.startswith(joined)]
        if len(prefix) == 1:
            return prefix[0], k, None
        if len(prefix) > 1 and k == 1 and not guard:
            raise _AmbiguousName(word, i, i + 1, sorted(prefix))
    parts = [s for s, name in ctx.names.items()
             if word in {name_key(w) for w in fold(name).split()}]
    if len(parts) == 1:
        return parts[0], 1, None
    if len(parts) > 1 and not guard:
        raise _AmbiguousName(word, i, i + 1, sorted(parts))
    if len(word) >= 3 and keys and not guard:
        close = []
        for seat, key in keys.items():
            score = max(fuzz.ratio(word, key), fuzz.ratio(word, key[: len(word)]) - 5)
            if score >= 75:
                close.append((score, seat))
        if close:
            best = max(score for score, _ in close)
            near = sorted(seat for score, seat in close if score >= best - 15)
            if len(near) > 1:
                raise _AmbiguousName(word, i, i + 1, near)
            seat = near[0]
            return seat, 1, f"read '{word}' as {ctx.names[seat]}"
    return -1, 0, None


def _scan(keyword: str, toks: Sequence[str], ctx: ParseContext) -> _Args:
    """Sort the argument tokens of ``keyword`` into numbers, seats, ships, holds, unknown."""
    args = _Args()
    extra = _EXTRA_FILLER.get(keyword, frozenset())
    takes_name = keyword in _TAKES_NAME
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
            seat, used, note = _match_name(toks, i, ctx)
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
        if keyword in _TAKES_SHIP and tok in SHIPS:
            ship = SHIPS[tok]
            if not args.ships or args.ships[-1] != ship:  # "flying dutchman" is one ship
                args.ships.append(ship)
            i += 1
            continue
        if keyword in _TAKES_HOLD and tok in HOLDS:
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
        if decision.get("kind") == "VOTE":
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
    return []


def _only(args: _Args, *allowed: str) -> None:
    """Raise unless every argument kind not in ``allowed`` is empty."""
    for kind in ("numbers", "seats", "ships", "holds", "symbols"):
        if kind not in allowed and getattr(args, kind):
            raise _NoParse(f"unexpected {kind[:-1]} {getattr(args, kind)[0]}")
    if args.unknown:
        raise _NoParse(f"unexpected word '{args.unknown[0]}'")


def _seat_text(args: _Args, ctx: ParseContext, what: str) -> str:
    """The one seat of ``args`` as a seat number; bare numbers count as seat numbers."""
    seats = list(args.seats)
    if not seats and len(args.numbers) == 1:
        number = args.numbers[0]
        if ctx.names and number not in {s + 1 for s in ctx.names}:
            raise _NoParse(f"there is no seat {number}")
        seats = [number - 1]
        args.numbers.clear()
    if len(seats) != 1:
        raise _NoParse(f"{what} needs one player (name or seat number)")
    args.seats.clear()
    return str(seats[0] + 1)


def _canonical(keyword: str, toks: Sequence[str], ctx: ParseContext) -> tuple[str, list[str]]:
    """Canonical text for ``keyword`` with argument tokens ``toks``; raises _NoParse."""
    args = _scan(keyword, toks, ctx)
    k = keyword
    if k == "VOTE" and args.symbols:
        _only(args, "symbols")
        cards = _vote_by_symbol(args, ctx)
        if not cards:
            raise _NoParse("you hold no Vote card with that symbol")
        if len(cards) > 1:
            raise _AmbiguousCards(cards)
        args.numbers, args.symbols = cards, []
    if k in ("VIEW", "VOTE"):
        _only(args, "numbers")
        if len(args.numbers) not in (1, 2):
            raise _NoParse(f"{k} takes one or two numbers")
        hand = len((ctx.seat_view or {}).get("hand") or []) if ctx.seat_view else None
        if k == "VOTE" and hand is not None:
            for number in args.numbers:
                if not 1 <= number <= hand:
                    raise _NoParse(f"you have no Vote card {number} (you hold {hand})")
        return f"{k} " + " ".join(map(str, args.numbers)), args.notes
    if k in ("REVEAL", "CHOOSE"):
        _only(args, "numbers")
        if len(args.numbers) != 1:
            raise _NoParse(f"{k} takes one position (1 to 5)")
        return f"{k} {args.numbers[0]}", args.notes
    if k == "FORCE":
        if not args.seats and len(args.numbers) == 3:
            args.seats.append(args.numbers.pop() - 1)
        _only(args, "numbers", "seats")
        if len(args.numbers) != 2 or len(args.seats) != 1:
            raise _NoParse("FORCE takes two positions and a player")
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
            raise _NoParse("MARQUE takes a player and a ship (FD or JR)")
        return f"MARQUE {seat} {args.ships[0]}", args.notes
    if k == "ROW":
        _only(args, "ships")
        if len(args.ships) > 1:
            raise _NoParse("ROW takes at most one ship")
        return ("ROW " + args.ships[0]) if args.ships else "ROW", args.notes
    if k == "BOARD":
        _only(args, "ships")
        here = (ctx.location or "").removesuffix("_ROWBOAT")
        if args.ships and ctx.location and ctx.location.endswith("_ROWBOAT") \
                and args.ships[-1] != here:
            raise _NoParse(f"BOARD takes you aboard your rowboat's ship ({here})")
        return "BOARD", args.notes
    if k in ("SHIFT", "PLACE", "MAP"):
        _only(args, "holds")
        if not args.holds or (k != "SHIFT" and len(args.holds) != 1) or len(args.holds) > 2:
            raise _NoParse(f"{k} takes BRITISH or FRENCH")
        hold = args.holds[-1]
        return {"SHIFT": f"SHIFT TO {hold}", "PLACE": f"PLACE {hold}",
                "MAP": f"MAP {hold}"}[k], args.notes
    if k == "TAKE" and not args.holds and _DECLINE_TREASURE & set(toks):
        return "TAKE NONE", args.notes  # "take none", "no treasure", "nothing"
    if k == "TAKE":
        _only(args, "holds")
        if len(args.holds) == 2:
            return f"TAKE {args.holds[0]} TO {args.holds[1]}", args.notes
        if len(args.holds) != 1:
            raise _NoParse("TAKE takes TO BRITISH / TO FRENCH (or FROM-hold TO hold)")
        to = args.holds[0]
        text = f"TAKE TO {to}"
        if text not in ctx.legal:
            sources = [c for c in ctx.legal if c.startswith("TAKE ") and c.endswith(f" TO {to}")]
            if len(sources) == 1:
                return sources[0], args.notes
        return text, args.notes
    _only(args)
    return k, args.notes


# ------------------------------------------------------------------ lines


def _fuzzy_verb(word: str) -> str | None:
    """A verb word one typo away from ``word`` (unique), for words of 4+ letters."""
    if len(word) < 4 or not word.isalpha():
        return None
    hits = set()
    for candidate in list(VERBS) + list(META):
        if abs(len(candidate) - len(word)) > 1 or len(candidate) < 4:
            continue
        distance = OSA.distance(word, candidate)
        if distance == 1 and (len(word) >= 5 or sorted(word) == sorted(candidate)):
            hits.add(candidate)
    keywords = {VERBS[h] if h in VERBS else ("META", META[h]) for h in hits}
    return next(iter(hits)) if len(keywords) == 1 else None


def _strip_leading(toks: list[str]) -> list[str]:
    i = 0
    while i < len(toks) - 1 and i < 5 and toks[i] in LEADING_FILLER and toks[i] not in VERBS:
        i += 1
    return toks[i:]


def _has_signal(toks: Sequence[str]) -> bool:
    """True if the line looks like an attempt at a command (verb, number, name, hold ...)."""
    for tok in toks:
        if tok in VERBS or tok in META or number_of(tok) is not None or _fuzzy_verb(tok):
            return True
    return False


_NAME_VERBS = ("MAROON", "SHOOT", "GIVE", "MARQUE", "FORCE")


def _names_in(line: str, ctx: ParseContext) -> set[int]:
    """Seats whose name (or a word of it, or a close spelling) appears in ``line``."""
    words = [w for w in tokens(line) if len(w) >= 2]
    found = set()
    for seat, name in ctx.names.items():
        keys = {name_key(name)} | {name_key(w) for w in fold(name).split()}
        for word in words:
            if word in keys or (len(word) >= 3 and any(
                    k.startswith(word) or fuzz.ratio(word, k) >= 80 for k in keys)):
                found.add(seat)
    return found


def suggest(line: str, ctx: ParseContext, keyword: str | None = None) -> str | None:
    """The closest command this seat could send now, in display form ("REVEAL 3").

    A name is never guessed: when the closest command names a player the line does not
    name, the suggestion lists every player it could be ("MAROON Cleo or MAROON Émile"),
    or shows the template ("FORCE _ _ name").
    """
    candidates = [ctx.display(c) for c in ctx.legal]
    candidates += [o.display for o in ctx.menu if o.is_template]
    if keyword:
        same = [c for c in candidates if c.split()[0] == keyword]
        if same:
            candidates = same
    if not candidates:
        return "STATUS" if ctx.seat is not None else None
    folded = fold(line)
    best = process.extractOne(folded, candidates, scorer=fuzz.WRatio, processor=fold)
    choice = best[0] if best else candidates[0]
    verb = choice.split()[0]
    if verb not in _NAME_VERBS or "name" in choice.split():
        return choice
    legal_same = [c for c in ctx.legal if c.split()[0] == verb]
    named = _names_in(line, ctx)
    chosen = next((c for c in legal_same if ctx.display(c) == choice), None)
    if chosen is not None and _seat_of(chosen) in named and len(named) == 1:
        return choice  # the name is the player's own, not a guess
    fitting = [c for c in legal_same if _seat_of(c) in named]
    if len(fitting) == 1:
        return ctx.display(fitting[0])
    pool = fitting or legal_same
    template = next((o.display for o in ctx.menu if o.is_template and o.verb == verb), None)
    if len(pool) <= 4:
        return " or ".join(ctx.display(c) for c in pool)
    return template or f"{verb} name"


def _seat_of(command: str) -> int | None:
    words = command.split()
    index = {"FORCE": 3}.get(words[0], 1)
    number = read_int(words[index]) if len(words) > index else None
    return number - 1 if number is not None else None


def _understood(line: str, text: str, ctx: ParseContext, note: str | None) -> Understood:
    command = parse_command(text)
    canonical = str(command)
    return Understood(line, command, canonical, ctx.display(canonical), canonical in ctx.legal,
                      note)


def _ask(line: str, reason: str, candidates: Sequence[str]) -> NotUnderstood:
    """An ambiguous line: nothing is applied and the answer lists every reading."""
    unique = tuple(dict.fromkeys(candidates))
    return NotUnderstood(line, reason, " or ".join(unique), unique)


def _card_text(ctx: ParseContext, number: int) -> str:
    for card in (ctx.seat_view or {}).get("hand") or []:
        if int(card["number"]) == number:
            return f"VOTE {number} ({card['text']})"
    return f"VOTE {number}"


def _try_keywords(
    line: str, keywords: Sequence[str], toks: Sequence[str], ctx: ParseContext,
    note: str | None,
) -> Understood | NotUnderstood:
    """Read ``toks`` as arguments of each keyword in turn.

    One reading: it. Several that disagree: the one legal now if only one is, else the
    player is asked. A name or a symbol that fits several players or cards: asked.
    """
    readings: list[Understood] = []
    first_error: str | None = None
    for keyword in keywords:
        try:
            text, notes = _canonical(keyword, toks, ctx)
            all_notes = "; ".join([n for n in [note, *notes] if n]) or None
            readings.append(_understood(line, text, ctx, all_notes))
        except _AmbiguousName as exc:
            options = []
            for seat in exc.seats:
                fixed = [*toks[: exc.start], name_key(ctx.names[seat]), *toks[exc.end :]]
                try:
                    options.append(ctx.display(_canonical(keyword, fixed, ctx)[0]))
                except (_NoParse, CommandParseError, _AmbiguousName, _AmbiguousCards):
                    continue
            names = " or ".join(ctx.names[s] for s in exc.seats)
            return _ask(line, f"'{exc.word}' could be {names}: say which", options or [
                ctx.names[s] for s in exc.seats])
        except _AmbiguousCards as exc:
            return _ask(line, "that fits more than one of your Vote cards: say which",
                        [_card_text(ctx, n) for n in exc.cards])
        except (_NoParse, CommandParseError) as exc:
            first_error = first_error or exc.reason
    distinct = list({r.text: r for r in readings}.values())
    legal = [r for r in distinct if r.legal_now]
    if len(legal) == 1:
        return legal[0]
    if len(distinct) == 1:
        return distinct[0]
    if distinct:
        pool = legal or distinct
        return _ask(line, "that could mean " + " or ".join(r.display for r in pool),
                    [r.display for r in pool])
    return NotUnderstood(line, first_error or "not a command", suggest(line, ctx, keywords[0]))


def _menu_pick(line: str, toks: list[str], ctx: ParseContext) -> Understood | NotUnderstood:
    number = read_int(toks[0]) or 0
    option = find_option(ctx.menu, number)
    rest = [t for t in toks[1:] if t not in ("option", "opt")]
    if option is None:
        if not ctx.menu:
            return NotUnderstood(line, "nothing is awaited from you now, so a number means "
                                 "nothing", "STATUS")
        return NotUnderstood(line, f"there is no option {number}", suggest(line, ctx))
    note = f"option {number}"
    if not option.is_template:
        if rest and all(t in FILLER or t == "one" for t in rest):
            rest = []
        if rest:
            return NotUnderstood(line, f"option {number} ({option.display}) takes no more words",
                                 option.display)
        return _understood(line, option.command, ctx, note)
    if not rest:
        return NotUnderstood(
            line, f"option {number} needs more: {option.display}",
            option.example or option.display,
        )
    return _try_keywords(line, [option.verb], rest, ctx, note)


def _meta(line: str, head: str, rest: list[str]) -> Meta | NotUnderstood:
    name = META[head]
    if name == "HELP":
        topic = ""
        for tok in rest:
            if tok.upper() in _HELP_TOPICS:
                topic = tok.upper()
                break
            if tok in VERBS:
                topic = VERBS[tok][0]
                break
            if tok in META:
                topic = META[tok]
                break
            if tok not in FILLER:
                topic = tok.upper()
                break
        return Meta(line, "HELP", topic)
    if name == "STOP" and rest and not all(t in FILLER for t in rest):
        return NotUnderstood(line, "STOP takes no more words", "STOP")
    return Meta(line, name)


# ------------------------------------------------------------------ reading a piece


def _tokens_and_breaks(text: str) -> tuple[list[str], set[int]]:
    """Tokens, and the indexes of tokens that follow a comma, colon, dash or full stop."""
    folded = fold(text)
    toks: list[str] = []
    breaks: set[int] = set()
    last = 0
    for match in TOKEN_RE.finditer(folded):
        if toks and re.search(r"[,;:.!)\-]", folded[last:match.start()]):
            breaks.add(len(toks))
        toks.append(match.group())
        last = match.end()
    return toks, breaks


def _is_verb(tok: str) -> bool:
    return tok in VERBS or tok in META


def _verb_start(toks: Sequence[str]) -> int | None:
    """Where the verb of a piece is, after lead-in words ("I think I'll reveal 3")."""
    for i, tok in enumerate(toks[:10]):
        if _is_verb(tok):
            return i
        if tok in LEADING_FILLER or tok in SEQUENCE_WORDS or tok in NEGATIONS or tok in (
                "no", "the", "a", "an", "of", "than", "instead", "rather", "do", "does", "did",
                "i'd", "you", "ll", "d", "that", "after", "this", "my"):
            continue
        if _fuzzy_verb(tok):
            return i
        return None
    return None


def _declines_treasure(toks: list[str]) -> bool:
    """True for "none", "no treasure", "nothing", "decline": no verb and no hold after it."""
    rest = _strip_leading(toks)
    return bool(rest) and rest[0] in _DECLINE_TREASURE and not any(
        _is_verb(t) or t in ("british", "french", "brit", "fr", "b", "f") for t in rest[1:])


def _negated(before: Sequence[str]) -> bool:
    """True when the words before the verb negate it ("not the mutiny", "instead of")."""
    if any(t in NEGATIONS for t in before):
        return True
    pairs = set(itertools.pairwise(before))
    if ("instead", "of") in pairs or ("rather", "than") in pairs:
        return True
    content = [t for t in before if t not in ("the", "a", "an")]
    return bool(content) and content[-1] == "no"


def _is_argument(tok: str, keyword: str, ctx: ParseContext) -> bool:
    """True when ``tok`` could be an argument (a number, a player, a ship, a hold, a card)."""
    if number_of(tok) is not None and tok != "one":
        return True
    if (keyword in _TAKES_SHIP and tok in SHIPS) or (keyword in _TAKES_HOLD and tok in HOLDS):
        return True
    if keyword == "VOTE" and tok in SYMBOLS:
        return True
    if keyword in _TAKES_NAME and len(tok) >= 2:
        for name in ctx.names.values():
            keys = {name_key(name)} | {name_key(w) for w in fold(name).split()}
            if tok in keys or (len(tok) >= 3 and any(k.startswith(tok) for k in keys)):
                return True
    return False


def _read_verb(
    line: str, verb_word: str, keywords: Sequence[str], rest: list[str], breaks: set[int],
    offset: int, ctx: ParseContext, note: str | None,
) -> Understood | NotUnderstood | None:
    """Read the verb's arguments from ``rest``; words after a whole command are ignored
    when they cannot change it. None: the words are a sentence, not a command."""
    outcome = _try_keywords(line, keywords, rest, ctx, note)
    if isinstance(outcome, Understood) or outcome.ambiguous:
        return outcome
    keyword = keywords[0]
    # "reveal 3 or 4", "maroon Cleo or Emile": two readings; ask.
    if "or" in rest:
        j = rest.index("or")
        left, right = rest[:j], [t for t in rest[j + 1 :] if t != "maybe"]
        first = _try_keywords(line, keywords, left, ctx, note)
        second = _try_keywords(line, keywords, right, ctx, note)
        if right and _is_verb(right[0]):
            second = _read_piece(" ".join(right), ctx) or second  # "reveal 3 or view 1 4"
        if isinstance(first, Understood) and isinstance(second, Understood) \
                and first.text != second.text:
            return _ask(line, "that gives two different commands", [first.display,
                                                                    second.display])
    # The longest complete command followed by words that cannot change it.
    for k in range(len(rest) - 1, -1, -1):
        tail = rest[k:]
        if not (tail[0] in TRAILING_OK or k + offset in breaks):
            continue
        if any(_is_argument(t, keyword, ctx) for t in tail):
            continue
        reading = _try_keywords(line, keywords, rest[:k], ctx, note)
        if not isinstance(reading, Understood):
            if reading.ambiguous:
                return reading
            continue
        later = next((i for i, t in enumerate(tail) if _is_verb(t)), None)
        if later is not None:
            other = _read_piece(" ".join(tail[later:]), ctx)
            if isinstance(other, Understood) and other.text != reading.text:
                return _ask(line, "that gives two different commands",
                            [reading.display, other.display])
        return reading
    # A sentence that starts with a verb-ish word: "see you soon", "open question".
    content = [t for t in rest if t not in FILLER and t not in SELF_WORDS]
    if content and not _is_argument(content[0], keyword, ctx) and not _is_verb(content[0]) \
            and (verb_word not in KEYWORD_WORDS or len(content) >= 2):
        return None
    return outcome


def _invitation(toks: Sequence[str], line: str) -> Meta | None:
    """YES / NO to an invitation, in the many ways people say it."""
    text = " ".join(toks)
    text = re.sub(r"^(?:hi|hello|hey|dear|ahoy|well|oh|ah|um|hmm|haha|lol)\b\s*", "", text)
    yes, no = INVITE_YES_RE.match(text), INVITE_NO_RE.match(text)
    if yes and no:  # the longer phrase wins: "no problem" over "no"
        return Meta(line, "JOIN") if yes.end() > no.end() else Meta(line, "DECLINE")
    if yes:
        return Meta(line, "JOIN")
    if no:
        return Meta(line, "DECLINE")
    return None


def _read_piece(line: str, ctx: ParseContext) -> Understood | Meta | NotUnderstood | None:
    """One piece of a line -> a command, a meta command, not understood, or None (chatter)."""
    say = _SAY_RE.match(line.strip())
    if say:
        text = " ".join(say.group(1).split())
        if not text:
            return NotUnderstood(line, "SAY needs the words to say", "SAY good luck, all")
        return Meta(line, "SAY", text[:SAY_LIMIT], truncated=len(text) > SAY_LIMIT)
    setting = read_setting(line)  # ZONE, AWAY, VIA ... (pbm.replies.settings_words)
    if setting is not None:
        return setting  # type: ignore[no-any-return]
    cleaned = _ASIDE_RE.sub(" ", line)
    raw_toks, breaks = _tokens_and_breaks(cleaned)
    if ctx.invited and ctx.seat is None and raw_toks:
        answer = _invitation(raw_toks, line)
        if answer is not None:
            return answer
    if not raw_toks:
        return None
    if "TAKE NONE" in ctx.legal and _declines_treasure(raw_toks):
        return _understood(line, "TAKE NONE", ctx, None)  # "decline" is also for invitations
    start = _verb_start(raw_toks)
    if start is not None and start + 1 < len(raw_toks) and raw_toks[start] in _LABEL_WORDS \
            and (start + 1 in breaks or raw_toks[start + 1] == "is"):
        after = _verb_start(raw_toks[start + 1 :])  # "my move: reveal 3", "vote is 2"
        if after is not None:
            start += 1 + after
    if start is not None:
        if _negated(raw_toks[:start]):
            return None  # "not the mutiny", "don't attack": what the player will not do
        head, rest = raw_toks[start], [t for t in raw_toks[start + 1 :] if t != "?"]
        question = cleaned.rstrip().endswith("?")
        keywords = VERBS.get(head)
        note = None
        if keywords is None and head not in META:
            fixed = _fuzzy_verb(head)
            if fixed is not None:
                note = f"read '{head}' as {fixed.upper()}"
                head = fixed
                keywords = VERBS.get(fixed)
        if keywords is None and head in META:
            return _meta(line, head, rest)
        if keywords is not None:
            outcome = _read_verb(line, head, keywords, rest, breaks, start + 1, ctx, note)
            if question and isinstance(outcome, Understood):
                return NotUnderstood(line, "that reads as a question, so nothing was done; "
                                     f"to do it, reply {outcome.display}", outcome.display)
            return outcome
    toks = _strip_leading(raw_toks)
    while len(toks) > 1 and toks[0] in ("the", "a", "my") and toks[1] in NUMBER_WORDS:
        toks = toks[1:]  # "the second one"
    if len(toks) > 1 and toks[0] in _OPTION_WORDS and read_int(toks[1]) is not None:
        toks = toks[1:]  # "option 3"
    numbers = [number_of(t) for t in toks if number_of(t) is not None]
    if len(numbers) > 3 or (len(toks) > 1 and any(n > 20 for n in numbers if n is not None)) \
            or any(len(t) >= 4 and read_int(t) is not None for t in toks):
        return None  # dates, addresses, phone numbers: not a command
    if toks and read_int(toks[0]) is not None:
        return _menu_pick(line, toks, ctx)
    if toks and toks[0] in NUMBER_WORDS and all(
            t in FILLER or t == "one" or t in _OPTION_WORDS for t in toks[1:]):
        return _menu_pick(line, [str(NUMBER_WORDS[toks[0]])], ctx)  # "the second one"
    # No verb: maybe the bare arguments of the one thing awaited ("british", "Cleo").
    verbs = list(dict.fromkeys(c.split()[0] for c in ctx.legal if c != "ATLANTIS"))
    readings: list[Understood] = []
    for keyword in verbs:
        outcome = _try_keywords(line, [keyword], toks, ctx, None)
        if isinstance(outcome, NotUnderstood) and outcome.ambiguous:
            return outcome
        if isinstance(outcome, Understood) and outcome.legal_now:
            readings.append(outcome)
    distinct = list({r.text: r for r in readings}.values())
    if len(distinct) == 1:
        return distinct[0]
    if len(distinct) > 1:
        return _ask(line, "that could mean " + " or ".join(r.display for r in distinct),
                    [r.display for r in distinct])
    if not _has_signal(toks):
        return None
    return NotUnderstood(line, _NO_VERB, suggest(line, ctx))


#: The reason given for a line with no command word that fits nothing awaited.
_NO_VERB = "not a command"
#: Words that label the command after them: "my move: reveal 3", "vote is 2".
_LABEL_WORDS = frozenset({"move", "vote", "choice", "answer", "action", "pick", "play"})


def parse_line(line: str, ctx: ParseContext) -> Understood | Meta | NotUnderstood | None:
    """One piece of a line -> a command, a meta command, not understood, or None (chatter)."""
    return _read_piece(line, ctx)


#: Asides in brackets are the player's comments, not arguments: "REVEAL 3 (the Pistol)".
_ASIDE_RE = re.compile(r"\([^()]*[^\W\d_][^()]*\)|\[[^\[\]]*[^\W\d_][^\[\]]*\]")
#: HELP topics that are not command words.
_HELP_TOPICS = frozenset({"TURN", "CARDS", "EVENTS", "ACTIONS", "TALK", "VOTES", "RANKS"})
_OPTION_WORDS = frozenset({"option", "opt", "choice", "number", "nr", "no", "num"})

_SPLIT_RE = re.compile(
    r"\s*(?:;|,|\bthen\b|\band\b|\bbut\b|&|\+|\s/\s|(?P<stop>[.!?]+)(?=\s))\s*",
    re.IGNORECASE)


def _starts_setting(rest: str) -> bool:
    """True if ``rest`` reads as a setting (``QUIET 23-07`` after ``ZONE Paris;``)."""
    return isinstance(read_setting(rest), Meta)


def split_commands(line: str) -> list[str]:
    """One line -> the commands in it: a new piece starts at a verb after ; , . then and.

    A full stop, "!" or "?" stays with the piece before it (a question is not an order).
    """
    if _SAY_RE.match(line.strip()):
        return [line]
    cuts = [0]
    for match in _SPLIT_RE.finditer(line):
        if match.start() <= cuts[-1]:
            continue
        toks = tokens(line[match.end():])
        if not toks or (_verb_start(toks) is None
                        and not _starts_setting(line[match.end():])):
            continue
        before = tokens(line[cuts[-1]:match.start()])
        if all(t in SEQUENCE_WORDS or t in LEADING_FILLER for t in before):
            continue  # "first, reveal 3": the sequence word belongs to the command
        end = match.start() + (len(match.group("stop")) + match.group().index(
            match.group("stop")) if match.group("stop") else 0)
        cuts.append(end)
        cuts.append(match.end())
    cuts.append(len(line))
    pieces = [line[cuts[i]:cuts[i + 1]].strip() for i in range(0, len(cuts) - 1, 2)]
    return [p for p in pieces if p] or [line]


def _is_courtesy(line: str, ctx: ParseContext) -> bool:
    if COURTESY_RE.match(fold(line).strip()):
        return True
    own = ctx.names.get(ctx.seat) if ctx.seat is not None else None
    key = name_key(line)
    return bool(own) and bool(key) and key in (name_key(own), name_key(own.split()[0]))


def _pasted_menu_line(line: str, ctx: ParseContext) -> Understood | NotUnderstood | None:
    """A line of the prompt's menu pasted back whole ("3 = SHOOT Cleo  shoot Cleo: ...")."""
    if not ctx.menu:
        return None
    match = re.match(r"^\s*#?(\d{1,2})\s*[=:.)\-]\s*(.+)$", line)
    number = int(match.group(1)) if match else None
    body = " ".join(fold(match.group(2) if match else line).split())
    hits = []
    for option in ctx.menu:
        display = " ".join(fold(option.display).split())
        if not body.startswith(display):
            continue
        tail = body[len(display):].strip()
        label = " ".join(fold(option.label).split())
        if (tail and (label.startswith(tail) or tail.startswith(label))) or (
                not tail and number is not None):
            hits.append(option)
    if not hits:
        return None
    hits.sort(key=lambda o: -len(o.display))
    option = hits[0]
    if number is not None and number != option.number:
        other = find_option(ctx.menu, number)
        return _ask(line, f"option {number} is not {option.display}",
                    [option.display] + ([other.display] if other else []))
    if option.is_template:
        return _menu_pick(line, [str(option.number)], ctx)
    return _understood(line, option.command, ctx, f"option {option.number}")


def parse_lines(lines: Sequence[str], ctx: ParseContext) -> ReplyResult:
    """Sort a reply's lines into understood, meta, not understood and ignored.

    Lines are read top to bottom. Greetings, sign-offs and chatter (lines with no command
    word, number or name in them, sentences that merely start with a verb-ish word, and
    what the player says they will not do) are ignored. The first line that looks like a
    command but is not understood, or is ambiguous, is reported (with a suggestion, or every
    reading it fits); it and every line after it change nothing, and the lines after it are
    listed as ignored.
    """
    result = ReplyResult()
    stopped = False
    for line in lines:
        if not line.strip():
            continue
        if stopped:
            result.ignored.append(line)
            continue
        if _is_courtesy(line, ctx):
            result.ignored.append(line)
            continue
        pasted = _pasted_menu_line(line, ctx)
        if pasted is None and ctx.invited and ctx.seat is None:
            pasted = _invitation(tokens(line), line)
        pieces = [line] if pasted is not None else split_commands(line)
        for index, piece in enumerate(pieces):
            outcome = pasted if pasted is not None else parse_line(piece, ctx)
            if isinstance(outcome, NotUnderstood) and outcome.reason == _NO_VERB \
                    and (result.understood or result.meta):
                outcome = None  # after a command, a line without one is a signature's
            if outcome is None:  # chatter: no verb, number or name in it
                result.ignored.append(piece)
                continue
            if isinstance(outcome, Understood):
                result.understood.append(outcome)
            elif isinstance(outcome, Meta):
                result.meta.append(outcome)
            else:
                result.not_understood.append(outcome)
                result.ignored.extend(pieces[index + 1 :])
                stopped = True
                break
    if any(n.ambiguous for n in result.not_understood):
        # An ambiguous line voids the whole reply: the player is asked, nothing is applied.
        result.ignored[:0] = [u.line for u in result.understood]
        result.understood.clear()
    return result


def parse_text(text: str, ctx: ParseContext) -> ReplyResult:
    """The player's new text -> a ReplyResult."""
    return parse_lines(text.split("\n"), ctx)
