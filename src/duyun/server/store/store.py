"""The :class:`Store`: every read and write of the online game's database, as one object.

The methods live with their concern (:mod:`~duyun.server.store.accounts`,
:mod:`~duyun.server.store.ledger`, :mod:`~duyun.server.store.matches`,
:mod:`~duyun.server.store.events`, :mod:`~duyun.server.store.leases`,
:mod:`~duyun.server.store.records`, :mod:`~duyun.server.store.reviews`, over
:mod:`~duyun.server.store.base`); this module puts them together and opens the database
(:mod:`~duyun.server.store.database`).

``normalize_url``, ``alembic_config`` and the limits are re-exported here for code written
against this module when it held everything; their homes are ``database`` and ``base``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

from sqlalchemy import bindparam, exists, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from duyun.server.store import auth
from duyun.server.store.accounts import AccountStore, judge_token
from duyun.server.store.base import (
    LIVE_STATUSES,
    MATCH_END_REASONS,
    MAX_ID,
    MAX_LIMIT,
    account_of,
)
from duyun.server.store.bonuses import BonusStore
from duyun.server.store.database import (
    alembic_config,
    check_revision,
    check_sqlite_file,
    make_engine,
    normalize_url,
    one_line,
    sqlite_path,
    upgrade,
)
from duyun.server.store.events import EventLogStore
from duyun.server.store.leases import LeaseStore
from duyun.server.store.ledger import LedgerStore
from duyun.server.store.matches import MatchStore
from duyun.server.store.models import (
    AccountRow,
    MatchRow,
    MatchSeatRow,
    RevokedTokenRow,
    SettingRow,
)
from duyun.server.store.players import PlayerStore
from duyun.server.store.records import RecordStore
from duyun.server.store.reviews import ReviewStore
from duyun.server.store.types import Account, StoreConfig, StoreError

__all__ = [
    "LIVE_STATUSES",
    "MATCH_END_REASONS",
    "MAX_ID",
    "MAX_LIMIT",
    "Store",
    "alembic_config",
    "normalize_url",
    "one_line",
]

#: a ``hello``'s one statement (:meth:`Store.session_of`): the account's row, whether the
#: token was revoked, and the newest live match the account holds a seat of its own in, as
#: :meth:`~duyun.server.store.leases.LeaseStore.live_match_of` finds it; built once, so
#: SQLAlchemy never derives its cache key again
_HELLO = select(
    AccountRow.id,
    AccountRow.name,
    AccountRow.kind,
    AccountRow.balance,
    AccountRow.created,
    AccountRow.rating,
    AccountRow.rated_matches,
    AccountRow.token_generation,
    exists().where(RevokedTokenRow.token_hash == bindparam("digest")).label("revoked"),
    select(MatchSeatRow.match_id)
    .join(MatchRow, MatchRow.id == MatchSeatRow.match_id)
    .where(
        MatchSeatRow.account_id == AccountRow.id,
        MatchSeatRow.forced_tuoguan.is_(False),
        MatchRow.status.in_(LIVE_STATUSES),
    )
    .order_by(MatchRow.id.desc())
    .limit(1)
    .correlate(AccountRow)
    .scalar_subquery()
    .label("live"),
    exists()
    .where(
        MatchSeatRow.account_id == AccountRow.id,
        MatchRow.id == MatchSeatRow.match_id,
        MatchRow.status.in_(LIVE_STATUSES),
    )
    .correlate(AccountRow)
    .label("seated"),
).where(AccountRow.id == bindparam("account_id"))


class HelloSession(NamedTuple):
    """What a ``hello`` learns from :meth:`Store.session_of`."""

    account: Account
    #: the newest live match in which the account still plays its seat (not escaped)
    live: int | None
    #: whether it holds a seat in any live match, one it escaped or left included: only then
    #: may another process host its table, so only then is the shared registry asked where
    #: (on PostgreSQL that question was a seventh of the busy time of seating a crowd)
    seated: bool


class Store(
    LedgerStore,
    BonusStore,
    MatchStore,
    EventLogStore,
    LeaseStore,
    PlayerStore,
    RecordStore,
    ReviewStore,
    AccountStore,
):
    """Thread-safe facade over the database. Create with :meth:`open`."""

    def session_of(self, token: str) -> HelloSession:
        """A websocket's ``hello``: the token's account (:meth:`verify_token`) and the live
        match it still plays a seat in, if any (:meth:`live_match_of`), as one prebuilt
        statement on a bare connection. Seating a crowd is mostly hellos, and three ORM
        queries in a write transaction were the largest part of seating's CPU; a single
        statement is its own consistent read, so SQLite takes no write lock for it (docs/
        deploy.md "Where a process's CPU goes")."""
        account_id, generation = self._token_claims(token)
        parameters = {"account_id": account_id, "digest": auth.token_digest(token)}
        with self._serial, self._engine.connect() as connection:
            row = (
                connection.execution_options(**self._single_read)
                .execute(_HELLO, parameters)
                .first()
            )
        judge_token(
            None if row is None else (row.kind, row.token_generation),
            generation,
            row is not None and bool(row.revoked),
        )
        assert row is not None
        return HelloSession(account_of(row), row.live, bool(row.seated))

    @classmethod
    def open(
        cls,
        database_url: str,
        config: StoreConfig | None = None,
        clock: Callable[[], float] = time.time,
        *,
        migrate: bool = True,
    ) -> Store:
        """Connect, create the database if needed and run Alembic ``upgrade head``.

        A database that is not duyun's -- a file that is not SQLite, or one with tables but no
        duyun schema (another program's) -- is refused with :class:`StoreError` before anything
        is written to it. With ``migrate`` False (``duyun admin audit``) nothing is ever
        written: the database must exist and be at duyun's newest revision.

        ``database_url`` is an SQLAlchemy URL: ``sqlite:///path/duyun.db`` (WAL mode, foreign
        keys on; ``sqlite://`` is a private in-memory database on one shared connection, for
        single-threaded scripts only) or
        ``postgresql+psycopg://user:pw@host/db`` (a bare ``postgresql://`` is read as psycopg 3).
        The first migration creates the house account and the token secret.
        """
        url = normalize_url(database_url)
        where = make_url(url).render_as_string(hide_password=True)
        sqlite_file = sqlite_path(url)
        if sqlite_file is not None:
            check_sqlite_file(sqlite_file, must_exist=not migrate)
        engine = make_engine(url)
        try:
            if sqlite_file is None:
                check_revision(engine, where, must_exist=not migrate)
            if migrate:
                upgrade(engine)
            store = cls(engine, config or StoreConfig(), clock)
            store._load_fixed_rows()
        except DBAPIError as exc:
            engine.dispose()
            raise StoreError(f"cannot open database {where}: {one_line(exc.orig)}") from exc
        except Exception:
            engine.dispose()
            raise
        return store

    def close(self) -> None:
        """Stop the SQLite checkpointer, return the event writer's connection and dispose of
        the connection pool."""
        if self._checkpointer is not None:
            self._checkpointer.stop()
        with self._writer_lock:
            if self._writer_connection is not None:
                self._writer_connection.close()
                self._writer_connection = None
        self._engine.dispose()

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._engine.dialect.name

    def _load_fixed_rows(self) -> None:
        with self._session() as session:
            house = session.scalar(select(AccountRow.id).where(AccountRow.kind == "house"))
            secret = session.scalar(
                select(SettingRow.value).where(SettingRow.key == "token_secret")
            )
        if house is None or secret is None:
            raise StoreError("database is missing the house account or token secret")
        self._house_id = house
        self._signer = auth.TokenSigner(self.config.secret_key or secret, self.config.token_max_age)
