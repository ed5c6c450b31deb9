"""The package is the product: the wheel ``pip wheel .`` builds, installed into a fresh
virtualenv in a temporary folder (the current directory is not the checkout and nothing
points back into it), migrates a database, plays ``pbm demo`` to the end and serves a
signed-in admin page, from the installed package alone."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pbm.admin.auth import hash_password
from tests.services import free_port
from tests.web.conftest import csrf_of
from tests.workers.servers import wait_until

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
#: the lock the service is installed from in production (README, "Running it for real")
SERVICE_LOCK = REPO / "requirements" / "service.txt"


def run(command: list[str | Path], cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 600) -> str:
    """Run ``command``; its output, or a failure that shows it."""
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, (
        f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def outside_env(venv: Path, home: Path, **values: str) -> dict[str, str]:
    """An environment with only the fresh virtualenv on PATH: no PYTHONPATH, none of the
    test run's service settings (databases, Redis, metrics folder)."""
    env = {key: os.environ[key] for key in ("HOME", "LANG", "LC_ALL", "TMPDIR", "PIP_CERT",
                                              "PIP_DEFAULT_TIMEOUT", "PIP_FIND_LINKS")
           if key in os.environ}
    env.update(PATH=f"{venv / 'bin'}:/usr/bin:/bin", PYTHONNOUSERSITE="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", DATA_DIR=str(home / "var"), **values)
    return env


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    """The operator's folder: where the commands run, far from the checkout."""
    folder = tmp_path / "site"
    folder.mkdir()
    assert not folder.resolve().is_relative_to(REPO)
    yield folder


def test_the_installed_wheel_migrates_plays_a_demo_and_serves_the_admin_page(
        tmp_path: Path, site: Path) -> None:
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, REPO],
        cwd=tmp_path)
    (wheel,) = dist.glob("tortuga_by_mail-*.whl")

    # every template and help file of the source tree travels in the wheel
    packed = set(zipfile.ZipFile(wheel).namelist())
    sources = sorted(p.relative_to(REPO).as_posix()
                     for p in (REPO / "templates").rglob("*") if p.is_file())
    assert any(s.startswith("templates/help/") for s in sources)
    missing = [s for s in sources if f"pbm/{s}" not in packed]
    assert not missing, f"not in the wheel: {missing}"
    for needed in ("pbm/alembic.ini", "pbm/migrations/env.py", "pbm/fonts/DejaVuSans.ttf",
                   "pbm/locale/ko/LC_MESSAGES/messages.mo", "pbm/i18n/glossary.toml"):
        assert needed in packed

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv], cwd=site)
    python = venv / "bin" / "python"
    env = outside_env(venv, site)
    if SERVICE_LOCK.exists():  # exactly what production installs: the lock, then the wheel
        run([python, "-m", "pip", "install", "-q", "--require-hashes", "-r", SERVICE_LOCK],
            cwd=site, env=env)
        run([python, "-m", "pip", "install", "-q", "--no-deps", wheel], cwd=site, env=env)
    else:
        run([python, "-m", "pip", "install", "-q", wheel], cwd=site, env=env)
    where = run([python, "-c", "import engine, pbm, workers; "
                 "print(pbm.__file__, engine.__file__, workers.__file__)"], cwd=site, env=env)
    assert all(Path(p).is_relative_to(venv) for p in where.split()), where

    pbm = venv / "bin" / "pbm"
    database = f"sqlite:///{site / 'tortuga.db'}"
    upgraded = run([pbm, "db", "upgrade"], cwd=site, env=outside_env(
        venv, site, DATABASE_URL=database))
    assert (site / "tortuga.db").is_file(), upgraded

    demo = run([pbm, "demo", "--seed", "1", "--players", "5", "--dir", site / "demo"],
               cwd=site, env=outside_env(venv, site))
    print("\n".join(demo.splitlines()[-8:]))
    assert "is over after" in demo and "Transcript" in demo, demo
    emails = list((site / "demo" / "outbox" / "email").glob("*.eml"))
    assert emails and all(b"text/html" in mail.read_bytes() for mail in emails[:5])

    # the admin page, over the demo's finished game, signed in through the real form
    port = free_port()
    password = "correct horse battery staple"
    web_env = outside_env(
        venv, site, DATABASE_URL=f"sqlite:///{site / 'demo' / 'tortuga.db'}",
        ADMIN_USERS=f"ada:{hash_password(password)}", SECRET_KEY="s" * 40,
        PUBLIC_BASE_URL=f"http://127.0.0.1:{port}")
    log = (tmp_path / "web.log").open("wb")
    web = subprocess.Popen([str(pbm), "web", "--port", str(port)], cwd=site, env=web_env,
                           stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: healthy(base) or web.poll() is not None, 60, "pbm web to answer")
        assert web.poll() is None, (tmp_path / "web.log").read_text()
        with httpx.Client(base_url=base, timeout=30) as client:
            token = csrf_of(client.get("/admin/login").text)
            signed_in = client.post("/admin/login", data={
                "name": "ada", "password": password, "csrf_token": token, "next": ""})
            assert signed_in.status_code == 303, signed_in.text
            games = client.get("/admin/games")
            assert games.status_code == 200, games.text
            assert "demo-1" in games.text and "finished" in games.text.lower()
            game = client.get("/admin/games/1")
            assert game.status_code == 200, game.text
            assert "<svg" in game.text and "demo-1" in game.text
    finally:
        web.terminate()
        web.wait(timeout=20)
        log.close()


def healthy(base: str) -> bool:
    try:
        return httpx.get(base + "/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
