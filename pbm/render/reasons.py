"""Why something was refused or not understood, in the reader's language (issue 24).

The reply parser (``pbm.replies``), the inbound pipeline (``pbm.inbound.applying``) and the
engine (``engine.legal._why``, ``engine.rules``, ``engine.commands``) write their reasons in
English; those sentences are stored with the reply's outcome and read again when the answer
is rendered. English readers get them byte for byte. For another reader each reason is
matched against :data:`REASONS` (a pattern of the English sentence -> its message id in the
catalogue, the parts that vary carried over as placeholders) and said in the reader's
language; a reason no pattern knows is never shown in English to a Korean reader, but as
:data:`UNKNOWN`. The engine never learns of this: a new engine sentence is one row here
(``tests/pbm/test_i18n_reasons.py`` fails on one that has none).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from pbm.i18n import glossary
from pbm.i18n.translate import N_, _, current
from pbm.render.names import command_words, title_label

#: A reason no pattern knows, for a reader who does not read English.
UNKNOWN = N_("that cannot be done now")

_UNKNOWN_ZONE = N_("'{value}' is not a time zone we know. Send a city, a zone or an offset "
                   "(e.g. {example}).")
#: Examples for rows whose English names none (commands a Korean player types in English).
_EXAMPLES = {_UNKNOWN_ZONE: "ZONE Seoul, ZONE Asia/Seoul, ZONE UTC+9"}

#: An argument kind the parser did not expect (``unexpected number 3``).
_KINDS = {"number": N_("number"), "seat": N_("player"), "ship": N_("ship"),
          "hold": N_("hold"), "symbol": N_("symbol")}
#: What a command misses or must be (``engine.commands``: ``missing position``).
_WHATS = {"position": N_("position"), "positions": N_("positions"), "player": N_("player"),
          "seat": N_("seat"), "card": N_("card"), "cards": N_("cards"), "ship": N_("ship"),
          "hold": N_("hold"), "choice": N_("choice"), "Vote card": N_("Vote card"),
          "number": N_("number"), "an Event card position": N_("an Event card position"),
          "a seat number": N_("a seat number"), "a card number": N_("a card number"),
          "card numbers": N_("card numbers")}


def _cmd(text: str) -> str:
    """A command (or "A or B") in the reader's words."""
    return " / ".join(command_words(part) for part in text.split(" or "))


def _what(text: str) -> str:
    return _(_WHATS[text]) if text in _WHATS else _cmd(text)


def _bound(text: str) -> str:
    """``1..5`` -> "1~5"; ``at least 1`` -> "1 or more" in the reader's words."""
    if text.startswith("at least "):
        return _("{n} or more").format(n=text.removeprefix("at least "))
    return text.replace("..", "~")


def _kind(text: str) -> str:
    return _(_KINDS.get(text, text))


def _card(text: str) -> str:
    return title_label(text.upper().replace(" ", "_").replace("'", ""))


def _value(text: str) -> str:
    """What the player wrote, as the engine quotes it (``'x'``): the words without quotes."""
    return text.strip("'\"")


def _names(text: str) -> str:
    return " / ".join(text.split(" or "))


def _keep(text: str) -> str:
    return text


#: (English pattern, message id, converters of the groups). A group's converter says the
#: English part in the reader's words: ``reason`` (another reason, e.g. nested in a change of
#: mind), ``cmd`` (a command), ``kind`` / ``what`` (a word of the parser), else kept as is
#: (numbers, names, the player's own words).
_TABLE: list[tuple[str, str]] = [
    # The reply parser (pbm.replies)
    (r"unexpected word '(?P<word>.*)'", N_("the word '{word}' is not understood here")),
    (r"unexpected (?P<kind>number|seat|ship|hold|symbol) (?P<value>.+)",
     N_("this {kind} is not expected here: {value}")),
    (r"there is no seat (?P<n>\d+)", N_("there is no seat {n}")),
    (r"there is no seat (?P<n>\d+) in this game", N_("there is no seat {n} in this game")),
    (r"(?P<cmd>\S+) needs one player \(name or seat number\)",
     N_("{cmd} needs one player (a name or a seat number)")),
    (r"you hold no Vote card with that symbol", N_("you hold no Vote card with that symbol")),
    (r"(?P<cmd>\S+) takes one or two numbers", N_("{cmd} takes one or two numbers")),
    (r"you have no Vote card (?P<n>\d+) \(you hold (?P<hand>.+)\)",
     N_("you have no Vote card {n} (you hold {hand})")),
    (r"(?P<cmd>\S+) takes one position \(1 to 5\)", N_("{cmd} takes one position (1 to 5)")),
    (r"FORCE takes two positions and a player",
     N_("{cmd} takes two positions and a player")),
    (r"MARQUE takes a player and a ship \(FD or JR\)",
     N_("{cmd} takes a player and a ship (FD or JR)")),
    (r"you are on Tortuga already", N_("you are on Tortuga already")),
    (r"ROW takes at most one ship", N_("{cmd} takes at most one ship")),
    (r"BOARD takes you aboard your rowboat's ship \((?P<cmd>.+)\)",
     N_("boarding takes you aboard your rowboat's own ship ({cmd})")),
    (r"(?P<cmd>\S+) takes BRITISH or FRENCH", N_("{cmd} takes a hold: British or French")),
    (r"TAKE takes TO BRITISH / TO FRENCH \(or FROM-hold TO hold\)",
     N_("{cmd} takes the hold to take the treasure into: British or French")),
    (r"you changed your mind about (?P<cmd>.+) but we could not tell what you want instead "
     r"\((?P<reason>.+)\): say which",
     N_("you changed your mind about {cmd} but we could not tell what you want instead "
        "({reason}): say which")),
    (r"not a command", N_("not a command")),
    (r"nothing is awaited from you now, so a number means nothing",
     N_("nothing is awaited from you now, so a number means nothing")),
    (r"there is no option (?P<n>\d+)", N_("there is no option {n}")),
    (r"option (?P<n>\d+) \((?P<cmd>.+)\) takes no more words",
     N_("option {n} ({cmd}) takes no more words")),
    (r"option (?P<n>\d+) needs more: (?P<cmd>.+)", N_("option {n} needs more: {cmd}")),
    (r"option (?P<n>\d+) is not (?P<cmd>.+)", N_("option {n} is not {cmd}")),
    (r"STOP takes no more words", N_("{cmd} takes no more words")),
    (r"SAY needs the words to say", N_("{cmd} needs the words to say")),
    (r"SAY needs some text after it", N_("{cmd} needs the words to say")),
    (r"that reads as a question, so nothing was done; to do it, reply (?P<cmd>.+)",
     N_("that reads as a question, so nothing was done; to do it, reply {cmd}")),
    (r"that answers table talk, not your menu, so nothing was played; to play it, reply "
     r"(?P<cmd>.+)", N_("that answers table talk, not your menu, so nothing was played; to "
                        "play it, reply {cmd}")),
    (r"(?P<cmd>[A-Z]+) takes ON or OFF", N_("{cmd} takes ON or OFF")),
    (r"(?P<cmd>[A-Z]+) needs more", N_("{cmd} needs more")),
    (r"that is not said plainly", N_("that is not said plainly")),
    (r"that corrects one of several commands, but not which",
     N_("that corrects one of several commands, but not which")),
    (r"that changes part of the command, but not which part",
     N_("that changes part of the command, but not which part")),
    (r"'(?P<word>.+)' could be (?P<names>.+): say which",
     N_("'{word}' could be {names}: say which")),
    (r"that fits more than one of your Vote cards: say which",
     N_("that fits more than one of your Vote cards: say which")),
    (r"that could mean (?P<cmd>.+)", N_("that could mean {cmd}")),
    (r"that gives two different commands", N_("that gives two different commands")),
    (r"'(?P<word>.+)' could be position (?P<n>\d+) or the (?P<other>.+) of the two cards "
     r"offered", N_("'{word}' could be position {n} or the {other} of the two cards offered")),
    # The engine's command reader (engine.commands)
    (r"cannot parse '(?P<cmd>.+)': (?P<reason>.+)", N_("{cmd} could not be read: {reason}")),
    (r"missing (?P<what>.+)", N_("missing: {what}")),
    (r"(?P<what>.+) must be a number, got (?P<value>.+)",
     N_("{what} must be a number, not {value}")),
    (r"(?P<what>.+) must be a small number, got (?P<value>.+)",
     N_("{what} must be a small number, not {value}")),
    (r"(?P<what>.+) must be (?P<bound>\d+\.\.\d+|at least \d+), got (?P<value>.+)",
     N_("{what} must be {bound}, not {value}")),
    (r"expected BRITISH or FRENCH, got (?P<value>.+)",
     N_("a hold is needed (British or French), not {value}")),
    (r"expected FD or JR, got (?P<value>.+)", N_("a ship is needed (FD or JR), not {value}")),
    (r"the (?P<what>.+) must be different", N_("the {what} must be different")),
    (r"expected SHIFT TO BRITISH or SHIFT TO FRENCH",
     N_("say which hold the treasure goes to: British or French")),
    (r"expected TAKE (?:TO <hold> or TAKE )?<hold> TO <hold>",
     N_("say which hold the treasure goes to: British or French")),
    (r"empty command", N_("empty command")),
    (r"unknown command (?P<value>.+)", N_("unknown command {value}")),
    # The engine's refusals (engine.rules, engine.legal._why)
    (r"the game is over(?:; .+ was not applied)?", N_("the game is over")),
    (r"there is no face-down Event card at position (?P<n>\d+)",
     N_("there is no face-down Event card at position {n}")),
    (r"VIEW needs two positions while two or more cards are face down",
     N_("{cmd} needs two positions while two or more cards are face down")),
    (r"you cannot force yourself", N_("you cannot force yourself")),
    (r"FORCE needs two face-down cards", N_("{cmd} needs two face-down cards")),
    (r"you are already in a rowboat", N_("you are already in a rowboat")),
    (r"from a ship, ROW takes no ship: you row to your own ship's rowboat",
     N_("from a ship you row to your own ship's rowboat: name no ship")),
    (r"from Tortuga, say which rowboat: (?P<cmd>ROW FD or ROW JR)",
     N_("from Tortuga, say which rowboat: {cmd}")),
    (r"that rowboat is occupied", N_("that rowboat is occupied")),
    (r"you are not in a rowboat", N_("you are not in a rowboat")),
    (r"that ship already has 5 pawns", N_("that ship already has 5 pawns")),
    (r"only a ship's Captain may do that", N_("only a ship's Captain may do that")),
    (r"the Captain may maroon only another pawn on his own ship",
     N_("the Captain may maroon only another pawn on his own ship")),
    (r"only a ship's First Mate may call a Mutiny",
     N_("only a ship's First Mate may call a Mutiny")),
    (r"only the Governor of Tortuga may call a Brawl",
     N_("only the Governor of Tortuga may call a Brawl")),
    (r"only a ship's Cabin Boy may move treasure between its holds",
     N_("only a ship's Cabin Boy may move treasure between its holds")),
    (r"the other hold is empty", N_("the other hold is empty")),
    (r"you need a Treasure Map given before this turn, a place on a ship and treasure on the "
     r"Galleon", N_("you need a Treasure Map given before this turn, a place on a ship and "
                    "treasure on the Galleon")),
    (r"you have no saved Letter of Marque", N_("you have no saved Letter of Marque")),
    (r"the target must be on Tortuga or in a rowboat, and the ship must have room",
     N_("the target must be on Tortuga or in a rowboat, and the ship must have room")),
    (r"you hold (?P<n>\d+) Vote cards?; two cards need an unused El Dorado",
     N_("you hold {n} Vote cards; two cards need an unused El Dorado")),
    (r"the hand voted from held (?P<n>\d+) Vote card\(s\); two cards need an unused El Dorado",
     N_("you voted from {n} Vote cards; two cards need an unused El Dorado")),
    (r"that is already your vote", N_("that is already your vote")),
    (r"someone is on Tortuga or in a rowboat: use the Letter of Marque or SAVE it",
     N_("someone is on Tortuga or in a rowboat: use the Letter of Marque or save it")),
    (r"that is not one of the offered choices", N_("that is not one of the offered choices")),
    (r"the rules do not allow it now", N_("the rules do not allow it now")),
    (r"(?P<who>.+) does not own Atlantis", N_("you do not own Atlantis")),
    (r"the order is already standing", N_("the Atlantis order is already standing")),
    (r"(?:.+: )?nothing is awaited from .+ now", N_("nothing is awaited from you now")),
    (r".+ answers [A-Z_]+(?: or [A-Z_]+)*, but .+ is asked for [A-Z_]+",
     N_("that is not what is asked of you now")),
    (r"(?P<cmd>.+): .+ has no answer in an open vote to change",
     N_("{cmd}: you have no vote in an open vote to change")),
    (r"(?P<cmd>[A-Z]+\b[^:]*) is not allowed: (?P<reason>.+)",
     N_("{cmd} is not allowed: {reason}")),
    # How a line was read (the notes of an understood line, "; " between them)
    (r"read '(?P<word>.+)' as position (?P<n>\d+)", N_("read '{word}' as position {n}")),
    (r"read '(?P<word>.+)' as (?P<cmd>.+)", N_("read '{word}' as {cmd}")),
    (r"option (?P<n>\d+)", N_("option {n}")),
    (r"instead of (?P<cmd>.+)", N_("instead of {cmd}")),
    # Settings (pbm.player_settings): their commands stay English, as the player types them
    (r"(?P<cmd>ZONE) needs a place or an offset, e\.g\. (?P<example>.+)",
     N_("{cmd} needs a place or an offset, e.g. {example}")),
    (r"(?P<value>.+) is not a UTC offset: offsets run from (?P<example>UTC-12 to UTC\+14)",
     N_("{value} is not a UTC offset: offsets run from {example}")),
    (r"'(?P<value>.+)' is not a time zone I know\.(?: Did you mean ZONE .+\?)? Send "
     r"a city .+", _UNKNOWN_ZONE),
    (r"no time zone has the offset (?P<value>.+); send a city instead \((?P<example>.+)\)",
     N_("no time zone has the offset {value}; send a city instead ({example})")),
    (r"(?P<cmd>QUIET) takes two whole hours of your day, e\.g\. (?P<example>QUIET 23-07) .+",
     N_("{cmd} takes two whole hours of your day, e.g. {example}")),
    (r"(?P<cmd>QUIET) needs two different hours, e\.g\. (?P<example>.+)",
     N_("{cmd} needs two different hours, e.g. {example}")),
    (r"(?P<cmd>AWAY) lasts from an hour to 60 days", N_("{cmd} lasts from an hour to 60 days")),
    (r"(?P<cmd>AWAY) takes a length or a day: (?P<example>.+) \(BACK when you are back\)",
     N_("{cmd} takes a length or a day: {example}")),
    (r".+ has already begun; send (?P<example>AWAY 2 days) or a later day",
     N_("that day has already begun; send {example} or a later day")),
    (r"(?P<cmd>[A-Z]+) takes ON or OFF, e\.g\. (?P<example>.+)",
     N_("{cmd} takes ON or OFF, e.g. {example}")),
    (r"(?P<cmd>VIA) takes EMAIL, SMS or BOTH, e\.g\. (?P<example>.+)",
     N_("{cmd} takes EMAIL, SMS or BOTH, e.g. {example}")),
    (r"you have no phone number with us; ask the organiser to add it, then send "
     r"(?P<example>.+)", N_("you have no phone number with us; ask the organiser to add it, "
                            "then send {example}")),
    (r"you have no email address with us; ask the organiser to add it, then send "
     r"(?P<example>.+)", N_("you have no email address with us; ask the organiser to add it, "
                            "then send {example}")),
    (r"(?P<cmd>LANG) takes EN or KO, .+", N_("{cmd} takes EN or KO, e.g. {example}")),
    (r"(?P<value>.+) is not a setting; send SETTINGS to see them all",
     N_("{value} is not a setting; send {example} to see them all")),
    # The service (pbm.inbound.applying, pbm.replies.changes, pbm.games)
    (r"that question was settled before your reply came in, so nothing was played",
     N_("that question was settled before your reply came in, so nothing was played")),
    (r"the game has not started yet", N_("the game has not started yet")),
    (r"not tried after the command before it failed",
     N_("not tried after the command before it failed")),
    (r"you took it back \(\"(?P<word>.+)\"\), so it was not played",
     N_("you took it back (\"{word}\"), so it was not played")),
    (r"not relayed: at most (?P<n>\d+) SAY lines per reply and (?P<m>\d+) per hour reach the "
     r"table", N_("not relayed: at most {n} table talk lines per reply and {m} per hour reach "
                  "the table")),
    (r"a move once applied is final \(no take-backs\), and there is nothing else to cancel; "
     r"to stop text messages, text STOP",
     N_("a move once applied is final (no take-backs), and there is nothing else to cancel; "
        "to stop text messages, text {stop}")),
    (r"STOP by email changes nothing: to stop text messages, text STOP from your phone; to "
     r"pause your deadlines, reply AWAY 3 days; to leave the game, write to the organiser",
     N_("{stop} by email changes nothing: to stop text messages, text {stop} from your phone; "
        "to pause your deadlines, reply {away}; to leave the game, write to the organiser")),
    (r"the vote had already closed when your reply came in: your vote counted as you first "
     r"played it; nothing was changed",
     N_("the vote had already closed when your reply came in: your vote counted as you first "
        "played it; nothing was changed")),
    (r"you have no phone number with us; STOP and START are about text messages",
     N_("you have no phone number with us; {stop} and {start} are about text messages")),
    (r"your (?P<cmd>.+) was already played and is final \(a turn action cannot be changed "
     r"once it is applied\); nothing was changed",
     N_("your {cmd} was already played and is final (a turn action cannot be changed once it "
        "is applied); nothing was changed")),
    (r"(?P<reason>.+); nothing was changed", N_("{reason}; nothing was changed")),
    (r"that answers a question that is already closed(?:; .*)?",
     N_("that answers a question that is already closed")),
    (r"no seat (?P<n>\d+) in .+", N_("there is no seat {n} in this game")),
    (r".+ is (?P<status>\w+): nobody is listening", N_("the game is not running now")),
    (r".+ has already (?P<status>.+); nothing to answer",
     N_("the game has already started or ended; nothing to answer")),
]

#: What a pattern's fixed English names (the command it speaks of), for the ``{cmd}``,
#: ``{stop}`` and ``{start}`` placeholders of rows that have no such group.
_FIXED_CMD = re.compile(r"^(?:\(\?P<\w+>[^)]*\))?([A-Z]{3,})\b")

_CONVERT: dict[str, Callable[[str], str]] = {
    "cmd": _cmd, "kind": _kind, "what": _what, "card": _card, "names": _names,
    "bound": _bound, "value": _value}


@cache
def _compiled() -> list[tuple[re.Pattern[str], str, str]]:
    out = []
    for pattern, msgid in _TABLE:
        fixed = _FIXED_CMD.match(pattern)
        out.append((re.compile(pattern + r"\.?"), msgid, fixed.group(1) if fixed else ""))
    return out


def match(reason: str) -> tuple[str, dict[str, str]] | None:
    """(message id, English groups) of the first row whose pattern is the whole ``reason``."""
    text = reason.strip()
    for pattern, msgid, fixed in _compiled():
        found = pattern.fullmatch(text)
        if found:
            groups = {k: v for k, v in found.groupdict().items() if v is not None}
            if fixed and "cmd" not in groups:
                groups["cmd"] = fixed
            return msgid, groups
    return None


_SYMBOLS_EN = {"Cannon": "CANNON", "Torch": "TORCH", "Water": "WATER", "Skull": "SKULL",
               "Helm": "HELM", "British": "BRITISH", "French": "FRENCH"}


def _vote_card(text: str) -> str:
    """``Cannon / British / Skull`` (``pbm.replies.changes``) in the reader's words."""
    def word(part: str) -> str:
        count, _sp, name = part.strip().rpartition(" ")
        key = _SYMBOLS_EN.get(name)
        said = glossary.term("symbols", key, "ko") if key else name
        return f"{said} {count}" if count else said

    return " / ".join(word(p) for p in text.split("/"))


def say_done(text: str) -> str:
    """A line of what was done in the reader's words: a changed vote ("Your vote is now card
    3 (Cannon / British / Skull)") is a sentence; a command is shown as it is (the templates
    say commands in the reader's words)."""
    if current() == "en":
        return text
    found = re.fullmatch(r"Your vote is now (.+)", text)
    if not found:
        return text
    cards = [_("card {n} ({symbols})").format(n=n, symbols=_vote_card(symbols))
             for n, symbols in re.findall(r"card (\d+) \(([^)]*)\)", found.group(1))]
    return _("Your vote is now {cards}").format(cards=_(" and ").join(cards))


def say_note(note: str) -> str:
    """How a line was read (``read 'revael' as REVEAL; option 2``) in the reader's words."""
    if current() == "en" or not note:
        return note
    return "; ".join(say_reason(part) for part in note.split("; "))


def say_reason(reason: str) -> str:
    """``reason`` (an English sentence of the parser, the engine or the service) in the
    current reader's language: unchanged for English."""
    if current() == "en" or not reason:
        return reason
    found = match(reason)
    if found is None:
        return _(UNKNOWN)
    msgid, groups = found
    words = {}
    for key, value in groups.items():
        if key == "reason":
            words[key] = say_reason(value)
        else:
            words[key] = _CONVERT.get(key, _keep)(value)
    words.setdefault("stop", command_words("STOP"))
    words.setdefault("start", command_words("START"))
    words.setdefault("away", _("AWAY 3 days"))
    words.setdefault("cmd", "")
    words.setdefault("example", _EXAMPLES.get(msgid) or {"LANG": "LANG KO / LANG EN"}.get(
        groups.get("cmd", ""), "SETTINGS"))
    return _(msgid).format(**words)
