"""What knowing the other hands is worth to 大師's search (issue 35): a ceiling for any model
of the opponents' hidden tiles, however it is used (weights, a sampler, a better one).

The search bot deals every sample uniformly over the tiles its seat cannot see; a model of
the other hands can at best replace that by the hands themselves. Here the "oracle" search
does exactly that: each sample is the real hand (every other seat's concealed tiles and
concealed kongs as they are) with only the live wall shuffled, which no model can know
(the wall is dealt at random). Everything else -- candidates, race, budget, rollout policy --
is the search bot's own. Not a bot anybody plays: it peeks at the hand.

Paired duplicate on the walls and seeds of ``benchmarks/paired_bots.py`` (four rotations a
wall, P1 against three ``--opponents``): the oracle, the search bot and the strong bot each
play P1 on every wall. Every wall's three results go to a JSON-lines file as it finishes
(``--start`` resumes a stopped run; ``--summarise FILE`` prints the summary again); the
summary gives each bot's points per hand and the paired differences with 95 % intervals.

usage: python benchmarks/oracle_search.py --walls 500 --seed S --out oracle.jsonl
       [--opponents efficient] [--workers 2] [--start 0]
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from duyun.bots import BOT_NAMES, make_bot
from duyun.bots.base import Bot
from duyun.bots.search import SearchBot
from duyun.engine import Round, SeatView, deal_setup
from duyun.engine.determinize import HandModel
from duyun.rules import DUYUN, RuleSet
from duyun.sim.runner import derive_seed, play_round, seating
from paired_bots import paired_difference

SPECS = ("oracle", "search", "strong")


class OracleHandsSearch(SearchBot):
    """The search bot whose samples are the real hand with the live wall shuffled."""

    name = "oracle-search"

    def __init__(self, seed: int = 0, rules: RuleSet | None = None) -> None:
        super().__init__(seed, rules)
        self.game: Round | None = None  # the real hand, set by whoever deals it

    def sample_world(self, view: SeatView, rules: RuleSet, model: HandModel | None) -> Round:
        assert self.game is not None, "the oracle is given the real hand before it plays"
        world = self.game.copy()
        live = world.wall[world.front : world.back]
        self.rng.shuffle(live)
        world.wall = live
        world.front = 0
        world.back = len(live)
        return world


def wall_points(job: tuple[int, str, int]) -> dict[str, int]:
    """Each spec's P1 points over the four rotations of wall ``unit``."""
    unit, opponents, seed = job
    points = {}
    for spec in SPECS:
        total = 0
        for rotation in range(4):
            seat_of = seating(rotation)
            by_seat: dict[int, Bot] = {}
            oracle: OracleHandsSearch | None = None
            for player in range(4):
                bot_seed = derive_seed(seed, "bot", unit, rotation, player)
                if player:
                    by_seat[seat_of[player]] = make_bot(opponents, bot_seed)
                elif spec == "oracle":
                    oracle = OracleHandsSearch(bot_seed)
                    by_seat[seat_of[player]] = oracle
                else:
                    by_seat[seat_of[player]] = make_bot(spec, bot_seed)
            game = Round(deal_setup(derive_seed(seed, "wall", unit), dealer=unit % 4), DUYUN)
            if oracle is not None:
                oracle.game = game
            play_round(game, [by_seat[seat] for seat in range(4)])
            assert game.result is not None
            total += game.result.totals[seat_of[0]]
        points[spec] = total
    return points


def summarise(rows: list[dict[str, int]], label: str) -> str:
    """Points per hand of each bot and the paired differences, 95 % intervals."""
    n = len(rows)
    if n < 2:
        return f"{label}: {n} wall(s), too few for an interval"
    lines = [f"{label}, {n} walls ({4 * n} hands each):"]
    for spec in SPECS:
        lines.append(f"  {spec:7} {sum(r[spec] for r in rows) / (4 * n):+.3f} points per hand")
    for variant, base in (("oracle", "strong"), ("search", "strong"), ("oracle", "search")):
        mean, half = paired_difference([r[variant] for r in rows], [r[base] for r in rows])
        lines.append(f"  {variant} - {base}: {mean:+.3f} ± {half:.3f} per hand")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walls", type=int, default=500, help="play walls start .. walls-1")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--seed", type=int, default=35002)
    parser.add_argument("--opponents", default="efficient", choices=BOT_NAMES)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, help="JSON-lines file, one wall a line (appended)")
    parser.add_argument("--summarise", type=Path, help="print the summary of a file and stop")
    args = parser.parse_args()
    if args.summarise is not None:
        rows = [json.loads(line) for line in args.summarise.read_text().splitlines() if line]
        print(summarise(rows, str(args.summarise)))
        return 0
    if not 0 <= args.start < args.walls:
        raise SystemExit("--start must be at least 0 and below --walls")
    if args.workers < 1:
        raise SystemExit("--workers must be at least 1")
    rows: list[dict[str, int]] = []
    units = range(args.start, args.walls)
    jobs = [(unit, args.opponents, args.seed) for unit in units]
    with ProcessPoolExecutor(args.workers) as pool:
        for unit, points in zip(units, pool.map(wall_points, jobs), strict=True):
            rows.append(points)
            if args.out is not None:
                with args.out.open("a") as out:
                    out.write(json.dumps({"wall": unit, **points}) + "\n")
            if len(rows) % 25 == 0:
                print(summarise(rows, f"seed {args.seed}"), flush=True, file=sys.stderr)
    print(summarise(rows, f"seed {args.seed}, three {args.opponents}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
