"""The admin session: a signed cookie, sign-in enforcement and CSRF, for every admin route.

``AdminRoute`` is the route class of the admin router, so no admin route can forget them:
before any handler runs it loads the session from the signed cookie (itsdangerous, keyed by
``settings.secret_key``) and the server-side record the cookie names (``pbm.admin.sessions``:
signing out or a new password ends it), refuses anonymous requests (a redirect to the
sign-in page for a page, 401 for anything else) and checks the per-session CSRF token on
every request that is not GET/HEAD; afterwards it writes the cookie back if the session
changed. Only routes named in ``PUBLIC_ROUTES`` (the sign-in form) skip the sign-in check,
never the CSRF check.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from fastapi import HTTPException, Request, Response
from fastapi.responses import RedirectResponse
from fastapi.routing import APIRoute
from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.concurrency import run_in_threadpool

from pbm.admin import sessions
from pbm.admin.auth import parse_admin_users
from pbm.config import Settings, get_settings
from pbm.deployment import secret_key_problem

COOKIE_NAME = "pbm_admin"
COOKIE_PATH = "/admin"
MAX_AGE_SECONDS = 12 * 3600
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PUBLIC_ROUTES = frozenset({"admin_login_form", "admin_login"})
CSRF_FIELD = "csrf_token"


class AdminSession(dict[str, Any]):
    """The session's data; remembers whether it changed so the cookie is rewritten."""

    modified: bool = False

    def __setitem__(self, key: str, value: Any) -> None:
        self.modified = True
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.modified = True
        super().__delitem__(key)

    def pop(self, key: str, *default: Any) -> Any:
        self.modified = True
        return super().pop(key, *default)

    def clear(self) -> None:
        self.modified = True
        super().clear()

    @property
    def user(self) -> str | None:
        """The signed-in admin's name, if any."""
        user = self.get("user")
        return user if isinstance(user, str) else None

    def csrf_token(self) -> str:
        """This session's CSRF token, created on first use."""
        token = self.get("csrf")
        if not isinstance(token, str):
            token = secrets.token_urlsafe(32)
            self["csrf"] = token
        return token

    def flash(self, message: str, category: str = "ok") -> None:
        """Queue a message for the next page shown."""
        self["flash"] = [*self.get("flash", []), [category, message]]

    def take_flashes(self) -> list[tuple[str, str]]:
        """The queued messages, removed from the session."""
        if "flash" not in self:
            return []
        return [(c, m) for c, m in self.pop("flash")]


def _serializer(settings: Settings) -> URLSafeTimedSerializer:
    key = settings.secret_key.get_secret_value()
    return URLSafeTimedSerializer(key, salt="pbm-admin-session")


def load_session(request: Request, settings: Settings) -> AdminSession:
    """The session in the request's cookie; empty when missing, forged, expired, signed out,
    or signed with a key this deployment may not use.

    The cookie's signature only proves the cookie came from us; who is signed in comes from
    the server-side record it names (``sid``), which must still be open, for an admin still
    in ``ADMIN_USERS`` with the password they signed in with."""
    session = AdminSession()
    raw = request.cookies.get(COOKIE_NAME)
    if not raw or secret_key_problem(settings):
        return session
    try:
        data = _serializer(settings).loads(raw, max_age=MAX_AGE_SECONDS)
    except BadSignature:
        return session
    if not isinstance(data, dict):
        return session
    dict.update(session, data)
    dict.pop(session, "user", None)
    token = data.get("sid")
    if token is None:
        return session  # an anonymous visitor's session: the sign-in form's CSRF token
    user = sessions.who(token, parse_admin_users(settings.admin_users), datetime.now(UTC)) \
        if isinstance(token, str) else None
    if user is None:
        session.clear()  # signed out, expired, or the password changed: start afresh
    else:
        dict.__setitem__(session, "user", user)
    return session


def save_session(session: AdminSession, response: Response, settings: Settings) -> None:
    """Write the session to the response's cookie (or delete it when empty)."""
    secure = settings.public_base_url.startswith("https://")
    if not session:
        response.delete_cookie(COOKIE_NAME, path=COOKIE_PATH)
        return
    response.set_cookie(
        COOKIE_NAME,
        _serializer(settings).dumps(dict(session)),
        max_age=MAX_AGE_SECONDS,
        path=COOKIE_PATH,
        httponly=True,
        samesite="lax",
        secure=secure,
    )


def get_session(request: Request) -> AdminSession:
    """The current request's session (a FastAPI dependency)."""
    session = request.state.admin_session
    assert isinstance(session, AdminSession)
    return session


def current_admin(request: Request) -> str:
    """The signed-in admin's name (a FastAPI dependency; AdminRoute guarantees one)."""
    user = get_session(request).user
    assert user is not None
    return user


SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


async def _check_csrf(request: Request, session: AdminSession) -> None:
    await request.body()  # cache the body so the handler can parse the form again
    form = await request.form()
    sent = form.get(CSRF_FIELD)
    expected = session.get("csrf")
    if not (isinstance(sent, str) and isinstance(expected, str)) or not secrets.compare_digest(
        sent, expected
    ):
        raise HTTPException(status_code=403, detail="Missing or wrong CSRF token: reload the page.")


class AdminRoute(APIRoute):
    """A route with the admin session, the sign-in requirement and CSRF checks."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        public = self.name in PUBLIC_ROUTES

        async def admin_handler(request: Request) -> Response:
            settings = get_settings()
            session = await run_in_threadpool(load_session, request, settings)
            request.state.admin_session = session
            if not public and session.user is None:
                if request.method in SAFE_METHODS:
                    target = quote(request.url.path, safe="/")
                    response: Response = RedirectResponse(f"/admin/login?next={target}", 303)
                else:
                    response = Response("Sign in first.", status_code=401)
            else:
                if request.method not in SAFE_METHODS:
                    await _check_csrf(request, session)
                response = await handler(request)
            if session.modified:
                save_session(session, response, settings)
            response.headers.update(SECURITY_HEADERS)
            return response

        return admin_handler


def monotonic() -> float:
    """The clock of the sign-in throttle (a function so it reads well at call sites)."""
    return time.monotonic()
