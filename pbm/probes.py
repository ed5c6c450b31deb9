"""``/readyz`` (readiness) and ``/metrics`` (Prometheus) of the web process.

``/healthz`` (in ``pbm.web``) says only that the process answers (liveness). ``/readyz``
checks what the service needs to do its work (``pbm.health.readiness``) and answers 503
naming the failing part (its details only to a caller with the metrics credentials).
``/metrics`` is for Prometheus and protected like the admin page:
an admin's name and password from ``ADMIN_USERS`` as HTTP Basic (the same accounts and
sign-in throttle), or ``Authorization: Bearer METRICS_TOKEN`` when that setting is set.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import threading
from typing import Any

from cachetools import LRUCache
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from pbm import metrics
from pbm.admin.auth import THROTTLE, check_password, parse_admin_users, throttle_keys
from pbm.admin.session import monotonic
from pbm.config import Settings, get_settings
from pbm.health import readiness

log = logging.getLogger(__name__)
router = APIRouter(include_in_schema=False)

_CHALLENGE = {"WWW-Authenticate": 'Basic realm="Tortuga metrics"'}
#: successful Basic credentials, remembered by digest (an argon2 check per scrape is costly)
_VERIFIED: LRUCache[str, None] = LRUCache(maxsize=16)
_VERIFIED_LOCK = threading.Lock()


@router.get("/readyz")
def readyz(request: Request) -> JSONResponse:
    """Ready when the database is reachable and migrated, Redis answers, the beat beats.

    Anyone may learn which part fails; the details (an error's text names hosts, ports and
    database roles) only a caller with the ``/metrics`` credentials, and the log."""
    settings = get_settings()
    checks = readiness(settings)
    failing = [c for c in checks if not c.ok]
    for check in failing:
        log.warning("not ready: %s: %s", check.name, check.detail)
    detailed = _bearer_ok(request, settings) or _admin_ok(request, settings)
    body: dict[str, Any] = {
        "status": "ready" if not failing else "unavailable",
        "failing": [c.name for c in failing],
        "checks": {c.name: {"ok": c.ok, **({"detail": c.detail} if c.detail and detailed
                                           else {})}
                   for c in checks},
    }
    return JSONResponse(body, status_code=503 if failing else 200,
                        headers={"Cache-Control": "no-store"})


def _basic(request: Request) -> tuple[str, str] | None:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        name, sep, password = base64.b64decode(value.strip()).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return (name, password) if sep else None


def _bearer_ok(request: Request, settings: Settings) -> bool:
    expected = settings.metrics_token.get_secret_value() if settings.metrics_token else ""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    return bool(expected) and scheme.lower() == "bearer" and hmac.compare_digest(
        value.strip().encode(), expected.encode())


def _admin_ok(request: Request, settings: Settings) -> bool:
    credentials = _basic(request)
    if credentials is None:
        return False
    name, password = credentials
    digest = hashlib.sha256(f"{settings.admin_users}\0{name}\0{password}".encode()).hexdigest()
    with _VERIFIED_LOCK:
        if digest in _VERIFIED:
            return True
    keys = throttle_keys(name, request.client.host if request.client else None)
    if THROTTLE.retry_after(keys, monotonic()) > 0:
        return False
    if not check_password(parse_admin_users(settings.admin_users), name, password):
        THROTTLE.failed(keys, monotonic())
        return False
    THROTTLE.succeeded(keys)
    with _VERIFIED_LOCK:
        _VERIFIED[digest] = None
    return True


@router.get("/metrics")
async def metrics_endpoint(request: Request) -> Response:
    """Prometheus text format: every process's counters and the database gauges."""
    settings = get_settings()
    if not _bearer_ok(request, settings) and not await run_in_threadpool(
            _admin_ok, request, settings):
        return Response("Sign in (HTTP Basic, an admin) or present the metrics token.\n",
                        status_code=401, headers=_CHALLENGE)
    body, content_type = await run_in_threadpool(metrics.render)
    return Response(body, media_type=content_type, headers={"Cache-Control": "no-store"})
