"""Fixtures of the admin web tests: a real database, the real app served by uvicorn in a
subprocess on a free loopback port, and a signed-in HTTP client."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from pbm.admin.auth import hash_password
from tests.services import drop_database, free_port, migrated_database

ADMIN_NAME = "ada"
ADMIN_PASSWORD = "correct horse battery staple"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def admin_users() -> str:
    """An ``ADMIN_USERS`` value with one admin (hashing once per session: argon2 is slow)."""
    return f"{ADMIN_NAME}:{hash_password(ADMIN_PASSWORD)},bob:{hash_password('bobs password')}"


@pytest.fixture(scope="module")
def web_db_url(postgres_url: str) -> Iterator[str]:
    """A migrated PostgreSQL database of its own for one test module."""
    url = migrated_database(postgres_url, "pbm_web")
    yield url
    drop_database(postgres_url, url)


@dataclass
class LiveServer:
    """The real app (``pbm.web:app``) under uvicorn in a subprocess."""

    url: str
    database_url: str
    data_dir: Path
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def start_server(database_url: str, admin_users: str, workdir: Path,
                 extra_env: dict[str, str] | None = None) -> LiveServer:
    """Serve the app against ``database_url`` and wait until /healthz answers."""
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    data_dir = workdir / "var"
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "ADMIN_USERS": admin_users,
        "SECRET_KEY": "test-secret-" + uuid.uuid4().hex,
        "DATA_DIR": str(data_dir),
        "PUBLIC_BASE_URL": url,
        "EMAIL_TRANSPORT": "file",
        "SMS_TRANSPORT": "file",
        "REDIS_URL": "",  # a filesystem broker of its own under DATA_DIR: no shared queue
        "BROKER_URL": "",
        "PYTHONUNBUFFERED": "1",
        **(extra_env or {}),
    }
    log_path = workdir / "uvicorn.log"
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "pbm.web:app", "--host", "127.0.0.1",
             "--port", str(port), "--log-level", "warning"],
            cwd=workdir, env=env, stdout=log_file, stderr=subprocess.STDOUT,
        )
    server = LiveServer(url, database_url, data_dir, process, log_path)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"uvicorn exited:\n{server.log()}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"uvicorn did not answer in 30 s:\n{server.log()}")


@pytest.fixture(scope="module")
def live_server(web_db_url: str, admin_users: str,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The real app on a free loopback port, against the module's PostgreSQL database
    (tests of one module share it: each uses its own game names)."""
    server = start_server(web_db_url, admin_users, tmp_path_factory.mktemp("web"))
    yield server
    server.stop()


CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_of(html: str) -> str:
    """The CSRF token in a page's forms."""
    match = CSRF_RE.search(html)
    assert match, "no CSRF field on the page"
    return match.group(1)


def sign_in(client: httpx.Client, name: str = ADMIN_NAME,
            password: str = ADMIN_PASSWORD) -> httpx.Response:
    """Sign ``client`` in through the real form; returns the sign-in POST's response."""
    form = client.get("/admin/login")
    token = csrf_of(form.text)
    return client.post("/admin/login", data={"name": name, "password": password,
                                             "csrf_token": token, "next": ""})


@pytest.fixture
def client(live_server: LiveServer) -> Iterator[httpx.Client]:
    """An anonymous HTTP client of the live server (redirects not followed)."""
    with httpx.Client(base_url=live_server.url, timeout=30) as http:
        yield http


@pytest.fixture
def admin_client(client: httpx.Client) -> httpx.Client:
    """The same client, signed in as the test admin."""
    response = sign_in(client)
    assert response.status_code == 303, response.text
    return client
