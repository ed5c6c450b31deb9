"""Reading one piece of a line: where the verb starts, negation, asides, questions,
invitations, SAY, settings, bare menu picks and bare arguments.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from rapidfuzz.distance import OSA

from pbm.replies import reasons as R
from pbm.replies.arguments import DECLINE_TREASURE, TAKES_HOLD, TAKES_NAME, TAKES_SHIP
from pbm.replies.keywords import (
    ask_which,
    menu_pick,
    read_meta,
    suggest,
    try_keywords,
    understood_as,
)
from pbm.replies.parse_types import Meta, NotUnderstood, ParseContext, Understood
from pbm.replies.picks import help_question, one_of_two, plain_pick, shorthand
from pbm.replies.settings_words import read_setting
from pbm.replies.words import (
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
)

#: The longest table talk relayed; longer SAY text is cut (and the player told).
SAY_LIMIT = 400


SAY_RE = re.compile(r"^[\W_]*(?:say|tell|chat|msg)\b[\s:,.\-]*(.*)$", re.IGNORECASE | re.DOTALL)


# ------------------------------------------------------------------ lines


def _fuzzy_verb(word: str) -> str | None:
    """A verb word one typo away from ``word`` (unique), for words of 4+ letters; a
    three-letter word only by two letters swapped ("rwo": ROW)."""
    if len(word) == 3 and word.isalpha():
        swapped = {v for v in VERBS if len(v) == 3 and v != word
                   and OSA.distance(word, v) == 1 and sorted(word) == sorted(v)}
        return next(iter(swapped)) if len(swapped) == 1 else None
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


def verb_start(toks: Sequence[str]) -> int | None:
    """Where the verb of a piece is, after lead-in words ("I think I'll reveal 3")."""
    for i, tok in enumerate(toks[:10]):
        if _is_verb(tok):
            return i
        if tok in LEADING_FILLER or tok in SEQUENCE_WORDS or tok in NEGATIONS or tok in (
                "no", "the", "a", "an", "of", "than", "instead", "rather", "do", "does", "did",
                "or",
                "i'd", "you", "ll", "d", "that", "after", "this", "my"):
            continue
        if _fuzzy_verb(tok):
            return i
        return None
    return None


def _declines_treasure(toks: list[str]) -> bool:
    """True for "none", "no treasure", "nothing", "decline": no verb and no hold after it."""
    rest = _strip_leading(toks)
    return bool(rest) and rest[0] in DECLINE_TREASURE and not any(
        _is_verb(t) or t in ("british", "french", "brit", "fr", "b", "f") for t in rest[1:])


def negated(before: Sequence[str]) -> bool:
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
    if (keyword in TAKES_SHIP and tok in SHIPS) or (keyword in TAKES_HOLD and tok in HOLDS):
        return True
    if keyword == "VOTE" and tok in SYMBOLS:
        return True
    if keyword in TAKES_NAME and len(tok) >= 2:
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
    again = next((j for j, t in enumerate(rest) if j and VERBS.get(t) == tuple(keywords)),
                 None)
    if again is not None:  # "VOTE 1 VOTE 2": the verb again starts a second command
        before = try_keywords(line, keywords, rest[:again], ctx, note)
        for end in range(again - 1, 0, -1):  # "REVEAL 1 hmmm REVEAL 5": the words that read
            if isinstance(before, Understood):
                break
            before = try_keywords(line, keywords, rest[:end], ctx, note)
        after = _read_piece(" ".join(rest[again:]), ctx)
        if isinstance(before, Understood) and isinstance(after, Understood):
            if before.text == after.text:
                return before
            return ask_which(line, R.TWO_COMMANDS(),
                             [before.display, after.display])
    contrast = _contrasted(line, keywords, rest, ctx, note)
    if contrast is not None:
        return contrast
    outcome = try_keywords(line, keywords, rest, ctx, note)
    if isinstance(outcome, Understood) or outcome.ambiguous:
        return outcome
    keyword = keywords[0]
    split = _split_by_unknown(line, keywords, rest, ctx, note)
    if split is not None:
        return split
    # "reveal 3 or 4", "maroon Cleo or Emile": two readings; ask.
    if "or" in rest:
        j = rest.index("or")
        left, right = rest[:j], [t for t in rest[j + 1 :] if t != "maybe"]
        first = try_keywords(line, keywords, left, ctx, note)
        second: Understood | Meta | NotUnderstood | None = try_keywords(
            line, keywords, right, ctx, note)
        if right and _is_verb(right[0]):
            second = _read_piece(" ".join(right), ctx) or second  # "reveal 3 or view 1 4"
        if isinstance(first, Understood) and isinstance(second, Understood) \
                and first.text != second.text:
            return ask_which(line, R.TWO_COMMANDS(), [first.display,
                                                                    second.display])
    # The longest complete command followed by words that cannot change it.
    for k in range(len(rest) - 1, -1, -1):
        tail = rest[k:]
        if not (tail[0] in TRAILING_OK or k + offset in breaks):
            continue
        if any(_is_argument(t, keyword, ctx) for t in tail):
            continue
        reading = try_keywords(line, keywords, rest[:k], ctx, note)
        if not isinstance(reading, Understood):
            if reading.ambiguous:
                return reading
            continue
        later = next((i for i, t in enumerate(tail) if _is_verb(t)), None)
        if later is not None:
            other = _read_piece(" ".join(tail[later:]), ctx)
            if isinstance(other, Understood) and other.text != reading.text:
                return ask_which(line, R.TWO_COMMANDS(),
                                 [reading.display, other.display])
        return reading
    # A sentence that starts with a verb-ish word: "see you soon", "open question".
    content = [t for t in rest if t not in FILLER and t not in SELF_WORDS]
    if content and not _is_argument(content[0], keyword, ctx) and not _is_verb(content[0]) \
            and (verb_word not in KEYWORD_WORDS or len(content) >= 2):
        return _command_in_sentence(line, verb_word, keywords, rest, ctx)
    return outcome


def _command_in_sentence(line: str, verb_word: str, keywords: Sequence[str],
                         rest: list[str], ctx: ParseContext) -> NotUnderstood | None:
    """A sentence starting with a verb-ish word is chatter ("see you soon"), unless a
    whole command follows in it ("BRAWL erm FORCE 1 2 Ann"): never played, never dropped
    unsaid; with a command word in front that orders on its own, both are named."""
    later = next((i for i, t in enumerate(rest) if _is_verb(t)), None)
    if later is None:
        return None
    other = _read_piece(" ".join(rest[later:]), ctx)
    if not isinstance(other, Understood):
        return None
    alone = try_keywords(line, keywords, [], ctx, None)
    if verb_word in KEYWORD_WORDS and isinstance(alone, Understood) \
            and alone.text != other.text:
        return ask_which(line, R.TWO_COMMANDS(),
                         [alone.display, other.display])
    return NotUnderstood(line, NO_VERB, other.display)


#: Words that answer a question about a command with no ("Attack? Never.").
_REFUSALS = frozenset({"never", "nope", "nah", "nunca", "jamais", "niemals", "nooit"})


def _asked_about(after: Sequence[str], ctx: ParseContext) -> int | None:
    """Where the command's own words end when the words after a verb make it a question or
    refuse it: a "?" right after them ("Mutiny? With Ann aboard? Never.", "reveal 3? or
    4"), or a last "never" ("Attack, never."); not a "?" of a later sentence ("VOTE 2. Why
    did Ann attack?"). None when they do not."""
    for index, tok in enumerate(after):
        if tok == "?" or (tok in _REFUSALS and index == len(after) - 1):
            if all(t in FILLER or number_of(t) is not None or t in SHIPS or t in HOLDS
                   or any(_is_argument(t, k, ctx) for k in ("MAROON", "VOTE"))
                   for t in after[:index]):
                return index
            return None
    return None


def _instead_after_break(line: str, toks: list[str], breaks: set[int], start: int,
                         ctx: ParseContext) -> Understood | None:
    """"not REVEAL 2, 4" (Korean "2번 공개 말고 4번"): the verb with the arguments after
    the break; None when there are none."""
    head = toks[start]
    keywords = VERBS.get(head)
    cut = min((b for b in breaks if b > start + 1), default=None)
    if keywords is None or cut is None:
        return None
    tail = [t for t in toks[cut:] if t != "?"]
    if not tail or not all(_is_argument(t, keywords[0], ctx) or t in FILLER for t in tail) \
            or not any(_is_argument(t, keywords[0], ctx) for t in tail):
        return None
    reading = try_keywords(line, keywords, tail, ctx, None)
    return reading if isinstance(reading, Understood) else None


def _split_by_unknown(line: str, keywords: Sequence[str], rest: list[str], ctx: ParseContext,
                      note: str | None) -> NotUnderstood | None:
    """"REVEAL 2 perdona 5": arguments, words the reader does not know, arguments again,
    each side a whole command of the verb: two answers joined by what may be a correction
    in a language it does not know. Asked, naming both; None when not that shape."""
    keyword = keywords[0]
    for j, tok in enumerate(rest):
        if not j or _is_argument(tok, keyword, ctx) or tok in FILLER:
            continue
        right_start = next((k for k in range(j + 1, len(rest))
                            if _is_argument(rest[k], keyword, ctx)), None)
        if right_start is None:
            return None
        middle = rest[j:right_start]
        if any(_is_verb(t) or t in NEGATIONS for t in middle):
            return None
        left = try_keywords(line, keywords, rest[:j], ctx, note)
        right = try_keywords(line, keywords, rest[right_start:], ctx, note)
        if isinstance(left, Understood) and isinstance(right, Understood) \
                and left.text != right.text:
            return ask_which(line, R.TWO_COMMANDS(),
                             [left.display, right.display])
        return None
    return None


#: "REVEAL 5 not 2": the argument before the word is meant. "reveal 2 no 5": the one after.
_NOT_WORDS = frozenset({"not", "nicht", "pas", "niet", "nao"})
_NO_WORDS = frozenset({"no", "nein", "non", "nee", "nope"})


def _contrasted(line: str, keywords: Sequence[str], rest: list[str], ctx: ParseContext,
                note: str | None) -> Understood | None:
    """A command whose arguments are contrasted: "REVEAL 5 not 2", "Give Cleo the map,
    not Ann" (the one before "not"), "reveal 2 no 5" (the one after "no"). None when the
    words are not that shape."""
    keyword = keywords[0]
    cut = next((j for j, t in enumerate(rest) if j and t in _NOT_WORDS | _NO_WORDS), None)
    pair = next((j for j, t in enumerate(rest[:-1]) if j and (t, rest[j + 1]) in (
        ("instead", "of"), ("rather", "than"))), None)
    if pair is not None and (cut is None or pair < cut):  # "REVEAL 4 instead of 2"
        rest = [*rest[:pair], "not", *rest[pair + 2:]]
        cut = pair
    if cut is None:
        return None
    before, after = rest[:cut], [t for t in rest[cut + 1:] if t not in ("the", "a", "but")]
    if not after or not any(_is_argument(t, keyword, ctx) for t in before) or not all(
            _is_argument(t, keyword, ctx) or t in FILLER for t in after):
        return None
    if rest[cut] in _NOT_WORDS:
        reading = try_keywords(line, keywords, before, ctx, note)
    else:
        reading = try_keywords(line, keywords, after, ctx, note)
    return reading if isinstance(reading, Understood) else None


def invitation_answer(toks: Sequence[str], line: str) -> Meta | None:
    """YES / NO to an invitation, in the many ways people say it."""
    text = " ".join(toks)
    text = re.sub(r"^(?:hi|hello|hey|dear|ahoy|well|oh|ah|um|hmm|haha|lol)\b\s*", "", text)
    text = re.sub(r"^(?:thanks?|thank\s+you|thx)(?:\s+(?:so\s+much|a\s+lot))?(?:\s+for\s+"
                  r"(?:the\s+|your\s+)?(?:invite|invitation|asking|thinking\s+of\s+me))?\s*"
                  r"(?:but\s+)?", "", text)
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
    say = SAY_RE.match(line.strip())
    if say:
        text = " ".join(say.group(1).split())
        if not text:
            return NotUnderstood(line, R.SAY_NEEDS(cmd="SAY"), "SAY good luck, all")
        return Meta(line, "SAY", text[:SAY_LIMIT], truncated=len(text) > SAY_LIMIT)
    setting = read_setting(line)  # ZONE, AWAY, VIA ... (pbm.replies.settings_words)
    if setting is not None:
        return setting  # type: ignore[no-any-return]
    cleaned = plain_pick(_ASIDE_RE.sub(_aside_gap, line), ctx)
    raw_toks, breaks = _tokens_and_breaks(cleaned)
    if ctx.invited and ctx.seat is None and raw_toks:
        answer = invitation_answer(raw_toks, line)
        if answer is not None:
            return answer
    if not raw_toks:
        return None
    topic = help_question(raw_toks)
    if topic is not None:
        return Meta(line, "HELP", topic)  # "what can I do now?", "how does voting work?"
    paired = one_of_two(line, raw_toks, ctx)
    if paired is not None:
        return paired
    if "TAKE NONE" in ctx.legal and _declines_treasure(raw_toks):
        return understood_as(line, "TAKE NONE", ctx, None)  # "decline" is also for invitations
    start = verb_start(raw_toks)
    if start is not None and start + 1 < len(raw_toks) and raw_toks[start] in _LABEL_WORDS \
            and (start + 1 in breaks or raw_toks[start + 1] == "is"):
        after = verb_start(raw_toks[start + 1 :])  # "my move: reveal 3", "vote is 2"
        if after is not None:
            start += 1 + after
    if start is not None:
        if negated(raw_toks[:start]):
            # "not the mutiny", "don't attack": what the player will not do; "not REVEAL 2,
            # 4": the argument after the break is what they will do.
            return _instead_after_break(line, raw_toks, breaks, start, ctx)
        head, rest = raw_toks[start], [t for t in raw_toks[start + 1 :] if t != "?"]
        asked = _asked_about(raw_toks[start + 1:], ctx)
        question = cleaned.rstrip().endswith("?") or asked is not None
        if asked is not None:
            rest = [t for t in raw_toks[start + 1:start + 1 + asked] if t != "?"]
        keywords = VERBS.get(head)
        note = None
        if keywords is None and head not in META:
            fixed = _fuzzy_verb(head)
            if fixed is not None:
                note = R.READ_AS(word=head, cmd=fixed.upper())
                head = fixed
                keywords = VERBS.get(fixed)
        if keywords is None and head in META:
            return read_meta(line, head, rest)
        if keywords is not None:
            outcome = _read_verb(line, head, keywords, rest, breaks, start + 1, ctx, note)
            if question and isinstance(outcome, Understood):
                return NotUnderstood(line, R.QUESTION(cmd=outcome.display), outcome.display)
            unsure = _UNSURE_ASIDE_RE.search(line)
            if unsure and isinstance(outcome, Understood):  # "VOTE 2 (or 3?)": asked
                other = _read_verb(line, head, keywords, [unsure.group("n")], set(), 0, ctx,
                                   note)
                if isinstance(other, Understood) and other.text != outcome.text:
                    return ask_which(line, R.TWO_COMMANDS(),
                                     [outcome.display, other.display])
            return outcome
    toks = _strip_leading(raw_toks)
    if any(t in NEGATIONS for t in toks[:4]):
        return None  # "not the water card", "do NOT use the letter": what they will not do
    short = shorthand(line, toks, ctx)
    if short is not None:
        return short
    while len(toks) > 1 and toks[0] in ("the", "a", "my") and toks[1] in NUMBER_WORDS:
        toks = toks[1:]  # "the second one"
    if len(toks) > 1 and toks[0] in _OPTION_WORDS and read_int(toks[1]) is not None:
        toks = toks[1:]  # "option 3"
    numbers = [number_of(t) for t in toks if number_of(t) is not None]
    if len(numbers) > 3 or (len(toks) > 1 and any(n > 20 for n in numbers if n is not None)) \
            or any(len(t) >= 4 and read_int(t) is not None for t in toks):
        return None  # dates, addresses, phone numbers: not a command
    if toks and read_int(toks[0]) is not None:
        return menu_pick(line, toks, ctx)
    if toks and toks[0] in NUMBER_WORDS and all(
            t in FILLER or t == "one" or t in _OPTION_WORDS for t in toks[1:]):
        return menu_pick(line, [str(NUMBER_WORDS[toks[0]])], ctx)  # "the second one"
    # No verb: maybe the bare arguments of the one thing awaited ("british", "Cleo").
    verbs = list(dict.fromkeys(c.split()[0] for c in ctx.legal if c != "ATLANTIS"))
    readings: list[Understood] = []
    for keyword in verbs:
        outcome = try_keywords(line, [keyword], toks, ctx, None)
        if isinstance(outcome, NotUnderstood) and outcome.ambiguous:
            return outcome
        if isinstance(outcome, Understood) and outcome.legal_now:
            readings.append(outcome)
    distinct = list({r.text: r for r in readings}.values())
    if len(distinct) == 1:
        return distinct[0]
    if len(distinct) > 1:
        return ask_which(line, R.COULD_MEAN(cmd=" or ".join(r.display for r in distinct)),
                         [r.display for r in distinct])
    if not _has_signal(toks):
        return None
    return NotUnderstood(line, NO_VERB, suggest(line, ctx))



#: The reason given for a line with no command word that fits nothing awaited.
NO_VERB = R.NOT_A_COMMAND()


#: Words that label the command after them: "my move: reveal 3", "vote is 2".
_LABEL_WORDS = frozenset({"move", "vote", "choice", "answer", "action", "pick", "play"})


def parse_line(line: str, ctx: ParseContext) -> Understood | Meta | NotUnderstood | None:
    """One piece of a line -> a command, a meta command, not understood, or None (chatter)."""
    return _read_piece(line, ctx)


def _aside_gap(match: re.Match[str]) -> str:
    """What an aside leaves: a space, or, between two arguments ("VOTE 1 (hmm) 2"), a word
    no reading takes, so the two are never read as one command."""
    after = match.string[match.end():]
    return " aside " if re.match(r"\W*\d", after) else " "


#: An aside that offers another argument: "VOTE 2 (or 3?)", "REVEAL 4 (maybe 5)".
_UNSURE_ASIDE_RE = re.compile(r"[(\[]\s*(?:or|maybe|perhaps|possibly|otherwise)\s+"
                              r"(?:card\s+|#)?(?P<n>\d{1,2})\s*\??\s*[)\]]", re.IGNORECASE)

#: Asides in brackets are the player's comments, not arguments: "REVEAL 3 (the Pistol)".
_ASIDE_RE = re.compile(r"\([^()]*[^\W\d_][^()]*\)|\[[^\[\]]*[^\W\d_][^\[\]]*\]")


_OPTION_WORDS = frozenset({"option", "opt", "choice", "number", "nr", "no", "num"})
