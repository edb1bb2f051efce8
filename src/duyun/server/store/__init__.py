"""Persistence for the online game: accounts, coins, matches, hands and their event logs.

The store is synchronous SQLAlchemy 2.0 behind one :class:`Store` object that is safe to share
between threads (every method opens its own short transaction). The asyncio server calls it off
the event loop through one route, ``TableManager.store_call`` (docs/deploy.md, "Store API").
Everything returned is a frozen dataclass, never
an ORM object, so nothing a caller holds can lazily hit the database later.

Coins (RULES R41): coins move only through :class:`CoinRow` rows. A hand's rows are written by
:meth:`Store.finish_hand` in the same transaction that stores the hand's result; bots play from
the house account; a human payer's row is cut to their balance (never below zero) and the cut is
recorded on the row. The rows of the whole ledger sum to zero and every balance equals the sum of
its account's rows (:meth:`Store.audit`).

Several server processes may share one PostgreSQL database: a match is owned by one process at a
time through a lease row (see ``docs/deploy.md``); :meth:`Store.live_matches` with an ``owner``
claims only matches whose lease is free or expired.

The package, by concern (each module one concern of the one :class:`Store`):

- ``types`` -- the dataclasses, config and errors callers see; ``models`` -- the ORM tables;
  ``database`` -- URLs, engines, SQLite settings and checkpoints, Alembic and the checks that a
  database is duyun's; ``auth`` -- name and password rules, hashing, tokens, the rate limit;
- ``base`` -- :class:`~duyun.server.store.base.StoreCore`: transactions, the clock, the house,
  locking accounts and moving coins, reading (and fencing) match and hand rows;
- ``accounts`` (guests, register, login, tokens, account reads), ``ledger`` (grants, ledger,
  audits), ``matches`` (matches, seats, hands, settlement), ``events`` (appending hands' event
  logs), ``records`` (history, hand logs, specs), ``reviews`` (大師's stored reviews),
  ``leases`` (claims, restore, renewals, routing) -- each a class over ``StoreCore``;
  ``store`` puts them together as :class:`Store` and opens the database; ``cluster`` --
  functions over a :class:`Store` for several processes.

Why a class per concern that :class:`Store` inherits from, not a facade over repositories: the
methods keep their names, signatures and docstrings in one place with no forwarding layer to
keep in step, and callers that reach the store's transaction (``store._session()`` in
``cluster`` and tests) or patch a step (``Store._mark_finished``) still find it. The classes are
typed over ``StoreCore``, whose attributes mypy --strict checks in every concern; where one
concern reads through another (the ledger and records check an account exists, restoring a
match reads its records) it inherits that class, so the dependency is in the class line, not an
untyped assumption. The modules import downwards only (``store`` -> concerns -> ``base`` ->
``database``, ``auth``, ``models``, ``types``); ``tests/server/store/test_store_imports.py`` fails
on a cycle.
"""

from __future__ import annotations

from duyun.server.store import cluster as _cluster  # noqa: F401  (its tables join the schema)
from duyun.server.store.reviews import StoredReview
from duyun.server.store.store import Store
from duyun.server.store.types import (
    Account,
    AccountError,
    AccountKind,
    AlreadyClaimedError,
    AuditReport,
    AuthError,
    BiggestWin,
    Board,
    BoardEntry,
    BonusKind,
    BonusRefused,
    BonusState,
    CoinRow,
    ConflictError,
    Economy,
    HandLog,
    HandRecord,
    HouseReport,
    Lease,
    LeaseLostError,
    LiveHand,
    LiveMatch,
    MatchRecord,
    MatchSpec,
    NotEligibleError,
    NotFoundError,
    Profile,
    RateLimitedError,
    RatingChange,
    RatingPoint,
    SeatSpec,
    SettledHand,
    StoreConfig,
    StoreError,
)

__all__ = [
    "Account",
    "AccountError",
    "AccountKind",
    "AlreadyClaimedError",
    "AuditReport",
    "AuthError",
    "BiggestWin",
    "Board",
    "BoardEntry",
    "BonusKind",
    "BonusRefused",
    "BonusState",
    "CoinRow",
    "ConflictError",
    "Economy",
    "HandLog",
    "HandRecord",
    "HouseReport",
    "Lease",
    "LeaseLostError",
    "LiveHand",
    "LiveMatch",
    "MatchRecord",
    "MatchSpec",
    "NotEligibleError",
    "NotFoundError",
    "Profile",
    "RateLimitedError",
    "RatingChange",
    "RatingPoint",
    "SeatSpec",
    "SettledHand",
    "Store",
    "StoreConfig",
    "StoreError",
    "StoredReview",
]
