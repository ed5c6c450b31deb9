"""FastAPI app: health, inbound webhooks (Twilio, raw-MIME email) and the admin page."""

from __future__ import annotations

from fastapi import FastAPI

from pbm.config import get_settings


def _api_docs() -> dict[str, str | None]:
    """The schema and docs routes: off unless ``API_DOCS`` turns them on (they describe
    every route to whoever asks)."""
    if get_settings().api_docs:
        return {"openapi_url": "/openapi.json", "docs_url": "/docs", "redoc_url": "/redoc"}
    return {"openapi_url": None, "docs_url": None, "redoc_url": None}


app = FastAPI(title="Tortuga by Mail", **_api_docs())


@app.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness probe."""
    return {"status": "ok"}


from pbm.admin.routes import router as admin_router  # noqa: E402 - routers after the app

app.include_router(admin_router)

from pbm.webhooks import router as webhooks_router  # noqa: E402 - routers after the app

app.include_router(webhooks_router)
