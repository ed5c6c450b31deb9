"""Alert emails to the admin about the service itself, at most one per kind per hour.

The beat runs ``check`` every ``ALERT_CHECK_INTERVAL`` seconds: it reads the operator's
snapshot (``pbm.health``) and, for each problem found (the oldest unsent message older
than ``ALERT_OUTBOX_AGE_SECONDS``, the sweep later than ``ALERT_SWEEP_LATE_SECONDS``, a
transport that failed every send for ``ALERT_TRANSPORT_FAILING_SECONDS``, quarantined
inbound), writes an admin alert into the outbox unless one of that kind was written in the
last ``ALERT_REPEAT_SECONDS``. The outbox's unique dedupe key makes this hold across
processes (two checks in the same window write one row).

The alert travels like any email: if the email transport itself is what fails, the alert
waits in the outbox with everything else; that is why ``/metrics`` and an alert rule in
Prometheus are the operator's first line (see docs/operations.md).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlmodel import Session

from pbm import health, metrics
from pbm.config import Settings
from pbm.db import run_transaction
from pbm.models import OutboundMessage
from pbm.outbox import alert_admin

log = logging.getLogger(__name__)

#: dedupe keys of operator alerts: ``admin:ops:<kind>:<window number>``
PREFIX = "ops:"


def _recently_alerted(session: Session, kind: str, now: datetime, settings: Settings) -> bool:
    out = OutboundMessage.__table__.c  # type: ignore[attr-defined]
    since = now - timedelta(seconds=settings.alert_repeat_seconds)
    return session.execute(
        sa.select(out.id).where(out.dedupe_key.like(f"admin:{PREFIX}{kind}:%"),
                                out.created_at > since).limit(1)).first() is not None


def raise_alerts(session: Session, now: datetime, settings: Settings) -> list[str]:
    """Write an alert for each current problem not alerted lately; the kinds written."""
    shot = health.snapshot(session, now, settings)
    written = []
    window = int(now.timestamp()) // max(1, settings.alert_repeat_seconds)
    for kind, text in health.problems(shot, settings):
        if _recently_alerted(session, kind, now, settings):
            continue
        row = alert_admin(session, None, _SUBJECTS.get(kind.split(":")[0], kind) + _on(kind),
                          text + _FOOTER.format(minutes=settings.alert_repeat_seconds // 60),
                          now=now, dedupe=f"{PREFIX}{kind}:{window}")
        if row is not None:
            written.append(kind)
            metrics.alert_sent(kind)
            log.warning("operator alert %s: %s", kind, text)
    return written


def check(now: datetime, settings: Settings) -> list[str]:
    """One alert check in its own transaction (the beat's ``pbm.check_alerts``)."""
    return run_transaction(lambda session: raise_alerts(session, now, settings))


def _on(kind: str) -> str:
    _, _, channel = kind.partition(":")
    return f" ({channel})" if channel else ""


_SUBJECTS = {
    "outbox_stuck": "messages are not going out",
    "sweep_late": "the deadline sweep is late",
    "transport_failing": "a transport fails every send",
    "quarantined": "inbound messages are quarantined",
}

_FOOTER = ("\n\nThe admin page's Health panel shows the service's state now. This alert is "
           "sent at most once every {minutes} minutes.")
