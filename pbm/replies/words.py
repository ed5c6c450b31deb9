"""The vocabulary of the forgiving parser: synonyms, filler words, numbers, ships, holds."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

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
    "go": ("ACCEPT", "LAND", "ROW", "BOARD"), "head": ("ACCEPT", "LAND", "ROW", "BOARD"),
    # answers
    "save": ("SAVE",), "keep": ("SAVE",),
    "discard": ("DISCARD",),
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
    "log": "LOG", "history": "LOG", "recap": "LOG", "news": "LOG",
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
    "action my next think guess suppose decided decide have must should could can may might "
    "just really definitely probably maybe perhaps gotta need we'll we'd i've us guys all "
    "everyone folks actually instead rather simply quickly time round finally therefore "
    "thus hence choice answer reply is am are be was going ah oh ahh yeah yep yup fine "
    "sounds good hi hello hey then"
)

#: Sequence words before a verb ("first, reveal 3"); before anything else they are numbers.
SEQUENCE_WORDS = _words("first firstly second secondly third then next finally after that")

#: Words that may follow a complete command without changing it ("ATTACK because ...").
TRAILING_OK = _words(
    "because cause cuz since as so if for i i'm i'll we it it's this that which but good "
    "thanks thank thx cheers please pls hope hoping fingers lol haha hehe wish just now then "
    "again too guys everyone all mates folks pirates and yarr arr arrr matey me you ok okay "
    "right already finally at last time round let's lets see sorry gl luck xd yo :) best "
    "regards love x xx xo in with while before after here there instead anyway too please"
)

#: A negation before the verb: the player says what they will NOT do ("not the mutiny").
NEGATIONS = _words(
    "not don't dont never won't wont shouldn't cant can't cannot didn't nicht kein keine pas "
    "nie niet nao"
)

#: The words that are the command keywords themselves (not looser synonyms).
KEYWORD_WORDS = frozenset(k.lower() for k in KEYWORDS)

#: Vote card symbols by the names players give them.
SYMBOLS: dict[str, str] = {
    "cannon": "CANNON", "cannons": "CANNON", "canon": "CANNON", "canons": "CANNON",
    "gun": "CANNON", "guns": "CANNON", "cannonball": "CANNON", "kanone": "CANNON",
    "torch": "TORCH", "torches": "TORCH", "fire": "TORCH", "flame": "TORCH", "flames": "TORCH",
    "fackel": "TORCH",
    "water": "WATER", "waters": "WATER", "wave": "WATER", "waves": "WATER", "bucket": "WATER",
    "skull": "SKULL", "skulls": "SKULL", "crossbones": "SKULL",
    "helm": "HELM", "helms": "HELM", "wheel": "HELM", "steering": "HELM", "rudder": "HELM",
    "british": "BRITISH", "brit": "BRITISH", "uk": "BRITISH", "union": "BRITISH",
    "french": "FRENCH", "fr": "FRENCH", "france": "FRENCH", "fleur": "FRENCH",
}

#: Whole replies to an invitation that mean yes / no.
INVITE_YES_RE = re.compile(
    r"^(?:(?:oh\s+)?(?:yes|yeah|yep|yup|yea|y|sure|ok|okay|k|absolutely|definitely|of\s+course|"
    r"count\s+me\s+in|i'?m\s+in|im\s+in|i\s+am\s+in|we'?re\s+in|in|sign\s+me\s+up|"
    r"let'?s\s+(?:play|go|do\s+it)|i'?d\s+love\s+to|love\s+to|happy\s+to(?:\s+join)?|"
    r"i'?ll\s+(?:join|play|be\s+there)|i\s+(?:accept|will\s+join|join)|accept(?:ed)?|"
    r"deal|why\s+not|aye(?:\s+aye)?|ja|jawohl|gerne|oui|volontiers|s[ií]|claro|vale|"
    r"no\s+problem|no\s+worries|sounds\s+(?:good|great|fun)|great|cool|awesome|"
    r"with\s+pleasure|certainly|gladly|yes\s+please|alright|all\s+right)\b)",
    re.IGNORECASE,
)
INVITE_NO_RE = re.compile(
    r"^(?:no|n|nope|nah|sorry|not\s+this\s+time|not\s+now|no\s+thanks?|no\s+thank\s+you|"
    r"i\s+(?:can'?t|cannot|won'?t)|can'?t\s+(?:make|join|play)|i'?ll\s+pass|pass|"
    r"count\s+me\s+out|i'?m\s+out|not\s+interested|i\s+decline|decline|nein|non|"
    r"leider\s+nicht|maybe\s+next\s+time|next\s+time|unfortunately|"
    r"(?:i'?ll|i\s+will|i'?m\s+going\s+to|i'?m\s+gonna|gonna|i\s+think\s+i'?ll|i'?d\s+better)"
    r"\s+(?:sit\s+(?:this|that)\s+(?:one\s+)?out|pass|skip\s+(?:this|it|that)|give\s+it\s+a\s+miss|"
    r"have\s+to\s+pass|bow\s+out)|"
    r"(?:i'?m\s+)?sitting\s+(?:this|that)\s+(?:one\s+)?out|not\s+for\s+me|i'?d\s+rather\s+not|"
    r"i\s+(?:have|need)\s+to\s+(?:pass|decline|skip)|i'?m\s+not\s+(?:playing|joining|in)|"
    r"i\s+don'?t\s+(?:want\s+to|wanna)\s+(?:play|join)|count\s+me\s+out)\b",
    re.IGNORECASE,
)

#: Words ignored among the arguments ("reveal card number 3", "row to the Jolly Roger").
FILLER = _words(
    "the a an card cards number numbers no nr num position positions pos spot spots slot "
    "slots and or with on at of in into to from hold holds area ship ships boat treasure "
    "treasures chest chests please pls plz now then thanks thx player seat event events "
    "galleon vote call for go get choose reveal pick between is as it my your his her their "
    "over up back crewmate onto toward towards it's its option opt ok okay using use "
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
    "br": "BRITISH", "bri": "BRITISH", "fre": "FRENCH", "frn": "FRENCH",
}

SELF_WORDS = frozenset({"me", "myself", "self", "i"})

#: Whole lines that are courtesy, not commands (ignored, never "not understood").
COURTESY_RE = re.compile(
    r"^(?:hi|hello|hey|hiya|howdy|dear|hallo|bonjour|hola|salut|moin|ahoy|yo|greetings|"
    r"thanks?|thank\s+you|thx|ty|ta|cheers|best|regards|kind\s+regards|best\s+regards|br|"
    r"yours|sincerely|arr+|arrr+|danke|merci|gracias|saludos|gr[üu](?:ß|ss)e|gruss|lg|mfg|"
    r"cordialement|bisous|xx+|x|ok|okay|cool|great|good\s+luck|gl|hf|love|all\s+the\s+best|"
    r"liebe\s+gr[üu](?:ß|ss)e|viele\s+gr[üu](?:ß|ss)e|bien\s+[àa]\s+vous|un\s+saludo|"
    r"take\s+care|see\s+(?:you|ya)(?:\s+(?:soon|later|all|tomorrow))?|land\s+ho|"
    r"fair\s+winds|good\s+game|gg|happy\s+sailing|yo\s+ho(?:\s+ho)?)"
    r"(?:\s+(?:all|everyone|folks|team|pirates|mates|guys|again|a\s+lot|so\s+much))?"
    r"[\s,.!:;)(-]*$",
    re.IGNORECASE,
)

_QUOTES = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2013": "-", "\u2014": "-", "\u2212": "-", "\uff03": "#",
})


@lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """Lower case, straight quotes, no accents, Latin letters (``anyascii``: a name read as
    "Dmitriy" in an SMS matches "Дмитрий"): the form words are compared in."""
    text = text.translate(_QUOTES)
    if not text.isascii():
        # Emoji and other pictographs are decoration ("🗡 shoot Carol", "vote 3 ✅"): a
        # space, never words (anyascii would spell "🔫" as ":gun:").
        text = "".join(" " if _is_pictograph(ch) else ch if ch.isascii() else
                       anyascii(ch) or ch for ch in text)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.casefold()


def _is_pictograph(ch: str) -> bool:
    """True for emoji, symbols, their joiners and variation selectors."""
    return (unicodedata.category(ch) in ("So", "Sk", "Cs", "Co", "Mn", "Cf") and not (
        unicodedata.combining(ch))) or ch in "\u200d\ufe0f\ufe0e\u20e3"


TOKEN_RE = re.compile(r"\d+(?:st|nd|rd|th)?|[^\W\d_]+(?:'[^\W\d_]+)?|\?", re.UNICODE)


def tokens(text: str) -> list[str]:
    """Folded word and number tokens; punctuation separates and is dropped."""
    return TOKEN_RE.findall(fold(text))


def name_key(text: str) -> str:
    """A name in comparable form: folded, letters and digits only."""
    return "".join(ch for ch in fold(text) if ch.isalnum())


def read_int(token: str) -> int | None:
    """``token`` as ``int()`` reads it, else None: the one way digits are read. (``"④"``,
    ``"❹"`` and ``"፬"`` pass ``str.isdigit()`` but ``int()`` refuses them.)"""
    try:
        return int(token)
    except ValueError:
        return None


def verb_word(tok: str) -> str | None:
    """``tok`` as a verb word, also inflected: "voting" -> "vote", "rows" -> "row"."""
    for word in (tok, tok.removesuffix("ing"), tok.removesuffix("ing") + "e",
                 tok.removesuffix("s"), tok.removesuffix("ed"), tok.removesuffix("d")):
        if word in VERBS:
            return word
    return None


def number_of(token: str) -> int | None:
    """``"3"`` / ``"three"`` / ``"3rd"`` -> 3; anything else None."""
    number = read_int(token)
    if number is not None:
        return number
    return NUMBER_WORDS.get(token)
