"""A hand's event log, appended as the hand is played: the hot path of the store (every move of
every table), so :meth:`EventLogStore.append_events_many` writes many tables' moves in one
transaction on the DB-API cursor of a pooled connection.

Appends are checked against what is stored (seqs follow on exactly, the hand is playing) and
fenced by the table's :class:`~duyun.server.store.types.Lease`, as every write for a live match.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from psycopg import ClientCursor, InterfaceError, OperationalError
from psycopg.pq import TransactionStatus
from psycopg.types.json import Json
from sqlalchemy import Connection, func, insert, select
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
#: events stored, and its match's lease (the fence); the rows in match id order, the order in
#: which lease renewals lock them. The SQL is written out for the DB-API cursor of
#: :meth:`EventLogStore.append_events_many`, the hand ids one parameter (a JSON array on
#: SQLite, an array on PostgreSQL) so that the text is the same for any number of hands.
#: Built by SQLAlchemy for every batch, the statement and its cache key were most of the
#: call's CPU; prebuilt, its execution still was (docs/deploy.md "Where a process's CPU goes").
_CHECK_COLUMNS = (
    "SELECT hands.id, hands.status, "
    "(SELECT count(*) FROM hand_events WHERE hand_events.hand_id = hands.id), "
    "hands.match_id, matches.lease_owner, matches.lease_epoch "
    "FROM hands JOIN matches ON matches.id = hands.match_id "
)
_CHECK_SQLITE = (
    _CHECK_COLUMNS + "WHERE hands.id IN (SELECT value FROM json_each(?)) ORDER BY matches.id"
)
#: PostgreSQL: FOR SHARE, so that an adoption (an UPDATE of a match row) waits until the batch
#: commits, and no move is stored after the adopter read the log
_BEGIN_CHECK_POSTGRES = (
    "BEGIN; "
    + _CHECK_COLUMNS
    + "WHERE hands.id = ANY(%s::INTEGER[]) ORDER BY matches.id FOR SHARE OF matches"
)
_INSERT_SQLITE = "INSERT INTO hand_events (hand_id, seq, event) VALUES (?, ?, ?)"
_INSERT_HEAD_POSTGRES = "INSERT INTO hand_events (hand_id, seq, event) VALUES "


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
        batch = _Batch(appends, wanted, leases, sorted({appends[p][0] for p in wanted}), results)
        try:
            if self._postgres:
                self._append_postgres(batch)
            else:
                self._append_sqlite(batch)
        except (IntegrityError, self._engine.dialect.loaded_dbapi.IntegrityError):
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

    # The two methods below run the batch's two statements on the DB-API cursor of a
    # connection the writer keeps between batches rather than through SQLAlchemy's execute:
    # at people's pace each batch is one move, and SQLAlchemy's per-execute work (the compiled
    # statement's expansion of the IN list, parameter and result processing) and then its
    # per-transaction work (the pool's checkout and reset, the begin and commit events) were
    # most of what the batch cost besides the driver (docs/deploy.md "Where a process's CPU
    # goes"). The SQL is the prebuilt _CHECK's (with FOR SHARE on PostgreSQL) and _INSERT's,
    # in one transaction.

    def _append_sqlite(self, batch: _Batch) -> None:
        """The batch in ``BEGIN IMMEDIATE`` (the write lock up front, as every transaction of
        the store on SQLite takes it) on the writer's kept connection, which also skips the
        pool's checkout and the rollback with which the pool resets a returned connection."""
        with self._serial, self._writer_lock:
            if self._writer_connection is None:
                self._writer_connection = self._engine.connect()
            raw: Any = self._writer_connection.connection.dbapi_connection
            cursor = raw.cursor()
            try:
                cursor.execute("BEGIN IMMEDIATE")
                try:
                    found = cursor.execute(_CHECK_SQLITE, (json.dumps(batch.hand_ids),))
                    rows = _judge(batch, found.fetchall())
                    if rows:
                        cursor.executemany(
                            _INSERT_SQLITE,
                            [(hand_id, seq, json.dumps(event)) for hand_id, seq, event in rows],
                        )
                    cursor.execute("COMMIT")
                except BaseException:
                    if raw.in_transaction:
                        raw.rollback()
                    raise
            finally:
                cursor.close()

    def _append_postgres(self, batch: _Batch) -> None:
        """The batch on the writer's kept connection when it is free (the event writer has one
        batch in flight at a time, so it nearly always is), else on one from the pool.

        The kept connection skips the pool's pre-ping, one round trip of every batch. The
        pre-ping's safety stays: a connection found dead by the batch's first message (a
        database restart, a connection the server closed) has written nothing, since that
        message only opens the transaction and reads, so the batch is sent once more on a
        connection from the pool, pre-pinged. A connection lost later, around the COMMIT,
        fails the batch as it would have with the pre-ping."""
        if not self._writer_lock.acquire(blocking=False):
            with self._engine.connect() as connection:
                _batch_postgres(connection, batch)
            return
        try:
            kept = self._writer_connection
            if kept is not None:
                try:
                    _batch_postgres(kept, batch)
                    return
                except _LostBeforeWriting:
                    self._writer_connection = None
                    kept.close()
            self._writer_connection = connection = self._engine.connect()
            try:
                _batch_postgres(connection, batch)
            except _LostBeforeWriting as lost:
                self._writer_connection = None
                connection.close()
                raise lost.error from None
        finally:
            self._writer_lock.release()


@dataclass(slots=True)
class _Batch:
    """One :meth:`EventLogStore.append_events_many` call on its way through the database:
    the appends, the positions of those still to write, each one's lease, the hands they
    touch (sorted) and, per append, its result so far (``None``: written or not judged)."""

    appends: Sequence[tuple[Any, ...]]
    wanted: list[int]
    leases: list[Lease | None]
    hand_ids: list[int]
    results: list[StoreError | None]


class _LostBeforeWriting(Exception):
    """The connection died before the batch's first message had its answer: nothing of the
    batch was written."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def _batch_postgres(connection: Connection, batch: _Batch) -> None:
    """Two round trips instead of four: ``BEGIN`` with the check, then the inserts with
    ``COMMIT``, each pair one message (psycopg's client-side binding, whose simple protocol
    takes several statements). The transaction is spelled out, autocommit on while the batch
    runs, because psycopg's own implicit ``BEGIN`` waits for its answer before the first
    statement goes out."""
    raw: Any = connection.connection.dbapi_connection
    raw.autocommit = True
    first = True
    try:
        with ClientCursor(raw) as cursor:
            cursor.execute(_BEGIN_CHECK_POSTGRES, (batch.hand_ids,))
            first = False
            cursor.nextset()  # BEGIN's result, then the check's
            rows = _judge(batch, cursor.fetchall())
            if rows:
                # a refused insert (a seq taken) skips the COMMIT after it: the transaction
                # is left failed, and rolled back below
                cursor.execute(
                    _INSERT_HEAD_POSTGRES + ", ".join(["(%s, %s, %s)"] * len(rows)) + "; COMMIT",
                    [v for hand_id, seq, e in rows for v in (hand_id, seq, Json(e))],
                )
            else:
                cursor.execute("COMMIT")
    except BaseException as exc:
        if raw.broken or raw.closed:
            connection.invalidate()
            if first and isinstance(exc, (OperationalError, InterfaceError)):
                raise _LostBeforeWriting(exc) from exc
        elif raw.info.transaction_status != TransactionStatus.IDLE:
            raw.rollback()
        raise
    finally:
        if not (raw.broken or raw.closed):
            raw.autocommit = False


def _judge(
    batch: _Batch, found_rows: Sequence[Sequence[Any]]
) -> list[tuple[int, int, dict[str, Any]]]:
    """The checks of :meth:`EventLogStore.append_events`, for each wanted append in order,
    against the check's rows (hand id, status, events stored, match id, lease owner, lease
    epoch): the refusals go to the batch's ``results``, the rows to insert are returned."""
    appends, leases, results = batch.appends, batch.leases, batch.results
    found: dict[int, tuple[str, int]] = {}
    fences: dict[int, tuple[int, str | None, int]] = {}
    for row in found_rows:
        found[row[0]] = (row[1], row[2])
        fences[row[0]] = (row[3], row[4], row[5])
    rows: list[tuple[int, int, dict[str, Any]]] = []
    for position in batch.wanted:
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
            results[position] = ConflictError(f"hand {hand_id} is finished; its log is closed")
        elif first_seq != stored:
            results[position] = ConflictError(
                f"hand {hand_id} has {stored} events; cannot append at seq {first_seq}"
            )
        else:
            found[hand_id] = (status, stored + len(events))
            rows.extend((hand_id, first_seq + i, e) for i, e in enumerate(events))
    return rows
