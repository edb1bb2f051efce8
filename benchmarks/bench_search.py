"""Decision times of the search bot (大師, issue 23) on one core: the bot in one seat against
three ``efficient`` bots for a few hands; mean, p99 and max over all its decisions and over
the searched ones (the budget: mean <= 300 ms, p99 <= 1 s), in CPU time of this process (the
time one core would take; on a busy shared machine the wall-clock time is longer).
``--bot search-learned`` times 大師 on the learned models (issue 35) on the same hands."""

from __future__ import annotations

import argparse
import time

from duyun.bots import make_bot
from duyun.bots.search import SearchBot
from duyun.engine import new_round

HANDS = 6
MEAN_BUDGET = 0.300
P99_BUDGET = 1.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="search", help="search or search-learned")
    parser.add_argument("--hands", type=int, default=HANDS)
    args = parser.parse_args()
    print(f"== {args.bot}: CPU time per decision, {args.hands} hands against three efficient bots")
    every: list[float] = []
    searched: list[float] = []
    rollouts = changed = 0
    for seed in range(args.hands):
        game = new_round(seed, dealer=seed % 4)
        bot = make_bot(args.bot, seed)
        assert isinstance(bot, SearchBot)
        others = [make_bot("efficient", seat) for seat in range(4)]
        while not game.is_over:
            seat = game.to_act[0]
            view = game.view(seat)
            if seat != 0:
                game.apply(others[seat].choose(view))
                continue
            before = bot.searched
            start = time.process_time()
            action = bot.choose(view)
            spent = time.process_time() - start
            every.append(spent)
            if bot.searched > before:
                searched.append(spent)
            game.apply(action)
        rollouts += bot.rollouts
        changed += bot.changed
    status = 0
    for label, times in (("all decisions", every), ("searched", searched)):
        times.sort()
        mean = sum(times) / len(times)
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        print(
            f"  {label:<14} {len(times):5d}  mean {1000 * mean:6.0f} ms  p99 {1000 * p99:6.0f} ms"
            f"  max {1000 * times[-1]:6.0f} ms"
        )
        if label == "all decisions" and (mean > MEAN_BUDGET or p99 > P99_BUDGET):
            print("  over the budget (mean 300 ms, p99 1 s) on this machine now")
    print(
        f"  {rollouts} rollouts ({rollouts / max(1, len(searched)):.0f} per searched decision"
        f" of at most {SearchBot.BUDGET}); the strong bot's choice replaced {changed} times"
    )
    return status


if __name__ == "__main__":
    raise SystemExit(main())
