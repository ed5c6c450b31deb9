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

The parser's parts, lowest first: ``parse_types`` (context, results), ``name_match``,
``arguments`` (one verb's arguments), ``keywords`` (a keyword's readings, menu picks,
suggestions), ``sentence`` (one piece of a line); this module splits lines into pieces and
re-exports the names callers use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from pbm.replies import reasons as R
from pbm.replies.corrections import Outcome, correct, has_words, reply_units
from pbm.replies.decisions import one_reading_per_decision
from pbm.replies.keywords import ask_which, menu_pick, suggest, understood_as
from pbm.replies.menu import find_option
from pbm.replies.native import to_english_lines
from pbm.replies.parse_types import Meta, NotUnderstood, ParseContext, ReplyResult, Understood
from pbm.replies.sentence import (
    NO_VERB,
    SAY_LIMIT,
    SAY_RE,
    invitation_answer,
    parse_line,
    verb_start,
)
from pbm.replies.settings_words import read_setting
from pbm.replies.words import COURTESY_RE, LEADING_FILLER, SEQUENCE_WORDS, fold, name_key, tokens

__all__ = [
    "SAY_LIMIT",
    "Meta",
    "NotUnderstood",
    "ParseContext",
    "ReplyResult",
    "Understood",
    "parse_line",
    "parse_lines",
    "parse_text",
    "split_commands",
    "suggest",
]


_SPLIT_RE = re.compile(
    r"\s*(?:;|,|\bthen\b|\band\b|\bbut\b|&|\+|\s/\s|\s[-\u2013\u2014]+\s|(?P<stop>[.!?]+)(?=\s))\s*",
    re.IGNORECASE)


def _starts_setting(rest: str) -> bool:
    """True if ``rest`` reads as a setting (``QUIET 23-07`` after ``ZONE Paris;``)."""
    return isinstance(read_setting(rest), Meta)


def split_commands(line: str) -> list[str]:
    """One line -> the commands in it: a new piece starts at a verb after ; , . then and.

    A full stop, "!" or "?" stays with the piece before it (a question is not an order).
    """
    if SAY_RE.match(line.strip()):
        return [line]
    cuts = [0]
    for match in _SPLIT_RE.finditer(line):
        if match.start() <= cuts[-1]:
            continue
        toks = tokens(line[match.end():])
        if not toks or (verb_start(toks) is None
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
    return own is not None and bool(own) and bool(key) and key in (
        name_key(own), name_key(own.split()[0]))


def _without_self_introduction(line: str, ctx: ParseContext) -> str:
    """"Cleo here: VOTE 2", "it's Cleo - vote 2" -> "VOTE 2" (the sender's own name)."""
    own = ctx.names.get(ctx.seat) if ctx.seat is not None else None
    match = _INTRO_RE.match(line)
    if not own or not match:
        return line
    if name_key(match.group("name")) not in (name_key(own), name_key(own.split()[0])):
        return line
    return line[match.end():] or line


_INTRO_RE = re.compile(
    r"^\s*(?:(?:hi|hey|hello|yo)[\s,!]+)?(?:it'?s\s+|this\s+is\s+)?"
    r"(?P<name>[^\W\d_][\w'-]*)"
    r"(?:\s+(?:here|speaking)[\s:,!.\-\u2013\u2014]*|\s*[:,.!\-\u2013\u2014]+\s*)",
    re.IGNORECASE)


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
        return ask_which(line, R.OPTION_IS_NOT(n=number, cmd=option.display),
                         [option.display] + ([other.display] if other else []))
    if option.is_template:
        return menu_pick(line, [str(option.number)], ctx)
    return understood_as(line, option.command, ctx, R.OPTION(n=option.number))


def _read_line(line: str, ctx: ParseContext, after_command: bool) -> list[tuple[str, Outcome]]:
    """One line (or correction unit) -> its pieces, each with what it was read as."""
    line = _without_self_introduction(line, ctx)
    if _is_courtesy(line, ctx):
        return [(line, None)]
    pasted: Outcome = _pasted_menu_line(line, ctx)
    if pasted is None and ctx.invited and ctx.seat is None:
        pasted = invitation_answer(tokens(line), line)
    pieces = [line] if pasted is not None else split_commands(line)
    read: list[tuple[str, Outcome]] = []
    for piece in pieces:
        outcome = pasted if pasted is not None else parse_line(piece, ctx)
        if isinstance(outcome, NotUnderstood) and outcome.reason == NO_VERB \
                and after_command:
            outcome = None  # after a command, a line without one is a signature's
        after_command = after_command or isinstance(outcome, Understood | Meta)
        read.append((piece, outcome))
        if isinstance(outcome, NotUnderstood):
            read += [(p, None) for p in pieces[len(read):]]
            break
    return read


def _add(result: ReplyResult, read: list[tuple[str, Outcome]]) -> bool:
    """Sort read pieces into ``result``; True when a piece was not understood (the reading
    stops there: the pieces after it are ignored)."""
    for index, (piece, outcome) in enumerate(read):
        if outcome is None:  # chatter: no verb, number or name in it
            result.ignored.append(piece)
            result.unread.append(piece)
        elif isinstance(outcome, Understood):
            result.understood.append(outcome)
        elif isinstance(outcome, Meta):
            result.meta.append(outcome)
        else:
            result.not_understood.append(outcome)
            result.ignored.extend(p for p, _ in read[index + 1 :])
            result.unread.extend(p for p, _ in read[index + 1 :])
            return True
    return False


def parse_lines(lines: Sequence[str], ctx: ParseContext) -> ReplyResult:
    """Sort a reply's lines into understood, meta, not understood, retracted and ignored.

    Lines are read top to bottom. Greetings, sign-offs and chatter (lines with no command
    word, number or name in them, sentences that merely start with a verb-ish word, and
    what the player says they will not do) are ignored. The first line that looks like a
    command but is not understood, or is ambiguous, is reported (with a suggestion, or every
    reading it fits); it and every line after it change nothing, and the lines after it are
    listed as ignored. A correction ("REVEAL 2, no wait, 4") replaces the command before
    it; a command taken back with nothing in its place is retracted (see
    ``pbm.replies.corrections``); when it is unclear which the player wants, nothing is
    applied and the player is asked.
    """
    written = list(lines)
    lines = to_english_lines(written, ctx.names, invited=ctx.invited and ctx.seat is None)
    # A rewritten (Korean) line is told back as the player wrote it, never as its English
    # reading ("3번 공개했나?", not "REVEAL 3?").
    as_written = {new.strip(): old.strip() for old, new in zip(written, lines, strict=True)
                  if new != old and new.strip()}
    result = _parse_units(lines, ctx)
    if as_written:
        _restore_lines(result, as_written)
    return result


def _restore_lines(result: ReplyResult, as_written: dict[str, str]) -> None:
    """Every ``line`` of ``result`` that is a rewritten line: the line as written."""
    def written(line: str) -> str:
        parts = line.strip().split(" / ")  # lines joined by pbm.replies.decisions
        if len(parts) > 1 and any(p in as_written for p in parts):
            return " / ".join(as_written.get(p, p) for p in parts)
        return as_written.get(line.strip(), line)

    for name in ("understood", "meta", "not_understood", "retracted"):
        items = getattr(result, name)
        items[:] = [replace(item, line=written(item.line))
                    if written(item.line) != item.line else item for item in items]
    result.ignored[:] = [as_written.get(line.strip(), line) for line in result.ignored]


def _parse_units(lines: Sequence[str], ctx: ParseContext) -> ReplyResult:
    result = ReplyResult()
    units = reply_units(lines, enabled=not (ctx.invited and ctx.seat is None))
    stopped = failed = False  # failed: the unit just before stopped the reading
    marker: str | None = None  # a marker alone at the end of the unit before ("no wait")
    for unit in units:
        if marker and not unit.correction and unit.text.strip():
            unit = replace(unit, marker=marker)  # "REVEAL 2 / no wait / REVEAL 3"
        if unit.correction or has_words(unit.text):  # a blank line keeps it
            marker = unit.marker if unit.correction and not has_words(unit.text) else None
        if unit.carry_only:
            continue  # "VOTE 2, actually" + a next line: that line is the correction
        if stopped and not (unit.correction and failed):
            if unit.text.strip():
                result.ignored.append(unit.text.strip())
                result.unread.append(unit.text.strip())
            failed = False
            continue
        if unit.correction:
            stopped = correct(result, unit, ctx, failed=failed, read_line=_read_line,
                              add=_add)
        elif unit.text.strip():
            stopped = _add(result, _read_line(unit.text, ctx,
                                              bool(result.understood or result.meta)))
        failed = stopped
    one_reading_per_decision(result, ctx)
    if any(n.ambiguous for n in result.not_understood):
        # An ambiguous line voids the whole reply: the player is asked, nothing is applied.
        result.ignored[:0] = [u.line for u in result.understood]
        result.understood.clear()
    return result


def parse_text(text: str, ctx: ParseContext) -> ReplyResult:
    """The player's new text -> a ReplyResult."""
    return parse_lines(text.split("\n"), ctx)
