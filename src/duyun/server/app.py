"""The ASGI app: REST under /api, the websocket /ws, the client page at / (docs/protocol.md).

The app is thin: REST handlers call the store in a worker thread (it is synchronous
SQLAlchemy), websocket messages are validated here and routed to the table that owns them
(:mod:`duyun.server.tables`). Every refusal is an ``error`` to the offending client only.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
import signal
import time
import weakref
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import urlsplit

from fastapi import FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi import Path as PathParam
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from duyun.bots import DIFFICULTY_LEVELS, resolve_bot
from duyun.rules import RuleSet
from duyun.server import protocol
from duyun.server.cluster import Cluster
from duyun.server.config import MAX_FRAME_BYTES, ServerConfig
from duyun.server.limits import LimitExceeded, Limits
from duyun.server.logs import RESOURCE_LOG_INTERVAL, install_log_safety
from duyun.server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from duyun.server.middleware import HttpGuard
from duyun.server.protocol import PROTOCOL_VERSION, ProtocolError, error_message
from duyun.server.store import (
    Account,
    AccountError,
    AuthError,
    MatchRecord,
    NotFoundError,
    RateLimitedError,
    Store,
    StoreConfig,
    StoreError,
    auth,
)
from duyun.server.store import cluster as shared
from duyun.server.tables import Table, TableManager, dumps

log = logging.getLogger("duyun.server")
STATIC_DIR = Path(__file__).parent / "static"
T = TypeVar("T")

#: websocket frames above this are refused by the websocket layer itself (close 1009); frames
#: between ``max_message_bytes`` and this get a ``too_large`` error and are not read
WS_MAX_FRAME = MAX_FRAME_BYTES
#: close codes of the websocket (docs/protocol.md "Limits"): no ``hello`` within config
#: ``hello_timeout``; a message flood
CLOSE_HELLO_TIMEOUT = 4004
CLOSE_FLOOD = 4008
#: seconds a handshake refused for too many connections is told to wait (Retry-After)
CAP_RETRY_AFTER = 5
#: connections uvicorn serves beyond config ``max_connections`` websockets before it answers
#: HTTP with 503 (``limit_concurrency`` of ``duyun serve``): /healthz and logins keep working
#: while the websockets are at their cap
HTTP_HEADROOM = 64
#: seconds between two ``rate_limited`` replies to one connection (the others are counted)
RATE_REPLY_INTERVAL = 1.0
#: seconds between lease renewals when several processes share one database (leases last 30 s)
LEASE_RENEW_EVERY = 10.0
#: a client whose outgoing queue grows beyond this is not reading; it is disconnected
MAX_OUTBOX = 5000


class ApiError(Exception):
    """A REST refusal: HTTP status, protocol error code and a message naming the problem."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class Connection:
    """One websocket: an outgoing queue drained by a writer task, a rate limiter, its seat."""

    def __init__(self, websocket: WebSocket, config: ServerConfig) -> None:
        self.websocket = websocket
        self.config = config
        self.account: Account | None = None
        self.table: Table | None = None
        self.spectating: Table | None = None
        self.closed = False
        self._outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self._close_args = (1000, "")
        self._tokens = float(config.rate_burst)
        self._refilled = time.monotonic()
        self.flood = 0
        self.last_reaction = 0.0
        #: messages dropped by the rate limit since the last ``rate_limited`` reply
        self.dropped = 0
        self._rate_replied = -RATE_REPLY_INTERVAL
        #: counts the errors this connection is sent (GET /metrics); set by the endpoint
        self.on_error: Callable[[str], None] | None = None

    def send(self, message: dict[str, Any]) -> None:
        if self.on_error is not None and message.get("type") == "error":
            self.on_error(str(message.get("code")))
        try:
            text = dumps(message)
        except (ValueError, TypeError):
            # NaN, Infinity or a value JSON cannot hold: a browser's JSON.parse would refuse the
            # whole message, so it is not sent (issue 20 item 5); client input never gets here
            log.error("not sending a %r message that is not plain JSON", message.get("type"))
            return
        self.send_text(text)

    def rate_limited(self, now: float) -> None:
        """Count a message the rate limit dropped; answer at most one per RATE_REPLY_INTERVAL,
        saying how many were dropped since the last answer (a flood must not be answered by a
        flood of errors)."""
        self.dropped += 1
        if now - self._rate_replied < RATE_REPLY_INTERVAL:
            return
        self._rate_replied = now
        dropped, self.dropped = self.dropped, 0
        reply = error_message(
            "rate_limited",
            f"more than {self.config.rate_limit:g} messages per second (burst "
            f"{self.config.rate_burst}); {dropped} message(s) dropped",
        )
        reply["dropped"] = dropped
        self.send(reply)

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if self._outbox.qsize() > MAX_OUTBOX:
            self.close(4009, "too slow: messages are not being read")
            return
        self._outbox.put_nowait(text)

    def close(self, code: int, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self._close_args = (code, reason)
        self._outbox.put_nowait(None)

    async def writer(self) -> None:
        try:
            while True:
                item = await self._outbox.get()
                while item is not None:
                    await self.websocket.send_text(item)
                    # drain what queued meanwhile without waking up once per message
                    item = self._outbox.get_nowait() if not self._outbox.empty() else ""
                    if item == "":
                        break
                if item is None:
                    code, reason = self._close_args
                    with contextlib.suppress(Exception):
                        await self.websocket.close(code, reason)
                    return
        except Exception:  # the peer went away; the reader notices and cleans up
            self.closed = True

    def allow(self, now: float) -> bool:
        """Token bucket: ``rate_limit`` messages per second, bursts of ``rate_burst``."""
        self._tokens = min(
            float(self.config.rate_burst),
            self._tokens + (now - self._refilled) * self.config.rate_limit,
        )
        self._refilled = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            self.flood = 0
            return True
        self.flood += 1
        return False


# ------------------------------------------------------------------------------ REST bodies


class _Body(BaseModel):
    # strict: a stake "5" or bots_allowed "no" is refused naming the field, never converted
    # (issue 20 item 8)
    model_config = ConfigDict(extra="forbid", strict=True)


class Credentials(_Body):
    """No length bounds here: a name or password of any bad length is ``bad_account`` (register,
    from :mod:`duyun.server.store.auth`) or ``bad_login`` (login), never a different code by length;
    the body-size limit bounds what is read."""

    name: str
    password: str


class Logout(_Body):
    everywhere: bool = False


class CreateTable(_Body):
    stake: int = Field(default=1, ge=1, le=1_000_000)
    hands: int = Field(default=8, ge=1, le=64)
    rules: dict[str, Any] = Field(default_factory=dict)
    bots_allowed: bool = True
    bot: str | None = Field(default=None, max_length=64)
    listed: bool = False
    #: may people who do not play at the table watch it (issue 20 item 13)
    spectators: bool = False
    #: the pause after a discard: natural or fixed (docs/protocol.md "Timing", issue 21 item 1)
    claim_pause: Literal["natural", "fixed"] = "natural"


#: ids are positive 64-bit integers (SQLite's and PostgreSQL's bigint)
MAX_ID = 2**63 - 1
HandId = Annotated[int, PathParam(ge=1, le=MAX_ID, description="a hand id")]
TableCode = Annotated[str, PathParam(pattern=r"^[0-9]{6}$", description="a 6-digit table code")]

#: gc.set_threshold once the server is ready (see lifespan)
GC_THRESHOLDS = (10_000, 20, 50)


def _account_json(account: Account) -> dict[str, Any]:
    return {
        "id": account.id,
        "name": account.name,
        "kind": account.kind,
        "balance": account.balance,
    }


def _record_json(value: Any) -> Any:
    data = jsonable_encoder(dataclasses.asdict(value))
    return data


def _history_json(record: MatchRecord) -> dict[str, Any]:
    """A match of the history (戰績) as a player may see it: nothing secret of a hand in play.

    The seed of a hand reproduces its four hands and the wall (R4), so it, the stored result and
    the replay link exist in the answer only once the hand has finished; a hand still being
    played shows its index, dealer, streak and status, and coins that are all zero.
    """
    data: dict[str, Any] = _record_json(record)
    for hand in data.get("hand_records", []):
        if hand["status"] == "finished":
            hand["replay"] = f"/api/hands/{hand['hand_id']}/log"
        else:
            hand["seed"] = None
            hand["result"] = None
            hand["replay"] = None
    return data


#: descriptors kept free of websockets: HTTP (uvicorn's 503 headroom), the database, logs
RESERVED_DESCRIPTORS = HTTP_HEADROOM + 64


def connection_cap(config: ServerConfig) -> int:
    """The websockets this process may hold: config ``max_connections``, lowered (with a
    warning) to what the open-files limit leaves after RESERVED_DESCRIPTORS. Past that limit
    accept() fails for everyone, HTTP included, and asyncio retries it in a tight loop."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return config.max_connections
    if soft == resource.RLIM_INFINITY or soft - RESERVED_DESCRIPTORS >= config.max_connections:
        return config.max_connections
    cap = max(1, soft - RESERVED_DESCRIPTORS)
    log.warning(
        "the open-files limit (%d) leaves room for %d websockets, not max_connections = %d: "
        "holding at most %d; raise the limit (ulimit -n, LimitNOFILE=) to allow more",
        soft,
        cap,
        config.max_connections,
        cap,
    )
    return cap


def live_gauges(tables: TableManager) -> dict[str, Any]:
    """The scrape-time gauges of GET /metrics."""
    by_status: dict[str, int] = {"waiting": 0, "playing": 0}
    for table in tables.tables.values():
        by_status[table.status] = by_status.get(table.status, 0) + 1
    return {
        "tables": by_status,
        "connections": len(tables.connections),
        "seated": len(tables.seated),
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


def draining(cluster: Cluster | None) -> bool:
    return cluster is not None and cluster.draining


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """The Origin check of /ws: browsers always send Origin; other clients may omit it."""
    if origin is None or "*" in allowed:
        return True
    if allowed:
        return origin.rstrip("/") in {o.rstrip("/") for o in allowed}
    return urlsplit(origin).netloc == (host or "")


def create_app(
    config: ServerConfig,
    database_url: str,
    *,
    owner: str | None = None,
    store_config: StoreConfig | None = None,
) -> FastAPI:
    """The app for one server process. ``owner`` names the process when several share one
    PostgreSQL database (docs/deploy.md): it then restores and holds only its own matches."""

    state: dict[str, Any] = {"ready": False}
    install_log_safety()
    max_sockets = connection_cap(config)
    #: open websockets per client address (the cap of config ``max_connections_per_address``)
    sockets: dict[str, int] = {}

    def store() -> Store:
        opened: Store | None = state.get("store")
        if opened is None:
            raise ApiError(503, "starting", "the server is starting")
        return opened

    def manager() -> TableManager:
        tables: TableManager | None = state.get("manager")
        if tables is None:
            raise ApiError(503, "starting", "the server is starting")
        return tables

    async def db(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(function, *args, **kwargs)

    async def renew_leases(tables: TableManager) -> None:
        """Several processes on one database (docs/deploy.md): keep this process's leases,
        give up tables whose lease another process took, adopt matches of dead processes."""
        while True:
            await asyncio.sleep(LEASE_RENEW_EVERY)
            try:
                await tables.renew_leases()
            except Exception:
                log.exception("renewing leases failed")

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settings = store_config or StoreConfig(
            starting_balance=config.starting_balance,
            token_max_age=config.token_max_age,
            login_window=config.login_window,
            login_max_failures_per_name=config.login_attempts,
            argon2_time_cost=config.argon2_time_cost,
            argon2_memory_cost=config.argon2_memory_cost,
            secret_key=config.secret_key,
        )
        opened = await db(Store.open, database_url, settings)
        tables = TableManager(config, opened, owner)
        state["store"], state["manager"] = opened, tables
        tables.metrics.watch(
            lambda: {**live_gauges(tables), "draining": int(draining(state.get("cluster")))}
        )
        restored = await tables.restore()
        log.info("restored %d live match(es)", restored)
        renewer = asyncio.create_task(renew_leases(tables)) if owner else None
        cluster = Cluster(opened, tables, owner, config.public_url) if owner else None
        beat: asyncio.Task[None] | None = None
        if cluster is not None:  # several processes as one service (issue 24)
            await db(shared.heartbeat, opened, owner, config.public_url, False)
            await cluster.beat()
            state["cluster"] = cluster
            beat = asyncio.create_task(cluster.run())
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                asyncio.get_running_loop().add_signal_handler(
                    signal.SIGUSR1, lambda: asyncio.ensure_future(cluster.drain("SIGUSR1"))
                )
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
        state["ready"] = True
        try:
            yield
        finally:
            state["ready"] = False
            if renewer is not None:
                renewer.cancel()
            if beat is not None:
                beat.cancel()
            await tables.shutdown()
            if owner:  # a clean stop: a restart (or another process) restores them at once
                with contextlib.suppress(Exception):
                    await db(opened.release_leases, owner)
            await db(opened.close)

    app = FastAPI(title="duyun", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.core = state
    limits = Limits(config)
    app.state.limits = limits
    #: the token each authenticated websocket presented, so a logout closes exactly its sockets
    socket_tokens: weakref.WeakKeyDictionary[Connection, str] = weakref.WeakKeyDictionary()
    app.add_middleware(
        HttpGuard,
        max_body_bytes=config.max_body_bytes,
        origin_ok=lambda origin, host: origin_allowed(origin, host, config.allowed_origins),
        sockets=socket_origins(config.allowed_origins),
    )

    def client_address(request: Request) -> str | None:
        """The caller's address; behind a proxy listed in ``forwarded_allow_ips`` uvicorn has
        already replaced the peer with the X-Forwarded-For address (docs/deploy.md)."""
        return request.client.host if request.client else None

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, error: ApiError) -> JSONResponse:
        headers = {}
        if error.status == 429:
            headers["Retry-After"] = str(int(getattr(error, "retry_after", 60)) or 1)
        return JSONResponse(
            {"error": {"code": error.code, "message": error.message}},
            status_code=error.status,
            headers=headers,
        )

    @app.exception_handler(LimitExceeded)
    async def _limited(request: Request, error: LimitExceeded) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": "rate_limited", "message": str(error)}},
            status_code=429,
            headers={"Retry-After": str(error.retry_seconds)},
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        """Routing and parsing refusals in the documented error body, not ``{"detail"}``."""
        code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "bad_request")
        message = {
            404: f"no such endpoint: {request.method} {request.url.path}",
            405: f"{request.method} is not allowed on {request.url.path}",
        }.get(error.status_code, str(error.detail))
        return JSONResponse(
            {"error": {"code": code, "message": message}},
            status_code=error.status_code,
            headers=getattr(error, "headers", None),
        )

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, error: RequestValidationError) -> JSONResponse:
        def problem(e: Any) -> str:
            if e.get("type") == "json_invalid":  # its loc is a character offset, not a field
                return f"body: not valid JSON ({e.get('ctx', {}).get('error', 'decode error')})"
            return f"{'.'.join(str(p) for p in e['loc'][1:]) or 'body'}: {e['msg']}"

        problems = "; ".join(problem(e) for e in error.errors()[:3])
        return JSONResponse(
            {"error": {"code": "bad_request", "message": problems}}, status_code=400
        )

    async def current_account(request: Request) -> Account:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise ApiError(401, "unauthorized", "send 'Authorization: Bearer TOKEN'")
        try:
            return await db(store().verify_token, token.strip())
        except AuthError as error:
            raise ApiError(401, "unauthorized", str(error)) from None

    def _session(account: Account, token: str) -> dict[str, Any]:
        return {"token": token, "account": _account_json(account)}

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        if state["ready"]:
            return JSONResponse({"status": "ok"})
        return JSONResponse({"status": "starting"}, status_code=503)

    @app.post("/api/guest")
    async def guest(request: Request) -> dict[str, Any]:
        limits.guests.hit(client_address(request))
        account = await db(store().create_guest)
        return _session(account, await db(store().issue_token, account.id))

    @app.post("/api/register")
    async def register(body: Credentials, request: Request) -> dict[str, Any]:
        guest_id: int | None = None
        if request.headers.get("authorization"):
            current = await current_account(request)
            if current.kind == "guest":
                guest_id = current.id
        try:  # cheap checks first: only a registration that will hash a password is counted
            auth.validate_password(body.password, auth.validate_name(body.name))
        except AccountError as error:
            raise ApiError(400, "bad_account", str(error)) from None
        limits.registrations.hit(client_address(request))
        try:
            account = await db(store().register, body.name, body.password, guest_id)
        except AccountError as error:
            status, code = (
                (409, "name_taken") if "taken" in str(error).lower() else (400, "bad_account")
            )
            raise ApiError(status, code, str(error)) from None
        except StoreError as error:  # e.g. the guest was deleted meanwhile
            raise ApiError(400, "bad_account", str(error)) from None
        return _session(account, await db(store().issue_token, account.id))

    @app.post("/api/login")
    async def login(body: Credentials, request: Request) -> dict[str, Any]:
        client = client_address(request)
        try:
            account = await db(store().login, body.name, body.password, client)
        except RateLimitedError as error:
            api = ApiError(429, "rate_limited", str(error))
            api.retry_after = error.retry_after  # type: ignore[attr-defined]
            raise api from None
        except AuthError as error:
            raise ApiError(401, "bad_login", str(error)) from None
        return _session(account, await db(store().issue_token, account.id))

    @app.post("/api/logout")
    async def logout(request: Request, body: Logout | None = None) -> dict[str, Any]:
        """Revoke the presented token (issue 20 item 15); ``everywhere`` revokes every token of
        the account. A revoked token is refused by REST and the websocket alike."""
        account = await current_account(request)
        token = request.headers["authorization"].partition(" ")[2].strip()
        everywhere = body is not None and body.everywhere
        try:
            await db(store().revoke_token, token, everywhere)
        except AuthError as error:
            raise ApiError(401, "unauthorized", str(error)) from None
        # its open websockets stop too: the socket would otherwise outlive the session
        tables = state.get("manager")
        connection = None if tables is None else tables.connections.get(account.id)
        if connection is not None and (everywhere or socket_tokens.get(connection) == token):
            connection.send(error_message("unauthorized", "logged out"))
            connection.close(4005, "logged out")
        return {"logged_out": True, "everywhere": everywhere}

    @app.get("/api/me")
    async def me(request: Request) -> dict[str, Any]:
        account = await current_account(request)
        table = manager().seated.get(account.id)
        return {**_account_json(account), "table": None if table is None else table.code}

    @app.get("/api/rooms")
    async def rooms() -> list[dict[str, Any]]:
        return [room.to_json() for room in config.rooms]

    @app.get("/api/lobby")
    async def lobby() -> dict[str, Any]:
        if state.get("cluster") is not None:  # every live process's tables (issue 24 item 2)
            listed = await db(shared.lobby, store())
            return {
                "tables": [t for t in listed if t.get("status") == "waiting"],
                "playing": [t for t in listed if t.get("status") == "playing"],
            }
        playing = [
            t.summary()
            for t in manager().tables.values()
            if t.status == "playing" and (t.options.kind == "room" or t.options.listed)
        ]
        return {"tables": manager().lobby(), "playing": playing}

    @app.get("/api/reactions")
    async def reactions() -> list[dict[str, str]]:
        return [{"id": key, "text": text} for key, text in protocol.REACTIONS]

    @app.get("/api/bots")
    async def bots() -> list[dict[str, str]]:
        """The difficulty levels a table can seat (issue 11), weakest first."""
        return [
            {"level": level.key, "bot": level.bot, "label": level.label, "label_zh": level.label_zh}
            for level in DIFFICULTY_LEVELS
        ]

    @app.post("/api/tables", status_code=201)
    async def create_table(body: CreateTable, request: Request) -> dict[str, Any]:
        account = await current_account(request)
        cap = config.open_tables_per_account
        if cap:
            open_codes = manager().open_tables_of(account.id)
            if len(open_codes) >= cap:
                raise ApiError(
                    409,
                    "too_many_tables",
                    f"you already have {len(open_codes)} open tables (the limit is {cap}): "
                    f"{', '.join(open_codes)}; a table closes when its match ends or after "
                    "10 minutes without players",
                )
        try:
            rules = RuleSet.from_mapping(body.rules)
        except (ValueError, TypeError) as error:
            raise ApiError(400, "bad_request", f"rules: {error}") from None
        try:  # a bot name or a difficulty level (easy/normal/hard/expert)
            bot = resolve_bot(body.bot or config.default_bot)
        except ValueError as error:
            raise ApiError(400, "bad_request", f"bot: {error}") from None
        limits.tables.hit(client_address(request))  # only tables that will be created count
        code = None
        if state.get("cluster") is not None:
            try:
                code = await state["cluster"].new_code("private", body.listed)
            except ProtocolError as error:
                raise ApiError(503, error.code, error.message) from None
        table = manager().create_private(
            account,
            code=code,
            stake=body.stake,
            hands=body.hands,
            rules=rules,
            bots_allowed=body.bots_allowed,
            bot=bot,
            listed=body.listed,
            spectators=body.spectators,
            claim_pause=body.claim_pause,
        )
        return {"code": table.code, "invite": f"/?join={table.code}", "table": table.summary()}

    @app.get("/api/tables/{code}")
    async def table_info(code: TableCode, request: Request) -> dict[str, Any]:
        limits.code_lookups.hit(client_address(request))
        table = manager().tables.get(code)
        cluster: Cluster | None = state.get("cluster")
        if table is None and cluster is not None:
            where = await cluster.locate(code)
            if where is not None and where.summary:
                return {**where.summary, "code": code, "url": where.url}
        if table is None:
            raise ApiError(404, "table_not_found", f"no table with code {code}")
        if cluster is not None:
            return {**table.summary(), "url": config.public_url}
        return table.summary()

    @app.get("/api/history")
    async def history(
        request: Request, limit: Annotated[int, Query(ge=1, le=200)] = 50
    ) -> dict[str, Any]:
        account = await current_account(request)
        records = await db(store().history, account.id, limit)
        return {"matches": [_history_json(record) for record in records]}

    @app.get("/api/ledger")
    async def ledger(
        request: Request, limit: Annotated[int, Query(ge=1, le=1000)] = 200
    ) -> dict[str, Any]:
        account = await current_account(request)
        rows = await db(store().coin_ledger, account.id, limit)
        return {"balance": account.balance, "rows": [_record_json(row) for row in rows]}

    @app.get("/api/hands/{hand_id}/log")
    async def hand_log(hand_id: HandId, request: Request) -> dict[str, Any]:
        account = await current_account(request)
        try:
            log_ = await db(store().hand_log, hand_id)
        except NotFoundError:
            raise ApiError(404, "hand_not_found", f"no hand {hand_id}") from None
        except (StoreError, OverflowError):  # the bounds above should make these unreachable
            raise ApiError(400, "bad_request", f"hand_id: no hand {hand_id}") from None
        if account.id not in log_.seat_accounts:
            raise ApiError(403, "not_a_player", "only the hand's players may see its log")
        if log_.status != "finished":
            raise ApiError(409, "hand_not_finished", "the hand is still being played")
        return {
            "hand_id": log_.hand_id,
            "match_id": log_.match_id,
            "index": log_.index,
            "stake": log_.stake,
            "seats": list(log_.seat_names),
            "events": list(log_.events),
            "result": log_.result,
        }

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        """Prometheus text format (issue 24 item 4; docs/deploy.md "Monitoring")."""
        return Response(manager().metrics.render(), media_type=METRICS_CONTENT_TYPE)

    @app.get("/readyz", include_in_schema=False)
    async def readyz() -> JSONResponse:
        """Ready for new players: started, the database answers, its migrations are at head
        and the process is not draining. /healthz says only that the process is alive."""
        why = "starting" if not state["ready"] else await db(shared.schema_ready, store())
        cluster: Cluster | None = state.get("cluster")
        if why is None and cluster is not None and cluster.draining:
            why = "draining"
        if why is not None:
            return JSONResponse({"ready": False, "reason": why}, status_code=503)
        return JSONResponse({"ready": True})

    # ---------------------------------------------------------------------- websocket

    async def authenticate(conn: Connection, token: str) -> None:
        try:
            account = await db(store().verify_token, token)
        except AuthError as error:
            raise ProtocolError("unauthorized", f"token refused: {error}") from None
        conn.account = account
        socket_tokens[conn] = token
        # a live match this process does not host (yet: its owner died and another process
        # has not adopted it): the client keeps retrying instead of giving up its seat, which
        # would cost it an escape (R45) for a server failure (issue 20 item 12)
        pending = None
        if manager().seated.get(account.id) is None:
            pending = await db(store().live_match_of, account.id)
        seated = manager().seated.get(account.id)
        conn.send(
            {
                "type": "welcome",
                "version": PROTOCOL_VERSION,
                "account": _account_json(account),
                "reactions": [{"id": k, "text": t} for k, t in protocol.REACTIONS],
                "table": None if seated is None else seated.code,
                "match": {"id": seated.match_id, "status": "playing"}
                if seated is not None and seated.match_id is not None
                else {"id": pending, "status": "pending"}
                if seated is None and pending is not None
                else None,
                "config": config.public(),
            }
        )
        if not manager().attach(conn) and state.get("cluster") is not None:
            await state["cluster"].reconnect_elsewhere(conn)

    async def dispatch(conn: Connection, message: protocol._Message) -> None:
        if isinstance(message, protocol.Hello):
            if conn.account is not None:
                raise ProtocolError("wrong_state", "already authenticated")
            if message.version != PROTOCOL_VERSION:
                raise ProtocolError(
                    "version",
                    f"protocol version {message.version} is not spoken here "
                    f"(this server speaks {PROTOCOL_VERSION})",
                )
            await authenticate(conn, message.token)
            return
        if conn.account is None:
            raise ProtocolError("unauthorized", "send 'hello' with your token first")
        if isinstance(message, protocol.Ping):
            conn.send({"type": "pong", "t": message.t})
            return
        tables = manager()
        cluster: Cluster | None = state.get("cluster")
        if isinstance(message, protocol.QuickMatch):
            if cluster is not None:
                await cluster.quick_match(conn, message.room)
            else:
                await tables.quick_match(conn, message.room)
        elif isinstance(message, protocol.Join | protocol.Spectate):
            seated = tables.seated.get(conn.account.id)
            if seated is None or seated.code != message.code:  # a reload's re-join is free
                try:  # codes are probed no faster here than through REST (issue 20 item 13)
                    peer = conn.websocket.client
                    limits.code_lookups.hit(peer.host if peer else None)
                except LimitExceeded as error:
                    raise ProtocolError("rate_limited", str(error)) from None
            kind = "join" if isinstance(message, protocol.Join) else "spectate"
            if cluster is not None and await cluster.join_elsewhere(
                conn, message.code, kind, message.rid
            ):
                return  # held by another process: the client was told where (issue 24)
            if isinstance(message, protocol.Join):
                tables.join(conn, message.code)
            else:
                tables.spectate(conn, message.code)
        elif isinstance(message, protocol.Unspectate):
            if conn.spectating is not None:
                conn.spectating.post("unspectate", conn)
        else:
            if isinstance(message, protocol.Reaction):
                now = time.monotonic()
                if now - conn.last_reaction < config.reaction_interval:
                    raise ProtocolError("rate_limited", "one reaction at a time, please")
                conn.last_reaction = now
            table = conn.table or (
                conn.spectating if isinstance(message, protocol.Reaction) else None
            )
            if table is None:
                raise ProtocolError("not_seated", "sit at a table first")
            table.post("message", conn, message)

    async def handle_raw(conn: Connection, data: str | bytes) -> None:
        size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
        if size > config.max_message_bytes:
            conn.send(
                error_message(
                    "too_large",
                    f"message of {size} bytes; the limit is {config.max_message_bytes}",
                )
            )
            return
        now = time.monotonic()
        if not conn.allow(now):
            if conn.flood > 4 * config.rate_burst:
                reply = error_message("rate_limited", "too many messages; disconnected")
                reply["dropped"] = conn.dropped + 1
                conn.send(reply)
                conn.close(CLOSE_FLOOD, "message flood")
                return
            conn.rate_limited(now)
            return
        try:
            message = protocol.parse_client_message(data)
        except ProtocolError as error:
            conn.send(error_message(error.code, error.message, protocol.message_rid(data)))
            return
        try:
            await dispatch(conn, message)
        except ProtocolError as error:
            conn.send(error_message(error.code, error.message, message.rid))

    def refuse_over_cap(websocket: WebSocket) -> tuple[str, bool] | None:
        """Why this socket may not open (too many from its address, or in total: the flag), or
        None (then it is counted). Checked before any other work is spent on it."""
        address = websocket.client.host if websocket.client else "?"
        in_total = sum(sockets.values()) >= max_sockets
        if in_total:
            refused = f"the server holds its limit of {max_sockets} connections"
        elif sockets.get(address, 0) >= config.max_connections_per_address:
            refused = (
                f"{config.max_connections_per_address} connections from your address are "
                "open already"
            )
        else:
            sockets[address] = sockets.get(address, 0) + 1
            return None
        now = time.monotonic()
        if now - state.get("cap_logged", -RESOURCE_LOG_INTERVAL) >= RESOURCE_LOG_INTERVAL:
            # once a minute: behind a proxy that does not pass the client's address, every
            # player is the proxy's address and this is where the operator learns it
            state["cap_logged"] = now
            log.warning("refusing websockets (%s): %s", address, refused)
        return refused, in_total

    def release(websocket: WebSocket) -> None:
        address = websocket.client.host if websocket.client else "?"
        left = sockets.get(address, 0) - 1
        if left > 0:
            sockets[address] = left
        else:
            sockets.pop(address, None)

    def hello_deadline(conn: Connection) -> None:
        if conn.account is None and not conn.closed:
            conn.send(
                error_message(
                    "unauthorized", f"no 'hello' within {config.hello_timeout:g} s; closing"
                )
            )
            conn.close(CLOSE_HELLO_TIMEOUT, "no hello in time")

    async def deny(websocket: WebSocket, refused: str, in_total: bool) -> None:
        """Refuse the handshake itself with an HTTP answer: an accepted socket would hold its
        descriptor until the peer answers the close, up to 10 s, which is what a client
        opening sockets as fast as it can would exploit; a refused handshake frees it at once."""
        answer = JSONResponse(
            {"error": {"code": "too_many_connections", "message": f"{refused}; try again later"}},
            status_code=503 if in_total else 429,
            headers={"Retry-After": str(CAP_RETRY_AFTER)},
        )
        try:
            await websocket.send_denial_response(answer)
        except RuntimeError:  # a server without the denial extension: a bare 403
            await websocket.close()

    @app.websocket("/ws")
    async def websocket_endpoint(websocket: WebSocket) -> None:
        refused = refuse_over_cap(websocket)
        if refused is not None:
            await deny(websocket, *refused)
            return
        try:
            await websocket.accept()
        except BaseException:  # the client went away during the handshake: uncount it
            release(websocket)
            raise
        conn = Connection(websocket, config)
        if state.get("manager") is not None:
            conn.on_error = state["manager"].metrics.error
        writer = asyncio.create_task(conn.writer())
        deadline = asyncio.get_running_loop().call_later(config.hello_timeout, hello_deadline, conn)
        try:
            if not origin_allowed(
                websocket.headers.get("origin"),
                websocket.headers.get("host"),
                config.allowed_origins,
            ):
                conn.send(
                    error_message(
                        "bad_origin",
                        f"origin {websocket.headers.get('origin')!r} may not open this socket",
                    )
                )
                conn.close(4003, "bad origin")
                return
            if "token" in websocket.query_params:
                # a URL is written to access logs (ours are redacted, a proxy's are not): the
                # token is read from 'hello' only (issue 20 item 15)
                conn.send(
                    error_message(
                        "unauthorized",
                        "a token in the URL is not read (URLs end up in logs): send it in 'hello'",
                    )
                )
            while not conn.closed:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                data = message.get("text")
                if data is None:
                    data = message.get("bytes") or b""
                await handle_raw(conn, data)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            deadline.cancel()
            release(websocket)
            tables = state.get("manager")
            if tables is not None and conn.account is not None:
                tables.detach(conn)
            conn.close(1000, "")
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(writer, timeout=2)

    # ---------------------------------------------------------------------- the client page

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
    if STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


__all__ = ["ApiError", "Connection", "create_app", "origin_allowed"]
