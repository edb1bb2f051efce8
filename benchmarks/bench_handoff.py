"""The CPU of handing a store call to its thread and its result back to the event loop (issue
33): the route every store call of the server takes (``server/dbthread.py``), with a call that
does nothing, so that only the hand-off is measured.

    python benchmarks/bench_handoff.py

"one at a time" is people's pace (each call awaited before the next: every result wakes the
loop); "four together" is four tables' calls finishing while the loop is busy.
"""

from __future__ import annotations

import asyncio
import time

from duyun.server.dbthread import MOVES, StoreRoute

CALLS = 20000


def _nothing(n: int) -> int:
    return n


async def _measure(dialect: str, width: int) -> tuple[float, float]:
    route = StoreRoute(dialect)
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        for n in range(CALLS // width):
            await asyncio.gather(*(route.call(MOVES, _nothing, n) for _ in range(width)))
        return time.process_time() - cpu, time.perf_counter() - wall
    finally:
        route.shutdown()


def main() -> None:
    for dialect in ("sqlite", "postgresql"):
        for width, name in ((1, "one at a time"), (4, "four together")):
            cpu, wall = asyncio.run(_measure(dialect, width))
            print(
                f"{dialect} route, {name}: {1e6 * cpu / CALLS:.1f} us CPU, "
                f"{1e6 * wall / CALLS:.1f} us wall per call"
            )


if __name__ == "__main__":
    main()
