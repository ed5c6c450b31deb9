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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from engine.commands import Command, parse_command
from engine.errors import CommandParseError
from pbm.replies.menu import (
    MenuOption,
    build_menu,
    display_command,
    find_option,
    pending_legal,
    player_names,
)
from pbm.replies.settings_words import read_setting
from pbm.replies.words import (
    COURTESY_RE,
    FILLER,
    HOLDS,
    LEADING_FILLER,
    META,
    SELF_WORDS,
    SHIPS,
    VERBS,
    fold,
    name_key,
    number_of,
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

_TAKES_NAME = {"MAROON", "SHOOT", "GIVE", "MARQUE", "FORCE"}
_TAKES_SHIP = {"ROW", "BOARD", "MARQUE"}
_TAKES_HOLD = {"SHIFT", "TAKE", "PLACE", "MAP"}


# ------------------------------------------------------------------ results


@dataclass(frozen=True)
class Understood:
    """A line read as one engine command."""

    line: str
    command: Command
    text: str  # canonical text, e.g. "MAROON 3"
    display: str  # as the player reads it, e.g. "MAROON Cleo"
    legal_now: bool
    note: str | None = None  # e.g. "option 2" or "read 'atack' as ATTACK"


@dataclass(frozen=True)
class Meta:
    """A line read as a meta command: HELP [topic], STATUS, SAY text, LOG, JOIN, ..."""

    line: str
    name: str
    arg: str = ""
    truncated: bool = False


@dataclass(frozen=True)
class NotUnderstood:
    """A line that changes nothing, with why and the closest command the seat could send."""

    line: str
    reason: str
    suggestion: str | None = None


@dataclass
class ReplyResult:
    """Everything one reply said, line by line, sorted into four buckets."""

    understood: list[Understood] = field(default_factory=list)
    meta: list[Meta] = field(default_factory=list)
    not_understood: list[NotUnderstood] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    @property
    def commands(self) -> list[Command]:
        """The engine commands to apply, in order."""
        return [u.command for u in self.understood]

    @property
    def empty(self) -> bool:
        """True when the reply held nothing but ignored lines."""
        return not (self.understood or self.meta or self.not_understood)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form, for ``MessageContext.extra["reply"]``."""
        return {
            "understood": [
                {"line": u.line, "text": u.text, "display": u.display,
                 "legal_now": u.legal_now, "note": u.note}
                for u in self.understood
            ],
            "meta": [
                {"line": m.line, "name": m.name, "arg": m.arg, "truncated": m.truncated}
                for m in self.meta
            ],
            "not_understood": [
                {"line": n.line, "reason": n.reason, "suggestion": n.suggestion}
                for n in self.not_understood
            ],
            "ignored": list(self.ignored),
        }


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


# ------------------------------------------------------------------ arguments


@dataclass
class _Args:
    numbers: list[int] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    ships: list[str] = field(default_factory=list)
    holds: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _match_name(toks: Sequence[str], i: int, ctx: ParseContext) -> tuple[int, int, str | None]:
    """(seat, tokens used, note) for a player name starting at ``toks[i]``; seat -1 if none."""
    keys = {seat: name_key(name) for seat, name in ctx.names.items()}
    for k in (3, 2, 1):
        if i + k > len(toks):
            continue
        joined = "".join(toks[i : i + k])
        exact = [s for s, key in keys.items() if key == joined]
        if len(exact) == 1:
            return exact[0], k, None
        prefix = [s for s, key in keys.items() if key.startswith(joined)]
        if len(prefix) == 1 and (k > 1 or len(joined) >= 1):
            return prefix[0], k, None
    word = toks[i]
    parts = [s for s, name in ctx.names.items()
             if word in {name_key(w) for w in fold(name).split()}]
    if len(parts) == 1:
        return parts[0], 1, None
    if len(word) >= 3 and keys:
        scored = process.extract(word, keys, scorer=fuzz.ratio, limit=2)
        if scored and scored[0][1] >= 75 and (len(scored) == 1 or scored[1][1] < scored[0][1]):
            seat = scored[0][2]
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
        if takes_name and not tok.isdigit() and number_of(tok) is None:
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


def _only(args: _Args, *allowed: str) -> None:
    """Raise unless every argument kind not in ``allowed`` is empty."""
    for kind in ("numbers", "seats", "ships", "holds"):
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


def suggest(line: str, ctx: ParseContext, keyword: str | None = None) -> str | None:
    """The closest command this seat could send now, in display form ("REVEAL 3")."""
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
    return best[0] if best else candidates[0]


def _understood(line: str, text: str, ctx: ParseContext, note: str | None) -> Understood:
    command = parse_command(text)
    canonical = str(command)
    return Understood(line, command, canonical, ctx.display(canonical), canonical in ctx.legal,
                      note)


def _try_keywords(
    line: str, keywords: Sequence[str], toks: Sequence[str], ctx: ParseContext,
    note: str | None,
) -> Understood | NotUnderstood:
    """Read ``toks`` as arguments of each keyword in turn; prefer a reading legal now."""
    readings: list[Understood] = []
    first_error: str | None = None
    for keyword in keywords:
        try:
            text, notes = _canonical(keyword, toks, ctx)
            all_notes = "; ".join([n for n in [note, *notes] if n]) or None
            readings.append(_understood(line, text, ctx, all_notes))
        except _NoParse as exc:
            first_error = first_error or exc.reason
        except CommandParseError as exc:
            first_error = first_error or exc.reason
    for reading in readings:
        if reading.legal_now:
            return reading
    if readings:
        return readings[0]
    return NotUnderstood(line, first_error or "not a command", suggest(line, ctx, keywords[0]))


def _menu_pick(line: str, toks: list[str], ctx: ParseContext) -> Understood | NotUnderstood:
    number = int(toks[0])
    option = find_option(ctx.menu, number)
    rest = [t for t in toks[1:] if t not in ("option", "opt")]
    if option is None:
        if not ctx.menu:
            return NotUnderstood(line, "nothing is awaited from you now, so a number means "
                                 "nothing", "STATUS")
        return NotUnderstood(line, f"there is no option {number}", suggest(line, ctx))
    note = f"option {number}"
    if not option.is_template:
        if rest and all(t in FILLER for t in rest):
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


def parse_line(line: str, ctx: ParseContext) -> Understood | Meta | NotUnderstood | None:
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
    raw_toks = tokens(_ASIDE_RE.sub(" ", line))
    if ctx.invited and ctx.seat is None and raw_toks:
        if raw_toks[0] in ("yes", "y", "accept", "ok", "okay", "sure", "yep", "yeah"):
            return Meta(line, "JOIN")
        if raw_toks[0] in ("no", "n", "nope", "sorry"):
            return Meta(line, "DECLINE")
    toks = _strip_leading(raw_toks)
    if not toks:
        return None
    if len(toks) > 1 and toks[0] in _OPTION_WORDS and toks[1].isdigit():
        toks = toks[1:]  # "option 3"
    head, rest = toks[0], toks[1:]
    if head.isdigit():
        return _menu_pick(line, toks, ctx)
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
        return _try_keywords(line, keywords, rest, ctx, note)
    # No verb: maybe the bare arguments of the one thing awaited ("british", "Cleo").
    verbs = list(dict.fromkeys(c.split()[0] for c in ctx.legal if c != "ATLANTIS"))
    readings = []
    for keyword in verbs:
        try:
            text, notes = _canonical(keyword, toks, ctx)
        except (_NoParse, CommandParseError):
            continue
        if text in ctx.legal:
            readings.append(_understood(line, text, ctx, "; ".join(notes) or None))
    if len(readings) == 1:
        return readings[0]
    if not _has_signal(toks):
        return None
    return NotUnderstood(line, "not a command", suggest(line, ctx))


#: Asides in brackets are the player's comments, not arguments: "REVEAL 3 (the Pistol)".
_ASIDE_RE = re.compile(r"\([^()]*[^\W\d_][^()]*\)|\[[^\[\]]*[^\W\d_][^\[\]]*\]")
#: HELP topics that are not command words.
_HELP_TOPICS = frozenset({"TURN", "CARDS", "EVENTS", "ACTIONS", "TALK", "VOTES", "RANKS"})
_OPTION_WORDS = frozenset({"option", "opt", "choice", "number", "nr", "no", "num"})

_SPLIT_RE = re.compile(r"\s*(?:;|,|\bthen\b|\band\b|&|\+|\s/\s)\s*", re.IGNORECASE)


def _starts_setting(rest: str) -> bool:
    """True if ``rest`` reads as a setting (``QUIET 23-07`` after ``ZONE Paris;``)."""
    return isinstance(read_setting(rest), Meta)


def split_commands(line: str) -> list[str]:
    """One line -> the commands in it: a new piece starts at a verb after ; , then and."""
    if _SAY_RE.match(line.strip()):
        return [line]
    cuts = [0]
    for match in _SPLIT_RE.finditer(line):
        toks = _strip_leading(tokens(line[match.end():]))
        starts = bool(toks) and (toks[0] in VERBS or toks[0] in META)
        if (starts or _starts_setting(line[match.end():])) and match.start() > cuts[-1]:
            cuts.append(match.start())
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


def parse_lines(lines: Sequence[str], ctx: ParseContext) -> ReplyResult:
    """Sort a reply's lines into understood, meta, not understood and ignored.

    Lines are read top to bottom. Greetings, sign-offs and chatter (lines with no command
    word, number or name in them) are ignored. The first line that looks like a command but
    is not understood is reported (with a suggestion); it and every line after it change
    nothing, and the lines after it are listed as ignored.
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
        pieces = split_commands(line)
        for index, piece in enumerate(pieces):
            outcome = parse_line(piece, ctx)
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
    return result


def parse_text(text: str, ctx: ParseContext) -> ReplyResult:
    """The player's new text -> a ReplyResult."""
    return parse_lines(text.split("\n"), ctx)
