"""The tables' database thread on SQLite (server/dbthread.py): one call at a time, moves ahead
of calls still waiting, errors to the caller, queued work done before it stops."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from duyun.server.dbthread import (
    LEASES,
    MOVES,
    OTHER,
    POOL_THREADS,
    DatabaseThread,
    StoreRoute,
)


def test_moves_go_ahead_of_waiting_calls_and_equal_ones_keep_their_order() -> None:
    worker = DatabaseThread()
    gate = threading.Event()
    ran: list[str] = []
    try:
        busy = worker.submit(OTHER, gate.wait)  # holds the thread while the queue fills
        later = [worker.submit(OTHER, ran.append, f"settle {n}") for n in range(3)]
        moves = [worker.submit(MOVES, ran.append, f"move {n}") for n in range(2)]
        gate.set()
        for future in [busy, *later, *moves]:
            future.result(timeout=10)
    finally:
        worker.shutdown()
    assert ran == ["move 0", "move 1", "settle 0", "settle 1", "settle 2"]


def test_errors_reach_the_awaiting_caller_and_the_thread_goes_on() -> None:
    worker = DatabaseThread()

    def broken() -> None:
        raise ValueError("no such hand")

    async def calls() -> int:
        with pytest.raises(ValueError, match="no such hand"):
            await worker.run(OTHER, broken)
        result: int = await worker.run(MOVES, sum, [1, 2, 3])
        return result

    try:
        assert asyncio.run(calls()) == 6
    finally:
        worker.shutdown()


def test_a_cancelled_call_is_skipped_and_shutdown_finishes_the_queue() -> None:
    worker = DatabaseThread()
    gate = threading.Event()
    ran: list[int] = []
    worker.submit(OTHER, gate.wait)
    skipped = worker.submit(OTHER, ran.append, 1)
    kept = worker.submit(OTHER, ran.append, 2)
    assert skipped.cancel()
    gate.set()
    worker.shutdown()  # returns once everything queued before it has run
    assert kept.done() and ran == [2]


def test_results_finished_together_wake_the_loop_once() -> None:
    """Calls that finish while the loop is busy are handed back in one group: one wake-up of
    the loop, not one per call (at people's pace those wake-ups were a tenth of the CPU)."""
    worker = DatabaseThread()
    all_ran = threading.Event()
    count = 20

    def work(n: int) -> int:
        if n == count - 1:
            all_ran.set()
        return n * n

    async def calls() -> tuple[list[int], int]:
        loop = asyncio.get_running_loop()
        wakeups = 0
        original = loop.call_soon_threadsafe

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal wakeups
            wakeups += 1
            return original(*args, **kwargs)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign, assignment]
        tasks = [asyncio.create_task(worker.run(MOVES, work, n)) for n in range(count)]
        await asyncio.sleep(0)  # every task submits its call
        assert all_ran.wait(timeout=10)  # the loop is busy until the thread ran them all
        results = list(await asyncio.gather(*tasks))
        return results, wakeups

    try:
        results, wakeups = asyncio.run(calls())
    finally:
        worker.shutdown()
    assert results == [n * n for n in range(count)]
    assert wakeups == 1


def test_a_cancelled_awaited_call_is_skipped() -> None:
    worker = DatabaseThread()
    gate = threading.Event()
    ran: list[int] = []

    async def calls() -> None:
        busy = asyncio.create_task(worker.run(OTHER, gate.wait))
        doomed = asyncio.create_task(worker.run(OTHER, ran.append, 1))
        kept = asyncio.create_task(worker.run(OTHER, ran.append, 2))
        await asyncio.sleep(0)  # all three are queued
        doomed.cancel()
        gate.set()
        await asyncio.gather(busy, kept)
        with pytest.raises(asyncio.CancelledError):
            await doomed

    try:
        asyncio.run(calls())
    finally:
        worker.shutdown()
    assert ran == [2]


def test_the_pool_route_of_postgresql_returns_results_and_errors() -> None:
    route = StoreRoute("postgresql")

    def broken() -> None:
        raise ValueError("no such hand")

    async def calls() -> list[int]:
        with pytest.raises(ValueError, match="no such hand"):
            await route.call(OTHER, broken)
        return list(await asyncio.gather(*(route.call(MOVES, abs, -n) for n in range(10))))

    try:
        assert asyncio.run(calls()) == list(range(10))
    finally:
        route.shutdown()


def test_moves_on_postgresql_never_wait_behind_a_backlog_of_other_calls() -> None:
    """PostgreSQL's route: while every thread of the pool is held by other calls (a room's
    seating) and more wait behind them, a move's batch still runs at once, on its own
    thread."""
    route = StoreRoute("postgresql")
    gate = threading.Event()

    async def calls() -> None:
        held = [
            asyncio.create_task(route.call(OTHER, gate.wait, 10)) for _ in range(POOL_THREADS + 3)
        ]
        try:
            assert await asyncio.wait_for(route.call(MOVES, sum, [1, 2]), timeout=5) == 3
            assert not any(task.done() for task in held)
        finally:
            gate.set()
            await asyncio.gather(*held)

    try:
        asyncio.run(calls())
    finally:
        route.shutdown()


def test_lease_renewals_on_postgresql_never_wait_behind_other_calls_or_moves() -> None:
    """A renewal late by a lease's length hands a busy process's tables to another one
    (docs/deploy.md "Leases"): on PostgreSQL the LEASES calls have a thread of their own, so
    neither a backlog of other calls (a room's seating) nor a move in flight holds them up."""
    route = StoreRoute("postgresql")
    gate = threading.Event()

    async def calls() -> None:
        held = [
            asyncio.create_task(route.call(OTHER, gate.wait, 10)) for _ in range(POOL_THREADS + 3)
        ]
        move = asyncio.create_task(route.call(MOVES, gate.wait, 10))
        try:
            assert await asyncio.wait_for(route.call(LEASES, sorted, [3, 1, 2]), timeout=5) == [
                1,
                2,
                3,
            ]
            assert not move.done() and not any(task.done() for task in held)
        finally:
            gate.set()
            await asyncio.gather(move, *held)

    try:
        asyncio.run(calls())
    finally:
        route.shutdown()


def test_lease_renewals_on_sqlite_come_after_the_moves_and_before_the_rest() -> None:
    worker = DatabaseThread()
    gate = threading.Event()
    ran: list[str] = []
    try:
        busy = worker.submit(OTHER, gate.wait)
        later = [
            worker.submit(OTHER, ran.append, "settle"),
            worker.submit(LEASES, ran.append, "renew"),
            worker.submit(MOVES, ran.append, "move"),
        ]
        gate.set()
        for future in [busy, *later]:
            future.result(timeout=10)
    finally:
        worker.shutdown()
    assert ran == ["move", "renew", "settle"]
