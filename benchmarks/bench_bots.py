"""Bot decision times (issue 11): mean, p99 and max per decision, one process on one core.

The budget of the ``strong`` bot is a mean under 20 ms and a p99 under 100 ms per decision.
Every bot plays seat 0 against three efficient bots on the same walls; only seat 0's
decisions with a real choice (more than one legal action) are timed. A warm-up fills the lazy
suit-shape tables first, as any long-running process has them filled. Prints numbers and
asserts nothing: timings vary by machine.

Environment: DUYUN_BENCH_BOT_HANDS (default 200) hands per bot.
"""

from __future__ import annotations

import os
import time

from duyun.bots import make_bot
from duyun.engine import new_round

BOTS = ("efficient", "heuristic", "strong")
BUDGET_MEAN_MS = 20.0
BUDGET_P99_MS = 100.0


def decision_times(name: str, hands: int, first_seed: int) -> list[float]:
    """Seconds per seat-0 decision of bot ``name`` over ``hands`` hands."""
    times: list[float] = []
    for index in range(hands):
        game = new_round(first_seed + index, dealer=index % 4)
        bots = [make_bot(name if seat == 0 else "efficient", seed=index) for seat in range(4)]
        while not game.is_over:
            seat = game.to_act[0]
            view = game.view(seat)
            start = time.perf_counter()
            action = bots[seat].choose(view)
            if seat == 0 and len(view.legal) > 1:
                times.append(time.perf_counter() - start)
            game.apply(action)
    return times


def main() -> int:
    hands = int(os.environ.get("DUYUN_BENCH_BOT_HANDS", "200"))
    print("== bot decision times (benchmarks/bench_bots.py), one process")
    for name in BOTS:
        decision_times(name, max(10, hands // 4), first_seed=90_000)  # warm-up
        times = sorted(decision_times(name, hands, first_seed=70_000))
        mean = 1000 * sum(times) / len(times)
        p99 = 1000 * times[int(0.99 * (len(times) - 1))]
        verdict = ""
        if name == "strong":
            within = mean < BUDGET_MEAN_MS and p99 < BUDGET_P99_MS
            verdict = f"  budget mean < {BUDGET_MEAN_MS:.0f} ms, p99 < {BUDGET_P99_MS:.0f} ms: " + (
                "within" if within else "OVER"
            )
        print(
            f"{name:>9}: mean {mean:7.3f} ms, p99 {p99:7.3f} ms, max {1000 * times[-1]:7.3f} ms "
            f"over {len(times)} decisions{verdict}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
