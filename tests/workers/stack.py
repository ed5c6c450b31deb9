"""A whole deployment on loopback for one test module: database, Redis, SMTP, the Twilio
emulator, and real worker / beat / web processes sharing one settings environment."""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

import pytest

from pbm import db
from pbm.config import reset_settings
from tests.workers.servers import (
    FakeTwilio,
    ServiceProcess,
    SmtpSink,
    celery_beat,
    celery_worker,
    free_port,
    wait_http,
    wait_until,
)

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = "tortuga.test"


class Stack:
    """Servers and settings of one test module; processes start on demand."""

    def __init__(self, database_url: str, redis_url: str, **overrides: str) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="pbm-stack-"))
        self.smtp = SmtpSink().start()
        self.twilio = FakeTwilio().start()
        self.web_port = free_port()
        self.values: dict[str, str] = {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "BROKER_URL": redis_url,
            "DATA_DIR": str(self.dir / "var"),
            # every process counts into one folder, as the Procfile sets it (pbm.metrics)
            "PROMETHEUS_MULTIPROC_DIR": str(self.dir / "metrics"),
            "MAIL_DOMAIN": DOMAIN,
            "ADMIN_EMAIL": "admin@ops.test",
            "EMAIL_TRANSPORT": "smtp",
            "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": str(self.smtp.port),
            "SMTP_TIMEOUT": "10",
            "SMS_TRANSPORT": "twilio",
            "TWILIO_ACCOUNT_SID": self.twilio.account_sid,
            "TWILIO_AUTH_TOKEN": self.twilio.auth_token,
            "TWILIO_FROM_NUMBER": self.twilio.from_number,
            "TWILIO_API_BASE_URL": self.twilio.base_url,
            "PUBLIC_BASE_URL": f"http://127.0.0.1:{self.web_port}",
            "INBOUND_EMAIL_SECRET": secrets.token_hex(12),
            # Short timeouts so that recovery after a kill takes seconds, not minutes.
            "CELERY_VISIBILITY_TIMEOUT": "6",
            "OUTBOX_LEASE_SECONDS": "4",
            "RELAY_GRACE_SECONDS": "2",
            "RELAY_INTERVAL": "1",
            "SWEEP_INTERVAL": "1",
            "IMAP_POLL_INTERVAL": "1",
            "OUTBOUND_EMAIL_PER_SECOND": "50",
            "OUTBOUND_SMS_PER_SECOND": "50",
        }
        self.values.update(overrides)
        self.processes: list[ServiceProcess] = []
        self.monkeypatch = pytest.MonkeyPatch()

    # ------------------------------------------------------------------ this process

    def apply(self) -> None:
        """Make the test process see the stack's settings (and enqueue into its broker)."""
        from workers.app import reconfigure
        from workers.hooks import install_process_hooks

        for key, value in self.values.items():
            self.monkeypatch.setenv(key, value)
        reset_settings()
        db.dispose_engines()
        reconfigure()
        install_process_hooks()

    def child_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("DATABASE_URL", "REDIS_URL", "BROKER_URL")}
        env.update(self.values)
        env["PYTHONPATH"] = str(ROOT)
        return env

    # ------------------------------------------------------------------ processes

    def worker(self, name: str = "worker", concurrency: int = 2) -> ServiceProcess:
        process = celery_worker(self.child_env(), self.dir, name, concurrency).start()
        self.processes.append(process)
        wait_until(lambda: "ready." in process.log() or process.proc.poll() is not None, 60,
                   f"{name} to be ready")
        assert process.proc.poll() is None, process.log()
        return process

    def beat(self) -> ServiceProcess:
        process = celery_beat(self.child_env(), self.dir).start()
        self.processes.append(process)
        return process

    def web(self) -> ServiceProcess:
        from tests.workers.servers import web_server

        process = web_server(self.child_env(), self.dir, self.web_port).start()
        self.processes.append(process)
        wait_http(f"http://127.0.0.1:{self.web_port}/healthz", 60)
        return process

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def logs(self) -> str:
        return "\n".join(f"----- {p.name}\n{p.log()[-6000:]}" for p in self.processes)

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.stop()
        self.processes.clear()
        self.smtp.stop()
        self.twilio.stop()
        self.monkeypatch.undo()
        restore_defaults()


def restore_defaults() -> None:
    """Leave this process as the test found it: settings from the environment, the Celery
    app on them, no outbox hook (later tests must not publish into our brokers)."""
    from workers.app import reconfigure
    from workers.hooks import uninstall_outbox_hook

    uninstall_outbox_hook()
    reset_settings()
    db.dispose_engines()
    reconfigure()
