"""The browser keeps its table while a failed server's match is taken over (issue 20 item 12c).

The table's process loses the match (here: ``lost_leases``, what a process does whose lease
another one took; its players' sockets are closed with 4002) while the store still has it
live. The page reconnects, gets ``welcome`` with ``match.status == "pending"``, and must stay
on the table and keep asking with backoff -- not go to the lobby, which would leave the seat to
run out its grace and escape (R45). Once the match is restored, the next retry seats it again.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from web_helpers import DESKTOP, SKIP_REASON, WebServer

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import Tab

pytestmark = pytest.mark.slow


def test_a_pending_match_is_retried_not_left_for_the_lobby(
    browser: Any, web_server: WebServer
) -> None:
    tab = Tab(browser, web_server, DESKTOP)
    tab.goto()
    tab.guest()
    tab.page.click(".room:first-child [data-do=quick]")
    tab.page.wait_for_function("() => window.__duyun.hand && window.__duyun.handId != null")
    code = tab.app("app.table.code")
    manager = web_server.app.state.server.manager
    # the server's event loop, where its tables live
    loop = manager.tables[code].task.get_loop()

    async def lose() -> None:
        manager.lost_leases(set())  # every table here stops: its match lives on in the store

    async def adopt() -> int:
        restored: int = await manager.restore()
        return restored

    asyncio.run_coroutine_threadsafe(lose(), loop).result(timeout=30)
    tab.page.wait_for_function("() => window.__duyun.session.pending >= 2")
    assert tab.app("app.route") == "table"  # still on the table screen, asking again
    assert code not in manager.tables
    assert asyncio.run_coroutine_threadsafe(adopt(), loop).result(timeout=30) == 1
    tab.page.wait_for_function(
        f"() => window.__duyun.table?.code === '{code}' && window.__duyun.status === 'open'"
        " && window.__duyun.session.pending === 0"
    )
    assert tab.app("app.route") == "table"
    tab.close()
