"""Self-play throughput and bot decision times (issue #4). Prints numbers, asserts nothing.

- efficient x4 self-play, hands/second on one worker (after a warm-up that fills the lazy
  analysis tables, which every worker process pays once);
- resident memory before and after the long run: it must stay flat (no unbounded caches);
- the speed-up of two local workers over one on the same job;
- (the bots' decision times are in ``bench_bots.py``).

Environment: DUYUN_BENCH_HANDS (default 10000) sets the long run's length, DUYUN_BENCH_WARMUP
(default 3000) the warm-up's.
"""

from __future__ import annotations

import os
import resource
import time

from duyun.sim import SimConfig, run

EFFICIENT = ("efficient", "efficient", "efficient", "efficient")


def _rss_mb() -> float:
    """Current resident set size (Linux /proc), falling back to the peak."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _hands_per_second(hands: int, workers: int, seed: int) -> float:
    config = SimConfig(bots=EFFICIENT, units=hands, seed=seed)
    start = time.perf_counter()
    played = sum(len(records) for records in run(config, workers=workers))
    return played / (time.perf_counter() - start)


def main() -> int:
    hands = int(os.environ.get("DUYUN_BENCH_HANDS", "10000"))
    print("== self-play (benchmarks/bench_selfplay.py)")
    # warm-up: imports and the lazily filled suit-shape tables, which are bounded (a full
    # table starts over), so after this the footprint should stay flat
    _hands_per_second(int(os.environ.get("DUYUN_BENCH_WARMUP", "3000")), 1, seed=999)
    rss_before = _rss_mb()
    rates: list[float] = []
    checkpoints: list[str] = []
    fifth = max(1, hands // 5)
    for part in range(5):
        rates.append(_hands_per_second(fifth, 1, seed=1 + part))
        checkpoints.append(f"{_rss_mb():.0f}")
    one = len(rates) / sum(1 / rate for rate in rates)
    rss_after = _rss_mb()
    print(f"efficient x4, 1 worker: {one:7.1f} hands/s over {5 * fifth} hands (target >= 200)")
    print(
        f"RSS before {rss_before:.1f} MB, after {rss_after:.1f} MB "
        f"(growth {rss_after - rss_before:+.1f} MB); after each fifth: {', '.join(checkpoints)} MB"
    )
    print("  (the per-suit-shape tables of the analysis and the bots are bounded; nothing is kept")
    print("   per hand, so growth after the warm-up is allocator noise, not a leak)")
    cores = os.cpu_count() or 1
    if cores >= 2:
        two = _hands_per_second(hands // 2, 2, seed=2)
        print(
            f"efficient x4, 2 workers: {two:7.1f} hands/s, speed-up {two / one:.2f}x "
            "(workers warm their tables on their own)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
