"""Durations as people say them: "4 minutes", "1 hour 30 minutes", "2 days 3 hours".

One helper for every place a length of time is shown (the CLI, the admin page, messages),
so nobody reads "0.0 h" or "0.07 hours".
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

_UNITS = (("day", 24 * 60), ("hour", 60), ("minute", 1))


def _count(number: int, unit: str) -> str:
    return f"{number} {unit}{'' if number == 1 else 's'}"


def duration(length: timedelta) -> str:
    """``length`` in at most two units, rounded to the minute.

    Days are used from 48 hours on, so deadlines read "24 hours" and "36 hours" as admins
    write them, and long pauses read "3 days 2 hours"."""
    minutes = round(abs(length.total_seconds()) / 60)
    if minutes == 0:
        return "less than a minute"
    units = _UNITS if minutes >= 48 * 60 else _UNITS[1:]
    parts: list[str] = []
    for unit, size in units:
        number, minutes = divmod(minutes, size)
        if number and len(parts) < 2:
            parts.append(_count(number, unit))
        elif parts:  # the next unit after the largest: both or the largest alone
            break
    return " ".join(parts)


def hours(value: float) -> str:
    """A number of hours (a setting, a policy) as a duration for people."""
    return duration(timedelta(hours=value))


def local_time(at: datetime, zone_name: str) -> str:
    """A moment in a reader's zone, short: "Mon 03 Mar 14:00 CET"."""
    local = at.astimezone(ZoneInfo(zone_name))
    return f"{local:%a %d %b %H:%M} {local.tzname()}"


def rough_span(delta: timedelta) -> str:
    """A length in one rounded unit, as AWAY answers say it: "3 days", "5 hours", "12 min"."""
    hours = delta.total_seconds() / 3600
    if hours >= 47.5:
        return f"{hours / 24:.0f} days"
    if hours >= 1:
        return f"{hours:.0f} hour{'s' if round(hours) != 1 else ''}"
    return f"{max(1, round(hours * 60))} min"
