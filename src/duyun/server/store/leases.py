"""Leases and restore: which process runs a live match (issue 20, docs/deploy.md "leases").

A match is run by one process at a time, the one named in its row's lease; claiming bumps the
lease's epoch, so writes of the previous holder are refused from then on. A process restores
the matches it can claim, renews its leases while it runs and releases them at a clean
shutdown; :meth:`LeaseStore.live_match_of` and :meth:`LeaseStore.match_owner` route clients.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from duyun.server.store.base import LIVE_STATUSES, MAX_ID, check_int, coin_row_of
from duyun.server.store.models import CoinRowModel, HandEventRow, MatchRow, MatchSeatRow
from duyun.server.store.records import RecordStore
from duyun.server.store.types import (
    HandRecord,
    Lease,
    LiveHand,
    LiveMatch,
    MatchStatus,
    SettledHand,
)


class LeaseStore(RecordStore):
    """Claiming, restoring, renewing and releasing live matches (a restored match is read as
    its records are, hence the records underneath)."""

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
            if owner is not None:
                # only the leases :meth:`_claim` could take: every process sweeps every
                # ``lease_renew_every`` seconds, and without this a sweep tried (one UPDATE
                # each, finding nothing) every live match of every other process
                query = query.where(or_(*self._takeable(owner, include_own, self.clock())))
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
        check_int("match id", match_id, 1, MAX_ID)
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

    def _takeable(self, owner: str, include_own: bool, now: float) -> list[Any]:
        """The conditions under which ``owner`` may take a match's lease at ``now``: free,
        expired, or (``include_own``) already its own."""
        takeable = [MatchRow.lease_owner.is_(None), MatchRow.lease_expires < now]
        if include_own:
            takeable.append(MatchRow.lease_owner == owner)
        return takeable

    def _claim(self, match_id: int, owner: str, lease_seconds: float, include_own: bool) -> bool:
        """Take the lease if it is free or expired (or ours): one conditional UPDATE, so two
        processes can never both take one match."""
        now = self.clock()
        takeable = self._takeable(owner, include_own, now)
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
            finished = [r for r in records if r.status == "finished"]
            return LiveMatch(
                match_id=match_id,
                spec=self._spec(session, match),
                status=cast(MatchStatus, match.status),
                finished_hands=tuple(finished),
                hand=hand,
                lease=Lease(match.lease_owner, match.lease_epoch),
                settled=self._settled(session, finished[-1]) if hand is None and finished else None,
            )

    def _settled(self, session: Session, record: HandRecord) -> SettledHand:
        """What showing ``record``'s settlement again needs: its events and coin rows."""
        assert record.finished is not None
        events = session.scalars(
            select(HandEventRow.event)
            .where(HandEventRow.hand_id == record.hand_id)
            .order_by(HandEventRow.seq)
        ).all()
        rows = session.scalars(
            select(CoinRowModel)
            .where(CoinRowModel.hand_id == record.hand_id)
            .order_by(CoinRowModel.id)
        ).all()
        return SettledHand(
            hand_id=record.hand_id,
            index=record.index,
            events=tuple(events),
            rows=tuple(coin_row_of(row) for row in rows),
            finished=record.finished,
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
            return self._live_match_in(session, account_id)

    @staticmethod
    def _live_match_in(session: Session, account_id: int) -> int | None:
        """:meth:`live_match_of` inside ``session`` (a caller's transaction)."""
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
