"""A connection's outgoing queue (docs/protocol.md, the ``table`` message): a ``table``
message still waiting at the end of the queue is replaced by a newer one instead of being
followed by it. Every other message is written, in order; no ``table`` state is dropped that
the client would not have overwritten at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from duyun.server.config import ServerConfig
from duyun.server.tables import dumps
from duyun.server.ws import Connection


@pytest.fixture(autouse=True)
def server_messages_fit_the_schema() -> Iterator[None]:
    """The messages here are stand-ins for the queue's sake, not the server's: the schema
    check of every other server test (tests/message_checks.py) is off."""
    yield


class FakeSocket:
    """What the writer needs of a Starlette websocket: the frames it wrote, in order."""

    def __init__(self) -> None:
        self.client = None
        self.frames: list[str] = []
        self.closed_with: tuple[int, str] | None = None

    async def send_text(self, text: str) -> None:
        self.frames.append(text)

    async def close(self, code: int, reason: str) -> None:
        self.closed_with = (code, reason)


def _written(sends: list[dict[str, Any]], between: set[int] = frozenset()) -> list[str]:
    """The frames a connection writes for ``sends``; the writer runs (and empties the queue)
    after the sends whose index is in ``between`` and at the end."""

    async def run() -> list[str]:
        socket = FakeSocket()
        conn = Connection(socket, ServerConfig())  # type: ignore[arg-type]
        writer = asyncio.create_task(conn.writer())
        for index, message in enumerate(sends):
            conn.send(message)
            if index in between:
                for _ in range(3):  # the writer takes what is queued and writes it
                    await asyncio.sleep(0)
        conn.close(1000, "")
        await writer
        assert socket.closed_with == (1000, "")
        return socket.frames

    return asyncio.run(run())


def table(n: int) -> dict[str, Any]:
    return {"type": "table", "table": {"seated": n}}


def events(n: int) -> dict[str, Any]:
    return {"type": "events", "events": [{"type": "draw", "n": n}]}


def test_a_waiting_table_message_is_replaced_by_the_newer_one() -> None:
    assert _written([table(1), table(2), table(3)]) == [dumps(table(3))]


def test_a_table_message_followed_by_another_message_is_kept_and_the_order_too() -> None:
    sends = [table(1), events(1), table(2), table(3), events(2)]
    assert _written(sends) == [dumps(m) for m in (table(1), events(1), table(3), events(2))]


def test_a_table_message_the_writer_took_is_written_and_the_next_one_queued_after_it() -> None:
    sends = [table(1), table(2), table(3)]
    assert _written(sends, between={0}) == [dumps(table(1)), dumps(table(3))]


def test_a_table_message_json_cannot_hold_is_logged_not_sent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bad = {"type": "table", "table": {"x": float("nan"), "y": {1, 2}}}
    with caplog.at_level(logging.ERROR, logger="duyun.server.ws"):
        assert _written([bad, events(1)]) == [dumps(events(1))]
    assert "not plain JSON" in caplog.text


@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), max_size=30).map(
        lambda picks: [
            (table(i) if is_table else events(i), flush)
            for i, (is_table, flush) in enumerate(picks)
        ]
    )
)
def test_the_client_gets_every_message_but_the_table_states_it_would_overwrite(
    picks: list[tuple[dict[str, Any], bool]],
) -> None:
    """Whatever the sends and whenever the writer runs: every non-``table`` message is
    written in order, the last message is written, and a ``table`` message is left out only
    when the next message is a ``table`` too."""
    sends = [message for message, _ in picks]
    written = _written(sends, between={i for i, (_, flush) in enumerate(picks) if flush})
    others = [dumps(m) for m in sends if m["type"] != "table"]
    assert [f for f in written if '"type":"table"' not in f] == others
    assert (written[-1] if written else None) == (dumps(sends[-1]) if sends else None)
    kept = iter(written)
    for index, message in enumerate(sends):
        follows = sends[index + 1]["type"] if index + 1 < len(sends) else None
        if message["type"] != "table" or follows != "table":
            assert dumps(message) in kept  # in order: what is skipped may only be tables
