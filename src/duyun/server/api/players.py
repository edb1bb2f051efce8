"""What players read about themselves and each other, and the house's free coins (issue 32):
the daily gift and the top-up, leaderboards, profiles, a guest's display name and the bots'
ratings. docs/protocol.md "REST" lists the routes and their errors."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from fastapi import APIRouter
from fastapi import Path as PathParam

from duyun.server.api.accounts import account_json
from duyun.server.api.deps import ClientAddress, CurrentAccount, Manager, OpenStore, State, run_db
from duyun.server.api.errors import (
    ALREADY_CLAIMED,
    BAD_ACCOUNT,
    NAME_TAKEN,
    NOT_ELIGIBLE,
    NOT_FOUND,
    RATE_LIMITED,
    STARTING,
    UNAUTHORIZED,
    ApiError,
    post_refusals,
    refusals,
)
from duyun.server.api.models import (
    AccountAnswer,
    Body,
    Bonuses,
    BotRatings,
    Claimed,
    Leaderboard,
    ProfileAnswer,
)
from duyun.server.api.records import history_json
from duyun.server.store import (
    AccountError,
    Board,
    BonusRefused,
    BonusState,
    NotFoundError,
    Profile,
    StoreError,
    auth,
)
from duyun.server.store.players import BOARD_SIZE

router = APIRouter()

#: leaderboard answers kept at most (a bounded cache: one per asking account and board)
BOARD_CACHE_SIZE = 10_000
#: matches a profile lists (with links to their hands' replays)
PROFILE_MATCHES = 20
AccountId = Annotated[int, PathParam(ge=1, le=2**31 - 1, description="an account id")]


class NewName(Body):
    """No length bounds here: the name rules (:func:`duyun.server.store.auth.validate_name`)
    say what is wrong; the body-size limit bounds what is read."""

    name: str


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def bonus_json(state: BonusState) -> dict[str, Any]:
    return {
        "kind": state.kind,
        "coins": state.coins,
        "available": state.available,
        "left": state.left,
        "next": _iso(state.next_at),
        "reason": state.reason,
    }


@router.get("/api/bonus", response_model=Bonuses, responses=refusals(UNAUTHORIZED, STARTING))
async def bonus(
    account: CurrentAccount, state: State, store: OpenStore, manager: Manager, client: ClientAddress
) -> dict[str, Any]:
    """What the daily gift and the top-up offer now (the lobby's button)."""
    states = await run_db(manager, store.bonus_states, account.id, client, state.config.economy())
    return {"balance": account.balance, "bonuses": [bonus_json(s) for s in states]}


@router.post(
    "/api/bonus/{kind}",
    response_model=Claimed,
    responses=post_refusals(UNAUTHORIZED, ALREADY_CLAIMED, NOT_ELIGIBLE, STARTING),
)
async def claim(
    kind: Literal["gift", "topup"],
    account: CurrentAccount,
    state: State,
    store: OpenStore,
    manager: Manager,
    client: ClientAddress,
) -> dict[str, Any]:
    try:
        row = await run_db(
            manager, store.claim_bonus, account.id, kind, client, state.config.economy()
        )
    except BonusRefused as error:
        raise ApiError(409, error.code, str(error), extra={"next": _iso(error.next_at)}) from None
    fresh = await run_db(manager, store.account, account.id)
    return {"kind": kind, "coins": row.coins, "balance": fresh.balance, "ledger_id": row.id}


def _week_start(now: float, zone: str) -> datetime:
    """Monday 00:00 of the current week in the economy's time zone, as UTC."""
    here = datetime.fromtimestamp(now, ZoneInfo(zone))
    monday = (here - timedelta(days=here.weekday())).replace(
        hour=0, minute=0, second=0, microsecond=0
    )
    return monday.astimezone(UTC)


def board_json(board: Board) -> dict[str, Any]:
    def line(entry: Any) -> dict[str, Any]:
        return {
            "place": entry.place,
            "account_id": entry.account_id,
            "name": entry.name,
            "value": entry.value,
        }

    return {
        "top": [line(e) for e in board.top],
        "own": None if board.own is None else line(board.own),
    }


@router.get(
    "/api/leaderboard/{board}",
    response_model=Leaderboard,
    response_model_exclude_unset=True,
    responses=refusals(UNAUTHORIZED, STARTING),
)
async def leaderboard(
    board: Literal["rating", "weekly"],
    account: CurrentAccount,
    state: State,
    store: OpenStore,
    manager: Manager,
) -> dict[str, Any]:
    """The top 50 by rating or by coins won in hands this week, and the caller's place;
    reused for ``leaderboard_cache`` seconds."""
    now = time.monotonic()
    if board == "weekly":
        # the week's ranking is read whole, once per cache period, and every player's answer
        # (the top and their own line) comes from it: its cost is the week's ledger rows
        week = state.weekly
        if week is None or now - week[0] >= state.config.leaderboard_cache:
            since = _week_start(store.clock(), state.config.time_zone)
            ranking = await run_db(manager, store.weekly_ranking, since)
            week = state.weekly = (now, since, ranking, {e.account_id: e for e in ranking})
        _, since, ranking, by_account = week
        lines = Board(tuple(ranking[:BOARD_SIZE]), by_account.get(account.id))
        return {"board": board, "since": since.isoformat(), **board_json(lines)}
    key = (board, account.id)
    cached = state.boards.get(key)
    if cached is not None and now - cached[0] < state.config.leaderboard_cache:
        return cached[1]
    found = await run_db(manager, store.rating_board, account.id)
    answer: dict[str, Any] = {"board": board, **board_json(found)}
    if len(state.boards) >= BOARD_CACHE_SIZE:
        horizon = now - state.config.leaderboard_cache
        for stale in [k for k, (at, _) in state.boards.items() if at <= horizon]:
            del state.boards[stale]
        if len(state.boards) >= BOARD_CACHE_SIZE:
            state.boards.clear()
    state.boards[key] = (now, answer)
    return answer


def profile_json(profile: Profile, viewer: int) -> dict[str, Any]:
    data = account_json(profile.account)
    if profile.account.id != viewer:
        data.pop("balance")  # another player's coins are theirs to know
    best = profile.biggest_win
    return {
        **data,
        "rating": profile.account.rating,
        "rated_matches": profile.account.rated_matches,
        "matches": profile.matches,
        "hands": profile.hands,
        "hands_won": profile.hands_won,
        "win_rate": round(profile.hands_won / profile.hands, 4) if profile.hands else None,
        "biggest_win": None
        if best is None
        else {
            "hand_id": best.hand_id,
            "match_id": best.match_id,
            "pattern": best.pattern,
            "fan": best.fan,
            "coins": best.coins,
        },
        "history": [
            {
                "match_id": p.match_id,
                "rating": p.rating,
                "change": p.change,
                "place": p.place,
                "at": p.at.isoformat(),
            }
            for p in profile.history
        ],
    }


async def _profile(
    account_id: int, viewer: int, store: OpenStore, manager: Manager
) -> dict[str, Any]:
    try:
        profile = await run_db(manager, store.profile, account_id)
    except NotFoundError:
        raise ApiError(404, "not_found", f"no player with id {account_id}") from None
    records = await run_db(manager, store.history, account_id, PROFILE_MATCHES)
    matches = []
    for record in records:
        data = history_json(record)
        # replays are for a hand's players only (GET /api/hands/{id}/log refuses others)
        if account_id != viewer and not await _sat_in(store, manager, viewer, record.match_id):
            for hand in data.get("hand_records", []):
                hand["replay"] = None
        matches.append(data)
    return {**profile_json(profile, viewer), "recent": matches}


async def _sat_in(store: OpenStore, manager: Manager, account_id: int, match_id: int) -> bool:
    spec = await run_db(manager, store.match_spec, match_id)
    return any(seat.account_id == account_id for seat in spec.seats)


@router.get(
    "/api/profile",
    response_model=ProfileAnswer,
    response_model_exclude_unset=True,
    responses=refusals(UNAUTHORIZED, STARTING),
)
async def my_profile(account: CurrentAccount, store: OpenStore, manager: Manager) -> dict[str, Any]:
    return await _profile(account.id, account.id, store, manager)


@router.get(
    "/api/profile/{account_id}",
    response_model=ProfileAnswer,
    response_model_exclude_unset=True,
    responses=refusals(UNAUTHORIZED, NOT_FOUND, STARTING),
)
async def profile(
    account_id: AccountId, account: CurrentAccount, store: OpenStore, manager: Manager
) -> dict[str, Any]:
    """Any player's profile; the last matches link to replays only for hands the caller
    played in (the hand log's own rule)."""
    return await _profile(account_id, account.id, store, manager)


@router.post(
    "/api/name",
    response_model=AccountAnswer,
    responses=post_refusals(BAD_ACCOUNT, UNAUTHORIZED, NAME_TAKEN, RATE_LIMITED, STARTING),
)
async def rename(
    body: NewName,
    account: CurrentAccount,
    state: State,
    store: OpenStore,
    manager: Manager,
    client: ClientAddress,
) -> dict[str, Any]:
    """A guest's display name (the registration name rules); tables show it from the next
    table the guest sits at."""
    try:  # cheap checks first: only a rename that will be written is counted
        auth.validate_name(body.name)
    except AccountError as error:
        raise ApiError(400, "bad_account", str(error)) from None
    # a refusal from here on (a taken name, a registered user) is taken back from the count
    with state.limits.renames.attempt(client):
        try:
            renamed = await run_db(manager, store.rename_guest, account.id, body.name)
        except AccountError as error:
            taken = "taken" in str(error)
            status, code = (409, "name_taken") if taken else (400, "bad_account")
            raise ApiError(status, code, str(error)) from None
        except StoreError as error:
            raise ApiError(400, "bad_account", str(error)) from None
    connection = manager.connections.get(account.id)
    if connection is not None and connection.account is not None:
        connection.account = renamed  # its next table shows the new name
    return account_json(renamed)


@router.get("/api/ratings/bots", response_model=BotRatings, responses=refusals(STARTING))
async def bot_ratings(store: OpenStore, manager: Manager) -> dict[str, Any]:
    """Each bot level's rating ("大師 plays at about N")."""
    ratings = await run_db(manager, store.bot_ratings)
    manager.bot_ratings.update(ratings)
    return {"bots": ratings}


__all__ = ["NewName", "bonus_json", "router"]
