"""大師's stored reviews of finished hands (issue 36 item 4): computed once per (hand, seat).

A review takes seconds of CPU and never changes once made, so the server keeps it. Two
processes sharing one database may compute the same review at the same moment (each process
runs a review once, but they do not know of each other's); the first to store it wins and the
second reads the stored one back, so every reader sees the same review.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy.exc import IntegrityError

from duyun.server.store.base import MAX_ID, StoreCore, aware, check_int, utcnow
from duyun.server.store.models import HandReviewRow


@dataclass(frozen=True, slots=True)
class StoredReview:
    """A stored review: its JSON form (docs/review.md) and what it cost."""

    hand_id: int
    seat: int
    samples: int
    seed: int
    review: dict[str, Any]
    cpu_seconds: float
    created: datetime


class ReviewStore(StoreCore):
    def stored_review(self, hand_id: int, seat: int) -> StoredReview | None:
        """The review of ``seat`` in hand ``hand_id``, or None if none was stored."""
        check_int("hand id", hand_id, 1, MAX_ID)
        check_int("seat", seat, 0, 3)
        with self._session() as session:
            row = session.get(HandReviewRow, (hand_id, seat))
            return None if row is None else _stored(row)

    def save_review(
        self,
        hand_id: int,
        seat: int,
        samples: int,
        seed: int,
        review: dict[str, Any],
        cpu_seconds: float,
    ) -> StoredReview:
        """Store a review; if another process stored this (hand, seat) first, keep that one
        and return it (a review is the same whoever computes it)."""
        check_int("hand id", hand_id, 1, MAX_ID)
        check_int("seat", seat, 0, 3)
        with contextlib.suppress(IntegrityError), self._session() as session:
            if session.get(HandReviewRow, (hand_id, seat)) is None:
                session.add(
                    HandReviewRow(
                        hand_id=hand_id,
                        seat=seat,
                        samples=samples,
                        seed=seed,
                        review=review,
                        cpu_seconds=cpu_seconds,
                        created=utcnow(),
                    )
                )
        stored = self.stored_review(hand_id, seat)
        assert stored is not None  # stored above or by the process that won the race
        return stored


def _stored(row: HandReviewRow) -> StoredReview:
    return StoredReview(
        hand_id=row.hand_id,
        seat=row.seat,
        samples=row.samples,
        seed=int(row.seed),
        review=dict(row.review),
        cpu_seconds=float(row.cpu_seconds),
        created=cast(datetime, aware(row.created)),
    )


__all__ = ["ReviewStore", "StoredReview"]
