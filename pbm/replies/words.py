"""The vocabulary of the forgiving parser: synonyms, filler words, numbers, ships, holds."""

from __future__ import annotations

import re
import unicodedata

from anyascii import anyascii

#: Player words -> the command keywords they may mean, most likely first. The parser takes
#: the first reading whose arguments fit and, among those, prefers one that is legal now.
VERBS: dict[str, tuple[str, ...]] = {
    # turn actions
    "view": ("VIEW",), "look": ("VIEW",), "peek": ("VIEW",), "peak": ("VIEW",),
    "see": ("VIEW",), "inspect": ("VIEW",), "spy": ("VIEW",), "check": ("VIEW",),
    "examine": ("VIEW",), "watch": ("VIEW",),
    "reveal": ("REVEAL",), "flip": ("REVEAL",), "open": ("REVEAL",), "turn": ("REVEAL",),
    "uncover": ("REVEAL",), "show": ("REVEAL",),
    "force": ("FORCE",), "make": ("FORCE",),
    "row": ("ROW",), "rowboat": ("ROW",),
    "board": ("BOARD",), "embark": ("BOARD",), "climb": ("BOARD",),
    "land": ("LAND",), "disembark": ("LAND",), "ashore": ("LAND",),
    "attack": ("ATTACK",), "raid": ("ATTACK",), "plunder": ("ATTACK",),
    "maroon": ("MAROON",), "kick": ("MAROON",), "throw": ("MAROON",),
    "mutiny": ("MUTINY",),
    "shift": ("SHIFT",),
    "brawl": ("BRAWL",), "fight": ("BRAWL",),
    "marque": ("MARQUE",), "letter": ("MARQUE",), "lom": ("MARQUE",),
    "map": ("MAP",),
    "move": ("ROW", "LAND", "BOARD", "SHIFT", "MARQUE"),
    "go": ("ACCEPT", "LAND", "ROW", "BOARD"),
    # answers
    "save": ("SAVE",), "keep": ("SAVE",),
    "vote": ("VOTE",), "play": ("VOTE",),
    "choose": ("CHOOSE", "VOTE"), "pick": ("CHOOSE", "VOTE"), "select": ("CHOOSE", "VOTE"),
    "chose": ("CHOOSE", "VOTE"),
    "shoot": ("SHOOT",), "pistol": ("SHOOT",), "shot": ("SHOOT",),
    "give": ("GIVE",), "hand": ("GIVE",),
    "take": ("TAKE",), "steal": ("TAKE",), "grab": ("TAKE",),
    "place": ("PLACE",), "put": ("PLACE",),
    "fountain": ("FOUNTAIN",), "stay": ("FOUNTAIN",),
    "accept": ("ACCEPT",),
    "atlantis": ("ATLANTIS",),
}

#: Player words -> meta command (no effect on the game).
META: dict[str, str] = {
    "help": "HELP", "?": "HELP", "commands": "HELP", "rules": "HELP", "hilfe": "HELP",
    "aide": "HELP", "ayuda": "HELP",
    "status": "STATUS", "state": "STATUS", "info": "STATUS", "where": "STATUS",
    "say": "SAY", "tell": "SAY", "chat": "SAY", "msg": "SAY",
    "log": "LOG", "history": "LOG", "recap": "LOG",
    "join": "JOIN",
    "decline": "DECLINE",
    "stop": "STOP", "unsubscribe": "STOP", "stopall": "STOP", "cancel": "STOP",
    "quit": "STOP", "end": "STOP",
    "start": "START", "unstop": "START", "resume": "START",
}

#: Canonical keywords of every game command (the engine's language).
KEYWORDS = frozenset(k for ks in VERBS.values() for k in ks)
META_KEYWORDS = ("HELP", "STATUS", "SAY", "LOG", "JOIN", "DECLINE", "STOP", "START")

def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Words ignored before the verb ("please reveal 3", "I'll reveal 3").
LEADING_FILLER = _words(
    "i ill i'll id i'd im i'm will want wanna to please pls plz ok okay k lets let's let me we "
    "gonna going would like shall now then and so um uh hmm well alright right yes sure also "
    "action my next first second"
)

#: Words ignored among the arguments ("reveal card number 3", "row to the Jolly Roger").
FILLER = _words(
    "the a an card cards number numbers no nr num position positions pos spot spots slot "
    "slots and or with on at of in into to from hold holds area ship ships boat treasure "
    "treasures chest chests please pls plz now then thanks thx player seat event events "
    "galleon vote call for go get choose reveal pick between is as it my your his her their "
    "over up back crewmate onto aboard toward towards it's its option opt ok okay using use "
    "by"
)

NUMBER_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5,
    "6th": 6, "7th": 7, "8th": 8, "9th": 9,
}

SHIPS: dict[str, str] = {
    "fd": "FD", "dutchman": "FD", "flying": "FD", "dutch": "FD",
    "jr": "JR", "roger": "JR", "jolly": "JR",
}

HOLDS: dict[str, str] = {
    "british": "BRITISH", "brit": "BRITISH", "b": "BRITISH", "britain": "BRITISH",
    "english": "BRITISH", "uk": "BRITISH", "brits": "BRITISH", "gb": "BRITISH",
    "french": "FRENCH", "fr": "FRENCH", "f": "FRENCH", "france": "FRENCH", "fra": "FRENCH",
}

SELF_WORDS = frozenset({"me", "myself", "self", "i"})

#: Whole lines that are courtesy, not commands (ignored, never "not understood").
COURTESY_RE = re.compile(
    r"^(?:hi|hello|hey|hiya|howdy|dear|hallo|bonjour|hola|salut|moin|ahoy|yo|greetings|"
    r"thanks?|thank\s+you|thx|ty|ta|cheers|best|regards|kind\s+regards|best\s+regards|br|"
    r"yours|sincerely|arr+|arrr+|danke|merci|gracias|saludos|gr[üu](?:ß|ss)e|gruss|lg|mfg|"
    r"cordialement|bisous|xx+|x|ok|okay|cool|great|good\s+luck|gl|hf|love|all\s+the\s+best|"
    r"liebe\s+gr[üu](?:ß|ss)e|viele\s+gr[üu](?:ß|ss)e|bien\s+[àa]\s+vous|un\s+saludo)"
    r"(?:\s+(?:all|everyone|folks|team|pirates|mates|guys|again|a\s+lot|so\s+much))?"
    r"[\s,.!:;)(-]*$",
    re.IGNORECASE,
)

_QUOTES = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2013": "-", "\u2014": "-", "\u2212": "-", "\uff03": "#",
})


def fold(text: str) -> str:
    """Lower case, straight quotes, no accents, Latin letters (``anyascii``: a name read as
    "Dmitriy" in an SMS matches "Дмитрий"): the form words are compared in."""
    text = text.translate(_QUOTES)
    if not text.isascii():
        text = "".join(ch if ch.isascii() else anyascii(ch) or ch for ch in text)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.casefold()


_TOKEN_RE = re.compile(r"\d+(?:st|nd|rd|th)?|[^\W\d_]+(?:'[^\W\d_]+)?|\?", re.UNICODE)


def tokens(text: str) -> list[str]:
    """Folded word and number tokens; punctuation separates and is dropped."""
    return _TOKEN_RE.findall(fold(text))


def name_key(text: str) -> str:
    """A name in comparable form: folded, letters and digits only."""
    return "".join(ch for ch in fold(text) if ch.isalnum())


def number_of(token: str) -> int | None:
    """``"3"`` / ``"three"`` / ``"3rd"`` -> 3; anything else None."""
    if token.isdigit():
        return int(token)
    return NUMBER_WORDS.get(token)
