"""What knowing the other hands is worth to 大師's search (issue 35): a ceiling for any model
of the opponents' hidden tiles, however it is used (weights, a sampler, a better one).

The search bot deals every sample uniformly over the tiles its seat cannot see; a model of
the other hands can at best replace that by the hands themselves. Here the "oracle" search
does exactly that: each sample is the real hand (every other seat's concealed tiles and
concealed kongs as they are) with only the live wall shuffled, which no model can know
(the wall is dealt at random). Everything else -- candidates, race, budget, rollout policy --
is the search bot's own. Not a bot anybody plays: it peeks at the hand.

The "pooled" oracle knows less: the real multiset of the tiles in the other hands, dealt at
random among them (each keeps its size; 報聽 hands and concealed kongs stay as they are), the
wall shuffled. It knows exactly which tiles are still live -- in the wall, to be drawn -- and
nothing about who holds the rest. The gap between the two says how much of the ceiling is
knowing the live tiles (offence: which waits can still come) and how much is knowing whose
hand holds what (defence, claims).

Paired duplicate on the walls and seeds of ``benchmarks/paired_bots.py`` (four rotations a
wall, P1 against three ``--opponents``): each of ``--bots`` (by default the oracle, the search
bot and the strong bot) plays P1 on every wall. Every wall's results go to a JSON-lines file
as it finishes (``--start`` resumes a stopped run; ``--summarise FILE`` prints the summary
again); the summary gives each bot's points per hand and the paired differences with 95 % intervals.

usage: python benchmarks/oracle_search.py --walls 500 --seed S --out oracle.jsonl
       [--opponents efficient] [--workers 2] [--start 0] [--bots oracle,pooled,search,strong]
       python benchmarks/oracle_search.py --summarise a.jsonl [b.jsonl ...]
(several files are merged wall by wall: runs of different bots on the same seed pair up)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import unicodedata
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

from duyun.bots import BOT_NAMES, make_bot
from duyun.bots.base import Bot
from duyun.bots.search import SearchBot
from duyun.engine import Round, SeatView, WinKind
from duyun.engine.determinize import HandModel, _reopen_claims
from duyun.engine.phases import Phase
from duyun.rules import RuleSet
from duyun.tiles import NUM_KINDS
from paired_bots import bot_factory, p1_wall_points, paired_difference

SPECS = ("oracle", "pooled", "search", "strong")
ORACLES = ("oracle", "pooled")


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


class PooledHandsSearch(OracleHandsSearch):
    """The oracle that knows which tiles are in the other hands but not whose they are: the
    real hands' tiles pooled and dealt at random among those hands, the wall shuffled."""

    name = "pooled-oracle-search"

    def sample_world(self, view: SeatView, rules: RuleSet, model: HandModel | None) -> Round:
        world = super().sample_world(view, rules, model)
        redeal_pooled(world, view, self.rng)
        return world


def redeal_pooled(world: Round, view: SeatView, rng: random.Random) -> None:
    """Deal the tiles of the other free hands (not 報聽: those are conditioned on being ready
    in any sample, here kept as they are) at random among them, each keeping its size, and
    clear what the round derived from the old hands, as the sampler does after a deal."""
    seats = [s for s in range(4) if s != view.seat and not view.won[s] and not view.baoting[s]]
    tiles = [kind for s in seats for kind in range(NUM_KINDS) for _ in range(world.counts[s][kind])]
    rng.shuffle(tiles)
    position = 0
    for s in seats:
        size = sum(world.counts[s])
        counts = [0] * NUM_KINDS
        for kind in tiles[position : position + size]:
            counts[kind] += 1
        position += size
        world.counts[s] = counts
        world.last_four_marks[s] = [0] * NUM_KINDS
        world.ron_blocked[s] = False
        world.refused_wins[s] = None
    if world.phase is Phase.TURN and world.current in seats and world.drawn_tile is not None:
        held = [kind for kind in range(NUM_KINDS) for _ in range(world.counts[world.current][kind])]
        world.drawn_tile = rng.choice(held)
    if world.phase is Phase.CLAIMS:
        _reopen_claims(world, view)
    world.forget_derived()


def wall_points(job: tuple[int, str, int, tuple[str, ...]]) -> dict[str, Any]:
    """Each of ``bots``' P1 points over the four rotations of wall ``unit``, and under
    ``detail`` where they came from (:func:`tally`)."""
    unit, opponents, seed, bots = job

    row: dict[str, Any] = {}
    detail: dict[str, dict[str, int]] = {}
    for spec in bots:
        counts = detail[spec] = {}
        on_hand = partial(tally, counts=counts)
        row[spec] = p1_wall_points(partial(make_p1, spec), opponents, seed, unit, on_hand)
    row["detail"] = detail
    return row


def make_p1(spec: str, bot_seed: int, game: Round) -> Bot:
    """P1's bot ``spec`` for one rotation; an oracle is handed the real hand."""
    if ":" in spec:  # module:Class, an experiment (search_variants.py)
        return bot_factory(spec)(bot_seed)
    if spec not in ORACLES:
        return make_bot(spec, bot_seed)
    oracle = (OracleHandsSearch if spec == "oracle" else PooledHandsSearch)(bot_seed)
    oracle.game = game
    return oracle


def tally(game: Round, seat: int, counts: dict[str, int]) -> None:
    """Add one finished hand to ``seat``'s counts: its wins (all, self-drawn), the wins on
    its discards or on its kong robbed (搶槓, settled as a discard: R29) -- the deal-ins --
    and its net points by the rule that paid them (R12 beans, R28 a win on a discard, R29 a
    self-drawn win or a 搶槓, R30 查叫, ...)."""
    result = game.result
    assert result is not None
    for win in result.wins:
        if seat in win.seats:
            counts["wins"] = counts.get("wins", 0) + 1
            if win.kind is WinKind.SELF_DRAW:
                counts["self_draws"] = counts.get("self_draws", 0) + 1
        elif win.from_seat == seat:
            counts["deal_ins"] = counts.get("deal_ins", 0) + 1
    for payment in result.payments:
        net = (payment.payee == seat) * payment.points - (payment.payer == seat) * payment.points
        if net:
            counts[payment.rule] = counts.get(payment.rule, 0) + net


def summarise(rows: list[dict[str, Any]], label: str) -> str:
    """Points per hand of each bot and the paired differences, 95 % intervals; then, on the
    walls whose rows say where the points came from, the breakdown per hand."""
    n = len(rows)
    if n < 2:
        return f"{label}: {n} wall(s), too few for an interval"
    lines = [f"{label}, {n} walls ({4 * n} hands each):"]
    variants = sorted(
        {key for r in rows for key in r if key not in SPECS and key not in ("wall", "detail")}
    )
    played = [spec for spec in (*SPECS, *variants) if all(spec in r for r in rows)]
    for spec in played:
        lines.append(f"  {spec:7} {sum(r[spec] for r in rows) / (4 * n):+.3f} points per hand")
    for variant, base in (
        ("oracle", "strong"),
        ("pooled", "strong"),
        ("search", "strong"),
        ("oracle", "search"),
        ("pooled", "search"),
        ("oracle", "pooled"),
        *((variant, base) for variant in variants for base in ("search", "strong")),
    ):
        if variant not in played or base not in played:
            continue
        mean, half = paired_difference([r[variant] for r in rows], [r[base] for r in rows])
        lines.append(f"  {variant} - {base}: {mean:+.3f} ± {half:.3f} per hand")
    detailed = [r["detail"] for r in rows if all(b in r.get("detail", {}) for b in played)]
    if detailed:
        hands = 4 * len(detailed)
        lines.append(f"  where the points came from, {len(detailed)} walls ({hands} hands each):")
        seen = {key for d in detailed for b in played for key in d[b]}
        keys = [key for key in TALLY_NAMES if key in seen] + sorted(seen - set(TALLY_NAMES))
        widths = [max(9, len(b) + 2) for b in played]
        lines.append(
            f"    {'per hand':36}"
            + "".join(f"{b:>{w}}" for b, w in zip(played, widths, strict=True))
        )
        for key in keys:
            cells = "".join(
                f"{sum(d[b].get(key, 0) for d in detailed) / hands:>{w}.3f}"
                for b, w in zip(played, widths, strict=True)
            )
            lines.append(f"    {_pad(TALLY_NAMES.get(key, key + ' points'), 36)}{cells}")
    return "\n".join(lines)


def _pad(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns of a terminal, where a CJK character takes two."""
    columns = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, width - columns)


TALLY_NAMES = {
    "wins": "wins",
    "self_draws": "of them self-drawn (R16)",
    "deal_ins": "deal-ins (on P1's discard or kong)",
    "R12": "bean points (R12)",
    "R28": "points of wins on a discard (R28)",
    "R29": "self-drawn wins and 搶槓 (R29)",
    "R30": "查叫 points (R30)",
    "R14": "beans returned at a draw (R14)",
}


def merge_by_wall(files: list[Path]) -> list[dict[str, Any]]:
    """One row per wall with every bot the files played there (files of one seed: other
    walls, other bots, or both), kept where every bot any file played was played, so that
    the differences are paired; a bot played twice on a wall must agree, or the files are
    not of the same seed and opponents. Breakdowns (``detail``) are merged alike."""
    merged: dict[int, dict[str, Any]] = {}
    for path in files:
        for line in path.read_text().splitlines():
            if not line:
                continue
            row = json.loads(line)
            wall = row.pop("wall")
            detail = row.pop("detail", {})
            known = merged.setdefault(wall, {})
            for bot, points in row.items():
                if known.setdefault(bot, points) != points:
                    raise SystemExit(f"wall {wall}: {bot} scored {known[bot]} and {points}")
            for bot, counts in detail.items():
                known.setdefault("detail", {}).setdefault(bot, counts)
    bots = {bot for row in merged.values() for bot in row if bot != "detail"}
    return [
        merged[wall]
        for wall in sorted(merged)
        if {bot for bot in merged[wall] if bot != "detail"} == bots
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walls", type=int, default=500, help="play walls start .. walls-1")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--seed", type=int, default=35002)
    parser.add_argument("--opponents", default="efficient", choices=BOT_NAMES)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, help="JSON-lines file, one wall a line (appended)")
    parser.add_argument(
        "--bots",
        default="oracle,search,strong",
        help=f"P1 bots, comma-separated, of {SPECS} or module:Class (search_variants.py)",
    )
    parser.add_argument(
        "--summarise", type=Path, nargs="+", help="print the summary of files (merged by wall)"
    )
    args = parser.parse_args()
    if args.summarise is not None:
        rows = merge_by_wall(args.summarise)
        print(summarise(rows, " + ".join(map(str, args.summarise))))
        return 0
    bots = tuple(args.bots.split(","))
    unknown = [bot for bot in bots if bot not in SPECS and ":" not in bot]
    if unknown or not bots:
        raise SystemExit(
            f"--bots: {', '.join(unknown) or 'none given'}: choose from {SPECS} or module:Class"
        )
    if not 0 <= args.start < args.walls:
        raise SystemExit("--start must be at least 0 and below --walls")
    if args.workers < 1:
        raise SystemExit("--workers must be at least 1")
    rows: list[dict[str, Any]] = []
    units = range(args.start, args.walls)
    jobs = [(unit, args.opponents, args.seed, bots) for unit in units]
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
