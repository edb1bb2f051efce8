"""Shared fixtures of the server tests."""

from __future__ import annotations

# ---------------------------------------------------------------- store fixtures (store agent)
# `database_url` runs a test on SQLite (a temporary file) and on PostgreSQL (a fresh database on
# the server named by DUYUN_TEST_POSTGRES_URL; skipped, with that reason, when it is unset).
# `store` is a Store opened on it with cheap argon2 costs. `pg_admin_url`/`fresh_postgres_url`
# are for tests that need PostgreSQL only (several processes on one database).
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from duyun.server.store import Store, StoreConfig
from duyun.server.store.store import normalize_url

POSTGRES_ENV = "DUYUN_TEST_POSTGRES_URL"
POSTGRES_SKIP = f"PostgreSQL tests need {POSTGRES_ENV} (set by .ci/run)"


def fast_store_config(**changes: int) -> StoreConfig:
    """StoreConfig with the cheapest argon2 settings (tests only)."""
    values = {"argon2_time_cost": 1, "argon2_memory_cost": 8, **changes}
    return StoreConfig(**values)


@pytest.fixture(scope="session")
def pg_admin_url() -> str:
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        pytest.skip(POSTGRES_SKIP)
    return url


@pytest.fixture
def fresh_postgres_url(pg_admin_url: str) -> Iterator[str]:
    """A new, empty PostgreSQL database for one test, dropped afterwards."""
    admin = make_url(normalize_url(pg_admin_url))
    name = f"duyun_t_{uuid.uuid4().hex[:12]}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        yield admin.set(database=name).render_as_string(hide_password=False)
        with engine.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same test on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/duyun.db"
    url: str = request.getfixturevalue("fresh_postgres_url")
    return url


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    opened = Store.open(database_url, fast_store_config())
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def make_store() -> Iterator[Callable[..., Store]]:
    """Open extra stores (closed after the test): ``make_store(url, clock=..., **config)``."""
    opened: list[Store] = []

    def make(url: str, clock: Callable[[], float] | None = None, **config: int) -> Store:
        extra = {"clock": clock} if clock is not None else {}
        store = Store.open(url, fast_store_config(**config), **extra)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()
