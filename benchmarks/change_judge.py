"""Are 大師's close calls right? Each searched decision judged on the real hand (issue 35).

A duplicate run (``oracle_search.py``, ``search_strength.py``) says what a whole bot is worth,
but it needs 1,000 walls to tell apart two versions that differ by a third of a point per
hand, and says nothing of which decisions made the difference. Here the search's own
reasoning is recorded decision by decision and checked against a judge that knows the
other hands.

P1 is the search bot (``--bot``, a name or ``module:Class``) and plays every wall exactly as
it would (its points are those of its rows in the other paired tools). At each decision it
searches, its race is recorded: the candidate with the best mean gain over the strong bot's
choice on the search's own samples (the *alternative*), that gain and its standard error, and
whether the search took it. Then a **judge** plays the alternative and the strong bot's
choice on ``--judge`` deals of its own, each the real hand with only the live wall shuffled
(``oracle_search.OracleHandsSearch``'s deal: what the search would see if its samples were
perfect), with the search's rollout policy, and records the paired gain. A decision whose
alternative the search itself put below the strong bot's choice is not judged: no margin
could make the search take it.

The summary says, per kind of decision (``oracle_choices.decision_kind``):

- how many were searched and changed, and the judged gain of the changes (points per change,
  with its standard error): whether the changes the search makes are right;
- the points per hand the changes are worth by the judge;
- for a grid of the search's two thresholds (``MARGIN`` points and ``Z`` standard errors,
  the rule of ``SearchBot.search``), the points per hand by the judge had the search changed
  exactly where its estimate passes them. The row of the bot's own thresholds is what it did
  (within the judge's noise); the others say which way to move them, with far less noise
  than a duplicate run of each. The judge shares the search's blind spot -- the rollouts play
  the rest of the hand by the efficient rules -- so a threshold it favours is a candidate for
  a duplicate run, not a result.

Walls and seeds are those of ``benchmarks/paired_bots.py`` (four rotations a wall, P1 against
three ``--opponents``). Each wall's records go to a JSON-lines file as it finishes
(``--start`` resumes; ``--summarise FILE ...`` prints the summary of files).

usage: PYTHONPATH=benchmarks python benchmarks/change_judge.py --walls 200 --seed S \\
           --out judged.jsonl [--bot search] [--judge 32] [--opponents efficient] [--workers 2]
       python benchmarks/change_judge.py --summarise judged.jsonl [more.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from duyun.bots import BOT_NAMES
from duyun.bots.base import Bot
from duyun.bots.search import SearchBot, _paired, play_out
from duyun.engine import Round, SeatView
from duyun.engine.actions import Action
from duyun.learn.features import hidden_labels
from duyun.rules import DUYUN
from oracle_choices import KINDS, decision_kind, read_rows
from oracle_search import OracleHandsSearch
from paired_bots import bot_factory, p1_wall_points

#: the judge's seed is P1's, moved by this (its deals must not be the search's own)
JUDGE_SEED_OFFSET = 104_729
#: the thresholds the summary's grid tries: margins in points, and standard errors
MARGINS = (0.0, 0.25, 0.5, 1.0)
ZS = (0.5, 1.0, 1.5, 2.0)


def judged_class(base: type[SearchBot]) -> type[SearchBot]:
    """``base`` with its race recorded: each rollout's value kept per candidate, so that the
    gains the race saw can be read after it (the bot's choices are untouched: the recording
    draws no random number)."""

    class Recorded(base):  # type: ignore[valid-type,misc]
        def search(
            self,
            view: SeatView,
            candidates: Sequence[Action],
            advice: Action,
            deadline: float | None = None,
        ) -> Action:
            self.race: dict[Action, list[float]] = {action: [] for action in candidates}
            chosen: Action = super().search(view, candidates, advice, deadline)
            self.race_result = (list(candidates), chosen)
            return chosen

        def _play(self, world: Round, action: Action, seat: int) -> float:
            value: float = super()._play(world, action, seat)
            self.race[action].append(value)
            return value

    Recorded.__name__ = f"Recorded{base.__name__}"
    return Recorded


class JudgedSearch:
    """P1: the search bot whose every searched decision is recorded and judged (module
    docstring); ``records`` gets one list per searched decision."""

    def __init__(
        self, spec: str, bot_seed: int, game: Round, judge: int, records: list[list[Any]]
    ) -> None:
        bot = bot_factory(spec)(bot_seed)
        if not isinstance(bot, SearchBot):
            raise SystemExit(f"--bot {spec}: not a search bot, nothing to judge")
        bot.__class__ = judged_class(type(bot))
        self.bot: Any = bot  # a Recorded search bot: its race is read after each search
        self.name = bot.name
        self.judge = OracleHandsSearch(bot_seed + JUDGE_SEED_OFFSET)
        self.judge.game = game
        self.game = game
        self.deals = judge
        self.records = records

    def choose(self, view: SeatView) -> Action:
        asked = self.bot.searched
        played: Action = self.bot.choose(view)
        if self.bot.searched > asked and hasattr(self.bot, "race_result"):
            self.record(view, played)
        return played

    def record(self, view: SeatView, played: Action) -> None:
        candidates, chosen = self.bot.race_result
        race = self.bot.race
        advice = candidates[0]
        base = race[advice]
        best: tuple[float, float, int, Action] | None = None
        for action in candidates[1:]:
            values = race[action]
            if len(values) < 2:
                continue
            gain, error = _paired(values, base[: len(values)])
            if math.isfinite(gain) and (best is None or gain > best[0]):
                best = (gain, error, len(values), action)
        if chosen != advice:  # the race's rule may pick another than the highest mean
            values = race[chosen]
            gain, error = _paired(values, base[: len(values)])
            best = (gain, error, len(values), chosen)
        if best is None:
            return
        gain, error, samples, alternative = best
        kind = decision_kind(view, hidden_labels(self.game, view.seat))
        record: list[Any] = [
            KINDS.index(kind),
            round(gain, 3),
            round(error, 3) if math.isfinite(error) else None,
            samples,
            int(chosen != advice),
        ]
        if gain > 0:
            record += self.judged(view, advice, alternative)
        self.records.append(record)

    def judged(self, view: SeatView, advice: Action, alternative: Action) -> list[float]:
        """The alternative's gain over the advice on the judge's deals, and its error."""
        rules = self.bot.rules or DUYUN
        diffs = []
        for _ in range(self.deals):
            world = self.judge.sample_world(view, rules, None)
            diffs.append(
                play_out(world, alternative, view.seat) - play_out(world, advice, view.seat)
            )
        gain, error = _paired(diffs, [0.0] * len(diffs))
        return [round(gain, 3), round(error, 3)]


def wall_records(job: tuple[int, str, str, int, int]) -> dict[str, Any]:
    """The records of wall ``unit`` over its four rotations (P1's points beside them)."""
    unit, spec, opponents, seed, judge = job
    records: list[list[Any]] = []

    def make(bot_seed: int, game: Round) -> Bot:
        return JudgedSearch(spec, bot_seed, game, judge, records)

    points = p1_wall_points(make, opponents, seed, unit)
    return {"wall": unit, "bot": spec, "points": points, "records": records}


def threshold_points(records: list[list[Any]], margin: float, z: float) -> tuple[float, float]:
    """The judged points of the changes a search would make with thresholds ``margin`` and
    ``z`` (its estimated gain above both ``margin`` and ``z`` standard errors), summed over
    ``records``, and the variance of that sum. With the bot's own thresholds these are the
    changes it made: a candidate the race dropped stopped below the margin."""
    total = variance = 0.0
    for record in records:
        error = math.inf if record[2] is None else record[2]
        if len(record) > 5 and record[1] > max(margin, z * error):
            total += record[5]
            variance += record[6] ** 2
    return total, variance


def summarise(rows: list[dict[str, Any]], margin: float, z: float) -> str:
    """Per kind: searched, changed, the changes' judged gain; then the thresholds' grid."""
    hands = 4 * len(rows)
    records = [r for row in rows for r in row["records"]]
    lines = [
        f"{len(rows)} walls, {hands} hands, P1 {rows[0]['bot']} "
        f"({sum(r['points'] for r in rows) / hands:+.2f} points a hand), "
        f"{len(records)} searched decisions",
        f"{'decision':<26}{'searched':>9}{'changed':>9}{'judged gain a change':>24}"
        f"{'points a hand':>15}",
    ]
    for index, kind in enumerate((*KINDS, "all")):
        mine = [r for r in records if kind == "all" or r[0] == index]
        changes = [r for r in mine if r[4]]
        judged = [r[5] for r in changes if len(r) > 5]
        if judged:
            mean, error = _paired(judged, [0.0] * len(judged))
            per_change = f"{mean:+.2f} ± {1.96 * error:.2f}" if len(judged) > 1 else f"{mean:+.2f}"
            per_hand = f"{sum(judged) / hands:+.3f}"
        else:
            per_change = per_hand = "-"
        lines.append(f"{kind:<26}{len(mine):>9}{len(changes):>9}{per_change:>24}{per_hand:>15}")
    lines += [
        "",
        f"points a hand by the judge, had the search changed where its gain passes "
        f"both thresholds (its own: MARGIN {margin}, Z {z}; ± is 1.96 standard errors):",
    ]
    lines.append(f"{'':>12}" + "".join(f"{'Z ' + str(zv):>18}" for zv in ZS))
    for margin_value in MARGINS:
        cells = []
        for z_value in ZS:
            total, variance = threshold_points(records, margin_value, z_value)
            cells.append(f"{total / hands:+.3f} ± {1.96 * math.sqrt(variance) / hands:.3f}")
        lines.append(f"{'margin ' + str(margin_value):>12}" + "".join(f"{c:>18}" for c in cells))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--walls", type=int, default=100)
    parser.add_argument("--start", type=int, default=0, help="the first wall (resume a run)")
    parser.add_argument("--seed", type=int, default=35_200)
    parser.add_argument("--bot", default="search", help="a search bot: a name or module:Class")
    parser.add_argument("--judge", type=int, default=32, help="the judge's deals a decision")
    parser.add_argument("--opponents", default="efficient", choices=BOT_NAMES)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, help="JSON lines, one per wall, appended")
    parser.add_argument("--summarise", type=Path, nargs="+", help="print the summary of files")
    args = parser.parse_args()
    own = bot_factory(args.bot)(0)
    margin, z = getattr(own, "MARGIN", SearchBot.MARGIN), getattr(own, "Z", SearchBot.Z)
    if args.summarise:
        print(summarise(read_rows(args.summarise), margin, z))
        return 0
    if args.walls < 1 or args.start < 0 or args.workers < 1 or args.judge < 2:
        parser.error("--walls and --workers must be at least 1, --judge 2, --start at least 0")
    jobs = [
        (unit, args.bot, args.opponents, args.seed, args.judge)
        for unit in range(args.start, args.walls)
    ]
    rows = []
    with ProcessPoolExecutor(args.workers) as pool:
        for row in pool.map(wall_records, jobs):
            rows.append(row)
            if args.out:
                with args.out.open("a") as out:
                    out.write(json.dumps(row) + "\n")
            print(f"wall {row['wall']}: {row['points']:+d}", file=sys.stderr, flush=True)
    print(summarise(rows, margin, z))
    return 0


if __name__ == "__main__":
    sys.exit(main())
