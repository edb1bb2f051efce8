"""The CPU of a match's start in the store (issue 33, seating): ``create_match`` and the first
``start_hand`` as they are (Core INSERTs, a column-only fencing read), against the same writes
through the ORM's unit of work as they were before the ninth round, measured in the same run.

A crowd's tables start together, so every table opened pays these two transactions once
(docs/deploy.md, the ninth round). The calls run on one thread, so the figure is their CPU:

    python benchmarks/bench_match_start.py                                  # a SQLite file
    python benchmarks/bench_match_start.py --database-url postgresql+psycopg://user@host/empty_db

PostgreSQL needs an empty (or throwaway) database: the benchmark creates guests and matches.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from duyun.rules import RuleSet
from duyun.server.store import MatchSpec, SeatSpec, Store
from duyun.server.store.base import utcnow
from duyun.server.store.models import HandRow, MatchRow, MatchSeatRow

MATCHES = 200
SLICE = 20


def _orm_start(store: Store, spec: MatchSpec, owner: str) -> int:
    """The reference: the writes of a match's start as ORM objects flushed by the session,
    and the match read back as a whole row for its fencing check."""
    with store._session() as session:
        store._check_seats(session, spec.seats)
        row = MatchRow(
            kind=spec.kind,
            room=spec.room,
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
            lease_expires=store.clock() + 30.0,
        )
        session.add(row)
        session.flush()
        for seat, seat_spec in enumerate(spec.seats):
            session.add(
                MatchSeatRow(
                    match_id=row.id, seat=seat, account_id=seat_spec.account_id, bot=seat_spec.bot
                )
            )
        match_id = row.id
    with store._session() as session:
        match = store._get_match(session, match_id, lock=True)
        assert match.lease_owner == owner and match.hands > 0
        hand = HandRow(
            match_id=match_id,
            index=0,
            seed=1,
            dealer=0,
            streak=0,
            status="playing",
            created=utcnow(),
        )
        session.add(hand)
        session.flush()
        return hand.id


def _store_start(store: Store, spec: MatchSpec, owner: str) -> int:
    match_id = store.create_match(spec, owner, 30.0)
    return store.start_hand(match_id, 0, 1, 0, 0)


def _cpu_per_start(
    start: Callable[[Store, MatchSpec, str], int], store: Store, specs: list[MatchSpec]
) -> float:
    """CPU seconds of ``start`` over ``specs``, with the collector off (its pauses land on
    whichever side happens to allocate past its threshold)."""
    gc.collect()
    gc.disable()
    try:
        started = time.thread_time()
        for spec in specs:
            start(store, spec, "bench")
        return time.thread_time() - started
    finally:
        gc.enable()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    codes = itertools.count(100000)
    with tempfile.TemporaryDirectory() as workdir:
        url = args.database_url or f"sqlite:///{Path(workdir) / 'start.db'}"
        store = Store.open(url)
        try:
            rules = RuleSet().to_mapping()

            def specs(count: int) -> list[MatchSpec]:
                guests = [store.create_guest().id for _ in range(4 * count)]
                return [
                    MatchSpec(
                        kind="private",
                        room="private",
                        stake=1,
                        hands=8,
                        seed=i,
                        code=str(next(codes)),
                        seats=tuple(SeatSpec(guests[4 * i + s], "strong") for s in range(4)),
                        rules=rules,
                        options={"bots_allowed": False, "bot": "strong", "listed": False},
                    )
                    for i in range(count)
                ]

            for _ in range(3):
                now = before = 0.0
                # alternated in slices of 20: a shared machine drifts within a measure too
                for _ in range(MATCHES // SLICE):
                    now += _cpu_per_start(_store_start, store, specs(SLICE))
                    before += _cpu_per_start(_orm_start, store, specs(SLICE))
                print(
                    f"create_match + start_hand {1000 * now / MATCHES:.3f} ms CPU per match, "
                    f"through the ORM's unit of work {1000 * before / MATCHES:.3f} ms: "
                    f"ratio {now / before:.2f}"
                )
        finally:
            store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
