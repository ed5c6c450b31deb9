"""The answer to a setting and the AWAY / BACK notice, in the reader's language (issue 24).

``pbm.player_settings`` and ``pbm.games.away`` write English sentences (stored with the reply's
outcome and the notice); English readers get them byte for byte. For another reader each
sentence is matched here against a pattern of the English sentence (as
``pbm.render.reasons`` does for refusals) and said from the catalogue, the varying parts
carried over: the setting commands as the player types them (``QUIET 23-07``), zone and
game names as they are, moments ("Mon 03 Mar 14:00 CET", written in the reader's zone)
and lengths ("3 days") re-formatted in the reader's language with Babel
(``pbm.i18n.dates``). A sentence no pattern knows is never shown in English to a reader of
another language: it is said as "<command>: changed" (the command kept).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from babel.dates import format_datetime

from pbm.i18n.dates import length_text
from pbm.i18n.translate import N_, _, current

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: ``pbm.humanize.local_time``: "Mon 03 Mar 14:00 CET".
MOMENT = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{2} [A-Z][a-z]{2} \d{2}:\d{2} [^\s.,;()]+"
#: ``pbm.player_settings.local_now``: "Mon 14:03 CET".
CLOCK = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{2}:\d{2} [^\s.,;()]+"
#: ``pbm.humanize.rough_span``: "3 days", "5 hours", "1 hour", "12 min".
#: A deadline as ``pbm.render.names.format_deadline`` writes it: "Wed 04 Mar 2026, 12:00 UTC".
DEADLINE = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} [^\s.,;()]+"
SPAN = r"\d+ (?:days|hours?|min)"

#: Babel patterns of a moment without its year, and of a weekday and clock, by language.
_MOMENT_PATTERNS = {"ko": "M월 d일 (E) a h:mm"}
_CLOCK_PATTERNS = {"ko": "EEEE a h:mm"}


def _weekday_date(day: int, month: int, weekday: int) -> datetime:
    """A date of that day and month falling on ``weekday`` (the English form has no year;
    the year only decides the weekday, which the English form names)."""
    for year in range(2024, 2060):
        try:
            moment = datetime(year, month, day)
        except ValueError:
            continue
        if moment.weekday() == weekday:
            return moment
    return datetime(2028, month, min(day, 28))


def say_moment(text: str) -> str:
    """"Mon 03 Mar 14:00 CET" in the reader's language ("3월 3일 (월) 오후 2:00 CET")."""
    lang = current()
    found = re.fullmatch(r"(\w{3}) (\d{2}) (\w{3}) (?:\d{4}, )?(\d{2}):(\d{2}) (\S+)", text)
    if lang not in _MOMENT_PATTERNS or not found or found.group(3) not in _MONTHS \
            or found.group(1) not in _DAYS:
        return text
    date = _weekday_date(int(found.group(2)), _MONTHS.index(found.group(3)) + 1,
                         _DAYS.index(found.group(1)))
    moment = date.replace(hour=int(found.group(4)), minute=int(found.group(5)))
    return f"{format_datetime(moment, _MOMENT_PATTERNS[lang], locale=lang)} {found.group(6)}"


def say_clock(text: str) -> str:
    """"Mon 14:03 CET" in the reader's language ("월요일 오후 2:03 CET")."""
    lang = current()
    found = re.fullmatch(r"(\w{3}) (\d{2}):(\d{2}) (\S+)", text)
    if lang not in _CLOCK_PATTERNS or not found or found.group(1) not in _DAYS:
        return text
    moment = datetime(2026, 3, 2 + _DAYS.index(found.group(1)),  # 2 March 2026: a Monday
                      int(found.group(2)), int(found.group(3)))
    return f"{format_datetime(moment, _CLOCK_PATTERNS[lang], locale=lang)} {found.group(4)}"


def say_span(text: str) -> str:
    """"3 days" / "5 hours" / "12 min" in the reader's language ("3일")."""
    found = re.fullmatch(r"(\d+) (days|hours?|min)", text)
    if not found:
        return text
    unit = {"d": timedelta(days=1), "h": timedelta(hours=1), "m": timedelta(minutes=1)}[
        found.group(2)[0]]
    return length_text(unit * int(found.group(1)), current()) or text


# ------------------------------------------------------------------ answers to settings

#: (pattern of the English answer, message id). Groups: ``cmd`` the command as typed,
#: ``now`` a clock, ``until`` a moment, ``where`` the AWAY answer's per-game lines.
_ANSWERS: list[tuple[str, str]] = [
    (rf"(?P<cmd>ZONE \S+): deadlines now shown in your time \(it is (?P<now>{CLOCK})\)",
     N_("{cmd}: deadlines are now shown in your time (it is {now} there).")),
    (r"(?P<cmd>QUIET OFF): reminders keep each game's quiet hours",
     N_("{cmd}: reminders keep each game's quiet hours.")),
    (r"(?P<cmd>QUIET (?P<start>\d{2})-(?P<end>\d{2})): no reminders from \d{2}:00 to \d{2}:00 "
     r"your time \(deadlines do not wait\)",
     N_("{cmd}: no reminders from {start}:00 to {end}:00 your time (deadlines do not "
        "wait).")),
    (rf"(?P<cmd>AWAY) until (?P<until>{MOMENT}), table told\. (?P<where>.+)",
     N_("{cmd} until {until}; your table was told. {where}.")),
    (r"(?P<cmd>BACK): you were not away; nothing changed",
     N_("{cmd}: you were not away; nothing changed.")),
    (r"(?P<cmd>BACK): welcome back! Your deadlines run again in (?P<games>.+?)",
     N_("{cmd}: welcome back! Your deadlines run again in {games}.")),
    (r"(?P<cmd>VIA EMAIL): your messages come by email",
     N_("{cmd}: your messages come by email.")),
    (r"(?P<cmd>VIA SMS): your messages come by text",
     N_("{cmd}: your messages come by text.")),
    (r"(?P<cmd>VIA BOTH): your messages come by email and by text",
     N_("{cmd}: your messages come by email and by text.")),
    (r"(?P<cmd>DIGEST ON): every public event, at most one digest an hour",
     N_("{cmd}: every public event, at most one digest an hour.")),
    (r"(?P<cmd>DIGEST OFF): news come with your next prompt",
     N_("{cmd}: news come with your next prompt.")),
    (r"(?P<cmd>TALK ON): table talk reaches you by text at once",
     N_("{cmd}: table talk reaches you by text at once.")),
    (r"(?P<cmd>TALK OFF): by text, table talk comes with your next prompt",
     N_("{cmd}: by text, table talk comes with your next prompt.")),
    (r"(?P<cmd>CALENDAR ON): each prompt carries its deadline as a calendar event",
     N_("{cmd}: each prompt carries its deadline as a calendar event.")),
    (r"(?P<cmd>CALENDAR OFF): no more calendar events",
     N_("{cmd}: no more calendar events.")),
    (r"(?P<cmd>LANG EN): your messages come in English from now on",
     N_("{cmd}: your messages come in English from now on.")),
]

#: One game's line of the AWAY answer (``pbm.games.away.go_away``), "; " between them.
_AWAY_LINE = re.compile(
    rf"(?:^|; )(?:(?P<game>.+?): (?:your deadlines wait until (?P<end>{MOMENT})"
    rf"(?: \(the most this game allows: (?P<cap>{SPAN})\))?|your away allowance "
    rf"\((?P<allowance>{SPAN})\) is used up; deadlines run as usual)"
    r"|(?P<none>you have no game in progress))")

_CHANGED = N_("{cmd}: changed.")


def _away_lines(where: str) -> str | None:
    """The per-game lines of an AWAY answer in the reader's words; None if not read."""
    out, at = [], 0
    for found in _AWAY_LINE.finditer(where):
        if found.start() != at:
            return None
        at = found.end()
        if found.group("none"):
            out.append(_("you have no game in progress"))
        elif found.group("allowance"):
            out.append(_("{game}: your away allowance ({span}) is used up; deadlines run as "
                         "usual").format(game=found.group("game"),
                                         span=say_span(found.group("allowance"))))
        elif found.group("cap"):
            out.append(_("{game}: your deadlines wait until {until} (the most this game "
                         "allows: {span})").format(game=found.group("game"),
                                                   until=say_moment(found.group("end")),
                                                   span=say_span(found.group("cap"))))
        else:
            out.append(_("{game}: your deadlines wait until {until}").format(
                game=found.group("game"), until=say_moment(found.group("end"))))
    return "; ".join(out) if at == len(where) and out else None


def _summary(text: str) -> str | None:
    """The SETTINGS line (``pbm.player_settings.summary``) in the reader's words."""
    found = re.fullmatch(
        rf"SETTINGS: ZONE (?P<zone>\S+) \((?P<now>{CLOCK})\); QUIET (?P<quiet>game's|"
        rf"\d{{2}}-\d{{2}}); AWAY (?P<away>no|until {MOMENT}); VIA (?P<via>[A-Z]+); "
        r"DIGEST (?P<digest>ON|OFF); TALK (?P<talk>ON|OFF); CALENDAR (?P<calendar>ON|OFF)"
        r"(?:; LANG (?P<lang>[A-Z]+))?\.", text)
    if not found:
        return None
    away = found.group("away")
    parts = [
        "SETTINGS: ZONE " + _("{zone} (it is {now} there)").format(
            zone=found.group("zone"), now=say_clock(found.group("now"))),
        "QUIET " + (_("each game's own") if found.group("quiet") == "game's"
                    else found.group("quiet")),
        "AWAY " + (_("not away") if away == "no" else _("until {until}").format(
            until=say_moment(away.removeprefix("until ")))),
        "VIA " + found.group("via"), "DIGEST " + found.group("digest"),
        "TALK " + found.group("talk"), "CALENDAR " + found.group("calendar")]
    if found.group("lang"):
        parts.append("LANG " + found.group("lang"))
    return "; ".join(parts) + "."


def say_answer(answer: str) -> str:
    """``answer`` (``pbm.player_settings.apply``'s English sentence) in the current reader's
    language: unchanged for English, and unchanged when it is already the reader's (the
    answer to LANG KO is written in Korean)."""
    if current() == "en" or not answer or re.search(r"[\uac00-\ud7a3]", answer):
        return answer
    text = answer.strip()
    if text.startswith("SETTINGS:"):
        said = _summary(text)
        if said is not None:
            return said
    for pattern, msgid in _ANSWERS:
        found = re.fullmatch(pattern + r"\.?", text)
        if not found:
            continue
        words = {k: v for k, v in found.groupdict().items() if v is not None}
        if "now" in words:
            words["now"] = say_clock(words["now"])
        if "until" in words:
            words["until"] = say_moment(words["until"])
        if "where" in words:
            lines = _away_lines(words["where"].rstrip("."))
            if lines is None:
                break
            words["where"] = lines
        return _(msgid).format(**words)
    return _(_CHANGED).format(cmd=text.split(" ", 1)[0].rstrip(":"))


# ------------------------------------------------------------------ the table's notice

_NOTICES: list[tuple[str, str]] = [
    (rf"(?P<name>.+) is away until (?P<until>{MOMENT}): their deadlines wait until "
     rf"(?P<end>{MOMENT}) \(the most this game allows: (?P<span>{SPAN})\)",
     N_("{name} is away until {until}: their deadlines wait until {end} (the most this game "
        "allows: {span}).")),
    (rf"(?P<name>.+) is away until (?P<until>{MOMENT}): their deadlines wait until "
     rf"(?P<end>{MOMENT})",
     N_("{name} is away until {until}: their deadlines wait until {end}.")),
    (rf"(?P<name>.+) is away until (?P<until>{MOMENT}); their away allowance is used up, so "
     r"their deadlines run as usual",
     N_("{name} is away until {until}; their away allowance is used up, so their deadlines "
        "run as usual.")),
    (r"(?P<name>.+) is back; their deadlines run again",
     N_("{name} is back; their deadlines run again.")),
    # other notices of pbm.games (digests, more time, a seat taken over, a start without you)
    (r"Everything that happened in (?P<game>.+) since your last message",
     N_("Everything that happened in {game} since your last message")),
    (rf"You have (?:(?P<hours>\d+(?:\.\d+)?) more hours?|(?P<span>{SPAN}) more): "
     rf"(?P<what>your turn|your vote|your answer to the invitation \(JOIN or DECLINE\)|"
     rf"your decision) is now due (?P<until>{DEADLINE})(?: \((?P<utc>.+)\))?",
     N_("You have {span} more: {what} is now due {until}.")),
    (r"(?P<name>.+) takes over seat (?P<n>\d+) from (?P<old>.+?)",
     N_("{name} takes over seat {n} from {old}.")),
    (r"(?P<name>.+) takes over your seat in (?P<game>.+)\. Thank you for playing",
     N_("{name} takes over your seat in {game}. Thank you for playing.")),
    (r"(?P<game>.+) has started without you, as you had not joined\. The players: "
     r"(?P<names>.+?)",
     N_("{game} has started without you, as you had not joined. The players: {names}.")),
]

#: What a more-time notice gives more time for, in the reader's words.
_AWAITED = {"your turn": N_("your turn"), "your vote": N_("your vote"),
            "your answer to the invitation (JOIN or DECLINE)":
                N_("your answer to the invitation (JOIN or DECLINE)"),
            "your decision": N_("your decision")}


def say_notice(sentence: str) -> str | None:
    """An AWAY / BACK notice to the table (``pbm.games.away``; its moments already in the
    reader's zone) in the current reader's language; None when it is no such notice."""
    if current() == "en":
        return sentence
    text = sentence.strip()
    for pattern, msgid in _NOTICES:
        found = re.fullmatch(pattern + r"\.?", text)
        if found:
            words = found.groupdict()
            for key in ("until", "end"):
                if words.get(key):
                    words[key] = say_moment(words[key])
            if words.get("span"):
                words["span"] = say_span(words["span"])
            if words.get("hours"):
                words["span"] = length_text(timedelta(hours=float(words["hours"])),
                                            current()) or words["hours"]
            if words.get("what"):
                words["what"] = _(_AWAITED[words["what"]])
            return _(msgid).format(**words)
    return None
