"""Reading a player's settings line: ZONE, QUIET, AWAY, BACK, VIA, DIGEST, TALK, CALENDAR,
LANG, SETTINGS. Each becomes ``Meta("SET", "<VERB> <argument>")``; ``pbm.player_settings``
applies it (and says what is wrong with an argument it cannot use).

Only the shape is checked here: a verb that takes ON or OFF gets ON or OFF, a verb that
needs an argument has one. A line that is not a setting returns None and the game parser
reads it as usual ("back" alone is BACK; "back to ..." is not a setting).
"""

from __future__ import annotations

import re
from typing import Any

from pbm.replies import reasons as R
from pbm.replies.parse_types import Meta, NotUnderstood

#: Player words -> setting verbs.
SETTING_WORDS: dict[str, str] = {
    "zone": "ZONE", "timezone": "ZONE", "tz": "ZONE",
    "quiet": "QUIET",
    "away": "AWAY", "holiday": "AWAY", "holidays": "AWAY", "vacation": "AWAY",
    "back": "BACK",
    "via": "VIA", "channel": "VIA",
    "digest": "DIGEST",
    "talk": "TALK",
    "calendar": "CALENDAR", "cal": "CALENDAR",
    "lang": "LANG", "language": "LANG",
    "settings": "SETTINGS", "setting": "SETTINGS", "preferences": "SETTINGS",
    "prefs": "SETTINGS",
}
#: Verbs that take ON / OFF.
SWITCHES = frozenset({"DIGEST", "TALK", "CALENDAR"})
EXAMPLES = {"ZONE": "ZONE Europe/Paris", "QUIET": "QUIET 23-07", "AWAY": "AWAY 3 days",
            "VIA": "VIA EMAIL", "DIGEST": "DIGEST ON", "TALK": "TALK ON",
            "CALENDAR": "CALENDAR ON", "LANG": "LANG KO"}
_ON_OFF = {"on": "ON", "yes": "ON", "off": "OFF", "no": "OFF"}
#: Game command words: never a setting's argument.
_COMMAND_WORDS = frozenset({"view", "reveal", "force", "row", "board", "land", "attack",
                            "maroon", "mutiny", "shift", "brawl", "marque", "map", "vote",
                            "choose", "shoot", "give", "take", "place", "fountain", "accept",
                            "save", "discard", "atlantis"})
_BACK_REST = frozenset({"", "again", "now", "home", "im", "i'm", "i am"})

_LINE_RE = re.compile(
    r"^[\W_]*(?:(?:please|pls)\s+)?(?:(?:set|my)\s+)?(?:i'?m\s+|i\s+am\s+)?"
    r"(time\s+zone|[a-z]+)\b[\s:=]*(.*?)[\s.!]*$",
    re.IGNORECASE | re.DOTALL)


def read_setting(line: str) -> Any:
    """``Meta("SET", "ZONE paris")``, ``NotUnderstood`` (a setting verb, a wrong shape), or
    None when the line is not a setting."""
    match = _LINE_RE.match(line.strip())
    if not match:
        return None
    word = re.sub(r"\s+", "", match.group(1).lower())
    verb = SETTING_WORDS.get(word)
    if verb is None:
        return None
    arg = " ".join(match.group(2).split())
    if verb == "BACK":
        return Meta(line, "SET", "BACK") if arg.lower() in _BACK_REST else None
    if verb == "SETTINGS":
        return Meta(line, "SET", "SETTINGS") if not arg else None
    if len(arg.split()) > 4:
        return None  # a sentence ("talk to you soon", "away from my desk..."): chatter
    if any(word in _COMMAND_WORDS for word in re.findall(r"[a-z]+", arg.lower())):
        return None  # "tz PLACE FRENCH": a game command, not a setting's argument
    if verb in SWITCHES:
        switch = _ON_OFF.get(arg.lower())
        if switch is None:
            if len(arg.split()) > 1:
                return None
            return NotUnderstood(line, R.ON_OFF(cmd=verb), f"{verb} ON")
        return Meta(line, "SET", f"{verb} {switch}")
    if not arg:
        return NotUnderstood(line, R.NEEDS_MORE(cmd=verb), EXAMPLES[verb])
    return Meta(line, "SET", f"{verb} {arg}")
