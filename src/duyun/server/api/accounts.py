"""Accounts and sessions: guest, register, login, logout, me (docs/protocol.md "REST")."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from duyun.server.api.deps import (
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
from duyun.server.api.errors import ApiError
from duyun.server.api.models import Body
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


@router.post("/api/guest")
async def guest(
    state: State, store: OpenStore, manager: Manager, client: ClientAddress
) -> dict[str, Any]:
    state.limits.guests.hit(client)
    account = await run_db(manager, store.create_guest)
    return await _session(manager, store, account)


@router.post("/api/register")
async def register(
    body: Credentials,
    current: OptionalAccount,
    state: State,
    store: OpenStore,
    manager: Manager,
    client: ClientAddress,
) -> dict[str, Any]:
    guest_id = current.id if current is not None and current.kind == "guest" else None
    try:  # cheap checks first: only a registration that will hash a password is counted
        auth.validate_password(body.password, auth.validate_name(body.name))
    except AccountError as error:
        raise ApiError(400, "bad_account", str(error)) from None
    state.limits.registrations.hit(client)
    try:
        account = await run_hashing(store.register, body.name, body.password, guest_id)
    except AccountError as error:
        status, code = (
            (409, "name_taken") if "taken" in str(error).lower() else (400, "bad_account")
        )
        raise ApiError(status, code, str(error)) from None
    except StoreError as error:  # e.g. the guest was deleted meanwhile
        raise ApiError(400, "bad_account", str(error)) from None
    return await _session(manager, store, account)


@router.post("/api/login")
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


@router.post("/api/logout")
async def logout(
    account: CurrentAccount,
    token: BearerToken,
    state: State,
    store: OpenStore,
    manager: Manager,
    body: Logout | None = None,
) -> dict[str, Any]:
    """Revoke the presented token (issue 20 item 15); ``everywhere`` revokes every token of
    the account. A revoked token is refused by REST and the websocket alike."""
    everywhere = body is not None and body.everywhere
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


@router.get("/api/me")
async def me(account: CurrentAccount, manager: Manager) -> dict[str, Any]:
    table = manager.seated.get(account.id)
    return {
        **account_json(account),
        "table": None if table is None else table.code,
        "in_play": manager.seats_in_play(account.id),
    }


__all__ = ["Credentials", "Logout", "account_json", "router"]
