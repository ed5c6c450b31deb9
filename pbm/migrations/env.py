"""Alembic environment: the SQLModel metadata of pbm.models, batch mode on SQLite."""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlmodel import SQLModel

import pbm.models  # registers the tables on SQLModel.metadata
from pbm.config import get_settings
from pbm.db import make_engine, normalise_url

config = context.config
target_metadata = SQLModel.metadata


def database_url() -> str:
    """The URL given by pbm.db.alembic_config, else the settings."""
    url = config.get_main_option("sqlalchemy.url")
    return normalise_url(url or get_settings().database_url)


def render_item(type_: str, obj: Any, autogen_context: Any) -> str | bool:
    """Write our UTCDateTime as a plain timezone-aware DateTime in migration files."""
    if type_ == "type" and isinstance(obj, pbm.models.UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def options(url: str) -> dict[str, Any]:
    return {
        "target_metadata": target_metadata,
        "render_as_batch": url.startswith("sqlite"),
        "render_item": render_item,
        "compare_type": True,
    }


def run_migrations_offline() -> None:
    url = database_url()
    context.configure(
        url=url, literal_binds=True, dialect_opts={"paramstyle": "named"}, **options(url)
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, **options(str(connection.engine.url)))
        with context.begin_transaction():
            context.run_migrations()
        return
    url = database_url()
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            context.configure(connection=connection, **options(url))
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
