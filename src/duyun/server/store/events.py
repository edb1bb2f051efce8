"""A hand's event log, appended as the hand is played: the hot path of the store (every move of
every table), so :meth:`EventLogStore.append_events_many` writes many tables' moves in one
transaction on a bare connection.

Appends are checked against what is stored (seqs follow on exactly, the hand is playing) and
fenced by the table's :class:`~duyun.server.store.types.Lease`, as every write for a live match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.exc import IntegrityError

from duyun.server.store.base import MAX_ID, StoreCore, check_int, fence
from duyun.server.store.models import HandEventRow, HandRow, MatchRow
from duyun.server.store.types import (
    ConflictError,
    Lease,
    LeaseLostError,
    NotFoundError,
    StoreError,
)

#: what a batch of appends reads first, in one round trip: each hand's status and number of
#: events stored, and its match's lease (the fence). Built once, with the hand ids as an
#: expanding parameter: building the statements and deriving their cache keys on every batch
#: was most of this method's CPU (0.7 -> 0.25 ms per batch on SQLite, benchmarks/bench_append.py;
#: docs/deploy.md "Where a process's CPU goes"); a statement built once keeps its cache key.
_CHECK = (
    select(
        HandRow.id,
        HandRow.status,
        select(func.count())
        .select_from(HandEventRow)
        .where(HandEventRow.hand_id == HandRow.id)
        .scalar_subquery(),
        HandRow.match_id,
        MatchRow.lease_owner,
        MatchRow.lease_epoch,
    )
    .join(MatchRow, MatchRow.id == HandRow.match_id)
    .where(HandRow.id.in_(bindparam("hand_ids", expanding=True)))
    .order_by(MatchRow.id)  # rows are locked in id order, as renewals take them
)
#: PostgreSQL: an adoption (an UPDATE of a match row) waits until the batch commits, so no
#: move is stored after the adopter read the log
_CHECK_LOCKED = _CHECK.with_for_update(read=True, of=MatchRow)
_INSERT = insert(HandEventRow)


class EventLogStore(StoreCore):
    """Appending to hands' event logs."""

    def append_events(
        self,
        hand_id: int,
        first_seq: int,
        events: list[dict[str, Any]],
        lease: Lease | None = None,
    ) -> None:
        """Append events with seq ``first_seq``, ``first_seq + 1``, ... (the hand's log is
        numbered from 0). :class:`ConflictError` if a seq is taken or would leave a gap, or the
        hand is finished; :class:`LeaseLostError` if ``lease`` is no longer the match's; then
        nothing is written."""
        check_int("hand id", hand_id, 1, MAX_ID)
        check_int("first seq", first_seq, 0)
        if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
            raise StoreError("events must be a list of JSON objects")
        if not events:
            return
        try:
            with self._session() as session:
                # one round trip for the checks: this runs for every move of every table
                count = (
                    select(func.count())
                    .select_from(HandEventRow)
                    .where(HandEventRow.hand_id == hand_id)
                    .scalar_subquery()
                )
                query = (
                    select(
                        HandRow.status,
                        count,
                        HandRow.match_id,
                        MatchRow.lease_owner,
                        MatchRow.lease_epoch,
                    )
                    .join(MatchRow, MatchRow.id == HandRow.match_id)
                    .where(HandRow.id == hand_id)
                )
                if self._postgres and lease is not None:
                    # an adoption (an UPDATE of the row) waits until this append commits
                    query = query.with_for_update(read=True, of=MatchRow)
                found = session.execute(query).first()
                if found is None:
                    raise NotFoundError(f"no hand with id {hand_id}")
                status, stored, match_id, owner, epoch = found
                fence(match_id, lease, owner, epoch)
                if status != "playing":
                    raise ConflictError(f"hand {hand_id} is finished; its log is closed")
                if first_seq != stored:
                    raise ConflictError(
                        f"hand {hand_id} has {stored} events; cannot append at seq {first_seq}"
                    )
                session.execute(
                    insert(HandEventRow),
                    [
                        {"hand_id": hand_id, "seq": first_seq + i, "event": e}
                        for i, e in enumerate(events)
                    ],
                )
        except IntegrityError as exc:  # a concurrent writer took the seq
            raise ConflictError(f"hand {hand_id}: seq {first_seq} already written") from exc

    def append_events_many(
        self,
        appends: Sequence[
            tuple[int, int, list[dict[str, Any]]]
            | tuple[int, int, list[dict[str, Any]], Lease | None]
        ],
    ) -> list[StoreError | None]:
        """Several :meth:`append_events` calls -- typically one per table that moved since the
        last write -- in ONE transaction (group commit): under load a commit per move is most
        of the server's database time. Each append is checked as :meth:`append_events` checks
        it, in the order given (two appends of one hand follow each other); the result lists,
        per append, ``None`` when it was written or the error that refused it, and a refused
        append writes nothing while the others are written. An append may carry a fourth
        element, the :class:`Lease` its table holds (:meth:`append_events`' ``lease``).
        """
        results: list[StoreError | None] = [None] * len(appends)
        wanted: list[int] = []
        leases: list[Lease | None] = [a[3] if len(a) > 3 else None for a in appends]
        for position, (hand_id, first_seq, events, *_) in enumerate(appends):
            try:
                check_int("hand id", hand_id, 1, MAX_ID)
                check_int("first seq", first_seq, 0)
                if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
                    raise StoreError("events must be a list of JSON objects")
            except StoreError as exc:
                results[position] = exc
                continue
            if events:
                wanted.append(position)
        if not wanted:
            return results
        try:
            # Core on a bare connection, not an ORM session: this runs for every move of every
            # table, and the session's unit-of-work machinery was most of its cost
            with self._serial, self._engine.begin() as connection:
                hand_ids = sorted({appends[p][0] for p in wanted})
                check = _CHECK_LOCKED if self._postgres else _CHECK
                found: dict[int, tuple[str, int]] = {}
                fences: dict[int, tuple[int, str | None, int]] = {}
                for row in connection.execute(check, {"hand_ids": hand_ids}):
                    found[row[0]] = (row[1], row[2])
                    fences[row[0]] = (row[3], row[4], row[5])
                rows: list[dict[str, Any]] = []
                for position in wanted:
                    hand_id, first_seq, events = appends[position][:3]
                    if hand_id not in found:
                        results[position] = NotFoundError(f"no hand with id {hand_id}")
                        continue
                    status, stored = found[hand_id]
                    match_id, owner, epoch = fences[hand_id]
                    try:
                        fence(match_id, leases[position], owner, epoch)
                    except LeaseLostError as exc:
                        results[position] = exc
                        continue
                    if status != "playing":
                        results[position] = ConflictError(
                            f"hand {hand_id} is finished; its log is closed"
                        )
                    elif first_seq != stored:
                        results[position] = ConflictError(
                            f"hand {hand_id} has {stored} events; cannot append at seq {first_seq}"
                        )
                    else:
                        found[hand_id] = (status, stored + len(events))
                        rows.extend(
                            {"hand_id": hand_id, "seq": first_seq + i, "event": e}
                            for i, e in enumerate(events)
                        )
                if rows:
                    connection.execute(_INSERT, rows)
        except IntegrityError:
            # another process wrote one of these hands' seqs between the check and the insert
            # (a table that changed owner): settle each append on its own, as if sent alone
            for position in wanted:
                hand_id, first_seq, events = appends[position][:3]
                try:
                    self.append_events(hand_id, first_seq, events, leases[position])
                    results[position] = None
                except StoreError as exc:
                    results[position] = exc
        return results
