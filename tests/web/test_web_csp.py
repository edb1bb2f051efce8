"""The browser client under the server's Content-Security-Policy (issue 20 item 17): the whole
lobby, a private table with the "spectators allowed" choice and logging out work without one
violation of the policy, and logging out revokes the token on the server (issue 20 item 15)."""

from __future__ import annotations

from typing import Any

import pytest
from web_helpers import DESKTOP, SKIP_REASON, WebServer

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import Tab

pytestmark = pytest.mark.slow


def test_client_runs_under_the_policy_and_logout_revokes_the_token(
    web_server: WebServer, browser: Any
) -> None:
    tab = Tab(browser, web_server, DESKTOP)
    violations: list[str] = []
    tab.page.on(
        "console",
        lambda message: (
            violations.append(message.text)
            if "Content Security Policy" in message.text or "Refused to" in message.text
            else None
        ),
    )
    answer = tab.page.goto(web_server.url + "/")
    assert answer is not None
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    tab.settle()
    tab.guest()
    token = tab.page.evaluate("() => localStorage.getItem('duyun.token')")
    assert token
    tab.page.check("#create-spectators")
    tab.page.click("#create-btn")
    tab.page.wait_for_selector("#table-code")
    code = tab.page.text_content("#table-code").strip()
    assert tab.app("app.table.spectators_allowed") is True
    summary = tab.page.evaluate(f"() => fetch('/api/tables/{code}').then(r => r.json())")
    assert summary["spectators_allowed"] is True
    tab.page.click("#waiting-room [data-do=leave]")
    # back in the lobby, which loads itself again: log out once that load is drawn (it
    # replaces the lobby's changed parts, the logout button's among them)
    tab.page.wait_for_function("() => window.__duyun.lobbyLoads === 0")
    tab.page.wait_for_selector("[data-do=logout]")
    tab.page.click("[data-do=logout]")
    tab.page.wait_for_selector("#guest-btn")
    me = tab.page.evaluate(
        "token => fetch('/api/me', {headers: {Authorization: `Bearer ${token}`}})"
        ".then(r => r.status)",
        token,
    )
    assert me == 401, "the logged-out token still works"
    assert not violations, violations
    tab.close()
