"""Readiness of a server the tests started: poll ``GET /healthz`` (never a fixed sleep).

Shared by the server tests (``tests/server``) and the browser tests (``tests/web``); pytest puts
this folder on ``sys.path`` because ``tests/conftest.py`` lives here.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx


def wait_healthy(url: str, deadline: float = 30.0) -> None:
    """Poll GET /healthz until it answers 200; RuntimeError after ``deadline`` seconds."""
    end = time.monotonic() + deadline
    with httpx.Client(timeout=2) as client:
        while time.monotonic() < end:
            try:
                if client.get(f"{url}/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.02)
    raise RuntimeError(f"server at {url} did not become healthy within {deadline} s")


def wait_until(predicate: Callable[[], object], timeout: float, what: str) -> None:
    """Poll ``predicate`` (every 20 ms) until it is true; AssertionError naming ``what`` after
    ``timeout`` seconds. For state a test cannot await (a server thread's), never a sleep."""
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"waited {timeout} s for {what}")
        time.sleep(0.02)
