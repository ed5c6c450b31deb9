"""The installed project: the console script, settings defaults, and the Procfile."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from pbm.config import Settings
from tests.services import free_port
from tests.workers.servers import wait_until

ROOT = Path(__file__).resolve().parents[1]
PBM = Path(sys.executable).parent / "pbm"


def test_pbm_help_lists_its_commands() -> None:
    result = subprocess.run([str(PBM), "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    for command in ("demo", "web"):
        assert command in result.stdout


def test_settings_default_to_an_embedded_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATABASE_URL", "REDIS_URL", "BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.database_url.startswith("sqlite:///")
    assert settings.celery_broker_url == "filesystem://"
    assert settings.email_transport == "file"


def test_settings_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://u@h/db")
    monkeypatch.setenv("REDIS_URL", "redis://h:6379/1")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.database_url == "postgresql+psycopg://u@h/db"
    assert settings.celery_broker_url == "redis://h:6379/1"


@pytest.mark.slow
def test_procfile_web_worker_and_beat_start_and_stay_up(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL"}}
    env.update(
        PORT=str(port),
        PATH=f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
        DATABASE_URL=f"sqlite:///{tmp_path / 'procfile.db'}",
        DATA_DIR=str(tmp_path / "var"),
        HEARTBEAT_INTERVAL="1",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"),  # not the Procfile's var/metrics
        PYTHONPATH=str(ROOT),
    )
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "honcho"), "-f", str(ROOT / "Procfile"),
         "-d", str(tmp_path), "start", "web", "worker", "beat"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        healthy = False
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    healthy = r.status == 200
                    break
            except OSError:
                time.sleep(0.5)
        assert healthy, "web never answered /healthz"
        # The heartbeat is a task beat schedules and a worker runs: both are up and working.
        heartbeat = tmp_path / "var" / "heartbeats" / "beat"
        wait_until(lambda: heartbeat.exists() or proc.poll() is not None, 60,
                   "a heartbeat from beat through the worker")
        assert proc.poll() is None, "honcho stopped: a Procfile process exited"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            output, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
    assert "celery@" in output or "ready" in output.lower(), output[-3000:]
    assert "beat" in output.lower(), output[-3000:]
