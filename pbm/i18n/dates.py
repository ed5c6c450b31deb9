"""Moments and lengths of time in the player's language, with Babel.

The date patterns are catalogue entries (``pgettext("date pattern", ...)``: CLDR fields,
the zone's abbreviation added after), and so are the words around a length of time ("in
{amount}", "{amount} ago"); the language's ``Traits`` name the CLDR locale Babel formats
in and from how many hours a length counts days. ``deadline_text`` gives the moment ("12월
3일 (목) 오후 6:00 KST" / "Thu 03 Dec 2026, 18:00 KST") and ``time_left`` how long until it
("1일 20시간 남음" / "in 44 hours"); an unknown language reads as English.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.dates import format_datetime
from babel.units import format_unit

from pbm.i18n.languages import traits
from pbm.i18n.translate import _, pgettext, reading

_UNITS = (("duration-day", 24 * 60), ("duration-hour", 60), ("duration-minute", 1))


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def moment_text(moment: datetime, time_zone: str, pattern: str, lang: str = "en") -> str:
    """``moment`` in the player's zone by the CLDR ``pattern``, with the zone's
    abbreviation, in ``lang``'s CLDR locale."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    zone = _zone(time_zone)
    local = moment.astimezone(zone)
    text = format_datetime(local, pattern, tzinfo=zone, locale=traits(lang).cldr_locale)
    return f"{text} {local.tzname() or time_zone}"


def deadline_text(moment: datetime, time_zone: str, lang: str = "en") -> str:
    """``moment`` in the player's zone and language, with the zone's abbreviation."""
    with reading(lang) as known:
        return moment_text(moment, time_zone, pgettext("date pattern", "EEE dd MMM yyyy, HH:mm"),
                           known)


def length_text(length: timedelta, lang: str = "en") -> str:
    """``length`` in at most two units, rounded to the minute ("44 hours", "1일 20시간");
    "" under a minute."""
    minutes = round(abs(length.total_seconds()) / 60)
    language = traits(lang)
    units = _UNITS if minutes >= language.days_from_hours * 60 else _UNITS[1:]
    parts: list[str] = []
    for unit, size in units:
        number, minutes = divmod(minutes, size)
        if number and len(parts) < 2:
            parts.append(format_unit(number, unit, length="long", locale=language.cldr_locale))
        elif parts:
            break
    return " ".join(parts)


def time_left(deadline: datetime, now: datetime, lang: str = "en") -> str:
    """How long until ``deadline``: "in 44 hours" / "1일 20시간 남음"; once past, "2 hours
    ago" / "2시간 지남"; under a minute either way, "now" / "지금"."""
    if deadline.tzinfo is None:
        deadline = deadline.replace(tzinfo=UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    length = deadline - now
    with reading(lang) as known:
        amount = length_text(length, known)
        if not amount:
            return _("now")
        if length > timedelta(0):
            return _("in {amount}").format(amount=amount)
        return _("{amount} ago").format(amount=amount)
