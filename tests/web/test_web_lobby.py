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
#: count the page's fetches (once per page)
COUNT_FETCHES = """() => {
    window.__fetches = 0;
    const original = window.fetch;
    window.fetch = (...args) => { window.__fetches += 1; return original(...args); };
}"""
#: keep the quick-match and refresh buttons as JS objects, to compare nodes later
MARK = f"""() => {{
    window.__quick = document.querySelector('{QUICK}');
    window.__refresh = document.querySelector('[data-do=refresh]');
    window.__fetches = 0;
}}"""
SAME_QUICK = f"() => document.querySelector('{QUICK}') === window.__quick"
SAME_REFRESH = "() => document.querySelector('[data-do=refresh]') === window.__refresh"


def _refresh(page: object, fetches: int) -> None:
    """Fetch the lobby again with its ↻ button and wait until it has been drawn."""
    page.click("[data-do=refresh]")  # type: ignore[attr-defined]
    page.wait_for_function(f"() => window.__fetches >= {fetches}")  # type: ignore[attr-defined]
    page.evaluate(  # type: ignore[attr-defined]
        "() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 100)))"
    )


def test_lobby_update_keeps_unchanged_parts_and_redraws_the_changed_one(
    web_server: WebServer, browser: object
) -> None:
    tab = Tab(browser, web_server, DESKTOP)
    try:
        tab.goto()
        tab.guest()
        page = tab.page
        page.wait_for_selector(QUICK)
        page.evaluate(COUNT_FETCHES)
        _refresh(page, 4)  # rooms, open tables, history, account: everything loaded now
        page.evaluate(MARK)
        # fetched again, nothing changed: no part is rebuilt
        _refresh(page, 4)
        assert page.evaluate(f"() => document.querySelector('{QUICK}') === window.__quick")
        assert page.evaluate(
            "() => document.querySelector('[data-do=refresh]') === window.__refresh"
        )
        # queueing for a room changes the rooms part only: it is redrawn (its buttons say so),
        # the open tables' part is not
        page.evaluate("() => { window.__duyun.queueing = 'novice'; }")
        _refresh(page, 4)
        assert page.evaluate(
            "() => document.querySelector('[data-do=refresh]') === window.__refresh"
        )
        assert page.evaluate(f"() => document.querySelector('{QUICK}') !== window.__quick")
        assert page.evaluate(f"() => document.querySelector('{QUICK}').disabled")
    finally:
        tab.close()
