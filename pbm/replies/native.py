"""Replies in another language -> the English command language the parser reads.

Every language whose folder holds reply words (``<locale dir>/<lang>/replies.toml``, read
by :mod:`pbm.replies.reply_words`) has its lines rewritten before the parser folds them
(folding romanizes Hangul: "3번 공개" would read "3beon gonggae"). A line is in a language
when it holds a letter of that language's ``script``; a line in none of them is returned
unchanged, byte for byte, so English replies are read exactly as before.

The rewrite reads a line in this order: whole-line forms (settings, SAY, HELP, courtesy:
:mod:`pbm.replies.native_lines`); an English command with native words around it
("REVEAL 3 감사합니다" keeps its words and order); the answer to an invitation; then word by
word (:mod:`pbm.replies.native_words`): commands, numbers with their markers, things and
the players' names, with particles, endings and chatter dropped, written back verb first::

    "1번이랑 3번 확인해 주세요"  -> "VIEW 1 3"
    "민준 고립시킬게요"          -> "MAROON 민준"
    "2번 공개 아니면 4번 공개"   -> "REVEAL 2 or REVEAL 4"   (the parser asks which)

Names stay as written: the parser matches them as it matches any name. The rewrite never
guesses: two commands in one clause, or an "or" word, are passed on as "... or ..." for the
parser to ask back; a word it does not know is kept for the parser to report.
Self-corrections become the English markers ("no wait", "scratch that") the correction
logic reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from pbm.replies import native_words
from pbm.replies.native_clause import Clause
from pbm.replies.native_lines import whole_line
from pbm.replies.reply_words import ReplyWords, readers
from pbm.replies.words import META

_SAY_WORDS = "|".join(w for w, m in META.items() if m == "SAY")
_ENGLISH_SAY_RE = re.compile(rf"^[\W_]*(?:{_SAY_WORDS})\b", re.IGNORECASE)
_JOINTS = {"or": "or", "and": "then"}


def reader_for(line: str) -> ReplyWords | None:
    """The reply words of the language ``line`` is written in (None: English)."""
    for words in readers():
        if words.script.search(line):
            return words
    return None


def to_english(line: str, names: Iterable[str] = (), *, invited: bool = False) -> str:
    """One reply line -> the English command language (unchanged when it is English)."""
    words = reader_for(line)
    if words is None or _ENGLISH_SAY_RE.match(line):
        return line  # English, or table talk: the player's words as they wrote them
    names = [n for n in names if n]
    whole = whole_line(words, line)
    if whole is not None:
        return whole
    english = native_words.english_command(words, line, names)
    if english is not None:
        return english
    if invited:
        for pattern, answer in ((words.invite_yes, "yes"), (words.invite_no, "no")):
            if pattern is not None and pattern.match(line.strip()):
                return answer
    clauses = _clauses(words, line, names)
    if not any(clause.says_something() for _, clause in clauses):
        return line
    parts: list[str] = []
    for joint, clause in clauses:
        english = clause.english()
        if not english:
            continue
        if parts and joint in _JOINTS:
            parts.append(_JOINTS[joint])
        elif parts and joint == "instead":
            parts[-1] += ","
        elif parts and joint == "sentence":
            parts[-1] += "."
        parts.append(english)
    return " ".join(parts)


def _clauses(words: ReplyWords, line: str, names: list[str]) -> list[tuple[str, Clause]]:
    """The line's clauses, each with what joins it to the one before ("", "or", "and",
    "instead", "sentence")."""
    text = native_words.glue_phrases(
        words, native_words.join_counted(words, native_words.respell(words, line)))
    clauses: list[tuple[str, Clause]] = [("", Clause())]
    negation = False
    for raw in re.split(rf"[\s,;/]+|(?<=[{words.letters}])(?=[.!?~])", text):
        word = raw.strip(".!?~()[]\"'")
        if "?" in raw:
            clauses[-1][1].question = True
        if not word:
            clause = clauses[-1][1]
            if re.search(r"[.!?]", raw) and clause.verbs:
                clauses.append(("sentence", Clause()))
            elif re.search(r"[.!?]", raw) and not (clause.numbers or clause.args
                                                   or clause.bare):
                clauses[-1] = ("", Clause())  # "제 차례죠?": a sentence with no command
            continue
        current = clauses[-1][1]
        said = len(current.verbs) + len(current.weak_verbs)
        brk = native_words.read_word(words, word, current, names)
        if negation:
            if word.startswith(words.do_forms) or len(current.verbs) + len(
                    current.weak_verbs) > said:
                current.negated = True  # "공격 안 해요", "안 공격해요"
            negation = False
        if brk == "neg":
            negation = True
        if brk.startswith("correction:"):
            clauses.append(("", Clause(correction=brk.split(":", 1)[1])))
        elif brk == "or-number":
            current.numbers.append("or")
        elif brk in ("or", "and", "instead"):
            clauses.append((brk, Clause()))
    return clauses


def to_english_lines(lines: Iterable[str], names: Mapping[int, str] | Iterable[str] = (),
                     *, invited: bool = False) -> list[str]:
    """Every line through :func:`to_english` (the parser's hook; English lines unchanged)."""
    values = list(names.values()) if isinstance(names, Mapping) else list(names)
    return [to_english(line, values, invited=invited) for line in lines]
