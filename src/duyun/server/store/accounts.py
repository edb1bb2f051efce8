"""Accounts and their tokens: guests, registration, login with its rate limit, session tokens
and their revocation, and reading accounts back.

The rules (what a valid name or password is, hashing, signing, the rate limit's arithmetic) are
:mod:`duyun.server.store.auth`'s; this concern stores what they decide on.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Sequence

from sqlalchemy import delete, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from duyun.server.store import auth
from duyun.server.store.base import (
    MAX_ID,
    MAX_LIMIT,
    MAX_SEED,
    StoreCore,
    account_of,
    check_int,
    utcnow,
)
from duyun.server.store.models import AccountRow, LoginAttemptRow, RevokedTokenRow
from duyun.server.store.types import (
    Account,
    AccountError,
    AccountKind,
    AuthError,
    NotFoundError,
    RateLimitedError,
    StoreError,
)

#: the first key of the two-key advisory locks that serialise logins per name and per address
_LOGIN_NAME_LOCK = 0x6475_6E01
_LOGIN_CLIENT_LOCK = 0x6475_6E02


def judge_token(account: tuple[str, int] | None, generation: int, revoked: bool) -> None:
    """Refuse a well-signed token whose account (its kind and token generation, None when
    it is gone) no longer accepts it: :class:`AuthError` with the reason a client shows."""
    if account is None:
        raise AuthError("session token names no account")
    kind, current = account
    if kind == "house":
        raise AuthError("session token invalid")
    if generation != current or revoked:
        raise AuthError("session token revoked (logged out); log in again")


class AccountStore(StoreCore):
    """Accounts, logins and session tokens."""

    def _new_account(
        self, session: Session, name: str, kind: AccountKind, password_hash: str | None
    ) -> AccountRow:
        row = AccountRow(
            name=name,
            name_key=auth.name_key(name),
            kind=kind,
            password_hash=password_hash,
            balance=0,
            created=utcnow(),
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
                    return account_of(row)
            except IntegrityError:
                continue  # the random name was taken: draw another
        raise StoreError("could not find a free guest name; try again")

    def register(self, name: str, password: str, guest_id: int | None = None) -> Account:
        """A new user account; with ``guest_id``, that guest becomes the user (keeping its coins
        and history). :class:`AccountError` names what is wrong (taken, too short, bad chars)."""
        cleaned = auth.validate_name(name)
        auth.validate_password(password, cleaned)
        key = auth.name_key(cleaned)
        # a taken name is refused before the password is hashed: the REST layer does not count
        # a refused registration against the per-address limit (docs/protocol.md), so a refusal
        # must cost no hashing; the check below still decides a race for the name
        with self._session() as session:
            holder = session.scalar(select(AccountRow.id).where(AccountRow.name_key == key))
        if holder is not None and holder != guest_id:
            raise AccountError(f"name {cleaned!r} is taken")
        password_hash = self._hashing.hash(password)
        try:
            with self._session() as session:
                holder = session.scalar(select(AccountRow.id).where(AccountRow.name_key == key))
                if holder is not None and holder != guest_id:  # a guest may keep its name
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
                return account_of(row)
        except IntegrityError as exc:  # a concurrent registration won the name
            raise AccountError(f"name {cleaned!r} is taken") from exc

    def rename_guest(self, account_id: int, name: str) -> Account:
        """A guest's display name (issue 32): tables show "小明" rather than guest-123456.
        The name follows the registration rules (:func:`auth.validate_name`) and is unique the
        same way, so registering later can keep it. :class:`AccountError` says what is wrong;
        a registered user's name is the one they log in with and does not change here."""
        cleaned = auth.validate_name(name)
        key = auth.name_key(cleaned)
        check_int("account id", account_id, 1, MAX_ID)
        try:
            with self._session() as session:
                row = session.get(AccountRow, account_id)
                if row is None:
                    raise NotFoundError(f"no account with id {account_id}")
                if row.kind != "guest":
                    raise AccountError("only a guest chooses a display name; yours is your login")
                holder = session.scalar(select(AccountRow.id).where(AccountRow.name_key == key))
                if holder is not None and holder != account_id:
                    raise AccountError(f"name {cleaned!r} is taken")
                row.name, row.name_key = cleaned, key
                session.flush()
                return account_of(row)
        except IntegrityError as exc:  # a registration or rename won the name meanwhile
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
        check_int("account id", account_id, 1)
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
        with self._session() as session:
            return self._verified(session, token)

    def _verified(self, session: Session, token: str) -> Account:
        """:meth:`verify_token` inside ``session`` (a caller's transaction)."""
        account_id, generation = self._token_claims(token)
        row = session.get(AccountRow, account_id)
        revoked = session.get(RevokedTokenRow, auth.token_digest(token)) is not None
        judge_token(None if row is None else (row.kind, row.token_generation), generation, revoked)
        assert row is not None
        return account_of(row)

    def _token_claims(self, token: str) -> tuple[int, int]:
        """The account id and token generation a token claims, its signature and age checked
        (:class:`AuthError` if forged or expired); whether the account still accepts it is
        :func:`judge_token`'s question."""
        assert self._signer is not None
        account_id, generation, _ = self._signer.claims(token)
        if account_id < 1 or account_id > MAX_SEED:
            raise AuthError("session token invalid")
        return account_id, generation

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
        check_int("account id", account_id, 1, MAX_ID)
        with self._session() as session:
            row = session.get(AccountRow, account_id)
            if row is None:
                raise NotFoundError(f"no account with id {account_id}")
            return account_of(row)

    def balances(self, account_ids: Sequence[int]) -> dict[int, int]:
        """Balances of several accounts in one read (a table refreshes its players' after
        every hand). :class:`NotFoundError` names the first id that does not exist."""
        for account_id in account_ids:
            check_int("account id", account_id, 1, MAX_ID)
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
            return account_of(row)

    def accounts(self, kind: str | None = None, limit: int = 1000) -> list[Account]:
        """Accounts ordered by id, optionally only one kind."""
        if kind is not None and kind not in ("guest", "user", "house"):
            raise StoreError(f"account kind must be guest, user or house, not {kind!r}")
        check_int("limit", limit, 1, MAX_LIMIT)
        query = select(AccountRow).order_by(AccountRow.id).limit(limit)
        if kind is not None:
            query = query.where(AccountRow.kind == kind)
        with self._session() as session:
            return [account_of(row) for row in session.scalars(query)]

    def house(self) -> Account:
        """The house account: bots' seats pay and are paid through it; it funds grants."""
        return self.account(self._house)
