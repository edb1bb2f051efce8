"""The database under the store: URLs, engines, SQLite's settings and checkpoints, and the
Alembic migrations with the checks that keep them out of a database that is not duyun's.

Nothing here knows accounts or matches; :meth:`duyun.server.store.Store.open` calls these in
order (normalise the URL, judge the database, make the engine, upgrade) and the store's core
keeps the :class:`Checkpointer` of a file database.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from importlib import resources
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

from duyun.server.store.types import StoreError

# PostgreSQL advisory lock key that serialises concurrent `upgrade head` runs of several processes
_MIGRATION_LOCK_KEY = 0x6475_7975_6E00  # "duyun\0"


def normalize_url(database_url: str) -> str:
    """Accept ``postgresql://`` / ``postgres://`` as psycopg 3 URLs (the only driver we ship);
    :class:`StoreError` for a URL SQLAlchemy cannot parse or a database we do not support."""
    if not isinstance(database_url, str) or not database_url.strip():
        raise StoreError("database URL is empty")
    try:
        url = make_url(database_url.strip())
    except Exception as exc:  # sqlalchemy.exc.ArgumentError and friends
        raise StoreError(f"cannot parse database URL {database_url!r}: {exc}") from exc
    backend = url.get_backend_name()
    if backend in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    elif backend != "sqlite":
        raise StoreError(f"unsupported database {backend!r}: use sqlite:/// or postgresql://")
    return url.render_as_string(hide_password=False)


def one_line(error: object) -> str:
    """A driver's message (psycopg's span lines) as one line."""
    return " ".join(str(error).split())


def sqlite_path(url: str) -> Path | None:
    """The file of an SQLite URL; None for PostgreSQL and in-memory SQLite."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database or "")


def duyun_revisions() -> tuple[set[str], str | None]:
    script = ScriptDirectory.from_config(alembic_config())
    return {r.revision for r in script.walk_revisions()}, script.get_current_head()


def judge(where: str, tables: set[str], revision: str | None, must_exist: bool) -> None:
    """:class:`StoreError` unless the tables found are duyun's (or none, when a new database
    may be created): another program's database is never migrated into."""
    known, head = duyun_revisions()
    if revision is None:
        if tables:
            listed = ", ".join(sorted(tables)[:5])
            raise StoreError(
                f"{where} is not a duyun database: it has other tables ({listed}) and no duyun "
                "schema"
            )
        if must_exist:
            raise StoreError(f"{where} is not a duyun database: it is empty")
        return
    if revision not in known:
        raise StoreError(
            f"{where} is not a duyun database: its schema revision {revision!r} is not duyun's"
        )
    if must_exist and revision != head:
        raise StoreError(
            f"{where} is at duyun schema revision {revision}, not the newest ({head}): run "
            "`duyun serve` on it once to migrate it, then audit"
        )


def check_sqlite_file(path: Path, *, must_exist: bool) -> None:
    """Look at an SQLite file read-only (nothing created, nothing converted to WAL) before the
    engine opens it: the folder exists, the file is SQLite, its tables are duyun's."""
    if not path.parent.is_dir():
        raise StoreError(f"cannot create database {path}: folder {path.parent} does not exist")
    if path.is_dir():
        raise StoreError(f"database path {path} is a folder, not a file")
    if not path.exists():
        if must_exist:
            raise StoreError(f"no database file {path}")
        return
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {
                row[0]
                for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            revision = None
            if "alembic_version" in tables:
                found = connection.execute("SELECT version_num FROM alembic_version").fetchone()
                revision = str(found[0]) if found else None
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"{path} is not a duyun database: not an SQLite file ({one_line(exc)})"
        ) from None
    judge(str(path), tables - {"alembic_version"}, revision, must_exist)


def check_revision(engine: Engine, where: str, *, must_exist: bool) -> None:
    """PostgreSQL: :func:`judge` the database's tables before anything is migrated."""
    with engine.connect() as connection:
        tables = set(inspect(connection).get_table_names())
        revision = None
        if "alembic_version" in tables:
            revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    judge(where, tables - {"alembic_version"}, revision, must_exist)


#: PostgreSQL ends a session that has sat idle inside a transaction this long (milliseconds).
#: The store's transactions are a few statements long; a process stopped in the middle of one
#: (SIGSTOP, a frozen VM, a debugger) would otherwise hold its row locks for as long as it is
#: stopped, and no other process could adopt its matches however long ago their leases ran out
#: (docs/deploy.md "Leases"). When the process wakes, its transaction is gone: nothing of it
#: was written, and its next write finds the match adopted.
IDLE_IN_TRANSACTION_MS = 5000


#: the execution option of a connection that runs a single reading statement and nothing
#: else: SQLite then skips its ``BEGIN IMMEDIATE`` (the write lock a read does not need)
READ_ONLY = "duyun_single_read"


def single_read_options(engine: Engine) -> dict[str, Any]:
    """The execution options of a connection that runs one reading statement (a hello):
    :data:`READ_ONLY` on SQLite; autocommit on PostgreSQL, where a statement outside a
    transaction is its own consistent read, so the driver sends neither ``BEGIN`` before it
    nor ``ROLLBACK`` when the pool takes the connection back: one round trip instead of three
    (a crowd's seating is mostly hellos, docs/deploy.md)."""
    if engine.dialect.name == "postgresql":
        return {"isolation_level": "AUTOCOMMIT"}
    return {READ_ONLY: True}


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        memory = make_url(url).database in (None, "", ":memory:")
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 60},
            poolclass=StaticPool if memory else None,
        )

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            # take transaction control from pysqlite so BEGIN IMMEDIATE below is the only BEGIN
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=60000")
            if not memory:
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
                # no checkpoint inside a commit: its fsync would stall the table that happened
                # to commit then (hundreds of ms on a disk); Checkpointer runs them instead
                cursor.execute("PRAGMA wal_autocheckpoint=0")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Any) -> None:
            # the write lock up front: no read-then-upgrade deadlocks, no lost updates; a
            # connection that only runs one reading statement (READ_ONLY) needs no
            # transaction at all, the statement being its own consistent read
            if not connection.get_execution_options().get(READ_ONLY):
                connection.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    # an unreachable server is an error within seconds, not a hang (a URL's own wins)
    query = make_url(url).query
    connect_args: dict[str, Any] = {} if "connect_timeout" in query else {"connect_timeout": 10}
    if "options" not in query:
        connect_args["options"] = f"-c idle_in_transaction_session_timeout={IDLE_IN_TRANSACTION_MS}"
    return create_engine(
        url, pool_pre_ping=True, pool_size=10, max_overflow=20, connect_args=connect_args
    )


def is_file_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite" and make_url(str(engine.url)).database not in (
        None,
        "",
        ":memory:",
    )


class Checkpointer:
    """Moves SQLite's WAL into the database file from a thread of its own.

    With ``synchronous=NORMAL`` a commit only appends to the WAL; the fsync happens at a
    checkpoint. SQLite's automatic checkpoint runs inside whichever commit crosses the
    threshold, so one table's move would wait for the disk while every other table's commits
    are quick: the p99 of the action round trip. A PASSIVE checkpoint here, every
    ``INTERVAL`` seconds, never blocks readers or writers and keeps the WAL small.
    """

    INTERVAL = 1.0
    _log = logging.getLogger("duyun.server.store")

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.wait(self.INTERVAL):
            self.checkpoint()

    def checkpoint(self) -> None:
        try:
            raw = self._engine.raw_connection()
            try:
                cursor = raw.cursor()
                cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
                cursor.close()
            finally:
                raw.close()
        except Exception:  # a failed checkpoint loses nothing: the WAL keeps every commit
            self._log.exception("SQLite checkpoint failed; will try again")

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=10)
        self.checkpoint()


def alembic_config() -> Config:
    config = Config()
    location = resources.files("duyun.server") / "migrations"
    config.set_main_option("script_location", str(location))
    return config


def upgrade(engine: Engine) -> None:
    """``alembic upgrade head`` on one connection; on PostgreSQL under an advisory lock so two
    processes starting together migrate one after the other."""
    config = alembic_config()
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # a migration is one transaction of many statements, with Python (alembic loading
            # each script) between them: on a busy machine a gap can outlast the session's
            # idle-in-transaction limit, which is meant for the short writes of a running
            # server, and the database would end the migration half way (a loaded test run saw it)
            connection.execute(text("SET LOCAL idle_in_transaction_session_timeout = 0"))
            connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK_KEY})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def schema_state(engine: Engine) -> str | None:
    """None when the database answers and its migrations are at head, else why not (for
    ``/readyz``, through ``cluster.schema_ready``)."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
            current = set(MigrationContext.configure(connection).get_current_heads())
    except Exception as error:  # any failure to reach the database is "not ready"
        return f"database unreachable: {type(error).__name__}"
    heads = set(ScriptDirectory.from_config(alembic_config()).get_heads())
    if current != heads:
        return f"migrations at {sorted(current)}, head is {sorted(heads)}"
    return None
