"""How far from ready the others' hands are, by what anybody can see of them (issue 23): the
table behind the search bot's model of the other seats (``duyun/bots/opponent_model.py``).

Uniformly sampled hidden hands are random hands: two or three steps from ready whatever the
turn. Real hands are not: they were built by drawing and keeping the useful tiles, so after
six discards half of them are ready. This script plays hands with four bots (``strong`` by
default) and, at every decision, records for every other seat still in the hand and not in
報聽 its shanten against what a seat sees of it: its number of discards in the river and its
number of melds. It prints the distribution of shanten per cell, smoothed, as the Python
literal that ``opponent_model.SHANTEN_PRIOR`` holds, and beside it the same cells for hands
sampled uniformly from the deciding seat's view (``sample_round``): the gap the model closes.

usage: python benchmarks/opponent_prior.py --hands 2000 --seed 1 [--bot strong]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from duyun.analysis import shanten
from duyun.bots import make_bot
from duyun.bots.opponent_model import MAX_DISCARDS, MAX_SHANTEN, cell
from duyun.engine import Round, deal_setup, sample_round
from duyun.sim.runner import derive_seed

SEATS = 4
SMOOTHING = 0.2  # pseudo-count added to every shanten of a cell


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot", default="strong")
    parser.add_argument(
        "--uniform-every", type=int, default=7, help="compare uniform samples at every Nth decision"
    )
    args = parser.parse_args()
    real: dict[tuple[int, int], Counter[int]] = {}
    uniform: dict[tuple[int, int], Counter[int]] = {}
    rng = random.Random(args.seed)
    decisions = 0
    for hand in range(args.hands):
        game = Round(deal_setup(derive_seed(args.seed, "wall", hand), dealer=hand % SEATS))
        bots = [make_bot(args.bot, derive_seed(args.seed, "bot", hand, s)) for s in range(SEATS)]
        while not game.is_over:
            seat = game.to_act[0]
            view = game.view(seat)
            decisions += 1
            compare = decisions % args.uniform_every == 0
            world = sample_round(view, rng=rng) if compare else None
            for other in view.opponents():
                if view.baoting[other] or view.won[other]:
                    continue
                if view.concealed_sizes[other] % 3 != 1:
                    continue
                key = cell(len(view.rivers[other]), len(view.melds[other]))
                value = min(MAX_SHANTEN, shanten(game.counts[other]))
                real.setdefault(key, Counter())[value] += 1
                if world is not None:
                    sampled = min(MAX_SHANTEN, shanten(world.counts[other]))
                    uniform.setdefault(key, Counter())[sampled] += 1
            game.apply(bots[seat].choose(view))
    print(f"# {args.hands} hands of four {args.bot} bots, seed {args.seed}: {decisions} decisions")
    print("# cell (discards, melds): real shanten distribution | uniform samples' mean")
    print("SHANTEN_PRIOR = {")
    for discards in range(MAX_DISCARDS + 1):
        for melds in range(5):
            key = (discards, melds)
            seen = real.get(key)
            if not seen:
                continue
            total = sum(seen.values())
            # a little smoothing: a cell seen a few times does not rule a shanten out
            shares = [
                (seen[k] + SMOOTHING) / (total + SMOOTHING * (MAX_SHANTEN + 1))
                for k in range(MAX_SHANTEN + 1)
            ]
            mean = sum(k * seen[k] for k in seen) / total
            other = uniform.get(key)
            mean_uniform = (
                sum(k * other[k] for k in other) / sum(other.values()) if other else float("nan")
            )
            print(
                f"    {key}: ({', '.join(f'{s:.3f}' for s in shares)}),"
                f"  # n={total}, mean {mean:.2f}, uniform {mean_uniform:.2f}"
            )
    print("}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
