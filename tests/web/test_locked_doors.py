"""The admin page's doors, tried as an attacker would, over real HTTP into real server
processes: a session cookie signed with a known key opens nothing without a session the
server opened; signing out and a new password end a session; bodies are capped before
they are read; wrong passwords lock a name only from the address that tried them, in every
web process at once (the throttle lives in Redis)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from itsdangerous import URLSafeTimedSerializer

from pbm.admin.auth import hash_password
from pbm.admin.session import COOKIE_NAME
from tests.web.conftest import (
    ADMIN_NAME,
    LiveServer,
    csrf_of,
    sign_in,
    start_server,
)

pytestmark = pytest.mark.postgres

SECRET = "a-test-secret-of-more-than-twenty-four-characters"


@pytest.fixture
def server(web_db_url: str, admin_users: str, tmp_path: Path) -> Iterator[LiveServer]:
    live = start_server(web_db_url, admin_users, tmp_path, {"SECRET_KEY": SECRET})
    yield live
    live.stop()


def signed(key: str, data: dict[str, str]) -> str:
    return URLSafeTimedSerializer(key, salt="pbm-admin-session").dumps(data)


def test_a_cookie_signed_with_the_right_key_but_no_open_session_signs_nobody_in(
    web_db_url: str, admin_users: str, tmp_path: Path
) -> None:
    # The attack of the review: whoever knows the key signs {"user": ..., "csrf": ...}.
    live = start_server(web_db_url, admin_users, tmp_path,
                        {"SECRET_KEY": "dev-only-change-me"})  # loopback: allowed to start
    try:
        with httpx.Client(base_url=live.url) as http:
            http.cookies.set(COOKIE_NAME, signed("dev-only-change-me",
                                                 {"user": ADMIN_NAME, "csrf": "x"}),
                             path="/admin")
            assert http.get("/admin/games").status_code == 303
            refused = http.post("/admin/games/1/spoilers", data={"csrf_token": "x"})
            assert refused.status_code == 401
            http.cookies.set(COOKIE_NAME, signed("dev-only-change-me",
                                                 {"sid": "guessed", "csrf": "x"}),
                             path="/admin")
            assert http.get("/admin/games").status_code == 303
    finally:
        live.stop()


def test_signing_out_ends_the_session_on_the_server(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as http:
        assert sign_in(http).status_code == 303
        stolen = http.cookies.get(COOKIE_NAME, path="/admin")
        page = http.get("/admin/games")
        assert page.status_code == 200
        assert http.post("/admin/logout",
                         data={"csrf_token": csrf_of(page.text)}).status_code == 303
    with httpx.Client(base_url=server.url) as replay:
        replay.cookies.set(COOKIE_NAME, stolen, path="/admin")
        assert replay.get("/admin/games").status_code == 303


def test_a_new_password_ends_every_session_opened_with_the_old_one(
    web_db_url: str, admin_users: str, tmp_path: Path
) -> None:
    first = start_server(web_db_url, admin_users, tmp_path / "a", {"SECRET_KEY": SECRET})
    try:
        with httpx.Client(base_url=first.url) as http:
            assert sign_in(http).status_code == 303
            cookie = http.cookies.get(COOKIE_NAME, path="/admin")
            assert http.get("/admin/games").status_code == 200
    finally:
        first.stop()
    changed = f"{ADMIN_NAME}:{hash_password('a brand new password')}"
    second = start_server(web_db_url, changed, tmp_path / "b", {"SECRET_KEY": SECRET})
    try:
        with httpx.Client(base_url=second.url) as http:
            http.cookies.set(COOKIE_NAME, cookie, path="/admin")
            assert http.get("/admin/games").status_code == 303
    finally:
        second.stop()
    same = start_server(web_db_url, admin_users, tmp_path / "c", {"SECRET_KEY": SECRET})
    try:
        with httpx.Client(base_url=same.url) as http:  # the old password back: still open
            http.cookies.set(COOKIE_NAME, cookie, path="/admin")
            assert http.get("/admin/games").status_code == 200
    finally:
        same.stop()


def raw_request(url: str, head: str, chunks: Iterator[bytes]) -> bytes:
    """Send ``head`` then ``chunks`` on a plain socket until the server answers; the
    answer's first bytes (the server may answer before the body is done)."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as conn:
        conn.sendall(head.encode())
        try:
            for chunk in chunks:
                conn.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        return conn.recv(4096)


def test_a_huge_sign_in_form_is_refused_before_it_is_read(server: LiveServer) -> None:
    declared = 300 * 1024 * 1024
    head = (f"POST /admin/login HTTP/1.1\r\nHost: x\r\nContent-Type: "
            f"application/x-www-form-urlencoded\r\nContent-Length: {declared}\r\n\r\n")
    answer = raw_request(server.url, head, iter([b"name=" + b"a" * 65536]))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_a_streamed_form_without_a_length_is_cut_at_the_cap(server: LiveServer) -> None:
    head = ("POST /admin/login HTTP/1.1\r\nHost: x\r\nContent-Type: "
            "application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"a" * 8192
    chunks = (b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(200))  # 1.6 MB
    answer = raw_request(server.url, head, chunks)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_a_small_form_still_signs_in(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as http:
        assert sign_in(http).status_code == 303


def client_from(url: str, address: str) -> httpx.Client:
    """An HTTP client whose requests come from ``address`` (another loopback address)."""
    return httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address=address))


@pytest.mark.redis
def test_wrong_passwords_lock_the_name_only_from_that_address_in_every_web_process(
    web_db_url: str, admin_users: str, tmp_path: Path, redis_url: str
) -> None:
    import redis

    shared = redis_url
    store = redis.Redis.from_url(shared)
    store.delete(*store.keys("pbm:signin:*") or ["none"])
    settings = {"SECRET_KEY": SECRET, "REDIS_URL": shared, "BROKER_URL": "memory://"}
    one = start_server(web_db_url, admin_users, tmp_path / "one", settings)
    two = start_server(web_db_url, admin_users, tmp_path / "two", settings)
    try:
        with client_from(one.url, "127.0.0.3") as attacker:
            for _ in range(5):
                assert sign_in(attacker, password="wrong").status_code == 401
            assert sign_in(attacker).status_code == 429
        with client_from(two.url, "127.0.0.3") as attacker_elsewhere:  # the other process
            assert sign_in(attacker_elsewhere).status_code == 429
        with client_from(two.url, "127.0.0.1") as admin:  # the real admin, their address
            assert sign_in(admin).status_code == 303
            assert admin.get("/admin/games").status_code == 200
    finally:
        one.stop()
        two.stop()
        store.delete(*store.keys("pbm:signin:*") or ["none"])
