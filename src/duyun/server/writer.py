"""Group commit of hand events: every table's moves reach the database through one writer.

Each move of each table is stored before anyone sees it (docs/protocol.md "Durability"). One
transaction per move made the database the server's busiest part under load: a hundred tables
meant hundreds of commits a second, each paying the same fixed cost, queued behind each other
on SQLite's single write lock. The writer keeps one write in flight; the moves that arrive
while it runs are written together by the next one, so the number of commits follows the
database's speed rather than the number of tables, and no table waits behind more than one
write. A table still awaits its own events' commit before releasing them.

At people's pace that alone commits nearly every move on its own: the moves of a thousand
tables come a few milliseconds apart, and a write on an idle database is quicker than that.
``commit_wait`` (the server's config, 0 = off) is a bounded group commit, as PostgreSQL's
``commit_delay``: the writer holds a batch until its oldest move has waited that long, so the
moves of those milliseconds share one transaction and its fixed cost (two round trips, the
fencing read, the commit; the hand-offs to the database thread and back). No move waits longer
than ``commit_wait`` plus the one write that may be in flight, and none is shown to anybody
before it is stored: the wait is added to the round trip of the move, never taken from its
durability.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from duyun.server.config import MAX_COMMIT_WAIT
from duyun.server.store import Lease, Store

#: runs a store call off the event loop and returns its result
DatabaseRunner = Callable[..., Awaitable[Any]]

#: told of every batch written: how many appends it carried and how long it was held by the
#: bounded wait (0.0 when it went at once)
BatchObserver = Callable[[int, float], None]


async def _to_thread(function: Callable[..., Any], *args: Any) -> Any:
    return await asyncio.to_thread(function, *args)


class EventWriter:
    """Batches :meth:`Store.append_events` calls of all tables of this process."""

    def __init__(
        self,
        store: Store,
        run: DatabaseRunner = _to_thread,
        *,
        wait: float = 0.0,
        observe: BatchObserver | None = None,
    ) -> None:
        if not 0.0 <= wait <= MAX_COMMIT_WAIT:
            raise ValueError(f"the commit wait must be 0..{MAX_COMMIT_WAIT} s, got {wait!r}")
        self._store = store
        self._run = run
        self._wait = wait
        self._observe = observe
        self._waiting: list[
            tuple[int, int, list[dict[str, Any]], Lease | None, asyncio.Future[None]]
        ] = []
        #: the loop's time when the oldest append of ``_waiting`` came
        self._oldest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def append(
        self,
        hand_id: int,
        first_seq: int,
        events: list[dict[str, Any]],
        lease: Lease | None = None,
    ) -> None:
        """Store ``events`` as :meth:`Store.append_events` would; returns once committed and
        raises its error (a :class:`~duyun.server.store.StoreError`) if they were refused --
        :class:`~duyun.server.store.LeaseLostError` when ``lease`` is no longer the match's."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        if not self._waiting:
            self._oldest = loop.time()
        self._waiting.append((hand_id, first_seq, events, lease, future))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain(), name="event-writer")
        await future

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiting:
            # the oldest move's wait so far counts: one that came while a write ran has
            # waited for it already
            held = max(0.0, self._oldest + self._wait - loop.time()) if self._wait else 0.0
            if held:
                await asyncio.sleep(held)
            batch, self._waiting = self._waiting, []
            if self._observe is not None:
                self._observe(len(batch), held)
            appends = [(hand_id, seq, events, lease) for hand_id, seq, events, lease, _ in batch]
            try:
                outcomes: list[BaseException | None] = list(
                    await self._run(self._store.append_events_many, appends)
                )
            except Exception as exc:  # the database is unreachable: every waiter hears it
                outcomes = [exc] * len(batch)
            for (*_, future), outcome in zip(batch, outcomes, strict=True):
                if future.done():  # its table was stopped while the write ran
                    continue
                if outcome is None:
                    future.set_result(None)
                else:
                    future.set_exception(outcome)
