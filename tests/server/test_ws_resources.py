"""A real `duyun serve` under a small open-files limit (issue 20 item 10): one client opening
many unauthenticated websockets must neither take HTTP away from everyone (the connection cap
refuses the surplus while descriptors remain) nor, when the operator set the cap above the
descriptor limit, fill the log with one accept() traceback per retry.

The server runs as a subprocess with RLIMIT_NOFILE lowered for it alone; each test takes a few
seconds.
"""

from __future__ import annotations

import asyncio
import resource
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from serve_process import ServeProcess

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_NOFILE is POSIX")


@contextmanager
def serve(tmp_path: Path, nofile: int, **config: object) -> Iterator[tuple[str, list[str]]]:
    """`duyun serve` with ``nofile`` descriptors; yields its URL and its output lines (filled
    while it runs, complete once the block ended and the server stopped)."""
    toml = tmp_path / "server.toml"
    toml.write_text("\n".join(f"{k} = {v!r}" for k, v in config.items()), encoding="utf-8")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    server = ServeProcess(
        f"sqlite:///{tmp_path / 'duyun.db'}", config=toml, log_level="info", preexec_fn=limit
    ).start()
    try:
        server.wait_ready()
        yield server.url, server.lines
    finally:
        server.stop()


async def _open_many(ws_url: str, count: int) -> list[Any]:
    """Open ``count`` sockets at once without saying hello: each is an open socket, the HTTP
    status of a refused handshake, or None (never accepted: the server's descriptors are gone
    and the connection waits in the kernel's backlog)."""

    async def one() -> Any:
        try:
            return await asyncio.wait_for(websockets.connect(ws_url), 3)
        except websockets.InvalidStatus as refused:
            return refused.response.status_code
        except (TimeoutError, OSError, websockets.InvalidHandshake):
            return None

    return list(await asyncio.gather(*(one() for _ in range(count))))


def test_connection_cap_keeps_http_answering_under_a_small_descriptor_limit(
    tmp_path: Path,
) -> None:
    with serve(
        tmp_path,
        nofile=400,
        max_connections=40,
        max_connections_per_address=1000,
        hello_timeout=30.0,
    ) as (url, log):

        async def main() -> tuple[int, int, list[Any]]:
            results = await _open_many(url.replace("http", "ws") + "/ws", 150)
            async with httpx.AsyncClient(base_url=url, timeout=5) as http:
                health = (await http.get("/healthz")).status_code
                guest = (await http.post("/api/guest")).status_code
            for ws in results:
                if not isinstance(ws, int | None):
                    await ws.close()
            return health, guest, results

        health, guest, results = asyncio.run(main())
    assert (health, guest) == (200, 200)
    held = [r for r in results if not isinstance(r, int | None)]
    assert len(held) == 40 and results.count(503) == 150 - 40
    assert not [line for line in log if "Traceback" in line or "out of system resource" in line]
    assert any("refusing websockets" in line for line in log)


def test_descriptor_exhaustion_is_logged_once_not_per_retry_and_the_server_recovers(
    tmp_path: Path,
) -> None:
    """Idle TCP connections (no request at all) past the descriptor limit: accept() fails and
    asyncio retries it at once, and it logged a traceback for every failure (about 100,000
    lines in 4 s here; 416 MB in 30 s in the issue): now one line. The start-up warning names
    the limit, and the server answers again once the connections are gone."""
    with serve(tmp_path, nofile=96, max_connections=900, max_connections_per_address=1000) as (
        url,
        log,
    ):
        port = int(url.rsplit(":", 1)[1])
        idle = []
        try:
            for _ in range(150):  # the kernel completes these handshakes into the backlog
                idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            end = time.monotonic() + 3.5  # the time asyncio keeps retrying accept()
            while time.monotonic() < end:
                time.sleep(0.25)
        finally:
            for connection in idle:
                connection.close()
        with httpx.Client(timeout=2) as client:
            end = time.monotonic() + 30
            while not _answers(client, f"{url}/healthz") and time.monotonic() < end:
                time.sleep(0.05)  # asyncio pauses accept() for a second after a failure
            assert _answers(client, f"{url}/healthz"), "\n".join(log[-20:])
    assert any("open-files limit (96)" in line for line in log), log[:5]
    exhausted = [line for line in log if "out of system resource" in line]
    assert len(exhausted) == 1, exhausted[:3]


def _answers(client: httpx.Client, url: str) -> bool:
    try:
        return client.get(url).status_code == 200
    except httpx.TransportError:
        return False


def test_serve_says_which_event_loop_and_http_parser_it_runs_on(tmp_path: Path) -> None:
    """uvicorn picks its loop and HTTP parser from what is installed: the server extra's
    httptools, asyncio's own loop (measured against uvloop: docs/deploy.md, issue 33). A
    server on something else (a changed uvicorn default, an extra package) shows it."""
    with serve(tmp_path, 1024) as (_, lines):
        end = time.monotonic() + 30
        said = [line for line in lines if "event loop" in line]
        while not said and time.monotonic() < end:
            time.sleep(0.02)  # the reader thread copies the output as it comes
            said = [line for line in lines if "event loop" in line]
    assert said, "\n".join(lines)
    assert said[0].endswith("duyun serve: event loop asyncio, HTTP parser httptools"), said
