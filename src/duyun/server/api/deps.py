"""The FastAPI dependencies of the REST routes: the server state, the store, the tables, the
caller's account and address.

Store calls take one route, the manager's :meth:`~duyun.server.tables.TableManager.store_call`: on
SQLite that is the one ordered database thread the tables use, so a REST write never races a
table's settlement for SQLite's single writer lock; on PostgreSQL it is the thread pool.
The exception is password hashing (:func:`run_hashing`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.requests import HTTPConnection

from duyun.server.api.errors import ApiError
from duyun.server.state import ServerState
from duyun.server.store import Account, AuthError, Store
from duyun.server.tables import TableManager

T = TypeVar("T")


# The dependencies below are ``async def`` although none of them awaits: FastAPI runs a plain
# ``def`` dependency on a worker thread, so each was a thread hop (and a wait for the GIL back)
# per request and per websocket. While a crowd was seated, a twentieth of the event loop's time
# went to those hops (docs/deploy.md, issue 33's eighth round).


async def get_state(connection: HTTPConnection) -> ServerState:
    """The process's :class:`ServerState` (HTTP requests and websockets alike)."""
    state: ServerState = connection.app.state.server
    return state


State = Annotated[ServerState, Depends(get_state)]


def store_of(state: ServerState) -> Store:
    """The open store, or ``503 starting`` before the lifespan opened it."""
    if state.store is None:
        raise ApiError(503, "starting", "the server is starting")
    return state.store


def manager_of(state: ServerState) -> TableManager:
    """The table manager, or ``503 starting`` before the lifespan made it."""
    if state.manager is None:
        raise ApiError(503, "starting", "the server is starting")
    return state.manager


async def get_store(state: State) -> Store:
    return store_of(state)


async def get_manager(state: State) -> TableManager:
    return manager_of(state)


OpenStore = Annotated[Store, Depends(get_store)]
Manager = Annotated[TableManager, Depends(get_manager)]


async def run_db(manager: TableManager, function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` through the manager's store route, typed by ``function``."""
    result: T = await manager.store_call(function, *args)
    return result


async def run_hashing(function: Callable[..., T], *args: Any) -> T:
    """``Store.login`` and ``Store.register``, which run argon2 inside the store call, on a
    worker thread of their own rather than the manager's route.

    With the default costs (time 2, memory 19 MiB) one login takes 24-33 ms (median 29 ms) on
    the 2-core development machine when it is idle and up to 75 ms when it is busy, about 25 ms
    of it argon2. On the one SQLite database thread every table's settlement and deal would
    wait behind each login, and a burst of logins would stall them all. The rows these calls
    touch are their own (accounts, login attempts), so running them beside the database thread,
    as before, loses no ordering the tables rely on. (Splitting the hashing out of the store
    call would keep the row work on the thread, but the hashing is inside ``Store.login`` and
    ``Store.register``.)
    """
    return await asyncio.to_thread(function, *args)


async def client_address(request: Request) -> str | None:
    """The caller's address; behind a proxy listed in ``forwarded_allow_ips`` uvicorn has
    already replaced the peer with the X-Forwarded-For address (docs/deploy.md)."""
    return request.client.host if request.client else None


ClientAddress = Annotated[str | None, Depends(client_address)]


def presented_bearer(request: Request) -> str | None:
    """The token of ``Authorization: Bearer TOKEN``, or None when there is none: the players'
    routes (:func:`bearer_token`) and the operator's /metrics read the header the same way."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


#: /openapi.json's ``bearer`` security scheme: the routes that need a token depend on it (through
#: :func:`bearer_token`), so the schema lists them as secured. It reads nothing itself
#: (``auto_error=False``): a missing or malformed header is :func:`bearer_token`'s
#: ``401 unauthorized`` in the documented error body, not FastAPI's ``403 {"detail"}``.
bearer_scheme = HTTPBearer(
    scheme_name="bearer",
    description="the token of POST /api/guest, /api/register or /api/login",
    auto_error=False,
)
SchemeCredentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)]

#: the ``security`` of an operation where a token is optional (``POST /api/register``)
OPTIONAL_BEARER: dict[str, Any] = {"security": [{"bearer": []}, {}]}


def required_bearer(request: Request) -> str:
    """The token of ``Authorization: Bearer TOKEN`` (``401 unauthorized`` without one)."""
    token = presented_bearer(request)
    if token is None:
        raise ApiError(401, "unauthorized", "send 'Authorization: Bearer TOKEN'")
    return token


async def bearer_token(request: Request, _scheme: SchemeCredentials) -> str:
    """:func:`required_bearer` as the dependency of the routes that need a token."""
    return required_bearer(request)


BearerToken = Annotated[str, Depends(bearer_token)]


async def current_account(token: BearerToken, store: OpenStore, manager: Manager) -> Account:
    """The account whose token the request presents: forged, expired and logged-out tokens
    are ``401 unauthorized``."""
    try:
        return await run_db(manager, store.verify_token, token)
    except AuthError as error:
        raise ApiError(401, "unauthorized", str(error)) from None


CurrentAccount = Annotated[Account, Depends(current_account)]


async def optional_account(request: Request, store: OpenStore, manager: Manager) -> Account | None:
    """The caller's account when the request sends ``Authorization`` (then it must be valid),
    else None: registering may turn the caller's guest account into a user."""
    if not request.headers.get("authorization"):
        return None
    return await current_account(required_bearer(request), store, manager)


OptionalAccount = Annotated[Account | None, Depends(optional_account)]

__all__ = [
    "OPTIONAL_BEARER",
    "BearerToken",
    "ClientAddress",
    "CurrentAccount",
    "Manager",
    "OpenStore",
    "OptionalAccount",
    "State",
    "bearer_scheme",
    "bearer_token",
    "client_address",
    "current_account",
    "get_manager",
    "get_state",
    "get_store",
    "manager_of",
    "optional_account",
    "presented_bearer",
    "required_bearer",
    "run_db",
    "run_hashing",
    "store_of",
]
