"""Tokens read as a keyword's command: readings that disagree, menu picks, meta commands,
and the "did you mean" suggestion drawn from the seat's legal commands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import fuzz, process

from engine.cards import EVENT_CARD_TABLE
from engine.commands import parse_command
from engine.errors import CommandParseError
from pbm.replies import reasons as R
from pbm.replies.arguments import canonical_text
from pbm.replies.menu import find_option
from pbm.replies.name_match import names_in
from pbm.replies.parse_types import (
    AmbiguousCards,
    AmbiguousName,
    Meta,
    NoParse,
    NotUnderstood,
    ParseContext,
    Understood,
)
from pbm.replies.words import FILLER, META, VERBS, fold, name_key, read_int, verb_word

_NAME_VERBS = ("MAROON", "SHOOT", "GIVE", "MARQUE", "FORCE")


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
    named = names_in(line, ctx)
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


def understood_as(line: str, text: str, ctx: ParseContext, note: str | None) -> Understood:
    command = parse_command(text)
    canonical = str(command)
    return Understood(line, command, canonical, ctx.display(canonical), canonical in ctx.legal,
                      note)


def ask_which(line: str, reason: str, candidates: Sequence[str]) -> NotUnderstood:
    """An ambiguous line: nothing is applied and the answer lists every reading."""
    unique = tuple(dict.fromkeys(candidates))
    return NotUnderstood(line, reason, " or ".join(unique), unique)


def _card_text(ctx: ParseContext, number: int) -> str:
    for card in (ctx.seat_view or {}).get("hand") or []:
        if int(card["number"]) == number:
            return f"VOTE {number} ({card['text']})"
    return f"VOTE {number}"


def try_keywords(
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
            text, notes = canonical_text(keyword, toks, ctx)
            parts = [n for n in [note, *notes] if n]
            all_notes = R.joined(parts) if parts else None
            readings.append(understood_as(line, text, ctx, all_notes))
        except AmbiguousName as exc:
            options = []
            for seat in exc.seats:
                fixed = [*toks[: exc.start], name_key(ctx.names[seat]), *toks[exc.end :]]
                try:
                    options.append(ctx.display(canonical_text(keyword, fixed, ctx)[0]))
                except (NoParse, CommandParseError, AmbiguousName, AmbiguousCards):
                    continue
            names = " or ".join(ctx.names[s] for s in exc.seats)
            return ask_which(line, R.COULD_BE_NAMES(word=exc.word, names=names), options or [
                ctx.names[s] for s in exc.seats])
        except AmbiguousCards as exc:
            return ask_which(line, R.FITS_CARDS(),
                             [_card_text(ctx, n) for n in exc.cards])
        except (NoParse, CommandParseError) as exc:
            first_error = first_error or exc.reason
    distinct = list({r.text: r for r in readings}.values())
    legal = [r for r in distinct if r.legal_now]
    if len(legal) == 1:
        return legal[0]
    if len(distinct) == 1:
        return distinct[0]
    if distinct:
        pool = legal or distinct
        return ask_which(line, R.COULD_MEAN(cmd=" or ".join(r.display for r in pool)),
                         [r.display for r in pool])
    return NotUnderstood(line, first_error or R.NOT_A_COMMAND(),
                         suggest(line, ctx, keywords[0]))


def menu_pick(line: str, toks: list[str], ctx: ParseContext) -> Understood | NotUnderstood:
    number = read_int(toks[0]) or 0
    option = find_option(ctx.menu, number)
    rest = [t for t in toks[1:] if t not in ("option", "opt")]
    if option is None:
        if not ctx.menu:
            return NotUnderstood(line, R.NUMBER_MEANS_NOTHING(), "STATUS")
        return NotUnderstood(line, R.NO_OPTION(n=number), suggest(line, ctx))
    note = R.OPTION(n=number)
    if not option.is_template:
        if rest and all(t in FILLER or t == "one" for t in rest):
            rest = []
        if rest:
            return NotUnderstood(line, R.OPTION_NO_MORE(n=number, cmd=option.display),
                                 option.display)
        return understood_as(line, option.command, ctx, note)
    if not rest:
        return NotUnderstood(
            line, R.OPTION_NEEDS(n=number, cmd=option.display),
            option.example or option.display,
        )
    return try_keywords(line, [option.verb], rest, ctx, note)


#: Event card names as a question or HELP may name them, longest first.
_CARD_NAMES = tuple(
    (re.compile(r"\b" + re.escape(fold(info.name)).replace("'", "'?") + r"\b"), info.name)
    for info in sorted(EVENT_CARD_TABLE, key=lambda i: -len(i.name)))


def card_named(text: str) -> str | None:
    """The Event card named in ``text`` ("how does the black spot work": "Black Spot")."""
    folded = " ".join(fold(text).split())
    return next((name for pattern, name in _CARD_NAMES if pattern.search(folded)), None)


def read_meta(line: str, head: str, rest: list[str]) -> Meta | NotUnderstood | None:
    name = META[head]
    card = card_named(" ".join(rest)) if name == "HELP" else None
    if card is not None and fold(card) not in VERBS:  # HELP treasure map: the card, not MAP
        return Meta(line, "HELP", card.upper())
    if name == "HELP":
        topic = ""
        for tok in rest:
            if tok.upper() in _HELP_TOPICS:
                topic = tok.upper()
                break
            if verb_word(tok) is not None:  # "help voting": VOTE
                topic = VERBS[verb_word(tok) or tok][0]
                break
            if tok in META:
                topic = META[tok]
                break
            if tok not in FILLER and tok not in ("me", "us", "i", "please", "pls"):
                # a card's name may take words: HELP black spot
                topic = " ".join(rest[rest.index(tok):]).upper()
                break
        return Meta(line, "HELP", topic)
    if name == "STOP" and rest and not all(t in FILLER for t in rest):
        if all(t in _OPT_OUT_WORDS or t in FILLER for t in rest):
            return Meta(line, "STOP")  # "stop texting me", "please stop sending messages"
        if any(t in VERBS or t in META or t in _GAME_WORDS for t in rest):
            return None  # "stop the mutiny!!": table talk about the game, not an opt-out
        return NotUnderstood(line, R.NO_MORE_WORDS(cmd="STOP"), "STOP")
    return Meta(line, name)


#: Words after STOP that ask us to stop messaging ("stop texting me").
_OPT_OUT_WORDS = frozenset({
    "texting", "texts", "text", "messaging", "messages", "message", "sending", "send",
    "emails", "emailing", "email", "mailing", "mails", "contacting", "spamming", "spam",
    "bothering", "me", "us", "these", "those", "all", "sms", "notifications", "pinging",
})

#: Words of the game: after STOP they make table talk ("stop the attack"), not an opt-out.
_GAME_WORDS = frozenset({"him", "her", "them", "captain", "pirates", "crew", "ship", "vote",
                         "voting", "cheating", "war"})

#: HELP topics that are not command words.
_HELP_TOPICS = frozenset({"TURN", "CARDS", "EVENTS", "ACTIONS", "TALK", "VOTES", "RANKS"})
