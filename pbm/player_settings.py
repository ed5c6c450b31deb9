"""A player's own settings, set by reply: ZONE, QUIET, AWAY / BACK, VIA, DIGEST, TALK,
CALENDAR, LANG, and SETTINGS to see them all.

Settings belong to the player (``players`` row), not to one game: a ZONE sent in one game
shows every later deadline of every game in that zone. AWAY is the exception that touches
games: each of the player's seats holds its deadlines while away, within the game's
allowance (``TimingPolicy.away_hours``, counted per seat); past it the game's normal
timeout policy applies. The table of each game is told. That part changes games, so it is
``pbm.games.go_away`` / ``come_back``: this module only reads the setting.

``apply(session, player, seat, text, now)`` reads one setting (the argument of a
``Meta("SET", ...)`` from the parser) and returns the one short answer for the player;
refusals raise ``SettingError`` with a line that says what would work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from anyascii import anyascii
from rapidfuzz import fuzz, process
from sqlmodel import Session

from pbm import games
from pbm.humanize import local_time
from pbm.i18n.languages import language_named, traits
from pbm.messages import Channel
from pbm.models import Player
from pbm.replies import reasons as R

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
CHANNELS = {"email": "email", "mail": "email", "e-mail": "email", "sms": "sms",
            "text": "sms", "texts": "sms", "phone": "sms", "both": "both", "all": "both"}


class SettingError(ValueError):
    """A setting that cannot be applied; ``reason`` says why and what would work (as data,
    :mod:`pbm.replies.reasons`), ``str()`` in English."""

    @property
    def reason(self) -> str:
        """Why, as the :class:`~engine.reasons.Reason` it was raised with."""
        return str(self.args[0]) if not isinstance(self.args[0], str) else self.args[0]


@dataclass(frozen=True)
class Answer:
    """The one short answer to a setting, and the games whose table must be told."""

    text: str
    told: tuple[int, ...] = ()


# ------------------------------------------------------------------ time zones


@lru_cache(maxsize=1)
def _zone_names() -> dict[str, str]:
    """Lower-cased keys -> IANA zone: full names and their city parts ("paris")."""
    names: dict[str, str] = {}
    for name in sorted(available_timezones()):
        if name.startswith(("Etc/", "SystemV/", "posix/", "right/")) or "/" not in name:
            continue
        names[name.lower()] = name
        city = name.rsplit("/", 1)[1].lower()
        for key in (city, city.replace("_", " "), city.replace("_", "")):
            names.setdefault(key, name)
    names.update({"utc": "UTC", "gmt": "UTC", "z": "UTC", "zulu": "UTC"})
    return names


_OFFSET_RE = re.compile(r"^(?:utc|gmt)?\s*([+-])\s*(\d{1,2})(?:[:h.]?(\d{2}))?$")


def resolve_zone(text: str, now: datetime | None = None) -> str:
    """An IANA zone name, a city ("paris", "New York") or a UTC offset ("+2", "UTC-5",
    "+05:30") -> the zone to store. Unknown: ``SettingError`` with a suggestion."""
    raw = " ".join(text.split()).strip()
    key = raw.lower()
    if not key:
        raise SettingError(R.ZONE_NEEDS(
            cmd="ZONE", example="ZONE Europe/Paris, ZONE London or ZONE UTC+2"))
    names = _zone_names()
    latin = anyascii(key).lower()  # a city written in Hangul: "서울" -> "seoul"
    for candidate in (key, key.replace(" ", "_"), latin, latin.replace(" ", "_")):
        if candidate in names:
            return names[candidate]
    match = _OFFSET_RE.match(key.replace(" ", ""))
    if match:
        sign, hours, minutes = match.group(1), int(match.group(2)), int(match.group(3) or 0)
        if hours > 14 or minutes not in (0, 15, 30, 45):
            raise SettingError(R.NOT_AN_OFFSET(value=raw, example="UTC-12 to UTC+14"))
        if minutes == 0:
            # IANA's Etc zones count the other way round: Etc/GMT-2 is UTC+2.
            return "UTC" if hours == 0 else f"Etc/GMT{'-' if sign == '+' else '+'}{hours}"
        return _zone_with_offset(timedelta(hours=hours, minutes=minutes) * (
            1 if sign == "+" else -1), now, raw)
    best = process.extractOne(key, list(names), scorer=fuzz.WRatio)
    raise SettingError(R.UNKNOWN_ZONE_HINT(value=raw, zone=names[best[0]])
                       if best and best[1] >= 70 else R.UNKNOWN_ZONE(value=raw))


def _zone_with_offset(offset: timedelta, now: datetime | None, raw: str) -> str:
    """A real zone whose offset is ``offset`` all year (for half-hour offsets)."""
    moments = [datetime(2026, 1, 15, tzinfo=ZoneInfo("UTC")),
               datetime(2026, 7, 15, tzinfo=ZoneInfo("UTC"))]
    for name in sorted(set(_zone_names().values())):
        zone = ZoneInfo(name)
        if all(m.astimezone(zone).utcoffset() == offset for m in moments):
            return name
    raise SettingError(R.NO_ZONE_WITH_OFFSET(value=raw, example="ZONE Delhi"))


def local_now(zone_name: str, now: datetime) -> str:
    """``now`` as the player reads it in their zone: ``Fri 14:03 CET``."""
    local = now.astimezone(ZoneInfo(zone_name))
    return f"{local:%a %H:%M} {local.tzname()}"


# ------------------------------------------------------------------ quiet hours, away


_QUIET_RE = re.compile(r"^(\d{1,2})(?::00|h|00)?\s*(?:-|to|until|till)\s*(\d{1,2})(?::00|h|00)?$")


def parse_quiet(text: str) -> tuple[int, int] | None:
    """``"23-07"`` -> (23, 7); ``"off"`` -> None (the game's quiet hours again)."""
    key = " ".join(text.lower().split())
    if key in ("off", "none", "default", "reset"):
        return None
    match = _QUIET_RE.match(key)
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 23:
        raise SettingError(R.QUIET_HOURS(cmd="QUIET", example="QUIET 23-07", off="QUIET OFF"))
    start, end = int(match.group(1)), int(match.group(2))
    if start == end:
        raise SettingError(R.QUIET_DIFFERENT(cmd="QUIET", example="QUIET 23-07"))
    return start, end


_SPAN_RE = re.compile(r"^(?:for\s+)?(\d+(?:[.,]\d+)?|a|an|one|two|three|four|five|six|seven)"
                      r"\s*(d|days?|h|hrs?|hours?|w|wks?|weeks?)$")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7}


def parse_away(text: str, zone_name: str, now: datetime) -> datetime:
    """``"3 days"``, ``"until Fri"``, ``"until tomorrow"``, ``"until 2026-12-24"``,
    ``"until fri 18:00"`` -> when the player is back (aware, UTC). A day without an hour
    means the start of that day in the player's zone."""
    key = " ".join(text.lower().replace(",", " ").split())
    span = _SPAN_RE.match(key)
    if span:
        amount = _NUMBERS.get(span.group(1)) or float(span.group(1).replace(",", "."))
        unit = span.group(2)[0]
        hours = amount * {"d": 24, "h": 1, "w": 168}[unit]
        if not 0 < hours <= 24 * 60:
            raise SettingError(R.AWAY_RANGE(cmd="AWAY"))
        return now + timedelta(hours=hours)
    key = re.sub(r"^(?:until|till|til|to|back|back on|on)\s+", "", key)
    zone = ZoneInfo(zone_name)
    local = now.astimezone(zone)
    at = time(0)
    hour = re.search(r"\s*(?:at\s+)?(\d{1,2})[:h](\d{2})$", key)
    if hour:
        at = time(int(hour.group(1)) % 24, int(hour.group(2)) % 60)
        key = key[: hour.start()].strip()
    day = _day(key, local)
    if day is None:
        raise SettingError(R.AWAY_TAKES(
            cmd="AWAY", example="AWAY 3 days, AWAY until Fri, AWAY until 2026-12-24"))
    back = datetime.combine(day, at, tzinfo=zone)
    if back <= now:
        raise SettingError(R.AWAY_BEGUN(day=f"{back:%a %d %b}", example="AWAY 2 days"))
    if back - now > timedelta(days=60):
        raise SettingError(R.AWAY_RANGE(cmd="AWAY"))
    return back.astimezone(now.tzinfo)


def _day(key: str, local: datetime) -> Any:
    if key in ("tomorrow", "tmrw", "tomorow"):
        return local.date() + timedelta(days=1)
    for i, name in enumerate(WEEKDAYS):
        if key[:3] == name and (len(key) == 3 or name.startswith(key[:3])) and key.isalpha():
            ahead = (i - local.weekday()) % 7 or 7
            return local.date() + timedelta(days=ahead)
    match = re.match(r"^(\d{4})-(\d{1,2})-(\d{1,2})$", key)
    if match:
        try:
            return datetime(int(match.group(1)), int(match.group(2)), int(match.group(3))).date()
        except ValueError:
            return None
    return None


# ------------------------------------------------------------------ applying


def parse_on_off(word: str, name: str) -> bool:
    """``word`` as the ON/OFF value of setting ``name`` (ON, YES, TRUE, 1 / OFF, NO, FALSE,
    0, any case). Raises ``SettingError``."""
    key = word.strip().lower()
    if key in ("on", "yes", "true", "1"):
        return True
    if key in ("off", "no", "false", "0"):
        return False
    raise SettingError(R.ON_OFF_EXAMPLE(cmd=name, example=f"{name} ON"))


#: The settings that are ON or OFF: the player's field, and the answer to each.
_ON_OFF = {
    "DIGEST": ("tell_everything", R.DIGEST_ON, R.DIGEST_OFF),
    "TALK": ("sms_live_talk", R.TALK_ON, R.TALK_OFF),
    "CALENDAR": ("calendar", R.CALENDAR_ON, R.CALENDAR_OFF),
}


def apply(session: Session, player: Player, text: str, now: datetime) -> str:
    """Apply one setting (``"ZONE paris"``, ``"AWAY 3 days"``, ``"SETTINGS"``...) to the
    player; the one short answer. Raises ``SettingError``."""
    verb, _, arg = text.strip().partition(" ")
    verb, arg = verb.upper(), arg.strip()
    if verb == "SETTINGS":
        return summary(player, now)
    if verb == "ZONE":
        player.time_zone = resolve_zone(arg, now)
        session.add(player)
        return R.ZONE_SET(setting=f"ZONE {player.time_zone}",
                          now=local_now(player.time_zone, now),
                          now_at=R.moment(now, player.time_zone))
    if verb == "QUIET":
        hours = parse_quiet(arg)
        player.quiet_start, player.quiet_end = hours if hours else (None, None)
        session.add(player)
        if hours is None:
            return R.QUIET_OFF(setting="QUIET OFF")
        return R.QUIET_SET(setting=f"QUIET {hours[0]:02d}-{hours[1]:02d}", start=f"{hours[0]:02d}",
                           end=f"{hours[1]:02d}")
    if verb == "AWAY":
        until = parse_away(arg, player.time_zone, now)
        lines = games.go_away(session, player, until, now)
        return R.AWAY_SET(setting="AWAY", until=local_time(until, player.time_zone),
                          until_at=R.moment(until, player.time_zone),
                          where=R.joined(lines) if lines else R.AWAY_NO_GAME())
    if verb == "BACK":
        games_back = games.come_back(session, player, now)
        if not games_back:
            return R.BACK_NOT_AWAY(setting="BACK")
        return R.BACK_SET(setting="BACK", games=", ".join(games_back))
    if verb == "VIA":
        channel = CHANNELS.get(arg.lower())
        if channel is None:
            raise SettingError(R.VIA_TAKES(cmd="VIA", example="VIA SMS"))
        if channel in (Channel.SMS, "both") and not player.phone:
            raise SettingError(R.NO_PHONE_FOR_VIA(example="VIA " + channel.upper()))
        if channel in (Channel.EMAIL, "both") and not player.email:
            raise SettingError(R.NO_EMAIL_FOR_VIA(example="VIA " + channel.upper()))
        player.preferred_channel = channel
        session.add(player)
        return {"email": R.VIA_EMAIL, "sms": R.VIA_SMS, "both": R.VIA_BOTH}[channel](
            setting=f"VIA {channel.upper()}")
    if verb in _ON_OFF:
        field, said_on, said_off = _ON_OFF[verb]
        on = parse_on_off(arg, verb)
        setattr(player, field, on)
        session.add(player)
        return (said_on if on else said_off)(setting=f"{verb} {'ON' if on else 'OFF'}")
    if verb == "LANG":
        language = language_named(arg)  # a code or a name (language.toml ``names``)
        if language is None:
            raise SettingError(R.LANG_TAKES(cmd="LANG"))
        player.language = language
        session.add(player)
        return R.LANG_SET(setting=f"LANG {language.upper()}",
                          language=traits(language).own_name or language)
    raise SettingError(R.NOT_A_SETTING(value=verb, example="SETTINGS"))


def summary(player: Player, now: datetime) -> str:
    """Every setting of the player, in one short line each (the SETTINGS answer)."""
    zone = player.time_zone
    quiet = (R.QUIET_GAMES() if player.quiet_start is None
             else f"{player.quiet_start:02d}-{player.quiet_end:02d}")
    away = (R.NOT_AWAY() if player.away_until is None or player.away_until <= now
            else R.AWAY_UNTIL(until=local_time(player.away_until, zone),
                              until_at=R.moment(player.away_until, zone)))
    on = {True: "ON", False: "OFF"}
    items = [("ZONE", R.ZONE_NOW(zone=zone, now=local_now(zone, now),
                                 now_at=R.moment(now, zone))),
             ("QUIET", quiet), ("AWAY", away), ("VIA", player.preferred_channel.upper()),
             ("DIGEST", on[bool(player.tell_everything)]),
             ("TALK", on[bool(player.sms_live_talk)]), ("CALENDAR", on[bool(player.calendar)])]
    if player.language != "en":
        items.append(("LANG", player.language.upper()))
    return R.SUMMARY(setting="SETTINGS", items=R.joined([R.SETTING(setting=name, value=value)
                                                         for name, value in items]))
