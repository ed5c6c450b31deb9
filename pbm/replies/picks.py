"""Lines that are no whole command: a clipped verb (``r2``, ``tk br``), a pick said in
plain words ("I'll go with 3"), one of two offered cards ("the second one"), a question
that asks for help. ``pbm.replies.sentence`` tries these when a line has no verb it knows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pbm.replies import reasons as R
from pbm.replies.keywords import ask_which, card_named, try_keywords, understood_as
from pbm.replies.parse_types import NotUnderstood, ParseContext, Understood
from pbm.replies.words import (
    FILLER,
    HOLDS,
    LEADING_FILLER,
    META,
    NUMBER_WORDS,
    VERBS,
    number_of,
    verb_word,
)

#: Canonical keywords a clipped verb may stand for (``r2``, ``rev 2``, ``atk``, ``tk br``).
_SHORTHAND_KEYWORDS = ("REVEAL", "VIEW", "VOTE", "CHOOSE", "MAROON", "MUTINY", "MARQUE",
                       "ATTACK", "TAKE", "SHOOT", "SHIFT", "GIVE", "PLACE", "FORCE", "ROW",
                       "BOARD", "LAND", "BRAWL", "SAVE", "FOUNTAIN", "ACCEPT", "MAP")


def _clips(word: str, keyword: str) -> bool:
    """True when ``word`` is ``keyword`` clipped: its start ("rev"), or two or three of its
    letters in order from the first ("atk", "tk", "rvl")."""
    keyword = keyword.lower()
    if keyword.startswith(word):
        return True
    if word[0] != keyword[0] or not 2 <= len(word) <= 3:
        return False  # "frce" is a typo (asked with a suggestion), not shorthand
    rest = iter(keyword[1:])
    return all(ch in rest for ch in word[1:])


def shorthand(line: str, toks: Sequence[str], ctx: ParseContext
               ) -> Understood | NotUnderstood | None:
    """SMS shorthand: a clipped verb and its arguments (``r2``, ``rev 2``, ``v1``, ``m ann``,
    ``c4``, ``atk``, ``tk br``) read as the one legal command it fits; several: asked; none:
    None (the line is read as it would be otherwise)."""
    if not toks or not toks[0].isalpha() or len(toks[0]) > 4 or toks[0] in VERBS \
            or toks[0] in META or toks[0] in FILLER or toks[0] in NUMBER_WORDS:
        return None
    word = toks[0]
    if word in HOLDS and word not in ("tk",):
        return None  # "b", "fr": a hold, read as the bare argument it is
    readings: dict[str, Understood] = {}
    for keyword in _SHORTHAND_KEYWORDS:
        if not _clips(word, keyword):
            continue
        outcome = try_keywords(line, [keyword], list(toks[1:]), ctx,
                               R.READ_AS(word=word, cmd=keyword))
        if isinstance(outcome, Understood) and outcome.legal_now:
            readings.setdefault(outcome.text, outcome)
    if len(readings) == 1:
        return next(iter(readings.values()))
    if len(readings) > 1:
        return ask_which(line, R.COULD_MEAN(cmd=" or ".join(
            r.display for r in readings.values())), [r.display for r in readings.values()])
    return None


#: "I'll go with 3", "switch to card 3", "change it to 2": a pick said in plain words.
_PLAIN_PICK_RE = re.compile(
    r"^\W*(?:(?:i'?ll|i\s+will|i'?m|im|ill|let'?s|lets|we'?ll|i\s+am)\s+)?"
    r"(?:go(?:ing)?\s+(?:with|w/?|for)|switch(?:ing)?\s+(?:it\s+|my\s+vote\s+)?to|"
    r"chang(?:e|ing)\s+(?:it\s+|that\s+|my\s+vote\s+)?to|swap\s+(?:it\s+)?(?:to|for))\s+"
    r"(?:card\s+|number\s+|option\s+|no\.?\s*|#)?(?P<n>\d{1,2})\b(?P<rest>.*)$",
    re.IGNORECASE)
#: "card 2 instead of the Water": the card before "instead of" is meant.
_INSTEAD_OF_RE = re.compile(
    r"^(?P<pick>\W*(?:(?:card|number|option)\s+|#)?\d{1,2})\s*,?\s+"
    r"(?:instead\s+of|rather\s+than)\b[^\d]*$", re.IGNORECASE)
#: "if so 2 please": the condition is whether the service allows it, which it says.
_IF_ALLOWED_RE = re.compile(
    r"^(?:.*\?\s*)?\W*if\s+(?:so|yes|possible|allowed|i\s+can|you\s+can|that'?s\s+(?:ok|okay|fine)|"
    r"not\s+too\s+late|it'?s\s+not\s+too\s+late)\W+", re.IGNORECASE)


#: "change of plan: card 2 ...": the lead-in of a changed answer.
_NEW_PLAN_RE = re.compile(r"^\W*(?:change\s+of\s+plans?|new\s+plan|plan\s+b|update)\s*"
                          r"[:,\-\u2013\u2014]+\s*", re.IGNORECASE)


#: "I'll keep it", "keep the map", "mine": said at the Treasure Map, the map to oneself.
_KEEP_RE = re.compile(
    r"^\W*(?:(?:i'?ll|i\s+will|ill|let\s+me|i\s+want\s+to|i'?d\s+like\s+to|i'?m\s+going\s+to)"
    r"\s+)?(?:keep|take)\s+(?:it|the\s+map|that|this|the\s+treasure\s+map)"
    r"(?:\s+(?:myself|for\s+myself|thanks|please))?\W*$|^\W*(?:mine|me|myself)\W*$",
    re.IGNORECASE)


def plain_pick(line: str, ctx: ParseContext) -> str:
    """A pick said in plain words, as the bare number it means when the seat is asked
    for one ("switch to card 3" -> "3", "if so 2 please" -> "2 please")."""
    if not ctx.menu:
        return line
    if ctx.seat is not None and f"GIVE {ctx.seat + 1}" in ctx.legal and _KEEP_RE.match(line):
        return "give me"  # "I'll keep it" at the Treasure Map: the map to oneself
    line = _NEW_PLAN_RE.sub("", _IF_ALLOWED_RE.sub("", line))
    match = _PLAIN_PICK_RE.match(line)
    if match and not re.search(r"[^\W\d_]", match.group("rest").replace("please", "")
                               .replace("pls", "").replace("thanks", "")):
        return match.group("n") + match.group("rest")
    instead = _INSTEAD_OF_RE.match(line)
    return instead.group("pick") if instead else line


def one_of_two(line: str, toks: Sequence[str], ctx: ParseContext
                ) -> Understood | NotUnderstood | None:
    """"the latter", "the first one": one of the two Event cards a forced seat is offered.
    An ordinal that is also the position of the other offered card is asked back."""
    offered = [int(c.split()[1]) for c in ctx.legal if c.startswith("CHOOSE ")]
    if len(offered) != 2 or any(number_of(t) is not None and t not in _PAIR_WORDS
                                and t not in _PAIR_FILLER
                                for t in toks):
        return None
    words = [t for t in toks if t not in _PAIR_FILLER and t not in FILLER
             and t not in LEADING_FILLER]
    if len(words) != 1 or words[0] not in _PAIR_WORDS:
        return None
    index = _PAIR_WORDS[words[0]]
    chosen = offered[index]
    literal = number_of(words[0])
    if literal is not None and literal in offered and literal != chosen:
        return ask_which(line, R.POSITION_OR_CARD(word=words[0], n=literal, other=words[0]),
                         [f"CHOOSE {literal}", f"CHOOSE {chosen}"])
    return understood_as(line, f"CHOOSE {chosen}", ctx,
                        R.READ_AS_POSITION(word=words[0], n=chosen))


#: Words that pick one of two offered cards (index into the pair).
_PAIR_WORDS = {"former": 0, "first": 0, "1st": 0, "latter": 1, "last": 1, "second": 1,
               "2nd": 1, "later": 1}
_PAIR_FILLER = frozenset({"one", "two", "them", "both", "choose", "pick", "take", "reveal",
                          "flip", "go", "with", "of", "the", "card", "i", "ll", "option"})


def help_question(toks: Sequence[str]) -> str | None:
    """The HELP topic of a question about how to play ("how do I vote?": VOTE; "what can I
    do now?": ""; "how does the Black Spot work": BLACK SPOT; "how do I change my time
    zone": ZONE), or None when the words are not such a question."""
    if len(toks) < 2 or toks[0] not in _QUESTION_WORDS or (
            toks[1] not in _QUESTION_AUX and toks[0] not in ("explain", "whats", "what's")):
        return None
    if any(number_of(t) is not None and t != "one" for t in toks):
        return None  # "which is card 3?": about a thing, not how to play
    text = " ".join(toks)
    card = card_named(text)
    if card is not None:
        return card.upper()
    setting = next((topic for words, topic in _SETTING_TOPICS if any(
        re.search(rf"\b{w}\b", text) for w in words)), None)
    if setting is not None:
        return setting
    topic: str | None = None
    for tok in toks[2:]:
        word = verb_word(tok)
        if word is not None and word not in ("see", "play", "make", "go", "check"):
            return VERBS[word][0]
        if tok in ("options", "choices", "commands", "moves", "do", "send", "reply", "play",
                   "card", "cards", "answer", "write"):
            topic = ""
    return topic


_QUESTION_AUX = frozenset({"can", "do", "should", "must", "may", "are", "does", "is", "shall",
                           "now", "am", "my", "options", "a", "an", "the", "happens",
                           "exactly", "about", "me"})
_QUESTION_WORDS = frozenset({"what", "how", "which", "whats", "what's", "explain", "hows",
                             "how's"})

#: Settings a question may ask about, by the words that name them.
_SETTING_TOPICS = (
    (("time zone", "timezone", "zone", "time difference"), "ZONE"),
    (("away", "vacation", "holiday", "holidays", "travelling", "traveling"), "AWAY"),
    (("quiet", "night", "sleep", "do not disturb"), "QUIET"),
    (("language", "korean", "english"), "SETTINGS"),
    (("digest", "calendar", "email instead", "texts instead", "channel"), "SETTINGS"),
)
