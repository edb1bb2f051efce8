"""Matches and hands: creating a match and its seats, forced 托管 (R45), starting a hand,
settling it (R41) and ending the match. A hand's events are appended by
:mod:`duyun.server.store.events`.

Every write for a live match takes the table's :class:`~duyun.server.store.types.Lease`: it is
refused with :class:`~duyun.server.store.types.LeaseLostError` once another process adopted the
match (see :mod:`duyun.server.store.leases`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from duyun.engine import Payment
from duyun.server.store.base import (
    LIVE_STATUSES,
    MATCH_END_REASONS,
    MAX_ID,
    MAX_SEED,
    StoreCore,
    check_int,
    clip_text,
    coin_row_of,
    fence,
    utcnow,
)
from duyun.server.store.models import (
    HANDS,
    MATCH_SEATS,
    MATCHES,
    AccountRow,
    CoinRowModel,
    HandRow,
    MatchSeatRow,
)
from duyun.server.store.ratings import rate_match
from duyun.server.store.types import (
    SEATS,
    CoinRow,
    ConflictError,
    Lease,
    MatchSpec,
    NotFoundError,
    RatingChange,
    SeatSpec,
    StoreError,
)


class MatchStore(StoreCore):
    """The writes of a match's life, from creation to its end."""

    def _check_seats(self, session: Session, seats: Sequence[SeatSpec]) -> None:
        if len(seats) != SEATS:
            raise StoreError(f"a match has {SEATS} seats, got {len(seats)}")
        humans = [s.account_id for s in seats if s.account_id is not None]
        if len(set(humans)) != len(humans):
            raise StoreError("one account cannot sit at two seats of a match")
        if not humans:
            return
        # one query for the four seats, not a round trip each: a room's tables start together
        query = select(AccountRow.id, AccountRow.kind).where(AccountRow.id.in_(humans))
        kinds = {account_id: kind for account_id, kind in session.execute(query)}
        for account_id in humans:
            if account_id not in kinds:
                raise NotFoundError(f"no account with id {account_id}")
            if kinds[account_id] == "house":
                raise StoreError("the house sits as bots (account_id None), not by id")

    def create_match(
        self, spec: MatchSpec, owner: str | None = None, lease_seconds: float = 30.0
    ) -> int:
        """Store a new match (status ``playing``); with ``owner``, that process holds its lease
        for ``lease_seconds`` (renew with :meth:`renew_leases`)."""
        if spec.kind not in ("room", "private"):
            raise StoreError(f"match kind must be room or private, not {spec.kind!r}")
        check_int("stake", spec.stake, 0, 10**9)
        check_int("hands", spec.hands, 1, 10_000)
        check_int("seed", spec.seed, 0, MAX_SEED)
        check_int("first dealer", spec.first_dealer, 0, SEATS - 1)
        with self._session() as session:
            self._check_seats(session, spec.seats)
            # statements rather than objects to flush: a crowd's tables start together, and the
            # unit of work's bookkeeping cost more than the statements (docs/deploy.md, the
            # ninth round)
            match_id: int = session.scalars(
                insert(MATCHES)
                .values(
                    kind=spec.kind,
                    room=clip_text(spec.room, 64),
                    code=spec.code,
                    stake=spec.stake,
                    hands=spec.hands,
                    seed=spec.seed,
                    first_dealer=spec.first_dealer,
                    rules=dict(spec.rules),
                    options=dict(spec.options),
                    status="playing",
                    created=utcnow(),
                    lease_owner=owner,
                    lease_expires=self.clock() + lease_seconds if owner else None,
                )
                .returning(MATCHES.c.id)
            ).one()
            self._insert_seats(session, match_id, spec.seats)
            return match_id

    @staticmethod
    def _insert_seats(session: Session, match_id: int, seats: Sequence[SeatSpec]) -> None:
        """The four seat rows, in one statement."""
        session.execute(
            insert(MATCH_SEATS),
            [
                {
                    "match_id": match_id,
                    "seat": seat,
                    "account_id": seat_spec.account_id,
                    "bot": seat_spec.bot,
                }
                for seat, seat_spec in enumerate(seats)
            ],
        )

    def update_seats(
        self, match_id: int, seats: Sequence[SeatSpec], lease: Lease | None = None
    ) -> None:
        """Replace the seats of a match that has not started a hand yet."""
        with self._session() as session:
            self._fence_live_match(session, match_id, lease=lease)
            if session.scalar(select(HandRow.id).where(HandRow.match_id == match_id).limit(1)):
                raise ConflictError(f"match {match_id} has started; its seats are fixed")
            self._check_seats(session, seats)
            session.execute(delete(MatchSeatRow).where(MatchSeatRow.match_id == match_id))
            self._insert_seats(session, match_id, seats)

    def mark_forced_tuoguan(
        self, match_id: int, seat: int, lease: Lease | None = None, on: bool = True
    ) -> None:
        """Record that a live match's human seat escaped (R45) or left: 托管 to the end. A
        restarted server reads it back in the match's spec and neither waits for the player
        nor charges a second escape. ``on`` False: the player who left between hands took
        the seat back (issue 31 item 1)."""
        check_int("seat", seat, 0)
        if seat >= SEATS:
            raise StoreError(f"seat must be 0-{SEATS - 1}, not {seat}")
        with self._session() as session:
            self._fence_live_match(session, match_id, lease=lease)
            row = session.get(MatchSeatRow, (match_id, seat))
            if row is None or row.account_id is None:
                raise StoreError(f"seat {seat} of match {match_id} is not a player's seat")
            row.forced_tuoguan = on

    def set_tuoguan(self, match_id: int, seat: int, on: bool, lease: Lease | None = None) -> None:
        """Record that a live match's human seat is (or no longer is) played by its 托管 bot,
        so a restarted server neither waits for that player's moves and 下一局 nor takes the
        seat from the bot they left it to (issue 37)."""
        check_int("seat", seat, 0)
        if seat >= SEATS:
            raise StoreError(f"seat must be 0-{SEATS - 1}, not {seat}")
        if not isinstance(on, bool):
            raise StoreError(f"on must be true or false, not {on!r}")
        with self._session() as session:
            self._fence_live_match(session, match_id, lease=lease)
            row = session.get(MatchSeatRow, (match_id, seat))
            if row is None or row.account_id is None:
                raise StoreError(f"seat {seat} of match {match_id} is not a player's seat")
            row.tuoguan = on

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
        check_int("seed", seed, 0, MAX_SEED)
        check_int("dealer", dealer, 0, SEATS - 1)
        check_int("streak", streak, 0)
        check_int("hand index", index, 0)
        try:
            with self._session() as session:
                hands = self._fence_live_match(session, match_id, lock=True, lease=lease)
                if index >= hands:
                    raise ConflictError(f"match {match_id} has only {hands} hands")
                playing = session.scalar(
                    select(HandRow.id).where(
                        HandRow.match_id == match_id, HandRow.status == "playing"
                    )
                )
                if playing is not None:
                    raise ConflictError(f"hand {playing} of match {match_id} is still playing")
                # an INSERT ... RETURNING rather than an object to flush: the unit of work's
                # bookkeeping cost more than the statement (docs/deploy.md, the ninth round)
                hand_id: int = session.scalars(
                    insert(HANDS)
                    .values(
                        match_id=match_id,
                        index=index,
                        seed=seed,
                        dealer=dealer,
                        streak=streak,
                        status="playing",
                        created=utcnow(),
                    )
                    .returning(HANDS.c.id)
                ).one()
                return hand_id
        except IntegrityError as exc:
            raise ConflictError(f"match {match_id} already has hand {index}") from exc

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
            check_int("hand id", hand_id, 1, MAX_ID)
            # a column, not the row: the row is read (fresh) only once it is locked below
            match_id = session.scalar(select(HandRow.match_id).where(HandRow.id == hand_id))
            if match_id is None:
                raise NotFoundError(f"no hand with id {hand_id}")
            match = self._get_match(session, match_id, lock=True)
            hand = self._get_hand(session, hand_id, lock=True)
            fence(match.id, lease, match.lease_owner, match.lease_epoch)
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
            return [coin_row_of(row) for row in written]

    def _mark_finished(self, session: Session, hand: HandRow, result: dict[str, Any]) -> None:
        hand.status = "finished"
        hand.result = result
        hand.finished = utcnow()
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

    def finish_match(
        self, match_id: int, reason: str, lease: Lease | None = None
    ) -> list[RatingChange]:
        """Mark a match over: ``completed`` or ``dissolved``; releases its lease. A rated
        match (:func:`~duyun.server.store.ratings.is_rated`) updates its seats' ratings in the
        same transaction, so it is rated exactly once; returns each seat's change (empty when
        it is not rated)."""
        if reason not in MATCH_END_REASONS:
            raise StoreError(f"a match ends completed or dissolved, not {reason!r}")
        with self._session() as session:
            match = self._get_match(session, match_id, lock=True)
            fence(match_id, lease, match.lease_owner, match.lease_epoch)
            if match.status not in LIVE_STATUSES:
                raise ConflictError(f"match {match_id} is already {match.status}")
            playing = session.scalar(
                select(HandRow.id).where(HandRow.match_id == match_id, HandRow.status == "playing")
            )
            if playing is not None:
                raise ConflictError(f"hand {playing} of match {match_id} is still playing")
            match.status = reason
            match.reason = reason
            match.finished = utcnow()
            match.lease_owner = None
            match.lease_expires = None
            return rate_match(session, match, self._postgres)
