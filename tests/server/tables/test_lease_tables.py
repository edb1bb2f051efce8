"""A table whose write is refused by the store never stalls (issue 20 item 9).

Two ways a write fails at a live table: the match was adopted by another process (the lease's
epoch moved on: ``LeaseLostError``), then the table stops at once and tells its people to
reconnect (``table_moved``, close code 4002) without storing anything more; or the store's log
disagrees with the table while the match is still this process's (``ConflictError``), then the
table reloads the match from the store and play goes on to the end, each hand settled once.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from sqlalchemy import func, select

from duyun.server.config import Room
from duyun.server.store.models import CoinRowModel, HandEventRow

ROOM = (Room("novice", "新手場", stake=1, entry=100, hands=2),)


def _event_count(server: Any, hand_id: int) -> int:
    with server.store._session() as session:
        return int(
            session.scalar(
                select(func.count())
                .select_from(HandEventRow)
                .where(HandEventRow.hand_id == hand_id)
            )
            or 0
        )


def _settlements(server: Any) -> dict[int, int]:
    """Coin rows per hand: settled once each means as many as that hand's engine payments."""
    with server.store._session() as session:
        return dict(
            session.execute(
                select(CoinRowModel.hand_id, func.count())
                .where(CoinRowModel.kind == "hand")
                .group_by(CoinRowModel.hand_id)
            ).all()
        )


def test_table_whose_lease_was_taken_stops_and_sends_its_players_away(
    live_server: Any, ws_client: Any
) -> None:
    server = live_server(rooms=ROOM)
    ann = server.guest()

    async def main() -> tuple[dict[str, Any], Any, int, int]:
        a = await ws_client.connect(server.ws_url, ann["token"], name="ann")
        await a.send(type="quick_match", room="novice")
        prompt = await a.expect("prompt", timeout=20)
        (match_id,) = list(server.manager.by_match)
        table = server.manager.by_match[match_id]
        # another process adopts the match while ann decides (its lease was free: no owner)
        assert server.store.live_match(match_id, "elsewhere") is not None
        stored = _event_count(server, table.hand_id)
        await a.send(type="act", **prompt["legal"][0])
        moved = await a.expect("error", lambda m: m["code"] == "table_moved", timeout=10)
        while a.closed is None:
            await asyncio.sleep(0.01)  # the reader task records the close
        return moved, a.closed, stored, match_id

    moved, closed, stored, match_id = asyncio.run(main())
    assert "another server" in moved["message"]
    assert getattr(closed, "rcvd", None) is not None and closed.rcvd.code == 4002
    assert match_id not in server.manager.by_match  # the table stopped here
    with server.store._session() as session:
        from duyun.server.store.models import MatchRow

        row = session.get(MatchRow, match_id)
        assert row is not None and row.lease_owner == "elsewhere" and row.status == "playing"
    (hand,) = [h for h in server.store.history(ann["account"]["id"])[0].hand_records]
    assert hand.status == "playing"
    assert _event_count(server, hand.hand_id) == stored  # nothing written after the adoption
    assert _settlements(server) == {}
    assert server.store.audit().ok


def test_table_with_a_conflicting_log_reloads_and_the_match_finishes_r41(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    server = live_server(rooms=ROOM)
    ann = server.guest()

    async def main() -> dict[str, Any]:
        a = await ws_client.connect(server.ws_url, ann["token"], name="ann")
        await a.send(type="quick_match", room="novice")
        prompt = await a.expect("prompt", timeout=20)
        (match_id,) = list(server.manager.by_match)
        table = server.manager.by_match[match_id]
        table.stored -= 1  # the table's idea of its log now disagrees with the store's
        await a.send(type="act", **prompt["legal"][0])
        await a.expect("error", lambda m: m["code"] == "table_moved", timeout=10)
        # the client reconnects, as main.js does, and finds its reloaded table
        again = await ws_client.connect(server.ws_url, ann["token"], name="ann-2")
        welcome = again.of_type("welcome")[-1]
        assert welcome["table"] is not None
        reloaded = server.manager.by_match[match_id]
        assert reloaded is not table and reloaded.lease.epoch == table.lease.epoch + 1
        end: dict[str, Any] = await play(again, 5)
        await again.close()
        return end

    end = asyncio.run(main())
    assert end["reason"] == "completed" and end["hands_played"] == 2
    assert server.store.audit().ok
    for hand in end["results"]:
        assert server.store.hand_log(hand["hand_id"]).status == "finished"


def test_a_match_started_while_the_leases_renew_is_not_taken_for_moved(
    store: Any, monkeypatch: Any
) -> None:
    """Issue 24: the renewal answers the leases it renewed; a match whose table registered
    while that answer was on its way is simply not in it. Taking it for a lost lease stopped
    new tables with ``table_moved`` (4 processes, 400 tables starting together) and left them
    to be adopted 30 s later. A match that was played before the renewal and is missing from
    its answer still stops."""
    from types import SimpleNamespace

    from duyun.server.config import ServerConfig
    from duyun.server.tables import TableManager

    stopped: list[object] = []
    monkeypatch.setattr(TableManager, "stop_moved", lambda _, table, *__: stopped.append(table))
    manager = TableManager(ServerConfig(), store, owner="p1")
    renew = store.renew_leases
    taken_elsewhere = SimpleNamespace(status="playing", finishing=False)  # no lease of p1's
    started_meanwhile = SimpleNamespace(status="playing", finishing=False)
    ending = SimpleNamespace(status="playing", finishing=True)  # its end is being stored

    def renew_while_a_match_starts(owner: str, *args: Any) -> list[int]:
        held: list[int] = renew(owner, *args)
        manager.by_match[2] = started_meanwhile  # type: ignore[assignment]
        return held

    monkeypatch.setattr(store, "renew_leases", renew_while_a_match_starts)
    manager.by_match[1] = taken_elsewhere  # type: ignore[assignment]
    manager.by_match[3] = ending  # type: ignore[assignment]
    asyncio.run(manager.keep_leases())
    assert stopped == [taken_elsewhere]


def test_lease_renewal_takes_the_leases_lane_and_a_slow_one_is_logged(
    store: Any, monkeypatch: Any, caplog: Any
) -> None:
    """The renewal goes by the store route's LEASES lane (never behind a backlog of seating
    calls), and one that took longer than ``lease_renew_every`` is logged: the next late one
    would hand this process's tables to another."""
    import logging
    import time

    from duyun.server.config import ServerConfig
    from duyun.server.dbthread import LEASES
    from duyun.server.tables import TableManager

    manager = TableManager(ServerConfig(lease_seconds=0.2, lease_renew_every=0.05), store, "p1")
    lanes: list[int] = []
    route_call = manager.route.call

    async def recorded(priority: int, function: Any, *args: Any) -> Any:
        lanes.append(priority)
        return await route_call(priority, function, *args)

    monkeypatch.setattr(manager.route, "call", recorded)
    renew = store.renew_leases

    def slow_renewal(owner: str, *args: Any) -> list[int]:
        time.sleep(0.1)  # a database that answers late: longer than lease_renew_every
        held: list[int] = renew(owner, *args)
        return held

    async def once() -> None:
        await manager.keep_leases()
        monkeypatch.setattr(store, "renew_leases", slow_renewal)
        await manager.keep_leases()

    with caplog.at_level(logging.WARNING, logger="duyun.server"):
        asyncio.run(once())
    assert lanes == [LEASES, LEASES]
    slow = [r.getMessage() for r in caplog.records if "lease(s) took" in r.getMessage()]
    assert len(slow) == 1 and "leases last 0.2 s" in slow[0]
    manager.route.shutdown()


def test_renewals_keep_their_cadence_while_an_adoption_is_slow() -> None:
    """Adopting a dead process's matches reads all their logs; the renewals of this
    process's own leases go on beside it (a process adopting hundreds of matches must not
    lose its own to a third), and a second adoption never starts while one runs."""
    from types import SimpleNamespace

    from duyun.server.app import renew_leases

    async def main() -> tuple[int, int]:
        renewed = 0
        three_renewals = asyncio.Event()
        adoption_gate = asyncio.Event()
        adoptions = 0

        async def keep_leases() -> None:
            nonlocal renewed
            renewed += 1
            if renewed == 3:
                three_renewals.set()

        async def restore(*, include_own: bool) -> int:
            nonlocal adoptions
            assert not include_own
            adoptions += 1
            await adoption_gate.wait()
            return 0

        tables = SimpleNamespace(
            config=SimpleNamespace(lease_renew_every=0.01),
            keep_leases=keep_leases,
            restore=restore,
        )
        loop = asyncio.create_task(renew_leases(tables))  # type: ignore[arg-type]
        try:
            await asyncio.wait_for(three_renewals.wait(), timeout=10)
            return renewed, adoptions
        finally:
            adoption_gate.set()
            loop.cancel()

    renewed, adoptions = asyncio.run(main())
    assert renewed >= 3 and adoptions == 1


def test_a_match_whose_end_is_being_stored_ends_with_match_end_not_table_moved_r41(
    live_server: Any, ws_client: Any, play: Any, monkeypatch: Any
) -> None:
    """Storing a match's end releases its lease in the same transaction, so a lease renewal
    answering while that store call runs no longer lists the match. The table took that for
    a match another process had taken: its players got ``table_moved`` (4002) instead of
    ``match_end`` (once in a CI run, with leases renewed every second). Here the renewal
    answers exactly then, every time."""
    server = live_server(rooms=ROOM)
    ann = server.guest()
    finish = server.store.finish_match
    renewed = threading.Event()
    stopped: list[int] = []

    def finish_while_the_leases_renew(match_id: int, *args: Any) -> Any:
        changes = finish(match_id, *args)  # committed: the match holds no lease any more
        table = server.manager.by_match[match_id]
        assert table.task is not None

        def renewal_answers_without_the_match() -> None:
            before = set(server.manager.by_match)
            server.manager.lost_leases(set())
            stopped.extend(before - set(server.manager.by_match))
            renewed.set()

        table.task.get_loop().call_soon_threadsafe(renewal_answers_without_the_match)
        assert renewed.wait(10), "the server's loop never ran the renewal"
        return changes

    monkeypatch.setattr(server.store, "finish_match", finish_while_the_leases_renew)

    async def main() -> dict[str, Any]:
        a = await ws_client.connect(server.ws_url, ann["token"], name="ann")
        await a.send(type="quick_match", room="novice")
        end: dict[str, Any] = await play(a, 3)
        await a.close()
        return end

    end = asyncio.run(main())
    assert renewed.is_set() and stopped == []
    assert end["reason"] == "completed" and end["hands_played"] == 2
    assert sum(end["coins"]) == 0
    assert server.store.audit().ok
