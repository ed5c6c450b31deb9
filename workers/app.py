"""The Celery application: broker from settings, reliability settings, the beat schedule.

Production uses Redis (``REDIS_URL``); the embedded default uses kombu's filesystem
transport under ``<data_dir>/broker`` so a worker and a web process can share a queue with
no server. Tasks live in ``workers.tasks``; they take ids, keep their state in SQL and are
safe to run twice. Exactly one scheduler runs: celery-redbeat (a Redis lock) with Redis,
Celery's file-backed default scheduler otherwise.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import redis
from celery import Celery
from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    beat_init,
    task_postrun,
    worker_init,
    worker_process_init,
)
from kombu import pools as kombu_pools

from pbm.config import Settings, get_settings
from pbm.db import dispose_engines
from pbm.logs import configure as configure_logs
from workers import memory, memwatch

TASK_PROCESS_INBOUND = "pbm.process_inbound"
TASK_SEND_OUTBOUND = "pbm.send_outbound"
TASK_SEND_BATCH = "pbm.send_outbound_batch"
TASK_RELAY_OUTBOX = "pbm.relay_outbox"
TASK_RELAY_INBOUND = "pbm.relay_inbound"
TASK_SWEEP_DEADLINES = "pbm.sweep_deadlines"
TASK_POLL_IMAP = "pbm.poll_imap"
TASK_HEARTBEAT = "pbm.heartbeat"
TASK_CHECK_ALERTS = "pbm.check_alerts"

#: The filesystem broker with atomic writes (see ``workers.fs_broker``).
FILESYSTEM_TRANSPORT = "workers.fs_broker:Transport"


def uses_redis(settings: Settings) -> bool:
    """True when the broker is Redis (then beat uses redbeat and its Redis lock)."""
    return settings.celery_broker_url.startswith(("redis://", "rediss://", "unix://"))


def _filesystem_options(settings: Settings) -> dict[str, Any]:
    folder = settings.data_dir / "broker"
    for sub in ("in", "processed", "control"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": str(folder / "in"),
        "data_folder_out": str(folder / "in"),
        "processed_folder": str(folder / "processed"),
        "store_processed": False,
        "control_folder": str(folder / "control"),
        "polling_interval": settings.broker_polling_interval,
    }


def _redis_options(settings: Settings) -> dict[str, Any]:
    visibility = settings.celery_visibility_timeout
    # Sweep for abandoned (unacked) tasks often enough for the visibility timeout: with
    # throttle 1 the interval alone decides (kombu's default is 10 x 10 s).
    restore_every = max(1, min(10, visibility // 4))
    return {
        "visibility_timeout": visibility,
        "unacked_restore_interval": restore_every,
        "unacked_restore_throttle": 1,
        "socket_timeout": 30,
        "socket_connect_timeout": 10,
        "socket_keepalive": True,
        "health_check_interval": 10,
    }


def beat_schedule(settings: Settings) -> dict[str, dict[str, Any]]:
    """The periodic tasks: relays (nothing lost), deadlines, and IMAP when configured."""
    schedule: dict[str, dict[str, Any]] = {
        "relay-outbox": {"task": TASK_RELAY_OUTBOX, "schedule": settings.relay_interval},
        "relay-inbound": {"task": TASK_RELAY_INBOUND, "schedule": settings.relay_interval},
        "sweep-deadlines": {"task": TASK_SWEEP_DEADLINES, "schedule": settings.sweep_interval},
        "heartbeat": {"task": TASK_HEARTBEAT, "schedule": settings.heartbeat_interval},
        "check-alerts": {"task": TASK_CHECK_ALERTS, "schedule": settings.alert_check_interval},
    }
    if settings.imap_host:
        schedule["poll-imap"] = {"task": TASK_POLL_IMAP, "schedule": settings.imap_poll_interval}
    for entry in schedule.values():
        # A periodic task that waited longer than its period is superseded by the next one.
        entry["options"] = {"expires": max(float(entry["schedule"]), 5.0)}
    return schedule


def make_celery(settings: Settings | None = None) -> Celery:
    """Build the Celery app for the configured broker (Redis, or the filesystem default)."""
    app = Celery("tortuga", include=["workers.tasks"])
    configure(app, settings or get_settings())
    return app


def configure(app: Celery, settings: Settings) -> None:
    """Apply ``settings`` to ``app`` (broker, reliability, scheduler)."""
    broker = settings.celery_broker_url
    redis = uses_redis(settings)
    options = _redis_options(settings) if redis else (
        _filesystem_options(settings) if broker.startswith("filesystem") else {}
    )
    app.conf.update(
        broker_url=broker,
        # kombu's own filesystem transport can hand a worker a half-written message file.
        broker_transport=FILESYSTEM_TRANSPORT if broker.startswith("filesystem") else None,
        broker_transport_options=options,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # a Redis restart must not end the worker
        # Publishing waits at most about a second for a broker that is down: the row is
        # already stored and the relay enqueues it again later.
        task_publish_retry_policy={"max_retries": 2, "interval_start": 0,
                                   "interval_step": 0.3, "interval_max": 0.5},
        result_backend=None,
        result_backend_transport_options={"visibility_timeout": settings.celery_visibility_timeout},
        visibility_timeout=settings.celery_visibility_timeout,
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        accept_content=["json"],
        task_default_queue="pbm",
        task_time_limit=600,
        task_soft_time_limit=540,
        enable_utc=True,
        timezone="UTC",
        beat_schedule=beat_schedule(settings),
    )
    if redis:
        app.conf.update(
            beat_scheduler="workers.scheduler:ResilientRedBeatScheduler",
            redbeat_redis_url=settings.redis_url or broker,
            redbeat_redis_options={"socket_timeout": 10, "socket_connect_timeout": 5,
                                   "retry_period": 600},
            redbeat_key_prefix="pbm:redbeat:",
            # Every host runs a beat; the one holding this lock schedules, the others wait
            # on it and one takes over beat_lock_timeout s after the holder died. The holder
            # renews the lock each tick, so a tick comes well within the timeout.
            redbeat_lock_timeout=settings.beat_lock_timeout,
            beat_max_loop_interval=max(1, min(5, settings.beat_lock_timeout // 3)),
        )
    else:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        app.conf.update(
            beat_scheduler="celery.beat:PersistentScheduler",
            beat_schedule_filename=str(settings.data_dir / "celerybeat-schedule"),
            beat_max_loop_interval=5,
        )


def reconfigure(settings: Settings | None = None) -> None:
    """Point this process's app at the current settings (tests change them at run time)."""
    configure(app, settings or get_settings())
    # the broker connection pool of the old settings (Celery-private: not in its stubs)
    pool = app._pool  # type: ignore[attr-defined]
    if pool is not None:
        pool.force_close_all()
        app._pool = None  # type: ignore[attr-defined]
    app.amqp._producer_pool = None  # type: ignore[attr-defined]
    # kombu keeps producer pools per broker URL for the whole process: one closed above
    # would be handed out again to the next app on the same URL ("Acquire on closed pool")
    kombu_pools.reset()


@worker_init.connect
@beat_init.connect
def _refuse_an_insecure_deployment(**_: Any) -> None:
    """A worker or beat of a deployment reachable from outside without a secret of its own
    (or with sender authentication it cannot honour) does not start (``pbm.deployment``)."""
    from pbm import deployment  # here: checked at start-up, never on import

    try:
        deployment.check(get_settings())
    except deployment.InsecureDeployment as exc:
        logging.getLogger(__name__).critical("%s", exc)
        sys.stderr.write(f"{exc}\n")
        raise SystemExit(2) from None


@worker_init.connect
def _tolerate_lost_connection(**_: Any) -> None:
    """The worker's start-up (before its consumer connects): keep the worker alive when
    kombu touches a Redis connection that is already gone.

    kombu 5.7's Redis transport, on losing the broker with tasks in flight, acknowledges or
    hands back those tasks through the dead connection and dies with ``AttributeError``
    (seen when Redis restarts). The tasks stay in Redis's unacked index either way and are
    redelivered after the visibility timeout (tasks are idempotent); the relays cover the
    rest. So log it and carry on. Patched here, in the worker only, never on import.
    """
    # here: kombu's Redis transport, patched only when used
    from kombu.transport import redis as kombu_redis

    def tolerant(method: Any) -> Any:
        if getattr(method, "_pbm_tolerant", False):
            return method

        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except (AttributeError, OSError, redis.RedisError) as exc:
                logging.getLogger(__name__).warning(
                    "broker connection gone during %s (%r); Redis redelivers the task after "
                    "the visibility timeout", method.__name__, exc)
                return None

        wrapper._pbm_tolerant = True  # type: ignore[attr-defined]
        wrapper.__name__ = method.__name__
        return wrapper

    # a deliberate patch of kombu's methods, for the whole process
    kombu_redis.QoS.restore_unacked = tolerant(  # type: ignore[method-assign]
        kombu_redis.QoS.restore_unacked)
    kombu_redis.QoS.ack = tolerant(kombu_redis.QoS.ack)  # type: ignore[method-assign]


@after_setup_logger.connect
@after_setup_task_logger.connect
def _structured_logs(logger: logging.Logger, **_: Any) -> None:
    """``LOG_FORMAT=json``: the worker's and beat's log lines as JSON (``pbm.logs``)."""
    configure_logs(logger=logger)


@worker_init.connect
def _compiled_templates(**_: Any) -> None:
    """The email templates compiled once, in the parent before the pool forks."""
    from pbm.render.email import warm  # here: beat and the web never render

    warm()


# after a task, every few tasks: free heap handed back to the system (RSS flat)
task_postrun.connect(memory.after_task, weak=False)


if memwatch.enabled():  # a diagnostic, only when WORKER_MEMORY_WATCH names a folder
    worker_process_init.connect(memwatch.start, weak=False)
    task_postrun.connect(memwatch.after_task, weak=False)


@worker_process_init.connect
def _fresh_connections_after_fork(**_: Any) -> None:
    """A forked pool child must not share the parent's database connections."""
    dispose_engines()


# The app, built on import: ``celery -A workers.app`` and the tasks' decorators need it at
# module level (Celery's own pattern). Building it reads the settings and configures this
# app only (the filesystem broker's folders made): it patches no other library and sets up
# no logging on import; those happen at the worker's start-up (``worker_init`` above for the
# kombu patch, ``after_setup_logger`` for the log format; the web app's lifespan for its own).
app = make_celery()
