"""Property: whatever a client sends over the websocket, the server answers in plain JSON with a
documented error code, keeps the connection open and logs no traceback (issue 20 item 4, 5 and
the property test of its "Tests").

Hypothesis builds frames for every client message type of docs/protocol.md: the right fields
with wrong types, missing and unknown fields, huge integers, NaN and Infinity, deep nesting,
lone surrogates and other unicode, raw junk and binary frames. After each batch a ping (or,
before ``hello``, any message) must still be answered: the socket is healthy.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duyun.server.protocol import _MODELS, MESSAGE_TYPES

DOCS = Path(__file__).parents[2] / "docs" / "protocol.md"


def _section(title: str) -> str:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(title)
    end = text.find("\n#", start + len(title))
    return text[start : end if end != -1 else None]


def documented_types() -> set[str]:
    rows = _section("### Client → server").splitlines()
    return {m.group(1) for row in rows if (m := re.match(r"\| `([a-z_]+)` \|", row))}


def documented_error_codes() -> set[str]:
    codes: set[str] = set()
    for row in _section("### Errors").splitlines():
        if row.startswith("| `"):
            codes.update(re.findall(r"`([a-z_]+)`", row.split("|")[1]))
    return codes


def test_every_documented_message_type_is_parsed_and_vice_versa() -> None:
    assert documented_types() == set(MESSAGE_TYPES)


def strict_loads(raw: str | bytes) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(raw, parse_constant=refuse)


# ------------------------------------------------------------------ strategies

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([2**53, -(2**53) - 1, 10**300, 0, 3, -1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(["\ud800", "\udfff x", "5p", "000000", "novice", "\x00", "😀" * 5, "0z"]),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def _message(draw: st.DrawFn) -> str:
    """A message of a known type with some of its fields (any values) and maybe junk fields."""
    kind = draw(st.sampled_from(MESSAGE_TYPES))
    fields = [name for name in _MODELS[kind].model_fields if name != "type"]
    chosen = draw(st.lists(st.sampled_from(fields), unique=True)) if fields else []
    data: dict[str, Any] = {"type": kind}
    for name in chosen:
        data[name] = draw(_values)
    if draw(st.booleans()):
        data[draw(st.text(min_size=1, max_size=8))] = draw(_values)
    if draw(st.booleans()):
        data["rid"] = draw(st.one_of(st.text(max_size=80), st.integers(), _values))
    return json.dumps(data)  # NaN and Infinity go out as such; surrogates as \\udxxx


_frames = st.one_of(
    _message(),
    _message(),
    _values.map(json.dumps),
    st.text(max_size=60),
    st.binary(max_size=60),
    st.integers(min_value=500, max_value=4000).map(lambda n: "[" * n),
    st.integers(min_value=500, max_value=1000).map(lambda n: '{"a":' * n),
    st.integers(min_value=4097, max_value=20_000).map(
        lambda n: '{"type": "ping", "t": "' + "x" * n + '"}'
    ),
    st.integers(min_value=20, max_value=4000).map(
        lambda n: '{"type": "sit", "seat": ' + "9" * n + "}"
    ),
    st.sampled_from(
        [
            '{"type": "ping", "t": 1e999}',
            '{"type": "ping", "t": NaN}',
            '{"type": "act", "action": "discard", "tile": "\\ud800"}',
            '{"type": ' + '"x' * 3000 + '"}',
            "",
            "null",
            '"hello"',
        ]
    ),
)


# ------------------------------------------------------------------ the property


@pytest.fixture
def server_log() -> Iterator[list[logging.LogRecord]]:
    """Warnings and errors of every logger (uvicorn's do not propagate to the root)."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(level=logging.WARNING)
    loggers = [logging.getLogger(n) for n in ("", "uvicorn", "uvicorn.error", "asyncio")]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield records
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


def test_malformed_messages_never_break_the_connection(
    live_server: Any, ws_client: Any, server_log: list[logging.LogRecord]
) -> None:
    server = live_server(rate_limit=10_000.0, rate_burst=10_000, hello_timeout=30.0)
    token = server.guest()["token"]
    codes = documented_error_codes()
    assert {"bad_json", "bad_message", "unauthorized", "too_many_connections"} <= codes
    counter = iter(range(10**9))

    @settings(
        max_examples=60,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(frames=st.lists(_frames, min_size=1, max_size=6), authenticated=st.booleans())
    def check(frames: list[str | bytes], authenticated: bool) -> None:
        sync = f"sync-{next(counter)}"

        async def main() -> list[str | bytes]:
            ws = await websockets.connect(server.ws_url)
            raw: list[str | bytes] = []
            try:
                if authenticated:
                    await ws.send(json.dumps({"type": "hello", "version": 1, "token": token}))
                    while True:
                        raw.append(await asyncio.wait_for(ws.recv(), 10))
                        if strict_loads(raw[-1]).get("type") == "welcome":
                            break
                for frame in frames:
                    await ws.send(frame)
                await ws.send(json.dumps({"type": "ping", "t": sync, "rid": sync}))
                while True:  # the socket is healthy: the sync ping is answered
                    raw.append(await asyncio.wait_for(ws.recv(), 10))
                    answer = strict_loads(raw[-1])
                    if answer.get("t") == sync or answer.get("rid") == sync:
                        break
            finally:
                await ws.close()
            return raw

        raw = asyncio.run(main())
        for text in raw:
            message = strict_loads(text)  # plain JSON, as a browser reads it
            assert isinstance(message, dict) and isinstance(message.get("type"), str)
            if message["type"] == "error":
                assert message["code"] in codes, message
                assert isinstance(message["message"], str) and message["message"]
        assert not [r for r in server_log if r.exc_info or "Traceback" in r.getMessage()]

    check()
    assert not [r for r in server_log if r.levelno >= logging.ERROR], [
        r.getMessage() for r in server_log
    ]
