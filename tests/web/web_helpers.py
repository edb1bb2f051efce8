"""Helpers of the browser tests: a real server on loopback and Debian's Chromium via Playwright.

The server is the real app (``duyun.server.app.create_app``) on uvicorn in a thread, on a socket
bound before the start (no port race), SQLite in a temporary file, ready once ``GET /healthz``
answers 200 (a readiness check, never a fixed sleep). Timers are small so that a hand played by
clicking takes seconds, but the turn timer is long enough that a slow machine never times out a
click. Chromium is Debian's (``.ci/run`` installs it); without it every test here is skipped
with that reason.
"""

from __future__ import annotations

import shutil
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn

from duyun.server.app import create_app, uvicorn_config
from duyun.server.config import ServerConfig
from duyun.server.store import StoreConfig
from readiness import wait_healthy

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: why the browser tests are skipped on this machine, or None when they can run
SKIP_REASON: str | None = None
if not Path(CHROMIUM).exists():
    SKIP_REASON = "browser tests need Debian's chromium (apt-get install chromium; .ci/run does)"
else:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        SKIP_REASON = "browser tests need the playwright package (pip install playwright)"

#: where the tests save screenshots (gitignored): look at them after a run
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"

PHONE = {"width": 390, "height": 844}

#: the pages (test_web_client.Tab) opened by the test now running: a failed test's report tells
#: each one's story (conftest), which is how a flake seen once in CI gets explained
OPEN_TABS: list[Any] = []
DESKTOP = {"width": 1440, "height": 900}

#: small timers: a claim window after every discard (the protocol's fixed window) is the
#: main cost of a hand, so it is short; bots fill a quick-match table at once
BROWSER_TIMERS: dict[str, Any] = {
    "turn_timer": 60.0,
    "claim_window": 0.12,
    "claim_beat": 0.12,
    "bot_delay": 0.01,
    "bot_delay_max": 0.01,
    "bot_fill_wait": 0.05,
    "reconnect_grace": 60.0,
    "next_hand_wait": 120.0,
    "default_bot": "efficient",
    "starting_balance": 1000,
    "rate_limit": 200.0,
    "rate_burst": 400,
    # every browser of the tests comes from 127.0.0.1: the per-address abuse limits are off
    "guests_per_minute": 0,
    "registrations_per_minute": 0,
    "tables_per_minute": 0,
    "code_lookups_per_minute": 0,
    "open_tables_per_account": 0,
    # ... and quick match may seat them at one table (fair matching, issue 32)
    "same_address_tables": True,
}


@dataclass
class WebServer:
    url: str
    app: Any
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


def start_web_server(database_url: str, **overrides: Any) -> WebServer:
    config = ServerConfig().with_overrides(**{**BROWSER_TIMERS, **overrides})
    app = create_app(
        config,
        database_url,
        store_config=StoreConfig(
            starting_balance=config.starting_balance, argon2_time_cost=1, argon2_memory_cost=8
        ),
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn_config(app, config, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url)
    return WebServer(url, app, server, thread)
