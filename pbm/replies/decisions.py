"""One reading per decision, or none (issue 36).

After a reply's corrections are applied, the commands left are grouped by the open decision
they answer (the turn's action, the vote, the forced choice, the Pistol's target ...). A
decision answered twice the same way is answered once; a decision given two *different*
answers (``REVEAL 1`` and ``REVEAL 5``, ``2`` and ``VOTE 3``, ``GIVE Ann`` and ``GIVE Cleo``)
gets none: nothing of it is applied and the player is asked, naming every reading.

This is a rule of the reader, not of phrases: whatever joined the two answers (a word no
correction list knows, a line the reader stopped at, a question) cannot make one of them
win. A rival answer counts wherever it is in the reply: read, not understood but aimed at the
same decision (``REVEAL 5 por favor`` after ``REVEAL 2``), or in the lines after the one the
reading stopped at.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.reasons import Reason
from pbm.replies import reasons as R
from pbm.replies.keywords import ask_which
from pbm.replies.parse_types import NotUnderstood, ParseContext, ReplyResult, Understood
from pbm.replies.sentence import NO_VERB, negated, parse_line, verb_start
from pbm.replies.words import (
    COURTESY_RE,
    HOLDS,
    KEYWORD_WORDS,
    SHIPS,
    SYMBOLS,
    VERBS,
    fold,
    name_key,
    number_of,
    tokens,
)

#: The reason given when one decision got two answers.
TWO_ANSWERS = R.TWO_COMMANDS()

#: The decision a command answers when the seat's open decisions do not say.
_KIND_OF_VERB = {
    "VIEW": "ACTION", "REVEAL": "ACTION", "FORCE": "ACTION", "ROW": "ACTION",
    "BOARD": "ACTION", "LAND": "ACTION", "ATTACK": "ACTION", "MAROON": "ACTION",
    "MUTINY": "ACTION", "SHIFT": "ACTION", "BRAWL": "ACTION", "MAP": "ACTION",
    "VOTE": "VOTE", "REVOTE": "VOTE", "CHOOSE": "CHOOSE", "SHOOT": "SHOOT", "GIVE": "GIVE",
    "TAKE": "TAKE", "PLACE": "PLACE", "FOUNTAIN": "FOUNTAIN", "ACCEPT": "FOUNTAIN",
    "MARQUE": "LETTER_OF_MARQUE", "SAVE": "LETTER_OF_MARQUE", "DISCARD": "LETTER_OF_MARQUE",
    "ATLANTIS": "ATLANTIS",
}


@dataclass(frozen=True)
class _Answer:
    """One answer the reply gives to a decision: applied (``understood``) or only a rival."""

    text: str  # canonical text, or the line as written when it was not understood
    display: str
    line: str
    understood: Understood | None = None
    rival: NotUnderstood | None = None  # the line not understood it was read from


def _pending(ctx: ParseContext) -> list[Mapping[str, Any]]:
    return list((ctx.seat_view or {}).get("pending") or [])


def decision_of(text: str, ctx: ParseContext) -> str:
    """The open decision a command (canonical text) answers: the decision it is legal for,
    else the one whose commands share its verb, else the kind its verb answers."""
    verb = text.split()[0] if text.split() else text
    decisions = _pending(ctx)
    for decision in decisions:
        if text in (decision.get("legal") or []):
            return str(decision.get("kind"))
    for decision in decisions:
        if any(c.split()[0] == verb for c in decision.get("legal") or []):
            return str(decision.get("kind"))
    return _KIND_OF_VERB.get(verb, verb)


def _decisions_of_verb(word: str, ctx: ParseContext) -> set[str]:
    """Every decision a verb word may answer ("choose": CHOOSE or VOTE)."""
    return {decision_of(keyword, ctx) for keyword in VERBS.get(word, ())}


def _actions_left(ctx: ParseContext) -> int:
    """How many turn actions one reply may still order (two in a 2-player game's turn)."""
    for decision in _pending(ctx):
        if decision.get("kind") == "ACTION":
            context = decision.get("context") or {}
            try:
                return max(1, int(context.get("of", 1)) - int(context.get("action", 1)) + 1)
            except (TypeError, ValueError):
                return 1
    return 1


#: Why a menu pick was not taken as it is (its option number and the words after it).
_MENU_PICK_CODES = frozenset({R.OPTION_NO_MORE.code, R.OPTION_NEEDS.code, R.OPTION_IS_NOT.code})


def _is_menu_pick(reason: str) -> bool:
    """True for the reason of a menu pick not taken as it is."""
    return isinstance(reason, Reason) and reason.code in _MENU_PICK_CODES


def _rival_of(item: NotUnderstood, ctx: ParseContext) -> tuple[set[str], str] | None:
    """The decisions a line that was not understood aims at (it has a verb), and how it
    is named: its own suggestion when that is a command of its verb, else the line."""
    if item.ambiguous:
        return None
    toks = tokens(item.line)
    start = verb_start(toks)
    if start is None:  # "erm REVEAL 5 bitte": the command word inside the line
        start = next((i for i, t in enumerate(toks) if t in KEYWORD_WORDS), None)
    suggestion = item.suggestion or ""
    if start is None and _is_menu_pick(item.reason) and suggestion.split() \
            and " or " not in suggestion:
        # "2 hmm" after VOTE 1: a menu pick with words after it, naming VOTE 2
        return _decisions_of_verb(suggestion.split()[0].lower(), ctx), suggestion
    if start is None or toks[start] not in VERBS:
        return None
    kinds = _decisions_of_verb(toks[start], ctx)
    named = suggestion if suggestion and " or " not in suggestion and suggestion.split()[
        0].lower() in {k.lower() for k in VERBS[toks[start]]} else item.line.strip()
    return kinds, named


def _has_argument(toks: Sequence[str], ctx: ParseContext) -> bool:
    """True when ``toks`` hold something a command takes (a number, a name, a ship, a hold)."""
    names = {name_key(w) for n in ctx.names.values() for w in [n, *fold(n).split()]}
    return any(number_of(t) is not None or t in SHIPS or t in HOLDS or t in SYMBOLS
               or (len(t) >= 3 and any(k.startswith(t) for k in names)) for t in toks)


def _buried(line: str, ctx: ParseContext) -> Understood | NotUnderstood | None:
    """A command inside a line read as chatter ("erm REVEAL 5 bitte"): the first command
    word (not a looser synonym: "great move last turn") not negated before it, read from
    there. None when there is none."""
    toks = tokens(line)
    for index, tok in enumerate(toks):
        if tok not in KEYWORD_WORDS or index == 0 or negated(toks[:index]):
            continue
        outcome = parse_line(" ".join(toks[index:]), ctx)
        if isinstance(outcome, Understood):
            return replace(outcome, line=line)
        if isinstance(outcome, NotUnderstood) and _has_argument(toks[index + 1:], ctx):
            return replace(outcome, line=line)
    return None


#: Command words that order on their own, with nothing after them.
_ALONE = frozenset({"attack", "mutiny", "brawl", "board", "land", "row", "save", "fountain",
                    "accept", "discard"})


def _leading_order(line: str, ctx: ParseContext) -> Understood | None:
    """A line read as chatter that starts with a command word ordering on its own, standing
    alone before a break ("BRAWL, erm"): that order, as a rival answer. ("Board games are
    the best", "Land ho!", "Mutiny? Never." order nothing.)"""
    match = _ALONE_RE.match(fold(line))
    if not match or match.group("word") not in _ALONE:
        return None
    outcome = parse_line(match.group("word"), ctx)
    return replace(outcome, line=line) if isinstance(outcome, Understood) else None


#: A menu pick that was not read whole ("option 2 (VOTE 2) takes no more words").
_ASIDE_RE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_ALONE_RE = re.compile(r"^\W*(?:(?:please|ok|okay|so|then|and|now)\W+)*(?P<word>[a-z]+)"
                       r"\s*(?:[,.;:!/()\-]|$)")


def _unread_readings(lines: Sequence[str], ctx: ParseContext
                     ) -> list[Understood | NotUnderstood]:
    """What the lines never applied (chatter, lines after the reading stopped) would say."""
    found: list[Understood | NotUnderstood] = []
    for line in lines:
        toks = tokens(line)
        if not any(t in VERBS or t[0].isdigit() for t in toks):
            continue  # no command word and no number: nothing it could answer
        if COURTESY_RE.match(fold(line).strip()):
            continue  # "Land ho!", "Cheers": courtesy, never an order
        outcome = parse_line(line, ctx)
        if outcome is None or (isinstance(outcome, NotUnderstood) and outcome.reason == NO_VERB):
            outcome = _buried(line, ctx) or _leading_order(line, ctx)
        if isinstance(outcome, Understood | NotUnderstood):
            found.append(outcome)
    return found


def _bare_rivals(lines: Sequence[str], keywords: set[str], ctx: ParseContext
                 ) -> list[Understood]:
    """Short lines read as chatter that hold one number and no command word ("przepraszam,
    5" after REVEAL 2): the number as an argument of each verb answered, when it reads."""
    found: list[Understood] = []
    for line in lines:
        toks = tokens(_ASIDE_RE.sub(" ", line))  # "Ann (seat 1)": an aside, not an answer
        numbers = [t for t in toks if number_of(t) is not None and t[0].isdigit()]
        if len(numbers) != 1 or len(toks) > 4 or any(t in VERBS for t in toks) \
                or negated(toks[:toks.index(numbers[0])]):
            continue
        for keyword in sorted(keywords):
            outcome = parse_line(f"{keyword} {numbers[0]}", ctx)
            if isinstance(outcome, Understood):
                found.append(replace(outcome, line=line))
    return found


def one_reading_per_decision(result: ReplyResult, ctx: ParseContext) -> None:
    """Apply the rule to ``result`` in place: a decision answered twice the same way keeps
    one answer; one given different answers (rivals included: see the module) keeps none,
    and the player is asked, naming them."""
    answers: dict[str, list[_Answer]] = {}
    kept: list[Understood] = []
    for command in result.understood:
        key = decision_of(command.text, ctx)
        same = answers.setdefault(key, [])
        if any(a.text == command.text for a in same):
            continue  # the same command twice is one answer
        same.append(_Answer(command.text, command.display, command.line, command))
        kept.append(command)
    result.understood[:] = kept
    if not answers:
        return
    rivals = [n for n in result.not_understood if not n.ambiguous]
    verbs = {a.text.split()[0] for given in answers.values() for a in given
             if a.text.split()[0] in ("REVEAL", "VOTE", "CHOOSE", "SHOOT", "GIVE")}
    readings = _unread_readings(result.unread, ctx) + _bare_rivals(result.unread, verbs, ctx)
    for outcome in readings:
        if isinstance(outcome, Understood):
            key = decision_of(outcome.text, ctx)
            if key in answers and all(a.text != outcome.text for a in answers[key]):
                answers[key].append(_Answer(outcome.text, outcome.display, outcome.line))
        elif not outcome.ambiguous:
            rivals.append(outcome)
    for rival in rivals:
        aimed = _rival_of(rival, ctx)
        if aimed is None:
            continue
        kinds, named = aimed
        for key in kinds & set(answers):
            if all(a.display != named for a in answers[key]):
                answers[key].append(_Answer(named, named, rival.line, rival=rival))
    for given in answers.values():
        _ask_when_unclear(result, given, ctx)


def _ask_when_unclear(result: ReplyResult, given: list[_Answer], ctx: ParseContext) -> None:
    """Void ``given`` (one decision's answers) and ask, unless they are one answer (or the
    different actions of a turn that takes two)."""
    if len(given) < 2:
        return
    key = decision_of(given[0].text, ctx) if given[0].understood else ""
    allowed = _actions_left(ctx) if key == "ACTION" else 1
    verbs = [a.text.split()[0] for a in given]
    if len(given) <= allowed and len(set(verbs)) == len(verbs) and all(
            a.understood is not None for a in given):
        return
    for answer in given:  # named in the question: not listed as ignored as well
        if answer.understood is not None and answer.understood in result.understood:
            result.understood.remove(answer.understood)
    folded = [a.rival for a in given if a.rival is not None]
    result.not_understood[:] = [n for n in result.not_understood if n not in folded]
    lines = list(dict.fromkeys(a.line.strip() for a in given))
    result.not_understood.insert(0, ask_which(" / ".join(lines), TWO_ANSWERS,
                                              [a.display for a in given]))
