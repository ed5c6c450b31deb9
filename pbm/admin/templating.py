"""Jinja2 for the admin pages: the environment, filters for times, and ``page()``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from pbm.admin.board_svg import seat_colour
from pbm.admin.session import CSRF_FIELD, get_session
from pbm.humanize import duration
from pbm.resources import templates_dir

TEMPLATES = templates_dir() / "admin"


def when(value: datetime | None, zone: str | None = None) -> str:
    """``2026-11-01 14:05 UTC`` (or in ``zone`` with the UTC time after it)."""
    if value is None:
        return "-"
    utc = value.astimezone(UTC)
    text = utc.strftime("%Y-%m-%d %H:%M UTC")
    if zone and zone != "UTC":
        try:
            local = utc.astimezone(ZoneInfo(zone))
        except Exception:  # an unknown zone shows UTC only
            return text
        return f"{local.strftime('%Y-%m-%d %H:%M')} {zone} ({utc.strftime('%H:%M')} UTC)"
    return text


def relative(value: datetime | None, now: datetime) -> str:
    """``in 3 hours 10 minutes`` / ``5 minutes ago`` / ``2 days 4 hours ago``."""
    if value is None:
        return ""
    seconds = (value - now).total_seconds()
    if abs(seconds) < 60:
        return "just now" if seconds <= 0 else "in under a minute"
    length = duration(value - now)
    return f"in {length}" if seconds > 0 else f"{length} ago"


DECISIONS = {
    "ACTION": "turn", "VOTE": "vote", "PLACE": "place treasure", "CHOOSE": "forced choice",
    "LETTER_OF_MARQUE": "Letter of Marque", "SHOOT": "Pistol shot", "GIVE": "Treasure Map",
    "TAKE": "take treasure", "FOUNTAIN": "Fountain of Youth", "INVITATION": "JOIN or DECLINE",
}


def decision(kind: str) -> str:
    """A decision kind in words (``VOTE`` -> ``vote``)."""
    return DECISIONS.get(kind, kind.replace("_", " ").lower())


_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html", "svg"]),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.filters["when"] = when
_env.filters["decision"] = decision
_env.globals["relative"] = relative
_env.globals["seat_colour"] = seat_colour
_env.globals["zones"] = sorted(z for z in available_timezones() if "/" in z and
                               not z.startswith(("Etc/", "SystemV/", "posix/", "right/")))


def page(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """Render an admin page with the session's user, CSRF field and flash messages."""
    session = get_session(request)
    token = session.csrf_token()
    csrf_input = Markup('<input type="hidden" name="{}" value="{}">').format(CSRF_FIELD, token)
    now = context.pop("now", None) or datetime.now(UTC)
    html = _env.get_template(template).render(
        request=request,
        user=session.user,
        csrf_input=csrf_input,
        flashes=session.take_flashes(),
        now=now,
        **context,
    )
    return HTMLResponse(html, status_code=status_code)
