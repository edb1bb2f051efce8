"""The :class:`Store`: every read and write of the online game's database.

Each public method is one short transaction. Writes that move coins lock the accounts they touch
(``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite every transaction starts with ``BEGIN
IMMEDIATE``, which takes the database's write lock up front) and update balances with
``balance = balance + :delta``, so two processes settling hands with the same accounts never
lose an update.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, cast

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import (
    Engine,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from duyun.engine import Payment
from duyun.server.store import auth
from duyun.server.store.models import (
    AccountRow,
    CoinRowModel,
    HandEventRow,
    HandRow,
    LoginAttemptRow,
    MatchRow,
    MatchSeatRow,
    RevokedTokenRow,
    SettingRow,
)
from duyun.server.store.types import (
    SEATS,
    Account,
    AccountError,
    AccountKind,
    AuditReport,
    AuthError,
    CoinKind,
    CoinRow,
    ConflictError,
    HandLog,
    HandRecord,
    HandStatus,
    HouseReport,
    Lease,
    LeaseLostError,
    LiveHand,
    LiveMatch,
    MatchKind,
    MatchRecord,
    MatchSpec,
    MatchStatus,
    NotFoundError,
    RateLimitedError,
    SeatSpec,
    StoreConfig,
    StoreError,
)

HOUSE_NAME = "house"
_Row = TypeVar("_Row", MatchRow, HandRow)
LIVE_STATUSES = ("open", "playing")
MATCH_END_REASONS = ("completed", "dissolved")
# PostgreSQL advisory lock key that serialises concurrent `upgrade head` runs of several processes
_MIGRATION_LOCK_KEY = 0x6475_7975_6E00  # "duyun\0"
#: the first key of the two-key advisory locks that serialise logins per name and per address
_LOGIN_NAME_LOCK = 0x6475_6E01
_LOGIN_CLIENT_LOCK = 0x6475_6E02
_MAX_SEED = 2**63 - 1
#: ids are INTEGER columns (32-bit on PostgreSQL): a larger one can name no row, and the
#: drivers overflow on it
MAX_ID = 2**31 - 1
#: the most rows one listing returns
MAX_LIMIT = 1_000_000


def normalize_url(database_url: str) -> str:
    """Accept ``postgresql://`` / ``postgres://`` as psycopg 3 URLs (the only driver we ship);
    :class:`StoreError` for a URL SQLAlchemy cannot parse or a database we do not support."""
    if not isinstance(database_url, str) or not database_url.strip():
        raise StoreError("database URL is empty")
    try:
        url = make_url(database_url.strip())
    except Exception as exc:  # sqlalchemy.exc.ArgumentError and friends
        raise StoreError(f"cannot parse database URL {database_url!r}: {exc}") from exc
    backend = url.get_backend_name()
    if backend in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    elif backend != "sqlite":
        raise StoreError(f"unsupported database {backend!r}: use sqlite:/// or postgresql://")
    return url.render_as_string(hide_password=False)


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; every time the store writes is UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def _now() -> datetime:
    return datetime.now(UTC)


def _clip_text(value: object, limit: int) -> str:
    text_value = str(value)
    return text_value if len(text_value) <= limit else text_value[: limit - 1] + "…"


def _account(row: AccountRow) -> Account:
    return Account(
        id=row.id,
        name=row.name,
        kind=cast(AccountKind, row.kind),
        balance=int(row.balance),
        created=cast(datetime, _aware(row.created)),
    )


def _coin_row(row: CoinRowModel) -> CoinRow:
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
        created=cast(datetime, _aware(row.created)),
    )


def _check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise StoreError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise StoreError(f"{name} must be {bound}, got {value}")
    return value


def _fence(match_id: int, lease: Lease | None, owner: str | None, epoch: int) -> None:
    """:class:`LeaseLostError` unless the match row (read in the writing transaction) still
    names ``lease``'s owner and epoch; no ``lease`` means an unfenced write (tools, tests)."""
    if lease is not None and (owner != lease.owner or epoch != lease.epoch):
        raise LeaseLostError(
            f"match {match_id} is no longer this process's (lease {lease.owner!r} epoch "
            f"{lease.epoch}; stored {owner!r} epoch {epoch}): another process adopted it"
        )


class Store:
    """Thread-safe facade over the database. Create with :meth:`open`."""

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
        self._house_id: int | None = None
        self._signer: auth.TokenSigner | None = None
        self._checkpointer: _Checkpointer | None = None
        if _is_file_sqlite(engine):
            self._checkpointer = _Checkpointer(engine)
        # SQLite has one writer, and every transaction here starts with BEGIN IMMEDIATE. Left
        # to SQLite, threads of this process that find the lock taken sleep in its busy
        # handler (1, 2, 5, ... up to 100 ms per try) even when the lock is free again a
        # millisecond later: under load that sleep, not the work, was the round trip's p99.
        # A lock in the process hands the database over the moment it is released; the busy
        # timeout remains for another process on the same file. PostgreSQL needs none.
        self._serial: contextlib.AbstractContextManager[Any] = (
            contextlib.nullcontext() if self._postgres else threading.RLock()
        )

    # ---------------------------------------------------------------- lifecycle
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
        sqlite_file = _sqlite_path(url)
        if sqlite_file is not None:
            _check_sqlite_file(sqlite_file, must_exist=not migrate)
        engine = _create_engine(url)
        try:
            if sqlite_file is None:
                _check_revision(engine, where, must_exist=not migrate)
            if migrate:
                _upgrade(engine)
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
        """Stop the SQLite checkpointer and dispose of the connection pool."""
        if self._checkpointer is not None:
            self._checkpointer.stop()
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
            rule=_clip_text(rule, 32),
            note=_clip_text(note, 255),
            hand_id=hand_id,
            payer_seat=seats[0] if seats else None,
            payee_seat=seats[1] if seats else None,
            created=_now(),
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

    # ---------------------------------------------------------------- accounts and auth
    def _new_account(
        self, session: Session, name: str, kind: AccountKind, password_hash: str | None
    ) -> AccountRow:
        row = AccountRow(
            name=name,
            name_key=auth.name_key(name),
            kind=kind,
            password_hash=password_hash,
            balance=0,
            created=_now(),
        )
        session.add(row)
        session.flush()
        if self.config.starting_balance > 0:
            amount = self.config.starting_balance
            self._lock_accounts(session, [self._house, row.id])
            self._move(session, self._house, row.id, amount, amount, "starting", "", "welcome")
        return row

    def create_guest(self) -> Account:
        """A new guest account (name ``guest-XXXXXX``) with the starting balance granted."""
        for _ in range(20):
            name = f"guest-{secrets.randbelow(10**6):06d}"
            try:
                with self._session() as session:
                    row = self._new_account(session, name, "guest", None)
                    session.flush()
                    session.refresh(row)
                    return _account(row)
            except IntegrityError:
                continue  # the random name was taken: draw another
        raise StoreError("could not find a free guest name; try again")

    def register(self, name: str, password: str, guest_id: int | None = None) -> Account:
        """A new user account; with ``guest_id``, that guest becomes the user (keeping its coins
        and history). :class:`AccountError` names what is wrong (taken, too short, bad chars)."""
        cleaned = auth.validate_name(name)
        auth.validate_password(password, cleaned)
        password_hash = self._hashing.hash(password)
        key = auth.name_key(cleaned)
        try:
            with self._session() as session:
                if session.scalar(select(AccountRow.id).where(AccountRow.name_key == key)):
                    raise AccountError(f"name {cleaned!r} is taken")
                if guest_id is None:
                    row = self._new_account(session, cleaned, "user", password_hash)
                else:
                    found = session.get(AccountRow, guest_id)
                    if found is None:
                        raise NotFoundError(f"no account with id {guest_id}")
                    if found.kind != "guest":
                        raise AccountError("only a guest account can be registered")
                    found.name, found.name_key = cleaned, key
                    found.kind, found.password_hash = "user", password_hash
                    row = found
                session.flush()
                session.refresh(row)
                return _account(row)
        except IntegrityError as exc:  # a concurrent registration won the name
            raise AccountError(f"name {cleaned!r} is taken") from exc

    def login(self, name: str, password: str, client: str | None = None) -> Account:
        """Check a password. :class:`AuthError` on a wrong name or password,
        :class:`RateLimitedError` when this name or ``client`` address failed too often."""
        if not isinstance(name, str) or not isinstance(password, str):
            raise AuthError("name and password must be text")
        key = auth.name_key(name.strip())[:40]
        client = client[:64] if client else None
        now = self.clock()
        window = self.config.login_window
        with self._session() as session:
            if self._postgres:
                # attempts on one name or from one address take turns (SQLite: the whole
                # database does), so each sees the attempt rows of those before it
                for namespace, value in ((_LOGIN_NAME_LOCK, key), (_LOGIN_CLIENT_LOCK, client)):
                    if value:
                        session.execute(
                            text("SELECT pg_advisory_xact_lock(:namespace, hashtext(:value))"),
                            {"namespace": namespace, "value": value},
                        )
            session.execute(delete(LoginAttemptRow).where(LoginAttemptRow.at <= now - window))
            by_name = list(
                session.scalars(
                    select(LoginAttemptRow.at).where(
                        LoginAttemptRow.name_key == key, LoginAttemptRow.at > now - window
                    )
                )
            )
            wait = auth.retry_after(by_name, self.config.login_max_failures_per_name, window, now)
            if client and not wait:
                by_client = list(
                    session.scalars(
                        select(LoginAttemptRow.at).where(
                            LoginAttemptRow.client == client, LoginAttemptRow.at > now - window
                        )
                    )
                )
                wait = auth.retry_after(
                    by_client, self.config.login_max_failures_per_client, window, now
                )
            if wait:
                raise RateLimitedError(
                    f"too many failed logins; try again in {int(wait) + 1} s", retry_after=wait
                )
            row = session.scalar(select(AccountRow).where(AccountRow.name_key == key))
            stored = row.password_hash if row is not None and row.kind == "user" else None
            # counted as failed until the password proves right: attempts made at the same
            # moment each see the others, so none slips past the limit while argon2 runs
            session.add(LoginAttemptRow(name_key=key, client=client, at=now))
        # argon2 work happens outside any transaction: it is slow on purpose
        ok = self._hashing.verify(stored, password)
        rehashed = (
            self._hashing.hash(password)
            if ok and stored and self._hashing.needs_rehash(stored)
            else None
        )
        with self._session() as session:
            if not ok or row is None:
                raise_after = True  # its attempt row stays
            else:
                session.execute(delete(LoginAttemptRow).where(LoginAttemptRow.name_key == key))
                if rehashed is not None:  # the configured cost changed since it was hashed
                    session.execute(
                        update(AccountRow)
                        .where(AccountRow.id == row.id)
                        .values(password_hash=rehashed)
                    )
                raise_after = False
        if raise_after:
            raise AuthError("wrong name or password")
        assert row is not None
        return self.account(row.id)

    def issue_token(self, account_id: int) -> str:
        """A signed session token for the account (expires after ``token_max_age``)."""
        _check_int("account id", account_id, 1)
        with self._session() as session:
            row = session.get(AccountRow, account_id)
            if row is None:
                raise NotFoundError(f"no account with id {account_id}")
            if row.kind == "house":
                raise AuthError("the house account cannot log in")
            generation = row.token_generation
        assert self._signer is not None
        return self._signer.issue(account_id, generation)

    def verify_token(self, token: str) -> Account:
        """The account a token was issued for; :class:`AuthError` if forged, expired or
        revoked (logged out, or issued before a "log out everywhere")."""
        assert self._signer is not None
        account_id, generation, _ = self._signer.claims(token)
        if account_id < 1 or account_id > _MAX_SEED:
            raise AuthError("session token invalid")
        with self._session() as session:
            row = session.get(AccountRow, account_id)
            if row is None:
                raise AuthError("session token names no account")
            if row.kind == "house":
                raise AuthError("session token invalid")
            revoked = session.get(RevokedTokenRow, auth.token_digest(token))
            if generation != row.token_generation or revoked is not None:
                raise AuthError("session token revoked (logged out); log in again")
            return _account(row)

    def revoke_token(self, token: str, everywhere: bool = False) -> None:
        """Log out: refuse ``token`` from now on; with ``everywhere``, every token of its
        account issued so far. :class:`AuthError` if the token is not valid now."""
        self.verify_token(token)
        assert self._signer is not None
        account_id, _, issued = self._signer.claims(token)
        now = time.time()
        if everywhere:
            with self._session() as session:
                session.execute(
                    update(AccountRow)
                    .where(AccountRow.id == account_id)
                    .values(token_generation=AccountRow.token_generation + 1)
                )
            return
        digest = auth.token_digest(token)
        with contextlib.suppress(IntegrityError), self._session() as session:
            # a concurrent logout of the same token may have stored it first: that is fine
            session.execute(delete(RevokedTokenRow).where(RevokedTokenRow.expires <= now))
            if session.get(RevokedTokenRow, digest) is None:
                session.add(
                    RevokedTokenRow(token_hash=digest, expires=issued + self._signer.max_age + 1)
                )

    def account(self, account_id: int) -> Account:
        """:class:`NotFoundError` if there is no such account."""
        _check_int("account id", account_id, 1, MAX_ID)
        with self._session() as session:
            row = session.get(AccountRow, account_id)
            if row is None:
                raise NotFoundError(f"no account with id {account_id}")
            return _account(row)

    def balances(self, account_ids: Sequence[int]) -> dict[int, int]:
        """Balances of several accounts in one read (a table refreshes its players' after
        every hand). :class:`NotFoundError` names the first id that does not exist."""
        for account_id in account_ids:
            _check_int("account id", account_id, 1, MAX_ID)
        wanted = sorted(set(account_ids))
        with self._session() as session:
            found = dict(
                session.execute(
                    select(AccountRow.id, AccountRow.balance).where(AccountRow.id.in_(wanted))
                ).all()
            )
        missing = [i for i in wanted if i not in found]
        if missing:
            raise NotFoundError(f"no account with id {missing[0]}")
        return {int(i): int(b) for i, b in found.items()}

    def account_by_name(self, name: str) -> Account:
        """:class:`NotFoundError` if there is no such account (names compare casefolded)."""
        if not isinstance(name, str):
            raise StoreError(f"name must be text, got {name!r}")
        with self._session() as session:
            row = session.scalar(
                select(AccountRow).where(AccountRow.name_key == auth.name_key(name.strip()))
            )
            if row is None:
                raise NotFoundError(f"no player named {name!r}")
            return _account(row)

    def accounts(self, kind: str | None = None, limit: int = 1000) -> list[Account]:
        """Accounts ordered by id, optionally only one kind."""
        if kind is not None and kind not in ("guest", "user", "house"):
            raise StoreError(f"account kind must be guest, user or house, not {kind!r}")
        _check_int("limit", limit, 1, MAX_LIMIT)
        query = select(AccountRow).order_by(AccountRow.id).limit(limit)
        if kind is not None:
            query = query.where(AccountRow.kind == kind)
        with self._session() as session:
            return [_account(row) for row in session.scalars(query)]

    def house(self) -> Account:
        """The house account: bots' seats pay and are paid through it; it funds grants."""
        return self.account(self._house)

    # ---------------------------------------------------------------- coins
    def grant(self, account_id: int, coins: int, note: str) -> CoinRow:
        """House → player, ``coins`` > 0, one ledgered row."""
        _check_int("coins", coins, 1, 10**15)
        _check_int("account id", account_id, 1, MAX_ID)
        if account_id == self._house:
            raise StoreError("cannot grant coins to the house itself")
        with self._session() as session:
            self._lock_accounts(session, [self._house, account_id])
            row = self._move(
                session, self._house, account_id, coins, coins, "grant", "", note or "grant"
            )
            session.flush()
            return _coin_row(row)

    def coin_ledger(self, account_id: int, limit: int = 200) -> list[CoinRow]:
        """The account's rows, newest first."""
        _check_int("limit", limit, 1, MAX_LIMIT)
        self.account(account_id)  # NotFoundError for an unknown id
        with self._session() as session:
            rows = session.scalars(
                select(CoinRowModel)
                .where(
                    or_(CoinRowModel.payer_id == account_id, CoinRowModel.payee_id == account_id)
                )
                .order_by(CoinRowModel.id.desc())
                .limit(limit)
            )
            return [_coin_row(row) for row in rows]

    def check_zero_sum(self) -> int:
        """Sum of all coin rows' signed amounts: every row adds ``coins`` to its payee and
        subtracts it from its payer, so this is 0 unless a balance was changed outside the
        ledger (it sums the balances, which must equal the rows). See :meth:`audit`."""
        with self._session() as session:
            return int(session.scalar(select(func.coalesce(func.sum(AccountRow.balance), 0))) or 0)

    def audit(self) -> AuditReport:
        """The sum of all balances (0 when sound: coins are only ever moved, never created) and
        every account whose balance differs from the sum of its ledger rows."""
        with self._session() as session:
            received = dict(
                session.execute(
                    select(CoinRowModel.payee_id, func.sum(CoinRowModel.coins)).group_by(
                        CoinRowModel.payee_id
                    )
                ).all()
            )
            paid = dict(
                session.execute(
                    select(CoinRowModel.payer_id, func.sum(CoinRowModel.coins)).group_by(
                        CoinRowModel.payer_id
                    )
                ).all()
            )
            rows = int(session.scalar(select(func.count(CoinRowModel.id))) or 0)
            mismatches = []
            total = 0
            count = 0
            for account_id, name, balance in session.execute(
                select(AccountRow.id, AccountRow.name, AccountRow.balance).order_by(AccountRow.id)
            ):
                count += 1
                total += int(balance)
                ledger = int(received.get(account_id) or 0) - int(paid.get(account_id) or 0)
                if ledger != int(balance):
                    mismatches.append((account_id, name, int(balance), ledger))
            settlements, hands = self._audit_settlements(session)
        return AuditReport(
            ledger_sum=total,
            rows=rows,
            accounts=count,
            mismatches=tuple(mismatches),
            settlements=tuple(settlements),
            hands=hands,
        )

    @staticmethod
    def _audit_settlements(session: Session) -> tuple[list[tuple[int, str]], int]:
        """Every hand settled exactly once (R41): a hand's coin rows are written with its
        result by one :meth:`finish_hand`, so what each seat was asked to pay or receive adds
        up to the result's ``totals`` × stake. Rows of a hand still playing, rows naming no
        hand, or twice (or none of) the totals are reported. Returns them and the number of
        hands checked."""
        nets: dict[int | None, list[int]] = {}
        for hand_id, payer_seat, payee_seat, requested in session.execute(
            select(
                CoinRowModel.hand_id,
                CoinRowModel.payer_seat,
                CoinRowModel.payee_seat,
                CoinRowModel.requested,
            ).where(CoinRowModel.kind == "hand")
        ):
            net = nets.setdefault(hand_id, [0] * SEATS)
            if payer_seat is not None and payee_seat is not None:
                net[payer_seat] -= int(requested)
                net[payee_seat] += int(requested)
        problems: list[tuple[int, str]] = []
        if None in nets:
            problems.append((0, "hand coin rows that name no hand"))
        hands = 0
        for hand_id, status, result, stake in session.execute(
            select(HandRow.id, HandRow.status, HandRow.result, MatchRow.stake)
            .join(MatchRow, MatchRow.id == HandRow.match_id)
            .order_by(HandRow.id)
        ):
            hands += 1
            rows_of_hand = nets.get(hand_id)
            if status != "finished":
                if rows_of_hand is not None:
                    problems.append((hand_id, "coin rows for a hand that is not finished"))
                continue
            totals = result.get("totals") if isinstance(result, dict) else None
            if not isinstance(totals, list) or len(totals) != SEATS:
                continue  # no stored totals to check against
            expected = [int(points) * int(stake) for points in totals]
            found = rows_of_hand or [0] * SEATS
            if found != expected:
                copies = next((n for n in range(2, 5) if found == [n * e for e in expected]), None)
                what = f"settled {copies} times" if copies else "not settled as its result says"
                problems.append(
                    (hand_id, f"{what}: coin rows {found}, result totals × stake {expected}")
                )
        return problems, hands

    def house_report(self) -> HouseReport:
        """The house's balance, coins granted out and net from hands."""
        house = self._house
        with self._session() as session:
            granted = session.scalar(
                select(func.coalesce(func.sum(CoinRowModel.coins), 0)).where(
                    CoinRowModel.payer_id == house, CoinRowModel.kind.in_(("starting", "grant"))
                )
            )
            won = session.scalar(
                select(func.coalesce(func.sum(CoinRowModel.coins), 0)).where(
                    CoinRowModel.payee_id == house, CoinRowModel.kind == "hand"
                )
            )
            lost = session.scalar(
                select(func.coalesce(func.sum(CoinRowModel.coins), 0)).where(
                    CoinRowModel.payer_id == house, CoinRowModel.kind == "hand"
                )
            )
            played = session.scalar(
                select(func.count(func.distinct(CoinRowModel.hand_id))).where(
                    CoinRowModel.kind == "hand",
                    or_(CoinRowModel.payer_id == house, CoinRowModel.payee_id == house),
                )
            )
            balance = session.scalar(select(AccountRow.balance).where(AccountRow.id == house))
        return HouseReport(
            balance=int(balance or 0),
            granted=int(granted or 0),
            hands_net=int(won or 0) - int(lost or 0),
            hands_played=int(played or 0),
        )

    # ---------------------------------------------------------------- matches and hands
    def _check_seats(self, session: Session, seats: Sequence[SeatSpec]) -> None:
        if len(seats) != SEATS:
            raise StoreError(f"a match has {SEATS} seats, got {len(seats)}")
        humans = [s.account_id for s in seats if s.account_id is not None]
        if len(set(humans)) != len(humans):
            raise StoreError("one account cannot sit at two seats of a match")
        for account_id in humans:
            row = session.get(AccountRow, account_id)
            if row is None:
                raise NotFoundError(f"no account with id {account_id}")
            if row.kind == "house":
                raise StoreError("the house sits as bots (account_id None), not by id")

    def create_match(self, spec: MatchSpec, owner: str | None = None) -> int:
        """Store a new match (status ``playing``); with ``owner``, that process holds its lease
        for 30 s (renew with :meth:`renew_leases`)."""
        if spec.kind not in ("room", "private"):
            raise StoreError(f"match kind must be room or private, not {spec.kind!r}")
        _check_int("stake", spec.stake, 0, 10**9)
        _check_int("hands", spec.hands, 1, 10_000)
        _check_int("seed", spec.seed, 0, _MAX_SEED)
        _check_int("first dealer", spec.first_dealer, 0, SEATS - 1)
        with self._session() as session:
            self._check_seats(session, spec.seats)
            row = MatchRow(
                kind=spec.kind,
                room=_clip_text(spec.room, 64),
                code=spec.code,
                stake=spec.stake,
                hands=spec.hands,
                seed=spec.seed,
                first_dealer=spec.first_dealer,
                rules=dict(spec.rules),
                options=dict(spec.options),
                status="playing",
                created=_now(),
                lease_owner=owner,
                lease_expires=self.clock() + 30.0 if owner else None,
            )
            session.add(row)
            session.flush()
            for seat, seat_spec in enumerate(spec.seats):
                session.add(
                    MatchSeatRow(
                        match_id=row.id,
                        seat=seat,
                        account_id=seat_spec.account_id,
                        bot=seat_spec.bot,
                    )
                )
            return row.id

    def update_seats(
        self, match_id: int, seats: Sequence[SeatSpec], lease: Lease | None = None
    ) -> None:
        """Replace the seats of a match that has not started a hand yet."""
        with self._session() as session:
            self._get_live_match(session, match_id, lease=lease)
            if session.scalar(select(HandRow.id).where(HandRow.match_id == match_id).limit(1)):
                raise ConflictError(f"match {match_id} has started; its seats are fixed")
            self._check_seats(session, seats)
            session.execute(delete(MatchSeatRow).where(MatchSeatRow.match_id == match_id))
            session.flush()
            for seat, seat_spec in enumerate(seats):
                session.add(
                    MatchSeatRow(
                        match_id=match_id,
                        seat=seat,
                        account_id=seat_spec.account_id,
                        bot=seat_spec.bot,
                    )
                )

    def mark_forced_tuoguan(self, match_id: int, seat: int, lease: Lease | None = None) -> None:
        """Record that a live match's human seat escaped (R45) or left: 托管 to the end. A
        restarted server reads it back in the match's spec and neither waits for the player
        nor charges a second escape."""
        _check_int("seat", seat, 0)
        if seat >= SEATS:
            raise StoreError(f"seat must be 0-{SEATS - 1}, not {seat}")
        with self._session() as session:
            self._get_live_match(session, match_id, lease=lease)
            row = session.get(MatchSeatRow, (match_id, seat))
            if row is None or row.account_id is None:
                raise StoreError(f"seat {seat} of match {match_id} is not a player's seat")
            row.forced_tuoguan = True

    @classmethod
    def _get_live_match(
        cls, session: Session, match_id: int, lock: bool = False, lease: Lease | None = None
    ) -> MatchRow:
        """:meth:`_get_match`, :class:`ConflictError` when the match is over and
        :class:`LeaseLostError` when ``lease`` is no longer the match's. A fenced read locks
        the row (PostgreSQL; SQLite holds the write lock already), so no adoption can commit
        between the check and the write."""
        match = cls._get_match(session, match_id, lock or lease is not None)
        _fence(match_id, lease, match.lease_owner, match.lease_epoch)
        if match.status not in LIVE_STATUSES:
            raise ConflictError(f"match {match_id} is over")
        return match

    @staticmethod
    def _get_match(session: Session, match_id: int, lock: bool = False) -> MatchRow:
        return _get_row(session, MatchRow, "match", match_id, lock)

    @staticmethod
    def _get_hand(session: Session, hand_id: int, lock: bool = False) -> HandRow:
        return _get_row(session, HandRow, "hand", hand_id, lock)

    def start_hand(
        self,
        match_id: int,
        index: int,
        seed: int,
        dealer: int,
        streak: int,
        lease: Lease | None = None,
    ) -> int:
        """Store a new hand of a match; returns its id. :class:`ConflictError` if that index
        exists already, is past the match's hands, or another hand is still playing."""
        _check_int("seed", seed, 0, _MAX_SEED)
        _check_int("dealer", dealer, 0, SEATS - 1)
        _check_int("streak", streak, 0)
        _check_int("hand index", index, 0)
        try:
            with self._session() as session:
                match = self._get_live_match(session, match_id, lock=True, lease=lease)
                if index >= match.hands:
                    raise ConflictError(f"match {match_id} has only {match.hands} hands")
                playing = session.scalar(
                    select(HandRow.id).where(
                        HandRow.match_id == match_id, HandRow.status == "playing"
                    )
                )
                if playing is not None:
                    raise ConflictError(f"hand {playing} of match {match_id} is still playing")
                row = HandRow(
                    match_id=match_id,
                    index=index,
                    seed=seed,
                    dealer=dealer,
                    streak=streak,
                    status="playing",
                    created=_now(),
                )
                session.add(row)
                session.flush()
                return row.id
        except IntegrityError as exc:
            raise ConflictError(f"match {match_id} already has hand {index}") from exc

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
        _check_int("hand id", hand_id, 1, MAX_ID)
        _check_int("first seq", first_seq, 0)
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
                _fence(match_id, lease, owner, epoch)
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
                _check_int("hand id", hand_id, 1, MAX_ID)
                _check_int("first seq", first_seq, 0)
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
                count = (
                    select(func.count())
                    .select_from(HandEventRow)
                    .where(HandEventRow.hand_id == HandRow.id)
                    .scalar_subquery()
                )
                hand_ids = sorted({appends[p][0] for p in wanted})
                query = (
                    select(
                        HandRow.id,
                        HandRow.status,
                        count,
                        HandRow.match_id,
                        MatchRow.lease_owner,
                        MatchRow.lease_epoch,
                    )
                    .join(MatchRow, MatchRow.id == HandRow.match_id)
                    .where(HandRow.id.in_(hand_ids))
                    .order_by(MatchRow.id)  # rows are locked in id order, as renewals take them
                )
                if self._postgres:
                    # an adoption (an UPDATE of a match row) waits until this batch commits,
                    # so no move is stored after the adopter read the log
                    query = query.with_for_update(read=True, of=MatchRow)
                found: dict[int, tuple[str, int]] = {}
                fences: dict[int, tuple[int, str | None, int]] = {}
                for row in connection.execute(query):
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
                        _fence(match_id, leases[position], owner, epoch)
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
                    connection.execute(insert(HandEventRow), rows)
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

    def finish_hand(
        self,
        hand_id: int,
        payments: Sequence[Payment],
        result: dict[str, Any],
        lease: Lease | None = None,
    ) -> list[CoinRow]:
        """Settle a hand in ONE transaction: one coin row per engine payment in ledger order
        (points × stake, R41; bot seats through the house; a human payer cut to what they
        still hold at that row, the cut recorded), balances updated, the hand marked finished
        with ``result`` stored. Any error leaves nothing written.

        A row between two bot seats is house → house: recorded (so every engine row has its
        coin row) but it moves nothing.
        """
        if not isinstance(result, dict):
            raise StoreError("result must be a JSON object")
        for i, payment in enumerate(payments):
            if not isinstance(payment, Payment):
                raise StoreError(f"payment {i} is not an engine Payment: {payment!r}")
            if not (0 <= payment.payer < SEATS and 0 <= payment.payee < SEATS):
                raise StoreError(f"payment {i} names a seat outside 0..3: {payment}")
            if payment.points < 0:
                raise StoreError(f"payment {i} has negative points: {payment}")
        with self._session() as session:
            # the match row first, then the hand's: the order every write takes them (the
            # writer's FOR SHARE of matches, then the hand row its events' foreign key locks),
            # so a settlement and a batch of moves can never deadlock
            _check_int("hand id", hand_id, 1, MAX_ID)
            # a column, not the row: the row is read (fresh) only once it is locked below
            match_id = session.scalar(select(HandRow.match_id).where(HandRow.id == hand_id))
            if match_id is None:
                raise NotFoundError(f"no hand with id {hand_id}")
            match = self._get_match(session, match_id, lock=True)
            hand = self._get_hand(session, hand_id, lock=True)
            _fence(match.id, lease, match.lease_owner, match.lease_epoch)
            if hand.status != "playing":
                raise ConflictError(f"hand {hand_id} is already finished")
            seats = self._seat_accounts(session, match.id)
            accounts = self._lock_accounts(session, [self._house, *seats])
            balances = {i: int(row.balance) for i, row in accounts.items()}
            written: list[CoinRowModel] = []
            deltas: dict[int, int] = {}
            for payment in payments:
                payer, payee = seats[payment.payer], seats[payment.payee]
                requested = payment.points * int(match.stake)
                coins = requested
                if accounts[payer].kind != "house":
                    coins = min(requested, max(0, balances[payer]))  # never below zero
                balances[payer] -= coins
                balances[payee] += coins
                written.append(
                    self._move(
                        session,
                        payer,
                        payee,
                        coins,
                        requested,
                        "hand",
                        payment.rule,
                        payment.reason,
                        hand_id=hand_id,
                        seats=(payment.payer, payment.payee),
                        deltas=deltas,
                    )
                )
            session.flush()
            self._apply_deltas(session, deltas)
            self._mark_finished(session, hand, result)
            return [_coin_row(row) for row in written]

    def _mark_finished(self, session: Session, hand: HandRow, result: dict[str, Any]) -> None:
        hand.status = "finished"
        hand.result = result
        hand.finished = _now()
        session.flush()

    def _seat_accounts(self, session: Session, match_id: int) -> list[int]:
        """Account paying/paid for each seat: the human's, or the house for a bot."""
        rows = session.scalars(
            select(MatchSeatRow)
            .where(MatchSeatRow.match_id == match_id)
            .order_by(MatchSeatRow.seat)
        ).all()
        if len(rows) != SEATS:
            raise StoreError(f"match {match_id} has {len(rows)} seats stored, not {SEATS}")
        return [row.account_id if row.account_id is not None else self._house for row in rows]

    def finish_match(self, match_id: int, reason: str, lease: Lease | None = None) -> None:
        """Mark a match over: ``completed`` or ``dissolved``; releases its lease."""
        if reason not in MATCH_END_REASONS:
            raise StoreError(f"a match ends completed or dissolved, not {reason!r}")
        with self._session() as session:
            match = self._get_match(session, match_id, lock=True)
            _fence(match_id, lease, match.lease_owner, match.lease_epoch)
            if match.status not in LIVE_STATUSES:
                raise ConflictError(f"match {match_id} is already {match.status}")
            playing = session.scalar(
                select(HandRow.id).where(HandRow.match_id == match_id, HandRow.status == "playing")
            )
            if playing is not None:
                raise ConflictError(f"hand {playing} of match {match_id} is still playing")
            match.status = reason
            match.reason = reason
            match.finished = _now()
            match.lease_owner = None
            match.lease_expires = None

    # ---------------------------------------------------------------- restore and leases
    def live_matches(
        self, owner: str | None = None, lease_seconds: float = 30.0, include_own: bool = True
    ) -> list[LiveMatch]:
        """Unfinished matches with their unfinished hand's events (to restore tables).

        Without ``owner``: all of them (one server process). With ``owner``: only those whose
        lease is free, expired or (with ``include_own``, as at a restart) already ``owner``'s,
        and the lease is taken for ``owner``. A running process that adopts the matches of a
        dead one calls it periodically with ``include_own=False``, so it never gets back the
        tables it is running."""
        with self._session() as session:
            query = select(MatchRow.id).where(MatchRow.status.in_(LIVE_STATUSES))
            if owner is not None and not include_own:
                query = query.where(
                    or_(MatchRow.lease_owner.is_(None), MatchRow.lease_owner != owner)
                )
            ids = list(session.scalars(query.order_by(MatchRow.id)))
        if owner is not None:
            ids = [i for i in ids if self._claim(i, owner, lease_seconds, include_own)]
        return [self._live_match(i) for i in ids]

    def live_match(
        self, match_id: int, owner: str | None = None, lease_seconds: float = 30.0
    ) -> LiveMatch | None:
        """One live match, as :meth:`live_matches` gives it with ``include_own``, its lease
        taken anew (a new epoch); None when another process holds it or the match is over. A
        table reloading its match after a write conflict calls it, so what its old incarnation
        still had in flight is refused."""
        _check_int("match id", match_id, 1, MAX_ID)
        if owner is not None:
            if not self._claim(match_id, owner, lease_seconds, True):
                return None
        else:  # a lone process without an owner name: a new epoch all the same
            with self._session() as session:
                session.execute(
                    update(MatchRow)
                    .where(MatchRow.id == match_id, MatchRow.lease_owner.is_(None))
                    .values(lease_epoch=MatchRow.lease_epoch + 1)
                    .execution_options(synchronize_session=False)
                )
        with self._session() as session:
            if self._get_match(session, match_id).status not in LIVE_STATUSES:
                return None
        return self._live_match(match_id)

    def _claim(self, match_id: int, owner: str, lease_seconds: float, include_own: bool) -> bool:
        """Take the lease if it is free or expired (or ours): one conditional UPDATE, so two
        processes can never both take one match."""
        now = self.clock()
        takeable = [MatchRow.lease_owner.is_(None), MatchRow.lease_expires < now]
        if include_own:
            takeable.append(MatchRow.lease_owner == owner)
        with self._session() as session:
            claimed = session.execute(
                update(MatchRow)
                .where(
                    MatchRow.id == match_id,
                    MatchRow.status.in_(LIVE_STATUSES),
                    or_(*takeable),
                )
                # a new epoch: writes of whoever held it before are refused from now on
                .values(
                    lease_owner=owner,
                    lease_expires=now + lease_seconds,
                    lease_epoch=MatchRow.lease_epoch + 1,
                )
                .execution_options(synchronize_session=False)
            )
            return bool(getattr(claimed, "rowcount", 0))

    def _live_match(self, match_id: int) -> LiveMatch:
        with self._session() as session:
            match = self._get_match(session, match_id)
            records = self._hand_records(session, match_id)
            playing = next((r for r in records if r.status == "playing"), None)
            hand = None
            if playing is not None:
                events = session.scalars(
                    select(HandEventRow.event)
                    .where(HandEventRow.hand_id == playing.hand_id)
                    .order_by(HandEventRow.seq)
                ).all()
                hand = LiveHand(
                    hand_id=playing.hand_id,
                    index=playing.index,
                    seed=playing.seed,
                    dealer=playing.dealer,
                    streak=playing.streak,
                    events=tuple(events),
                )
            return LiveMatch(
                match_id=match_id,
                spec=self._spec(session, match),
                status=cast(MatchStatus, match.status),
                finished_hands=tuple(r for r in records if r.status == "finished"),
                hand=hand,
                lease=Lease(match.lease_owner, match.lease_epoch),
            )

    def renew_leases(self, owner: str, lease_seconds: float = 30.0) -> list[int]:
        """Extend every lease ``owner`` still holds and return those match ids.

        A lease that expired but was not taken is still ``owner``'s and is renewed (a process
        that was slow to renew keeps its tables); a match another process took over is missing
        from the answer, and its table must stop here. One ``UPDATE ... RETURNING``, so the
        answer is exactly what was renewed."""
        now = self.clock()
        with self._session() as session:
            if self._postgres:
                # the rows in id order first, as a batch of moves takes them (FOR SHARE):
                # two transactions locking several matches in different orders could deadlock
                session.execute(
                    select(MatchRow.id)
                    .where(MatchRow.lease_owner == owner, MatchRow.status.in_(LIVE_STATUSES))
                    .order_by(MatchRow.id)
                    .with_for_update()
                )
            held = session.scalars(
                update(MatchRow)
                .where(MatchRow.lease_owner == owner, MatchRow.status.in_(LIVE_STATUSES))
                .values(lease_expires=now + lease_seconds)
                .returning(MatchRow.id)
                .execution_options(synchronize_session=False)
            ).all()
            return sorted(held)

    def release_leases(self, owner: str) -> None:
        """Give up every lease ``owner`` holds (clean shutdown: others may restore at once)."""
        with self._session() as session:
            session.execute(
                update(MatchRow)
                .where(MatchRow.lease_owner == owner)
                .values(lease_owner=None, lease_expires=None)
                .execution_options(synchronize_session=False)
            )

    def live_match_of(self, account_id: int) -> int | None:
        """The newest live match in which the account still plays its seat (not escaped), if
        any: a client this process has no table for keeps retrying while there is one."""
        with self._session() as session:
            found: int | None = session.scalar(
                select(MatchSeatRow.match_id)
                .join(MatchRow, MatchRow.id == MatchSeatRow.match_id)
                .where(
                    MatchSeatRow.account_id == account_id,
                    MatchSeatRow.forced_tuoguan.is_(False),
                    MatchRow.status.in_(LIVE_STATUSES),
                )
                .order_by(MatchRow.id.desc())
                .limit(1)
            )
            return found

    def match_owner(self, match_id: int) -> str | None:
        """The process holding a live match's unexpired lease, if any (for routing)."""
        with self._session() as session:
            match = self._get_match(session, match_id)
            if match.status not in LIVE_STATUSES or match.lease_expires is None:
                return None
            return match.lease_owner if match.lease_expires >= self.clock() else None

    # ---------------------------------------------------------------- records
    def _spec(self, session: Session, match: MatchRow) -> MatchSpec:
        seats = session.scalars(
            select(MatchSeatRow)
            .where(MatchSeatRow.match_id == match.id)
            .order_by(MatchSeatRow.seat)
        ).all()
        return MatchSpec(
            kind=cast(MatchKind, match.kind),
            room=match.room,
            stake=int(match.stake),
            hands=match.hands,
            seats=tuple(
                SeatSpec(account_id=s.account_id, bot=s.bot, forced_tuoguan=s.forced_tuoguan)
                for s in seats
            ),
            seed=int(match.seed),
            code=match.code,
            first_dealer=match.first_dealer,
            rules=dict(match.rules),
            options=dict(match.options),
        )

    def _hand_records(self, session: Session, match_id: int) -> list[HandRecord]:
        hands = session.scalars(
            select(HandRow).where(HandRow.match_id == match_id).order_by(HandRow.index)
        ).all()
        coins: dict[int, list[int]] = {h.id: [0] * SEATS for h in hands}
        if hands:
            for hand_id, payer_seat, payee_seat, amount in session.execute(
                select(
                    CoinRowModel.hand_id,
                    CoinRowModel.payer_seat,
                    CoinRowModel.payee_seat,
                    CoinRowModel.coins,
                ).where(CoinRowModel.hand_id.in_([h.id for h in hands]))
            ):
                if hand_id is None or payer_seat is None or payee_seat is None:
                    continue
                coins[hand_id][payer_seat] -= int(amount)
                coins[hand_id][payee_seat] += int(amount)
        return [
            HandRecord(
                hand_id=h.id,
                index=h.index,
                seed=int(h.seed),
                dealer=h.dealer,
                streak=h.streak,
                status=cast(HandStatus, h.status),
                result=h.result,
                coins=tuple(coins[h.id]),
            )
            for h in hands
        ]

    def _seat_names(self, session: Session, match_id: int) -> tuple[str, ...]:
        names = []
        for seat in session.scalars(
            select(MatchSeatRow)
            .where(MatchSeatRow.match_id == match_id)
            .order_by(MatchSeatRow.seat)
        ):
            if seat.account_id is None:
                names.append(f"bot:{seat.bot or 'bot'}")
            else:
                account = session.get(AccountRow, seat.account_id)
                names.append(account.name if account is not None else "?")
        return tuple(names)

    def history(self, account_id: int, limit: int = 50) -> list[MatchRecord]:
        """The account's matches (戰績), newest first, with per-hand results and coins."""
        _check_int("limit", limit, 1, MAX_LIMIT)
        self.account(account_id)
        with self._session() as session:
            sat = session.execute(
                select(MatchSeatRow.match_id, MatchSeatRow.seat)
                .where(MatchSeatRow.account_id == account_id)
                .order_by(MatchSeatRow.match_id.desc())
                .limit(limit)
            )
            records = []
            for match_id, seat in list(sat):
                match = self._get_match(session, match_id)
                hands = self._hand_records(session, match_id)
                records.append(
                    MatchRecord(
                        match_id=match_id,
                        kind=cast(MatchKind, match.kind),
                        room=match.room,
                        code=match.code,
                        stake=int(match.stake),
                        hands=match.hands,
                        status=cast(MatchStatus, match.status),
                        reason=match.reason,
                        created=cast(datetime, _aware(match.created)),
                        finished=_aware(match.finished),
                        seat=seat,
                        seat_names=self._seat_names(session, match_id),
                        hand_records=tuple(hands),
                        coins=sum(h.coins[seat] for h in hands),
                    )
                )
            return records

    def hand_log(self, hand_id: int) -> HandLog:
        """A hand's events and seats, for replays."""
        with self._session() as session:
            hand = self._get_hand(session, hand_id)
            match = self._get_match(session, hand.match_id)
            events = session.scalars(
                select(HandEventRow.event)
                .where(HandEventRow.hand_id == hand_id)
                .order_by(HandEventRow.seq)
            ).all()
            seats = session.scalars(
                select(MatchSeatRow.account_id)
                .where(MatchSeatRow.match_id == match.id)
                .order_by(MatchSeatRow.seat)
            ).all()
            return HandLog(
                hand_id=hand.id,
                match_id=match.id,
                index=hand.index,
                seed=int(hand.seed),
                dealer=hand.dealer,
                streak=hand.streak,
                status=cast(HandStatus, hand.status),
                stake=int(match.stake),
                rules=dict(match.rules),
                seat_names=self._seat_names(session, match.id),
                seat_accounts=tuple(seats),
                events=tuple(events),
                result=hand.result,
            )

    def match_spec(self, match_id: int) -> MatchSpec:
        """The stored spec of a match."""
        with self._session() as session:
            return self._spec(session, self._get_match(session, match_id))


def _get_row(session: Session, model: type[_Row], what: str, row_id: int, lock: bool) -> _Row:
    """The row of ``model`` with id ``row_id`` (locked for this transaction on PostgreSQL when
    ``lock``); :class:`NotFoundError` naming ``what`` when there is none."""
    _check_int(f"{what} id", row_id, 1)
    if row_id > MAX_ID:  # no row has it; PostgreSQL would refuse to compare it with an INTEGER
        raise NotFoundError(f"no {what} with id {row_id}")
    query = select(model).where(model.id == row_id)
    if lock and session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    row = session.scalar(query)
    if row is None:
        raise NotFoundError(f"no {what} with id {row_id}")
    return row


# -------------------------------------------------------------------- engine and migrations
def one_line(error: object) -> str:
    """A driver's message (psycopg's span lines) as one line."""
    return " ".join(str(error).split())


def _sqlite_path(url: str) -> Path | None:
    """The file of an SQLite URL; None for PostgreSQL and in-memory SQLite."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database or "")


def _duyun_revisions() -> tuple[set[str], str | None]:
    script = ScriptDirectory.from_config(alembic_config())
    return {r.revision for r in script.walk_revisions()}, script.get_current_head()


def _judge(where: str, tables: set[str], revision: str | None, must_exist: bool) -> None:
    """:class:`StoreError` unless the tables found are duyun's (or none, when a new database
    may be created): another program's database is never migrated into."""
    known, head = _duyun_revisions()
    if revision is None:
        if tables:
            listed = ", ".join(sorted(tables)[:5])
            raise StoreError(
                f"{where} is not a duyun database: it has other tables ({listed}) and no duyun "
                "schema"
            )
        if must_exist:
            raise StoreError(f"{where} is not a duyun database: it is empty")
        return
    if revision not in known:
        raise StoreError(
            f"{where} is not a duyun database: its schema revision {revision!r} is not duyun's"
        )
    if must_exist and revision != head:
        raise StoreError(
            f"{where} is at duyun schema revision {revision}, not the newest ({head}): run "
            "`duyun serve` on it once to migrate it, then audit"
        )


def _check_sqlite_file(path: Path, *, must_exist: bool) -> None:
    """Look at an SQLite file read-only (nothing created, nothing converted to WAL) before the
    engine opens it: the folder exists, the file is SQLite, its tables are duyun's."""
    if not path.parent.is_dir():
        raise StoreError(f"cannot create database {path}: folder {path.parent} does not exist")
    if path.is_dir():
        raise StoreError(f"database path {path} is a folder, not a file")
    if not path.exists():
        if must_exist:
            raise StoreError(f"no database file {path}")
        return
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {
                row[0]
                for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            revision = None
            if "alembic_version" in tables:
                found = connection.execute("SELECT version_num FROM alembic_version").fetchone()
                revision = str(found[0]) if found else None
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"{path} is not a duyun database: not an SQLite file ({one_line(exc)})"
        ) from None
    _judge(str(path), tables - {"alembic_version"}, revision, must_exist)


def _check_revision(engine: Engine, where: str, *, must_exist: bool) -> None:
    """PostgreSQL: :func:`_judge` the database's tables before anything is migrated."""
    with engine.connect() as connection:
        tables = set(inspect(connection).get_table_names())
        revision = None
        if "alembic_version" in tables:
            revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    _judge(where, tables - {"alembic_version"}, revision, must_exist)


def _create_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        memory = make_url(url).database in (None, "", ":memory:")
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 60},
            poolclass=StaticPool if memory else None,
        )

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            # take transaction control from pysqlite so BEGIN IMMEDIATE below is the only BEGIN
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=60000")
            if not memory:
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
                # no checkpoint inside a commit: its fsync would stall the table that happened
                # to commit then (hundreds of ms on a disk); _Checkpointer runs them instead
                cursor.execute("PRAGMA wal_autocheckpoint=0")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Any) -> None:
            # the write lock up front: no read-then-upgrade deadlocks, no lost updates
            connection.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    # an unreachable server is an error within seconds, not a hang (a URL's own wins)
    connect_args = {} if "connect_timeout" in make_url(url).query else {"connect_timeout": 10}
    return create_engine(
        url, pool_pre_ping=True, pool_size=10, max_overflow=20, connect_args=connect_args
    )


def _is_file_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite" and make_url(str(engine.url)).database not in (
        None,
        "",
        ":memory:",
    )


class _Checkpointer:
    """Moves SQLite's WAL into the database file from a thread of its own.

    With ``synchronous=NORMAL`` a commit only appends to the WAL; the fsync happens at a
    checkpoint. SQLite's automatic checkpoint runs inside whichever commit crosses the
    threshold, so one table's move would wait for the disk while every other table's commits
    are quick: the p99 of the action round trip. A PASSIVE checkpoint here, every
    ``INTERVAL`` seconds, never blocks readers or writers and keeps the WAL small.
    """

    INTERVAL = 1.0
    _log = logging.getLogger("duyun.server.store")

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.wait(self.INTERVAL):
            self.checkpoint()

    def checkpoint(self) -> None:
        try:
            raw = self._engine.raw_connection()
            try:
                cursor = raw.cursor()
                cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
                cursor.close()
            finally:
                raw.close()
        except Exception:  # a failed checkpoint loses nothing: the WAL keeps every commit
            self._log.exception("SQLite checkpoint failed; will try again")

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=10)
        self.checkpoint()


def alembic_config() -> Config:
    config = Config()
    location = resources.files("duyun.server") / "migrations"
    config.set_main_option("script_location", str(location))
    return config


def _upgrade(engine: Engine) -> None:
    """``alembic upgrade head`` on one connection; on PostgreSQL under an advisory lock so two
    processes starting together migrate one after the other."""
    config = alembic_config()
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK_KEY})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
