"""A table everyone can use (issue 31 item 8).

axe-core (through axe-playwright-python) finds no violation on the lobby, the table on one's
turn, the settlement and the rules page, at phone and desktop sizes. Beyond what axe sees: the
page is not one live region (a reader would read every redraw); a status region says what
matters (a discard, one's turn); the rules and the settlement are dialogs that take the
keyboard's focus, the rules keep it and Escape closes them; the hand's tiles are reachable with
the keyboard, one at a time (a roving tabindex), the raised one marked ``aria-pressed``; focus
on the settlement holds its countdown as hover does; and a whole hand is played with the
keyboard alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from web_helpers import DESKTOP, PHONE, SKIP_REASON, WebServer, start_web_server

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from axe_playwright_python.sync_playwright import Axe
from test_web_client import HAND_DEADLINE, NEXT_FRAMES, Tab, play_until_settlement
from test_web_extras import _show_scene
from test_web_layout import _scene
from test_web_settle import _private_table_with_bots

pytestmark = pytest.mark.slow

AXE = Axe()


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    db = tmp_path_factory.mktemp("web-a11y") / "duyun.db"
    # the settlement waits to be read; the turns wait for a person pressing keys
    server = start_web_server(
        f"sqlite:///{db}", next_hand_wait=60.0, next_hand_limit=120.0, turn_timer=60.0
    )
    yield server
    server.stop()


def _violations(tab: Tab, where: str) -> list[str]:
    tab.page.evaluate(NEXT_FRAMES)
    found = AXE.run(tab.page).response["violations"]
    return [f"{where}: {v['id']} ({v['impact']}) at {v['nodes'][0]['target']}" for v in found]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_axe_finds_nothing_on_the_lobby_table_settlement_and_rules(
    browser: Any, web_server: WebServer, viewport: dict[str, int]
) -> None:
    tab = Tab(browser, web_server, viewport)
    tab.goto()
    found = _violations(tab, "lobby, signed out")
    tab.guest()
    found += _violations(tab, "lobby")
    tab.page.click("[data-do=rules]")
    tab.page.wait_for_selector("#rules-page [role=dialog]")
    found += _violations(tab, "rules")
    tab.page.keyboard.press("Escape")
    tab.page.wait_for_selector("#rules-page", state="detached")
    tab.page.fill("#create-hands", "1")
    tab.page.click("#create-btn")
    tab.page.wait_for_selector("#table-code")
    tab.add_bots()
    tab.page.click("#ready-btn")
    tab.page.wait_for_selector("#hand.can-discard")
    found += _violations(tab, "table, own turn")
    play_until_settlement(tab)
    tab.page.wait_for_selector("#settlement [role=dialog], #match-summary [role=dialog]")
    found += _violations(tab, "settlement")
    assert found == [], found
    tab.close()


def test_the_table_speaks_through_a_status_region_not_every_redraw(
    browser: Any, web_server: WebServer
) -> None:
    tab = Tab(browser, web_server, DESKTOP)
    _private_table_with_bots(tab, hands=1)
    tab.page.wait_for_selector("#hand.can-discard")
    assert tab.page.get_attribute("#app", "aria-live") is None
    assert tab.page.get_attribute("#announce", "role") == "status"
    tab.page.wait_for_function(
        "() => document.querySelector('#announce').textContent.includes('輪到你')"
    )
    # Enter on a focused control is that control's: 聽 opens its panel, no tile is discarded
    tab.page.focus("#tingpai-btn")
    tab.page.keyboard.press("Enter")
    tab.page.wait_for_selector("#tingpai-btn[aria-pressed=true]")
    assert tab.app("app.promptSent") is False
    assert tab.page.query_selector("#hand.can-discard") is not None
    tab.page.evaluate("() => document.activeElement.blur()")
    tab.page.keyboard.press("Enter")  # the own discard is said too
    tab.page.wait_for_function(
        "() => document.querySelector('#announce').textContent.includes('打出')",
        timeout=HAND_DEADLINE * 1000,
    )
    tab.close()


def test_the_rules_are_a_dialog_that_keeps_and_gives_back_the_focus(
    browser: Any, web_server: WebServer
) -> None:
    tab = Tab(browser, web_server, PHONE)
    tab.goto()
    tab.guest()
    tab.page.evaluate(NEXT_FRAMES)
    tab.page.focus("[data-do=rules]")
    tab.page.keyboard.press("Enter")
    tab.page.wait_for_selector("#rules-page [role=dialog][aria-modal=true]")
    assert tab.page.evaluate("() => document.activeElement.id") == "rules-close"
    for _ in range(30):  # Tab goes round inside the dialog, never out of it
        tab.page.keyboard.press("Tab")
        inside = tab.page.evaluate(
            "() => !!document.activeElement.closest('#rules-page [role=dialog]')"
        )
        assert inside
    tab.page.keyboard.press("Escape")
    tab.page.wait_for_selector("#rules-page", state="detached")
    assert tab.page.evaluate("() => document.activeElement.dataset.do") == "rules"
    tab.close()


#: the control with the keyboard's focus: what it does, its words, whether it is in the settlement
FOCUSED_CONTROL = """() => { const el = document.activeElement;
    return {does: el.dataset.do || null, id: el.id || null, text: el.textContent.trim(),
        inSheet: !!el.closest('#settlement .sheet')}; }"""
#: the settlement's part drawn anew at once, as any change of its markup does: the part is told
#: its markup is stale, the panel is marked, and a table message (as a bot's 下一局 brings) renders
REDRAW_THE_OVERLAY = """() => { const app = window.__duyun;
    document.querySelector('#settlement').dataset.drawnBefore = 'yes';
    document.getElementById('part-overlay').dataset.html = '';
    app.session.onMessage({type: 'table', table: app.table}); }"""


def test_a_whole_hand_with_the_keyboard_alone_and_the_settlement_takes_the_focus(
    browser: Any, web_server: WebServer
) -> None:
    tab = Tab(browser, web_server, DESKTOP)
    _private_table_with_bots(tab, hands=2)
    page = tab.page
    # the mouse out of the way: resting on the settlement it would hold the countdown (hover)
    page.mouse.move(1, 1)
    page.wait_for_selector("#hand.can-discard")
    # one tile takes Tab; → raises the next one, which takes it and is marked pressed
    assert page.eval_on_selector_all("#hand .tile[tabindex='0']", "ts => ts.length") == 1
    page.focus("#hand .tile[tabindex='0']")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#hand .tile.sel[aria-pressed=true][tabindex='0']")
    page.wait_for_function("() => document.activeElement.matches('#hand .tile.sel')")
    pressed = {"turn": 0, "claim": 0, "offer put away": 0, "win": 0}
    while not page.query_selector("#settlement, #match-summary"):
        page.wait_for_selector(
            "#settlement, #match-summary, #action-bar [data-key], #hand.can-discard",
            timeout=HAND_DEADLINE * 1000,
        )
        keys = page.eval_on_selector_all(
            "#action-bar [data-key]", "bs => bs.map(b => b.dataset.key)"
        )
        before = tab.app("app.prompt && app.prompt.id")
        kind = tab.app("!app.promptSent && app.prompt && app.prompt.kind")
        if "h" in keys:
            page.keyboard.press("h")
            pressed["win"] += 1
        elif " " in keys and kind == "turn":
            # 報聽 or a kong offered on one's own turn: Escape puts the offer away and sends
            # nothing (the tile is still to be discarded), so no prompt change is waited for;
            # waiting would run the turn's timer out and hand the seat to 托管
            page.keyboard.press("Escape")
            page.wait_for_function(
                "() => !document.querySelector('#action-bar [data-key=\" \"]')"
                " || !!document.querySelector('#settlement, #match-summary')",
                timeout=HAND_DEADLINE * 1000,
            )
            pressed["offer put away"] += 1
            continue
        elif " " in keys:
            page.keyboard.press("Escape")  # 過
            pressed["claim"] += 1
        elif page.query_selector("#hand.can-discard"):
            page.keyboard.press("Enter")
            pressed["turn"] += 1
        else:
            continue
        page.wait_for_function(
            "id => { const app = window.__duyun; return app.promptSent || !app.prompt"
            " || app.prompt.id !== id"
            " || !!document.querySelector('#settlement, #match-summary'); }",
            arg=before,
            timeout=HAND_DEADLINE * 1000,
        )
    # a discard by Enter, unless the first turn was already a win (天胡, or a win on the first
    # discard offered)
    assert pressed["turn"] >= 1 or pressed["win"] >= 1, pressed
    # the settlement is a dialog and has the focus; the reader's Tab onto it holds its
    # countdown, as hover does
    page.wait_for_selector("#settlement [role=dialog]")
    page.wait_for_function("() => !!document.activeElement.closest('#settlement [role=dialog]')")
    assert not page.query_selector("#settle-countdown.paused")  # the page's own focus: runs
    page.keyboard.press("Tab")
    page.wait_for_selector("#settle-countdown.paused")
    # a message that draws the panel anew (a bot's 下一局 changes who is ready) keeps the
    # reader's focus on the same control, ids or none (申請解散 and 返回大廳 have none), and
    # the reader still holds the countdown: once a flake, the focus fell to the page's body
    for _ in range(4):  # 申請解散, 返回大廳, then round again: the dialog keeps the keyboard
        before = page.evaluate(FOCUSED_CONTROL)
        assert before["inSheet"] and before["does"], before
        page.evaluate(REDRAW_THE_OVERLAY)
        page.evaluate(NEXT_FRAMES)
        assert page.evaluate(FOCUSED_CONTROL) == before
        assert page.evaluate("() => !document.querySelector('#settlement').dataset.drawnBefore")
        assert page.query_selector("#settle-countdown.paused")
        page.keyboard.press("Tab")
    tab.close()


def test_escape_puts_a_turns_offer_away_and_enter_still_discards(
    browser: Any, web_server: WebServer
) -> None:
    """On one's own turn with 報聽 offered, the offer bar's 過 is Escape: it sends nothing (the
    turn still wants a discard), the offer goes, and Enter then discards the raised tile."""
    scene = _scene()
    discards = [x["tile"] for x in scene["legal"]]
    scene["legal"] = [*scene["legal"], {"action": "baoting", "tile": discards[0]}]
    context, page = _show_scene(browser, web_server, scene)
    page.wait_for_selector("#action-bar [data-do=bt-mode][data-key=b]")
    page.focus("#hand .tile[tabindex='0']")
    page.keyboard.press("Escape")
    page.wait_for_selector("#action-bar [data-do=bt-mode]", state="detached")
    assert not page.query_selector("#action-bar [data-key]")
    assert page.evaluate("() => window.__sent") == []
    assert page.query_selector("#hand.can-discard")
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.__sent.length > 0")
    sent = page.evaluate("() => window.__sent")
    assert [m["type"] for m in sent] == ["act"], sent
    assert sent[0]["action"] == "discard" and sent[0]["tile"] in discards, sent
    context.close()
