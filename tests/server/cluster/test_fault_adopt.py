"""A killed owner's table is adopted and its players are seated again (issue 20 item 12).

Two ``duyun serve`` processes share one PostgreSQL database. Three people play at a table of
the first; it is killed (SIGKILL) mid-match. Browser-like clients (doing what main.js does:
reconnect with backoff; a ``welcome`` without a table but with ``match.status == "pending"``
means "ask again", never "go to the lobby") reach the second process before it has adopted the
match, keep asking, and are seated again once it has. One of them comes back only after the
grace would have run out had it been counted from the kill: adoption gives a fresh grace.
Nobody pays an escape (R45); the ledger audit passes and every hand was settled once.

Skipped, with the reason, when DUYUN_TEST_POSTGRES_URL is unset (.ci/run sets it).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from sqlalchemy import create_engine, text
from test_multiprocess import CONFIG
from test_play_graces import settled_once

from duyun.server.store import Store
from duyun.server.store.database import normalize_url
from serve_process import ServeProcess

pytestmark = pytest.mark.slow  # whole matches or server processes

GRACE = 3.0


class Browser:
    """One player's tab: its current server, every ``welcome`` it got, and its play."""

    def __init__(self, ws_client: Any, session: dict[str, Any], name: str, seed: int) -> None:
        self.ws_client = ws_client
        self.session = session
        self.name = name
        self.seed = seed
        self.url = ""
        self.welcomes: list[dict[str, Any]] = []
        self.seated_at: list[float] = []
        self.lobby = False

    async def run(self, play: Any) -> dict[str, Any]:
        """Play until ``match_end``, reconnecting as main.js does."""
        pending = 0
        while True:
            try:
                client = await self.ws_client.connect(
                    self.url.replace("http://", "ws://") + "/ws",
                    self.session["token"],
                    name=self.name,
                )
            except (OSError, websockets.WebSocketException):
                await asyncio.sleep(0.1)  # the process is gone: the tab's reconnect backoff
                continue
            welcome = client.of_type("welcome")[0]
            self.welcomes.append(welcome)
            if welcome["table"] is None:
                await client.close()
                match = welcome.get("match")
                if match is None or match["status"] != "pending":
                    self.lobby = True  # what the old client did: the seat then escapes
                    raise AssertionError(f"{self.name} was sent to the lobby: {welcome}")
                await asyncio.sleep(min(2.0, 0.1 * 2**pending))
                pending += 1
                continue
            pending = 0
            self.seated_at.append(time.monotonic())
            try:
                end: dict[str, Any] = await play(client, self.seed, timeout=60)
                await client.close()
                return end
            except AssertionError:
                if client.closed is None:
                    raise
                continue  # the socket was cut (the kill): reconnect


def test_a_killed_owners_players_are_seated_again_by_the_adopter_r45(
    fresh_postgres_url: str, tmp_path: Path, ws_client: Any, play: Any
) -> None:
    config = tmp_path / "serve.toml"
    config.write_text(
        CONFIG.replace("reconnect_grace = 10.0", f"reconnect_grace = {GRACE}"), encoding="utf-8"
    )
    owner, adopter = (
        ServeProcess(fresh_postgres_url, config=config, owner=name, log_level="info")
        for name in ("proc-a", "proc-b")
    )
    for process in (owner, adopter):  # the adopter starts once the owner is up, as before
        process.start().wait_ready()
    url_a, url_b = owner.url, adopter.url
    try:
        sessions = [httpx.post(f"{url_a}/api/guest", timeout=10).json() for _ in range(3)]
        created = httpx.post(
            f"{url_a}/api/tables",
            json={"hands": 3, "bot": "random"},
            headers={"Authorization": f"Bearer {sessions[0]['token']}"},
            timeout=10,
        )
        assert created.status_code == 201, created.text
        code = created.json()["code"]
        tabs = [Browser(ws_client, s, f"p{i}", 20 + i) for i, s in enumerate(sessions)]

        async def main() -> list[dict[str, Any]]:
            clients = []
            for index, tab in enumerate(tabs):
                client = await ws_client.connect(
                    url_a.replace("http://", "ws://") + "/ws", tab.session["token"]
                )
                await client.send(type="join", code=code)
                await client.expect("table", lambda m, i=index: m["table"]["you"] == i)
                clients.append(client)
            await clients[0].send(type="add_bot", seat=3)
            for client in clients:
                await client.send(type="ready")
            # hand 0 is on: its deal reaches every seat as a snapshot once it is stored (a
            # prompt would not do: with the others idle, a bot's pong can keep a seat's first
            # turn beyond any wait)
            for client in clients:
                await client.expect("snapshot")
            # the owner dies under its seated players; their next connections reach the other
            # process
            killed_at = time.monotonic()
            owner.process.kill()
            owner.process.wait(timeout=10)
            for client in clients:
                await client.close()
            for tab in tabs:
                tab.url = url_b
            playing = [asyncio.create_task(tab.run(play)) for tab in tabs[:2]]
            # p0 and p1 find no table yet (the dead owner's lease runs 8 s): pending
            await until(
                lambda: all(any(w["table"] is None for w in t.welcomes) for t in tabs[:2]),
                playing,
            )
            # the grace, counted from the kill, would now have run out
            await asyncio.sleep(max(0.0, killed_at + GRACE + 0.5 - time.monotonic()))
            expire_lease(fresh_postgres_url)  # as if it ran out: the adopter takes the match
            await until(lambda: len(tabs[0].seated_at) > 0, playing)
            # p2 comes back within a fresh grace counted from the adoption
            await asyncio.sleep(GRACE / 3)
            playing.append(asyncio.create_task(tabs[2].run(play)))
            return list(await asyncio.gather(*playing))

        ends = asyncio.run(main())
    finally:
        adopter.stop()
        owner.stop()
    assert not any(tab.lobby for tab in tabs)
    for tab in tabs[:2]:
        pending = [w for w in tab.welcomes if w["table"] is None]
        assert pending and all(w["match"]["status"] == "pending" for w in pending)
        assert tab.welcomes[-1]["table"] == code
    end = ends[0]
    assert end["reason"] == "completed" and end["hands_played"] == 3
    assert all(r["result"] != "escape" for r in end["results"]), end["results"]
    store = Store.open(fresh_postgres_url)
    try:
        for results in end["results"]:
            log = store.hand_log(results["hand_id"])
            assert not [e for e in log.events if e["type"] in ("escape",)]
        audit = store.audit()
        assert audit.ok, audit
        settled_once(store, fresh_postgres_url, [r["hand_id"] for r in end["results"]])
        assert store.live_matches() == []
    finally:
        store.close()


async def until(condition: Any, tasks: list[asyncio.Task[Any]], timeout: float = 60.0) -> None:
    """Wait for ``condition``; a tab that failed meanwhile fails the test with its reason."""
    end = time.monotonic() + timeout
    while not condition():
        for task in tasks:
            if task.done():
                task.result()  # raises what went wrong in that tab
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.05)


def expire_lease(database_url: str) -> None:
    """What ``lease_seconds`` without renewal does to a dead owner's lease, at once."""
    engine = create_engine(normalize_url(database_url))
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE matches SET lease_expires = 0"))
    finally:
        with contextlib.suppress(Exception):
            engine.dispose()
