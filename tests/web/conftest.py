"""Fixtures of the browser tests (see web_helpers.py): one server and one Chromium per module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import (
    CHROMIUM,
    OPEN_TABS,
    SCREENSHOTS,
    SKIP_REASON,
    WebServer,
    start_web_server,
)

from message_checks import server_messages_fit_the_schema  # noqa: F401 (autouse)


@pytest.fixture(autouse=True)
def _pages_of_this_test() -> Iterator[None]:
    """Each test's report tells only its own pages' stories."""
    OPEN_TABS.clear()
    yield
    OPEN_TABS.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed browser test's report carries every page's story (test_web_client.Tab): the
    messages each way, the REST answers, the toasts, the console and the page's state when it
    failed. A wait that times out says only what it waited for; this says why it never came."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when != "call" or not report.failed:
        return
    for number, tab in enumerate(OPEN_TABS, 1):
        try:
            story = tab.diagnosis()
        except Exception as error:  # the report must not fail for the story
            story = f"(no story: {type(error).__name__}: {error})"
        report.sections.append((f"page {number} of {len(OPEN_TABS)}", story))


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """One server per test module (each test uses its own guest accounts and tables)."""
    db = tmp_path_factory.mktemp("web") / "duyun.db"
    server = start_web_server(f"sqlite:///{db}")
    yield server
    server.stop()


class TraditionalChineseBrowser:
    """The browser with Traditional Chinese (zh-TW) as the default language of its pages.

    The page follows the browser's language (issue 31: zh-CN Simplified, zh-TW Traditional,
    anything else English) and Playwright's Chromium says en-US unless told otherwise; the
    suite was written against the Chinese page, so its contexts ask for zh-TW unless a test
    passes its own ``locale``.

    The service worker is blocked unless a test allows it (test_web_pwa, which tests it):
    under a loaded machine Chromium driven over DevTools sometimes holds a new worker or a
    navigation under the worker indefinitely (see that file's known failure), and no test of
    the table or the lobby should fail on it."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def new_context(self, **options: Any) -> Any:
        options.setdefault("locale", "zh-TW")
        options.setdefault("service_workers", "block")
        return self._browser.new_context(**options)

    def new_page(self, **options: Any) -> Any:
        options.setdefault("locale", "zh-TW")
        options.setdefault("service_workers", "block")
        return self._browser.new_page(**options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if SKIP_REASON:
        pytest.skip(SKIP_REASON)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield TraditionalChineseBrowser(launched)
        launched.close()


@pytest.fixture
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
