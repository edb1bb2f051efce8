"""Self-play throughput and bot decision times (issue #4). Prints numbers, asserts nothing.

- efficient x4 self-play, hands/second on one worker (after a warm-up that fills the lazy
  analysis tables, which every worker process pays once);
- resident memory before and after the long run: it must stay flat (no unbounded caches);
- the speed-up of two local workers over one on the same job;
- the strong bot's decision time per action, mean and p99.

Environment: DUYUN_BENCH_HANDS (default 10000) sets the long run's length, DUYUN_BENCH_WARMUP
(default 3000) the warm-up's.
"""

from __future__ import annotations

import os
import resource
import time

from duyun.bots import make_bot
from duyun.engine import new_round
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


def _strong_decision_times(hands: int) -> list[float]:
    times: list[float] = []
    for index in range(hands):
        game = new_round(50_000 + index, dealer=index % 4)
        bots = [make_bot("strong" if seat == 0 else "efficient", seed=index) for seat in range(4)]
        while not game.is_over:
            seat = game.to_act[0]
            view = game.view(seat)
            start = time.perf_counter()
            action = bots[seat].choose(view)
            if seat == 0:
                times.append(time.perf_counter() - start)
            game.apply(action)
    return times


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
    times = sorted(_strong_decision_times(max(50, hands // 50)))
    mean = sum(times) / len(times)
    p99 = times[int(0.99 * (len(times) - 1))]
    print(
        f"strong decision: mean {1000 * mean:.3f} ms, p99 {1000 * p99:.3f} ms, "
        f"max {1000 * times[-1]:.3f} ms over {len(times)} actions (budget 50 ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
