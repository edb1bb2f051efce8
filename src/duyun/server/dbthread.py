"""The one route of the tables' store calls: on SQLite one thread, moves first.

SQLite has one writer. Several threads would only take turns on its lock in no particular
order (and fight for the GIL), so one thread runs every store call of the tables in the order
made -- except that the hand events of moves (the group-committing writer's batches) go ahead
of calls still waiting, such as settling and dealing. Hands that end together (a room's tables
started together) then delay the settlements, which nobody is waiting on to the millisecond,
and not the moves being played at the other tables.

On PostgreSQL, whose row locks let transactions run side by side, :class:`StoreRoute` sends
the same calls to the default thread pool instead. Either way the tables, their restore, the
manager and the event writer reach the store through the one ``StoreRoute`` of the process
(``TableManager.store_call``), never with a bare ``asyncio.to_thread``.
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

#: priorities: smaller runs first; equal ones in the order submitted
MOVES = 0
OTHER = 1
_STOP = 2


class DatabaseThread:
    """A single worker thread with a priority queue of store calls."""

    def __init__(self, name: str = "duyun-db") -> None:
        self._jobs: queue.PriorityQueue[
            tuple[int, int, tuple[Callable[..., Any], tuple[Any, ...], Future[Any]] | None]
        ] = queue.PriorityQueue()
        self._order = itertools.count()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, priority: int, function: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self._jobs.put((priority, next(self._order), (function, args, future)))
        return future

    async def run(self, priority: int, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` on the thread; awaits and returns its result (or raises)."""
        return await asyncio.wrap_future(self.submit(priority, function, *args))

    def _run(self) -> None:
        while True:
            _, _, job = self._jobs.get()
            if job is None:
                return
            function, args, future = job
            if not future.set_running_or_notify_cancel():
                continue  # its caller was cancelled before it ran
            try:
                result = function(*args)
            except BaseException as exc:  # handed to the awaiting coroutine
                future.set_exception(exc)
            else:
                future.set_result(result)

    def shutdown(self) -> None:
        """Run what is queued, then stop the thread."""
        self._jobs.put((_STOP, next(self._order), None))
        self._thread.join()


class StoreRoute:
    """Where a store call runs: the database thread on SQLite, the thread pool otherwise."""

    def __init__(self, dialect: str) -> None:
        self.thread = DatabaseThread() if dialect == "sqlite" else None

    async def call(self, priority: int, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` off the event loop; ``priority`` orders it on SQLite (MOVES
        ahead of OTHER), PostgreSQL runs calls side by side."""
        if self.thread is not None:
            return await self.thread.run(priority, function, *args)
        return await asyncio.to_thread(function, *args)

    def shutdown(self) -> None:
        if self.thread is not None:
            self.thread.shutdown()
