"""What a 牌譜解析 costs and how often a bot agrees with 大師 (issue 36 item 5).

Plays ``--hands`` hands of four ``--bot`` bots on fresh walls (seeded), reviews seat 0 of each
with :func:`duyun.review.review_hand` at ``--samples`` deals per decision, and prints the CPU
time per hand (mean and 95th percentile, process time of the review alone), the decisions per
hand, the agreement rate with 大師 (with its 95 % interval over hands), the mistakes and the
expected points lost per hand. Asserts nothing; docs/simulate.md quotes it.

usage: python benchmarks/review_cost.py --bot strong --hands 200 [--samples 48] [--seed 1]
       [--every N]  (the figures so far every N hands, for a run that may be cut short)
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

from duyun.bots import BOT_NAMES, make_bot
from duyun.engine import Round, deal_setup
from duyun.review import DEFAULT_SAMPLES, HandReview, review_hand
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
    parser.add_argument(
        "--every", type=int, default=0, help="also print the figures so far every N hands"
    )
    args = parser.parse_args()
    hands = Figures()
    for number in range(args.hands):
        events = play_hand(args.bot, args.seed * 100_000 + number)
        start = time.process_time()
        review = review_hand(events, 0, samples=args.samples, seed=args.seed)
        hands.add(review, time.process_time() - start)
        if args.every and (number + 1) % args.every == 0 and number + 1 < args.hands:
            hands.report(args)
    hands.report(args)


class Figures:
    """The per-hand figures so far."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self.decisions: list[int] = []
        self.agreed: list[int] = []
        self.mistakes: list[int] = []
        self.losses: list[float] = []

    def add(self, review: HandReview, seconds: float) -> None:
        self.seconds.append(seconds)
        self.decisions.append(len(review.decisions))
        self.agreed.append(sum(d.agrees for d in review.decisions))
        self.mistakes.append(sum(d.mistake for d in review.decisions))
        self.losses.append(review.expected_loss)

    def report(self, args: argparse.Namespace) -> None:
        count = len(self.seconds)
        total = sum(self.decisions)
        rate = sum(self.agreed) / total if total else math.nan
        # the interval of a ratio estimate over hands (each hand one cluster of decisions)
        residuals = [a - rate * d for a, d in zip(self.agreed, self.decisions, strict=True)]
        spread = statistics.stdev(residuals) if len(residuals) > 1 else math.nan
        half = 1.96 * spread * math.sqrt(count) / total if total else math.nan
        seconds = sorted(self.seconds)
        p95 = seconds[min(count - 1, math.ceil(0.95 * count) - 1)]
        lost = statistics.fmean(self.losses)
        lost_half = 1.96 * statistics.stdev(self.losses) / math.sqrt(count) if count > 1 else 0
        print(
            f"bot {args.bot}, {count} hands, seat 0 reviewed at {args.samples} deals per "
            f"decision (seed {args.seed})"
        )
        print(f"  CPU per hand: mean {statistics.fmean(seconds):.2f} s, p95 {p95:.2f} s")
        print(f"  decisions per hand: {total / count:.1f}")
        print(f"  agreement with 大師: {rate:.1%} ± {half:.1%}")
        print(f"  disagreements per hand: {(total - sum(self.agreed)) / count:.2f}")
        print(
            f"  mistakes per hand: {sum(self.mistakes) / count:.2f}; expected points lost per "
            f"hand: {lost:+.2f} ± {lost_half:.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
