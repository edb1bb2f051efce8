"""The lobby redraws only what changed (issue 10): a lobby update -- the open tables fetched
again, a new balance -- must not rebuild the button a player is pressing (the click would be
lost between press and release) nor the form being typed in."""

from __future__ import annotations

import pytest
from web_helpers import DESKTOP, SKIP_REASON, WebServer

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import Tab

pytestmark = pytest.mark.slow

QUICK = "[data-do=quick]"
#: keep the quick-match and refresh buttons as JS objects, to compare nodes later
MARK = f"""() => {{
    window.__quick = document.querySelector('{QUICK}');
    window.__refresh = document.querySelector('[data-do=refresh]');
}}"""
SAME_QUICK = f"() => document.querySelector('{QUICK}') === window.__quick"
SAME_REFRESH = "() => document.querySelector('[data-do=refresh]') === window.__refresh"
#: the page's next ``/api/me`` is sent at once, but its answer is handed to the page only on
#: ``window.__me.release()``
HOLD_ME = """() => {
    const fetchNow = window.fetch;
    window.__me = {answered: false, status: null, release: null};
    window.fetch = (url, init) => {
        if (!String(url).endsWith('/api/me') || window.__me.release) return fetchNow(url, init);
        const answer = fetchNow(url, init);
        answer.then((r) => { window.__me.status = r.status; window.__me.answered = true; });
        return new Promise((resolve) => { window.__me.release = () => resolve(answer); });
    };
}"""
#: the client's lobby loads: none in flight, and one more drawn than ``n``
LOAD_DRAWN = """n => { const app = window.__duyun;
    return app.lobbyLoads === 0 && app.lobbyDrawn > n; }"""


def _refresh(page: object) -> None:
    """Fetch the lobby again with its ↻ button and wait until that load has been drawn."""
    drawn = page.evaluate("() => window.__duyun.lobbyDrawn")  # type: ignore[attr-defined]
    page.click("[data-do=refresh]")  # type: ignore[attr-defined]
    page.wait_for_function(LOAD_DRAWN, arg=drawn)  # type: ignore[attr-defined]


def test_lobby_update_keeps_unchanged_parts_and_redraws_the_changed_one(
    web_server: WebServer, browser: object
) -> None:
    tab = Tab(browser, web_server, DESKTOP)
    try:
        tab.goto()
        tab.guest()
        page = tab.page
        page.wait_for_selector(QUICK)
        _refresh(page)  # rooms, open tables, history, account: everything loaded now
        page.evaluate(MARK)
        # fetched again, nothing changed: no part is rebuilt
        _refresh(page)
        assert page.evaluate(f"() => document.querySelector('{QUICK}') === window.__quick")
        assert page.evaluate(
            "() => document.querySelector('[data-do=refresh]') === window.__refresh"
        )
        # queueing for a room changes the rooms part only: it is redrawn (its buttons say so),
        # the open tables' part is not
        page.evaluate("() => { window.__duyun.queueing = 'novice'; }")
        _refresh(page)
        assert page.evaluate(
            "() => document.querySelector('[data-do=refresh]') === window.__refresh"
        )
        assert page.evaluate(f"() => document.querySelector('{QUICK}') !== window.__quick")
        assert page.evaluate(f"() => document.querySelector('{QUICK}').disabled")
    finally:
        tab.close()


def test_a_lobby_load_answered_after_logging_out_does_not_bring_the_account_back(
    web_server: WebServer, browser: object
) -> None:
    """A lobby load asks for the account (``/api/me``) with the token of its start; an answer
    that arrives after logging out belongs to the old account and is dropped: the lobby stays
    signed out."""
    tab = Tab(browser, web_server, DESKTOP)
    try:
        tab.goto()
        tab.guest()
        page = tab.page
        page.evaluate(HOLD_ME)  # type: ignore[attr-defined]
        drawn = page.evaluate("() => window.__duyun.lobbyDrawn")  # type: ignore[attr-defined]
        page.click("[data-do=refresh]")  # type: ignore[attr-defined]
        # the server has answered (the token was still valid); the page has not read it yet
        page.wait_for_function("() => window.__me.answered")  # type: ignore[attr-defined]
        assert page.evaluate("() => window.__me.status") == 200  # type: ignore[attr-defined]
        page.click("[data-do=logout]")  # type: ignore[attr-defined]
        page.wait_for_selector("#guest-btn")  # type: ignore[attr-defined]
        page.evaluate("() => window.__me.release()")  # type: ignore[attr-defined]
        page.wait_for_function(LOAD_DRAWN, arg=drawn)  # type: ignore[attr-defined]
        assert page.evaluate("() => window.__duyun.account") is None  # type: ignore[attr-defined]
        assert page.query_selector("#guest-btn") is not None  # type: ignore[attr-defined]
        assert page.query_selector("#balance") is None  # type: ignore[attr-defined]
    finally:
        tab.close()
