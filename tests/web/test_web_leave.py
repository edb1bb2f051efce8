"""No coin moves without the player knowing (issue 31 item 1).

Leaving a match between hands asks first, in the page's own dialog and language, and says what
happens: the remaining hands are played by 托管 with the player's coins. In the lobby the match
is then "still playing", with 回到牌桌, which takes the seat back from 托管. Leaving during a
hand asks in the same dialog and says what the escape (R45) costs.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import PHONE, SKIP_REASON, WebServer, start_web_server

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from playwright.sync_api import Error as PlaywrightError
from test_web_client import NEXT_FRAMES, Tab, play_until_settlement, shot
from test_web_settle import _private_table_with_bots

pytestmark = pytest.mark.slow

#: enough hands that the match is still on while the test leaves, reloads and comes back (the
#: bots play the player's seat meanwhile, each hand in about ten seconds)
HANDS = 8


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    db = tmp_path_factory.mktemp("web-leave") / "duyun.db"
    # a long wait between hands: the test reads the settlement and leaves from it
    server = start_web_server(
        f"sqlite:///{db}",
        next_hand_wait=120.0,
        next_hand_limit=240.0,
        bot_delay=0.05,
        bot_delay_max=0.05,
    )
    yield server
    server.stop()


def test_leaving_between_hands_asks_first_and_the_lobby_leads_back_r45(
    browser: Any, web_server: WebServer, screenshots: Path
) -> None:
    tab = Tab(browser, web_server, PHONE)
    _private_table_with_bots(tab, hands=HANDS)
    code = tab.app("app.table.code")
    play_until_settlement(tab)
    tab.page.wait_for_selector("#settlement [data-do=leave]")
    seat = tab.app("app.seat")

    # 返回大廳 on the settlement asks, in the page's own dialog, what happens to the coins
    tab.page.click("#settlement [data-do=leave]")
    dialog = tab.page.wait_for_selector("#confirm-dialog [role=alertdialog]")
    text = dialog.text_content() or ""
    assert f"還有 {HANDS - 1} 局" in text and "托管" in text and "金幣" in text, text
    assert "R4" not in text  # no rule numbers where players read
    focused = tab.page.evaluate("() => document.activeElement && document.activeElement.id")
    assert focused == "confirm-cancel"  # the safe answer has the focus
    shot(tab, screenshots, "leave-between-dialog-phone.png")
    tab.page.keyboard.press("Escape")  # no: the dialog goes, the player stays
    tab.page.wait_for_selector("#confirm-dialog", state="detached")
    assert tab.app("app.route") == "table" and tab.app("app.seat") == seat

    tab.page.click("#settlement [data-do=leave]")
    tab.page.click("#confirm-dialog #confirm-ok")
    # in the lobby: the match is still playing, with the way back to the seat
    card = tab.page.wait_for_selector("#in-play-card")
    assert "托管" in (card.text_content() or "")
    tab.page.evaluate(NEXT_FRAMES)
    shot(tab, screenshots, "leave-lobby-in-play-phone.png")
    # a reload keeps the way back (it comes from the server, not the page's memory), also
    # when the websocket's welcome arrives after /api/me's answer (three CI dry runs saw the
    # way back vanish: the welcome's account, which has no in_play, replaced the page's):
    # the welcome is delivered once more once the lobby is drawn
    socket: dict[str, Any] = {}

    def pass_through(ws: Any) -> None:
        server = ws.connect_to_server()
        socket["page"] = ws

        def from_server(message: str | bytes) -> None:
            if isinstance(message, str) and json.loads(message).get("type") == "welcome":
                socket["welcome"] = message
            ws.send(message)

        server.on_message(from_server)
        ws.on_message(server.send)

    tab.page.route_web_socket(re.compile(r"/ws"), pass_through)
    tab.reload()
    try:
        tab.page.wait_for_selector("#in-play-card #back-to-table")
    except PlaywrightError:
        seen = tab.app(
            "({route: app.route, table: app.table?.code ?? null, seat: app.seat,"
            " in_play: app.account?.in_play ?? null, loads: app.lobbyLoads})"
        )
        raise AssertionError(f"no way back to table {code} after a reload: {seen}") from None
    # the lobby can be drawn from /api/me before the websocket's welcome has come through (a
    # make test run saw it): wait for it, letting Playwright run the route's handler meanwhile
    end = time.monotonic() + 15
    while "welcome" not in socket and time.monotonic() < end:
        tab.page.wait_for_timeout(20)
    assert "welcome" in socket, "the websocket passed no welcome"
    socket["page"].send(socket["welcome"])
    tab.page.evaluate(NEXT_FRAMES)
    assert tab.page.query_selector("#in-play-card #back-to-table"), tab.app("app.account")
    tab.page.click("#in-play-card #back-to-table")
    tab.page.wait_for_function(
        "seat => { const app = window.__duyun; return app.route === 'table' && app.seat === seat"
        " && app.table && !app.table.seats[seat].tuoguan && !app.table.seats[seat].escaped; }",
        arg=seat,
    )
    assert tab.app("app.table.code") == code
    assert not tab.errors, tab.errors
    tab.close()


def test_leaving_during_a_hand_says_what_the_escape_costs_r45(
    browser: Any, web_server: WebServer
) -> None:
    tab = Tab(browser, web_server, PHONE)
    _private_table_with_bots(tab, hands=HANDS)
    tab.page.click("#leave-btn")
    dialog = tab.page.wait_for_selector("#confirm-dialog [role=alertdialog]")
    text = dialog.text_content() or ""
    assert "逃跑" in text and "分" in text, text
    tab.page.click("#confirm-dialog #confirm-cancel")
    tab.page.wait_for_selector("#confirm-dialog", state="detached")
    assert tab.app("app.route") == "table"
    tab.close()
