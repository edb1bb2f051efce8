"""Small things a player met (issue 31 item 6), each checked where the page shows it: one's own
name whole on the seat plate of a small phone, no lone 準備 chip at a room table (its people
are seated ready), room cards that break only between their figures, and a turn that ran out
naming the tile that was played for the player.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from web_helpers import PHONE, SKIP_REASON, WebServer, start_web_server

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import NEXT_FRAMES, Tab
from test_web_settle import _private_table_with_bots

pytestmark = pytest.mark.slow

SMALL_PHONE = {"width": 360, "height": 740}

#: an init script: every toast the page adds, as [kind, text], in ``window.__toastLog``
TOAST_LOG = """
window.__toastLog = [];
new MutationObserver((records) => {
  for (const record of records) {
    for (const node of record.addedNodes) {
      if (node.nodeType === 1 && node.classList.contains("toast")) {
        window.__toastLog.push([node.dataset.kind || "", node.textContent || ""]);
      }
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    db = tmp_path_factory.mktemp("web-small") / "duyun.db"
    # a room table waits a minute for others before bots come; a turn runs out in 2 s
    server = start_web_server(f"sqlite:///{db}", bot_fill_wait=60.0, turn_timer=2.0)
    yield server
    server.stop()


def test_a_room_table_alone_shows_no_ready_chip_and_room_cards_keep_words_whole(
    browser: Any, web_server: WebServer
) -> None:
    tab = Tab(browser, web_server, SMALL_PHONE)
    tab.goto()
    tab.guest()
    # each figure of a room card (底注 1, 入場 100, 局數 8) and its name sit on one line
    lines = tab.page.evaluate(
        "() => [...document.querySelectorAll('.room .name, .room .meta > span')]"
        ".map(e => [e.textContent, e.getClientRects().length])"
    )
    assert lines and all(count >= 1 for _, count in lines), lines  # measured as drawn
    broken = [text for text, count in lines if count > 1]
    assert broken == [], broken
    tab.page.click(".room:first-child [data-do=quick]")
    tab.page.wait_for_function("() => window.__duyun.table && window.__duyun.seat != null")
    tab.page.evaluate(NEXT_FRAMES)
    seat = tab.app("app.seat")
    assert tab.app("app.table.status") == "waiting" and tab.app("app.table.kind") == "room"
    tags = tab.page.text_content(f"#plate-{seat}") or ""
    assert "準備" not in tags, tags
    tab.close()


def test_own_name_is_whole_on_a_small_phone_and_a_timed_out_turn_names_its_tile(
    browser: Any, web_server: WebServer
) -> None:
    tab = Tab(browser, web_server, SMALL_PHONE)
    # every toast the page shows, kept: the notice is on screen for 4 s, which a loaded
    # machine's round trips between here and the page can outlast (a CI dry run waited for
    # it in vain), and a later turn may not bring another (two timeouts in a row are 托管)
    tab.page.add_init_script(TOAST_LOG)
    _private_table_with_bots(tab, hands=1)
    tab.page.wait_for_selector("#hand.can-discard")  # the dealer's first turn: left to run out
    seat = tab.app("app.seat")
    # queried and measured in one script, so the name measured is the one on screen (the
    # plate is drawn again on every move) and not a detached copy that measures 0 by 0
    name_width, cut = tab.page.evaluate(
        """(sel) => { const n = document.querySelector(sel);
            return [n.clientWidth, n.scrollWidth > n.clientWidth + 1]; }""",
        f"#plate-{seat} .name",
    )
    assert name_width > 0
    assert not cut, tab.page.text_content(f"#plate-{seat} .name")
    try:
        tab.page.wait_for_function(
            "() => window.__toastLog.some(([kind, text]) => kind === 'info' && "
            "text.includes('時間到了'))",
            timeout=30_000,
        )
    except Exception as exc:
        shown = tab.page.evaluate(
            "() => ({toasts: window.__toastLog, seat: window.__duyun.seat, "
            "seats: window.__duyun.table?.seats?.map(s => s && s.tuoguan), "
            "prompt: window.__duyun.prompt, status: window.__duyun.table?.status, "
            "river: window.__duyun.hand?.rivers?.[window.__duyun.seat]})"
        )
        raise AssertionError(f"no timeout notice within 30 s; the page had {shown}") from exc
    text = next(t for kind, t in tab.page.evaluate("window.__toastLog") if "時間到了" in t)
    river = tab.app(f"app.hand.rivers[{seat}].map(r => r.tile)")
    assert "時間到了" in text and river, (text, river)
    # the tile the timer played, by its Chinese name (五筒): the first of the seat's river
    number, suit = river[0][0], river[0][1]
    name = "一二三四五六七八九"[int(number) - 1] + {"m": "萬", "p": "筒", "s": "條"}[suit]
    assert text.endswith(name), (text, river)
    tab.close()


def test_phone_sizes_keep_the_own_plate_inside_the_board(
    browser: Any, web_server: WebServer
) -> None:
    """The wider own plate stays within the board at the phone sizes."""
    for viewport in (PHONE, SMALL_PHONE):
        tab = Tab(browser, web_server, viewport)
        # eight hands: a one-hand match could be over (the plate under the summary) before
        # a loaded machine measures it, as a CI dry run saw
        _private_table_with_bots(tab, hands=8)
        seat = tab.app("app.seat")
        tab.page.wait_for_selector(f"#plate-{seat}", state="visible")
        # both boxes in one script: a live table draws its board again on every move, and
        # between two separate calls (each a query, then an evaluation) the board measured
        # could be the one just replaced, detached and 0 by 0, as a CI run saw
        plate, board = tab.page.evaluate(
            """(seat) => [`#plate-${seat}`, "#board"].map(
                (sel) => document.querySelector(sel).getBoundingClientRect().toJSON())""",
            seat,
        )
        assert plate["width"] > 0 and board["width"] > 0, (plate, board)
        assert (
            plate["x"] >= board["x"] and plate["x"] + plate["width"] <= board["x"] + board["width"]
        ), (plate, board)
        tab.close()


def test_no_keyboard_help_on_a_touch_screen(browser: Any, web_server: WebServer) -> None:
    for touch in (True, False):
        tab = Tab(browser, web_server, PHONE, touch=touch)
        tab.goto()
        # queried and measured in one script (a part drawn again between two calls would be
        # measured detached, as no box at all)
        shown = tab.page.evaluate(
            "() => [...document.querySelectorAll('.kbd-help')]"
            ".filter(e => e.getClientRects().length > 0).length"
        )
        assert (shown == 0) == touch, (touch, shown)
        tab.close()
