"""The admin page over real HTTP: sign-in, refusal of anonymous requests on every route,
CSRF on every form, and the sign-in throttle."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from itsdangerous import URLSafeTimedSerializer

from pbm.admin.session import COOKIE_NAME, PUBLIC_ROUTES, AdminRoute
from pbm.web import app
from tests.web.conftest import (
    ADMIN_NAME,
    ADMIN_PASSWORD,
    csrf_of,
    sign_in,
    start_server,
)

pytestmark = pytest.mark.postgres


def all_routes() -> list[Any]:
    """Every route of the real app, routers included (FastAPI >= 0.16x keeps included
    routers lazily; ``iter_route_contexts`` flattens them)."""
    try:
        from fastapi.routing import iter_route_contexts
    except ImportError:  # older FastAPI: app.routes is already flat
        return list(app.routes)
    return list(iter_route_contexts(app.routes))


def admin_routes() -> list[Any]:
    """Every route of the real app under /admin (so a new route cannot be forgotten)."""
    routes = [r for r in all_routes() if (r.path or "").startswith("/admin")]
    assert len(routes) >= 10, "the admin router is not mounted in pbm.web"
    return routes


def test_every_admin_route_is_an_admin_route_with_sign_in_and_csrf_checks() -> None:
    for route in admin_routes():
        original = getattr(route, "original_route", route)
        assert isinstance(original, AdminRoute), route.path


def concrete(path: str) -> str:
    """A path with its parameters filled in (``/admin/games/{game_id}`` -> ``.../1``)."""
    return re.sub(r"\{[^}]+\}", "1", path)


def test_the_only_routes_open_to_anonymous_visitors_are_the_sign_in_form() -> None:
    public = {r.name for r in admin_routes() if r.name in PUBLIC_ROUTES}
    assert public == {"admin_login_form", "admin_login"}
    assert {r.path for r in admin_routes() if r.name in PUBLIC_ROUTES} == {"/admin/login"}


def test_every_admin_route_refuses_anonymous_requests(client: httpx.Client) -> None:
    checked = []
    for route in admin_routes():
        if route.name in PUBLIC_ROUTES:
            continue
        path = concrete(route.path)
        for method in sorted(route.methods):
            response = client.request(method, path, data={"csrf_token": "x", "confirm": "yes"})
            if method in {"GET", "HEAD"}:
                assert response.status_code == 303, (method, path, response.status_code)
                assert response.headers["location"].startswith("/admin/login?next=")
            else:
                assert response.status_code == 401, (method, path, response.status_code)
            checked.append((method, route.path))
    assert ("POST", "/admin/games/{game_id}/actions/{name}") in checked
    assert ("GET", "/admin/games/{game_id}") in checked


def test_a_forged_session_cookie_signs_nobody_in(client: httpx.Client) -> None:
    client.cookies.set(COOKIE_NAME, '{"user": "ada"}', path="/admin")
    assert client.get("/admin/games").status_code == 303
    signed_elsewhere = URLSafeTimedSerializer("another key", salt="pbm-admin-session")
    client.cookies.set(COOKIE_NAME, signed_elsewhere.dumps({"user": "ada"}), path="/admin")
    assert client.get("/admin/games").status_code == 303


def test_an_admin_signs_in_and_out(client: httpx.Client) -> None:
    response = sign_in(client)
    assert response.status_code == 303
    assert response.headers["location"] == "/admin/games"
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax")
    page = client.get("/admin/games")
    assert page.status_code == 200
    assert f"Signed in as {ADMIN_NAME}" in page.text
    assert page.headers["x-frame-options"] == "DENY"
    out = client.post("/admin/logout", data={"csrf_token": csrf_of(page.text)})
    assert out.status_code == 303
    assert client.get("/admin/games").status_code == 303


def test_sign_in_follows_only_local_admin_paths(client: httpx.Client) -> None:
    token = csrf_of(client.get("/admin/login").text)
    response = client.post("/admin/login", data={
        "name": ADMIN_NAME, "password": ADMIN_PASSWORD, "csrf_token": token,
        "next": "https://evil.example/admin"})
    assert response.headers["location"] == "/admin/games"


def test_a_form_without_the_csrf_token_is_rejected(admin_client: httpx.Client) -> None:
    page = admin_client.get("/admin/games/new")
    token = csrf_of(page.text)
    form = {"name": "no-token", "p0_name": "Ann", "p0_email": "ann@example.org",
            "p1_name": "Bob", "p1_email": "bob@example.org"}
    missing = admin_client.post("/admin/games/new", data=form)
    assert missing.status_code == 403
    wrong = admin_client.post("/admin/games/new", data={**form, "csrf_token": token[::-1]})
    assert wrong.status_code == 403
    logout = admin_client.post("/admin/logout", data={})
    assert logout.status_code == 403
    assert admin_client.get("/admin/games").status_code == 200  # still signed in
    right = admin_client.post("/admin/games/new", data={**form, "csrf_token": token})
    assert right.status_code == 200  # the review page
    assert "Create the game" in right.text


def test_the_sign_in_form_itself_needs_its_csrf_token(client: httpx.Client) -> None:
    client.get("/admin/login")
    response = client.post("/admin/login", data={"name": ADMIN_NAME, "password": ADMIN_PASSWORD})
    assert response.status_code == 403
    assert client.get("/admin/games").status_code == 303


@pytest.fixture
def own_server(web_db_url: str, admin_users: str, tmp_path: Path) -> Iterator[httpx.Client]:
    """A server of its own (the throttle locks the test's address out for a minute)."""
    server = start_server(web_db_url, admin_users, tmp_path)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            yield http
    finally:
        server.stop()


def test_a_wrong_password_five_times_in_a_row_is_refused_for_a_while(
    own_server: httpx.Client,
) -> None:
    client = own_server
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        response = sign_in(client, password="wrong password")
        timings.append(time.perf_counter() - started)
        assert response.status_code == 401
        assert "Wrong name or password" in response.text
    started = time.perf_counter()
    refused = sign_in(client)  # even the right password, now
    refused_after = time.perf_counter() - started
    assert refused.status_code == 429
    retry_after = int(refused.headers["retry-after"])
    assert 55 <= retry_after <= 61
    assert "Too many wrong passwords" in refused.text
    assert client.get("/admin/games").status_code == 303
    # The lock is on the name from this address: another admin here is not locked out...
    other = sign_in(client, name="bob", password="bobs password")
    assert other.status_code == 303
    client.cookies.clear()
    # ...until this address has sprayed names past its own limit (10 in a row).
    for number in range(10):
        assert sign_in(client, name=f"guess{number}", password="guess").status_code == 401
    assert sign_in(client, name="bob", password="bobs password").status_code == 429
    print(f"wrong-password responses {[round(t, 3) for t in timings]} s; "
          f"6th attempt refused in {refused_after:.3f} s with Retry-After {retry_after} s")


def test_a_plain_text_password_in_admin_users_signs_nobody_in(
    web_db_url: str, tmp_path: Path
) -> None:
    server = start_server(web_db_url, "eve:hunter22", tmp_path)
    try:
        with httpx.Client(base_url=server.url) as http:
            response = sign_in(http, name="eve", password="hunter22")
            assert response.status_code == 401
            assert "No admin is configured" in response.text
    finally:
        server.stop()


def test_an_https_deployment_with_the_development_secret_key_does_not_start(
    web_db_url: str, admin_users: str, tmp_path: Path
) -> None:
    with pytest.raises(RuntimeError, match="uvicorn exited") as refused:
        start_server(web_db_url, admin_users, tmp_path,
                     {"SECRET_KEY": "dev-only-change-me",
                      "PUBLIC_BASE_URL": "https://tortuga.example.org"})
    assert "SECRET_KEY is unset (the development default)" in str(refused.value)
    assert "secrets.token_urlsafe(32)" in str(refused.value)  # says how to make one
