"""The REST API under /api and the operator endpoints, as FastAPI routers (issue 22 item 3).

One router per concern: :mod:`~duyun.server.api.accounts` (sessions),
:mod:`~duyun.server.api.tables` (rooms, lobby, private tables),
:mod:`~duyun.server.api.records` (history, ledger, hand logs),
:mod:`~duyun.server.api.reviews` (大師's reviews of finished hands),
:mod:`~duyun.server.api.players` (bonuses, leaderboards, profiles, names; issue 32) and
:mod:`~duyun.server.api.ops` (/healthz, /readyz, /metrics). The routes reach the server's
state only through the dependencies of :mod:`~duyun.server.api.deps`; every refusal is the one
error body of :mod:`~duyun.server.api.errors`. docs/protocol.md "REST" is their contract.
"""

from __future__ import annotations

from fastapi import APIRouter

from duyun.server.api import accounts, ops, players, records, reviews, tables

#: in the order ``create_app`` includes them
ROUTERS: tuple[APIRouter, ...] = (
    ops.router,
    accounts.router,
    tables.router,
    records.router,
    reviews.router,
    players.router,
)

__all__ = ["ROUTERS"]
