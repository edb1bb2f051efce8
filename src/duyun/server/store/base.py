"""The store's shared core: what every concern of :class:`~duyun.server.store.Store` stands on.

:class:`StoreCore` holds the engine, the session factory, the clock, the config, the house's id
and the token signer, and the writes every concern shares: one transaction
(:meth:`StoreCore._session`), locking accounts, moving coins between them, reading a match or a
hand row (fenced by its lease when writing). The module's functions check arguments and turn
rows into the frozen dataclasses callers get. Coin moves live here, not in the ledger, because
creating an account (its starting balance) and settling a hand move coins as well as a grant.

Each public method of the concerns is one short transaction. Writes that move coins lock the
accounts they touch (``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite every transaction starts
with ``BEGIN IMMEDIATE``, which takes the database's write lock up front) and update balances
with ``balance = balance + :delta``, so two processes settling hands with the same accounts
never lose an update.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar, cast

from sqlalchemy import Connection, Engine, select, update
from sqlalchemy.orm import InstrumentedAttribute, Session, sessionmaker

from duyun.server.store import auth
from duyun.server.store.database import Checkpointer, is_file_sqlite, single_read_options
from duyun.server.store.models import MATCHES, AccountRow, CoinRowModel, HandRow, MatchRow
from duyun.server.store.types import (
    Account,
    AccountKind,
    CoinKind,
    CoinRow,
    ConflictError,
    Lease,
    LeaseLostError,
    NotFoundError,
    StoreConfig,
    StoreError,
)

HOUSE_NAME = "house"
#: the rating shown before an account's first rated match (store/ratings.py ``shown`` of
#: openskill's defaults)
INITIAL_RATING = 1000
_Row = TypeVar("_Row", MatchRow, HandRow)
LIVE_STATUSES = ("open", "playing")
MATCH_END_REASONS = ("completed", "dissolved")
MAX_SEED = 2**63 - 1
#: ids are INTEGER columns (32-bit on PostgreSQL): a larger one can name no row, and the
#: drivers overflow on it
MAX_ID = 2**31 - 1
#: the most rows one listing returns
MAX_LIMIT = 1_000_000


def aware(moment: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; every time the store writes is UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


def clip_text(value: object, limit: int) -> str:
    text_value = str(value)
    return text_value if len(text_value) <= limit else text_value[: limit - 1] + "…"


class AccountFields(Protocol):
    """What :func:`account_of` reads: an ORM row, or a Core row selecting the same columns."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def balance(self) -> int: ...
    @property
    def created(self) -> datetime: ...
    @property
    def rating(self) -> int | None: ...
    @property
    def rated_matches(self) -> int | None: ...


def account_of(row: AccountFields) -> Account:
    return Account(
        id=row.id,
        name=row.name,
        kind=cast(AccountKind, row.kind),
        balance=int(row.balance),
        created=cast(datetime, aware(row.created)),
        rating=INITIAL_RATING if row.rating is None else int(row.rating),
        rated_matches=int(row.rated_matches or 0),
    )


def coin_row_of(row: CoinRowModel) -> CoinRow:
    return CoinRow(
        id=row.id,
        payer=row.payer_id,
        payee=row.payee_id,
        coins=int(row.coins),
        requested=int(row.requested),
        cut=int(row.cut),
        kind=cast(CoinKind, row.kind),
        rule=row.rule,
        note=row.note,
        hand_id=row.hand_id,
        created=cast(datetime, aware(row.created)),
    )


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise StoreError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise StoreError(f"{name} must be {bound}, got {value}")
    return value


def fence(match_id: int, lease: Lease | None, owner: str | None, epoch: int) -> None:
    """:class:`LeaseLostError` unless the match row (read in the writing transaction) still
    names ``lease``'s owner and epoch; no ``lease`` means an unfenced write (tools, tests)."""
    if lease is not None and (owner != lease.owner or epoch != lease.epoch):
        raise LeaseLostError(
            f"match {match_id} is no longer this process's (lease {lease.owner!r} epoch "
            f"{lease.epoch}; stored {owner!r} epoch {epoch}): another process adopted it"
        )


def check_row_id(what: str, row_id: int) -> None:
    """:class:`StoreError` unless ``row_id`` is a positive int; :class:`NotFoundError` naming
    ``what`` when it is past every id (PostgreSQL would refuse to compare it with an INTEGER)."""
    check_int(f"{what} id", row_id, 1)
    if row_id > MAX_ID:
        raise NotFoundError(f"no {what} with id {row_id}")


def get_row(session: Session, model: type[_Row], what: str, row_id: int, lock: bool) -> _Row:
    """The row of ``model`` with id ``row_id`` (locked for this transaction on PostgreSQL when
    ``lock``); :class:`NotFoundError` naming ``what`` when there is none."""
    check_row_id(what, row_id)
    query = select(model).where(model.id == row_id)
    if lock and session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    row = session.scalar(query)
    if row is None:
        raise NotFoundError(f"no {what} with id {row_id}")
    return row


#: keys per ``IN (...)`` of :meth:`StoreCore._locked_rows`: far under every database's limit
#: on bound parameters
KEYS_PER_READ = 500


class StoreCore:
    """The state and the shared writes of the store; the concerns extend it."""

    def __init__(
        self,
        engine: Engine,
        config: StoreConfig,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self.config = config
        #: epoch-seconds clock for the rate limit and leases (tests move it)
        self.clock = clock
        self._hashing = auth.PasswordHashing(config.argon2_time_cost, config.argon2_memory_cost)
        self._postgres = engine.dialect.name == "postgresql"
        #: the options of a connection that runs one reading statement (a hello)
        self._single_read = single_read_options(engine)
        self._house_id: int | None = None
        self._signer: auth.TokenSigner | None = None
        self._checkpointer: Checkpointer | None = None
        if is_file_sqlite(engine):
            self._checkpointer = Checkpointer(engine)
        # SQLite has one writer, and every transaction here starts with BEGIN IMMEDIATE. Left
        # to SQLite, threads of this process that find the lock taken sleep in its busy
        # handler (1, 2, 5, ... up to 100 ms per try) even when the lock is free again a
        # millisecond later: under load that sleep, not the work, was the round trip's p99.
        # A lock in the process hands the database over the moment it is released; the busy
        # timeout remains for another process on the same file. PostgreSQL needs none.
        self._serial: contextlib.AbstractContextManager[Any] = (
            contextlib.nullcontext() if self._postgres else threading.RLock()
        )
        #: the connection the event writer's batches keep between them (taken under
        #: ``_writer_lock``), so that they skip the pool's checkout, its reset and, on
        #: PostgreSQL, its pre-ping (store/events.py)
        self._writer_connection: Connection | None = None
        self._writer_lock = threading.Lock()

    @contextlib.contextmanager
    def _session(self) -> Iterator[Session]:
        """One transaction: committed on success, rolled back on any exception."""
        with self._serial, self._sessions() as session, session.begin():
            yield session

    @property
    def _house(self) -> int:
        assert self._house_id is not None  # set by open()
        return self._house_id

    def _lock_accounts(self, session: Session, ids: Sequence[int]) -> dict[int, AccountRow]:
        """Rows of ``ids``, locked for this transaction (PostgreSQL FOR UPDATE, in id order so
        two transactions cannot deadlock; SQLite holds the database write lock already)."""
        wanted = sorted(set(ids))
        query = select(AccountRow).where(AccountRow.id.in_(wanted)).order_by(AccountRow.id)
        if self._postgres:
            query = query.with_for_update()
        rows = {row.id: row for row in session.scalars(query)}
        missing = [i for i in wanted if i not in rows]
        if missing:
            raise NotFoundError(f"no account with id {missing[0]}")
        return rows

    def _move(
        self,
        session: Session,
        payer: int,
        payee: int,
        coins: int,
        requested: int,
        kind: CoinKind,
        rule: str,
        note: str,
        hand_id: int | None = None,
        seats: tuple[int, int] | None = None,
        deltas: dict[int, int] | None = None,
    ) -> CoinRowModel:
        """Write one coin row and apply it to both balances atomically (balance + delta).

        With ``deltas`` the balance changes are added up there instead, for the caller to
        apply with :meth:`_apply_deltas` once per account: a hand's settlement writes one
        UPDATE per player rather than two per ledger row."""
        row = CoinRowModel(
            payer_id=payer,
            payee_id=payee,
            coins=coins,
            requested=requested,
            cut=requested - coins,
            kind=kind,
            rule=clip_text(rule, 32),
            note=clip_text(note, 255),
            hand_id=hand_id,
            payer_seat=seats[0] if seats else None,
            payee_seat=seats[1] if seats else None,
            created=utcnow(),
        )
        session.add(row)
        if coins and payer != payee:
            pending = {} if deltas is None else deltas
            pending[payer] = pending.get(payer, 0) - coins
            pending[payee] = pending.get(payee, 0) + coins
            if deltas is None:
                self._apply_deltas(session, pending)
        return row

    @staticmethod
    def _apply_deltas(session: Session, deltas: dict[int, int]) -> None:
        for account_id, delta in sorted(deltas.items()):
            if delta:
                session.execute(
                    update(AccountRow)
                    .where(AccountRow.id == account_id)
                    .values(balance=AccountRow.balance + delta)
                    .execution_options(synchronize_session=False)
                )

    @staticmethod
    def _fence_live_match(
        session: Session, match_id: int, lock: bool = False, lease: Lease | None = None
    ) -> int:
        """The match's number of hands; :class:`NotFoundError` when there is no such match,
        :class:`ConflictError` when it is over and :class:`LeaseLostError` when ``lease`` is no
        longer the match's. A fenced read locks the row (PostgreSQL; SQLite holds the write
        lock already), so no adoption can commit between the check and the write.

        It reads the four columns a write checks, not the row as an object: a match's start
        came here for every table a crowd opened, and loading the row (its rules and options
        parsed from JSON into an identity-mapped object) was most of that statement's cost
        (docs/deploy.md, the ninth round)."""
        check_row_id("match", match_id)
        columns = MATCHES.c
        query = select(
            columns.hands, columns.status, columns.lease_owner, columns.lease_epoch
        ).where(columns.id == match_id)
        if (lock or lease is not None) and session.get_bind().dialect.name == "postgresql":
            query = query.with_for_update()
        row = session.execute(query).one_or_none()
        if row is None:
            raise NotFoundError(f"no match with id {match_id}")
        fence(match_id, lease, row.lease_owner, row.lease_epoch)
        if row.status not in LIVE_STATUSES:
            raise ConflictError(f"match {match_id} is over")
        hands: int = row.hands
        return hands

    @staticmethod
    def _locked_rows(
        session: Session, column: InstrumentedAttribute[Any], keys: list[Any]
    ) -> list[Any]:
        """The rows whose ``column`` is one of ``keys`` (sorted), locked for an update in the
        keys' order: :data:`KEYS_PER_READ` keys per statement rather than a round trip per
        row (a heartbeat's tables, docs/deploy.md "the eighth round")."""
        rows: list[Any] = []
        for start in range(0, len(keys), KEYS_PER_READ):
            chunk = keys[start : start + KEYS_PER_READ]
            query = (
                select(column.class_).where(column.in_(chunk)).order_by(column).with_for_update()
            )
            rows.extend(session.scalars(query))
        return rows

    @staticmethod
    def _get_match(session: Session, match_id: int, lock: bool = False) -> MatchRow:
        return get_row(session, MatchRow, "match", match_id, lock)

    @staticmethod
    def _get_hand(session: Session, hand_id: int, lock: bool = False) -> HandRow:
        return get_row(session, HandRow, "hand", hand_id, lock)
