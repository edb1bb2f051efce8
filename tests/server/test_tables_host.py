"""A table runs under any host that implements ``TableHost`` (server/tables/host.py): here a
small fake one, no TableManager, plays a private one-hand match with a person and three bots.

The fake host records what the table asked of it: the table registers its match, seats the
account and attaches the client through the host (it never sets ``client.table`` itself), and
every store call of the table comes through ``store_call``, its events through the writer
(issue 22 item 3).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from duyun.engine import Setup
from duyun.rules import RuleSet
from duyun.server import protocol
from duyun.server.config import ServerConfig
from duyun.server.dbthread import MOVES, OTHER
from duyun.server.metrics import Metrics
from duyun.server.store import Account, Store
from duyun.server.tables import Table, TableOptions
from duyun.server.tables.inbox import ClientMessage, Join
from duyun.server.writer import EventWriter

SRC = Path(__file__).resolve().parents[2] / "src" / "duyun" / "server" / "tables"


class Person:
    """A websocket client as a table sees it; ``table`` is set only by the host."""

    def __init__(self, account: Account) -> None:
        self.account: Account | None = account
        self.table: Table | None = None
        self.spectating: Table | None = None
        self.messages: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def send(self, message: dict[str, Any]) -> None:
        self.messages.put_nowait(message)

    def send_text(self, text: str) -> None:
        self.messages.put_nowait(json.loads(text))

    def close(self, code: int, reason: str) -> None:
        raise AssertionError(f"closed: {code} {reason}")


class FakeHost:
    def __init__(self, store: Store) -> None:
        self.config = ServerConfig(
            claim_window=0.05, claim_beat=0.02, bot_delay=0.0, bot_delay_max=0.01
        )
        self.store = store
        self.owner: str | None = None
        self.metrics = Metrics()
        self.deal: Callable[[int, int, int, int], Setup] | None = None
        self.calls: list[tuple[str, int]] = []
        self.asked: list[str] = []
        self.writer = EventWriter(store, self._moves)
        self.dropped = asyncio.Event()

    async def _moves(self, function: Callable[..., Any], *args: Any) -> Any:
        return await self.store_call(function, *args, priority=MOVES)

    async def store_call(
        self, function: Callable[..., Any], *args: Any, priority: int = OTHER
    ) -> Any:
        self.calls.append((function.__name__, priority))
        return await asyncio.to_thread(function, *args)

    def register_match(self, match_id: int, table: Table) -> None:
        self.asked.append("register_match")

    def seat(self, account_id: int, table: Table) -> None:
        self.asked.append("seat")

    def unseat(self, account_id: int, table: Table) -> None:
        self.asked.append("unseat")

    def attach_client(self, client: Any, table: Table | None) -> None:
        self.asked.append("attach_client")
        client.table = table

    def detach_client(self, client: Any, table: Table) -> None:
        self.asked.append("detach_client")
        if client.table is table:
            client.table = None

    def watch(self, client: Any, table: Table | None) -> None:
        client.spectating = table

    def drop_table(self, table: Table) -> None:
        self.asked.append("drop_table")
        self.dropped.set()

    def stop_moved(self, table: Table, message: str = "") -> None:
        raise AssertionError("the lease is never lost here")

    async def reload(self, table: Table) -> None:
        raise AssertionError("the store never disagrees here")

    async def quick_match(self, client: Any, room_id: str) -> None:
        raise AssertionError("no rooms here")


def test_a_table_plays_a_match_under_a_fake_host(store: Store) -> None:
    async def play() -> tuple[FakeHost, Person, dict[str, Any]]:
        host = FakeHost(store)
        account = await asyncio.to_thread(store.create_guest)
        person = Person(account)
        options = TableOptions("private", None, 1, 1, RuleSet(), True, "strong", False, account.id)
        table = Table(host, "123456", options)
        table.start_task()
        table.post(Join(person))
        table.post(ClientMessage(person, protocol.Ready(type="ready")))
        table.post(ClientMessage(person, protocol.Start(type="start")))
        while True:
            message = await asyncio.wait_for(person.messages.get(), timeout=30)
            if message["type"] == "match_end":
                break
            if message["type"] == "error":
                raise AssertionError(message)
            if message["type"] != "prompt":
                continue
            legal = message["legal"]
            pick = next((a for a in legal if a["action"] == "pass"), None)
            pick = pick or next(a for a in legal if a["action"] == "discard")
            act = protocol.Act(type="act", prompt=message["id"], **pick)
            table.post(ClientMessage(person, act))
        await asyncio.wait_for(host.dropped.wait(), timeout=5)
        table.post("stop")
        assert table.task is not None
        await asyncio.wait_for(table.task, timeout=5)
        return host, person, message

    host, person, end = asyncio.run(play())
    assert end["hands_played"] == 1
    assert host.asked[:2] == ["attach_client", "register_match"]
    assert host.asked[-3:] == ["unseat", "detach_client", "drop_table"]
    assert person.table is None  # detached by the host when the match ended
    names = [name for name, _ in host.calls]
    assert names[:2] == ["create_match", "start_hand"]
    assert names[-1] == "finish_match" and "finish_hand" in names
    assert ("append_events_many", MOVES) in host.calls
    assert all(priority == OTHER for name, priority in host.calls if name != "append_events_many")


def test_no_store_call_bypasses_the_one_route() -> None:
    """Every store call of the tables goes through ``store_call`` (server/dbthread.py's
    route): a bare ``asyncio.to_thread`` skipped the ordered SQLite thread (issue 22)."""
    for path in sorted(SRC.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "to_thread" not in text, f"{path.name} calls asyncio.to_thread"
        if path.name != "manager.py":  # only the host records where a client is
            assert not re.search(r"\.(table|spectating) = ", text), path.name
