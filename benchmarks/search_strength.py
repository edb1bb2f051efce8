"""The search bot's strength in duplicate, measured wall by wall so that a run can be stopped
at any time (issue 23 item 3): on each wall (four rotations, as ``--duplicate``) the bot and
the strong bot play P1 against three ``efficient`` bots, then against three ``strong`` bots,
with the same seeds. Every wall's points go to a JSON-lines file as it finishes; the summary
(points per hand with 95 % intervals, and the paired difference from ``strong``) is printed
every ``--every`` walls and at the end, and ``--summarise FILE`` prints it again from a file.

Also times the search bot's decisions in CPU time of this process (mean, p99, max; all and
searched only): on a shared machine wall-clock times say more about the load than the bot.

The strong bot does not change from one version of the search bot to the next, so a run may
take its rows from an earlier run's file (``--baseline FILE``: the same seed and walls) and
play only the search bot. ``--set NAME=VALUE`` overrides a ``SearchBot`` setting (``BUDGET``,
``MARGIN``, ``Z``, ``DROP_Z``, ``VALUE_ROLLOUTS``, ...) to try a variant on the same walls;
``--opponents efficient`` plays one lineup only.

usage: python benchmarks/search_strength.py --walls 150 --seed 2026123 --out walls.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from duyun.bots import make_bot
from duyun.bots.base import Bot
from duyun.bots.search import SearchBot
from duyun.engine import Action, Round, SeatView
from paired_bots import bot_factory, p1_wall_points

OPPONENTS = ("efficient", "strong")


class _Timed:
    """A bot whose decision times are recorded."""

    def __init__(self, bot: Bot, times: list[tuple[float, bool, bool]]) -> None:
        self.bot = bot
        self.name = bot.name
        # per decision: CPU seconds, searched, the strong bot's choice replaced
        self.times = times

    def choose(self, view: SeatView) -> Action:
        searched = getattr(self.bot, "searched", 0)
        changed = getattr(self.bot, "changed", 0)
        start = time.process_time()
        action = self.bot.choose(view)
        self.times.append(
            (
                time.process_time() - start,
                getattr(self.bot, "searched", 0) > searched,
                getattr(self.bot, "changed", 0) > changed,
            )
        )
        return action


def make_player(bot: str, seed: int) -> Bot:
    """A bot by name, or ``module:Class`` for an experiment (benchmarks/search_variants.py)."""
    return bot_factory(bot)(seed) if ":" in bot else make_bot(bot, seed)


def parse_settings(pairs: list[str], bot: str = "search") -> dict[str, float]:
    """``NAME=VALUE`` pairs as settings of ``bot``'s class; a name it does not have is an
    error."""
    settings: dict[str, float] = {}
    kind = type(make_player(bot, 0))
    for pair in pairs:
        name, _, value = pair.partition("=")
        if not value or not hasattr(kind, name) or not name.isupper():
            raise SystemExit(f"--set {pair!r}: expected NAME=VALUE with a {bot} setting")
        try:
            settings[name] = float(value)
        except ValueError:
            raise SystemExit(f"--set {pair!r}: {value!r} is not a number") from None
    return settings


def wall_points(
    bot: str,
    opponents: str,
    seed: int,
    unit: int,
    times: list[tuple[float, bool, bool]],
    settings: dict[str, float] | None = None,
) -> int:
    """P1's points over the four rotations of one wall (benchmarks/paired_bots.py's method)."""

    def make_p1(bot_seed: int, _game: Round) -> Bot:
        made = make_player(bot, bot_seed)
        for name, value in (settings or {}).items():
            current = getattr(type(made), name)
            setattr(made, name, type(current)(value))
        return _Timed(made, times) if isinstance(made, SearchBot) else made

    return p1_wall_points(make_p1, opponents, seed, unit)


def _interval(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return mean / 4, 1.96 * sd / math.sqrt(n) / 4 if n > 1 else math.inf


def summarise(rows: list[dict[str, Any]]) -> str:
    lines = []
    for opponents in OPPONENTS:
        mine = [r for r in rows if r["opponents"] == opponents]
        if len(mine) < 2:
            continue
        search = [float(r["search"]) for r in mine]
        strong = [float(r["strong"]) for r in mine]
        diff = [a - b for a, b in zip(search, strong, strict=True)]
        lines.append(f"three {opponents}: {len(mine)} walls ({4 * len(mine)} hands each)")
        for name, values in (("search", search), ("strong", strong), ("search - strong", diff)):
            mean, half = _interval(values)
            lines.append(
                f"  {name:<16} {mean:+7.2f} points per hand  95% CI "
                f"[{mean - half:+.2f}, {mean + half:+.2f}]"
            )
    return "\n".join(lines)


def compare(rows: list[dict[str, Any]], other: list[dict[str, Any]]) -> str:
    """The search rows of ``rows`` minus those of ``other`` on the walls both played (the
    same seed, wall and opponents): two versions of the search bot, paired."""
    theirs = {(r["seed"], r["unit"], r["opponents"]): float(r["search"]) for r in other}
    lines = []
    for opponents in OPPONENTS:
        diffs = [
            float(r["search"]) - theirs[key]
            for r in rows
            if r["opponents"] == opponents
            and (key := (r["seed"], r["unit"], r["opponents"])) in theirs
        ]
        if len(diffs) < 2:
            continue
        mean, half = _interval(diffs)
        lines.append(
            f"three {opponents}, this - the other file: {len(diffs)} walls  {mean:+.2f} points "
            f"per hand  95% CI [{mean - half:+.2f}, {mean + half:+.2f}]"
        )
    return "\n".join(lines) or "no wall in common"


def time_summary(times: list[tuple[float, bool, bool]]) -> str:
    if not times:
        return "no decisions timed"
    parts = []
    for label, chosen in (
        ("all decisions", [t for t, _, _ in times]),
        ("searched", [t for t, s, _ in times if s]),
    ):
        if not chosen:
            continue
        chosen.sort()
        p99 = chosen[min(len(chosen) - 1, int(0.99 * len(chosen)))]
        parts.append(
            f"{label}: {len(chosen)}, mean {1000 * sum(chosen) / len(chosen):.0f} ms, "
            f"p99 {1000 * p99:.0f} ms, max {1000 * chosen[-1]:.0f} ms"
        )
    parts.append(f"the strong bot's choice replaced: {sum(c for _, _, c in times)}")
    return "; ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--walls", type=int, default=150, help="play walls --start .. WALLS-1 (an end, not a count)"
    )
    parser.add_argument("--start", type=int, default=0, help="first wall (to resume a run)")
    parser.add_argument("--seed", type=int, default=2026123)
    parser.add_argument("--out", type=Path, default=Path("search_strength.jsonl"))
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--summarise", type=Path)
    parser.add_argument(
        "--against",
        type=Path,
        help="with --summarise: the paired difference of the search rows from FILE's (two "
        "versions of the search bot on the same seed and walls)",
    )
    parser.add_argument("--baseline", type=Path, help="take the strong bot's rows from FILE")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--opponents", choices=OPPONENTS, action="append")
    parser.add_argument(
        "--bot",
        default="search",
        help='the bot measured (its rows stay under "search"): search, search-learned, ..., '
        "or module:Class (search_variants.py)",
    )
    parser.add_argument(
        "--base",
        default="strong",
        help='the bot it is paired with (its rows stay under "strong"): strong, '
        "strong-learned, ...",
    )
    args = parser.parse_args()
    settings = parse_settings(args.set, args.bot)
    lineups = tuple(args.opponents or OPPONENTS)
    baseline: dict[tuple[int, str], int] = {}
    if args.baseline is not None:
        for line in args.baseline.read_text().splitlines():
            if line:
                old = json.loads(line)
                if old["seed"] == args.seed and old.get("base", "strong") == args.base:
                    baseline[(old["unit"], old["opponents"])] = old["strong"]
    if args.summarise is not None:
        text = args.summarise.read_text().splitlines()
        read = [json.loads(line) for line in text if line]
        print(summarise(read))
        timed = [(t / 1000, bool(s), bool(c)) for r in read for t, s, c in r.get("times", [])]
        print(time_summary(timed))
        if args.against is not None:
            other = [json.loads(line) for line in args.against.read_text().splitlines() if line]
            print(compare(read, other))
        return 0
    rows: list[dict[str, Any]] = []
    times: list[tuple[float, bool, bool]] = []
    with args.out.open("a") as out:
        for unit in range(args.start, args.walls):
            for opponents in lineups:
                row: dict[str, Any] = {
                    "unit": unit,
                    "seed": args.seed,
                    "opponents": opponents,
                    "bot": args.bot,
                    "base": args.base,
                }
                first = len(times)
                row["search"] = wall_points(args.bot, opponents, args.seed, unit, times, settings)
                # the search bot's decisions on this wall: [CPU ms, searched, replaced]
                row["times"] = [[round(1000 * t, 2), int(s), int(c)] for t, s, c in times[first:]]
                known = baseline.get((unit, opponents))
                row["strong"] = (
                    known
                    if known is not None
                    else wall_points(args.base, opponents, args.seed, unit, times)
                )
                rows.append(row)
                out.write(json.dumps(row) + "\n")
                out.flush()
            if (unit + 1) % args.every == 0:
                print(f"after {unit + 1} walls\n{summarise(rows)}\n{time_summary(times)}")
                sys.stdout.flush()
    print(f"final\n{summarise(rows)}\n{time_summary(times)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
