"""Rooms, the lobby, reactions, bot levels, creating a private table and looking one up."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter
from fastapi import Path as PathParam
from pydantic import Field

from duyun.bots import BOT_NAMES, DIFFICULTIES, DIFFICULTY_LEVELS, resolve_bot
from duyun.rules import DUYUN, RuleSet
from duyun.server import protocol
from duyun.server.api.deps import (
    ClientAddress,
    CurrentAccount,
    Manager,
    OpenStore,
    State,
    run_db,
)
from duyun.server.api.errors import (
    DRAINING,
    RATE_LIMITED,
    STARTING,
    TABLE_NOT_FOUND,
    TOO_MANY_TABLES,
    UNAUTHORIZED,
    ApiError,
    post_refusals,
    refusals,
)
from duyun.server.api.models import (
    Body,
    BotLevel,
    CreatedTable,
    Int,
    Lobby,
    Reaction,
    Room,
    TableSummary,
)
from duyun.server.protocol import ProtocolError
from duyun.server.store import cluster as shared
from duyun.server.tables import TableManager

router = APIRouter()

TableCode = Annotated[str, PathParam(pattern=r"^[0-9]{6}$", description="a 6-digit table code")]


#: R40's base points of a private table: Duyun plays 6; 100 is more than any house rule seen
MAX_BASE_POINTS = 100
#: R45's escape penalty in base units: Duyun's is 16
MAX_ESCAPE_PENALTY_UNITS = 100


class RuleOptions(Body):
    """The rule options a table may set (:class:`duyun.rules.RuleSet`, docs/rules.md), each
    optional: the Duyun default otherwise. An unknown option is refused naming it."""

    pass_blocks_ron: bool = DUYUN.pass_blocks_ron
    dead_waits_count: bool = DUYUN.dead_waits_count
    dihu_on_discard: bool = DUYUN.dihu_on_discard
    #: bounded like every number a stranger sends: the points of a hand are fan × base points,
    #: and coins points × stake, which must stay far inside the store's 64-bit integers
    base_points: Int = Field(default=DUYUN.base_points, ge=1, le=MAX_BASE_POINTS)
    escape_penalty_units: Int = Field(
        default=DUYUN.escape_penalty_units, ge=0, le=MAX_ESCAPE_PENALTY_UNITS
    )
    #: R32 is not implemented: ``true`` is refused (by RuleSet, saying so)
    flower_pig: bool = Field(default=DUYUN.flower_pig, json_schema_extra={"enum": [False]})
    bloody_battle: bool = DUYUN.bloody_battle


#: what ``bot`` may name: a difficulty level or a bot (:func:`duyun.bots.resolve_bot`)
BOT_CHOICES: tuple[str, ...] = (*DIFFICULTIES, *BOT_NAMES)


class CreateTable(Body):
    stake: Int = Field(default=1, ge=1, le=1_000_000)
    hands: Int = Field(default=8, ge=1, le=64)
    rules: RuleOptions = Field(default_factory=RuleOptions)
    bots_allowed: bool = True
    #: any text is read, and one not in the enum is refused naming the known ones
    bot: str | None = Field(
        default=None, max_length=64, json_schema_extra={"enum": [*BOT_CHOICES, None]}
    )
    listed: bool = False
    #: may people who do not play at the table watch it (issue 20 item 13)
    spectators: bool = False
    #: the pause after a discard: natural or fixed (docs/protocol.md "Timing", issue 21 item 1)
    claim_pause: Literal["natural", "fixed"] = "natural"
    #: rated when at least two people sit (issue 32); false: the match is never rated
    rated: bool = True


@router.get("/api/rooms", response_model=list[Room], responses=refusals())
async def rooms(state: State) -> list[dict[str, Any]]:
    return [room.to_json() for room in state.config.rooms]


@router.get(
    "/api/lobby",
    response_model=Lobby,
    response_model_exclude_unset=True,
    responses=refusals(STARTING),
)
async def lobby(state: State, store: OpenStore, manager: Manager) -> dict[str, Any]:
    if state.cluster is not None:  # every live process's tables (issue 24 item 2)
        listed = await run_db(manager, shared.lobby, store)
        return {
            "tables": [t for t in listed if t.get("status") == "waiting"],
            "playing": [t for t in listed if t.get("status") == "playing"],
        }
    playing = [
        t.summary()
        for t in manager.tables.values()
        if t.status == "playing" and (t.options.kind == "room" or t.options.listed)
    ]
    return {"tables": manager.lobby(), "playing": playing}


@router.get("/api/reactions", response_model=list[Reaction], responses=refusals())
async def reactions() -> list[dict[str, str]]:
    return [{"id": key, "text": text} for key, text in protocol.REACTIONS]


@router.get("/api/bots", response_model=list[BotLevel], responses=refusals())
async def bots() -> list[dict[str, str]]:
    """The difficulty levels a table can seat (issue 11), weakest first."""
    return [
        {"level": level.key, "bot": level.bot, "label": level.label, "label_zh": level.label_zh}
        for level in DIFFICULTY_LEVELS
    ]


def _check_open_tables(state: State, manager: TableManager, account_id: int) -> None:
    """config ``open_tables_per_account``: its empty tables make room for the new one
    (:meth:`TableManager.close_empty_tables_of`); else ``409 too_many_tables`` naming the
    open ones."""
    cap = state.config.open_tables_per_account
    if not cap:
        return
    manager.close_empty_tables_of(account_id, keep=cap - 1)
    open_codes = manager.open_tables_of(account_id)
    if len(open_codes) >= cap:
        raise ApiError(
            409,
            "too_many_tables",
            f"you already have {len(open_codes)} open tables (the limit is {cap}): "
            f"{', '.join(open_codes)}, each with someone at it; a table closes when its "
            "match ends or after 10 minutes without players",
        )


@router.post(
    "/api/tables",
    status_code=201,
    response_model=CreatedTable,
    response_model_exclude_unset=True,
    responses=post_refusals(UNAUTHORIZED, TOO_MANY_TABLES, RATE_LIMITED, STARTING, DRAINING),
)
async def create_table(
    body: CreateTable,
    account: CurrentAccount,
    state: State,
    manager: Manager,
    client: ClientAddress,
) -> dict[str, Any]:
    try:
        rules = RuleSet.from_mapping(body.rules.model_dump())
    except (ValueError, TypeError) as error:
        raise ApiError(400, "bad_request", f"rules: {error}") from None
    try:  # a bot name or a difficulty level (easy/normal/hard/expert)
        bot = resolve_bot(body.bot or state.config.default_bot)
    except ValueError as error:
        raise ApiError(400, "bad_request", f"bot: {error}") from None
    # (after the checks of the request: an empty table closed for a table never made would
    # be lost for nothing)
    _check_open_tables(state, manager, account.id)
    code = None
    with state.limits.tables.attempt(client):  # only tables that will be created count
        if state.cluster is not None:
            try:
                code = await state.cluster.new_code("private", body.listed)
            except ProtocolError as error:
                raise ApiError(503, error.code, error.message) from None
    table = manager.create_private(
        account,
        code=code,
        stake=body.stake,
        hands=body.hands,
        rules=rules,
        bots_allowed=body.bots_allowed,
        bot=bot,
        listed=body.listed,
        spectators=body.spectators,
        claim_pause=body.claim_pause,
        rated=body.rated,
    )
    return {"code": table.code, "invite": f"/?join={table.code}", "table": table.summary()}


@router.get(
    "/api/tables/{code}",
    response_model=TableSummary,
    response_model_exclude_unset=True,
    responses=refusals(TABLE_NOT_FOUND, RATE_LIMITED, STARTING),
)
async def table_info(
    code: TableCode, state: State, manager: Manager, client: ClientAddress
) -> dict[str, Any]:
    state.limits.code_lookups.hit(client)
    table = manager.tables.get(code)
    if table is None and state.cluster is not None:
        where = await state.cluster.locate(code)
        if where is not None and where.summary:
            return {**where.summary, "code": code, "url": where.url}
    if table is None:
        raise ApiError(404, "table_not_found", f"no table with code {code}")
    if state.cluster is not None:
        return {**table.summary(), "url": state.config.public_url}
    return table.summary()


__all__ = ["BOT_CHOICES", "CreateTable", "RuleOptions", "TableCode", "router"]
