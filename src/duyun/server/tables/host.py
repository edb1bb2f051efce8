"""The narrow protocol through which a table talks to whatever hosts it.

A table used to write into its manager's ``by_match`` and ``seated`` dicts and set
``client.table`` itself, so the manager's indexes could only be understood by reading the
table. Now the table asks its host for the few things it needs, and :class:`TableManager`
(``manager.py``) is the one implementation in the server; a test can run a table under a small
fake host without a manager (tests/server/tables/test_tables_host.py).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any, Protocol

from duyun.engine import Setup
from duyun.server.config import ServerConfig
from duyun.server.dbthread import OTHER
from duyun.server.metrics import Metrics
from duyun.server.store import Store
from duyun.server.tables.seats import Client
from duyun.server.writer import EventWriter

if TYPE_CHECKING:
    from duyun.server.tables.table import Table

#: tests only: deals hand ``(hand_index, seed, dealer, streak)`` instead of its seed
DealOverride = Callable[[int, int, int, int], Setup]


class TableHost(Protocol):
    """What a table needs from its host, and nothing more."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def store(self) -> Store:
        """The store whose methods the table passes to :meth:`store_call` (never called
        directly: that would block the event loop)."""
        ...

    @property
    def owner(self) -> str | None:
        """This process's name in the store's leases (None: a single process)."""
        ...

    @property
    def writer(self) -> EventWriter:
        """The group-committing writer every table's hand events go through."""
        ...

    @property
    def metrics(self) -> Metrics: ...

    @property
    def deal(self) -> DealOverride | None: ...

    @property
    def bot_ratings(self) -> dict[str, int]:
        """Each bot level's rating as last read from the store (issue 32): shown next to a
        bot seat's name; a level not in it has not played a rated match: the initial rating."""
        ...

    @property
    def search_pool(self) -> Executor:
        """Where the 大師 bots' searches run (threads of their own, not the default pool that
        store calls take)."""
        ...

    async def store_call(
        self, function: Callable[..., Any], *args: Any, priority: int = OTHER
    ) -> Any:
        """``function(*args)``, a store method, off the event loop: the one route every store
        call of the tables takes (server/dbthread.py)."""
        ...

    def register_match(self, match_id: int, table: Table) -> None:
        """``table`` plays ``match_id`` (a new match, or one restored)."""
        ...

    def seat(self, account_id: int, table: Table) -> None:
        """The account sits at ``table`` (one table per account)."""
        ...

    def unseat(self, account_id: int, table: Table) -> None:
        """The account no longer sits at ``table`` (nothing if it sits elsewhere)."""
        ...

    def attach_client(self, client: Client, table: Table | None) -> None:
        """Route what ``client`` sends next to ``table`` (None: to no table)."""
        ...

    def detach_client(self, client: Client, table: Table) -> None:
        """``client`` is no longer ``table``'s (nothing if it went elsewhere meanwhile)."""
        ...

    def watch(self, client: Client, table: Table | None) -> None:
        """``client`` spectates ``table`` now (None: nothing)."""
        ...

    def drop_table(self, table: Table) -> None:
        """Forget ``table`` and its match and stop its task."""
        ...

    def rematch(self, ended: Table) -> Table:
        """再來一局: a new waiting table under the ended private table's code, its bots back
        and its people's seats kept for them."""
        ...

    def stop_moved(self, table: Table, message: str = ...) -> None:
        """Another process plays the table's match now (its lease was lost)."""
        ...

    async def reload(self, table: Table) -> None:
        """The store contradicted the table: rebuild it from what is stored."""
        ...

    async def quick_match(self, client: Client, room_id: str) -> None:
        """Seat ``client`` at another table of the room (the one it tried filled up)."""
        ...
