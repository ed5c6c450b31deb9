"""A deployment reachable from outside refuses to start without a secret of its own, and
sender authentication refuses to start without the receiving server's id: each real
process (the web app, ``pbm web``, the Celery worker and beat) exits and says why."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = {"PUBLIC_BASE_URL": "https://tortuga.example.org"}
GOOD_KEY = {"SECRET_KEY": "k" * 40}

COMMANDS = {
    "pbm web": [sys.executable, "-m", "pbm.cli", "web", "--port", "1"],
    "uvicorn": [sys.executable, "-m", "uvicorn", "pbm.web:app", "--port", "1"],
    "worker": [sys.executable, "-m", "celery", "-A", "workers.app", "worker", "--pool", "solo"],
    "beat": [sys.executable, "-m", "celery", "-A", "workers.app", "beat"],
}


def run(command: list[str], tmp_path: Path, settings: dict[str, str]) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SECRET_KEY", "INBOUND_"))}
    env.update({"DATABASE_URL": f"sqlite:///{tmp_path}/t.db", "DATA_DIR": str(tmp_path / "var"),
                "REDIS_URL": "", "BROKER_URL": "", "PYTHONPATH": str(ROOT), **settings})
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    return done.returncode, (done.stdout + done.stderr).decode(errors="replace")


@pytest.mark.parametrize("process", sorted(COMMANDS))
def test_a_public_deployment_without_a_secret_key_does_not_start(process: str,
                                                                tmp_path: Path) -> None:
    code, output = run(COMMANDS[process], tmp_path, PUBLIC)
    assert code != 0
    assert "SECRET_KEY is unset" in output
    assert "secrets.token_urlsafe(32)" in output


@pytest.mark.parametrize("process", ["worker", "pbm web"])
def test_a_short_secret_key_is_refused_too(process: str, tmp_path: Path) -> None:
    code, output = run(COMMANDS[process], tmp_path, {**PUBLIC, "SECRET_KEY": "hunter2"})
    assert code != 0
    assert "SECRET_KEY is shorter than" in output


@pytest.mark.parametrize("process", ["worker", "pbm web"])
def test_sender_authentication_without_the_servers_id_does_not_start(process: str,
                                                                     tmp_path: Path) -> None:
    code, output = run(COMMANDS[process], tmp_path,
                       {**PUBLIC, **GOOD_KEY, "INBOUND_REQUIRE_SENDER_AUTH": "true"})
    assert code != 0
    assert "INBOUND_AUTHSERV_ID is unset" in output


def test_the_checks_pass_for_a_loopback_or_properly_configured_deployment() -> None:
    from pbm.config import Settings
    from pbm.deployment import check

    check(Settings(_env_file=None))  # type: ignore[call-arg]  # the embedded default
    check(Settings(_env_file=None, public_base_url="https://x.example.org",  # type: ignore[call-arg]
                   secret_key="k" * 40, inbound_require_sender_auth=True,
                   inbound_authserv_id="mx.example.org"))
