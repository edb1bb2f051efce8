"""What a table's task is asked to do: one frozen dataclass per kind of inbox message.

Everything that changes a table goes through its inbox, one message at a time, so moves never
race (``Table._run``). The run loop dispatches on these types with ``match`` and ends in
``assert_never``, so mypy rejects a kind that is added here and not handled there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from duyun.server import protocol
from duyun.server.tables.seats import Client


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
    """A named timer ran out; ``timer_id`` tells a live timer from a replaced one."""

    name: str
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
