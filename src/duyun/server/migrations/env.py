"""Alembic environment: migrations run on the connection :meth:`Store.open` hands over.

``Store.open`` puts an open connection (inside a transaction, holding the migration lock) in
``config.attributes["connection"]``; there is no URL-based offline mode because the server always
migrates a live database.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from duyun.server.store.models import Base


def run_migrations_online() -> None:
    connection = context.config.attributes.get("connection")
    if not isinstance(connection, Connection):
        raise RuntimeError(
            "duyun migrations run through Store.open (duyun serve / duyun admin), "
            "which passes the database connection"
        )
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
