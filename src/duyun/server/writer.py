"""Group commit of hand events: every table's moves reach the database through one writer.

Each move of each table is stored before anyone sees it (docs/protocol.md "Durability"). One
transaction per move made the database the server's busiest part under load: a hundred tables
meant hundreds of commits a second, each paying the same fixed cost, queued behind each other
on SQLite's single write lock. The writer keeps one write in flight; the moves that arrive
while it runs are written together by the next one, so the number of commits follows the
database's speed rather than the number of tables, and no table waits behind more than one
write. A table still awaits its own events' commit before releasing them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from duyun.server.store import Lease, Store

#: runs a store call off the event loop and returns its result
DatabaseRunner = Callable[..., Awaitable[Any]]


async def _to_thread(function: Callable[..., Any], *args: Any) -> Any:
    return await asyncio.to_thread(function, *args)


class EventWriter:
    """Batches :meth:`Store.append_events` calls of all tables of this process."""

    def __init__(self, store: Store, run: DatabaseRunner = _to_thread) -> None:
        self._store = store
        self._run = run
        self._waiting: list[
            tuple[int, int, list[dict[str, Any]], Lease | None, asyncio.Future[None]]
        ] = []
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
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((hand_id, first_seq, events, lease, future))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain(), name="event-writer")
        await future

    async def _drain(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting, []
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
