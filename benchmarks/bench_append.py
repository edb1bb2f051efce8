"""The CPU of the store's hot path (issue 33 item 3): one ``Store.append_events_many`` batch,
the group-committed write every move of every table goes through, as load.py's people's pace
makes them (one or two tables' moves of one to three events each, with their leases).

A py-spy profile of ``duyun serve`` under ``load.py --human --tables 300`` put this call first
by far (docs/deploy.md "Where a process's CPU goes"); this measures it alone, without the
noise of 1,200 websockets on a shared machine:

    python benchmarks/bench_append.py                                  # a throwaway SQLite file
    python benchmarks/bench_append.py --database-url postgresql+psycopg://user@host/empty_db

It prints the process's CPU and the wall time per batch. PostgreSQL needs an empty (or
throwaway) database: the benchmark creates 300 matches in it.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from duyun.server.store import Lease, MatchSpec, SeatSpec, Store

TABLES = 300
OWNER = "bench"
EVENT = {"type": "discard", "seat": 1, "tile": "5p", "tsumogiri": False}


def _hands(store: Store) -> list[int]:
    guest = store.create_guest()
    seats = (SeatSpec(guest.id, None), *(SeatSpec(None, "random") for _ in range(3)))
    hands = []
    for n in range(TABLES):
        spec = MatchSpec(kind="room", room="novice", stake=1, hands=1, seats=seats, seed=n)
        match = store.create_match(spec, OWNER, 600.0)
        hands.append(store.start_hand(match, 0, n, 0, 0, Lease(OWNER, 0)))
    return hands


def _batches(hands: list[int], count: int) -> list[list[tuple[int, int, list[Any], Lease]]]:
    rng = random.Random(1)
    seqs = dict.fromkeys(hands, 0)
    batches = []
    for _ in range(count):
        batch = []
        for hand in rng.sample(hands, rng.choice((1, 1, 2))):
            events = [{**EVENT, "n": i} for i in range(rng.choice((1, 2, 3)))]
            batch.append((hand, seqs[hand], events, Lease(OWNER, 0)))
            seqs[hand] += len(events)
        batches.append(batch)
    return batches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="an empty PostgreSQL database (default: SQLite)")
    parser.add_argument("--batches", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="duyun-append-") as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'append.db'}"
        store = Store.open(url)
        try:
            batches = _batches(_hands(store), 200 + args.batches)
            for batch in batches[:200]:  # warm: the statements' caches, the connection pool
                store.append_events_many(batch)
            cpu, wall = time.process_time(), time.perf_counter()
            for batch in batches[200:]:
                outcomes = store.append_events_many(batch)
                if any(outcome is not None for outcome in outcomes):
                    raise SystemExit(f"an append was refused: {outcomes}")
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        finally:
            store.close()
    print(
        f"append_events_many on {url.split(':', 1)[0]}: {1000 * cpu / args.batches:.3f} ms CPU, "
        f"{1000 * wall / args.batches:.3f} ms wall per batch ({args.batches} batches)"
    )


if __name__ == "__main__":
    main()
