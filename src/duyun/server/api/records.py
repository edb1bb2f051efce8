"""What a player may read back: their match history (戰績), coin ledger and finished hands."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi import Path as PathParam
from fastapi.encoders import jsonable_encoder

from duyun.server.api.deps import CurrentAccount, Manager, OpenStore, State, run_db
from duyun.server.api.errors import (
    HAND_NOT_FINISHED,
    HAND_NOT_FOUND,
    NOT_A_PLAYER,
    STARTING,
    UNAUTHORIZED,
    ApiError,
    refusals,
)
from duyun.server.api.models import HandLogAnswer, History, Ledger
from duyun.server.store import Account, HandLog, MatchRecord, NotFoundError, Store, StoreError
from duyun.server.tables import TableManager

router = APIRouter()

#: ids are positive 64-bit integers (SQLite's and PostgreSQL's bigint)
MAX_ID = 2**63 - 1
HandId = Annotated[int, PathParam(ge=1, le=MAX_ID, description="a hand id")]


def record_json(value: Any) -> Any:
    """A store record (a frozen dataclass) as JSON: dates as ISO text, tuples as lists."""
    return jsonable_encoder(dataclasses.asdict(value))


def history_json(record: MatchRecord) -> dict[str, Any]:
    """A match of the history (戰績) as a player may see it: nothing secret of a hand in play.

    The seed of a hand reproduces its four hands and the wall (R4), so it, the stored result and
    the replay link exist in the answer only once the hand has finished; a hand still being
    played shows its index, dealer, streak and status, and coins that are all zero.
    """
    data: dict[str, Any] = record_json(record)
    for hand in data.get("hand_records", []):
        if hand["status"] == "finished":
            hand["replay"] = f"/api/hands/{hand['hand_id']}/log"
        else:
            hand["seed"] = None
            hand["result"] = None
            hand["replay"] = None
    return data


@router.get("/api/history", response_model=History, responses=refusals(UNAUTHORIZED, STARTING))
async def history(
    account: CurrentAccount,
    store: OpenStore,
    manager: Manager,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    records = await run_db(manager, store.history, account.id, limit)
    return {"matches": [history_json(record) for record in records]}


@router.get("/api/ledger", response_model=Ledger, responses=refusals(UNAUTHORIZED, STARTING))
async def ledger(
    account: CurrentAccount,
    store: OpenStore,
    manager: Manager,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> dict[str, Any]:
    rows = await run_db(manager, store.coin_ledger, account.id, limit)
    return {"balance": account.balance, "rows": [record_json(row) for row in rows]}


async def readable_log(
    hand_id: int, account: Account, store: Store, manager: TableManager, public: bool
) -> HandLog:
    """A finished hand's log if ``account`` may read it: a player of the hand, or anyone once
    the operator allows public replays (config ``public_replays``). Its replay and its review
    (牌譜解析) show every hand of it, so both are guarded by this one check."""
    try:
        log = await run_db(manager, store.hand_log, hand_id)
    except NotFoundError:
        raise ApiError(404, "hand_not_found", f"no hand {hand_id}") from None
    except (StoreError, OverflowError):  # the bounds above should make these unreachable
        raise ApiError(400, "bad_request", f"hand_id: no hand {hand_id}") from None
    if not public and account.id not in log.seat_accounts:
        raise ApiError(403, "not_a_player", "only the hand's players may see its log")
    if log.status != "finished":
        raise ApiError(409, "hand_not_finished", "the hand is still being played")
    return log


#: a finished hand's log and its review: who may read them, and when
READ_HAND = (UNAUTHORIZED, NOT_A_PLAYER, HAND_NOT_FOUND, HAND_NOT_FINISHED, STARTING)


@router.get(
    "/api/hands/{hand_id}/log", response_model=HandLogAnswer, responses=refusals(*READ_HAND)
)
async def hand_log(
    hand_id: HandId, account: CurrentAccount, store: OpenStore, manager: Manager, state: State
) -> dict[str, Any]:
    # a finished hand's whole event log, for its players only (the history's replay); no
    # docstring: it would become the route's OpenAPI description
    log = await readable_log(hand_id, account, store, manager, state.config.public_replays)
    return {
        "hand_id": log.hand_id,
        "match_id": log.match_id,
        "index": log.index,
        "stake": log.stake,
        "seats": list(log.seat_names),
        "events": list(log.events),
        "result": log.result,
    }


__all__ = ["MAX_ID", "READ_HAND", "HandId", "history_json", "readable_log", "record_json", "router"]
