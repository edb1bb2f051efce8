"""How well a seat can read a ready opponent's waits (issue 35): the learned opponent model's
``waits`` output within the hands that are ready, beside chance and beside the hands the
search's samples make ready.

The model's per-kind waits AUC (0.83, docs/research/learned-models.md) is taken over every
other seat, ready or not, so it is mostly readiness. A sampler that makes hands ready "with
the waits the model reads" can only be as good as the reading *within* a ready hand, which
this measures: at the deciding seat's own turns (self-play, four ``--bot``), for every other
seat that is truly ready and not in 報聽 (those are conditioned anyway, R25),

- the model's within-hand AUC (a true wait kind ranked above a kind that is not), and the
  share of its top one and top two kinds that are true waits (precision at 1 and 2);
- chance: the share of the 27 kinds that are waits, averaged the same way;
- the samples: ``--samples`` uniform deals of the unseen tiles developed to ready as
  ``duyun.bots.opponent_model.develop`` does (the search's ``LEARNED_HANDS``), and the share
  of their waits that are true waits.

Deterministic by seed; asserts nothing.

usage: python benchmarks/wait_reading.py --hands 200 --seed 35100 [--bot strong]
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from duyun.analysis.waits import waits
from duyun.bots import make_bot
from duyun.bots.learned import shipped_opponent_model
from duyun.bots.opponent_model import develop
from duyun.engine import Round, deal_setup
from duyun.engine.determinize import unseen_pool
from duyun.engine.phases import Phase
from duyun.engine.view import SeatView
from duyun.rules import DUYUN
from duyun.sim.runner import derive_seed
from duyun.tiles import to_counts


def ready_opponents(game: Round, view: SeatView) -> list[tuple[int, set[int]]]:
    """The other seats truly ready (their waits), not in 報聽 nor out of the hand."""
    found = []
    for other in view.opponents():
        if view.baoting[other] or view.won[other]:
            continue
        truth = set(game.ready_waits(other))
        if truth:
            found.append((other, truth))
    return found


def developed_waits(view: SeatView, size: int, rng: random.Random, samples: int) -> list[list[int]]:
    """The waits of ``samples`` hands of ``size`` tiles dealt uniformly from what ``view``
    cannot see and developed to ready (those that got there)."""
    pool = unseen_pool(view)
    tiles = [kind for kind in range(27) for _ in range(pool[kind])]
    found = []
    for _ in range(samples):
        rng.shuffle(tiles)
        counts = to_counts(tiles[:size])
        wall = tiles[size:]
        develop(counts, wall, 0, rng)
        reading = waits(counts)
        if reading:
            found.append(reading)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=35100)
    parser.add_argument("--bot", default="strong")
    parser.add_argument("--samples", type=int, default=8, help="developed samples per position")
    args = parser.parse_args()
    if args.hands < 1 or args.samples < 0:
        raise SystemExit("--hands must be at least 1 and --samples at least 0")
    model = shipped_opponent_model()
    rng = random.Random(derive_seed(args.seed, "samples"))
    aucs: list[float] = []
    top1: list[float] = []
    top2: list[float] = []
    chance: list[float] = []
    sampled: list[float] = []
    for hand in range(args.hands):
        game = Round(deal_setup(derive_seed(args.seed, "wall", hand), dealer=hand % 4), DUYUN)
        bots = [make_bot(args.bot, derive_seed(args.seed, "bot", hand, seat)) for seat in range(4)]
        while game.phase is not Phase.ENDED:
            seat = game.to_act[0]
            view = game.view(seat)
            if game.phase is Phase.TURN and seat == hand % 4:  # one seat's turns a hand
                opponents = ready_opponents(game, view)
                prediction = model.predict_view(view) if opponents else None
                for other, truth in opponents:
                    assert prediction is not None
                    rel = (other - seat) % 4 - 1
                    reading = prediction.waits[0, rel]
                    order = [int(kind) for kind in np.argsort(-reading, kind="stable")]
                    inside = [float(reading[k]) for k in truth]
                    outside = [float(reading[k]) for k in range(27) if k not in truth]
                    pairs = [(a > b) + 0.5 * (a == b) for a in inside for b in outside]
                    aucs.append(sum(pairs) / len(pairs))
                    top1.append(float(order[0] in truth))
                    top2.append(len(truth & set(order[:2])) / 2)
                    chance.append(len(truth) / 27)
                    size = sum(game.counts[other])
                    for found in developed_waits(view, size, rng, args.samples):
                        sampled.append(len(truth & set(found)) / len(found))
            game.apply(bots[seat].choose(view))
    if not aucs:
        print("no ready opponent at the deciding seat's turns: play more hands")
        return 0
    print(f"seed {args.seed}, {args.hands} hands of four {args.bot}:")
    print(f"  ready opponents at the deciding seat's turns: {len(aucs)}")
    print(f"  model, within-hand AUC of its waits reading: {np.mean(aucs):.3f}")
    print(f"  model, precision at 1: {np.mean(top1):.3f}, at 2: {np.mean(top2):.3f}")
    print(f"  chance (the share of kinds that are waits): {np.mean(chance):.3f}")
    if sampled:
        print(
            f"  uniform deals developed to ready ({len(sampled)}): "
            f"share of their waits that are true waits {np.mean(sampled):.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
