"""Settings from environment variables, with safe local defaults.

The defaults run everything on one machine with nothing installed: a SQLite file in the
working directory, a filesystem Celery broker, and file transports that write every message
to ``./outbox`` instead of sending it. Production sets ``DATABASE_URL``, ``REDIS_URL``,
``SMTP_*`` / ``TWILIO_*`` and ``PUBLIC_BASE_URL``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Every knob of the service. Names map to upper-case environment variables."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    # Storage and queue
    database_url: str = "sqlite:///tortuga.db"
    redis_url: str | None = None
    broker_url: str | None = Field(
        default=None, description="Celery broker; defaults to REDIS_URL, else the filesystem."
    )
    data_dir: Path = Path("var")
    broker_polling_interval: float = Field(
        default=0.2, description="Seconds between polls of the filesystem broker (no Redis)."
    )

    # Public identity of the service
    public_base_url: str = "http://127.0.0.1:8000"
    mail_domain: str = "tortuga.localhost"
    mail_from_name: str = "Tortuga by Mail"
    admin_email: str = "admin@tortuga.localhost"

    # Outbound email
    email_transport: str = Field(default="file", description="'smtp' or 'file'")
    smtp_host: str = "127.0.0.1"
    smtp_port: int = 25
    smtp_username: str | None = None
    smtp_password: SecretStr | None = None
    smtp_starttls: bool = False
    smtp_ssl: bool = False
    smtp_timeout: float = 30.0

    # Inbound email
    imap_host: str | None = None
    imap_port: int = 993
    imap_ssl: bool = True
    imap_username: str | None = None
    imap_password: SecretStr | None = None
    imap_folder: str = "INBOX"
    inbound_email_secret: SecretStr | None = Field(
        default=None, description="Shared secret for the raw-MIME inbound webhook."
    )

    # SMS
    sms_transport: str = Field(default="file", description="'twilio' or 'file'")
    twilio_account_sid: str | None = None
    twilio_auth_token: SecretStr | None = None
    twilio_from_number: str | None = None
    twilio_api_base_url: str | None = Field(
        default=None, description="Override Twilio's API host (tests point it at a local server)."
    )

    # Players typed in by the admin (CLI and web form)
    phone_region: str | None = Field(
        default=None, description="Two-letter country (e.g. GB) for phone numbers written "
        "without +country code; unset: every number needs its +country code."
    )

    # Admin web page
    secret_key: SecretStr = SecretStr("dev-only-change-me")
    admin_users: str = Field(
        default="",
        description="Comma-separated name:argon2-hash pairs (`pbm admin hash-password`).",
    )

    # Workers (Celery) and delivery
    celery_visibility_timeout: int = Field(
        default=3600, description="Seconds before Redis redelivers an unacknowledged task."
    )
    outbox_lease_seconds: int = Field(
        default=300, description="A message claimed this long ago and not finished is retried."
    )
    relay_grace_seconds: int = Field(
        default=30, description="Unsent outbox / unprocessed inbound rows older than this are "
        "enqueued again by the relay."
    )
    max_send_attempts: int = 8
    retry_backoff_max: int = 600
    relay_interval: float = 30.0
    sweep_interval: float = 15.0
    imap_poll_interval: float = 60.0
    spool_drain_interval: float = Field(
        default=5.0, description="Seconds between drains of the web process's spool (replies "
        "kept on disk while the database was unavailable).")
    database_connect_timeout: int = Field(
        default=5, description="Seconds to wait for a PostgreSQL connection (a webhook that "
        "cannot get one in time keeps the message in its spool).")

    # Hostile input: who may play a seat, how much of a message is read
    inbound_require_sender_auth: bool = Field(
        default=False, description="Apply a reply only when the receiving server's "
        "Authentication-Results header shows a DKIM, SPF or DMARC pass for the From domain.")
    inbound_authserv_id: str | None = Field(
        default=None, description="Trust only Authentication-Results headers added by this "
        "server (its authserv-id); unset: any.")
    inbound_email_max_bytes: int = Field(
        default=25 * 1024 * 1024, description="Larger inbound emails are refused (HTTP 413).")
    mime_max_parts: int = Field(default=100, description="MIME parts an email may have.")
    mime_max_depth: int = Field(default=12, description="How deep MIME parts may nest.")
    mime_max_headers: int = Field(default=300, description="Header fields per MIME part.")
    mime_max_line_bytes: int = Field(
        default=256 * 1024, description="Longest raw line of an inbound email.")
    reply_max_lines: int = Field(
        default=50, description="Lines of the player's new text that are read as commands.")
    reply_max_bytes: int = Field(
        default=20 * 1024, description="Bytes of the player's new text that are read.")
    say_per_reply: int = Field(default=3, description="SAY lines relayed from one reply.")
    say_per_hour: int = Field(default=20, description="SAY lines one player may relay per hour.")
    api_docs: bool = Field(
        default=False, description="Serve /openapi.json, /docs and /redoc (off: not exposed).")

    # Rate limits
    inbound_per_sender_per_hour: int = 60
    not_understood_answers_per_sender_per_hour: int = Field(
        default=3, description="At most this many answers to replies that changed nothing "
        "(not understood, or nothing in them) per sender per hour; past it the admin is "
        "told once a day and the sender gets no more (two robots cannot ping-pong).",
    )
    outbound_email_per_second: float = 5.0
    outbound_sms_per_second: float = 1.0

    # The operator's view (``pbm.metrics``, ``pbm.health``, ``pbm.alerts``)
    metrics_enabled: bool = Field(
        default=True, description="Count replies, sends and deadlines for /metrics.")
    metrics_token: SecretStr | None = Field(
        default=None, description="Bearer token a Prometheus scrape of /metrics may present "
        "(admins may also use HTTP Basic with their ADMIN_USERS password).")
    heartbeat_interval: float = Field(
        default=15.0, description="Seconds between the beat's heartbeats.")
    ready_heartbeat_max_age: float = Field(
        default=120.0, description="/readyz fails when the beat's heartbeat is older.")
    alert_check_interval: float = Field(
        default=60.0, description="Seconds between checks of the operator alerts.")
    alert_repeat_seconds: int = Field(
        default=3600, description="At most one alert email of each kind this often.")
    alert_outbox_age_seconds: int = Field(
        default=600, description="Alert when the oldest unsent message is older.")
    alert_sweep_late_seconds: int = Field(
        default=300, description="Alert when the deadline sweep runs this much late.")
    alert_transport_failing_seconds: int = Field(
        default=600, description="Alert when a transport failed every send this long.")
    log_format: str = Field(default="text", description="'text' or 'json' (one object a line).")

    # ---- several hosts (issue 39): the beat lock ------------------------------------------
    beat_lock_timeout: int = Field(
        default=30, ge=3, description="Seconds the beat lock in Redis outlives its holder: a "
        "beat on another host takes over this long after the one that held it died.")
    # ---- end of several hosts -----------------------------------------------------------

    @property
    def celery_broker_url(self) -> str:
        """The broker: explicit, else Redis, else a serverless filesystem broker."""
        if self.broker_url:
            return self.broker_url
        if self.redis_url:
            return self.redis_url
        return "filesystem://"

    @property
    def is_sqlite(self) -> bool:
        """True when the database is the embedded SQLite default."""
        return self.database_url.startswith("sqlite")


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()


def reset_settings() -> None:
    """Forget cached settings (tests change the environment)."""
    get_settings.cache_clear()
