"""Paired duplicate comparison of two bots on the same walls (issue 11's method).

``duyun simulate --duplicate`` measures one bot against its opponents; telling two close
versions of a bot apart that way needs far more hands than the difference between them. Here
both versions play every wall four times (the lineup rotated, as in ``--duplicate``) as
player P1 against the same three opponents with the same seeds, and the per-wall difference
of their points is what is averaged: the luck of the deal cancels, and most walls, played
identically by both, add no noise at all.

A bot is a name (``strong``, ``heuristic``, ...) or ``module:Class`` for an experiment: a
subclass of a bot in a module on ``sys.path`` (``PYTHONPATH``), for example a ``StrongBot``
with one class attribute changed. Prints the two bots' points per hand and the difference
with its 95 % interval; asserts nothing.

usage: python benchmarks/paired_bots.py VARIANT [BASE] --walls N --seed S
       [--opponents efficient] [--workers 2]
"""

from __future__ import annotations

import argparse
import importlib
import math
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from duyun.bots import BOT_NAMES, make_bot
from duyun.bots.base import Bot
from duyun.engine import Round, deal_setup
from duyun.rules import DUYUN
from duyun.sim.runner import derive_seed, play_round, seating


def bot_factory(spec: str) -> Callable[[int], Bot]:
    """A bot name, or ``module:Class`` of a bot class taking a seed."""
    if ":" not in spec:
        if spec not in BOT_NAMES:
            raise SystemExit(f"unknown bot {spec!r}: use one of {', '.join(BOT_NAMES)}")
        return lambda seed: make_bot(spec, seed)
    module_name, class_name = spec.split(":", 1)
    bot_class: Callable[[int], Bot] = getattr(importlib.import_module(module_name), class_name)
    return bot_class


def p1_wall_points(
    make_p1: Callable[[int, Round], Bot],
    opponents: str,
    seed: int,
    unit: int,
    on_hand: Callable[[Round, int], None] | None = None,
) -> int:
    """P1's points over the four rotations of wall ``unit`` of ``seed``: the duplicate deal
    every paired tool plays, so that their rows for one wall pair up. ``make_p1(bot_seed,
    game)`` makes P1's bot for each rotation; it is handed the real hand for the benchmarks
    that peek at it (the oracles), and the other three are ``opponents``. ``on_hand(game,
    seat)`` sees each finished hand and P1's seat in it, for a tool that breaks the points
    down."""
    total = 0
    for rotation in range(4):
        seat_of = seating(rotation)
        game = Round(deal_setup(derive_seed(seed, "wall", unit), dealer=unit % 4), DUYUN)
        by_seat: dict[int, Bot] = {}
        for player in range(4):
            bot_seed = derive_seed(seed, "bot", unit, rotation, player)
            by_seat[seat_of[player]] = (
                make_p1(bot_seed, game) if player == 0 else make_bot(opponents, bot_seed)
            )
        play_round(game, [by_seat[seat] for seat in range(4)])
        assert game.result is not None
        total += game.result.totals[seat_of[0]]
        if on_hand is not None:
            on_hand(game, seat_of[0])
    return total


def wall_points(job: tuple[str, str, int, int]) -> int:
    """P1's points over the four rotations of one wall for bot ``spec``."""
    spec, opponents, seed, unit = job
    factory = bot_factory(spec)
    return p1_wall_points(lambda bot_seed, _game: factory(bot_seed), opponents, seed, unit)


def play_walls(
    points_of: Callable[[tuple[str, str, int, int]], int],
    specs: tuple[str, ...],
    args: argparse.Namespace,
) -> dict[str, list[int]]:
    """Each spec's P1 points wall by wall (``points_of`` per wall, on ``args.workers``
    processes), walls 0 .. ``args.walls`` - 1 of ``args.seed`` against ``args.opponents``.
    ``benchmarks/oracle_danger.py`` plays its walls through this too."""
    with ProcessPoolExecutor(args.workers) as pool:
        return {
            spec: list(
                pool.map(
                    points_of,
                    [(spec, args.opponents, args.seed, unit) for unit in range(args.walls)],
                    chunksize=10,
                )
            )
            for spec in specs
        }


def paired_difference(variant: list[int], base: list[int]) -> tuple[float, float]:
    """The mean per-hand difference of two bots' per-wall points (four hands a wall) and the
    half-width of its 95 % interval (normal, over walls)."""
    diffs = [v - b for v, b in zip(variant, base, strict=True)]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    return mean / 4, 1.96 * sd / math.sqrt(n) / 4


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant")
    parser.add_argument("base", nargs="?", default="strong")
    parser.add_argument("--walls", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opponents", default="efficient", choices=BOT_NAMES)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.walls < 2:
        raise SystemExit("--walls must be at least 2 (the interval needs two walls)")
    for spec in (args.variant, args.base):
        bot_factory(spec)  # a bad name fails here, not in every worker
    points = play_walls(wall_points, (args.variant, args.base), args)
    mean, half_width = paired_difference(points[args.variant], points[args.base])
    n = args.walls
    hands = 4 * n
    differ = sum(1 for v, b in zip(points[args.variant], points[args.base], strict=True) if v != b)
    print(
        f"{args.variant} vs {args.base}, three {args.opponents}, seed {args.seed}, {n} walls "
        f"({hands} hands each): {sum(points[args.variant]) / hands:+.3f} against "
        f"{sum(points[args.base]) / hands:+.3f} points per hand; difference "
        f"{mean:+.3f} ± {half_width:.3f} per hand "
        f"({differ} walls played differently)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
