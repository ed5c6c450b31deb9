"""Inbound webhooks: raw-MIME email, Twilio SMS, and Twilio delivery reports.

Each handler authenticates the request, stores it raw (``pbm.inbound``: once per provider
id, so a retried delivery is kept once), commits, and only then asks a worker to process
it. When the database cannot take it, the message is kept in this host's spool on disk
(``pbm.inbound.spool``, fsynced before the answer) and stored later: never a 500 for a
message we could have kept. Nothing is parsed or applied here: a slow or broken parser can
never make a provider retry forever or lose a message.

- ``POST /webhooks/email``: the raw message as the body (or a form field ``email`` /
  ``body-mime``), authenticated by the shared secret ``INBOUND_EMAIL_SECRET`` as
  ``Authorization: Bearer``, HTTP Basic password, or ``X-Inbound-Secret``.
- ``POST /webhooks/twilio/sms`` and ``POST /webhooks/twilio/status``: form posts signed by
  Twilio (``X-Twilio-Signature``), checked over ``PUBLIC_BASE_URL`` + path + query.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import logging
import weakref
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter, HTTPException, Request, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData

from pbm import inbound
from pbm.config import Settings, get_settings
from pbm.db import run_transaction
from pbm.hygiene import mime_problem
from pbm.inbound import spool
from pbm.models import DeliveryStatus, OutboundMessage, OutboundStatus, Player
from workers.enqueue import hand_over_stored

log = logging.getLogger(__name__)

router = APIRouter(prefix="/webhooks", tags=["webhooks"])

MAX_TWILIO_FORM_BYTES = 256 * 1024
EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'
FAILED_DELIVERY = {DeliveryStatus.FAILED, DeliveryStatus.UNDELIVERED}


def _now() -> datetime:
    return datetime.now(UTC)


def _secret_matches(request: Request, settings: Settings) -> bool:
    expected = settings.inbound_email_secret.get_secret_value() \
        if settings.inbound_email_secret else ""
    if not expected:
        return False  # the webhook is off until a secret is configured
    offered: list[str] = []
    authorization = request.headers.get("authorization", "")
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() == "bearer":
        offered.append(value.strip())
    elif scheme.lower() == "basic":
        with contextlib.suppress(ValueError):
            offered.append(base64.b64decode(value).decode().partition(":")[2])
    if request.headers.get("x-inbound-secret"):
        offered.append(request.headers["x-inbound-secret"])
    return any(hmac.compare_digest(o.encode(), expected.encode()) for o in offered)


@router.post("/email")
async def inbound_email(request: Request) -> dict[str, Any]:
    """Accept one raw MIME email from a mail provider."""
    settings = get_settings()
    if not _secret_matches(request, settings):
        raise HTTPException(status_code=403, detail="forbidden")
    async with large_body_slot(request):
        raw = await _raw_email(request, settings)
        if not raw.strip():
            raise HTTPException(status_code=400, detail="empty message")
        if len(raw) > settings.inbound_email_max_bytes:
            raise HTTPException(status_code=413, detail="message too large")

        problem = await run_in_threadpool(mime_problem, raw, settings)
        if problem:
            log.info("refused an inbound email: %s", problem)
            raise HTTPException(status_code=422, detail=f"message refused: {problem}")
        now = _now()
        stored = await keep_at_the_door(
            lambda session: inbound.store_email(session, raw, now), "email", raw, now)
    if stored is None:
        return {"id": None, "duplicate": False, "spooled": True}
    return {"id": stored.id, "duplicate": not stored.created}


#: A request body over this size (or of no declared size) is a large one: an email of up to
#: ``INBOUND_EMAIL_MAX_BYTES`` is held several times over while it is read, checked and
#: stored (the body, the stored text, the database driver's buffer), so one web process
#: handles one large request at a time and a burst of 25 MB emails needs the memory of one.
#: Small ones (every real reply) never wait. Taken after the secret is checked.
LARGE_BODY_BYTES = 1024 * 1024
_LARGE_BODY_SLOTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary())


@contextlib.asynccontextmanager
async def large_body_slot(request: Request) -> AsyncIterator[None]:
    """Hold the web process's one slot for large bodies while a large request is handled."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) <= LARGE_BODY_BYTES:
        yield
        return
    slot = _LARGE_BODY_SLOTS.setdefault(asyncio.get_running_loop(), asyncio.Semaphore(1))
    async with slot:
        yield


def _max_request(settings: Settings) -> int:
    """The largest request body read: the largest email, plus room for form encoding."""
    return settings.inbound_email_max_bytes * 2 + 64 * 1024


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, read as it arrives; 413 as soon as it grows past ``limit``."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise HTTPException(status_code=413, detail="request too large")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPException(status_code=413, detail="request too large")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_form(request: Request, limit: int) -> FormData:
    """The request's form, its body read with :func:`read_body`; 400 when unreadable."""
    body = await read_body(request, limit)

    async def replay() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    try:
        return await Request(request.scope, replay).form(max_part_size=limit)
    except HTTPException:
        raise
    except Exception as exc:  # python-multipart / starlette refusing malformed form bytes
        raise HTTPException(status_code=400, detail="unreadable form") from exc


async def _raw_email(request: Request, settings: Settings) -> bytes:
    """The raw MIME of the request: its body, or the ``email`` / ``body-mime`` form field."""
    content_type = request.headers.get("content-type", "").lower()
    limit = _max_request(settings)
    if not content_type.startswith(("multipart/form-data",
                                    "application/x-www-form-urlencoded")):
        return await read_body(request, limit)
    form = await read_form(request, limit)
    field = form.get("email") or form.get("body-mime") or b""
    if isinstance(field, bytes):
        return field
    if hasattr(field, "read"):
        return bytes(await field.read())
    return str(field).encode("utf-8", "surrogateescape")


def _store_and_enqueue(work: Any, channel: str) -> inbound.Stored:
    """Store in one committed transaction, then hand the new row to a worker."""
    stored: inbound.Stored = run_transaction(work)
    hand_over_stored(channel, stored)
    return stored


#: How long a webhook waits for the database before it keeps the message in the spool
#: instead (Twilio gives up on a webhook after 15 s).
STORE_TIMEOUT_SECONDS = 8.0


async def keep_at_the_door(work: Any, channel: str, payload: bytes | dict[str, str],
                           now: datetime) -> inbound.Stored | None:
    """Store a message in the database, or, when the database cannot take it (down, too
    slow, any error), durably in this host's spool (``pbm.inbound.spool``); None then.
    Raises 503 with ``Retry-After`` only when the disk cannot take it either: never a 500
    for a message we could have kept. A store that finishes after the timeout is harmless:
    the drain stores the spooled copy again, which the provider's id makes a duplicate."""
    try:
        return await asyncio.wait_for(run_in_threadpool(_store_and_enqueue, work, channel),
                                      STORE_TIMEOUT_SECONDS)
    except Exception as exc:
        log.warning("could not store an inbound %s message (%s): keeping it in the spool",
                    channel, type(exc).__name__)
        failure = exc
    try:
        await run_in_threadpool(spool.keep, channel, payload, now)
    except OSError as exc:
        log.error("the spool refused an inbound %s message too: %s (database: %s)", channel,
                  exc, failure)
        raise HTTPException(status_code=503, detail="temporarily unavailable",
                            headers={"Retry-After": "60"}) from exc
    return None


def public_url(request: Request, settings: Settings) -> str:
    """The URL Twilio called, as the public sees it (signatures are computed over it)."""
    url = settings.public_base_url.rstrip("/") + request.url.path
    if request.url.query:
        url += "?" + request.url.query
    return url


async def _signed_form(request: Request) -> FormData:
    """The form of a request signed by Twilio with our auth token; 403 otherwise."""
    from twilio.request_validator import RequestValidator  # here: twilio is slow to import

    settings = get_settings()
    token = settings.twilio_auth_token.get_secret_value() if settings.twilio_auth_token else ""
    signature = request.headers.get("x-twilio-signature", "")
    form = await read_form(request, MAX_TWILIO_FORM_BYTES)
    if not token or not signature:
        raise HTTPException(status_code=403, detail="forbidden")
    if not RequestValidator(token).validate(public_url(request, settings), form, signature):
        log.warning("rejected a Twilio webhook with a bad signature for %s", request.url.path)
        raise HTTPException(status_code=403, detail="forbidden")
    return form


@router.post("/twilio/sms")
async def inbound_sms(request: Request) -> Response:
    """Accept one inbound SMS from Twilio; answers with empty TwiML (replies go by the API)."""
    form = await _signed_form(request)
    fields = {key: str(form.get(key)) for key in form}
    now = _now()
    await keep_at_the_door(lambda session: inbound.store_sms(session, fields, now), "sms",
                           fields, now)
    return Response(content=EMPTY_TWIML, media_type="text/xml")


@router.post("/twilio/status")
async def sms_status(request: Request) -> Response:
    """Record a delivery report for an SMS we sent (``delivered``, ``undelivered``, ...)."""
    form = await _signed_form(request)
    sid = str(form.get("MessageSid") or form.get("SmsSid") or "")
    status = str(form.get("MessageStatus") or form.get("SmsStatus") or "").lower()
    error_code = str(form.get("ErrorCode") or "")
    if sid and status in DELIVERY_STAGE:
        now = _now()
        try:
            await run_in_threadpool(run_transaction, lambda session: record_delivery_report(
                session, sid, status, error_code, now))
        except Exception as exc:  # the database is down: Twilio may try again later
            log.warning("could not record a delivery report for %s: %s", sid,
                        type(exc).__name__)
            return Response(status_code=503, headers={"Retry-After": "60"})
    return Response(status_code=204)


#: How far along a message is, by the provider's word: a report never moves it back
#: (Twilio's callbacks may arrive out of order); the first final word stays.
DELIVERY_STAGE = {"accepted": 0, "scheduled": 0, "queued": 1, "sending": 2, "sent": 3,
                  "delivery_unknown": 4, "delivered": 5, "undelivered": 5, "failed": 5}


def record_delivery_report(session: Any, sid: str, status: str, error_code: str,
                           now: datetime) -> None:
    """Record Twilio's word on the outbox row of ``sid`` (``delivery_status``, and
    ``delivered_at`` when delivered). Undelivered and failed fail the row; error 21610
    means the player opted out."""
    table = OutboundMessage.__table__  # type: ignore[attr-defined]
    row = session.execute(sa.select(table.c.id, table.c.player_id, table.c.delivery_status)
                          .where(table.c.provider_id == sid)).first()
    if row is None:
        log.info("delivery report for unknown message %s", sid)
        return
    if row.delivery_status is not None and (
            DELIVERY_STAGE.get(row.delivery_status, 0) >= DELIVERY_STAGE[status]):
        return  # a late report of an earlier stage (or a repeat): nothing new
    values: dict[str, Any] = {"delivery_status": status}
    if status == DeliveryStatus.DELIVERED:
        values["delivered_at"] = now
    if status in FAILED_DELIVERY:
        values["status"] = OutboundStatus.FAILED.value
        values["last_error"] = (f"delivery report: {status}"
                                + (f" (error {error_code})" if error_code else ""))
    session.execute(sa.update(table).where(table.c.id == row.id).values(**values))
    if status in FAILED_DELIVERY and error_code == "21610" and row.player_id is not None:
        players = Player.__table__  # type: ignore[attr-defined]
        session.execute(sa.update(players).where(players.c.id == row.player_id)
                        .values(sms_opted_out=True, preferred_channel="email"))
