"""Accounts and sessions: guest, register, login, logout, me (docs/protocol.md "REST")."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from duyun.server.api.deps import (
    OPTIONAL_BEARER,
    BearerToken,
    ClientAddress,
    CurrentAccount,
    Manager,
    OpenStore,
    OptionalAccount,
    State,
    run_db,
    run_hashing,
)
from duyun.server.api.errors import (
    BAD_ACCOUNT,
    BAD_LOGIN,
    NAME_TAKEN,
    RATE_LIMITED,
    STARTING,
    UNAUTHORIZED,
    ApiError,
    post_refusals,
    refusals,
)
from duyun.server.api.models import Body, LoggedOut, Me, Session
from duyun.server.protocol import error_message
from duyun.server.store import (
    Account,
    AccountError,
    AuthError,
    RateLimitedError,
    Store,
    StoreError,
    auth,
)
from duyun.server.tables import TableManager

router = APIRouter()


class Credentials(Body):
    """No length bounds here: a name or password of any bad length is ``bad_account`` (register,
    from :mod:`duyun.server.store.auth`) or ``bad_login`` (login), never a different code by length;
    the body-size limit bounds what is read."""

    name: str
    password: str


class Logout(Body):
    everywhere: bool = False


def account_json(account: Account) -> dict[str, Any]:
    """An account as REST and the websocket's ``welcome`` show it."""
    return {
        "id": account.id,
        "name": account.name,
        "kind": account.kind,
        "balance": account.balance,
        # the skill rating (issue 32): 1000 until the first rated match
        "rating": account.rating,
    }


async def _session(manager: TableManager, store: Store, account: Account) -> dict[str, Any]:
    token = await run_db(manager, store.issue_token, account.id)
    return {"token": token, "account": account_json(account)}


@router.post("/api/guest", response_model=Session, responses=post_refusals(RATE_LIMITED, STARTING))
async def guest(
    state: State, store: OpenStore, manager: Manager, client: ClientAddress
) -> dict[str, Any]:
    # a new guest account with the starting balance, and its token
    state.limits.guests.hit(client)
    account = await run_db(manager, store.create_guest)
    return await _session(manager, store, account)


@router.post(
    "/api/register",
    response_model=Session,
    responses=post_refusals(BAD_ACCOUNT, UNAUTHORIZED, NAME_TAKEN, RATE_LIMITED, STARTING),
    openapi_extra=OPTIONAL_BEARER,
)
async def register(
    body: Credentials,
    current: OptionalAccount,
    state: State,
    store: OpenStore,
    manager: Manager,
    client: ClientAddress,
) -> dict[str, Any]:
    # a new user, or with a guest's token that guest made a user (docs/protocol.md "REST")
    guest_id = current.id if current is not None and current.kind == "guest" else None
    try:  # cheap checks first: only a registration that will hash a password is counted
        auth.validate_password(body.password, auth.validate_name(body.name))
    except AccountError as error:
        raise ApiError(400, "bad_account", str(error)) from None
    # a refusal from here on (a taken name) is taken back from the count too
    with state.limits.registrations.attempt(client):
        try:
            account = await run_hashing(store.register, body.name, body.password, guest_id)
        except AccountError as error:
            taken = "taken" in str(error).lower()
            status, code = (409, "name_taken") if taken else (400, "bad_account")
            raise ApiError(status, code, str(error)) from None
        except StoreError as error:  # e.g. the guest was deleted meanwhile
            raise ApiError(400, "bad_account", str(error)) from None
    return await _session(manager, store, account)


@router.post(
    "/api/login", response_model=Session, responses=post_refusals(BAD_LOGIN, RATE_LIMITED, STARTING)
)
async def login(
    body: Credentials, store: OpenStore, manager: Manager, client: ClientAddress
) -> dict[str, Any]:
    try:
        account = await run_hashing(store.login, body.name, body.password, client)
    except RateLimitedError as error:
        raise ApiError(429, "rate_limited", str(error), retry_after=error.retry_after) from None
    except AuthError as error:
        raise ApiError(401, "bad_login", str(error)) from None
    return await _session(manager, store, account)


@router.post(
    "/api/logout", response_model=LoggedOut, responses=post_refusals(UNAUTHORIZED, STARTING)
)
async def logout(
    account: CurrentAccount,
    token: BearerToken,
    state: State,
    store: OpenStore,
    manager: Manager,
    body: Logout = Logout(),  # noqa: B008 (an immutable default: no body, or {})
) -> dict[str, Any]:
    """Revoke the presented token (issue 20 item 15); ``everywhere`` revokes every token of
    the account. A revoked token is refused by REST and the websocket alike."""
    everywhere = body.everywhere
    try:
        await run_db(manager, store.revoke_token, token, everywhere)
    except AuthError as error:
        raise ApiError(401, "unauthorized", str(error)) from None
    # its open websockets stop too: the socket would otherwise outlive the session
    connection = manager.connections.get(account.id)
    if connection is not None and (everywhere or state.socket_tokens.get(connection) == token):
        connection.send(error_message("unauthorized", "logged out"))
        connection.close(4005, "logged out")
    return {"logged_out": True, "everywhere": everywhere}


@router.get("/api/me", response_model=Me, responses=refusals(UNAUTHORIZED, STARTING))
async def me(account: CurrentAccount, manager: Manager) -> dict[str, Any]:
    table = manager.seated.get(account.id)
    return {
        **account_json(account),
        "table": None if table is None else table.code,
        "in_play": manager.seats_in_play(account.id),
    }


__all__ = ["Credentials", "Logout", "account_json", "router"]
