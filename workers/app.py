"""The Celery application: broker from settings, reliability settings, beat schedule."""

from __future__ import annotations

from celery import Celery

from pbm.config import get_settings


def make_celery() -> Celery:
    """Build the Celery app for the configured broker (Redis, or the filesystem default)."""
    settings = get_settings()
    app = Celery("tortuga")
    broker = settings.celery_broker_url
    options: dict[str, object] = {}
    if broker.startswith("filesystem"):
        folder = settings.data_dir / "broker"
        for sub in ("in", "processed", "control"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        options = {
            "data_folder_in": str(folder / "in"),
            "data_folder_out": str(folder / "in"),
            "processed_folder": str(folder / "processed"),
            "store_processed": False,
            "control_folder": str(folder / "control"),
        }
    app.conf.update(
        broker_url=broker,
        broker_transport_options=options,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        broker_connection_retry_on_startup=True,
    )
    return app


app = make_celery()
