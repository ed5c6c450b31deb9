"""The admin page's Health panel: the operator's snapshot and the current alerts."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pbm import health
from pbm.admin.session import AdminRoute
from pbm.admin.templating import page
from pbm.config import get_settings
from pbm.db import session_scope

router = APIRouter(prefix="/admin", route_class=AdminRoute, include_in_schema=False)


@router.get("/health", name="admin_health")
def health_panel(request: Request) -> Response:
    """What ``pbm.alerts`` would alert about now, the readiness checks, and the numbers."""
    settings = get_settings()
    now = datetime.now(UTC)
    with session_scope(write=False) as db:
        shot = health.snapshot(db, now, settings)
    checks = health.readiness(settings)
    return page(request, "health.html", shot=shot, problems=health.problems(shot, settings),
                checks=checks, settings=settings, now=now,
                outbox_age=shot.outbox_oldest_age(), sweep_late=shot.sweep_late(settings))
