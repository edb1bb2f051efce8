"""Lobby requests made while the connection is down wait for it (static/js/outbox.js).

A phone on a mobile network loses its socket for seconds at a time. The client used to retry
a lobby request (join, quick match, the join after 建立房間) for 10 s and then give it up
with a "reconnecting" toast: a private table made over REST was left unjoined, still counting
towards the player's open tables. Now the request waits for the next welcome, in order, for
up to 20 s; one that waited longer is dropped and the player told; and a welcome that seats
the account at a live table (a reconnect) sends only what concerns that table.

The network is the test's: the page's websocket is routed through it, and while the line is
"down" every new socket is closed at once, as a dead network would close it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from web_helpers import DESKTOP, SCREENSHOTS, SKIP_REASON, WebServer

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import NEXT_FRAMES, Tab

pytestmark = pytest.mark.slow

#: shifts the queued requests' timestamps back, as that many milliseconds of waiting would
AGE = "ms => window.__duyun.outbox.forEach((entry) => { entry.at -= ms; })"
QUEUED = "() => window.__duyun.outbox.map((entry) => entry.msg)"


class Line:
    """The page's websocket, routed through the test: while ``down`` a new socket is closed at
    once; otherwise it reaches the server, and what the page sends is recorded in ``sent``."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.down = False
        self.sent: list[dict[str, Any]] = []
        page.route_web_socket("**/ws", self._route)

    def _route(self, ws: Any) -> None:
        if self.down:
            ws.close()
            return
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            if isinstance(message, str):
                self.sent.append(json.loads(message))
            server.send(message)

        ws.on_message(to_server)

    def cut(self) -> None:
        """The network goes: the socket drops and every reconnection fails."""
        self.down = True
        self.page.evaluate("() => window.__duyun.session.dropForTest()")
        self.page.wait_for_function("() => window.__duyun.status !== 'open'")

    def restore(self) -> int:
        """The network is back: reconnect now (not after the backoff's pause) and wait for the
        welcome. Returns how many messages had been sent before it, to read what came after."""
        before = len(self.sent)
        self.down = False
        self.page.evaluate("() => window.__duyun.session.connect()")
        self.page.wait_for_function("() => window.__duyun.status === 'open'")
        return before

    def types_since(self, start: int) -> list[str]:
        return [str(message.get("type")) for message in self.sent[start:]]


@contextmanager
def guest_on_a_line(browser: object, web_server: WebServer) -> Iterator[tuple[Tab, Line]]:
    """A guest in the lobby, its websocket routed through a :class:`Line`; closed after."""
    tab = Tab(browser, web_server, DESKTOP)
    try:
        line = Line(tab.page)
        tab.goto()
        tab.guest()
        yield tab, line
    finally:
        tab.close()


def test_a_table_made_while_the_connection_is_down_is_joined_when_it_comes_back(
    web_server: WebServer, browser: object
) -> None:
    """建立房間 during an outage longer than the old client's 10 s: the table is made over
    REST, its join waits, and goes out with the next welcome."""
    with guest_on_a_line(browser, web_server) as (tab, line):
        page = tab.page
        line.cut()
        page.fill("#create-hands", "3")
        page.click("#create-btn")
        page.wait_for_function("() => window.__duyun.outbox.length === 1")
        (queued,) = page.evaluate(QUEUED)
        assert queued["type"] == "join" and len(queued["code"]) == 6
        # 15 s of outage: the old client gave up after 10
        page.evaluate(AGE, 15_000)
        assert page.evaluate(QUEUED) == [queued]
        assert "join" not in line.types_since(0)
        start = line.restore()
        page.wait_for_selector("#table-code")
        assert tab.app("app.table.code") == queued["code"]
        assert tab.app("app.table.hands") == 3
        assert line.types_since(start).count("join") == 1
        assert tab.app("app.outbox.length") == 0


def test_a_request_that_waited_too_long_is_dropped_and_the_player_is_told(
    web_server: WebServer, browser: object
) -> None:
    """A quick match asked for 25 s ago must not seat a player who may have walked away: it
    is dropped, the page says it was not sent, and the button is free again."""
    with guest_on_a_line(browser, web_server) as (tab, line):
        page = tab.page
        line.cut()
        page.click(".room:first-child [data-do=quick]")
        page.wait_for_function("() => window.__duyun.outbox.length === 1")
        assert tab.app("app.queueing") is not None
        page.evaluate(AGE, 25_000)
        page.wait_for_function(
            "() => window.__duyun.outbox.length === 0 && window.__duyun.queueing === null"
        )
        toast = page.wait_for_selector("#toasts .toast:has-text('未能送出')")
        assert toast is not None and "R" not in (toast.text_content() or "")
        page.screenshot(path=str(SCREENSHOTS / "outbox-not-sent.png"))
        start = line.restore()
        page.evaluate(NEXT_FRAMES)
        assert "quick_match" not in line.types_since(start)
        assert tab.app("app.route") == "lobby"
        assert page.is_enabled(".room:first-child [data-do=quick]")


def test_a_welcome_that_restores_the_table_sends_only_what_concerns_it(
    web_server: WebServer, browser: object
) -> None:
    """Playing a match when the network went: the welcome puts the seat back at it, so a
    quick match queued meanwhile is dropped (the server would refuse it: already seated),
    while a join of the same table goes out, in the order made."""
    with guest_on_a_line(browser, web_server) as (tab, line):
        page = tab.page
        room = page.get_attribute(".room:first-child [data-do=quick]", "data-room")
        page.click("#create-btn")
        page.wait_for_selector("#table-code")
        code = tab.app("app.table.code")
        # a match in play: a waiting table lets a dropped seat go, a match keeps it
        tab.add_bots()
        page.click("#ready-btn")
        page.wait_for_selector("#hand button.tile")
        line.cut()
        page.evaluate(
            """async ([code, room]) => {
                const { sendWhenReady } = await import('/static/js/core.js');
                sendWhenReady({ type: 'quick_match', room });
                sendWhenReady({ type: 'join', code });
            }""",
            [code, room],
        )
        assert [m["type"] for m in page.evaluate(QUEUED)] == ["quick_match", "join"]
        start = line.restore()
        page.wait_for_function("() => window.__duyun.outbox.length === 0")
        page.wait_for_function(
            "n => window.__duyun.table && window.__duyun.table.code === n", arg=code
        )
        sent = line.types_since(start)
        assert "join" in sent and "quick_match" not in sent, sent
        assert tab.app("app.table.code") == code
        assert page.query_selector("#toasts .toast.error") is None
