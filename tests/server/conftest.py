"""Shared fixtures of the server tests."""

from __future__ import annotations

# ---------------------------------------------------------------- store fixtures (store agent)
# `database_url` runs a test on SQLite (a temporary file) and on PostgreSQL (a fresh database on
# the server named by DUYUN_TEST_POSTGRES_URL; skipped, with that reason, when it is unset).
# `store` is a Store opened on it with cheap argon2 costs. `pg_admin_url`/`fresh_postgres_url`
# are for tests that need PostgreSQL only (several processes on one database).
import asyncio
import contextlib
import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import websockets
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from duyun.server.app import WS_MAX_FRAME, create_app, uvicorn_config
from duyun.server.config import ServerConfig
from duyun.server.store import Store, StoreConfig
from duyun.server.store.database import normalize_url
from duyun.server.tables import TableManager
from message_checks import server_messages_fit_the_schema  # noqa: F401 (autouse)
from readiness import wait_healthy

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
    yield from _fresh_database(pg_admin_url)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def module_database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """One database of each kind for a whole test module (its tests share one server)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('module-db')}/duyun.db"
        return
    yield from _fresh_database(request.getfixturevalue("pg_admin_url"))


def _fresh_database(pg_admin_url: str) -> Iterator[str]:
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


# ---------------------------------------------------------------- live server fixtures (core agent)
# `live_server(**config)` starts the real app on uvicorn in a thread, on a loopback socket bound
# before the start (no port race), on the `database_url` of the test (SQLite, and PostgreSQL when
# DUYUN_TEST_POSTGRES_URL is set), and waits for GET /healthz == 200 (no sleeps). `ws_client` is
# a websocket client class that records every message it receives.

#: timers small enough that whole matches take seconds
FAST: dict[str, Any] = {
    "turn_timer": 5.0,
    "claim_window": 0.02,
    "claim_beat": 0.02,
    "bot_delay": 0.005,
    "bot_delay_max": 0.005,
    "bot_fill_wait": 0.05,
    "reconnect_grace": 5.0,
    "next_hand_wait": 0.05,
    "next_hand_limit": 0.05,
    "default_bot": "efficient",
    "starting_balance": 1000,
    # tests make many accounts and tables from one address; the abuse tests set their own limits
    "guests_per_minute": 0,
    "registrations_per_minute": 0,
    "tables_per_minute": 0,
    "code_lookups_per_minute": 0,
    "open_tables_per_account": 0,
    # ... and quick match may seat them together (fair matching has tests of its own)
    "same_address_tables": True,
}


@dataclass
class LiveServer:
    """A running server: its URLs, app and config; the store and tables are the live ones."""

    url: str
    ws_url: str
    config: ServerConfig
    database_url: str
    app: Any
    server: uvicorn.Server
    thread: threading.Thread
    http: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        # an idle connection is dropped after 1 s, well before uvicorn closes it (5 s): reusing
        # one the server is closing at that moment is "connection reset by peer" (a CI dry
        # run met it after a match that kept REST idle for a while)
        self.http = httpx.Client(
            base_url=self.url, timeout=10, limits=httpx.Limits(keepalive_expiry=1.0)
        )

    @property
    def store(self) -> Store:
        opened: Store = self.app.state.server.store
        return opened

    @property
    def manager(self) -> TableManager:
        tables: TableManager = self.app.state.server.manager
        return tables

    def guest(self) -> dict[str, Any]:
        answer = self.http.post("/api/guest")
        answer.raise_for_status()
        session: dict[str, Any] = answer.json()
        return session

    @staticmethod
    def auth(token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    def create_table(self, token: str, **body: Any) -> str:
        """A private table made by ``token``'s account (POST /api/tables); its code."""
        answer = self.http.post("/api/tables", json=body, headers=self.auth(token))
        assert answer.status_code == 201, answer.text
        code: str = answer.json()["code"]
        assert len(code) == 6 and code.isdigit(), code  # docs/protocol.md: six digits
        return code

    async def seat(self, ws_client: Any, code: str, sessions: list[dict[str, Any]]) -> list[Any]:
        """Connect every session and join table ``code`` one after the other, so session i
        sits at seat i (two joins in flight race for the free seats); the first is the host."""
        clients = []
        for index, session in enumerate(sessions):
            client = await ws_client.connect(self.ws_url, session["token"], name=f"p{index}")
            await client.send(type="join", code=code)
            await client.expect("table", lambda m, i=index: m["table"] and m["table"]["you"] == i)
            clients.append(client)
        return clients

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.http.close()


def start_live_server(database_url: str, **overrides: Any) -> LiveServer:
    config = ServerConfig().with_overrides(**{**FAST, **overrides})
    app = create_app(
        config,
        database_url,
        store_config=fast_store_config(starting_balance=config.starting_balance),
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn_config(app, config, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url)
    return LiveServer(url, f"ws://127.0.0.1:{port}/ws", config, database_url, app, server, thread)


@pytest.fixture(scope="module")
def shared_live_server(module_database_url: str) -> Iterator[LiveServer]:
    """One server (the default test config) for a module whose tests only send requests it
    answers or refuses without changing what another of them reads."""
    server = start_live_server(module_database_url)
    yield server
    server.stop()


@pytest.fixture
def live_server(database_url: str) -> Iterator[Callable[..., LiveServer]]:
    """Start servers with config overrides: ``server = live_server(claim_window=0.05)``."""
    started: list[LiveServer] = []

    def start(**overrides: Any) -> LiveServer:
        server = start_live_server(database_url, **overrides)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


class WsClient:
    """A websocket client that records every message; ``expect`` waits for the next match."""

    def __init__(self, ws: Any, name: str = "") -> None:
        self.ws = ws
        self.name = name
        self.messages: list[dict[str, Any]] = []
        self.cursor = 0
        self.closed: Any = None
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(
        cls,
        ws_url: str,
        token: str | None = None,
        *,
        origin: str | None = None,
        name: str = "",
    ) -> WsClient:
        headers = {"Origin": origin} if origin else None
        ws = await websockets.connect(ws_url, additional_headers=headers, max_size=WS_MAX_FRAME)
        client = cls(ws, name)
        if token is not None:
            await client.send(type="hello", version=1, token=token)
            await client.expect("welcome")
        return client

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.messages.append(json.loads(raw))
                self._changed.set()
        except websockets.ConnectionClosed as closed:
            self.closed = closed
        else:
            self.closed = self.ws.close_code or True
        self._changed.set()

    async def send(self, **message: Any) -> None:
        await self.ws.send(json.dumps(message))

    async def send_raw(self, data: str | bytes) -> None:
        await self.ws.send(data)

    async def expect(
        self,
        kind: str | None = None,
        where: Callable[[dict[str, Any]], bool] | None = None,
        timeout: float = 15.0,
    ) -> dict[str, Any]:
        """The next message (after the cursor) of type ``kind`` for which ``where`` holds."""
        end = time.monotonic() + timeout
        while True:
            while self.cursor < len(self.messages):
                message = self.messages[self.cursor]
                self.cursor += 1
                if (kind is None or message.get("type") == kind) and (
                    where is None or where(message)
                ):
                    return message
            if self.closed is not None:
                raise AssertionError(f"{self.name}: closed ({self.closed}) waiting for {kind}")
            remaining = end - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{self.name}: no {kind!r} within {timeout} s")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == kind]

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()


@pytest.fixture
def ws_client() -> type[WsClient]:
    return WsClient


async def autoplay(
    client: WsClient,
    seed: int = 0,
    *,
    until: str = "match_end",
    choose: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    timeout: float = 60.0,
) -> dict[str, Any]:
    """Answer every prompt (a win when offered, else a seeded random legal action) until a
    message of type ``until`` arrives; returns it.

    Each answer names its prompt and carries a rid ``autoplay-N``, as the browser client does:
    a claim window can close before a loaded machine answers, and the server must then refuse
    the late answer as ``too_late`` instead of taking it for a later decision. Tests that check
    a client's errors tell these apart by their rid."""
    import random

    rng = random.Random(seed)
    answered = 0
    while True:
        message = await client.expect(
            where=lambda m: m.get("type") in ("prompt", until), timeout=timeout
        )
        if message["type"] == until:
            return message
        legal = message["legal"]
        if choose is not None:
            action = choose(message)
        else:
            wins = [a for a in legal if a["action"] == "hu"]
            action = wins[0] if wins else rng.choice(legal)
        answered += 1
        await client.send(type="act", prompt=message["id"], rid=f"autoplay-{answered}", **action)


@pytest.fixture
def play() -> Callable[..., Any]:
    return autoplay


#: (monotonic time, receiving account id or None, message) for every message the server sent
SentMessages = list[tuple[float, int | None, dict[str, Any]]]


@pytest.fixture
def sent_messages(monkeypatch: pytest.MonkeyPatch) -> SentMessages:
    """Every message the server sends any connection, with its time and recipient: the leak
    checks compare what each seat received with the seat's redaction of the stored log."""
    from duyun.server import app as server_app

    sent: SentMessages = []
    original = server_app.Connection.send_text

    def recording(self: Any, text: str) -> None:
        account = self.account.id if self.account is not None else None
        sent.append((time.monotonic(), account, json.loads(text)))
        original(self, text)

    monkeypatch.setattr(server_app.Connection, "send_text", recording)
    return sent


@pytest.fixture
def serve_configs(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The ``uvicorn.Config`` of each ``duyun serve`` run in the test, in order: serve binds
    its socket and runs a ``uvicorn.Server`` on it, which records its config instead."""
    import uvicorn as uvicorn_module

    seen: list[Any] = []
    monkeypatch.setattr(
        uvicorn_module.Server, "run", lambda server, sockets=None: seen.append(server.config)
    )
    return seen
