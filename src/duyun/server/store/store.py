"""The :class:`Store`: every read and write of the online game's database.

Each public method is one short transaction. Writes that move coins lock the accounts they touch
(``SELECT ... FOR UPDATE`` on PostgreSQL; ``BEGIN IMMEDIATE`` on SQLite, which takes the
database's write lock up front) and update balances with ``balance = balance + :delta`` so two
processes settling hands with the same accounts never lose an update.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duyun.engine import Payment
from duyun.server.store.api import (
    Account,
    AuditReport,
    CoinRow,
    HandLog,
    HouseReport,
    LiveMatch,
    MatchRecord,
    MatchSpec,
    SeatSpec,
    StoreConfig,
)


class Store:
    """Thread-safe facade over the database. Create with :meth:`open`."""

    @classmethod
    def open(cls, database_url: str, config: StoreConfig | None = None) -> Store:
        """Connect, create the database if needed and run Alembic ``upgrade head``.

        ``database_url`` is an SQLAlchemy URL: ``sqlite:///path/duyun.db`` (WAL mode, foreign
        keys on) or ``postgresql+psycopg://user:pw@host/db`` (a bare ``postgresql://`` is read
        as psycopg 3). Creates the house account and the token secret on first open.
        """
        raise NotImplementedError

    def close(self) -> None:
        """Dispose of the connection pool."""
        raise NotImplementedError

    # ---------------------------------------------------------------- accounts and auth
    def create_guest(self) -> Account:
        """A new guest account (name ``guest-XXXXXX``) with the starting balance granted."""
        raise NotImplementedError

    def register(self, name: str, password: str, guest_id: int | None = None) -> Account:
        """A new user account; with ``guest_id``, that guest becomes the user (keeping its coins
        and history). :class:`AccountError` names what is wrong (taken, too short, bad chars)."""
        raise NotImplementedError

    def login(self, name: str, password: str, client: str | None = None) -> Account:
        """Check a password. :class:`AuthError` on a wrong name or password,
        :class:`RateLimitedError` when this name or ``client`` address failed too often."""
        raise NotImplementedError

    def issue_token(self, account_id: int) -> str:
        """A signed session token for the account (expires after ``token_max_age``)."""
        raise NotImplementedError

    def verify_token(self, token: str) -> Account:
        """The account a token was issued for; :class:`AuthError` if forged or expired."""
        raise NotImplementedError

    def account(self, account_id: int) -> Account:
        """:class:`NotFoundError` if there is no such account."""
        raise NotImplementedError

    def account_by_name(self, name: str) -> Account:
        """:class:`NotFoundError` if there is no such account."""
        raise NotImplementedError

    def accounts(self, kind: str | None = None, limit: int = 1000) -> list[Account]:
        """Accounts ordered by id, optionally only one kind."""
        raise NotImplementedError

    def house(self) -> Account:
        """The house account: bots' seats pay and are paid through it; it funds grants."""
        raise NotImplementedError

    # ---------------------------------------------------------------- coins
    def grant(self, account_id: int, coins: int, note: str) -> CoinRow:
        """House → player, ``coins`` > 0, one ledgered row."""
        raise NotImplementedError

    def coin_ledger(self, account_id: int, limit: int = 200) -> list[CoinRow]:
        """The account's rows, newest first."""
        raise NotImplementedError

    def check_zero_sum(self) -> int:
        """Sum of all coin rows' signed amounts (0 when sound). See :meth:`audit`."""
        raise NotImplementedError

    def audit(self) -> AuditReport:
        """The ledger's sum and every account whose balance differs from its rows."""
        raise NotImplementedError

    def house_report(self) -> HouseReport:
        """The house's balance, coins granted out and net from hands."""
        raise NotImplementedError

    # ---------------------------------------------------------------- matches and hands
    def create_match(self, spec: MatchSpec, owner: str | None = None) -> int:
        """Store a new match (status ``playing``); with ``owner``, that process holds its lease."""
        raise NotImplementedError

    def update_seats(self, match_id: int, seats: Sequence[SeatSpec]) -> None:
        """Replace the seats of a match that has not started a hand yet."""
        raise NotImplementedError

    def start_hand(self, match_id: int, index: int, seed: int, dealer: int, streak: int) -> int:
        """Store a new hand of a match; returns its id. :class:`ConflictError` if that index
        exists already or another hand of the match is still playing."""
        raise NotImplementedError

    def append_events(self, hand_id: int, first_seq: int, events: list[dict[str, Any]]) -> None:
        """Append events with seq ``first_seq``, ``first_seq + 1``, ... (the hand's log is
        numbered from 0). :class:`ConflictError` if a seq is taken or leaves a gap."""
        raise NotImplementedError

    def finish_hand(
        self, hand_id: int, payments: Sequence[Payment], result: dict[str, Any]
    ) -> list[CoinRow]:
        """Settle a hand in ONE transaction: one coin row per engine payment in ledger order
        (points × stake; bot seats through the house; a human payer cut to their balance, the
        cut recorded), balances updated, the hand marked finished with ``result`` stored."""
        raise NotImplementedError

    def finish_match(self, match_id: int, reason: str) -> None:
        """Mark a match over: ``completed`` or ``dissolved``; releases its lease."""
        raise NotImplementedError

    def live_matches(
        self, owner: str | None = None, lease_seconds: float = 30.0
    ) -> list[LiveMatch]:
        """Unfinished matches with their unfinished hand's events (to restore tables).

        Without ``owner``: all of them (one server process). With ``owner``: only those whose
        lease is free, expired or already ``owner``'s, and the lease is taken for ``owner``."""
        raise NotImplementedError

    def renew_leases(self, owner: str, lease_seconds: float = 30.0) -> list[int]:
        """Extend every lease ``owner`` holds; returns the match ids still held."""
        raise NotImplementedError

    def match_owner(self, match_id: int) -> str | None:
        """The process holding a live match's unexpired lease, if any (for routing)."""
        raise NotImplementedError

    def history(self, account_id: int, limit: int = 50) -> list[MatchRecord]:
        """The account's matches (戰績), newest first, with per-hand results and coins."""
        raise NotImplementedError

    def hand_log(self, hand_id: int) -> HandLog:
        """A hand's events and seats, for replays."""
        raise NotImplementedError

    def match_spec(self, match_id: int) -> MatchSpec:
        """The stored spec of a match."""
        raise NotImplementedError
