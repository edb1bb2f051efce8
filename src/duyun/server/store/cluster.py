"""What several server processes share beyond matches and coins (issue 24): who is alive and
where it answers, every table's code, and the per-room lock of quick match.

The database is the one shared engine (no cluster protocol between processes): each process
writes a heartbeat row with its public URL, registers every table it opens under a code that is
the primary key of ``table_codes`` (so two processes can never hand out one code), and keeps the
rows' summaries fresh for the shared lobby. A client that reaches the wrong process is told the
owner's address, found from the match lease (``matches.lease_owner``, which an adopter takes
over) or, for a table not yet started, from the code's row.

Functions here take a :class:`~duyun.server.store.Store` and run one short transaction each, like
its methods; they are synchronous (the server calls them in a worker thread).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Double,
    Index,
    Integer,
    String,
    delete,
    false,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from duyun.server.store.database import schema_state
from duyun.server.store.models import Base, MatchRow, MatchSeatRow
from duyun.server.store.store import Store
from duyun.server.store.types import StoreError

#: seconds after its last heartbeat a process counts as gone (leases last 30 s too)
PROCESS_TIMEOUT = 30.0
#: seconds a seat promised to a redirected quick-match player stays promised
RESERVATION_SECONDS = 10.0
#: attempts at a random free code before giving up (a million codes; collisions are rare)
CODE_ATTEMPTS = 50
LIVE = ("open", "playing")


class ProcessRow(Base):
    """One server process: its public address and whether it still takes new tables."""

    __tablename__ = "server_processes"

    owner: Mapped[str] = mapped_column(String(128), primary_key=True)
    url: Mapped[str | None] = mapped_column(String(512), nullable=True)
    heartbeat: Mapped[float] = mapped_column(Double, nullable=False)
    draining: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=false())


class TableCodeRow(Base):
    """A table of some process, waiting or playing; its code is unique across processes."""

    __tablename__ = "table_codes"
    __table_args__ = (
        Index("ix_table_codes_owner", "owner"),
        Index("ix_table_codes_room_status", "room", "status"),
    )

    code: Mapped[str] = mapped_column(String(6), primary_key=True)
    owner: Mapped[str] = mapped_column(String(128), nullable=False)
    match_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    room: Mapped[str | None] = mapped_column(String(64), nullable=True)
    listed: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=false())
    status: Mapped[str] = mapped_column(String(16), nullable=False)
    free: Mapped[int] = mapped_column(Integer, nullable=False, server_default="4")
    humans: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    reserved: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    reserved_until: Mapped[float] = mapped_column(Double, nullable=False, server_default="0")
    summary: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    #: digests of the seated people's addresses (issue 32 fair matching), never shown
    addresses: Mapped[list[str]] = mapped_column(JSON, nullable=False, server_default=text("'[]'"))
    created: Mapped[float] = mapped_column(Double, nullable=False)
    updated: Mapped[float] = mapped_column(Double, nullable=False)


class QueueRoomRow(Base):
    """The lock of one room's quick match (``SELECT ... FOR UPDATE``)."""

    __tablename__ = "quick_queue_rooms"

    room: Mapped[str] = mapped_column(String(64), primary_key=True)


@dataclass(frozen=True, slots=True)
class Location:
    """Where a table lives: the owning process, its public URL (None if it has none or is
    gone) and the table's last published summary."""

    code: str
    owner: str
    url: str | None
    summary: dict[str, Any]


@dataclass(frozen=True, slots=True)
class QuickPick:
    """A quick match's answer: a table ``code`` of process ``owner`` (``url`` None when it is
    this process; ``new`` when this process must open the table under that code), or, with
    ``code`` None, a process at ``url`` to ask instead (this one is draining)."""

    code: str | None
    owner: str | None
    url: str | None
    new: bool


@dataclass(frozen=True, slots=True)
class TableState:
    """What a process publishes of one of its tables."""

    code: str
    match_id: int | None
    kind: str
    room: str | None
    listed: bool
    status: str
    free: int
    humans: int
    summary: Mapping[str, Any]
    #: players who took a seat here by code since the last publish, sent by another process's
    #: quick match: each consumes one of the row's reservations (quick_pick)
    arrived: int = 0
    #: address digests of the people seated (issue 32 fair matching; never published)
    addresses: tuple[str, ...] = ()


def _alive(store: Store) -> Any:
    return ProcessRow.heartbeat >= store.clock() - PROCESS_TIMEOUT


def heartbeat(store: Store, owner: str, url: str | None, draining: bool | None = None) -> bool:
    """Say this process is alive at ``url``; returns its drain flag (``draining`` None keeps the
    stored one, so ``duyun admin drain`` reaches a running process through this row)."""
    with store._session() as session:
        row = session.get(ProcessRow, owner, with_for_update=True)
        if row is None:
            row = ProcessRow(owner=owner, url=url, heartbeat=store.clock(), draining=False)
            session.add(row)
        row.url, row.heartbeat = url, store.clock()
        if draining is not None:
            row.draining = draining
        return bool(row.draining)


def set_draining(store: Store, owner: str, draining: bool = True) -> bool:
    """Mark a process draining (or not); False when no such process ever ran."""
    with store._session() as session:
        done = session.execute(
            update(ProcessRow).where(ProcessRow.owner == owner).values(draining=draining)
        )
        return bool(getattr(done, "rowcount", 0))


def processes(store: Store) -> list[dict[str, Any]]:
    """Every known process: owner, url, seconds since its heartbeat, draining, tables."""
    now = store.clock()
    with store._session() as session:
        rows = session.scalars(select(ProcessRow).order_by(ProcessRow.owner)).all()
        counts: dict[str, int] = {}
        for owner in session.scalars(select(TableCodeRow.owner)):
            counts[owner] = counts.get(owner, 0) + 1
        return [
            {
                "owner": r.owner,
                "url": r.url,
                "age": round(now - r.heartbeat, 1),
                "alive": now - r.heartbeat <= PROCESS_TIMEOUT,
                "draining": r.draining,
                "tables": counts.get(r.owner, 0),
            }
            for r in rows
        ]


def _new_row(store: Store, owner: str, code: str, state: TableState | None) -> TableCodeRow:
    now = store.clock()
    return TableCodeRow(
        code=code,
        owner=owner,
        match_id=state.match_id if state else None,
        kind=state.kind if state else "private",
        room=state.room if state else None,
        listed=state.listed if state else False,
        status=state.status if state else "waiting",
        free=state.free if state else 4,
        humans=state.humans if state else 0,
        reserved=0,
        reserved_until=0.0,
        summary=dict(state.summary) if state else {},
        addresses=sorted(state.addresses) if state else [],
        created=now,
        updated=now,
    )


def reserve_code(
    store: Store, owner: str, state: TableState | None = None, wanted: str | None = None
) -> str:
    """A code no other table of any process holds, registered for ``owner``: ``wanted`` if it
    is free or already this owner's (a restored match keeps its code), else a random one. The
    primary key decides a race; the loser draws again."""
    if wanted is not None:
        with store._session() as session:
            row = session.get(TableCodeRow, wanted, with_for_update=True)
            if row is not None and row.owner == owner:
                return wanted
            if row is not None and (state is None or row.match_id != state.match_id):
                wanted = None  # another table holds it: restore under a new code
            elif row is not None:  # the same match, adopted from a dead process
                row.owner = owner
                return row.code
    for _ in range(CODE_ATTEMPTS):
        code = wanted or f"{secrets.randbelow(1_000_000):06d}"
        wanted = None
        try:
            with store._session() as session:
                session.add(_new_row(store, owner, code, state))
            return code
        except IntegrityError:
            continue
    raise StoreError(f"no free table code after {CODE_ATTEMPTS} attempts")


def publish(
    store: Store, owner: str, tables: Iterable[TableState], unchanged: Set[str] = frozenset()
) -> None:
    """Refresh this process's table rows and drop the rows of its tables that are gone; also
    drop the not-started tables of processes dead for long. ``unchanged``: codes whose state
    is the one published last time (their rows are not written again: a beat of a process
    with hundreds of tables then writes only the few that changed)."""
    now = store.clock()
    states = {t.code: t for t in tables}
    with store._session() as session:
        held = set(session.scalars(select(TableCodeRow.code).where(TableCodeRow.owner == owner)))
        gone = held - set(states)
        if gone:
            session.execute(
                delete(TableCodeRow).where(
                    TableCodeRow.owner == owner, TableCodeRow.code.in_(sorted(gone))
                )
            )
        changed = sorted(code for code in states if code not in held or code not in unchanged)
        # not a round trip per table: seating a crowd changes every table between two beats
        rows = {row.code: row for row in store._locked_rows(session, TableCodeRow.code, changed)}
        for code in changed:
            state, row = states[code], rows.get(code)
            if row is None:
                session.add(_new_row(store, owner, code, state))
                continue
            if row.owner != owner:
                # a match this process adopted: its row still names the dead owner
                if state.match_id is None or row.match_id != state.match_id:
                    continue
                row.owner = owner
            row.match_id, row.status, row.listed = state.match_id, state.status, state.listed
            row.free, row.humans, row.summary = state.free, state.humans, dict(state.summary)
            row.addresses = sorted(state.addresses)
            if state.arrived and row.reserved_until >= now:
                # the new ``free`` counts the players who came on a reservation: the
                # reservation is kept no longer, or quick_pick would count them twice
                row.reserved = max(0, row.reserved - state.arrived)
            row.updated = now
        dead = select(ProcessRow.owner).where(ProcessRow.heartbeat < now - 4 * PROCESS_TIMEOUT)
        session.execute(
            delete(TableCodeRow).where(
                TableCodeRow.owner.in_(dead), TableCodeRow.match_id.is_(None)
            )
        )


def release(store: Store, owner: str, code: str) -> None:
    """Forget one table's row (the table ended)."""
    with store._session() as session:
        session.execute(
            delete(TableCodeRow).where(TableCodeRow.code == code, TableCodeRow.owner == owner)
        )


def _url_of(session: Session, store: Store, owner: str | None) -> str | None:
    if owner is None:
        return None
    row = session.get(ProcessRow, owner)
    if row is None or row.heartbeat < store.clock() - PROCESS_TIMEOUT:
        return None
    return row.url


def locate(store: Store, code: str) -> Location | None:
    """Where table ``code`` lives: the match lease's holder when the match has started (an
    adopter takes the lease over), else the process that registered the code."""
    with store._session() as session:
        row = session.get(TableCodeRow, code)
        if row is None:
            return None
        owner = row.owner
        if row.match_id is not None:
            match = session.get(MatchRow, row.match_id)
            if match is None or match.status not in LIVE:
                return None
            if match.lease_owner is not None and (match.lease_expires or 0) >= store.clock():
                owner = match.lease_owner
        return Location(code, owner, _url_of(session, store, owner), dict(row.summary))


def seat_elsewhere(store: Store, account_id: int) -> Location | None:
    """The live match where ``account_id`` holds a seat, wherever it is played (a reconnect that
    reached another process is sent there)."""
    with store._session() as session:
        match = session.scalar(
            select(MatchRow)
            .join(MatchSeatRow, MatchSeatRow.match_id == MatchRow.id)
            .where(MatchSeatRow.account_id == account_id, MatchRow.status.in_(LIVE))
            .order_by(MatchRow.id.desc())
            .limit(1)
        )
        if match is None or match.code is None or match.lease_owner is None:
            return None
        if (match.lease_expires or 0) < store.clock():
            return None
        row = session.get(TableCodeRow, match.code)
        summary = dict(row.summary) if row is not None and row.match_id == match.id else {}
        return Location(
            match.code, match.lease_owner, _url_of(session, store, match.lease_owner), summary
        )


def lobby(store: Store) -> list[dict[str, Any]]:
    """The open tables of every live process (rooms and listed private tables, waiting), then
    the listed ones being played (to spectate), each with ``url``, its process's address."""
    with store._session() as session:
        rows = session.execute(
            select(TableCodeRow, ProcessRow.url)
            .join(ProcessRow, ProcessRow.owner == TableCodeRow.owner)
            .where(
                _alive(store),
                TableCodeRow.status.in_(("waiting", "playing")),
                (TableCodeRow.kind == "room") | TableCodeRow.listed,
            )
            .order_by(TableCodeRow.status.desc(), TableCodeRow.created)
        ).all()
        return [{**row.summary, "code": row.code, "url": url} for row, url in rows]


def quick_pick(
    store: Store,
    owner: str,
    room: str,
    local_free: Mapping[str, int],
    state: TableState,
    draining: bool = False,
    address: str | None = None,
) -> QuickPick:
    """One room's queue across processes: the waiting table of the room with the most humans
    and a free seat, whichever live process holds it (a seat there is promised for
    RESERVATION_SECONDS); none: a new table of this process, registered under a fresh code in
    the same transaction. The room's row is locked (``FOR UPDATE``) for the whole choice, so
    players asking on different processes at the same moment join one table instead of each
    opening their own. ``local_free``: this process's waiting tables of the room and their free
    seats (its own count is exact; other processes' rows are at most a beat old).
    ``address``: the asking person's address digest; a table where someone of it sits is
    passed over (issue 32 fair matching; None: no such check)."""
    now = store.clock()
    with store._session() as session:
        if session.get(QueueRoomRow, room, with_for_update=True) is None:
            try:
                with session.begin_nested():
                    session.add(QueueRoomRow(room=room))
            except IntegrityError:
                pass
            session.get(QueueRoomRow, room, with_for_update=True)
        rows = session.execute(
            select(TableCodeRow, ProcessRow)
            .join(ProcessRow, ProcessRow.owner == TableCodeRow.owner)
            .where(
                TableCodeRow.kind == "room",
                TableCodeRow.room == room,
                TableCodeRow.status == "waiting",
                _alive(store),
                ProcessRow.draining.is_(False),
            )
            .order_by(TableCodeRow.humans.desc(), TableCodeRow.created)
            .with_for_update(of=TableCodeRow)
        ).all()
        for row, process in rows:
            if address is not None and address in (row.addresses or []):
                continue
            if row.owner == owner:
                if local_free.get(row.code, 0) > 0:
                    return QuickPick(row.code, owner, None, False)
                continue
            promised = row.reserved if row.reserved_until >= now else 0
            if process.url is None or row.free - promised <= 0:
                continue
            row.reserved = promised + 1
            row.reserved_until = now + RESERVATION_SECONDS
            return QuickPick(row.code, row.owner, process.url, False)
        if draining:
            other = session.scalar(
                select(ProcessRow.url)
                .where(
                    _alive(store),
                    ProcessRow.draining.is_(False),
                    ProcessRow.owner != owner,
                    ProcessRow.url.is_not(None),
                )
                .order_by(ProcessRow.heartbeat.desc())
                .limit(1)
            )
            if other is not None:
                return QuickPick(None, None, other, False)
        taken = set(session.scalars(select(TableCodeRow.code)))
        for _ in range(CODE_ATTEMPTS):
            code = f"{secrets.randbelow(1_000_000):06d}"
            if code not in taken:
                break
        else:
            raise StoreError(f"no free table code after {CODE_ATTEMPTS} attempts")
        session.add(_new_row(store, owner, code, state))
        return QuickPick(code, owner, None, True)


def schema_ready(store: Store) -> str | None:
    """None when the database answers and its migrations are at head, else why not (for
    ``/readyz``; :func:`~duyun.server.store.database.schema_state`)."""
    return schema_state(store._engine)


__all__ = [
    "Location",
    "ProcessRow",
    "QueueRoomRow",
    "QuickPick",
    "TableCodeRow",
    "TableState",
    "heartbeat",
    "lobby",
    "locate",
    "processes",
    "publish",
    "quick_pick",
    "release",
    "reserve_code",
    "schema_ready",
    "seat_elsewhere",
    "set_draining",
]
