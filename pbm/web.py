"""FastAPI app: health, inbound webhooks (Twilio, raw-MIME email) and the admin page."""

from __future__ import annotations

from fastapi import FastAPI

app = FastAPI(title="Tortuga by Mail", docs_url=None, redoc_url=None)


@app.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness probe."""
    return {"status": "ok"}


from pbm.admin.routes import router as admin_router  # noqa: E402 - routers after the app

app.include_router(admin_router)

from pbm.webhooks import router as webhooks_router  # noqa: E402 - routers after the app

app.include_router(webhooks_router)
