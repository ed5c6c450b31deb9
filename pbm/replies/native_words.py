"""The words of a reply line in another language, one at a time, read into a
:class:`~pbm.replies.native_clause.Clause` with that language's :class:`ReplyWords`.

A word may carry a particle or an ending glued to it (``replies.toml`` ``particles``): the
longest is dropped. The reader looks for the language's command words, meta words, things
and the glossary's terms (``ReplyWords.lexicon``, longest first; inside a word when the
language is ``glued``), its numbers with their markers (``counters``), and the players'
names, kept as written. Where the verb stands does not matter: a clause's verbs are
written first whatever their place (Korean puts them last).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pbm.replies.native_clause import NAME_VERBS, Clause
from pbm.replies.reply_words import ReplyWords
from pbm.replies.words import META, VERBS, fold

#: Where a word may be cut when the line is split (a line's punctuation after a letter).
_STRIP = ".,!?:;~"


def strip_particle(words: ReplyWords, word: str) -> tuple[str, str]:
    """``"민준이를"`` -> (``"민준"``, ``"이를"``): the longest particle at the end, if any."""
    for particle in words.particles:
        if word.endswith(particle) and len(word) > len(particle):
            return word[: -len(particle)], particle
    return word, ""


def name_of(words: ReplyWords, word: str, names: Iterable[str], *, prefix: bool = False
            ) -> str | None:
    """The player name ``word`` is, with or without a particle (kept as the player wrote it);
    with ``prefix``, also the first letters of one ("지호" for 지호연)."""
    keys = [n for n in names if n]
    stem = word
    for _ in range(3):  # "서연님한테": 한테, then 님
        for name in keys:
            first = name.split()[0]
            if stem in (name, first) or (prefix and words.script.search(stem)
                                         and len(stem) >= 2 and first.startswith(stem)):
                return stem
        stem, particle = strip_particle(words, stem)
        if not particle:
            break
    return None


def number(words: ReplyWords, text: str) -> tuple[int, str, str] | None:
    """A number at the start of ``text``, its counter and what follows: "3번째를" ->
    (3, "번째", "를"); the counter is "bare" for a numeral standing alone ("셋 공개")."""
    match = words.number_pattern.match(text)
    if match:
        return int(match.group(1)), match.group(2) or "", match.group(3)
    for word, value in words.numerals.items():
        if text.startswith(word):
            rest = text[len(word):]
            for counter in words.counters:
                if rest.startswith(counter):
                    return value, counter, rest[len(counter):]
            if word in words.bare_numbers and (
                    not rest or rest in words.particles or rest in words.polite_tails):
                # "셋 공개", "둘이요": a position; "횃불 하나": a quantity (see Clause)
                return value, "bare", "" if rest in words.polite_tails else rest
            if words.sino_marker and word.endswith(words.sino_marker):
                return value, words.sino_marker, rest
    return None


def respell(words: ReplyWords, line: str) -> str:
    """Common misspellings written the standard way (``replies.toml`` ``respell``)."""
    for pattern, replace in words.respell:
        line = pattern.sub(replace, line)
    return line


def join_counted(words: ReplyWords, line: str) -> str:
    """"세 번째" / "2 번" -> "세번째" / "2번": a number and its counter as one word."""
    for pattern in words.joins:
        line = pattern.sub(r"\1\2", line)
    return line


def glue_phrases(words: ReplyWords, line: str) -> str:
    """Words of more than one word glued into one ("플라잉 더치맨" -> "플라잉\u2060더치맨")."""
    for surface in words.phrases:
        line = line.replace(surface, surface.replace(" ", "\u2060"))
    return line


def read_word(words: ReplyWords, word: str, clause: Clause, names: list[str]) -> str:
    """Adds what ``word`` says to ``clause``. Returns what it does to the line: "" (nothing
    more), a clause break ("or", "and", "instead"), "or-number" ("2번이나"), "neg" (안 / 못,
    settled by the next word) or "correction:<marker>"."""
    word = word.replace("\u2060", " ")
    if word in words.corrections:
        return "correction:" + words.corrections[word]
    if word in words.or_words:
        return "or"
    if word in words.and_words:
        return "and"
    if word in words.neg_words:
        return "neg"  # "안 해요" negates the verb before, "안 나가요" nothing we know
    if word in words.instead_words:
        clause.negated = True
        return "instead"
    if not words.script.search(word):
        folded = fold(word).strip(_STRIP)
        if folded in VERBS or folded in META:
            clause.verbs.append(word.upper())
        elif folded.isdigit():
            clause.numbers.append(folded)
        elif folded:
            clause.args.append(word)
        return ""
    for copula in words.copulas:
        if word.endswith(copula) and name_of(words, word[: -len(copula)], names):
            return ""  # "민준입니다": the player saying who they are
    name = name_of(words, word, names)
    if name is not None:
        clause.args.append(name)
        if word[len(name):] in words.or_particles:  # "지호나 도윤": the parser asks which
            clause.args.append("or")
        return ""
    counted = number(words, word)
    if counted is not None:
        return _read_number(words, counted, clause, names)
    return _read_term(words, word, clause, names)


def _read_number(words: ReplyWords, counted: tuple[int, str, str], clause: Clause,
                 names: list[str]) -> str:
    value, counter, rest = counted
    if counter == "bare":
        clause.bare.append(value)
    else:
        (clause.counts if counter in words.count_counters else clause.numbers).append(value)
    if rest in words.or_particles:
        return "or-number"
    if rest and rest not in words.particles and words.script.search(rest):
        return read_word(words, rest, clause, names)  # "3번공개": no space before the verb
    return ""


def _read_term(words: ReplyWords, word: str, clause: Clause, names: list[str]) -> str:
    """A command word, meta word, thing or name inside ``word``; else an unknown word."""
    stem, particle = strip_particle(words, word)
    if stem in words.treasure_words:
        clause.treasure = True
    if stem in words.short_things and (stem == word or particle):
        english = words.short_things[stem]
        (clause.weak_verbs if english.isupper() else clause.args).append(english)
        return ""
    if word in words.filler or stem in words.filler or word.startswith(words.filler_stems) or (
            words.chatter is not None and words.chatter.fullmatch(word)):
        return ""
    for surface, kind, english in words.lexicon:
        if not words.glued and surface not in (word, stem):
            continue
        index = word.find(surface)
        if index != 0 and not (index > 0 and kind == "verb"
                               and word[:index] in ("", *words.verb_prefixes)):
            continue
        rest = word[index + len(surface):]
        if kind == "thing" and english in VERBS:  # a card: its verb, unless another is said
            clause.weak_verbs.append(VERBS[english][0])
        elif kind == "thing":
            clause.args.append(("to " if particle in words.to_particles and rest == particle
                                else "") + english)
        elif kind == "meta":
            clause.verbs.append(english)
        else:
            # "보트" is the rowboat as well as ROW: a verb only if no other is said
            # ("보트에서 상륙": LAND from the rowboat).
            (clause.weak_verbs if surface in words.weak_commands else clause.verbs
             ).append(english)
            if any(neg in rest for neg in words.neg_endings):
                clause.negated = True
            if words.then_ending is not None and words.then_ending.search(rest):
                return "and"  # "공개하고 ...", "공개한 다음 ...": then the next command
        return ""
    name = name_of(words, word, names, prefix=True)  # after the words: never hides one
    if name is not None:
        clause.args.append(name)
        return ""
    clause.unknown.append(word)  # unknown: a name for the parser to match or report
    return ""


def english_command(words: ReplyWords, line: str, names: list[str]) -> str | None:
    """An English command with words of the language around it ("REVEAL 3 감사합니다",
    "MAROON 지호요", "reveal 3번"): kept as written, in its order; only chatter goes and
    numbers and names lose their particles. None when no English command word starts it."""
    split = line.split()

    def native(w: str) -> bool:
        return bool(words.script.search(w))

    if not split or native(split[0]) or not any(
            fold(w).strip(".,!?:;~()[]") in VERBS or fold(w).strip(".,!?:;~()[]") in META
            for w in split if not native(w)):
        return None
    said = {k for w in split if not native(w) for k in VERBS.get(fold(w).strip(_STRIP), ())}
    kept = []
    for index, word in enumerate(split):
        if not native(word):
            kept.append(word)
            continue
        clause = Clause()  # one word of the language: its name, number or term, in place
        brk = read_word(words, word.strip(".,!?~()"), clause, names)
        if brk.startswith("correction:"):  # "REVEAL 2, 아니 REVEAL 4"
            kept.append(brk.split(":", 1)[1])
            continue
        if brk in ("and", "or") or word in words.and_particles:
            kept.append(brk or "and")  # "VIEW 1 그리고 3", "VIEW 1 이랑 3", "2 아니면 4"
            continue
        read = [str(n) for n in clause.numbers] + clause.verbs + clause.weak_verbs + [
            a for a in clause.args if a != "or"]
        kept += read
        if said & NAME_VERBS:
            kept += clause.unknown  # a misspelt name the parser may still match
        elif not read and kept and any(re.search(r"\d", w) for w in split[index + 1:]):
            kept.append(word)  # "VOTE 2 음 3": between two numbers, never dropped unsaid
    return " ".join(kept)
