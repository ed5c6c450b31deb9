"""Names and words of the game as players read them: ships, ranks, teams, symbols, Event
titles, help topics, short names and game names, the subject line, deadlines in a zone."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.cards import EventTitle
from pbm.i18n import dates, glossary
from pbm.i18n.languages import SOURCE_LANGUAGE, folder_of, traits
from pbm.i18n.translate import N_, _, current, pgettext
from pbm.resources import templates_dir

SHIP_NAMES = {"FD": "Flying Dutchman", "JR": "Jolly Roger"}
RANK_NAMES = {"CAPTAIN": "Captain", "FIRST_MATE": "First Mate", "CABIN_BOY": "Cabin Boy",
              "GOVERNOR": "Governor"}
TEAM_NAMES = {"BRITISH": "British", "FRENCH": "French", "DUTCH": "Dutch"}
SYMBOL_NAMES = {"CANNON": "Cannon", "TORCH": "Torch", "WATER": "Water", "BRITISH": "British",
                "FRENCH": "French", "SKULL": "Skull", "HELM": "Helm"}
VOTE_SECTION = {"ATTACK": "top", "BRAWL": "middle", "MUTINY": "bottom"}
VOTE_RULE = {
    "ATTACK": N_("Attack counts the top symbols: it succeeds with at least 1 Cannon and more "
                 "Torches than Waters; then the Captain takes 1 treasure."),
    "BRAWL": N_("Brawl counts the flags: the side with more flags gets both Tortuga treasures "
                "(a tie splits them 1 and 1)."),
    "MUTINY": N_("Mutiny counts the bottom symbols: more Skulls than Helms maroons the "
                 "Captain."),
}
#: HELP topics -> templates/help/<file>.txt
HELP_FILES = {
    "": "general", "VOTE": "vote", "ATTACK": "vote", "MUTINY": "vote", "BRAWL": "vote",
    "TURN": "turn", "VIEW": "turn", "REVEAL": "turn", "FORCE": "turn", "ROW": "turn",
    "BOARD": "turn", "LAND": "turn", "MAROON": "turn", "SHIFT": "turn", "ACTIONS": "turn",
    "RANKS": "turn", "VOTES": "vote",
    "CARDS": "cards", "MARQUE": "cards", "SAVE": "cards", "SHOOT": "cards", "GIVE": "cards",
    "MAP": "cards", "TAKE": "cards", "PLACE": "cards", "FOUNTAIN": "cards", "ACCEPT": "cards",
    "ATLANTIS": "cards", "CHOOSE": "cards", "EVENTS": "cards",
    "SAY": "talk", "STATUS": "talk", "LOG": "talk", "STOP": "talk", "START": "talk",
    "JOIN": "talk", "DECLINE": "talk", "TALK": "talk", "HELP": "general",
    "SETTINGS": "settings", "ZONE": "settings", "QUIET": "settings", "AWAY": "settings",
    "BACK": "settings", "VIA": "settings", "DIGEST": "settings", "CALENDAR": "settings",
}

HELP_DIR = templates_dir() / "help"


def help_file(name: str, *, sms: bool = False, lang: str | None = None) -> str:
    """The HELP text ``name`` (``HELP_FILES``' value) as the reader reads it, in the
    reader's language when it has that text, else the general one in that language, else
    English: the file ``templates/help/<result>.txt``. A language's own texts are the
    ``help/[sms/]<name>.txt`` files of its folder (``pbm.i18n.languages``; the result is then
    that file's absolute path without ``.txt``) or ``templates/help/<lang>/[sms/]<name>.txt``.
    A topic without its own SMS text: the general one."""
    lang = lang or current()
    sub = "sms/" if sms else ""
    folder = folder_of(lang)
    for stem in (name, "general"):
        if folder is not None and (folder / "help" / f"{sub}{stem}.txt").is_file():
            return str(folder / "help" / f"{sub}{stem}")
        if lang != SOURCE_LANGUAGE and (HELP_DIR / lang / f"{sub}{stem}.txt").is_file():
            return f"{lang}/{sub}{stem}"
    for stem in (name, "general"):
        if (HELP_DIR / f"{sub}{stem}.txt").is_file():
            return f"{sub}{stem}"
    return f"{sub}general"


def title_label(title: str) -> str:
    """``"LETTER_OF_MARQUE"`` -> ``"Letter of Marque"`` in the reader's language (the
    glossary's word: "사략 허가증")."""
    try:
        return glossary.event_name(title, current())
    except KeyError:
        pass
    try:
        return EventTitle(title).label
    except ValueError:
        return title.replace("_", " ").title()


def game_word(section: str, key: str, english: str = "") -> str:
    """A game term as the reader reads it: the glossary's word in the reader's language,
    else ``english`` (the word English messages have always used; the glossary's when
    empty)."""
    if current() != SOURCE_LANGUAGE:
        word = glossary.own_word(section, key, current())
        if word is not None:
            return word
    return english or glossary.term(section, key, SOURCE_LANGUAGE)


def command_words(command: str) -> str:
    """A command as the reader writes it: as it is but for the word standing for a player's
    name (``FORCE _ _ name``), or in a language whose reply reader reads its own words
    (``Traits.own_command_words``), the glossary's verbs and the language's
    ``command_words`` (``REVEAL 3`` -> ``공개 3``)."""
    if not traits(current()).own_command_words:  # only the argument's name is a word
        return " ".join(pgettext("command argument", "name") if word == "name" else word
                        for word in command.split(" "))
    return " ".join(own_word(word, current()) for word in command.split(" "))


def own_word(word: str, lang: str) -> str:
    """One word of a command in ``lang``: its ``command_words``, else the glossary's verb
    of that action, else the word as it is."""
    words = traits(lang).command_words
    if word in words:
        return words[word]
    if word.isupper() and word.isalpha():
        return glossary.own_word("actions", word, lang) or word
    return word


def subject_for(game_name: str) -> str:
    """The subject of every message of one game (constant, so a game is one thread)."""
    return _("[Tortuga: {game}] Tortuga 1667 by mail").format(game=game_name)


def short_game(name: str, width: int = 20) -> str:
    """A game name cut at a word boundary to at most ``width`` characters."""
    name = " ".join(name.split())
    if len(name) <= width:
        return name
    cut = name[:width].rsplit(" ", 1)[0]
    return cut if len(cut) >= width // 2 else name[:width]


def short_name(name: str, width: int = 12) -> str:
    """A name cut to ``width`` characters (a prefix still resolves in replies if unique)."""
    name = " ".join(name.split())
    return name if len(name) <= width else name[:width].rstrip()


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def format_deadline(deadline: datetime | None, time_zone: str,
                    now: datetime | None = None) -> dict[str, str] | None:
    """The deadline in the player's zone and in UTC (``local``, ``utc``, ``short``), the
    time left from ``now`` (``left``: "1 day 20 hours", empty without ``now``) and the
    sentence a message says (``sentence``: "Reply by Thu 03 Dec 18:00 CET, in 1 day 20
    hours.")."""
    if deadline is None:
        return None
    if deadline.tzinfo is None:
        deadline = deadline.replace(tzinfo=UTC)
    local = deadline.astimezone(_zone(time_zone))
    utc = deadline.astimezone(UTC)
    lang = current()
    moment = dates.moment_text(deadline, time_zone, pgettext("date pattern", "EEE dd MMM HH:mm"),
                               lang)
    left = _left(deadline, now)
    return {
        "local": dates.moment_text(deadline, time_zone,
                                   pgettext("date pattern", "EEE dd MMM yyyy, HH:mm"), lang),
        "utc": dates.moment_text(deadline, "UTC", pgettext("date pattern", "EEE dd MMM, HH:mm"),
                                 lang),
        "short": moment,
        "same": "1" if local.utcoffset() == utc.utcoffset() else "",
        "left": left,
        "sentence": (_("Reply by {moment}, in {left}.") if left else
                     _("Reply by {moment}.")).format(moment=moment, left=left),
    }


def _left(deadline: datetime, now: datetime | None) -> str:
    if now is None:
        return ""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    if deadline <= now:
        return ""
    return pgettext("time left", "{amount}").format(
        amount=dates.length_text(deadline - now, current()) or _("less than a minute"))
