"""Issue 32 in the browser, at 390x844 and 1440x900: the lobby's one free-coins button with its
amount, the leaderboard with the player's own line, the profile page (rating chart, biggest
win, last matches, a guest's new display name), ratings next to the names at the table and the
rating change in the match summary. Screenshots go to test-artifacts/screenshots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import DESKTOP, PHONE, SKIP_REASON, WebServer, start_web_server

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import Tab, assert_no_sideways_scroll, shot

from duyun.engine import Payment
from duyun.server.store import MatchSpec, SeatSpec, Store

pytestmark = pytest.mark.slow

BOT = "efficient"  # BROWSER_TIMERS' default bot: the table's bots are rated as this level


@pytest.fixture(scope="module")
def players_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """A server whose leaderboards are read afresh every time (no cache to wait out)."""
    db = tmp_path_factory.mktemp("players") / "duyun.db"
    server = start_web_server(f"sqlite:///{db}", leaderboard_cache=0.0)
    yield server
    server.stop()


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
        assert "100" in page.inner_text("#bonus-btn")  # the daily gift, with its amount
        shot(tab, screenshots, f"issue32-lobby-{size}.png")
        page.click("#bonus-btn")
        page.wait_for_function("() => window.__duyun.account.balance === 1100")
        page.wait_for_selector("#bonus-none")
        assert "已領" in page.inner_text("#bonus-none")  # and when it comes again

        store: Store = players_server.app.state.server.store
        rated_match(store, me, [12, -12, 0, 0], "清一色")
        rated_match(store, me, [-6, 6, 0, 0], "平胡")
        tab.reload()
        page.wait_for_selector("#boards-card .lb-line.me")
        assert str(me) == page.get_attribute("#boards-card .lb-line.me button", "data-account")
        assert page.inner_text("#account-name .rating-chip") == str(store.account(me).rating)
        # the bot level's rating ("普通 1204"): what a bot of that level plays at
        assert str(store.bot_ratings()[BOT]) in page.inner_text("#boards-card")
        assert_no_sideways_scroll(tab)
        shot(tab, screenshots, f"issue32-leaderboard-{size}.png")

        page.click("#account-name")
        page.wait_for_selector("#profile-page #rating-chart polyline")
        text = page.inner_text("#profile-page")
        assert "清一色" in text and "+12" in text  # the biggest win, pattern and coins
        assert page.locator("#profile-page [data-do=profile-replay]").count() == 2
        # the coin rows under their own names: the gift beside the hands and starting coins
        kinds = page.eval_on_selector_all(
            "#profile-ledger li", "els => els.map(e => e.dataset.kind)"
        )
        assert kinds == ["hand", "hand", "gift", "starting"], kinds
        assert "每日禮物" in page.inner_text("#profile-ledger")
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
        assert tab.errors == []
    finally:
        tab.close()


def test_ratings_at_the_table_and_the_change_in_the_match_summary(
    browser: Any, players_server: WebServer, screenshots: Path
) -> None:
    tab = Tab(browser, players_server, PHONE)
    try:
        tab.goto()
        tab.guest()
        page = tab.page
        page.click(".room:first-child [data-do=quick]")
        page.wait_for_selector("#board")
        page.wait_for_function(
            "() => document.querySelectorAll('.plate .rating-chip').length === 4"
        )
        chips = page.locator(".plate .rating-chip").all_inner_texts()
        assert len(chips) == 4 and all(c.isdigit() for c in chips), chips
        shot(tab, screenshots, "issue32-table-phone.png")
        page.set_viewport_size(DESKTOP)
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        shot(tab, screenshots, "issue32-table-desktop.png")
        # the match summary as the page draws it from a match_end with ratings
        html = page.evaluate(
            """async () => {
                const settle = await import('/static/js/settle.js');
                const seats = [0, 1, 2, 3].map((i) => ({ name: `p${i}`, kind: 'human' }));
                return settle.renderMatchSummary({
                    table: { seats }, totals: { points: [0, 0, 0, 0], coins: [0, 0, 0, 0] },
                    matchEnd: { points: [12, -4, -4, -4], coins: [12, -4, -4, -4], results: [],
                        ratings: [0, 1, 2, 3].map((seat) => ({ seat, place: seat ? 2 : 1,
                            before: 1000, after: seat ? 990 : 1031, change: seat ? -10 : 31 })) },
                });
            }"""
        )
        assert "1031" in html and "+31" in html and html.count("rating-change") == 4
        assert tab.errors == []
    finally:
        tab.close()
