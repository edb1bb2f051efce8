"""The tables' database thread on SQLite (server/dbthread.py): one call at a time, moves ahead
of calls still waiting, errors to the caller, queued work done before it stops."""

from __future__ import annotations

import asyncio
import threading

import pytest

from duyun.server.dbthread import MOVES, OTHER, DatabaseThread


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
