"""Persistence for the online game: accounts, coins, matches, hands and their event logs.

The store is synchronous SQLAlchemy 2.0 behind one :class:`Store` object that is safe to share
between threads (every method opens its own short transaction). The asyncio server calls it with
``await asyncio.to_thread(store.method, ...)``. Everything returned is a frozen dataclass, never
an ORM object, so nothing a caller holds can lazily hit the database later.

Coins (RULES R41): coins move only through :class:`CoinRow` rows. A hand's rows are written by
:meth:`Store.finish_hand` in the same transaction that stores the hand's result; bots play from
the house account; a human payer's row is cut to their balance (never below zero) and the cut is
recorded on the row. The rows of the whole ledger sum to zero and every balance equals the sum of
its account's rows (:meth:`Store.audit`).

Several server processes may share one PostgreSQL database: a match is owned by one process at a
time through a lease row (see ``docs/deploy.md``); :meth:`Store.live_matches` with an ``owner``
claims only matches whose lease is free or expired.
"""

from __future__ import annotations

from duyun.server.store import cluster as _cluster  # noqa: F401  (its tables join the schema)
from duyun.server.store.store import Store
from duyun.server.store.types import (
    Account,
    AccountError,
    AccountKind,
    AuditReport,
    AuthError,
    CoinRow,
    ConflictError,
    HandLog,
    HandRecord,
    HouseReport,
    Lease,
    LeaseLostError,
    LiveHand,
    LiveMatch,
    MatchRecord,
    MatchSpec,
    NotFoundError,
    RateLimitedError,
    SeatSpec,
    StoreConfig,
    StoreError,
)

__all__ = [
    "Account",
    "AccountError",
    "AccountKind",
    "AuditReport",
    "AuthError",
    "CoinRow",
    "ConflictError",
    "HandLog",
    "HandRecord",
    "HouseReport",
    "Lease",
    "LeaseLostError",
    "LiveHand",
    "LiveMatch",
    "MatchRecord",
    "MatchSpec",
    "NotFoundError",
    "RateLimitedError",
    "SeatSpec",
    "Store",
    "StoreConfig",
    "StoreError",
]
