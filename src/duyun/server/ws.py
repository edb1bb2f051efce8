"""The websocket ``/ws`` (docs/protocol.md "The websocket"): one :class:`Connection` per
socket, its limits, and the routing of its validated messages to the tables.

A socket is counted against the caps per address and in total before anything else is spent on
it, and refused at the handshake when over them. Accepted, it must pass the Origin check and
say ``hello`` with a token within config ``hello_timeout``; every message is then size-checked,
rate-limited, parsed by :mod:`duyun.server.protocol` and handed to the manager or the table that
owns it. Every refusal is an ``error`` to this client only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from duyun.server import protocol
from duyun.server.api.accounts import account_json
from duyun.server.api.deps import get_state, manager_of, run_db, store_of
from duyun.server.config import MAX_FRAME_BYTES, ServerConfig
from duyun.server.limits import LimitExceeded
from duyun.server.logs import RESOURCE_LOG_INTERVAL
from duyun.server.protocol import PROTOCOL_VERSION, ProtocolError, error_message
from duyun.server.state import ServerState
from duyun.server.store import Account, AuthError
from duyun.server.tables import Table, dumps
from duyun.server.tables.inbox import ClientMessage, TableRef, Unspectate

log = logging.getLogger("duyun.server")

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
#: descriptors kept free of websockets: HTTP (uvicorn's 503 headroom), the database, logs
RESERVED_DESCRIPTORS = HTTP_HEADROOM + 64
#: seconds between two ``rate_limited`` replies to one connection (the others are counted)
RATE_REPLY_INTERVAL = 1.0
#: a client whose outgoing queue grows beyond this is not reading; it is disconnected
MAX_OUTBOX = 5000

router = APIRouter()


class QueuedTable:
    """A queued ``table`` message, kept as a dict until the writer takes it (so that a newer
    one can replace it, :meth:`Connection.send`)."""

    __slots__ = ("message",)

    def __init__(self, message: dict[str, Any]) -> None:
        self.message = message

    def encoded(self) -> str | None:
        """The frame's text; None (logged) for a message JSON cannot hold, as :meth:`send`."""
        try:
            return dumps(self.message)
        except (ValueError, TypeError):
            log.error("not sending a 'table' message that is not plain JSON")
            return None


class Connection:
    """One websocket: an outgoing queue drained by a writer task, a rate limiter, its seat."""

    def __init__(self, websocket: WebSocket, config: ServerConfig) -> None:
        self.websocket = websocket
        self.config = config
        self.account: Account | None = None
        #: the peer's address as uvicorn gives it (the X-Forwarded-For address behind a proxy
        #: of ``forwarded_allow_ips``): fair matching compares it (issue 32)
        self.address: str | None = websocket.client.host if websocket.client else None
        self.table: TableRef | None = None
        self.spectating: TableRef | None = None
        self.closed = False
        self._outbox: asyncio.Queue[str | QueuedTable | None] = asyncio.Queue()
        #: the ``table`` message last queued, while nothing was queued after it and the writer
        #: has not taken it: a newer one replaces its content (:meth:`send`)
        self._newest_table: QueuedTable | None = None
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
        kind = message.get("type")
        if kind == "table":
            self._send_table(message)
            return
        if self.on_error is not None and kind == "error":
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
        self._queue(text)

    def _send_table(self, message: dict[str, Any]) -> None:
        """A ``table`` message carries the whole table, so one still waiting at the end of the
        queue is replaced by the newer rather than followed by it: the client gets the same
        messages in the same order, less the ``table`` states it could only have overwritten.
        A seating sends the whole table to everyone seated on each ``join`` and ``ready``
        (28 ``table`` messages per table before its first deal), most of them within one
        turn of the event loop. Encoded when written: a replaced one costs nothing more."""
        if self._newest_table is not None:
            self._newest_table.message = message
            return
        holder = QueuedTable(message)
        self._queue(holder)
        self._newest_table = holder

    def _queue(self, item: str | QueuedTable) -> None:
        if self.closed:
            return
        if self._outbox.qsize() > MAX_OUTBOX:
            self.close(4009, "too slow: messages are not being read")
            return
        self._newest_table = None  # whatever comes next is queued after it
        self._outbox.put_nowait(item)

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
                    if isinstance(item, QueuedTable):
                        if item is self._newest_table:
                            self._newest_table = None  # taken: a newer one queues after it
                        text = item.encoded()
                        if text is not None:
                            await self.websocket.send_text(text)
                    else:
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


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """The Origin check of /ws: browsers always send Origin; other clients may omit it."""
    if origin is None or "*" in allowed:
        return True
    if allowed:
        return origin.rstrip("/") in {o.rstrip("/") for o in allowed}
    return urlsplit(origin).netloc == (host or "")


# ------------------------------------------------------------------ messages


def welcome(
    state: ServerState, account: Account, seated: Table | None, pending: int | None
) -> dict[str, Any]:
    """The answer to a good ``hello``: the account, where it sits, the public config."""
    if seated is not None and seated.match_id is not None:
        match: dict[str, Any] | None = {"id": seated.match_id, "status": "playing"}
    elif seated is None and pending is not None:
        match = {"id": pending, "status": "pending"}
    else:
        match = None
    return {
        "type": "welcome",
        "version": PROTOCOL_VERSION,
        "account": account_json(account),
        "reactions": [{"id": k, "text": t} for k, t in protocol.REACTIONS],
        "table": None if seated is None else seated.code,
        "match": match,
        "config": state.config.public(),
    }


async def authenticate(state: ServerState, conn: Connection, token: str) -> None:
    store, manager = store_of(state), manager_of(state)
    try:
        account, live, seated = await run_db(manager, store.session_of, token)
    except AuthError as error:
        raise ProtocolError("unauthorized", f"token refused: {error}") from None
    conn.account = account
    state.socket_tokens[conn] = token
    # a live match this process does not host (yet: its owner died and another process
    # has not adopted it): the client keeps retrying instead of giving up its seat, which
    # would cost it an escape (R45) for a server failure (issue 20 item 12)
    pending = live if manager.seated.get(account.id) is None else None
    conn.send(welcome(state, account, manager.seated.get(account.id), pending))
    if not manager.attach(conn) and state.cluster is not None and seated:
        await state.cluster.reconnect_elsewhere(conn)


async def hello(state: ServerState, conn: Connection, message: protocol.Hello) -> None:
    if conn.account is not None:
        raise ProtocolError("wrong_state", "already authenticated")
    if message.version != PROTOCOL_VERSION:
        raise ProtocolError(
            "version",
            f"protocol version {message.version} is not spoken here "
            f"(this server speaks {PROTOCOL_VERSION})",
        )
    await authenticate(state, conn, message.token)


async def join_or_spectate(
    state: ServerState, conn: Connection, message: protocol.Join | protocol.Spectate
) -> None:
    assert conn.account is not None
    manager = manager_of(state)
    seated = manager.seated.get(conn.account.id)
    if seated is None or seated.code != message.code:  # a reload's re-join is free
        try:  # codes are probed no faster here than through REST (issue 20 item 13)
            peer = conn.websocket.client
            state.limits.code_lookups.hit(peer.host if peer else None)
        except LimitExceeded as error:
            raise ProtocolError("rate_limited", str(error)) from None
    kind = "join" if isinstance(message, protocol.Join) else "spectate"
    if state.cluster is not None and await state.cluster.join_elsewhere(
        conn, message.code, kind, message.rid
    ):
        return  # held by another process: the client was told where (issue 24)
    if isinstance(message, protocol.Join):
        manager.join(conn, message.code)
    else:
        manager.spectate(conn, message.code)


def to_table(state: ServerState, conn: Connection, message: protocol._Message) -> None:
    """A message for the table the client sits at (a reaction: or watches)."""
    if isinstance(message, protocol.Reaction):
        now = time.monotonic()
        if now - conn.last_reaction < state.config.reaction_interval:
            raise ProtocolError("rate_limited", "one reaction at a time, please")
        conn.last_reaction = now
    table = conn.table or (conn.spectating if isinstance(message, protocol.Reaction) else None)
    if table is None:
        raise ProtocolError("not_seated", "sit at a table first")
    table.post(ClientMessage(conn, message))


async def dispatch(state: ServerState, conn: Connection, message: protocol._Message) -> None:
    """Route one parsed message; a :class:`ProtocolError` becomes the client's ``error``."""
    if isinstance(message, protocol.Hello):
        await hello(state, conn, message)
    elif conn.account is None:
        raise ProtocolError("unauthorized", "send 'hello' with your token first")
    elif isinstance(message, protocol.Ping):
        conn.send({"type": "pong", "t": message.t})
    elif isinstance(message, protocol.QuickMatch):
        if state.cluster is not None:
            await state.cluster.quick_match(conn, message.room)
        else:
            await manager_of(state).quick_match(conn, message.room)
    elif isinstance(message, protocol.Join | protocol.Spectate):
        await join_or_spectate(state, conn, message)
    elif isinstance(message, protocol.Unspectate):
        if conn.spectating is not None:
            conn.spectating.post(Unspectate(conn))
    else:
        to_table(state, conn, message)


async def handle_raw(state: ServerState, conn: Connection, data: str | bytes) -> None:
    """One frame as received: size, rate limit, parse, dispatch."""
    limit = state.config.max_message_bytes
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > limit:
        conn.send(error_message("too_large", f"message of {size} bytes; the limit is {limit}"))
        return
    now = time.monotonic()
    if not conn.allow(now):
        if conn.flood > 4 * state.config.rate_burst:
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
        await dispatch(state, conn, message)
    except ProtocolError as error:
        conn.send(error_message(error.code, error.message, message.rid))


# ------------------------------------------------------------------ opening and closing


def _address(websocket: WebSocket) -> str:
    return websocket.client.host if websocket.client else "?"


def refuse_over_cap(state: ServerState, websocket: WebSocket) -> tuple[str, bool] | None:
    """Why this socket may not open (too many from its address, or in total: the flag), or
    None (then it is counted). Checked before any other work is spent on it."""
    address = _address(websocket)
    per_address = state.config.max_connections_per_address
    in_total = sum(state.sockets.values()) >= state.max_sockets
    if in_total:
        refused = f"the server holds its limit of {state.max_sockets} connections"
    elif state.sockets.get(address, 0) >= per_address:
        refused = f"{per_address} connections from your address are open already"
    else:
        state.sockets[address] = state.sockets.get(address, 0) + 1
        return None
    now = time.monotonic()
    if now - state.cap_logged >= RESOURCE_LOG_INTERVAL:
        # once a minute: behind a proxy that does not pass the client's address, every
        # player is the proxy's address and this is where the operator learns it
        state.cap_logged = now
        log.warning("refusing websockets (%s): %s", address, refused)
    return refused, in_total


def release(state: ServerState, websocket: WebSocket) -> None:
    address = _address(websocket)
    left = state.sockets.get(address, 0) - 1
    if left > 0:
        state.sockets[address] = left
    else:
        state.sockets.pop(address, None)


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


def hello_deadline(conn: Connection) -> None:
    if conn.account is None and not conn.closed:
        conn.send(
            error_message(
                "unauthorized", f"no 'hello' within {conn.config.hello_timeout:g} s; closing"
            )
        )
        conn.close(CLOSE_HELLO_TIMEOUT, "no hello in time")


def refuse_at_open(state: ServerState, conn: Connection) -> bool:
    """The checks of a just-accepted socket: a foreign Origin closes it (True); a token in
    the URL is answered but not read (URLs end up in logs; issue 20 item 15)."""
    websocket = conn.websocket
    origin = websocket.headers.get("origin")
    if not origin_allowed(origin, websocket.headers.get("host"), state.config.allowed_origins):
        conn.send(error_message("bad_origin", f"origin {origin!r} may not open this socket"))
        conn.close(4003, "bad origin")
        return True
    if "token" in websocket.query_params:
        conn.send(
            error_message(
                "unauthorized",
                "a token in the URL is not read (URLs end up in logs): send it in 'hello'",
            )
        )
    return False


async def serve(state: ServerState, conn: Connection) -> None:
    """Read frames until the peer goes or the connection is closed."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        if refuse_at_open(state, conn):
            return
        while not conn.closed:
            message = await conn.websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            data = message.get("text")
            if data is None:
                data = message.get("bytes") or b""
            await handle_raw(state, conn, data)


@router.websocket("/ws")
async def websocket_endpoint(
    websocket: WebSocket, state: Annotated[ServerState, Depends(get_state)]
) -> None:
    refused = refuse_over_cap(state, websocket)
    if refused is not None:
        await deny(websocket, *refused)
        return
    try:
        await websocket.accept()
    except BaseException:  # the client went away during the handshake: uncount it
        release(state, websocket)
        raise
    conn = Connection(websocket, state.config)
    if state.manager is not None:
        conn.on_error = state.manager.metrics.error
    writer = asyncio.create_task(conn.writer())
    deadline = asyncio.get_running_loop().call_later(
        state.config.hello_timeout, hello_deadline, conn
    )
    try:
        await serve(state, conn)
    finally:
        deadline.cancel()
        release(state, websocket)
        if state.manager is not None and conn.account is not None:
            state.manager.detach(conn)
        conn.close(1000, "")
        with contextlib.suppress(asyncio.TimeoutError, Exception):
            await asyncio.wait_for(writer, timeout=2)


__all__ = [
    "CLOSE_FLOOD",
    "CLOSE_HELLO_TIMEOUT",
    "HTTP_HEADROOM",
    "WS_MAX_FRAME",
    "Connection",
    "connection_cap",
    "origin_allowed",
    "router",
]
