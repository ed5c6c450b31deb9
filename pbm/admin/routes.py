"""The admin web page: sign-in, games list, game page, actions, quarantine.

Every route is an ``AdminRoute`` (see ``pbm.admin.session``): anonymous requests are refused
and every POST carries the session's CSRF token. Pages only read; each change is a POST
from a confirmation page and goes through ``pbm.games`` (via ``pbm.admin.actions``).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from pbm.admin import actions, audit, queries, sessions
from pbm.admin.auth import THROTTLE, check_password, parse_admin_users, throttle_keys
from pbm.admin.board_svg import board_svg
from pbm.admin.session import AdminRoute, AdminSession, current_admin, get_session, monotonic
from pbm.admin.templating import page
from pbm.config import get_settings
from pbm.db import session_scope
from pbm.deployment import MAKE_A_KEY, secret_key_problem
from pbm.models import GameStatus, InboundMessage

log = logging.getLogger(__name__)
router = APIRouter(prefix="/admin", route_class=AdminRoute, include_in_schema=False)


def _now() -> datetime:
    return datetime.now(UTC)


def _redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def _safe_next(target: str | None) -> str:
    """Only local admin paths are followed after sign-in (no open redirect)."""
    if not target:
        return "/admin/games"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.startswith("/admin"):
        return "/admin/games"
    return parts.path


# ------------------------------------------------------------------ sign-in

INSECURE_KEY = ("SECRET_KEY is still the development default (or too short) on a deployment "
                "reachable from outside: nobody can sign in until it is set. " + MAKE_A_KEY)


def _default_key_in_production() -> bool:
    """True when a deployment reachable from outside has no secret of its own to sign with."""
    return secret_key_problem(get_settings()) is not None


@router.get("/login", name="admin_login_form")
def login_form(request: Request, next: str = "") -> Response:
    """The sign-in form."""
    if get_session(request).user:
        return _redirect(_safe_next(next))
    if _default_key_in_production():
        return page(request, "login.html", status_code=503, next=_safe_next(next), name="",
                    error=INSECURE_KEY)
    return page(request, "login.html", next=_safe_next(next), name="", error=None)


@router.post("/login", name="admin_login")
def login(
    request: Request,
    name: str = Form(""),
    password: str = Form(""),
    next: str = Form(""),
) -> Response:
    """Check a name and password; after 5 wrong ones in a row the name/IP waits."""
    session = get_session(request)
    name = name.strip()[:60]
    keys = throttle_keys(name, request.client.host if request.client else None)
    wait = THROTTLE.retry_after(keys, monotonic())
    if wait > 0:
        log.warning("admin sign-in refused (throttled) for %s", keys)
        response = page(
            request, "login.html", status_code=429, next=_safe_next(next), name=name,
            error=f"Too many wrong passwords. Try again in {int(wait) + 1} seconds.",
        )
        response.headers["Retry-After"] = str(int(wait) + 1)
        return response
    settings = get_settings()
    if _default_key_in_production():
        return page(request, "login.html", status_code=503, next=_safe_next(next), name=name,
                    error=INSECURE_KEY)
    admins = parse_admin_users(settings.admin_users)
    if not check_password(admins, name, password):
        THROTTLE.failed(keys, monotonic())
        log.warning("admin sign-in failed for %r", name)
        return page(
            request, "login.html", status_code=401, next=_safe_next(next), name=name,
            error="Wrong name or password." if admins else
            "No admin is configured: set ADMIN_USERS (see `pbm admin hash-password`).",
        )
    THROTTLE.succeeded(keys)
    session.clear()  # a fresh session (and CSRF token) at every sign-in
    session["sid"] = sessions.open_session(name, admins[name], _now())
    session["user"] = name
    session.csrf_token()
    audit.record(name, "sign_in", _now())
    session.flash(f"Signed in as {name}.")
    return _redirect(_safe_next(next))


@router.post("/logout", name="admin_logout")
def logout(request: Request, admin: str = Depends(current_admin)) -> Response:
    """Sign out: the session ends on the server too (its cookie opens nothing after)."""
    session = get_session(request)
    token = session.get("sid")
    if isinstance(token, str):
        sessions.close_session(token)
    audit.record(admin, "sign_out", _now())
    session.clear()
    return _redirect("/admin/login")


# ------------------------------------------------------------------ games


@router.get("", name="admin_home")
@router.get("/", name="admin_home_slash")
def home() -> Response:
    """The admin page starts at the games list."""
    return _redirect("/admin/games")


@router.get("/games", name="admin_games")
def games_list(request: Request, status: str = "") -> Response:
    """Every game: status, players, who is awaited, deadlines, last activity."""
    now = _now()
    if status and status not in {s.value for s in GameStatus}:
        status = ""
    with session_scope(write=False) as db:
        rows = queries.list_games(db, now, status or None)
        counts = queries.status_counts(db)
    return page(request, "games.html", rows=rows, counts=counts, status=status, now=now)


@router.get("/games/new", name="admin_game_new")
def game_new(request: Request) -> Response:
    """The form to create a game."""
    return page(request, "game_new.html", form=actions.CreateForm.empty(), errors=[])


@router.post("/games/new", name="admin_game_create")
async def game_create(request: Request, admin: str = Depends(current_admin)) -> Response:
    """Review (first POST) then create (the POST with ``confirm=yes``) a game."""
    form = actions.CreateForm.from_form(await request.form())
    errors = form.validate()
    if errors or form.confirm == "edit":
        return page(request, "game_new.html", status_code=422, form=form, errors=errors)
    if form.confirm != "yes":
        return page(request, "game_confirm.html", form=form)
    now = _now()
    try:
        game_id = actions.create_game(form, admin, now)
    except actions.ActionError as exc:
        return page(request, "game_new.html", status_code=422, form=form, errors=[str(exc)])
    audit.record(admin, "create", now, game_id, name=form.name)
    get_session(request).flash(f"Game “{form.name}” created. Invite the players when ready.")
    return _redirect(f"/admin/games/{game_id}")


def _spoiler_games(session: AdminSession) -> list[int]:
    games = session.get("spoilers", [])
    return [g for g in games if isinstance(g, int)]


@router.get("/games/{game_id}", name="admin_game")
def game_page(request: Request, game_id: int) -> Response:
    """One game: board, awaited seats, reminders, public log, per-seat messages."""
    now = _now()
    show_spoilers = game_id in _spoiler_games(get_session(request))
    with session_scope(write=False) as db:
        state = actions.load_state(db, game_id)
        public = actions.public_view(state)
        detail = queries.game_detail(db, game_id, now, public)
    if detail is None:
        raise HTTPException(404, "No such game.")
    secrets = actions.seat_secrets(state) if show_spoilers and state is not None else {}
    available = actions.available(detail.game.status)
    return page(
        request,
        "game.html",
        d=detail,
        board=board_svg(public) if public else None,
        show_spoilers=show_spoilers,
        secrets=secrets,
        spoiler_log=audit.entries(game_id=game_id, action="show_spoilers", limit=10),
        available=available,
        now=now,
    )


@router.post("/games/{game_id}/spoilers", name="admin_game_spoilers")
def game_spoilers(
    request: Request, game_id: int, show: str = Form(""), admin: str = Depends(current_admin)
) -> Response:
    """Show or hide the secrets of a game for this session; showing is audited."""
    session = get_session(request)
    games = [g for g in _spoiler_games(session) if g != game_id]
    if show == "1":
        games.append(game_id)
        audit.record(admin, "show_spoilers", _now(), game_id)
        session.flash("Spoilers shown. This was logged with your name.", "warn")
    session["spoilers"] = games[-20:]
    return _redirect(f"/admin/games/{game_id}" + ("#secrets" if show == "1" else ""))


# ------------------------------------------------------------------ actions


def _action(name: str) -> actions.Action:
    action = actions.ACTIONS.get(name)
    if action is None:
        raise HTTPException(404, "No such action.")
    return action


@router.get("/games/{game_id}/actions/{name}", name="admin_action_confirm")
def action_confirm(request: Request, game_id: int, name: str) -> Response:
    """The confirmation page of one action, with its fields."""
    action = _action(name)
    now = _now()
    with session_scope(write=False) as db:
        detail = queries.game_detail(db, game_id, now, None)
    if detail is None:
        raise HTTPException(404, "No such game.")
    return page(request, "action.html", action=action, d=detail, values={}, error=None, now=now)


@router.post("/games/{game_id}/actions/{name}", name="admin_action")
async def action_run(
    request: Request, game_id: int, name: str, admin: str = Depends(current_admin)
) -> Response:
    """Carry out one confirmed action through pbm.games and say how it went."""
    action = _action(name)
    values: dict[str, Any] = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    now = _now()
    try:
        message = action.run(game_id, values, admin, now)
    except actions.ActionError as exc:
        with session_scope(write=False) as db:
            detail = queries.game_detail(db, game_id, now, None)
        if detail is None:
            raise HTTPException(404, "No such game.") from exc
        return page(request, "action.html", status_code=422, action=action, d=detail,
                    values=values, error=str(exc), now=now)
    audit.record(admin, name, now, game_id, **{k: v for k, v in values.items()
                                                  if k in action.field_names})
    get_session(request).flash(message)
    return _redirect(f"/admin/games/{game_id}")


# ------------------------------------------------------------------ quarantine


@router.get("/quarantine", name="admin_quarantine")
def quarantine(request: Request) -> Response:
    """Inbound messages that could not be processed, waiting for the admin."""
    with session_scope(write=False) as db:
        rows = queries.quarantined(db)
        items = [(m, queries.inbound_preview(m)) for m in rows]
    return page(request, "quarantine.html", items=items)


@router.get("/quarantine/{message_id}/retry", name="admin_quarantine_confirm")
def quarantine_confirm(request: Request, message_id: int) -> Response:
    """The confirmation page of a retry, with the whole message and its error."""
    with session_scope(write=False) as db:
        message = db.get(InboundMessage, message_id)
        if message is None:
            raise HTTPException(404, "No such message.")
        preview = queries.inbound_preview(message)
    return page(request, "quarantine_retry.html", m=message, preview=preview)


@router.post("/quarantine/{message_id}/retry", name="admin_quarantine_retry")
def quarantine_retry(
    request: Request, message_id: int, admin: str = Depends(current_admin)
) -> Response:
    """Process a quarantined message again."""
    now = _now()
    try:
        message = actions.retry_inbound(message_id, now)
    except actions.ActionError as exc:
        get_session(request).flash(str(exc), "error")
    else:
        audit.record(admin, "retry_inbound", now, None, message_id=message_id)
        get_session(request).flash(message)
    return _redirect("/admin/quarantine")
