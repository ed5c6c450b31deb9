"""Player names in a reply: exact, prefix, word-of-name and fuzzy matches. A name is never
guessed: a word that fits two players or more raises ``AmbiguousName``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz

from pbm.replies.parse_types import AmbiguousName, ParseContext
from pbm.replies.reasons import READ_AS_NAME
from pbm.replies.words import FILLER, SELF_WORDS, SHIPS, TRAILING_OK, fold, name_key, tokens


def match_name(toks: Sequence[str], i: int, ctx: ParseContext) -> tuple[int, int, str | None]:
    """(seat, tokens used, note) for a player name starting at ``toks[i]``; seat -1 if none.

    Raises ``AmbiguousName`` when a prefix, a word of a name or a fuzzy match fits two
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
            raise AmbiguousName(word, i, i + 1, sorted(prefix))
    parts = [s for s, name in ctx.names.items()
             if word in {name_key(w) for w in fold(name).split()}]
    if len(parts) == 1:
        return parts[0], 1, None
    if len(parts) > 1 and not guard:
        raise AmbiguousName(word, i, i + 1, sorted(parts))
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
                raise AmbiguousName(word, i, i + 1, near)
            seat = near[0]
            return seat, 1, READ_AS_NAME(word=word, name=ctx.names[seat])
    return -1, 0, None


def names_in(line: str, ctx: ParseContext) -> set[int]:
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
