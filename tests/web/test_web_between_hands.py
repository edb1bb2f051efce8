"""A page that comes back between hands shows the last settlement with what is left of its
countdown, and presses 下一局 when it ends (issue 37 item 2).

The server sends a client arriving between hands (a reload, a dropped connection, a restarted
or adopting process: the same messages) the last hand's ``hand_end`` with the true
``next_hand_in``. Here the page is reloaded while the settlement counts down; the server's own
limit is far longer than the countdown, so the next hand starts on time only if the reloaded
page pressed 下一局 itself.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import DESKTOP, SKIP_REASON, WebServer, start_web_server

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import Tab, play_until_settlement, shot
from test_web_settle import _private_table_with_bots

pytestmark = pytest.mark.slow

#: the page's countdown between hands, and the server's limit for a 下一局 nobody presses
WAIT = 6.0
LIMIT = 120.0
#: a reload, the messages and a deal on a busy machine
SLACK = 6.0


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    db = tmp_path_factory.mktemp("web-between") / "duyun.db"
    server = start_web_server(f"sqlite:///{db}", next_hand_wait=WAIT, next_hand_limit=LIMIT)
    yield server
    server.stop()


def _countdown(tab: Tab) -> int:
    text = tab.page.text_content("#settlement #settle-countdown") or ""
    return int(text.strip())


def test_a_reloaded_page_shows_the_settlement_and_presses_next_when_its_countdown_ends(
    browser: Any, web_server: WebServer, screenshots: Path
) -> None:
    tab = Tab(browser, web_server, DESKTOP)
    _private_table_with_bots(tab, hands=2)
    play_until_settlement(tab)
    tab.page.wait_for_selector("#settlement #settle-countdown")
    ended = time.monotonic()
    first = tab.app("app.handEnd.hand_id")
    points = tab.app("app.handEnd.points")
    tab.reload()
    # back at the table, between hands: the same settlement, counting down from what is left
    tab.page.wait_for_selector("#settlement #settle-countdown")
    assert tab.app("app.handEnd.hand_id") == first
    assert tab.app("app.handEnd.points") == points
    left = WAIT - (time.monotonic() - ended)
    assert _countdown(tab) <= max(0, left) + 1
    shot(tab, screenshots, "settlement-after-reload-desktop.png")
    # the page presses 下一局 when the countdown ends: the next hand long before the limit
    tab.page.wait_for_function(
        "first => window.__duyun.handId != null && window.__duyun.handId !== first",
        arg=first,
        timeout=(WAIT + SLACK) * 1000,
    )
    assert time.monotonic() - ended <= WAIT + SLACK
    tab.close()
