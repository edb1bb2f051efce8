"""Websocket input and limits (issue 20 items 4, 5, 8, 10 and the websocket half of 15): every
input the docs promise to answer is answered and leaves the socket open, nothing that is not
plain JSON is ever sent, floods and idle or surplus sockets meet documented limits, and no token
reaches a URL or a log record."""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from duyun.server.app import WS_MAX_FRAME
from duyun.server.logs import ResourceErrorThrottle, redact
from duyun.server.protocol import ProtocolError, parse_client_message


def strict_loads(raw: str | bytes) -> Any:
    """``json.loads`` as a browser's ``JSON.parse`` reads: NaN and Infinity refused."""

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(raw, parse_constant=refuse)


def _strict_client(ws_client: type[Any]) -> type[Any]:
    class StrictClient(ws_client):  # type: ignore[misc]
        """Reads every server message as a browser would; the raw texts are kept."""

        async def _read(self) -> None:
            self.raw: list[str | bytes] = []
            self.closed: Any
            try:
                async for raw in self.ws:
                    self.raw.append(raw)
                    self.messages.append(strict_loads(raw))
                    self._changed.set()
            except websockets.ConnectionClosed as closed:
                self.closed = closed
            else:
                self.closed = self.ws.close_code or True
            self._changed.set()

    return StrictClient


async def _still_open(client: Any, rid: str) -> None:
    """The socket answers a ping after what came before: it is open and healthy."""
    await client.send(type="ping", t=rid, rid=rid)
    pong = await client.expect("pong", lambda m: m.get("t") == rid, timeout=5)
    assert pong["t"] == rid


# ------------------------------------------------------------------ item 4: answered, never dropped


def test_deep_nesting_is_bad_json_and_the_socket_stays_open(
    live_server: Any, ws_client: Any
) -> None:
    """A 4,000-deep array under the size limit made json.loads raise RecursionError, which
    ended the connection (code 1000) without an answer."""
    server = live_server(max_message_bytes=20_000)
    ann = server.guest()

    async def main() -> None:
        c = await ws_client.connect(server.ws_url, ann["token"])
        for raw in ("[" * 4000, '{"a":' * 3000, "[" * 5000 + "]" * 5000):
            await c.send_raw(raw)
            error = await c.expect("error", timeout=5)
            assert error["code"] == "bad_json", error
            assert "deep" in error["message"] or "JSON" in error["message"]
        await _still_open(c, "after-deep")
        await c.close()

    asyncio.run(main())


def test_lone_surrogate_is_refused_and_the_socket_stays_open(
    live_server: Any, ws_client: Any
) -> None:
    """``"\\ud800"`` is legal JSON but no UTF-8: echoing it (a pong) failed to send and the
    connection died without an answer."""
    server = live_server()
    ann = server.guest()

    async def main() -> None:
        c = await ws_client.connect(server.ws_url, ann["token"])
        for index, raw in enumerate(
            (
                '{"type": "ping", "t": "\\ud800", "rid": "s0"}',
                '{"type": "reaction", "id": "\\udfff", "rid": "s1"}',
                '{"type": "fly\\ud800", "rid": "s2"}',
                '{"type": "ping", "rid": "s3", "x\\ud800": 1}',
            )
        ):
            await c.send_raw(raw)
            error = await c.expect("error", lambda m, i=index: m.get("rid") == f"s{i}", timeout=5)
            assert error["code"] in ("bad_message", "bad_json"), error
            assert "surrogate" in error["message"]
        await _still_open(c, "after-surrogate")
        await c.close()

    asyncio.run(main())


def test_large_frames_get_too_large_and_only_frames_past_the_frame_limit_close_1009(
    live_server: Any, ws_client: Any
) -> None:
    server = live_server(max_message_bytes=4096)
    ann = server.guest()

    async def main() -> Any:
        c = await ws_client.connect(server.ws_url, ann["token"])
        for size in (5000, 1_000_000, WS_MAX_FRAME - 64):
            await c.send(type="ping", pad="x" * size)
            error = await c.expect("error", timeout=10)
            assert error["code"] == "too_large" and "4096" in error["message"], error
            await _still_open(c, f"after-{size}")
        # past the websocket layer's frame limit the frame is not read at all: RFC 6455's
        # "message too big", as docs/protocol.md "Limits" says
        await c.send_raw("x" * (WS_MAX_FRAME + 1))
        with pytest.raises(AssertionError, match="closed"):
            await c.expect("never", timeout=10)
        return c

    client = asyncio.run(main())
    assert client.closed.rcvd.code == 1009


def test_ping_before_hello_is_unauthorized(live_server: Any, ws_client: Any) -> None:
    """The docs: before ``welcome`` every message but ``hello`` gets ``unauthorized``."""
    server = live_server()
    ann = server.guest()

    async def main() -> None:
        c = await ws_client.connect(server.ws_url)
        await c.send(type="ping", t=1, rid="early")
        error = await c.expect("error", lambda m: m.get("rid") == "early", timeout=5)
        assert error["code"] == "unauthorized"
        assert not c.of_type("pong")
        await c.send(type="hello", version=1, token=ann["token"])
        await c.expect("welcome")
        await _still_open(c, "after-hello")
        await c.close()

    asyncio.run(main())


def test_binary_frames_are_refused_with_a_clear_error(live_server: Any, ws_client: Any) -> None:
    server = live_server()
    ann = server.guest()

    async def main() -> None:
        c = await ws_client.connect(server.ws_url, ann["token"])
        await c.send_raw(json.dumps({"type": "ping", "t": 1}).encode())
        error = await c.expect("error", timeout=5)
        assert error["code"] == "bad_json" and "text frame" in error["message"]
        assert not c.of_type("pong")
        await _still_open(c, "after-binary")
        await c.close()

    asyncio.run(main())


# ------------------------------------------------------------------ item 5: plain JSON only


@pytest.mark.parametrize(
    "raw",
    [
        '{"type": "ping", "t": NaN, "rid": "n"}',
        '{"type": "ping", "t": Infinity, "rid": "n"}',
        '{"type": "ping", "t": -Infinity, "rid": "n"}',
        '{"type": "ping", "t": 1e999, "rid": "n"}',
        '{"type": "ping", "t": -1e999, "rid": "n"}',
        '{"type": "ping", "t": [NaN], "rid": "n"}',
        '{"type": "sit", "seat": NaN, "rid": "n"}',
    ],
)
def test_non_finite_numbers_are_refused_never_echoed(
    raw: str, live_server: Any, ws_client: Any
) -> None:
    """A ping whose ``t`` was NaN or 1e999 came back as ``{"t":NaN}`` / ``{"t":Infinity}``,
    which JSON.parse refuses."""
    server = live_server()
    ann = server.guest()
    strict = _strict_client(ws_client)

    async def main() -> Any:
        c = await strict.connect(server.ws_url, ann["token"])
        await c.send_raw(raw)
        error = await c.expect("error", lambda m: m.get("rid") == "n", timeout=5)
        assert error["code"] == "bad_message", error
        assert not c.of_type("pong")
        await _still_open(c, "after-nan")
        await c.close()
        return c

    client = asyncio.run(main())
    # every reply was read by strict_loads (a NaN would have ended the reader)
    assert (
        client.raw
        and client.closed is not None
        and not isinstance(client.closed, websockets.ConnectionClosedError)
    )


def test_parser_refuses_what_is_not_plain_json() -> None:
    for raw, code in (
        ('{"type": "ping", "t": NaN}', "bad_message"),
        ('{"type": "ping", "t": 1e400}', "bad_message"),
        ('{"type": "ping", "t": "\\ud800"}', "bad_message"),
        ("[" * 100_000, "bad_json"),
        (b'{"type": "ping"}', "bad_json"),
        ('{"type": "ping", "rid": 9007199254740993}', "bad_message"),
    ):
        with pytest.raises(ProtocolError) as caught:
            parse_client_message(raw)
        assert caught.value.code == code, raw
    assert parse_client_message('{"type": "ping", "t": 1.5e300}').t == 1.5e300  # type: ignore[attr-defined]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_outgoing_messages_are_never_nan(value: float) -> None:
    """NaN and Infinity are not JSON, and a browser's JSON.parse refuses the whole message
    that carries one: the server's encoder (orjson) writes such a float as null, so what goes
    out is always JSON a strict parser reads."""
    from duyun.server.tables import dumps

    text = dumps({"type": "pong", "t": value, "rid": 7})
    assert "NaN" not in text and "Infinity" not in text
    assert strict_loads(text) == {"type": "pong", "t": None, "rid": 7}


def test_outgoing_messages_keep_what_json_wrote() -> None:
    """The encoder's output is the compact UTF-8 JSON the protocol shows (docs/protocol.md):
    Chinese as itself, int keys as strings, the order of the keys kept."""
    from duyun.server.tables import dumps

    message = {"type": "table", "name": "機器人2", "coins": {0: 5, 3: -5}, "x": [1.5, True, None]}
    text = dumps(message)
    assert text == json.dumps(message, ensure_ascii=False, separators=(",", ":"))


# ------------------------------------------------------------------ item 8: flood, strict types


def test_rate_limited_replies_are_themselves_limited(live_server: Any, ws_client: Any) -> None:
    """Every dropped message got its own ``rate_limited`` reply (about 1,450 in 4 s); now at
    most one per second, with the number of messages dropped."""
    server = live_server(rate_limit=5.0, rate_burst=50)
    ann = server.guest()

    async def main() -> tuple[Any, float]:
        c = await ws_client.connect(server.ws_url, ann["token"])
        started = time.monotonic()
        for index in range(150):  # 50 pass, 100 are dropped: below the 4 x burst flood close
            await c.send(type="ping", t=index)
        await _still_open_eventually(c)
        elapsed = time.monotonic() - started
        await c.close()
        return c, elapsed

    client, elapsed = asyncio.run(main())
    replies = [m for m in client.of_type("error") if m["code"] == "rate_limited"]
    assert 1 <= len(replies) <= 1 + int(elapsed)
    assert replies[0]["dropped"] == 1 and "dropped" in replies[0]["message"]
    assert client.closed is None or isinstance(client.closed, int)  # closed by the client


async def _still_open_eventually(client: Any) -> None:
    """A ping that gets through once the bucket has refilled (the limiter drops some)."""
    end = time.monotonic() + 10
    while True:
        await client.send(type="ping", t="probe")
        try:
            await client.expect("pong", lambda m: m.get("t") == "probe", timeout=0.5)
            return
        except AssertionError:
            if client.closed is not None or time.monotonic() > end:
                raise


def test_flood_close_tells_how_many_were_dropped(live_server: Any, ws_client: Any) -> None:
    server = live_server(rate_limit=5.0, rate_burst=10)
    ann = server.guest()

    async def main() -> Any:
        c = await ws_client.connect(server.ws_url, ann["token"])
        for index in range(120):
            try:
                await c.send(type="ping", t=index)
            except websockets.ConnectionClosed:
                break
        with pytest.raises(AssertionError, match="closed"):
            await c.expect("never", timeout=10)
        return c

    client = asyncio.run(main())
    assert client.closed.rcvd.code == 4008
    replies = [m for m in client.of_type("error") if m["code"] == "rate_limited"]
    assert "disconnected" in replies[-1]["message"] and len(replies) <= 3
    # 10 pass; the 4 x 10 + 1st message dropped in a row closes the socket
    assert sum(m["dropped"] for m in replies) == 4 * 10 + 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"stake": "5"}, "stake"),
        ({"hands": 8.0}, "hands"),
        ({"bots_allowed": "no"}, "bots_allowed"),
        ({"listed": 1}, "listed"),
        ({"bot": 3}, "bot"),
    ],
)
def test_rest_bodies_refuse_wrong_types_instead_of_converting(
    body: dict[str, Any], field: str, live_server: Any
) -> None:
    server = live_server()
    ann = server.guest()
    answer = server.http.post("/api/tables", json=body, headers=server.auth(ann["token"]))
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "bad_request" and field in error["message"]
    assert not server.manager.tables


def test_rest_credentials_refuse_wrong_types(live_server: Any) -> None:
    server = live_server()
    answer = server.http.post("/api/register", json={"name": 12345678, "password": "secret123"})
    assert answer.status_code == 400 and "name" in answer.json()["error"]["message"]


def test_ws_messages_refuse_wrong_types(live_server: Any, ws_client: Any) -> None:
    server = live_server()
    ann = server.guest()

    async def main() -> None:
        c = await ws_client.connect(server.ws_url, ann["token"])
        cases: tuple[tuple[str, dict[str, Any]], ...] = (
            ("seat", {"type": "sit", "seat": "1"}),
            ("ready", {"type": "ready", "ready": "no"}),
            ("on", {"type": "tuoguan", "on": 1}),
            ("prompt", {"type": "act", "action": "pass", "prompt": "3"}),
            ("version", {"type": "hello", "version": "1", "token": ann["token"]}),
        )
        for index, (field, message) in enumerate(cases):
            rid = f"w{index}"
            await c.send(**message, rid=rid)
            error = await c.expect("error", lambda m, r=rid: m.get("rid") == r, timeout=5)
            assert error["code"] == "bad_message", (message, error)
            assert field in error["message"]
        await c.close()

    asyncio.run(main())


# ------------------------------------------------------------------ item 10: deadline and caps


def test_silent_socket_is_closed_at_the_hello_deadline(live_server: Any, ws_client: Any) -> None:
    server = live_server(hello_timeout=0.3)
    ann = server.guest()

    async def main() -> tuple[Any, Any]:
        authed = await ws_client.connect(server.ws_url, ann["token"], name="authed")
        silent = await ws_client.connect(server.ws_url, name="silent")
        with pytest.raises(AssertionError, match="closed"):
            await silent.expect("never", timeout=5)
        await _still_open(authed, "past-the-deadline")  # a welcomed socket has no deadline
        await authed.close()
        return silent, authed

    silent, _ = asyncio.run(main())
    assert silent.closed.rcvd.code == 4004
    error = silent.of_type("error")[-1]
    assert error["code"] == "unauthorized" and "hello" in error["message"]


async def _refused(ws_url: str) -> websockets.InvalidStatus:
    """Open a socket that the server must refuse at the handshake; the refusal."""
    with pytest.raises(websockets.InvalidStatus) as caught:
        await websockets.connect(ws_url)
    return caught.value


def _refusal_error(refusal: websockets.InvalidStatus) -> dict[str, Any]:
    error: dict[str, Any] = strict_loads(bytes(refusal.response.body))["error"]
    return error


def test_connections_per_address_are_capped(live_server: Any, ws_client: Any) -> None:
    """A cap refuses the handshake itself (an accepted socket would hold its descriptor until
    the peer answers the close): 429 with the documented error body."""
    server = live_server(max_connections_per_address=3, max_connections=50)
    ann = server.guest()

    async def main() -> websockets.InvalidStatus:
        held = [await ws_client.connect(server.ws_url) for _ in range(3)]
        refusal = await _refused(server.ws_url)
        # the held ones are untouched and may still authenticate
        await held[0].send(type="hello", version=1, token=ann["token"])
        await held[0].expect("welcome")
        for client in held:
            await client.close()
        return refusal

    refusal = asyncio.run(main())
    assert refusal.response.status_code == 429
    assert refusal.response.headers["Retry-After"] == "5"
    error = _refusal_error(refusal)
    assert error["code"] == "too_many_connections" and "3 connections" in error["message"]


def test_connections_in_total_are_capped_and_http_still_answers(
    live_server: Any, ws_client: Any
) -> None:
    server = live_server(max_connections_per_address=100, max_connections=4)
    ann = server.guest()

    async def main() -> websockets.InvalidStatus:
        held = [await ws_client.connect(server.ws_url) for _ in range(4)]
        refusal = await _refused(server.ws_url)
        # while the cap is reached, HTTP still answers: health, guests, logins
        health = await asyncio.to_thread(server.http.get, "/healthz")
        assert health.status_code == 200
        guest = await asyncio.to_thread(server.http.post, "/api/guest")
        assert guest.status_code == 200
        # a slot freed is a slot to use again (once the server has seen the close)
        await held[0].close()
        end = time.monotonic() + 10
        while True:
            try:
                again = await ws_client.connect(server.ws_url, ann["token"], name="again")
                break
            except websockets.InvalidStatus:
                if time.monotonic() > end:
                    raise
        for client in [*held[1:], again]:
            await client.close()
        return refusal

    refusal = asyncio.run(main())
    assert refusal.response.status_code == 503
    assert "4 connections" in _refusal_error(refusal)["message"]


def test_resource_errors_are_logged_once_per_interval() -> None:
    """accept() out of descriptors logged a traceback per attempt (416 MB in 30 s)."""
    now = [0.0]
    throttle = ResourceErrorThrottle(60.0, clock=lambda: now[0])
    logger = logging.getLogger("asyncio")
    installed = [f for f in logger.filters if isinstance(f, ResourceErrorThrottle)]
    for other in installed:  # the server's own (real clock) is put back afterwards
        logger.removeFilter(other)
    logger.addFilter(throttle)
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    logger.addHandler(handler)
    loop = asyncio.new_event_loop()
    try:
        for _ in range(500):
            loop.call_exception_handler(
                {
                    "message": "socket.accept() out of system resource",
                    "exception": OSError(errno.EMFILE, "Too many open files"),
                }
            )
        logger.error("an unrelated error")
        assert [r.getMessage() for r in records][1:] == ["an unrelated error"]
        now[0] = 61.0
        loop.call_exception_handler(
            {
                "message": "socket.accept() out of system resource",
                "exception": OSError(errno.EMFILE, "Too many open files"),
            }
        )
        assert len(records) == 3 and "499 more" in records[-1].getMessage()
    finally:
        loop.close()
        logger.removeFilter(throttle)
        logger.removeHandler(handler)
        for other in installed:
            logger.addFilter(other)


# ------------------------------------------------------------------ item 15: no token in URL or log


@pytest.fixture
def all_log_records() -> Iterator[tuple[list[logging.LogRecord], Callable[[], None]]]:
    """Every log record of the process at every level (uvicorn's trace level included), once
    ``start()`` is called: after the server started, as uvicorn sets its loggers' levels."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(level=1)
    names = ["", "uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi", "websockets"]
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]

    def start() -> None:
        for logger in loggers:
            logger.addHandler(handler)
            logger.setLevel(1)

    try:
        yield records, start
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


def _rendered(record: logging.LogRecord) -> str:
    text = record.getMessage()
    if record.exc_info:
        text += logging.Formatter().formatException(record.exc_info)
    return text


def test_no_token_reaches_any_log_record(
    live_server: Any,
    ws_client: Any,
    all_log_records: tuple[list[logging.LogRecord], Callable[[], None]],
) -> None:
    """``/ws?token=T`` wrote the token into the log at the default level; the websockets
    library logs each frame (a ``hello`` with its token) at debug level."""
    server = live_server(turn_timer=60.0)
    records, start_capture = all_log_records
    start_capture()
    ann = server.guest()
    token = ann["token"]

    async def main() -> None:
        old = await ws_client.connect(f"{server.ws_url}?token={token}", name="old")
        refused = await old.expect("error", timeout=5)
        assert refused["code"] == "unauthorized" and "URL" in refused["message"]
        await old.send(type="hello", version=1, token=token)
        await old.expect("welcome")
        await old.send(type="hello", version=1, token=token + "x")  # an error naming nothing
        await old.expect("error")
        await old.close()
        new = await ws_client.connect(server.ws_url, token, name="new")
        await _still_open(new, "logged")
        await new.close()

    asyncio.run(main())
    server_records = [r for r in records if r.name.startswith(("uvicorn", "websockets"))]
    assert server_records, "the test must see the server's log records"
    assert any("WebSocket /ws" in _rendered(r) for r in records)
    windows = {token[i : i + 12] for i in range(len(token) - 11)}
    for record in records:
        text = _rendered(record)
        leaked = [w for w in windows if w in text]
        assert not leaked, f"{record.name}: {text[:300]}"


def test_redaction_patterns() -> None:
    assert redact('1.2.3.4 - "WebSocket /ws?token=abc.def-ghi&x=1" [accepted]') == (
        '1.2.3.4 - "WebSocket /ws?token=[redacted]&x=1" [accepted]'
    )
    assert "eyJz" not in redact("""< TEXT '{"type": "hello", "token": "eyJz...Q"}' [80 bytes]""")
    assert "sekrit" not in redact("(b'authorization', b'Bearer sekrit')")
    assert redact("nothing secret here") == "nothing secret here"


def test_browser_client_sends_its_token_in_hello_only() -> None:
    static = Path(__file__).parents[2] / "src" / "duyun" / "server" / "static" / "js"
    for path in static.glob("*.js"):
        source = path.read_text(encoding="utf-8")
        for match in re.finditer(r"new WebSocket\(([^;]*)\)", source):
            assert "token" not in match.group(1).lower(), f"{path.name}: {match.group(0)}"
    net = (static / "net.js").read_text(encoding="utf-8")
    assert 'type: "hello"' in net and "token: getToken()" in net


def test_limit_settings_are_checked_and_read_from_the_config_file() -> None:
    from duyun.server.config import ConfigError, ServerConfig, config_from_mapping

    config = config_from_mapping(
        {"hello_timeout": 2, "max_connections_per_address": 4, "max_connections": 100}
    )
    assert (config.hello_timeout, config.max_connections_per_address) == (2.0, 4)
    for bad in (
        {"hello_timeout": 0.0},
        {"max_connections": 0},
        {"max_connections_per_address": -1},
        {"max_message_bytes": WS_MAX_FRAME + 1},
    ):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            ServerConfig(**bad)
    with pytest.raises(ConfigError, match="max_connections"):
        config_from_mapping({"max_connections": "many"})
