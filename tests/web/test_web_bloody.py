"""血戰 rooms in the browser (RULES R52-R57, issue 14), against the real server in Chromium.

A private table created from the lobby form with 血戰到底 (the server's private-table API with
``rules: {"bloody_battle": true}``), three bots, the own seat played by clicking. After the first
win of a hand the server's next messages are held (the hand goes on: R53), so that the page can
be checked and photographed with the winner's hand laid open at the seat; then the hand is
played to the settlement, which lists every win in order with its payments. The hands are
stacked (the server's test-only deal hook), so that every one has two wins, whatever the own
seat discards: a test must not wait for what only the luck of a deal brings (issue 30).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import DESKTOP, PHONE, SKIP_REASON, WebServer, start_web_server

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from playwright.sync_api import Error as PlaywrightError
from test_web_client import Tab, assert_no_sideways_scroll, press, shot

from duyun.analysis.shanten import rank_discards
from duyun.engine import Setup
from duyun.engine.scenario import parse_scenario
from duyun.tiles import parse_tiles, tile_from_str, tile_to_str, to_counts

pytestmark = pytest.mark.slow

#: a 血戰 hand runs on after wins; only the point at which a stuck test gives up
HAND_DEADLINE = 180.0
#: the match's hands (the first one is checked)
HANDS = 2

#: the stacked hands, from the dealer round: the dealer holds no 5p nor 8p; the next seat
#: declared 報聽 waiting on 5p and the one after on 8p (both 對對胡); the last holds no pair
#: (it cannot pong the dealer's discard and skip them); the wall's first tiles are 5p then 8p,
#: so the two win by self-draw one after the other (R26, R53) and the hand goes on after the
#: first; six tiles in all, so it ends soon after
STACKED = (
    "1p2p3p5s6s7s8m8m4m5m6m9m7s6p",
    "3m3m3m4p4p4p4s4s4s6m6m6m5p",
    "1m1m1m7p7p7p9s9s9s2m2m2m8p",
    "5m7m9m1p3p6p9p1s3s5s8s2p2s",
)


def two_wins(hand_index: int, seed: int, dealer: int, streak: int) -> Setup:
    """Every hand: two self-drawn wins one after the other, then the hand goes on (R53)."""
    order = [(seat - dealer) % 4 for seat in range(4)]
    data: dict[str, Any] = {
        "dealer": dealer,
        "streak": streak,
        "hands": [STACKED[i] for i in order],
        "wall": "5p8p4m1s9m6p",
        "fill": False,
        "actions": [],
        "rules": {"bloody_battle": True},
        "baoting": [i in (1, 2) for i in order],
        "discards": ["2s" if i in (1, 2) else "" for i in order],
    }
    return parse_scenario(data).setup


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    db = tmp_path_factory.mktemp("web-bloody") / "duyun.db"
    server = start_web_server(f"sqlite:///{db}")
    server.app.state.server.manager.deal = two_wins
    yield server
    server.stop()


#: record every big win highlight the page shows (it lasts a moment): the test reads the list.
#: A 報聽 winner's or a big pattern's win has the full-board banner instead (issue 31 item 4)
RECORD_BIG_WINS = """() => {
    window.__bigWins = [];
    const watch = () => new MutationObserver((changes) => {
        for (const change of changes)
            for (const node of change.addedNodes)
                if (node.classList && (node.classList.contains('big-win')
                                       || node.classList.contains('big-moment')))
                    window.__bigWins.push(node.textContent.replace(/\\s+/g, ' ').trim());
    }).observe(document.body, {childList: true, subtree: true});  // highlights go in #app
    if (document.body) watch(); else document.addEventListener('DOMContentLoaded', watch);
}"""


def hold_after_first_win(page: Any) -> dict[str, Any]:
    """Route the page's websocket through the test: once an ``events`` message with a ``win``
    that does not end the hand (R53) has gone to the page, the server's next messages are held
    until :func:`release`, so that the table with the open winner's hand stays on screen."""
    state: dict[str, Any] = {"hold": False, "used": False, "queue": [], "client": None, "win": None}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        state["client"] = ws

        def from_server(message: str | bytes) -> None:
            if state["hold"]:
                state["queue"].append(message)
                return
            ws.send(message)
            if state["used"] or not isinstance(message, str) or '"win"' not in message:
                return
            data = json.loads(message)
            events = data.get("events") or []
            wins = [e for e in events if e.get("type") == "win"]
            ends = any(e["type"] == "end" for e in events)
            if data.get("type") == "events" and wins and not ends:
                state["win"] = wins[0]
                state["hold"] = True

        server.on_message(from_server)

    page.route_web_socket("**/ws", route)
    return state


def release(state: dict[str, Any]) -> None:
    state["hold"] = False
    state["used"] = True
    queue, state["queue"] = state["queue"], []
    for message in queue:
        state["client"].send(message)


def concealed_of(hand_text: str) -> list[str]:
    """The concealed tiles of a hand in the engine's notation (melds are bracketed)."""
    parts = [p for p in hand_text.split() if not p.startswith(("[", "("))]
    return sorted(tile_to_str(t) for t in parse_tiles("".join(parts)))


def check_open_winner(tab: Tab, win: dict[str, Any], screenshots: Path) -> None:
    """R53: the first winner's hand lies open (face up, the winning tile marked, a 胡 badge
    with the order), the big highlight showed, play goes on; photographed at both sizes."""
    page = tab.page
    seat, me = win["seat"], tab.app("app.seat")
    page.wait_for_function(f"() => window.__duyun.hand.won[{seat}] !== null")
    page.wait_for_function("() => window.__bigWins.length >= 1")
    assert win["pattern"] in page.evaluate("() => window.__bigWins[0]")
    assert tab.app("app.hand.phase") != "ended"  # the hand goes on (R53)
    if seat == me:
        # a winner gets no action bar, its hand laid open and a button to leave (R57)
        page.wait_for_selector("#won-area .open-hand.mine")
        assert page.query_selector("#action-bar") is None
        assert page.query_selector("#leave-won-btn") is not None
        open_hand = "#won-area .open-hand"
    else:
        open_hand = f".plate[data-seat='{seat}'] .open-hand"
        page.wait_for_selector(open_hand)
        assert page.query_selector(f".plate[data-seat='{seat}'] .concealed") is None
    face_up = page.eval_on_selector_all(
        f"{open_hand} > .tile", "els => els.map(e => e.dataset.tile)"
    )
    assert "?" not in face_up
    assert sorted(face_up) == concealed_of(win["hand"])  # every tile, the winning one included
    marked = page.eval_on_selector_all(
        f"{open_hand} > .tile.win-tile", "els => els.map(e => e.dataset.tile)"
    )
    assert marked == [win["tile"]]
    badge = page.text_content(f".plate[data-seat='{seat}'] .badge.won")
    assert badge is not None and "1" in badge and "胡" in badge
    # the winner declared 報聽; out of the hand, its mark no longer lies under the badge
    assert tab.app(f"app.hand.baoting[{seat}]") is True
    assert page.query_selector(f".plate[data-seat='{seat}'] .badge.bt") is None
    # photographs without the passing highlight over the board
    page.wait_for_selector(".fx.big-win, .big-moment", state="detached")
    assert_no_sideways_scroll(tab)
    shot(tab, screenshots, "bloody-open-hand-desktop.png")
    page.set_viewport_size(PHONE)
    page.wait_for_function(f"() => window.innerWidth === {PHONE['width']}")
    if seat != me:
        # a phone's corner shows the winning tile; the whole hand lies open under the board
        page.wait_for_selector(f".plate[data-seat='{seat}'] .open-hand.compact .win-tile")
        open_hand = f"#winners-strip .winner-row[data-seat='{seat}'] .open-hand"
        strip = page.eval_on_selector_all(
            f"{open_hand} > .tile", "els => els.map(e => e.dataset.tile)"
        )
        assert sorted(strip) == concealed_of(win["hand"])
    page.wait_for_selector(open_hand)
    assert_no_sideways_scroll(tab)
    shot(tab, screenshots, "bloody-open-hand-phone.png")
    page.set_viewport_size(DESKTOP)
    page.wait_for_function(f"() => window.innerWidth === {DESKTOP['width']}")


def play_turn(tab: Tab) -> bool:
    """Own turn: 自摸 when offered, else the discard that keeps the hand closest to ready
    (lowest shanten), so that the own seat wins now and then too."""
    page = tab.page
    if press(page, "#action-bar [data-action=hu]"):
        return True
    press(page, "#action-bar [data-do=dismiss]")  # 過 on kongs and 報聽
    tiles = tab.hand_tiles()
    if len(tiles) % 3 != 2:
        return False
    best = tile_to_str(rank_discards(to_counts(tile_from_str(x) for x in tiles))[0].discard)
    if press(page, f"#hand.can-discard button.tile[data-tile='{best}']:not([aria-disabled])"):
        page.wait_for_selector("#hand.can-discard", state="detached", timeout=10_000)
        return True
    return False


def play_hand(tab: Tab, held: dict[str, Any], screenshots: Path) -> None:
    """Play the own seat until the settlement panel shows; check the open winner when held."""
    page = tab.page
    end = time.monotonic() + HAND_DEADLINE
    ready = "#settlement, #match-summary, #action-bar button.act, .hand.can-discard"
    while time.monotonic() < end:
        if held["hold"]:
            check_open_winner(tab, held["win"], screenshots)
            release(held)
            continue
        try:
            page.wait_for_selector(ready, timeout=1000)
        except PlaywrightError:
            continue  # the bots are playing (or the messages are held): look again
        if page.query_selector("#settlement, #match-summary"):
            return
        if page.query_selector("#action-bar [data-action=pass]"):
            # a claim: win when allowed, else pass (a closed hand keeps 自摸 chances)
            press(page, "#action-bar [data-action=hu]") or press(
                page, "#action-bar [data-action=pass]"
            )
        elif page.query_selector(".hand.can-discard, #action-bar [data-action=hu]"):
            play_turn(tab)
    raise AssertionError(f"no settlement within {HAND_DEADLINE} s")


def check_settlement(tab: Tab) -> dict[str, Any]:
    """Every win in order (R53), each with the payments it earned (R28, R29; R54: only players
    still in the hand pay), the totals summing to zero."""
    page = tab.page
    page.wait_for_selector("#settlement #hand-totals")
    end = tab.app("app.handEnd")
    assert sum(end["points"]) == 0
    assert "血戰" in page.text_content("#settlement h2")
    boxes = page.eval_on_selector_all(
        "#settlement .win-box", "bs => bs.map(b => [Number(b.dataset.winner), b.dataset.order])"
    )
    assert boxes == [[w["seat"], str(i + 1)] for i, w in enumerate(end["wins"])]
    assert [w["seat"] for w in end["wins"]] == end["winners"]
    for win in end["wins"]:
        rows = [
            p for p in end["payments"] if p["payee"] == win["seat"] and p["rule"] in ("R28", "R29")
        ]
        chips = page.eval_on_selector_all(
            f"#settlement [data-win-pays='{win['seat']}'] .pay-chip", "cs => cs.length"
        )
        assert chips == len(rows) >= 1
        # R54: nobody who had already won pays for a later win
        before = end["winners"][: end["winners"].index(win["seat"])]
        assert not any(p["payer"] in before for p in rows)
    return end


def test_bloody_battle_table_shows_open_winners_and_settles_every_win(
    browser: Any, web_server: WebServer, screenshots: Path
) -> None:
    """R52-R57 in the browser: a 血戰 private table (listed, so the lobby labels it) with three
    bots, played by clicking; the first winner's hand laid open while play goes on; the
    settlement lists several wins in order with their payments."""
    tab = Tab(browser, web_server, DESKTOP)
    held = hold_after_first_win(tab.page)
    tab.page.add_init_script(f"({RECORD_BIG_WINS})()")
    tab.goto()
    tab.guest()
    tab.page.check("#opt-bloody_battle")
    tab.page.check("#create-listed")
    tab.page.fill("#create-hands", str(HANDS))
    tab.page.click("#create-btn")
    tab.page.wait_for_selector("#table-code")
    code = tab.page.text_content("#table-code").strip()
    assert tab.app("app.table.rules.bloody_battle") is True  # the server took the rule (R52)
    assert tab.page.query_selector("#waiting-room .chip.bloody") is not None

    # the lobby labels the listed table 血戰
    other = Tab(browser, web_server, PHONE)
    other.goto()
    other.page.wait_for_selector(f".list-item[data-code='{code}'] .chip.bloody")
    shot(other, screenshots, "bloody-lobby-phone.png")
    other.close()

    tab.add_bots()
    tab.page.click("#ready-btn")
    tab.page.wait_for_selector("#hand button.tile")
    assert "血戰" in tab.page.text_content("#bloody-label")

    play_hand(tab, held, screenshots)
    end = check_settlement(tab)
    assert held["used"], "the hand did not go on after its first win"
    assert len(end["wins"]) == 2, end["wins"]
    assert_no_sideways_scroll(tab)
    shot(tab, screenshots, "bloody-settlement-desktop.png")
    tab.page.set_viewport_size(PHONE)
    tab.page.wait_for_function(f"() => window.innerWidth === {PHONE['width']}")
    assert_no_sideways_scroll(tab)
    shot(tab, screenshots, "bloody-settlement-phone.png")
    tab.close()


#: hand the client a 血戰 win of its own seat (the next event in sequence), as the server would
#: send it: the seat self-draws with the tiles it holds (R53)
OWN_WIN = """() => {
    const app = window.__duyun;
    const hand = [...app.hand.hands[app.seat]];
    const tile = app.hand.drawn[app.seat] || hand[hand.length - 1];
    app.session.onMessage({type: 'events', hand_id: app.handId, seq: app.eventCount, events: [
        {type: 'win', seat: app.seat, how: 'self_draw', from: null, tile, pattern: '平胡',
         fan: 1, extras: [], auto: false, hand: hand.join('')}]});
}"""


def test_bloody_battle_winner_has_no_action_bar_and_may_leave_without_penalty(
    browser: Any, web_server: WebServer
) -> None:
    """R53, R57: once the own seat has won, the action bar gives way to the open hand and a
    button to leave the table, whose confirmation says that leaving costs nothing (R57) and
    that no bean refund is owed afterwards (R56). The win is handed to the page as the next
    event (a real win cannot be arranged); the dialog is dismissed, so nothing is sent."""
    tab = Tab(browser, web_server, DESKTOP)
    tab.goto()
    tab.guest()
    tab.page.check("#opt-bloody_battle")
    tab.page.click("#create-btn")
    tab.page.wait_for_selector("#table-code")
    tab.add_bots()
    tab.page.click("#ready-btn")
    tab.page.wait_for_selector("#hand.can-discard")  # the dealer's first turn (seat 0)
    assert tab.page.query_selector("#action-bar") is not None
    tab.page.evaluate(OWN_WIN)
    tab.page.wait_for_selector("#won-area .open-hand.mine .win-tile")
    assert tab.page.query_selector("#action-bar") is None
    assert tab.page.query_selector("#tuoguan-btn") is None  # nothing left to hand to a bot
    badge = tab.page.text_content("#won-area .badge.won")
    assert badge is not None and "第1胡" in badge
    # the confirmation, in the page's own dialog, is read and declined
    tab.page.click("#leave-won-btn")
    asked = tab.page.wait_for_selector("#confirm-dialog #confirm-body").text_content() or ""
    assert "不扣分" in asked and "黃豆" in asked, asked
    assert len(tab.page.query_selector_all("#confirm-dialog")) == 1
    tab.page.click("#confirm-dialog #confirm-cancel")
    tab.page.wait_for_selector("#confirm-dialog", state="detached")
    assert tab.app("app.route") == "table"  # dismissed: still seated
    tab.close()
