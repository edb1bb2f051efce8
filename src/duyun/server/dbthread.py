"""The one route of the tables' store calls: on SQLite one thread, moves first.

SQLite has one writer. Several threads would only take turns on its lock in no particular
order (and fight for the GIL), so one thread runs every store call of the tables in the order
made -- except that the hand events of moves (the group-committing writer's batches) go ahead
of calls still waiting, such as settling and dealing. Hands that end together (a room's tables
started together) then delay the settlements, which nobody is waiting on to the millisecond,
and not the moves being played at the other tables.

On PostgreSQL, whose row locks let transactions run side by side, :class:`StoreRoute` sends
the same calls to a pool of threads instead, and the moves to a thread of their own: the event
writer has one batch in flight at a time, and in a shared first-come queue its batches waited
behind the seating of a room full of arrivals (their hellos, joins, new matches and deals),
which put the turn actions' p99 above a second while 4,000 players sat down. The renewals of
the process's leases (and its heartbeat) get a thread of their own for the same reason: behind
a long enough backlog a renewal arrives after the lease ran out, and another process adopts
matches whose owner was only busy (its players are sent there with ``table_moved``). On SQLite
they come after the moves and before everything else. Either way the
tables, their restore, the manager and the event writer reach the store through the one
``StoreRoute`` of the process (``TableManager.store_call``), never with a bare
``asyncio.to_thread``.

The results go back to the event loop through a :class:`Handback`: the calls that finish while
the loop is busy are delivered together, with one wake-up of the loop, rather than one
``call_soon_threadsafe`` (a write to the loop's self-pipe, and a ``concurrent.futures`` future
wrapped in an asyncio one) per call. At people's pace those hand-offs were a tenth of a
process's CPU (docs/deploy.md "Where a process's CPU goes").
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import os
import queue
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

#: priorities: smaller runs first; equal ones in the order submitted
MOVES = 0
#: the calls that keep this process's claim on its matches and its place in the cluster
#: (lease renewals, the heartbeat): late by a lease's length, they would hand every table of
#: a merely busy process to another one, so no backlog of other calls may hold them up
LEASES = 1
OTHER = 2
_STOP = 3

#: PostgreSQL's route: as many threads as asyncio's default pool has at most
POOL_THREADS = min(32, (os.cpu_count() or 1) + 4)


class Handback:
    """Hands results computed on other threads to one event loop's futures, in groups.

    A worker calls :meth:`put`; the first result after a delivery schedules the next delivery
    (one ``call_soon_threadsafe``), and every result that arrives before it runs goes with it.
    A future its caller cancelled meanwhile is left as it is (``asyncio.wrap_future`` did the
    same)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._lock = threading.Lock()
        self._done: deque[tuple[asyncio.Future[Any], BaseException | None, Any]] = deque()
        self._scheduled = False

    def put(self, future: asyncio.Future[Any], error: BaseException | None, result: Any) -> None:
        """Called on a worker thread: ``future`` gets ``error`` (if not None) or ``result``."""
        with self._lock:
            self._done.append((future, error, result))
            if self._scheduled:
                return
            self._scheduled = True
        # a closed loop: nobody awaits these results any more
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self._deliver)

    def _deliver(self) -> None:
        with self._lock:
            self._scheduled = False
            done, self._done = self._done, deque()
        for future, error, result in done:
            if future.done():  # cancelled while the call ran
                continue
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)


def _call(
    handback: Handback, future: asyncio.Future[Any], function: Callable[..., Any], args: Any
) -> None:
    """Run one call on a worker thread and hand its outcome back (unless its caller is gone)."""
    if future.done():  # its caller was cancelled before it ran
        return
    try:
        result = function(*args)
    except BaseException as exc:  # handed to the awaiting coroutine
        handback.put(future, exc, None)
    else:
        handback.put(future, None, result)


class DatabaseThread:
    """A single worker thread with a priority queue of store calls."""

    def __init__(self, name: str = "duyun-db") -> None:
        # the jobs wait in a heap under a plain lock; the thread sleeps on a C SimpleQueue
        # holding one token per job (queue.PriorityQueue's Condition cost a Python-level lock
        # per wait and per notify, on every call)
        self._heap: list[tuple[int, int, Callable[[], None] | None]] = []
        self._lock = threading.Lock()
        self._tokens: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._order = itertools.count()
        self._handback: Handback | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _push(self, priority: int, job: Callable[[], None] | None) -> None:
        with self._lock:
            heapq.heappush(self._heap, (priority, next(self._order), job))
        self._tokens.put(None)

    def submit(self, priority: int, function: Callable[..., Any], *args: Any) -> Future[Any]:
        """``function(*args)`` on the thread, for a caller outside an event loop."""
        future: Future[Any] = Future()

        def job() -> None:
            if not future.set_running_or_notify_cancel():
                return  # its caller was cancelled before it ran
            try:
                result = function(*args)
            except BaseException as exc:  # handed to the waiting caller
                future.set_exception(exc)
            else:
                future.set_result(result)

        self._push(priority, job)
        return future

    async def run(self, priority: int, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` on the thread; awaits and returns its result (or raises)."""
        loop = asyncio.get_running_loop()
        handback = self._handback
        if handback is None or handback.loop is not loop:
            handback = self._handback = Handback(loop)
        future: asyncio.Future[Any] = loop.create_future()
        self._push(priority, lambda: _call(handback, future, function, args))
        return await future

    def _run(self) -> None:
        while True:
            self._tokens.get()
            with self._lock:
                _, _, job = heapq.heappop(self._heap)
            if job is None:
                return
            job()

    def shutdown(self) -> None:
        """Run what is queued, then stop the thread."""
        self._push(_STOP, None)
        self._thread.join()


class WorkerPool:
    """PostgreSQL's route: ``size`` threads taking calls from one C SimpleQueue, started with
    the first call. A ``ThreadPoolExecutor`` does the same with a future, a work item, a lock
    and a semaphore per call in Python; the results go back through a :class:`Handback`."""

    def __init__(self, size: int, name: str = "duyun-store") -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._run, name=f"{name}-{n}", daemon=True) for n in range(size)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            job()

    def shutdown(self) -> None:
        """Run what is queued, then stop the threads."""
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join()


class StoreRoute:
    """Where a store call runs: the database thread on SQLite, a pool of threads otherwise."""

    def __init__(self, dialect: str) -> None:
        self.thread = DatabaseThread() if dialect == "sqlite" else None
        self._pool: WorkerPool | None = None
        self._moves: WorkerPool | None = None
        self._leases: WorkerPool | None = None
        self._handback: Handback | None = None

    async def call(self, priority: int, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` off the event loop; ``priority`` orders it on SQLite (MOVES,
        then LEASES, ahead of OTHER); PostgreSQL runs calls side by side, MOVES and LEASES each
        on a thread of their own so that no backlog of other calls is ever ahead of them."""
        if self.thread is not None:
            return await self.thread.run(priority, function, *args)
        loop = asyncio.get_running_loop()
        handback = self._handback
        if handback is None or handback.loop is not loop:
            handback = self._handback = Handback(loop)
        if priority == MOVES:
            if self._moves is None:
                self._moves = WorkerPool(1, name="duyun-moves")
            pool = self._moves
        elif priority == LEASES:
            if self._leases is None:
                self._leases = WorkerPool(1, name="duyun-leases")
            pool = self._leases
        else:
            if self._pool is None:
                self._pool = WorkerPool(POOL_THREADS)
            pool = self._pool
        future: asyncio.Future[Any] = loop.create_future()
        pool.submit(lambda: _call(handback, future, function, args))
        return await future

    def shutdown(self) -> None:
        if self.thread is not None:
            self.thread.shutdown()
        for pool in (self._pool, self._moves, self._leases):
            if pool is not None:
                pool.shutdown()
