"""What a 牌譜解析 costs and how often a bot agrees with 大師 (issue 36 item 5).

Plays ``--hands`` hands of four ``--bot`` bots on fresh walls (seeded), reviews seat 0 of each
with :func:`duyun.review.review_hand` at ``--samples`` deals per decision, and prints the CPU
time per hand (mean and 95th percentile, process time of the review alone), the decisions per
hand, the agreement rate with 大師 (with its 95 % interval over hands), the mistakes and the
expected points lost per hand. Asserts nothing; docs/simulate.md quotes it.

usage: python benchmarks/review_cost.py --bot strong --hands 200 [--samples 48] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

from duyun.bots import BOT_NAMES, make_bot
from duyun.engine import Round, deal_setup
from duyun.review import DEFAULT_SAMPLES, review_hand
from duyun.rules import DUYUN


def play_hand(bot: str, seed: int) -> list[dict[str, object]]:
    game = Round(deal_setup(seed), DUYUN)
    bots = [make_bot(bot, seed=seed * 4 + index) for index in range(4)]
    while not game.is_over:
        seat = game.to_act[0]
        game.apply(bots[seat].choose(game.view(seat)))
    events: list[dict[str, object]] = json.loads(json.dumps(game.events, ensure_ascii=False))
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="strong", choices=BOT_NAMES)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    seconds: list[float] = []
    decisions: list[int] = []
    agreed: list[int] = []
    mistakes: list[int] = []
    losses: list[float] = []
    for number in range(args.hands):
        events = play_hand(args.bot, args.seed * 100_000 + number)
        start = time.process_time()
        review = review_hand(events, 0, samples=args.samples, seed=args.seed)
        seconds.append(time.process_time() - start)
        decisions.append(len(review.decisions))
        agreed.append(sum(d.agrees for d in review.decisions))
        mistakes.append(sum(d.mistake for d in review.decisions))
        losses.append(review.expected_loss)
    total = sum(decisions)
    rate = sum(agreed) / total if total else math.nan
    # the interval of a ratio estimate over hands (each hand one cluster of decisions)
    residuals = [a - rate * d for a, d in zip(agreed, decisions, strict=True)]
    spread = statistics.stdev(residuals) if len(residuals) > 1 else math.nan
    half = 1.96 * spread * math.sqrt(len(decisions)) / total if total else math.nan
    seconds.sort()
    p95 = seconds[min(len(seconds) - 1, math.ceil(0.95 * len(seconds)) - 1)]
    print(
        f"bot {args.bot}, {args.hands} hands, seat 0 reviewed at {args.samples} deals per "
        f"decision (seed {args.seed})"
    )
    print(f"  CPU per hand: mean {statistics.fmean(seconds):.2f} s, p95 {p95:.2f} s")
    print(f"  decisions per hand: {total / args.hands:.1f}")
    print(f"  agreement with 大師: {rate:.1%} ± {half:.1%}")
    print(f"  disagreements per hand: {(total - sum(agreed)) / args.hands:.2f}")
    print(
        f"  mistakes per hand: {sum(mistakes) / args.hands:.2f}; expected points lost per "
        f"hand: {statistics.fmean(losses):+.2f}"
    )


if __name__ == "__main__":
    main()
