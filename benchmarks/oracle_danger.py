"""What perfect danger knowledge is worth to the strong bot's push/fold (issue 35): a bound on
any opponent model. The strong bot reads each opponent's readiness and the deal-in chance of
each discard from the learned model in ``strong-learned``; here the "model" is the hidden
truth itself (``duyun.learn.features.hidden_labels`` on the real hand: ready or not, and the
exact kinds each opponent may win on now, R17 included), so the bot peeks at the other hands.
Not a bot anybody plays: a ceiling for the learned one.

Paired duplicate on the same walls and seeds as ``benchmarks/paired_bots.py`` (four rotations
per wall, P1 against three ``opponents``), the oracle against ``strong``; prints the two
bots' points per hand and the difference with its 95 % interval.

usage: python benchmarks/oracle_danger.py --walls 600 --seed 35001 [--opponents efficient]
"""

from __future__ import annotations

import argparse

import numpy as np

from duyun.bots import BOT_NAMES, make_bot
from duyun.bots.base import Bot
from duyun.bots.learned import LearnedStrongBot
from duyun.engine import Round, SeatView
from duyun.learn.features import hidden_labels
from duyun.learn.models import KINDS, OpponentModel, OpponentPrediction
from paired_bots import p1_wall_points, paired_difference, play_walls


class Truth:
    """An "opponent model" that answers with the real hand's labels (it holds the game)."""

    def __init__(self) -> None:
        self.game: Round | None = None

    def predict_view(self, view: SeatView) -> OpponentPrediction:
        assert self.game is not None
        truth = hidden_labels(self.game, view.seat)
        ready = np.array([[float(t.ready) for t in truth]], dtype=np.float32)
        deal_in = np.array(
            [[[float((t.deal_in >> k) & 1) for k in range(KINDS)] for t in truth]],
            dtype=np.float32,
        )
        return OpponentPrediction(
            ready=ready,
            waits=deal_in,
            deal_in=deal_in,
            concealed=np.zeros((1, 3, KINDS, 4), dtype=np.float32),
        )


def wall_points(job: tuple[str, str, int, int]) -> int:
    """P1's points over the four rotations of one wall (``oracle`` or a bot name)."""
    spec, opponents, seed, unit = job

    def make_p1(bot_seed: int, game: Round) -> Bot:
        if spec != "oracle":
            return make_bot(spec, bot_seed)
        truth = Truth()
        truth.game = game
        model: OpponentModel = truth  # type: ignore[assignment]
        return LearnedStrongBot(bot_seed, model)

    return p1_wall_points(make_p1, opponents, seed, unit)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walls", type=int, default=600)
    parser.add_argument("--seed", type=int, default=35001)
    parser.add_argument("--opponents", default="efficient", choices=BOT_NAMES)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if args.walls < 2:
        raise SystemExit("--walls must be at least 2 (the interval needs two walls)")
    points = play_walls(wall_points, ("oracle", "strong"), args)
    mean, half_width = paired_difference(points["oracle"], points["strong"])
    n = args.walls
    print(
        f"oracle danger vs strong, three {args.opponents}, seed {args.seed}, {n} walls: "
        f"{sum(points['oracle']) / 4 / n:+.3f} against {sum(points['strong']) / 4 / n:+.3f} "
        f"points per hand; difference {mean:+.3f} ± {half_width:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
