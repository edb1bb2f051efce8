"""The coin ledger (R41): operator grants, an account's rows, and the checks that the ledger is
sound (zero sum, balances equal to their rows, every hand settled exactly once) with the house's
report.

Coins move only through :meth:`~duyun.server.store.base.StoreCore._move`; a hand's rows are
written by :meth:`~duyun.server.store.matches.MatchStore.finish_hand`.
"""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from duyun.server.store.accounts import AccountStore
from duyun.server.store.base import MAX_ID, MAX_LIMIT, check_int, coin_row_of
from duyun.server.store.models import AccountRow, CoinRowModel, HandRow, MatchRow
from duyun.server.store.types import SEATS, AuditReport, CoinRow, HouseReport, StoreError


class LedgerStore(AccountStore):
    """Grants, ledger reads and audits (an account's rows are read after checking it exists,
    hence the accounts underneath)."""

    def grant(self, account_id: int, coins: int, note: str) -> CoinRow:
        """House → player, ``coins`` > 0, one ledgered row."""
        check_int("coins", coins, 1, 10**15)
        check_int("account id", account_id, 1, MAX_ID)
        if account_id == self._house:
            raise StoreError("cannot grant coins to the house itself")
        with self._session() as session:
            self._lock_accounts(session, [self._house, account_id])
            row = self._move(
                session, self._house, account_id, coins, coins, "grant", "", note or "grant"
            )
            session.flush()
            return coin_row_of(row)

    def coin_ledger(self, account_id: int, limit: int = 200) -> list[CoinRow]:
        """The account's rows, newest first."""
        check_int("limit", limit, 1, MAX_LIMIT)
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
            return [coin_row_of(row) for row in rows]

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
            bonuses = session.scalar(
                select(func.coalesce(func.sum(CoinRowModel.coins), 0)).where(
                    CoinRowModel.payer_id == house, CoinRowModel.kind.in_(("gift", "topup"))
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
            bonuses=int(bonuses or 0),
        )
