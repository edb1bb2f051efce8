"""The ASGI app: REST under /api, the websocket /ws, the client page at / (docs/protocol.md).

This module is the wiring: :func:`create_app` builds the typed :class:`ServerState`, the
lifespan that opens the store and the tables (and, with several processes on one database,
the cluster), the HTTP guard, and mounts the REST routers of :mod:`duyun.server.api`, the
websocket endpoint of :mod:`duyun.server.ws` and the client page. What the routes do lives
there; the rooms themselves in :mod:`duyun.server.tables`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.routing import APIRoute, APIWebSocketRoute
from fastapi.staticfiles import StaticFiles

from duyun.bots.search import load_learned_hands
from duyun.server import webapp, ws
from duyun.server.api import ROUTERS
from duyun.server.api.accounts import Credentials, Logout
from duyun.server.api.deps import run_db
from duyun.server.api.errors import ApiError, install_error_handlers
from duyun.server.api.tables import CreateTable
from duyun.server.cluster import Cluster
from duyun.server.config import ServerConfig
from duyun.server.keepalive import PingWhenQuietProtocol
from duyun.server.limits import Limits
from duyun.server.logs import install_log_safety
from duyun.server.middleware import HttpGuard
from duyun.server.reviews import Reviewer
from duyun.server.state import ServerState
from duyun.server.store import Store, StoreConfig
from duyun.server.store import cluster as shared
from duyun.server.tables import TableManager
from duyun.server.ws import (
    HTTP_HEADROOM,
    WS_MAX_FRAME,
    Connection,
    connection_cap,
    origin_allowed,
)

log = logging.getLogger("duyun.server")
STATIC_DIR = Path(__file__).parent / "static"

#: seconds between the watchdog's looks for tables that wait for nothing
WATCHDOG_EVERY = 10.0
#: gc.set_threshold once the server is ready (see _freeze_gc)
GC_THRESHOLDS = (10_000, 20, 50)

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


def live_gauges(tables: TableManager) -> dict[str, Any]:
    """The scrape-time gauges of GET /metrics."""
    by_status: dict[str, int] = {"waiting": 0, "playing": 0}
    for table in tables.tables.values():
        by_status[table.status] = by_status.get(table.status, 0) + 1
    return {
        "tables": by_status,
        "connections": len(tables.connections),
        "seated": len(tables.seated),
        "stalled": len(tables.stalled()),
    }


def socket_origins(allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The websocket origins (``wss://s2.play.example``) of the hosts in ``allowed_origins``:
    the page's Content-Security-Policy must let the client follow a ``redirect`` there."""
    found = []
    for origin in allowed:
        parts = urlsplit(origin)
        if parts.scheme in ("http", "https") and parts.netloc:
            found.append(f"{'wss' if parts.scheme == 'https' else 'ws'}://{parts.netloc}")
    return tuple(found)


def store_settings(config: ServerConfig) -> StoreConfig:
    return StoreConfig(
        starting_balance=config.starting_balance,
        token_max_age=config.token_max_age,
        login_window=config.login_window,
        login_max_failures_per_name=config.login_attempts,
        argon2_time_cost=config.argon2_time_cost,
        argon2_memory_cost=config.argon2_memory_cost,
        secret_key=config.secret_key,
    )


async def watchdog(tables: TableManager) -> None:
    """Look for tables that wait for nothing (``TableManager.watch_stalled``) every
    ``WATCHDOG_EVERY`` seconds and log each one found once (issue 37)."""
    while True:
        await asyncio.sleep(WATCHDOG_EVERY)
        try:
            tables.watch_stalled()
        except Exception:
            log.exception("the stalled-table watchdog failed")


async def renew_leases(tables: TableManager) -> None:
    """Several processes on one database (docs/deploy.md): keep this process's leases,
    give up tables whose lease another process took, adopt matches of dead processes.

    The adoption runs beside the renewals, not between them: restoring a dead process's
    matches reads every one of their logs, and a process adopting a few hundred of them
    while its own renewals waited behind could lose its own tables to a third process (and
    that one, adopting those, its own next)."""
    adopting: asyncio.Task[int] | None = None
    try:
        while True:
            await asyncio.sleep(tables.config.lease_renew_every)
            try:
                await tables.keep_leases()
            except Exception:
                log.exception("renewing leases failed")
            if adopting is None or adopting.done():
                adopting = asyncio.create_task(_adopt_orphans(tables))
    finally:
        if adopting is not None:
            adopting.cancel()


async def _adopt_orphans(tables: TableManager) -> int:
    try:
        return await tables.restore(include_own=False)
    except Exception:
        log.exception("adopting the matches of stopped processes failed")
        return 0


async def _open(
    state: ServerState, database_url: str, settings: StoreConfig, owner: str | None
) -> tuple[Store, TableManager]:
    # the store's own open: the manager, whose route every later store call takes, needs it
    opened = await asyncio.to_thread(Store.open, database_url, settings)
    tables = TableManager(state.config, opened, owner)
    state.store, state.manager = opened, tables
    reviewer = state.reviewer = Reviewer(state.config, opened, tables.store_call, tables.metrics)
    tables.metrics.watch(
        lambda: {
            **live_gauges(tables),
            "draining": int(state.draining),
            "reviews_pending": reviewer.pending,
        }
    )
    tables.bot_ratings.update(await tables.store_call(opened.bot_ratings))
    if await asyncio.to_thread(load_learned_hands):
        log.info("大師 samples with the learned opponent model")
    else:
        log.warning("NumPy is missing: 大師 samples uniformly (pip install 'duyun[server]')")
    restored = await tables.restore()
    log.info("restored %d live match(es)", restored)
    return opened, tables


async def _join_cluster(
    state: ServerState, store: Store, tables: TableManager, owner: str
) -> asyncio.Task[None]:
    """Several processes as one service (issue 24): heartbeat, publish, drain on SIGUSR1."""
    cluster = Cluster(store, tables, owner, state.config.public_url)
    await run_db(tables, shared.heartbeat, store, owner, state.config.public_url, False)
    await cluster.beat()
    state.cluster = cluster
    beat = asyncio.create_task(cluster.run())
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        asyncio.get_running_loop().add_signal_handler(
            signal.SIGUSR1, lambda: asyncio.ensure_future(cluster.drain("SIGUSR1"))
        )
    return beat


def _freeze_gc() -> None:
    # Everything loaded so far (the web stack, the engine's tables, restored matches) lives
    # as long as the process: keep it out of the collector's full passes, which otherwise
    # walk it every time and pause every table for 100 ms or more under load.
    gc.collect()
    gc.freeze()
    # What a table allocates per move mostly dies young by reference counting; the default
    # thresholds (700, 10, 10) still walk the younger generations hundreds of times a
    # second under load and reach a full pass every few seconds. Fewer, larger young
    # passes and rarer full ones keep the pauses that every table feels at once short.
    gc.set_threshold(*GC_THRESHOLDS)


async def _close(store: Store, tables: TableManager, owner: str | None) -> None:
    await tables.shutdown()
    # the manager's database thread has stopped: the last calls go to a worker thread
    if owner:  # a clean stop: a restart (or another process) restores them at once
        with contextlib.suppress(Exception):
            await asyncio.to_thread(store.release_leases, owner)
    await asyncio.to_thread(store.close)


def make_lifespan(
    state: ServerState, database_url: str, settings: StoreConfig, owner: str | None
) -> Lifespan:
    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store, tables = await _open(state, database_url, settings, owner)
        tasks = [asyncio.create_task(watchdog(tables))]
        if owner:
            tasks.append(asyncio.create_task(renew_leases(tables)))
            tasks.append(await _join_cluster(state, store, tables, owner))
        _freeze_gc()
        state.ready = True
        try:
            yield
        finally:
            state.ready = False
            for task in tasks:
                task.cancel()
            if state.reviewer is not None:
                await state.reviewer.close()
            await _close(store, tables, owner)

    return lifespan


def include(app: FastAPI, router: APIRouter) -> None:
    """Each route of ``router`` registered on the app itself, as ``include_router`` did until
    FastAPI 0.1xx: newer versions keep an included router as one opaque entry of
    ``app.routes``, and the routes must stay listed there (the property test of every route in
    tests/server/api/test_rest_property.py enumerates them). What a route declares for
    /openapi.json (its answer's model, its refusals, its security) comes along: the schema is
    the REST contract (docs/protocol.md "REST")."""
    for route in router.routes:
        if isinstance(route, APIRoute):
            app.add_api_route(
                route.path,
                route.endpoint,
                methods=sorted(route.methods or ()),
                status_code=route.status_code,
                include_in_schema=route.include_in_schema,
                name=route.name,
                response_model=route.response_model,
                response_model_exclude_unset=route.response_model_exclude_unset,
                responses=route.responses,
                description=route.description,
                openapi_extra=route.openapi_extra,
            )
        elif isinstance(route, APIWebSocketRoute):
            app.add_api_websocket_route(route.path, route.endpoint, name=route.name)
        else:
            raise TypeError(f"cannot include {route!r}")


def add_client_page(app: FastAPI) -> None:
    """The browser client at / and at invite links /t/{code}, its files under /static, and the
    installable app's manifest and service worker (:mod:`duyun.server.webapp`)."""
    index = STATIC_DIR / "index.html"

    async def page() -> Response:
        if index.is_file():
            return FileResponse(index)
        return HTMLResponse(
            "<!doctype html><meta charset=utf-8><title>duyun</title>"
            "<h1>Duyun mahjong server</h1><p>The game server is running; the browser client "
            "is not installed. The protocol is described in docs/protocol.md.</p>"
        )

    app.add_api_route("/", page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/t/{code}", page, methods=["GET"], include_in_schema=False)
    if (STATIC_DIR / webapp.WORKER).is_file():
        app.add_api_route(
            "/manifest.webmanifest", webapp.manifest_route, methods=["GET"], include_in_schema=False
        )
        # at the root, so that its scope is the whole site (the page is / and /t/CODE)
        app.add_api_route("/sw.js", webapp.worker_route, methods=["GET"], include_in_schema=False)
    if STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")


def uvicorn_config(app: FastAPI, config: ServerConfig, **options: Any) -> uvicorn.Config:
    """How uvicorn runs the app. ``duyun serve`` and the tests' servers all take it from here,
    so the tests meet the websocket protocol, limits and proxy handling that players meet
    (each had its own copy, and they had drifted: the browser tests' server compressed its
    frames and read no proxy headers). ``options`` are what differs per caller: where it
    listens, its logging, its lifespan."""
    return uvicorn.Config(
        app,
        ws_max_size=WS_MAX_FRAME,
        # uvicorn's websocket protocol, pinging only connections quiet for a whole interval
        # (duyun.server.keepalive; docs/deploy.md)
        ws=PingWhenQuietProtocol,
        # past every websocket the app allows, HTTP gets a quick 503 instead of holding
        # descriptors until accept() fails for everyone (issue 20 item 10)
        limit_concurrency=config.max_connections + HTTP_HEADROOM,
        # messages are small JSON; compressing each one costs more CPU than it saves
        ws_per_message_deflate=False,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        # behind the documented proxy the client address (login and creation limits) comes
        # from X-Forwarded-For, believed only from these peers (docs/deploy.md)
        proxy_headers=True,
        forwarded_allow_ips=config.forwarded_allow_ips,
        **options,
    )


def create_app(
    config: ServerConfig,
    database_url: str,
    *,
    owner: str | None = None,
    store_config: StoreConfig | None = None,
) -> FastAPI:
    """The app for one server process. ``owner`` names the process when several share one
    PostgreSQL database (docs/deploy.md): it then restores and holds only its own matches."""
    install_log_safety()
    state = ServerState(config=config, limits=Limits(config), max_sockets=connection_cap(config))
    settings = store_config or store_settings(config)
    app = FastAPI(
        title="duyun",
        lifespan=make_lifespan(state, database_url, settings, owner),
        docs_url=None,
        redoc_url=None,
    )
    app.state.server = state
    app.add_middleware(
        HttpGuard,
        max_body_bytes=config.max_body_bytes,
        origin_ok=lambda origin, host: origin_allowed(origin, host, config.allowed_origins),
        sockets=socket_origins(config.allowed_origins),
    )
    install_error_handlers(app)
    for router in (*ROUTERS, ws.router):
        include(app, router)
    add_client_page(app)
    return app


__all__ = [
    "GC_THRESHOLDS",
    "HTTP_HEADROOM",
    "STATIC_DIR",
    "WS_MAX_FRAME",
    "ApiError",
    "Connection",
    "CreateTable",
    "Credentials",
    "Logout",
    "ServerState",
    "connection_cap",
    "create_app",
    "live_gauges",
    "origin_allowed",
    "socket_origins",
    "uvicorn_config",
]
