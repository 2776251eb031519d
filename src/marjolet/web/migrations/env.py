"""Alembic's entry point: migrations run on the connection that
:func:`marjolet.web.db.migrate` hands over (no alembic.ini, no URL here)."""

from __future__ import annotations

from alembic import context

from marjolet.web.db import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
