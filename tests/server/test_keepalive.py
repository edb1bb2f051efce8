"""Pinging only the quiet connections (``duyun.server.keepalive``, issue 33): a connection
the server heard from within the ping interval is alive and is not pinged; a quiet one is
pinged as uvicorn pings it; a dead one is still closed within interval + timeout of the last
thing it sent (docs/protocol.md: a player's grace starts from there)."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
import websockets
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.protocol import State

from duyun.server.keepalive import PingWhenQuietProtocol
from readiness import wait_until


class ManualClock:
    """The few loop methods the keepalive uses, with time moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.timers: list[tuple[float, Any]] = []

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Any, *args: Any) -> Timer:
        self.timers.append((self.now + delay, callback))
        return Timer()


class Timer:
    cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class SilentTransport:
    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


async def _echo(websocket: WebSocket) -> None:
    await websocket.accept()
    try:
        while True:
            await websocket.send_text(await websocket.receive_text())
    except WebSocketDisconnect:
        pass


def protocol_on(clock: ManualClock) -> tuple[PingWhenQuietProtocol, SilentTransport]:
    config = uvicorn.Config(Starlette(), ws_ping_interval=20.0, ws_ping_timeout=20.0)
    config.load()
    protocol = PingWhenQuietProtocol(config, ServerState(), {}, _loop=clock)  # type: ignore[arg-type]
    transport = SilentTransport()
    protocol.connection_made(transport)  # type: ignore[arg-type]
    protocol.conn.state = State.OPEN  # past the handshake, which needs a running app
    return protocol, transport


def test_a_connection_heard_from_within_the_interval_is_not_pinged() -> None:
    clock = ManualClock()
    protocol, transport = protocol_on(clock)
    protocol.data_received(b"")  # anything the peer sends stamps it
    assert protocol.heard_at == clock.now
    clock.now += 12.0
    protocol.send_keepalive_ping()  # uvicorn's timer fires 20 s after the last ping
    assert transport.written == [] and protocol.pending_ping_payload is None
    assert protocol.skipped_pings == 1
    # looked at again when it will have been quiet a whole interval: 8 s from now
    assert clock.timers[-1] == (clock.now + 8.0, protocol.send_keepalive_ping)
    assert protocol.ping_timer is not None


def test_a_quiet_connection_is_pinged_and_given_the_timeout_to_answer() -> None:
    clock = ManualClock()
    protocol, transport = protocol_on(clock)
    protocol.data_received(b"")
    clock.now += 20.0  # quiet for the whole interval
    protocol.send_keepalive_ping()
    assert protocol.skipped_pings == 0
    assert protocol.pending_ping_payload is not None and len(transport.written) == 1
    assert transport.written[0][0] == 0x89  # a ping frame, FIN set
    assert clock.timers[-1] == (clock.now + 20.0, protocol.keepalive_timeout)


def test_a_connection_that_only_answers_pings_is_pinged_on_uvicorn_s_cadence() -> None:
    """uvicorn times the next ping from the pong less the round trip: the pong was heard,
    a round trip short of the interval before, and that is quiet enough."""
    clock = ManualClock()
    protocol, transport = protocol_on(clock)
    protocol.data_received(b"")  # the pong
    clock.now += 20.0 - 0.4  # uvicorn's delay with a round trip of 0.4 s
    protocol.send_keepalive_ping()
    assert protocol.skipped_pings == 0 and len(transport.written) == 1


def test_a_connection_never_heard_from_is_pinged() -> None:
    clock = ManualClock()
    protocol, transport = protocol_on(clock)
    protocol.send_keepalive_ping()
    assert protocol.pending_ping_payload is not None and len(transport.written) == 1


# ---------------------------------------------------------------- over real sockets

INTERVAL = 0.3
TIMEOUT = 0.3


@pytest.fixture
def echo_server() -> Iterator[tuple[str, int]]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            Starlette(routes=[WebSocketRoute("/ws", _echo)]),
            log_level="warning",
            ws=PingWhenQuietProtocol,
            ws_ping_interval=INTERVAL,
            ws_ping_timeout=TIMEOUT,
            lifespan="off",
        )
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: server.started, timeout=15, what="the echo server to start")
    yield "127.0.0.1", port
    server.should_exit = True
    thread.join(timeout=10)


def test_a_quiet_live_connection_is_pinged_and_stays_open(
    echo_server: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    host, port = echo_server
    pings: list[float] = []
    send_ping = WebSocketsSansIOProtocol.send_keepalive_ping

    def counted(self: WebSocketsSansIOProtocol) -> None:
        pings.append(time.monotonic())
        send_ping(self)

    monkeypatch.setattr(WebSocketsSansIOProtocol, "send_keepalive_ping", counted)

    async def main() -> None:
        async with websockets.connect(f"ws://{host}:{port}/ws", ping_interval=None) as ws:
            # the client library answers pings by itself; three answered pings, no close
            deadline = time.monotonic() + 20
            while len(pings) < 3 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert len(pings) >= 3, "a quiet connection was not pinged"
            await ws.send("still here")
            assert await ws.recv() == "still here"

    asyncio.run(main())


def _handshake(host: str, port: int) -> socket.socket:
    """A websocket client that never answers a ping: the handshake by hand, then silence."""
    client = socket.create_connection((host, port), timeout=20)
    key = base64.b64encode(os.urandom(16)).decode()
    client.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    reply = b""
    while b"\r\n\r\n" not in reply:
        reply += client.recv(4096)
    assert reply.startswith(b"HTTP/1.1 101"), reply
    return client


def _masked_text(payload: bytes) -> bytes:
    mask = os.urandom(4)
    return (
        bytes([0x81, 0x80 | len(payload)])
        + mask
        + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    )


def test_a_dead_connection_is_closed_within_interval_and_timeout_of_its_last_word(
    echo_server: tuple[str, int],
) -> None:
    host, port = echo_server
    client = _handshake(host, port)
    # it talks for a while (no ping is needed then), then goes dead: never reads, never pongs
    for _ in range(5):
        client.sendall(_masked_text(b"hi"))
        time.sleep(INTERVAL / 3)
    last_word = time.monotonic()
    client.sendall(_masked_text(b"bye"))
    received = b""
    while True:  # the echoes, a ping, then the server's close and the end of the stream
        chunk = client.recv(4096)
        if not chunk:
            break
        received += chunk
    closed_after = time.monotonic() - last_word
    client.close()
    opcodes = _opcodes(received)
    assert opcodes.count(0x1) == 6  # the echoes
    assert 0x9 in opcodes, "the dead connection was never pinged"
    assert opcodes[-1] == 0x8, "the server did not close it"
    # never before it had been quiet a whole interval and then not answered for the timeout
    assert closed_after >= INTERVAL + TIMEOUT - 0.05


def _opcodes(stream: bytes) -> list[int]:
    """The opcodes of a server's (unmasked, short) frames, in order."""
    opcodes, at = [], 0
    while at < len(stream):
        length = stream[at + 1] & 0x7F
        assert length < 126, "only short frames are expected here"
        opcodes.append(stream[at] & 0x0F)
        at += 2 + length
    return opcodes


#: what ``uvicorn_config`` sets for every caller: the players' protocol, limits and proxy handling
SHARED_OPTIONS = (
    "ws",
    "ws_max_size",
    "limit_concurrency",
    "ws_per_message_deflate",
    "ws_ping_interval",
    "ws_ping_timeout",
    "proxy_headers",
    "forwarded_allow_ips",
)


def shared_options(config: Any) -> list[Any]:
    return [getattr(config, option) for option in SHARED_OPTIONS]


def test_duyun_serve_runs_on_the_shared_uvicorn_configuration(
    serve_configs: list[Any], tmp_path: Any
) -> None:
    from fastapi import FastAPI
    from typer.testing import CliRunner

    from duyun.cli.main import app
    from duyun.server.app import HTTP_HEADROOM, WS_MAX_FRAME, uvicorn_config
    from duyun.server.config import ServerConfig

    result = CliRunner().invoke(
        app, ["serve", "--database-url", f"sqlite:///{tmp_path}/serve.db", "--port", "0"]
    )
    assert result.exit_code == 0, result.output
    served = serve_configs[-1]
    assert served.ws is PingWhenQuietProtocol  # pings only the quiet connections
    assert (served.ws_ping_interval, served.ws_ping_timeout) == (20, 20)
    defaults = ServerConfig()
    assert served.limit_concurrency == defaults.max_connections + HTTP_HEADROOM
    assert (served.ws_max_size, served.ws_per_message_deflate) == (WS_MAX_FRAME, False)
    assert shared_options(served) == shared_options(uvicorn_config(FastAPI(), defaults))


def test_the_tests_servers_meet_the_protocol_and_limits_players_meet(live_server: Any) -> None:
    """The tests' servers once had their own uvicorn options, and had drifted from
    ``duyun serve``'s (no connection limit, other proxy handling)."""
    from duyun.server.app import HTTP_HEADROOM, uvicorn_config

    server = live_server(max_connections=30)
    tested = server.server.config
    assert tested.ws is PingWhenQuietProtocol
    assert tested.limit_concurrency == 30 + HTTP_HEADROOM
    assert shared_options(tested) == shared_options(uvicorn_config(server.app, server.config))
