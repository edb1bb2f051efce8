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
  (its changes, exactly); the others say which way to move them, with far less noise
  than a duplicate run of each. The judge shares the search's blind spot -- the rollouts play
  the rest of the hand by the efficient rules -- so a threshold it favours is a candidate for
  a duplicate run, not a result.

``--strong-judge N`` asks where the judge's blind spot lies. At each decision the search
changed, the judge also plays the strong bot's choice and the change on its first ``N``
deals with P1's rest of the hand played by the strong bot itself (the others by the
rollouts' efficient rules, as before), which is how 大師 goes on in a real game. Beside it,
the rollout policy's judgement on the same ``N`` deals: where the two disagree, the rollouts
value the change by a continuation that 大師 does not play. With ``--versus``, a rival's
change is judged that way too, on the same deals. It costs about a strong-bot decision per
own turn of each of those deals (about 5 ms a deal where the policy takes 0.6 ms).

``--versus module:Class`` puts a rival search bot beside P1: it is asked every question P1
is asked (it only answers; P1 plays), and where P1 searched, the rival's answer is judged on
the same deals as P1's. The difference of their judged points, decision by decision, compares
two versions of the search on the same positions (another budget, other thresholds) with a
small fraction of the noise of two duplicate runs; it ignores that their games would go on
differently, and it shares the judge's blind spot above.

Walls and seeds are those of ``benchmarks/paired_bots.py`` (four rotations a wall, P1 against
three ``--opponents``). Each wall's records go to a JSON-lines file as it finishes
(``--start`` resumes; ``--summarise FILE ...`` prints the summary of files).

usage: PYTHONPATH=benchmarks python benchmarks/change_judge.py --walls 200 --seed S \\
           --out judged.jsonl [--bot search] [--versus module:Class] [--judge 32]
           [--strong-judge 16] [--opponents efficient] [--workers 2]
       python benchmarks/change_judge.py --summarise judged.jsonl [more.jsonl ...]
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from duyun.bots import BOT_NAMES
from duyun.bots.base import Bot
from duyun.bots.search import SearchBot, _paired, play_out, strong_play_out
from duyun.engine import Round, SeatView
from duyun.engine.actions import Action
from duyun.learn.features import hidden_labels
from duyun.rules import DUYUN
from oracle_choices import KINDS, decision_kind, read_rows, run_walls
from oracle_search import OracleHandsSearch
from paired_bots import bot_factory, p1_wall_points

#: the judge's seed is P1's, moved by this (its deals must not be the search's own)
JUDGE_SEED_OFFSET = 104_729
#: the rival's seed is P1's, moved by this (its samples must not be P1's)
RIVAL_SEED_OFFSET = 7_919
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
            # none until this search ends: one the sampler gives up on (the bot counts it as
            # searched and plays the advice) must not be read as the race before it
            self.race_result: tuple[list[Action], Action] | None = None
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
    docstring); ``records`` gets one per searched decision. With ``versus``, a rival search
    bot is asked every question P1 is asked (it sees every view, so that its strong bot's
    memory of the hand is P1's) and its answer at P1's searched decisions is judged on the
    same deals as P1's."""

    def __init__(
        self,
        spec: str,
        bot_seed: int,
        game: Round,
        judge: int,
        records: list[dict[str, Any]],
        versus: str | None = None,
        strong_deals: int = 0,
    ) -> None:
        bot = search_bot(spec, bot_seed)
        bot.__class__ = judged_class(type(bot))
        self.bot: Any = bot  # a Recorded search bot: its race is read after each search
        self.rival = None if versus is None else search_bot(versus, bot_seed + RIVAL_SEED_OFFSET)
        self.name = bot.name
        self.judge = OracleHandsSearch(bot_seed + JUDGE_SEED_OFFSET)
        self.judge.game = game
        self.game = game
        self.deals = judge
        self.strong_deals = min(strong_deals, judge)
        self.records = records

    def choose(self, view: SeatView) -> Action:
        asked = self.bot.searched
        played: Action = self.bot.choose(view)
        rival = None if self.rival is None else self.rival.choose(view)
        if self.bot.searched > asked and getattr(self.bot, "race_result", None) is not None:
            self.record(view, rival)
        elif rival is not None and rival != played:
            # P1 did not search (one candidate) or gave its search up, and played the advice;
            # the rival chose otherwise (it searched, or its strong bot broke a tie another way)
            values = self.judged(view, [played, rival], self.strong_deals)
            gain, error = _rounded([v[1] - v[0] for v in values])
            kind = decision_kind(view, hidden_labels(self.game, view.seat))
            self.records.append(
                {
                    "kind": KINDS.index(kind),
                    "gain": None,
                    "error": None,
                    "samples": 0,  # P1 did not search
                    "changed": 0,
                    "rival_changed": 1,
                    "rival_judged": gain,
                    "versus": gain,
                    "versus_error": error,
                }
            )
            if self.strong_deals:
                strong = [v[3] - v[2] for v in values[: self.strong_deals]]
                self.records[-1]["versus_strong"] = _rounded(strong)[0]
        return played

    def record(self, view: SeatView, rival: Action | None) -> None:
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
        record: dict[str, Any] = {
            "kind": KINDS.index(kind),
            # six places: the grid replays the race's rule on them, and a gain rounded to
            # three could fall just below a threshold it passed in the race
            "gain": round(gain, 6),
            "error": round(error, 6) if math.isfinite(error) else None,
            "samples": samples,
            "changed": int(chosen != advice),
        }
        rival_changed = rival is not None and rival != advice
        if gain > 0 or rival_changed:
            options = [advice, alternative] + ([rival] if rival is not None else [])
            changed = chosen != advice
            by_strong = self.strong_deals if changed or rival_changed else 0
            values = self.judged(view, options, by_strong)
            diffs = [v[1] - v[0] for v in values]
            record["judged"], record["judged_error"] = _rounded(diffs)
            strong = [v[len(options) :] for v in values[:by_strong]]
            if strong and changed:
                record["judged_head"] = _rounded(diffs[:by_strong])[0]
                record["judged_strong"], record["judged_strong_error"] = _rounded(
                    [s[1] - s[0] for s in strong]
                )
            if strong and rival is not None:
                record["versus_strong"] = _rounded(
                    [s[2] - s[0] - (s[1] - s[0] if changed else 0.0) for s in strong]
                )[0]
            if rival is not None:
                record["rival_changed"] = int(rival_changed)
                rival_gains = [v[2] - v[0] for v in values]
                record["rival_judged"] = _rounded(rival_gains)[0]
                played = [v[1] - v[0] if chosen != advice else 0.0 for v in values]
                versus = [r - p for r, p in zip(rival_gains, played, strict=True)]
                record["versus"], record["versus_error"] = _rounded(versus)
        elif rival is not None:
            record["rival_changed"] = 0
        self.records.append(record)

    def judged(
        self, view: SeatView, options: list[Action], by_strong: int = 0
    ) -> list[list[float]]:
        """Each option's points on each of the judge's deals (the same deals for all). On the
        first ``by_strong`` deals, each option's points follow again with P1's rest of the
        hand played by the strong bot (:func:`strong_play_out`)."""
        rules = self.bot.rules or DUYUN
        values = []
        cache: dict[Action, float] = {}
        by_strong_bot: dict[Action, float] = {}
        advisor = self.bot.strong
        for deal in range(self.deals):
            world = self.judge.sample_world(view, rules, None)
            cache.clear()
            by_strong_bot.clear()
            for option in options:
                if option not in cache:
                    cache[option] = play_out(world, option, view.seat)
                if deal < by_strong and option not in by_strong_bot:
                    by_strong_bot[option] = strong_play_out(world, option, view.seat, advisor)
            row = [cache[option] for option in options]
            row += [by_strong_bot[option] for option in options if by_strong_bot]
            values.append(row)
        return values


def _rounded(diffs: list[float]) -> tuple[float, float]:
    gain, error = _paired(diffs, [0.0] * len(diffs))
    return round(gain, 3), round(error, 3)


def search_bot(spec: str, seed: int) -> SearchBot:
    bot = bot_factory(spec)(seed)
    if not isinstance(bot, SearchBot):
        raise SystemExit(f"{spec}: not a search bot, nothing to judge")
    return bot


def wall_records(job: tuple[int, str, str | None, str, int, int, int]) -> dict[str, Any]:
    """The records of wall ``unit`` over its four rotations (P1's points beside them)."""
    unit, spec, versus, opponents, seed, judge, strong_deals = job
    records: list[dict[str, Any]] = []

    def make(bot_seed: int, game: Round) -> Bot:
        return JudgedSearch(spec, bot_seed, game, judge, records, versus, strong_deals)

    points = p1_wall_points(make, opponents, seed, unit)
    return {"wall": unit, "bot": spec, "versus": versus, "points": points, "records": records}


def threshold_points(records: list[dict[str, Any]], margin: float, z: float) -> tuple[float, float]:
    """The judged points of the changes a search would make with thresholds ``margin`` and
    ``z`` (its estimated gain above both ``margin`` and ``z`` standard errors), summed over
    ``records``, and the variance of that sum. With the bot's own thresholds these are the
    changes it made: a candidate the race dropped stopped below the margin."""
    total = variance = 0.0
    for record in records:
        if record["gain"] is None:  # P1 did not search here (a rival's record)
            continue
        error = math.inf if record["error"] is None else record["error"]
        if "judged" in record and record["gain"] > max(margin, z * error):
            total += record["judged"]
            variance += record["judged_error"] ** 2
    return total, variance


def summarise(rows: list[dict[str, Any]], margin: float, z: float) -> str:
    """Per kind: searched, changed, the changes' judged gain; the thresholds' grid; and with
    a rival, its changes against P1's on the same decisions."""
    hands = 4 * len(rows)
    records = [r for row in rows for r in row["records"] if r["samples"]]  # P1 searched
    lines = [
        f"{len(rows)} walls, {hands} hands, P1 {rows[0]['bot']} "
        f"({sum(r['points'] for r in rows) / hands:+.2f} points a hand), "
        f"{len(records)} searched decisions",
        f"{'decision':<26}{'searched':>9}{'changed':>9}{'judged gain a change':>24}"
        f"{'points a hand':>15}",
    ]
    for index, kind in enumerate((*KINDS, "all")):
        mine = [r for r in records if kind == "all" or r["kind"] == index]
        judged = [r["judged"] for r in mine if r["changed"] and "judged" in r]
        if judged:
            mean, error = _paired(judged, [0.0] * len(judged))
            per_change = f"{mean:+.2f} ± {1.96 * error:.2f}" if len(judged) > 1 else f"{mean:+.2f}"
            per_hand = f"{sum(judged) / hands:+.3f}"
        else:
            per_change = per_hand = "-"
        changed = sum(r["changed"] for r in mine)
        lines.append(f"{kind:<26}{len(mine):>9}{changed:>9}{per_change:>24}{per_hand:>15}")
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
    if any("judged_strong" in r for r in records):
        lines += ["", *strong_judge_lines(records, hands)]
    if rows[0].get("versus"):
        lines += ["", *versus_lines(rows)]
    return "\n".join(lines)


def strong_judge_lines(records: list[dict[str, Any]], hands: int) -> list[str]:
    """The changes judged twice on the same deals (``--strong-judge``): the rest of the hand
    played by the rollouts' policy, as the search values it, and by the strong bot, as 大師
    plays it. Per kind, points a change (± 1.96 standard errors over the changes) and a hand."""
    lines = [
        "the changes judged on the same deals with P1's rest of the hand played by the "
        "rollout policy and by the strong bot (points a change; a hand):",
        f"{'decision':<26}{'changes':>9}{'rollout policy':>22}{'strong bot':>22}"
        f"{'strong - policy':>22}",
    ]
    for index, kind in enumerate((*KINDS, "all")):
        mine = [
            r for r in records if "judged_strong" in r and (kind == "all" or r["kind"] == index)
        ]
        if not mine:
            continue
        cells = []
        for values in (
            [r["judged_head"] for r in mine],
            [r["judged_strong"] for r in mine],
            [r["judged_strong"] - r["judged_head"] for r in mine],
        ):
            mean, error = _paired(values, [0.0] * len(values))
            spread = f" ± {1.96 * error:.2f}" if len(values) > 1 else ""
            cells.append(f"{mean:+.2f}{spread}; {sum(values) / hands:+.3f}")
        lines.append(f"{kind:<26}{len(mine):>9}" + "".join(f"{c:>22}" for c in cells))
    return lines


def versus_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The rival's changes against P1's, judged on the same deals at the same decisions: per
    kind, each one's points a hand from its changes and the difference, with a 95 % interval
    over walls (the decisions' own spread included, not only the judge's). A decision only
    the rival searched (P1 had a lone candidate) counts where the rival changed it."""
    hands = 4 * len(rows)
    lines = [
        f"the rival {rows[0]['versus']} asked the same questions (points a hand by the judge; "
        "± over walls, 1.96 standard errors):",
        f"{'decision':<26}{'P1 changed':>11}{'rival changed':>14}{'P1':>9}{'rival':>9}"
        f"{'rival - P1':>18}",
    ]
    for index, kind in enumerate((*KINDS, "all")):
        per_wall = []
        own = rival = 0.0
        own_changes = rival_changes = 0
        for row in rows:
            mine = [r for r in row["records"] if kind == "all" or r["kind"] == index]
            own_changes += sum(r["changed"] for r in mine)
            rival_changes += sum(r.get("rival_changed", 0) for r in mine)
            own += sum(r["judged"] for r in mine if r["changed"] and "judged" in r)
            rival += sum(r["rival_judged"] for r in mine if r.get("rival_changed"))
            per_wall.append(sum(r.get("versus", 0.0) for r in mine))
        if len(per_wall) > 1:
            mean, error = _paired(per_wall, [0.0] * len(per_wall))
            versus = f"{mean / 4:+.3f} ± {1.96 * error / 4:.3f}"
        else:
            versus = "-"
        lines.append(
            f"{kind:<26}{own_changes:>11}{rival_changes:>14}{own / hands:>+9.3f}"
            f"{rival / hands:>+9.3f}{versus:>18}"
        )
    if any("versus_strong" in r for row in rows for r in row["records"]):
        lines += ["", "rival - P1 with P1's rest of the hand played by the strong bot:"]
        for index, kind in enumerate((*KINDS, "all")):
            per_wall = [
                sum(
                    r.get("versus_strong", 0.0)
                    for r in row["records"]
                    if kind == "all" or r["kind"] == index
                )
                for row in rows
            ]
            if len(per_wall) > 1:
                mean, error = _paired(per_wall, [0.0] * len(per_wall))
                lines.append(f"{kind:<26}{mean / 4:>+9.3f} ± {1.96 * error / 4:.3f}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--walls", type=int, default=100)
    parser.add_argument("--start", type=int, default=0, help="the first wall (resume a run)")
    parser.add_argument("--seed", type=int, default=35_200)
    parser.add_argument("--bot", default="search", help="a search bot: a name or module:Class")
    parser.add_argument(
        "--versus", help="a rival search bot asked every question P1 searches (module:Class)"
    )
    parser.add_argument("--judge", type=int, default=32, help="the judge's deals a decision")
    parser.add_argument(
        "--strong-judge",
        type=int,
        default=0,
        help="of those deals, how many also judge each change with the strong bot playing "
        "P1's rest of the hand",
    )
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
    if not 0 <= args.strong_judge <= args.judge:
        parser.error("--strong-judge must be between 0 and --judge")
    jobs = [
        (unit, args.bot, args.versus, args.opponents, args.seed, args.judge, args.strong_judge)
        for unit in range(args.start, args.walls)
    ]
    print(summarise(run_walls(wall_records, jobs, args.workers, args.out), margin, z))
    return 0


if __name__ == "__main__":
    sys.exit(main())
