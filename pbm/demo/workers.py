"""The demo's settings and worker processes: everything ``pbm demo`` runs besides itself.

``demo_environment`` is the demo's whole configuration (SQLite file, filesystem broker, file
transports, quick relays); ``adopt_environment`` points this process at it, and ``Workers``
runs ``celery -A workers.app worker`` and ``beat`` with it in their environment, as the
Procfile does in production.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import workers.app
from pbm.config import reset_settings
from pbm.db import dispose_engines


class DemoError(RuntimeError):
    """The demo cannot go on (one line for the terminal)."""


class WorkerError(DemoError):
    """A worker process died (the message ends with its log)."""


def demo_environment(folder: Path) -> dict[str, str]:
    """The settings of every demo process: SQLite, filesystem broker, file transports."""
    return {
        "DATABASE_URL": f"sqlite:///{folder / 'tortuga.db'}",
        "DATA_DIR": str(folder),
        "REDIS_URL": "",
        "BROKER_URL": "",
        "EMAIL_TRANSPORT": "file",
        "SMS_TRANSPORT": "file",
        "IMAP_HOST": "",
        "TWILIO_FROM_NUMBER": "+15550001667",
        # Replies come fast in a demo: quicker relays, no throttling of a busy table.
        "RELAY_INTERVAL": "5",
        "SWEEP_INTERVAL": "5",
        "RELAY_GRACE_SECONDS": "20",
        "OUTBOUND_EMAIL_PER_SECOND": "1000",
        "OUTBOUND_SMS_PER_SECOND": "1000",
        "INBOUND_PER_SENDER_PER_HOUR": "100000",
        "BROKER_POLLING_INTERVAL": "0.05",
    }


def adopt_environment(env: dict[str, str]) -> None:
    """Point this process (settings, database engines, Celery app) at ``env``."""
    os.environ.update(env)

    reset_settings()
    dispose_engines()

    workers.app.reconfigure()


# ------------------------------------------------------------------ worker processes


class Workers:
    """A Celery worker (prefork, 2 processes) and beat, as the Procfile runs them.

    They run in their own session, so Ctrl-C in the terminal reaches only the demo, which
    then stops them: a warm shutdown (SIGTERM), and SIGKILL for whatever is left.
    """

    def __init__(self, env: dict[str, str], log_dir: Path, *, concurrency: int = 2) -> None:
        self.env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
        self.log_dir = log_dir
        self.concurrency = concurrency
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def commands(self) -> dict[str, list[str]]:
        celery = [sys.executable, "-m", "celery", "-A", "workers.app"]
        return {
            "worker": [*celery, "worker", "--loglevel=INFO", f"--concurrency={self.concurrency}",
                       "--pool=prefork", "--without-gossip", "--without-mingle",
                       "--without-heartbeat", "--hostname=demo@%h"],
            "beat": [*celery, "beat", "--loglevel=INFO"],
        }

    def start(self) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for name, command in self.commands().items():
            log = (self.log_dir / f"{name}.log").open("ab")
            self.processes[name] = subprocess.Popen(
                command, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)
            log.close()

    def check(self) -> None:
        """Raise if a worker process died."""
        for name, process in self.processes.items():
            if process.poll() is not None:
                tail = self.log_tail(name)
                raise WorkerError(f"the Celery {name} exited ({process.returncode}); "
                                f"its log ends with:\n{tail}")

    def log_tail(self, name: str, lines: int = 15) -> str:
        path = self.log_dir / f"{name}.log"
        if not path.exists():
            return "(no log)"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self, timeout: float = 20.0) -> None:
        """Warm shutdown; whatever is still running after ``timeout`` is killed."""
        for process in self.processes.values():
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
        end = time.monotonic() + timeout
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.1, end - time.monotonic()))
        for process in self.processes.values():
            # The worker's pool children share its process group (its own session).
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        self.processes.clear()

    def __enter__(self) -> Workers:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP (a test's timeout, a closed terminal) clean up like Ctrl-C does."""
    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signals = [signal.SIGTERM, signal.SIGHUP]
    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
