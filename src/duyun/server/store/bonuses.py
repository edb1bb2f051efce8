"""The house's free coins (issue 32): the daily gift and the bankruptcy top-up (破產補助).

Both are ledger rows from the house (kinds ``gift`` and ``topup``), so the zero-sum audit and
every balance equal to its rows hold as for a grant. Each payment also writes a
``bonus_claims`` row numbered per account, kind and day; its unique key, the account rows
locked for the transaction (``FOR UPDATE`` on PostgreSQL; SQLite's one writer) and an advisory
lock on the client address make two claims at the same moment -- two tabs, two processes --
pay once, and guests made from one address share that address's daily cap.

Days run midnight to midnight in the economy's time zone (:class:`Economy`), read from the
store's clock so tests can move it.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import func, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from duyun.server.store.accounts import AccountStore
from duyun.server.store.base import MAX_ID, check_int, coin_row_of, utcnow
from duyun.server.store.models import AccountRow, BonusClaimRow
from duyun.server.store.types import (
    AlreadyClaimedError,
    BonusKind,
    BonusRefused,
    BonusState,
    CoinRow,
    Economy,
    NotEligibleError,
    NotFoundError,
    StoreError,
)

#: the first key of the advisory lock that makes claims from one address take turns
_BONUS_CLIENT_LOCK = 0x6475_6E03
BONUS_KINDS: tuple[BonusKind, ...] = ("gift", "topup")


def local_day(moment: float, zone: str) -> tuple[str, datetime]:
    """The day (``YYYY-MM-DD`` in ``zone``) of an epoch time and when the next one starts."""
    tz = ZoneInfo(zone)
    here = datetime.fromtimestamp(moment, tz)
    today: date = here.date()
    tomorrow = datetime.combine(today + timedelta(days=1), time(0), tz)
    return today.isoformat(), tomorrow.astimezone(UTC)


class BonusStore(AccountStore):
    """Claims of the daily gift and the top-up, and what each offers now."""

    def _counts(
        self, session: Session, account_id: int, client: str | None, kind: str, day: str
    ) -> tuple[int, int]:
        mine = session.scalar(
            select(func.count(BonusClaimRow.id)).where(
                BonusClaimRow.account_id == account_id,
                BonusClaimRow.kind == kind,
                BonusClaimRow.day == day,
            )
        )
        theirs = 0
        if client:
            theirs = (
                session.scalar(
                    select(func.count(BonusClaimRow.id)).where(
                        BonusClaimRow.client == client,
                        BonusClaimRow.day == day,
                        BonusClaimRow.kind == kind,
                    )
                )
                or 0
            )
        return int(mine or 0), int(theirs)

    def _judge(
        self,
        session: Session,
        account: AccountRow,
        kind: BonusKind,
        client: str | None,
        economy: Economy,
    ) -> tuple[BonusState, int, type[BonusRefused]]:
        """What ``kind`` offers ``account`` now, how many it claimed today and the error a
        claim now would raise, raising nothing: :meth:`claim_bonus` raises it."""
        day, tomorrow = local_day(self.clock(), economy.time_zone)
        mine, theirs = self._counts(session, account.id, client, kind, day)
        balance = int(account.balance)
        if kind == "gift":
            coins, per_day, per_address = economy.daily_gift, 1, economy.gifts_per_address
        else:
            coins = max(0, economy.topup_to - balance)
            per_day, per_address = economy.topups_per_day, economy.topups_per_address
        left = max(0, per_day - mine)
        reason: str | None = None
        next_at: datetime | None = None
        error: type[BonusRefused] = NotEligibleError
        if account.kind == "house":
            reason = "the house pays bonuses; it cannot claim them"
        elif (economy.daily_gift if kind == "gift" else economy.topup_to) <= 0:
            reason = f"the {_NAMES[kind]} is switched off on this server"
        elif left == 0:
            reason = f"already claimed today ({per_day} a day); next from {tomorrow.isoformat()}"
            next_at, error = tomorrow, AlreadyClaimedError
        elif kind == "topup" and balance >= economy.topup_below:
            reason = (
                f"a top-up is for a balance below {economy.topup_below} coins; you have {balance}"
            )
        elif per_address and theirs >= per_address:
            reason = (
                f"your address has claimed the {_NAMES[kind]} {theirs} times today (at most "
                f"{per_address}); next from {tomorrow.isoformat()}"
            )
            next_at = tomorrow
        state = BonusState(
            kind=kind,
            coins=coins if reason is None else 0,
            available=reason is None,
            left=left,
            next_at=next_at if reason is not None else None,
            reason=reason,
        )
        return state, mine, error

    def bonus_states(
        self, account_id: int, client: str | None, economy: Economy
    ) -> tuple[BonusState, ...]:
        """What the gift and the top-up offer the account now (the lobby's button)."""
        check_int("account id", account_id, 1, MAX_ID)
        with self._session() as session:
            account = session.get(AccountRow, account_id)
            if account is None:
                raise NotFoundError(f"no account with id {account_id}")
            return tuple(
                self._judge(session, account, kind, _client(client), economy)[0]
                for kind in BONUS_KINDS
            )

    def claim_bonus(
        self, account_id: int, kind: BonusKind, client: str | None, economy: Economy
    ) -> CoinRow:
        """Pay the gift or a top-up from the house: one ledger row and one claim row, in one
        transaction. :class:`AlreadyClaimedError` when today's are used up,
        :class:`NotEligibleError` when the balance is not low enough, the address has had its
        share today or the bonus is off; both carry when to try again."""
        if kind not in BONUS_KINDS:
            raise StoreError(f"bonus kind must be gift or topup, not {kind!r}")
        check_int("account id", account_id, 1, MAX_ID)
        if account_id == self._house:
            raise NotEligibleError("the house pays bonuses; it cannot claim them", None)
        client = _client(client)
        try:
            with self._session() as session:
                if self._postgres and client:
                    session.execute(
                        text("SELECT pg_advisory_xact_lock(:namespace, hashtext(:value))"),
                        {"namespace": _BONUS_CLIENT_LOCK, "value": client},
                    )
                rows = self._lock_accounts(session, [self._house, account_id])
                state, claimed, error = self._judge(
                    session, rows[account_id], kind, client, economy
                )
                if not state.available:
                    assert state.reason is not None
                    raise error(state.reason, state.next_at)
                day, _ = local_day(self.clock(), economy.time_zone)
                note = "daily gift" if kind == "gift" else f"top-up to {economy.topup_to}"
                row = self._move(
                    session, self._house, account_id, state.coins, state.coins, kind, "", note
                )
                session.flush()
                session.add(
                    BonusClaimRow(
                        account_id=account_id,
                        kind=kind,
                        day=day,
                        number=claimed + 1,
                        client=client,
                        coins=state.coins,
                        ledger_id=row.id,
                        created=utcnow(),
                    )
                )
                session.flush()
                return coin_row_of(row)
        except IntegrityError as exc:  # the same number written by a claim at the same moment
            _, tomorrow = local_day(self.clock(), economy.time_zone)
            raise AlreadyClaimedError(
                f"the {_NAMES[kind]} was just claimed by another request", tomorrow
            ) from exc


_NAMES = {"gift": "daily gift", "topup": "top-up"}


def _client(client: str | None) -> str | None:
    return client[:64] if client else None
