"""Corrections: a reply that changes its mind ("VOTE 1 / sorry, I meant VOTE 3").

A line is cut at each correction marker ("no wait", "sorry, I meant", "scratch that",
"actually", "forget that", "instead", "correction", "I mean", ...). The text after a marker
is a *correction unit*: whatever command it holds replaces the command said before it; a
unit with no command in it takes the earlier command back; when it cannot be told what the
player finally wants, nothing is applied and the player is asked, naming both readings.
``line_units`` / ``reply_units`` find the units; ``correct`` decides one of them, reading
its text with the line reader of ``pbm.replies.parse``.

A marker only counts as one where it cannot be part of table talk or an aside: SAY text and
bracketed asides are never cut (brackets that correct with a number are: "REVEAL 3 (no,
4)"), and a marker right after "because" gives a reason. Soft markers ("sorry", "I mean",
"make it") correct only when something follows them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rapidfuzz.distance import OSA

from pbm.replies import reasons as R
from pbm.replies.keywords import ask_which
from pbm.replies.parse_types import (
    Meta,
    NotUnderstood,
    ParseContext,
    ReplyResult,
    Retracted,
    Understood,
)
from pbm.replies.sentence import SAY_RE, verb_start
from pbm.replies.words import (
    HOLDS,
    META,
    SEQUENCE_WORDS,
    SHIPS,
    SYMBOLS,
    VERBS,
    fold,
    name_key,
    number_of,
    tokens,
)

#: Markers after which the player says what they want instead (or takes back what they
#: said). Longest phrasings first; matched on the line with straight apostrophes.
_MARKER_RE = re.compile(
    r"""
    \bno+[\s,.!…-]*wait\b
  | \bwait[\s,.!…-]*no+\b
  | \b(?:(?:sorry|oops|whoops|oh|er+|um+|uh+)[\s,.!…-]*)?i\s+meant(?:\s+to\s+(?:say|write|type))?\b
  | \b(?:sorry|oops|whoops)[\s,.!…-]+(?:i\s+)?meant?\b
  | \bi\s+mean\b(?!\s+it\b)
  | \bor\s+rather\b
  | \bscratch\s+that\b
  | \bforget\s+(?:that|it|about\s+(?:it|that)|this|what\s+i\s+(?:said|wrote))\b
  | \bnever\s*mind\b | \bnvm\b
  | \bcancel\s+(?:that|it|this|my\s+last(?:\s+(?:one|message|reply|text))?)\b
  | \bdisregard\s+(?:that|this|it|my\s+last(?:\s+(?:one|message|reply|text))?)\b
  | \bignore\s+(?:that|this|it|the\s+above|what\s+i\s+(?:said|wrote)
                 |my\s+(?:last|previous)(?:\s+(?:one|message|reply|text))?)\b
  | \bcorrection\b
  | \bactually[\s,.!…-]*no+\b
  | \bactually\b
  | \bon\s+second\s+thoughts?\b
  | \b(?:i\s+)?changed?\s+my\s+mind\b
  | \bmake\s+(?:that|it)\b
  | \bwait\b(?=\s*[,.!:;…-]|\s*$)
  | \b(?:hmm+|hm+|uh+|um+|oh|ah|er+)[\s,.!…-]*no+(?:pe)?\b
  | (?:^|(?<=[.!?…,;:/-]))\s*(?:no+|nope|nah|nay)(?=\s*[.!,…]|\s*$)
  | \binstead\b(?!\s+of\b)
  | \b(?:sorry|oops|whoops)\b
  # what players mix in from their own languages (German, French, Spanish, Italian,
  # Portuguese, Dutch): "VOTE 2 - nein, VOTE 1", "REVEAL 2, perdón, quise decir 5"
  | \b(?:ich\s+mein(?:t)?e|oder\s+(?:besser|lieber)|doch\s+lieber|korrektur|quatsch)\b
  | \b(?:je\s+(?:voulais|veux)\s+dire|ou\s+(?:plut[oô]t|mieux)|plut[oô]t)\b
  | \b(?:quise\s+decir|quiero\s+decir|mejor\s+dicho|o\s+mejor|corrijo)\b
  | \b(?:volevo\s+dire|intendevo|o\s+meglio|anzi)\b
  | \b(?:quis\s+dizer|quero\s+dizer|ou\s+melhor|ali[aá]s|corrigindo)\b
  | \b(?:ik\s+bedoel(?:de)?|bedoel(?:de)?|of\s+liever|correctie)\b
  | (?:^|(?<=[.!?…,;:/\-\u2013\u2014]))\s*(?:nein|non|nee|n[aã]o|niet|n[oö]|nada)
    (?=\s*[.!,…]|\s*$)
  | (?<=\s)(?:nein|nee|n[aã]o|niet)(?=\s*,)
  | \b(?:pardon|perd[oó]n|disculpa|disculpe|scusa(?:te)?|scusi|desculp[ae]|
       entschuldigung|sorry|excus(?:e|ez)[\s-]moi|d[ée]sol[ée]e?|
       ups|upps|oups|oeps|hoppla)(?=\W|$)
    """,
    re.IGNORECASE | re.VERBOSE,
)

#: "change my vote to 3", "switch my vote to 3": the vote itself, said as a change.
_CHANGE_VOTE_RE = re.compile(
    r"\b(?:change|switch|swap|update|make)\s+(?:my\s+|the\s+)?vote\s+(?:to|for|into)\b",
    re.IGNORECASE)

#: Markers that plainly take back something said before ("sorry, I meant"), unlike "actually"
#: or "no" at the start of a reply: a command after one of them, with nothing before it in
#: the reply, corrects an earlier reply.
_REFERS_BACK_RE = re.compile(
    r"meant|mean|wait|scratch|correction|instead|forget|ignore|cancel|disregard|never|nvm|"
    r"actually\W*no",  # "actually no, reveal 1": takes back, where "actually" alone may not
    re.IGNORECASE)

#: Table talk later in a line ("VOTE 2; SAY ...").
_SAY_AFTER_RE = re.compile(r"(?:[;,.!?]|\bthen\b|\band\b)\s*(?:say|tell|chat|msg)\b",
                           re.IGNORECASE)

#: Words that start a reason: a marker right after one of them corrects nothing.
_EXPLAINING_RE = re.compile(r"\b(?:because|since|cause|cuz|coz|as)\W*$", re.IGNORECASE)

_BRACKETS_RE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")


@dataclass(frozen=True)
class Unit:
    """A stretch of one line: all of it, or the text between correction markers."""

    text: str
    marker: str | None = None  # the marker before it (None: not a correction)
    line_start: bool = True  # the unit starts its line
    line: str = ""  # the whole line it is part of
    #: The marker ends its line and takes nothing back by itself ("VOTE 2, actually"):
    #: it only applies to what the next line says.
    carry_only: bool = False

    @property
    def correction(self) -> bool:
        """True when the unit follows a correction marker."""
        return self.marker is not None


def _masked(line: str) -> str:
    """``line`` with bracketed asides blanked out (same length): no marker inside them.
    Brackets that correct with a number ("REVEAL 3 (no, 4)") are not an aside."""
    def blank(match: re.Match[str]) -> str:
        text = match.group()
        if _MARKER_RE.search(text[1:-1]) and re.search(r"\d", text):
            return "," + text[1:-1] + ","  # a break, as "(" was
        return " " * len(text)

    return _BRACKETS_RE.sub(blank, line)


_BREAK_RE = re.compile(r"[,;.!?]+|\bthen\b|\band\b|\s[-/\u2013\u2014]+\s", re.IGNORECASE)


def _last_break(text: str) -> int:
    """Where the last piece of ``text`` starts (after its last , ; . then and - /)."""
    ends = [m.end() for m in _BREAK_RE.finditer(text) if has_words(text[m.end():])]
    verbs = [m.start() for m in re.finditer(r"[^\W\d_]+", text) if m.group().lower() in VERBS]
    if len(verbs) > 1:  # "VOTE 1 VOTE 2 instead": the second command starts at its verb
        ends.append(verbs[-1])
    return max(ends, default=0)


def _is_trailing(line: str, end: int) -> bool:
    """True when nothing but punctuation follows position ``end`` of ``line``."""
    return not re.search(r"\w", line[end:])


def line_units(line: str) -> list[Unit]:
    """One line -> its units: the text before the first marker, then the text after each.

    A trailing "instead" ("VIEW 3 4 instead") marks the text before it as the correction.
    """
    whole = line
    straight = line.replace("\u2019", "'")
    changed = _CHANGE_VOTE_RE.sub("vote", straight)
    source = changed if changed != straight else whole  # same offsets as ``straight``
    if SAY_RE.match(straight.strip()):
        return [Unit(whole, line=whole)]
    units: list[Unit] = []
    start, marker = 0, None
    masked = _masked(changed)
    say = _SAY_AFTER_RE.search(masked)
    if say:  # "VOTE 2; say no wait, that was a joke": table talk is never cut
        masked = masked[:say.start()] + " " * (len(masked) - say.start())
    for match in _MARKER_RE.finditer(masked):
        word = match.group().strip()
        if _EXPLAINING_RE.search(masked[:match.start()]):
            continue  # "ATTACK because actually they are weak": a reason, not a correction
        if word.lower() == "instead" and _is_trailing(masked, match.end()):
            # "REVEAL 2, VIEW 1 4 instead": the last command before it is the correction.
            cut = start + _last_break(masked[start:match.start()])
            if cut > start and has_words(source[start:cut]):
                units.append(Unit(source[start:cut], marker, not units, whole))
            units.append(Unit(source[cut:match.start()], marker or word, not units, whole))
            start, marker = match.end(), None
            continue
        units.append(Unit(source[start:match.start()], marker, not units, whole))
        start, marker = match.end(), " ".join(word.split())
    carry = (marker or "").lower() == "actually" and not has_words(source[start:])
    units.append(Unit(source[start:], marker, not units, whole, carry))
    # Markers one after the other ("Wait, make it 4", "actually no, forget that"): the last
    # one says what the words after them are.
    units = [u for i, u in enumerate(units) if not (
        u.correction and not has_words(u.text) and i + 1 < len(units)
        and units[i + 1].correction)]
    return [u for u in units if u.correction or has_words(u.text) or u.line_start]


def has_words(text: str) -> bool:
    """True when ``text`` holds a letter or digit."""
    return bool(re.search(r"[^\W_]", text))


def reply_units(lines: Sequence[str], *, enabled: bool = True) -> list[Unit]:
    """Every line's units, in order (each line whole when ``enabled`` is False)."""
    if not enabled:
        return [Unit(line, line=line) for line in lines]
    return [unit for line in marked_lines(lines) for unit in line_units(line)]


#: Text struck through in chat markup ("REVEAL ~~2~~ 5"): taken back.
_STRUCK_RE = re.compile(r"~~[^~\n]*~~")
#: A line that marks itself as the correction of the one before: "*5", "* REVEAL 5",
#: "edit: VOTE 3", "EDIT - 4".
_MARKER_LINE_RE = re.compile(
    r"^\s*(?:\*(?!\*)|(?:edit(?:ed)?|ed|eidt|upd(?:ate)?|correcci[oó]n|korrektur)\s*[:\-\u2013\u2014]+"
    r"|(?:edit|eidt)\b)\s*", re.IGNORECASE)
#: "(ignore the first line)", "- ignore the line above": the command beside it replaces.
_IGNORE_ABOVE_RE = re.compile(
    r"[\s,;.\-\u2013\u2014]*[(\[]?\s*(?:please\s+|pls\s+)?(?:ignore|disregard|skip)\s+"
    r"(?:the\s+|my\s+)?(?:first|previous|last|earlier|other|1st|above|top|preceding)"
    r"(?:\s+(?:line|one|message|command|bit|text))?(?:\s+above)?"
    r"|[\s,;.\-\u2013\u2014]*[(\[]?\s*(?:please\s+|pls\s+)?(?:ignore|disregard)\s+"
    r"(?:the\s+)?(?:line|one|message|command)\s+(?:above|before)"
    r"\s*[)\]]?[.!]*\s*", re.IGNORECASE)


def marked_lines(lines: Sequence[str]) -> list[str]:
    """The lines with chat conventions for "I meant" spelled as a marker the reader knows:
    struck text dropped, a marker line ("*5", "edit: VOTE 3") or a "(ignore the line
    above)" after a command made "correction: ..."."""
    out: list[str] = []
    said = False  # a line with a command word or a number came before
    for line in lines:
        line = _STRUCK_RE.sub(" ", line) if "~~" in line else line
        marker = _MARKER_LINE_RE.match(line)
        if said and marker and has_words(line[marker.end():]):
            line = "correction: " + line[marker.end():]
        ignore = _IGNORE_ABOVE_RE.search(line)
        if said and ignore and has_words(line[:ignore.start()]):
            line = "correction: " + line[:ignore.start()] + " " + line[ignore.end():]
        said = said or any(t in VERBS or number_of(t) is not None for t in tokens(line))
        out.append(line)
    return out


def is_correction_text(text: str) -> bool:
    """True when ``text`` holds a correction the reader knows (a marker, "change my vote
    to"): what joins two answers then may pick one of them."""
    return any(u.correction for u in reply_units(text.split("\n")))


# ------------------------------------------------------------------ deciding

Outcome = Understood | Meta | NotUnderstood | None
ReadLine = Callable[[str, ParseContext, bool], list[tuple[str, Outcome]]]
AddRead = Callable[[ReplyResult, list[tuple[str, Outcome]]], bool]


def _has_verb(text: str) -> bool:
    return any(t in VERBS or (t in META and t != "?") for t in tokens(text))


#: Markers that correct only when a command follows them ("sorry, VIEW 1 3").
_SOFT_MARKERS = frozenset({"sorry", "oops", "whoops", "make it", "make that", "i mean",
                           "actually", "pardon", "perdon", "perdón", "disculpa", "disculpe",
                           "scusa", "scusate", "scusi", "desculpa", "desculpe",
                           "entschuldigung", "excuse-moi", "excuse moi", "excusez-moi",
                           "desole", "désolé", "désolée", "desolee", "ups", "upps", "oups",
                           "oeps", "hoppla"})


def _has_argument(text: str, ctx: ParseContext) -> bool:
    """True when ``text`` holds something a command takes: a number, a player's name, a
    ship, a hold or a card symbol ("no wait, 4", "sorry, Emile")."""
    names = {name_key(w) for n in ctx.names.values() for w in [n, *fold(n).split()]}
    for tok in tokens(text):
        if (number_of(tok) is not None and tok not in SEQUENCE_WORDS and tok != "one") \
                or tok in SHIPS or tok in HOLDS or tok in SYMBOLS or (
                len(tok) >= 3 and any(k.startswith(tok) or OSA.distance(tok, k) <= 1
                                      for k in names if len(k) >= 4)):
            return True
    return False


def _keyword_of(command: Understood | NotUnderstood) -> str | None:
    """The verb to read a bare correction with ("reveal 2, no wait, 4" -> REVEAL)."""
    if isinstance(command, Understood):
        return command.text.split()[0]
    toks = tokens(command.line)
    start = verb_start(toks)
    return toks[start] if start is not None and toks[start] in VERBS else None


def _arity(text: str) -> int:
    return len(text.split())


def correct(result: ReplyResult, unit: Unit, ctx: ParseContext, *, failed: bool,
            read_line: ReadLine, add: AddRead) -> bool:
    """Read a correction unit into ``result``: it replaces the command before it, or takes
    it back; when unclear, nothing is applied and the player is asked. ``failed``: the unit
    before stopped the reading (its not-understood piece is what is corrected). Returns
    True when the reading stops here."""
    marker = unit.marker or ""
    text = unit.text
    if marker.lower() in _SOFT_MARKERS:
        # "VOTE 2. Sorry for the delay": only a command after it makes it a correction.
        read = read_line(text, ctx, True) if has_words(text) else []
        said = any(o is not None for _, o in read) or _has_argument(text, ctx)
        if not said or (not result.understood and not failed):
            return add(result, read)
    target_failed = result.not_understood[-1] if failed and result.not_understood else None
    previous = list(result.understood)
    if not previous and target_failed is None and result.retracted and has_words(text):
        # "ATTACK. Actually no... make that VIEW 1 4": what was taken back is now replaced.
        taken = result.retracted[-1]
        read = read_line(text, ctx, True)
        if any(isinstance(o, Understood) for _, o in read):
            result.retracted.remove(taken)
            return add(result, [(p, _noted(o, taken.display)) for p, o in read])
    if not previous and target_failed is None:
        # Nothing said before it in this reply: the unit stands alone (it may correct an
        # earlier reply); a lone marker ("No.") is read whole, as the line it is.
        read = read_line(text, ctx, bool(result.meta)) if has_words(text) else []
        if not any(outcome is not None for _, outcome in read) and not result.retracted:
            read = read_line(f"{marker} {text}".strip(), ctx, bool(result.meta))
        if _REFERS_BACK_RE.search(marker):
            read = [(p, replace(o, correction=True) if isinstance(o, Understood) else o)
                    for p, o in read]
        return add(result, read)
    keyword = _keyword_of(target_failed or previous[-1])
    read = read_line(text, ctx, True) if has_words(text) else []
    if keyword and has_words(text) and not _has_verb(text) and _has_argument(text, ctx):
        read = read_line(f"{keyword.lower()} {text}", ctx, True)  # "no wait, 4"
        numbers = [t for t in tokens(text)
                   if number_of(t) is not None and t not in SEQUENCE_WORDS]
        if numbers and not any(o is not None for _, o in read):
            # "Actually maybe 4?": a number, but not said plainly: ask, naming both.
            hedged = read_line(f"{keyword.lower()} {' '.join(numbers)}", ctx, True)
            read = [(text, ask_which(text, R.NOT_PLAIN(), [
                o.display for _, o in hedged if isinstance(o, Understood)] or [text]))]
    commands = [o for _, o in read if isinstance(o, Understood)]
    unread = next((o for _, o in read if isinstance(o, NotUnderstood)), None)
    if target_failed is not None:
        result.not_understood.remove(target_failed)
        result.ignored.append(target_failed.line)
        if unread is None and not commands:
            return add(result, read)  # the unread command is taken back: nothing to apply
        return add(result, [(p, _marked(o, None)) for p, o in read])
    targets = _targets(previous, commands) if commands else previous[-1:]
    if commands and unread is None and targets is None:
        _void(result, previous)
        result.not_understood.append(ask_which(
            unit.line, R.WHICH_COMMAND(),
            [p.display for p in previous] + [c.display for c in commands]))
        return True
    if unread is not None:
        _void(result, previous[-1:])
        readings = [previous[-1].display] + [c.display for c in commands]
        readings += list(unread.candidates)
        words = set(tokens(text))
        if unread.suggestion and not unread.ambiguous and set(
                unread.suggestion.lower().split()[1:]) <= words:
            readings.append(unread.suggestion)  # "but actually 1 is better": VOTE 1
        reason = R.CHANGED_MIND(cmd=previous[-1].display, reason=unread.reason)
        result.not_understood.append(ask_which(unit.line, reason, readings)
                                     if len(set(readings)) > 1 else
                                     NotUnderstood(unit.line, reason, unread.suggestion))
        return True
    if commands:
        assert targets is not None
        if len(commands) == 1 and len(targets) == 1 and _keyword_of(
                commands[0]) == _keyword_of(targets[0]) and _arity(
                commands[0].text) != _arity(targets[0].text) and not _has_verb(text):
            _void(result, targets)  # "view 1 2, no wait, 4": VIEW 4 or VIEW 1 4?
            result.not_understood.append(ask_which(
                unit.line, R.WHICH_PART(),
                [targets[0].display, commands[0].display]))
            return True
        _void(result, targets)
        return add(result, [(p, _marked(o, targets[-1])) for p, o in read])
    # Nothing in its place: the command before is taken back (several: all of them).
    taken_back = previous if len(previous) > 1 else previous[-1:]
    for command in taken_back:  # listed as taken back, not as ignored
        result.understood.remove(command)
    result.retracted.extend(Retracted(u.line, u.display, marker) for u in taken_back)
    return add(result, read)


def _targets(previous: list[Understood], commands: list[Understood]) -> list[Understood] | None:
    """Which earlier commands the new ones replace: the one before, or the one of the same
    verb when several came before; None when that cannot be told."""
    if len(previous) == 1:
        return previous
    verbs = {c.text.split()[0] for c in commands}
    same = [p for p in previous if p.text.split()[0] in verbs]
    return same[-1:] if len(same) == 1 else None


def _void(result: ReplyResult, commands: list[Understood]) -> None:
    """Take ``commands`` out of what is applied (their lines are listed as ignored)."""
    for command in commands:
        result.understood.remove(command)
        result.ignored.append(command.line)


def _marked(outcome: Outcome, replaced: Understood | None) -> Outcome:
    """A command read after a marker, noted as replacing ``replaced``."""
    return _noted(outcome, replaced.display if replaced is not None else None)


def _noted(outcome: Outcome, replaced: str | None) -> Outcome:
    """``outcome`` with "instead of ``replaced``" in its note (when it is a command)."""
    if not isinstance(outcome, Understood):
        return outcome
    note = R.INSTEAD_OF(cmd=replaced) if replaced else None
    notes = (R.joined([outcome.note, note]) if outcome.note and note else outcome.note or note)
    return replace(outcome, note=notes)
