"""FastAPI app: health, inbound webhooks (Twilio, raw-MIME email) and the admin page."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypedDict

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool

from pbm import deployment
from pbm.body_limit import BodyLimit
from pbm.config import get_settings
from pbm.logs import configure as configure_logs
from workers.enqueue import drain_spool
from workers.hooks import install_process_hooks

log = logging.getLogger(__name__)


class ApiDocs(TypedDict):
    """FastAPI's arguments for the schema and docs routes (None: no such route)."""

    openapi_url: str | None
    docs_url: str | None
    redoc_url: str | None


def api_docs() -> ApiDocs:
    """The schema and docs routes: off unless ``API_DOCS`` turns them on (they describe
    every route to whoever asks)."""
    if get_settings().api_docs:
        return {"openapi_url": "/openapi.json", "docs_url": "/docs", "redoc_url": "/redoc"}
    return {"openapi_url": None, "docs_url": None, "redoc_url": None}


@asynccontextmanager
async def _lifespan(_app: FastAPI) -> AsyncIterator[None]:
    """The web process's start-up: its log lines (``LOG_FORMAT=json``: structured), and the
    hooks that hand the outbox rows of admin actions to the workers after each commit
    (``workers.hooks``). Importing this module sets up neither. A deployment reachable from
    outside without a secret of its own does not start (``pbm.deployment``)."""
    deployment.check(get_settings())
    configure_logs()
    install_process_hooks()
    drainer = asyncio.create_task(_drain_spool_forever())
    try:
        yield
    finally:
        drainer.cancel()


async def _drain_spool_forever() -> None:
    """Every ``SPOOL_DRAIN_INTERVAL`` s, store what this host's spool kept while the
    database was away (``pbm.inbound.spool``)."""
    while True:
        try:
            await run_in_threadpool(drain_spool)
        except Exception:
            log.exception("draining the spool failed; trying again")
        await asyncio.sleep(get_settings().spool_drain_interval)


app = FastAPI(title="Tortuga by Mail", lifespan=_lifespan, **api_docs())
app.add_middleware(BodyLimit)  # every body capped before anything reads it


@app.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness probe: the process answers (readiness: ``/readyz``)."""
    return {"status": "ok"}


from pbm.admin.routes import router as admin_router  # noqa: E402 - routers after the app

app.include_router(admin_router)

from pbm.webhooks import router as webhooks_router  # noqa: E402 - routers after the app

app.include_router(webhooks_router)

from pbm.admin.health_page import router as health_router  # noqa: E402 - routers after the app
from pbm.probes import router as probes_router  # noqa: E402 - routers after the app

app.include_router(health_router)
app.include_router(probes_router)
