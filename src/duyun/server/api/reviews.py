"""牌譜解析 over REST (issue 36 item 4): ask for 大師's review of a seat in a finished hand,
and poll it until it is done (docs/protocol.md "Reviews").

``POST`` starts a review (or joins the one under way, or returns the stored one); ``GET`` only
reads where it stands. Both are for the hand's players (or anyone, with ``public_replays``),
like the hand's log: a review shows every hand of the hand, as the replay does.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from duyun.server.api.deps import CurrentAccount, Manager, OpenStore, State, run_db
from duyun.server.api.errors import (
    RATE_LIMITED,
    REVIEW_BUSY,
    REVIEWS_OFF,
    ApiError,
    post_refusals,
    refusals,
)
from duyun.server.api.models import ReviewStatus
from duyun.server.api.records import READ_HAND, HandId, readable_log
from duyun.server.reviews import Reviewer, ReviewRefused
from duyun.server.store import Account, HandLog

router = APIRouter()

Seat = Annotated[
    int | None,
    Query(ge=0, le=3, description="the seat to review (default: the caller's seat in the hand)"),
]


def _reviewer(state: Any) -> Reviewer:
    reviewer: Reviewer | None = state.reviewer
    if reviewer is None:
        raise ApiError(503, "starting", "the server is starting")
    return reviewer


def _seat(log: HandLog, account: Account, seat: int | None) -> int:
    """The seat asked for, or the caller's own seat in the hand."""
    if seat is not None:
        return seat
    if account.id in log.seat_accounts:
        return log.seat_accounts.index(account.id)
    raise ApiError(400, "bad_request", "seat: you did not play this hand; name the seat (0-3)")


async def _status(
    reviewer: Reviewer, store: OpenStore, manager: Manager, hand_id: int, seat: int
) -> dict[str, Any] | None:
    stored = await run_db(manager, store.stored_review, hand_id, seat)
    if stored is not None:
        return {"hand_id": hand_id, "seat": seat, "status": "done", "review": stored.review}
    progress = reviewer.progress(hand_id, seat)
    return None if progress is None else {"hand_id": hand_id, "seat": seat, **progress}


@router.get(
    "/api/hands/{hand_id}/review",
    response_model=ReviewStatus,
    response_model_exclude_unset=True,
    responses=refusals(*READ_HAND),
)
async def get_review(
    hand_id: HandId,
    account: CurrentAccount,
    store: OpenStore,
    manager: Manager,
    state: State,
    seat: Seat = None,
) -> dict[str, Any]:
    # where the review of a seat in a finished hand stands (docs/protocol.md "Reviews")
    log = await readable_log(hand_id, account, store, manager, state.config.public_replays)
    chosen = _seat(log, account, seat)
    found = await _status(_reviewer(state), store, manager, hand_id, chosen)
    return found or {"hand_id": hand_id, "seat": chosen, "status": "none"}


@router.post(
    "/api/hands/{hand_id}/review",
    response_model=ReviewStatus,
    response_model_exclude_unset=True,
    responses={
        202: {"model": ReviewStatus, "description": "the review is queued or running"},
        **post_refusals(*READ_HAND, RATE_LIMITED, REVIEW_BUSY, REVIEWS_OFF),
    },
)
async def start_review(
    hand_id: HandId,
    account: CurrentAccount,
    store: OpenStore,
    manager: Manager,
    state: State,
    response: Response,
    seat: Seat = None,
) -> dict[str, Any]:
    # start (or join) 大師's review of a seat in a finished hand; 202 while it runs
    log = await readable_log(hand_id, account, store, manager, state.config.public_replays)
    chosen = _seat(log, account, seat)
    reviewer = _reviewer(state)
    found = await _status(reviewer, store, manager, hand_id, chosen)
    if found is not None and found["status"] in ("done", "queued", "running"):
        response.status_code = 200 if found["status"] == "done" else 202
        return found
    if not reviewer.enabled:
        raise ApiError(503, "reviews_off", "this server does not review hands")
    try:
        reviewer.start(account.id, hand_id, chosen, [dict(e) for e in log.events])
    except ReviewRefused as refused:
        status = 429 if refused.code == "rate_limited" else 503
        raise ApiError(
            status, refused.code, refused.message, retry_after=refused.retry_after
        ) from None
    response.status_code = 202
    progress = reviewer.progress(hand_id, chosen) or {"status": "queued"}
    return {"hand_id": hand_id, "seat": chosen, **progress}


__all__ = ["router"]
