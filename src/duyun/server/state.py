"""What one server process holds between requests, typed (issue 22 item 3).

The REST routers (:mod:`duyun.server.api`) and the websocket endpoint (:mod:`duyun.server.ws`)
read it through ``app.state.server``; the lifespan in :mod:`duyun.server.app` fills in the
store, the manager and the cluster once they are open, so until then they are ``None`` and the
routes answer ``503 starting``.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from duyun.server.cluster import Cluster
from duyun.server.config import ServerConfig
from duyun.server.limits import Limits
from duyun.server.logs import RESOURCE_LOG_INTERVAL
from duyun.server.reviews import Reviewer
from duyun.server.store import BoardEntry, Store
from duyun.server.tables import Client, TableManager


@dataclass(eq=False)
class ServerState:
    """The process's configuration, what the lifespan opened, and the websocket bookkeeping."""

    config: ServerConfig
    #: per-address abuse limits, shared by REST and the websocket so probing table codes
    #: through either path counts against one budget
    limits: Limits
    #: the websockets this process may hold in total (``ws.connection_cap``)
    max_sockets: int
    store: Store | None = None
    manager: TableManager | None = None
    #: 大師's reviews (牌譜解析): the worker pool and the reviews under way
    reviewer: Reviewer | None = None
    #: set when several processes share one database (``owner`` given to ``create_app``)
    cluster: Cluster | None = None
    #: true between the end of the lifespan's start-up and the start of its shutdown
    ready: bool = False
    #: open websockets per client address (the cap of config ``max_connections_per_address``)
    sockets: dict[str, int] = field(default_factory=dict)
    #: the token each authenticated websocket presented, so a logout closes exactly its sockets
    socket_tokens: weakref.WeakKeyDictionary[Client, str] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    #: leaderboard answers by (board, account id): when read and what (issue 32; reused for
    #: ``leaderboard_cache`` seconds, at most BOARD_CACHE_SIZE kept)
    boards: dict[tuple[str, int], tuple[float, dict[str, Any]]] = field(default_factory=dict)
    #: the week's whole ranking (the weekly leaderboard): when read, the week's start, the
    #: lines in order and by account
    weekly: tuple[float, datetime, tuple[BoardEntry, ...], dict[int, BoardEntry]] | None = None
    #: when a refused websocket was last logged (at most once per RESOURCE_LOG_INTERVAL)
    cap_logged: float = -RESOURCE_LOG_INTERVAL

    @property
    def draining(self) -> bool:
        return self.cluster is not None and self.cluster.draining


__all__ = ["ServerState"]
