"""Every request body is capped before the app reads it (an ASGI middleware).

A form the app reads whole (the admin's forms, the sign-in form, Twilio's posts) is read
here up to its path's cap and handed on; one larger is answered 413 without reading the
rest, whether it declared its size (``Content-Length``) or streams it in chunks. The raw
email webhook is the exception: it reads its body itself, as a stream, with its own cap
(``INBOUND_EMAIL_MAX_BYTES``, ``pbm.webhooks.read_body``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Caps by path prefix, first match wins; every other path gets ``DEFAULT_CAP``.
ADMIN_FORM_CAP = 64 * 1024
TWILIO_FORM_CAP = 256 * 1024
DEFAULT_CAP = 64 * 1024
CAPS: tuple[tuple[str, int | None], ...] = (
    ("/webhooks/email", None),  # streamed and capped by the handler itself
    ("/webhooks/twilio/", TWILIO_FORM_CAP),
    ("/admin", ADMIN_FORM_CAP),
)


def cap_for(path: str) -> int | None:
    """The largest body ``path`` accepts (None: the handler caps it itself)."""
    for prefix, cap in CAPS:
        if path.startswith(prefix):
            return cap
    return DEFAULT_CAP


async def _too_large(send: Send) -> None:
    body = b"Request body too large.\n"
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Reads a request's body up to its cap before the app sees it; 413 past the cap."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = cap_for(scope.get("path", ""))
        if cap is None:
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > cap:
            await _too_large(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > cap:
                await _too_large(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()  # after the body: the client's disconnect, if any
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
