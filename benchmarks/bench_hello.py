"""The CPU of a websocket's ``hello`` in the store (issue 33, seating): ``Store.session_of``,
one prebuilt statement, against the two calls it replaced (``verify_token``, then
``live_match_of``: an ORM session and a transaction each), measured in the same run.

Seating a room's worth of people is mostly hellos (docs/deploy.md "Where a process's CPU
goes"); this measures the store's part alone, without the noise of 1,200 websockets:

    python benchmarks/bench_hello.py                                  # a throwaway SQLite file
    python benchmarks/bench_hello.py --database-url postgresql+psycopg://user@host/empty_db

PostgreSQL needs an empty (or throwaway) database: the benchmark creates 200 guests in it.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from duyun.server.store import Store

GUESTS = 200


def _cpu_per_call(call: Callable[[str], object], tokens: list[str], rounds: int) -> float:
    started = time.process_time()
    for _ in range(rounds):
        for token in tokens:
            call(token)
    return (time.process_time() - started) / (rounds * len(tokens))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--rounds", type=int, default=5, help="hellos per guest per measure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        url = args.database_url or f"sqlite:///{Path(workdir) / 'hello.db'}"
        store = Store.open(url)
        try:
            tokens = [store.issue_token(store.create_guest().id) for _ in range(GUESTS)]

            def two_calls(token: str) -> object:
                account = store.verify_token(token)
                return account, store.live_match_of(account.id)

            assert all(store.session_of(t)[:2] == two_calls(t) for t in tokens[:5])
            for _ in range(3):  # alternated: a shared machine drifts
                one = _cpu_per_call(store.session_of, tokens, args.rounds)
                two = _cpu_per_call(two_calls, tokens, args.rounds)
                print(
                    f"session_of {1000 * one:.3f} ms CPU per hello, verify_token + "
                    f"live_match_of {1000 * two:.3f} ms: ratio {one / two:.2f}"
                )
        finally:
            store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
