"""牌譜解析 over REST (issue 36 item 4): ask for 大師's review of a seat in a finished hand,
and poll it until it is done (docs/protocol.md "Reviews").

``POST`` starts a review (or joins the one under way, or returns the stored one); ``GET`` only
reads where it stands. Both are for the hand's players (or anyone, with ``public_replays``),
like the hand's log: a review shows every hand of the hand, as the replay does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Response

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
from duyun.server.store import HandLog, Store
from duyun.server.tables import TableManager

router = APIRouter()

Seat = Annotated[
    int | None,
    Query(ge=0, le=3, description="the seat to review (default: the caller's seat in the hand)"),
]


@dataclass(frozen=True)
class Target:
    """The review a request is about, once the caller may see it: both routes begin here."""

    hand_id: int
    seat: int
    log: HandLog
    reviewer: Reviewer
    store: Store
    manager: TableManager


async def review_target(
    hand_id: HandId,
    account: CurrentAccount,
    store: OpenStore,
    manager: Manager,
    state: State,
    seat: Seat = None,
) -> Target:
    """The hand's log if the caller may read it (a player of the hand, or anyone with
    ``public_replays``), the seat asked for (by default the caller's own) and the reviewer."""
    log = await readable_log(hand_id, account, store, manager, state.config.public_replays)
    if seat is None:
        if account.id not in log.seat_accounts:
            raise ApiError(
                400, "bad_request", "seat: you did not play this hand; name the seat (0-3)"
            )
        seat = log.seat_accounts.index(account.id)
    reviewer: Reviewer | None = state.reviewer
    if reviewer is None:
        raise ApiError(503, "starting", "the server is starting")
    return Target(hand_id, seat, log, reviewer, store, manager)


ReviewTarget = Annotated[Target, Depends(review_target)]


async def _status(target: Target) -> dict[str, Any] | None:
    """The stored review, or where its computation stands in this process."""
    where = {"hand_id": target.hand_id, "seat": target.seat}
    # where the computation stands is read BEFORE the store: a review that ends while the
    # store is read is stored before its job is dropped, so one of the two answers; read the
    # other way round, a poll at that moment saw neither and said "none" (a CI dry run did)
    progress = target.reviewer.progress(target.hand_id, target.seat)
    stored = await run_db(target.manager, target.store.stored_review, target.hand_id, target.seat)
    if stored is not None:
        return {**where, "status": "done", "review": stored.review}
    return None if progress is None else {**where, **progress}


@router.get(
    "/api/hands/{hand_id}/review",
    response_model=ReviewStatus,
    response_model_exclude_unset=True,
    responses=refusals(*READ_HAND),
)
async def get_review(target: ReviewTarget) -> dict[str, Any]:
    # where the review of a seat in a finished hand stands (docs/protocol.md "Reviews")
    found = await _status(target)
    return found or {"hand_id": target.hand_id, "seat": target.seat, "status": "none"}


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
    target: ReviewTarget, account: CurrentAccount, response: Response
) -> dict[str, Any]:
    # start (or join) 大師's review of a seat in a finished hand; 202 while it runs
    found = await _status(target)
    if found is not None and found["status"] in ("done", "queued", "running"):
        response.status_code = 200 if found["status"] == "done" else 202
        return found
    reviewer = target.reviewer
    if not reviewer.enabled:
        raise ApiError(503, "reviews_off", "this server does not review hands")
    events = [dict(event) for event in target.log.events]
    try:
        reviewer.start(account.id, target.hand_id, target.seat, events)
    except ReviewRefused as refused:
        status = 429 if refused.code == "rate_limited" else 503
        raise ApiError(
            status, refused.code, refused.message, retry_after=refused.retry_after
        ) from None
    response.status_code = 202
    progress = reviewer.progress(target.hand_id, target.seat) or {"status": "queued"}
    return {"hand_id": target.hand_id, "seat": target.seat, **progress}


__all__ = ["router"]
