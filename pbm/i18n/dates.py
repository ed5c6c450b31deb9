"""Deadlines in the player's language, with Babel (issue 24; not wired into messages yet).

``deadline_text`` gives the moment ("12월 3일 (목) 오후 6:00 KST" / "Thu 03 Dec 2026, 18:00
KST", the English form the prompts use today) and ``time_left`` how long until it ("1일
20시간 남음" / "in 1 day 20 hours"). Languages are the message languages ("en", "ko");
anything else reads as English.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.dates import format_datetime
from babel.units import format_unit

#: Babel patterns of a deadline by language (CLDR fields; the zone is added after).
PATTERNS = {"en": "EEE dd MMM yyyy, HH:mm", "ko": "M월 d일 (E) a h:mm"}
_UNITS = (("duration-day", 24 * 60), ("duration-hour", 60), ("duration-minute", 1))


def _lang(lang: str) -> str:
    return lang if lang in PATTERNS else "en"


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def deadline_text(moment: datetime, time_zone: str, lang: str = "en") -> str:
    """``moment`` in the player's zone and language, with the zone's abbreviation."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    zone = _zone(time_zone)
    local = moment.astimezone(zone)
    text = format_datetime(local, PATTERNS[_lang(lang)], tzinfo=zone, locale=_lang(lang))
    return f"{text} {local.tzname() or time_zone}"


def _amount(length: timedelta, lang: str) -> str:
    """``length`` in at most two units, rounded to the minute ("1 day 20 hours", "1일 20시간")."""
    minutes = round(abs(length.total_seconds()) / 60)
    parts: list[str] = []
    for unit, size in _UNITS:
        number, minutes = divmod(minutes, size)
        if number and len(parts) < 2:
            parts.append(format_unit(number, unit, length="long", locale=lang))
        elif parts:
            break
    return " ".join(parts)


def length_text(length: timedelta, lang: str = "en") -> str:
    """A length of time in at most two units ("1일 20시간"); "" under a minute."""
    return _amount(length, _lang(lang))


def time_left(deadline: datetime, now: datetime, lang: str = "en") -> str:
    """How long until ``deadline``: "in 1 day 20 hours" / "1일 20시간 남음"; once past,
    "2 hours ago" / "2시간 지남"; under a minute either way, "now" / "지금"."""
    lang = _lang(lang)
    if deadline.tzinfo is None:
        deadline = deadline.replace(tzinfo=UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    length = deadline - now
    amount = _amount(length, lang)
    if not amount:
        return "지금" if lang == "ko" else "now"
    if length > timedelta(0):
        return f"{amount} 남음" if lang == "ko" else f"in {amount}"
    return f"{amount} 지남" if lang == "ko" else f"{amount} ago"
