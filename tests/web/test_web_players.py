"""Issue 32 in the browser, at 390x844 and 1440x900: the lobby's one free-coins button with its
amount (the daily gift, then the top-up once the coins are gone), the leaderboard with the
player's own line, the profile page (rating chart, biggest win, last matches, a guest's new
display name), and a real rated one-hand quick match: the chosen name and ratings next to the
names at the table, the rating change in the match summary. Every screen lies inside the
window (the body hides sideways overflow, so its scroll width alone would not tell).
Screenshots go to test-artifacts/screenshots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import DESKTOP, PHONE, SKIP_REASON, WebServer, start_web_server

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import HAND_DEADLINE, Tab, assert_no_sideways_scroll, shot

from duyun.engine import Payment
from duyun.server.config import Room
from duyun.server.store import MatchSpec, SeatSpec, Store

pytestmark = pytest.mark.slow

BOT = "efficient"  # BROWSER_TIMERS' default bot: the table's bots are rated as this level
GIFT = 120  # players_server's daily gift (the default is 100)


@pytest.fixture(scope="module")
def players_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """A server whose leaderboards are read afresh every time (no cache to wait out), with a
    daily gift of its own (the lobby and the rules page name this server's amounts)."""
    db = tmp_path_factory.mktemp("players") / "duyun.db"
    server = start_web_server(f"sqlite:///{db}", leaderboard_cache=0.0, daily_gift=GIFT)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def one_hand_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """A server whose one room plays one-hand matches, with short claim windows (the test's
    seat is played by 托管): a whole rated match in seconds."""
    db = tmp_path_factory.mktemp("players-match") / "duyun.db"
    room = Room("novice", "新手場", stake=1, entry=100, hands=1)
    server = start_web_server(f"sqlite:///{db}", rooms=(room,), claim_window=0.04, claim_beat=0.04)
    yield server
    server.stop()


#: elements drawn past the window's left or right edge (1-px screen-reader boxes aside)
OUTSIDE = """() => [...document.querySelectorAll('body *')]
    .map((e) => [e, e.getBoundingClientRect()])
    .filter(([, r]) => r.width > 1 && r.height > 1
        && (r.left < -0.5 || r.right > window.innerWidth + 0.5))
    .slice(0, 5)
    .map(([e, r]) => `${e.tagName}#${e.id}.${e.className} ${r.left | 0}..${r.right | 0}`)"""


def assert_inside_window(tab: Tab) -> None:
    """Nothing is drawn past the window's sides. A lobby card once grew past them (the own
    leaderboard line took the table's ``.me`` width) while the body's hidden overflow kept
    the scroll width at the window's: the values were cut off, with no scrollbar."""
    assert_no_sideways_scroll(tab)
    outside = tab.page.evaluate(OUTSIDE)
    assert outside == [], outside


def rated_match(store: Store, account_id: int, points: list[int], pattern: str) -> None:
    """A finished one-hand room match of the account and three bots, won or lost by
    ``points`` (seat 0's first), rated as the server rates it."""
    seats = (SeatSpec(account_id), *(SeatSpec(None, BOT) for _ in range(3)))
    match = store.create_match(MatchSpec("room", "novice", 1, 1, seats, seed=1))
    hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    payer, payee = (1, 0) if points[0] > 0 else (0, 1)
    pay = [Payment(payer, payee, 1, abs(points[0]), "R28", "t")]
    wins = [{"seat": payee, "pattern": pattern, "fan": 6, "how": "ron"}]
    store.finish_hand(hand, pay, {"totals": points, "wins": wins})
    store.finish_match(match, "completed")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_free_coins_leaderboard_and_profile(
    browser: Any, players_server: WebServer, screenshots: Path, size: str
) -> None:
    tab = Tab(browser, players_server, PHONE if size == "phone" else DESKTOP)
    try:
        tab.goto()
        tab.guest()
        page = tab.page
        me = int(tab.app("app.account.id"))
        page.wait_for_selector("#bonus-btn")
        assert str(GIFT) in page.inner_text("#bonus-btn")  # the daily gift, with its amount
        assert_inside_window(tab)
        shot(tab, screenshots, f"issue32-lobby-{size}.png")
        # the players' rules page explains the economy with this server's amounts
        page.click("#rules-btn")
        economy = page.inner_text("#rules-page #rules-coins")
        assert f"每日禮物 {GIFT} 金幣" in economy and "補到 300 金幣" in economy, economy
        assert "每天最多 3 次" in economy and "排行榜" in economy
        page.click("#rules-close")
        page.click("#bonus-btn")
        page.wait_for_function(f"() => window.__duyun.account.balance === {1000 + GIFT}")
        page.wait_for_selector("#bonus-none")
        assert "已領" in page.inner_text("#bonus-none")  # and when it comes again

        store: Store = players_server.app.state.server.store
        rated_match(store, me, [12, -12, 0, 0], "清一色")
        rated_match(store, me, [-6, 6, 0, 0], "平胡")
        tab.reload()
        page.wait_for_selector("#boards-card .lb-line.mine")
        assert str(me) == page.get_attribute("#boards-card .lb-line.mine button", "data-account")
        rating = store.account(me).rating
        assert page.inner_text("#account-name .rating-chip") == str(rating)
        # the own line shows its rating inside the window, not cut off at its edge
        assert page.inner_text("#boards-card .lb-line.mine b") == str(rating)
        # the bot level's rating ("普通 1204"): what a bot of that level plays at
        assert str(store.bot_ratings()[BOT]) in page.inner_text("#boards-card")
        assert_inside_window(tab)
        page.locator("#boards-card").scroll_into_view_if_needed()
        shot(tab, screenshots, f"issue32-leaderboard-{size}.png")
        # this week's coins won in hands: +12, then -6
        page.click("#board-tab-weekly")
        page.wait_for_selector("#board-weekly .lb-line.mine")
        assert page.inner_text("#board-weekly .lb-line.mine b") == "+6"
        assert_inside_window(tab)
        shot(tab, screenshots, f"issue32-weekly-{size}.png")

        page.click("#account-name")
        page.wait_for_selector("#profile-page #rating-chart polyline")
        # the chart starts from the rating before the first match shown: two matches, three
        # points (1000, then each match's result)
        drawn = page.get_attribute("#rating-chart polyline", "points") or ""
        assert len(drawn.split()) == 3, drawn
        text = page.inner_text("#profile-page")
        assert "清一色" in text and "+12" in text  # the biggest win, pattern and coins
        assert page.locator("#profile-page [data-do=profile-replay]").count() == 2
        # the coin rows under their own names: the gift beside the hands and starting coins
        kinds = page.eval_on_selector_all(
            "#profile-ledger li", "els => els.map(e => e.dataset.kind)"
        )
        assert kinds == ["hand", "hand", "gift", "starting"], kinds
        assert "每日禮物" in page.inner_text("#profile-ledger")
        assert_inside_window(tab)
        shot(tab, screenshots, f"issue32-profile-{size}.png")
        new_name = "阿小明" if size == "phone" else "阿小紅"
        page.fill("#profile-name", new_name)
        page.click("#profile-page [data-submit=profile-rename] button")
        page.wait_for_function(
            "name => document.querySelector('#profile-display-name')?.textContent === name",
            arg=new_name,
        )
        page.click("#profile-close")
        page.wait_for_function(
            "name => document.querySelector('#account-name')?.textContent.includes(name)",
            arg=new_name,
        )

        # the coins are gone: the one button is now the top-up (破產補助), with its amount
        balance = store.account(me).balance
        rated_match(store, me, [-balance, balance, 0, 0], "平胡")
        tab.reload()
        page.wait_for_selector("#bonus-btn[data-kind=topup]")
        assert "300" in page.inner_text("#bonus-btn")  # from 0 to 300
        assert "3" in page.inner_text("#bonus-card .muted")  # the top-ups left today
        page.click("#bonus-btn")
        page.wait_for_function("() => window.__duyun.account.balance === 300")
        assert [r.kind for r in store.coin_ledger(me)][:2] == ["topup", "hand"]
        assert tab.errors == []
    finally:
        tab.close()


def test_a_rated_match_shows_ratings_at_the_table_and_the_change_in_the_summary(
    browser: Any, one_hand_server: WebServer, screenshots: Path
) -> None:
    """A guest named 小明 plays a one-hand quick match with three bots: the table shows her
    chosen name and every seat's rating, and the match summary each seat's new rating and
    its change, as the store recorded them."""
    tab = Tab(browser, one_hand_server, PHONE)
    try:
        tab.goto()
        tab.guest()
        page = tab.page
        me = int(tab.app("app.account.id"))
        page.evaluate(
            "async (name) => (await import('/static/js/net.js')).api('POST', '/api/name', {name})",
            "小明",
        )
        page.click(".room:first-child [data-do=quick]")
        page.wait_for_selector("#board")
        page.wait_for_function(
            "() => document.querySelectorAll('.plate .rating-chip').length === 4"
        )
        chips = page.locator(".plate .rating-chip").all_inner_texts()
        assert chips[0] == "1000" and all(c.isdigit() for c in chips), chips
        assert "小明" in page.inner_text(".plate.pos-0 .name")  # not guest-123456
        assert_inside_window(tab)
        shot(tab, screenshots, "issue32-table-phone.png")
        page.set_viewport_size(DESKTOP)
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        assert_inside_window(tab)
        shot(tab, screenshots, "issue32-table-desktop.png")
        page.set_viewport_size(PHONE)

        page.click("#tuoguan-btn")  # 托管: the server plays the seat at bot speed
        page.wait_for_function("() => !!window.__duyun.matchEnd", timeout=HAND_DEADLINE * 1000)
        page.click("#show-summary")
        page.wait_for_selector("#match-summary .rating-change")
        seat = int(tab.app("app.seat"))
        lines = tab.app("app.matchEnd.ratings")
        store: Store = one_hand_server.app.state.server.store
        changes = store.match_ratings(store.history(me)[0].match_id)
        assert [(c.before, c.after) for c in changes] == [(r["before"], r["after"]) for r in lines]
        mine = next(r for r in lines if r["seat"] == seat)
        assert (mine["before"], mine["after"]) == (1000, store.account(me).rating)
        cards = page.locator("#match-summary .total-card").all_inner_texts()
        assert len(cards) == 4 and page.locator("#match-summary .rating-change").count() == 4
        sign = "+" if mine["change"] > 0 else ""
        assert f"{mine['after']} {sign}{mine['change']}" in " ".join(cards[seat].split()), cards
        assert_inside_window(tab)
        shot(tab, screenshots, "issue32-summary-phone.png")
        page.set_viewport_size(DESKTOP)
        assert_inside_window(tab)
        shot(tab, screenshots, "issue32-summary-desktop.png")
        assert tab.errors == []
    finally:
        tab.close()
