"""What reaches a table: its clients, and one frozen dataclass per kind of inbox message.

Everything that changes a table goes through its inbox, one message at a time, so moves never
race (``Table._run``). The table's state machine (``state.py``) dispatches on these types with
``match`` and ends in ``assert_never``, so mypy rejects a kind that is added here and not
handled there. A client knows the table it sits at or watches only as somewhere to post these
(:class:`TableRef`), which keeps this module, and everything built on it, free of the async
table.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from duyun.server import protocol
from duyun.server.store import Account
from duyun.server.tables.timers import TimerKey


class TableRef(Protocol):
    """A table as its clients and host reach it: by its code, and its inbox."""

    @property
    def code(self) -> str: ...

    def post(self, item: InboxMessage) -> None: ...


class Client(Protocol):
    """A connected websocket as the tables see it (implemented in server/ws.py). A table never sets
    ``table`` itself: its host does (``TableHost.attach_client``), so the host's indexes and
    the client's idea of where it sits cannot disagree."""

    account: Account | None
    table: TableRef | None
    spectating: TableRef | None
    #: the client's address as the server sees it (behind the proxy of ``forwarded_allow_ips``,
    #: docs/deploy.md); None when unknown
    address: str | None

    def send(self, message: dict[str, Any]) -> None: ...

    def send_text(self, text: str) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Join:
    """Take a free seat (before the match); the manager has counted it in ``pending_joins``."""

    client: Client
    seat: int | None = None
    #: asked for by code (``join``), not through this process's quick match: at a room table,
    #: a player another process's quick match sent here (cluster.py, ``Table.arrivals``)
    by_code: bool = False


@dataclass(frozen=True, slots=True)
class Attach:
    """A reconnect, or a second connection of the same account taking the seat over."""

    client: Client


@dataclass(frozen=True, slots=True)
class Detach:
    """The client's socket closed (or it was replaced)."""

    client: Client


@dataclass(frozen=True, slots=True)
class Spectate:
    client: Client


@dataclass(frozen=True, slots=True)
class Unspectate:
    client: Client


@dataclass(frozen=True, slots=True)
class ClientMessage:
    """A validated websocket message for this table (an act, ready, a reaction, ...)."""

    client: Client
    message: protocol._Message

    @property
    def rid(self) -> str | int | None:
        rid = getattr(self.message, "rid", None)
        return rid if isinstance(rid, str | int) else None


@dataclass(frozen=True, slots=True)
class TimerFired:
    """A timer ran out; ``timer_id`` tells a live timer from a replaced one."""

    name: TimerKey
    timer_id: int
    args: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class Call:
    """Run ``function`` on the table's task, in turn with everything else it does."""

    function: Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Stop:
    """End the table's task (its timers are cancelled)."""


#: what the run loop hands to ``Table._handle`` (everything but ``Stop``, which ends it)
Work = Join | Attach | Detach | Spectate | Unspectate | ClientMessage | TimerFired | Call
InboxMessage = Work | Stop
