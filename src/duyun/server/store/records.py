"""Records of finished and running matches: 戰績 (history), a hand's log for replays and a
match's stored spec, with the reads that rebuild a match's spec and its hands' results (which
restoring a live match reuses, :mod:`duyun.server.store.leases`).
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import select
from sqlalchemy.orm import Session

from duyun.server.store.accounts import AccountStore
from duyun.server.store.base import MAX_LIMIT, aware, check_int
from duyun.server.store.models import (
    AccountRow,
    CoinRowModel,
    HandEventRow,
    HandRow,
    MatchRow,
    MatchSeatRow,
)
from duyun.server.store.types import (
    SEATS,
    HandLog,
    HandRecord,
    HandStatus,
    MatchKind,
    MatchRecord,
    MatchSpec,
    MatchStatus,
    SeatSpec,
)


class RecordStore(AccountStore):
    """History, hand logs and specs (history first checks the account exists, hence the
    accounts underneath)."""

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
                SeatSpec(
                    account_id=s.account_id,
                    bot=s.bot,
                    forced_tuoguan=s.forced_tuoguan,
                    tuoguan=s.tuoguan or s.forced_tuoguan,
                )
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
                finished=aware(h.finished),
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
        check_int("limit", limit, 1, MAX_LIMIT)
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
                        created=cast(datetime, aware(match.created)),
                        finished=aware(match.finished),
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
