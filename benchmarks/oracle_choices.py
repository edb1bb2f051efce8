"""Where knowing the other hands changes 大師's decisions (issue 35): the oracle's ceiling
(``benchmarks/oracle_search.py``) measured in points, here located decision by decision.

P1 is the search bot and plays every wall as it would. At each of its decisions two more
searches are asked the same question, and their answers are only recorded:

- a **twin**: the same search with another seed. Sampling makes a search noisy; how often the
  twin answers otherwise is the floor under any disagreement;
- the **oracle**: the same search whose samples are the real hand (the other seats' concealed
  tiles as they are, the live wall shuffled; ``oracle_search.OracleHandsSearch``).

Decisions are sorted by what was asked -- a claim on a discard, a turn with 報聽 offered, a turn
while some opponent is ready (the hidden truth), a turn while none is -- and each kind gets its
count, how often the twin and the oracle chose otherwise, and, for turns, how often the tile
let go would be a win for an opponent now (``learn.features.hidden_labels``: the tile completes
the hand and the win is allowed) for the search's discard against the oracle's. Only decisions
that the search actually searched are counted (one legal action, a win, or a lone candidate
are not questions).

Walls and seeds are those of ``benchmarks/paired_bots.py`` (four rotations a wall, P1 against
three ``--opponents``). Each wall's counts go to a JSON-lines file as it finishes
(``--start`` resumes; ``--summarise FILE ...`` prints the table again from files).

usage: python benchmarks/oracle_choices.py --walls 200 --seed S --out choices.jsonl
       [--opponents efficient] [--workers 2] [--start 0]
       python benchmarks/oracle_choices.py --summarise choices.jsonl [more.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from duyun.bots import BOT_NAMES
from duyun.bots.search import SearchBot
from duyun.engine import ActionKind, Round, SeatView
from duyun.engine.actions import Action
from duyun.learn.features import OpponentTruth, hidden_labels
from oracle_search import OracleHandsSearch
from paired_bots import p1_wall_points

#: the kinds of decision, in the table's order
KINDS = ("claim", "baoting offered", "turn, an opponent ready", "turn, none ready")
#: what is counted for each kind of decision
FIELDS = (
    "decisions",
    "twin differs",
    "oracle differs",
    "discards compared",
    "search deals in",
    "oracle deals in",
    "search passes",
    "oracle passes",
)
#: the twin's seed is the played search's, moved by this (any fixed offset would do)
TWIN_SEED_OFFSET = 7_919


class ChoiceProbe:
    """P1: the search bot, whose every searched decision is also put to a twin and to the
    oracle, and counted in ``counts`` (kind -> field -> number)."""

    name = "search-with-probes"

    def __init__(self, bot_seed: int, game: Round, counts: dict[str, Counter[str]]) -> None:
        self.search = SearchBot(bot_seed)
        self.twin = SearchBot(bot_seed + TWIN_SEED_OFFSET)
        self.oracle = OracleHandsSearch(bot_seed)
        self.oracle.game = game
        self.game = game
        self.counts = counts

    def choose(self, view: SeatView) -> Action:
        asked = self.search.searched
        # all three see every view: each keeps its own strong bot's memory of the hand
        played = self.search.choose(view)
        twin = self.twin.choose(view)
        oracle = self.oracle.choose(view)
        if self.search.searched > asked:
            self.count(view, played, twin, oracle)
        return played

    def count(self, view: SeatView, played: Action, twin: Action, oracle: Action) -> None:
        truth = hidden_labels(self.game, view.seat)
        kind = decision_kind(view, truth)
        tally = self.counts.setdefault(kind, Counter())
        tally["decisions"] += 1
        tally["twin differs"] += twin != played
        tally["oracle differs"] += oracle != played
        if kind == "claim":
            tally["search passes"] += played.kind is ActionKind.PASS
            tally["oracle passes"] += oracle.kind is ActionKind.PASS
            return
        lets_go = (ActionKind.DISCARD, ActionKind.BAOTING)
        if played.kind in lets_go and oracle.kind in lets_go:
            assert played.tile is not None and oracle.tile is not None
            danger = 0
            for opponent in truth:
                danger |= opponent.deal_in
            tally["discards compared"] += 1
            tally["search deals in"] += (danger >> played.tile) & 1
            tally["oracle deals in"] += (danger >> oracle.tile) & 1


def decision_kind(view: SeatView, truth: Sequence[OpponentTruth]) -> str:
    """Which of :data:`KINDS` the decision of ``view`` is; ``truth``: the other seats' hidden
    truth (``learn.features.hidden_labels``), which says whether one is ready."""
    if view.claim_tile is not None:
        return "claim"
    if any(a.kind is ActionKind.BAOTING for a in view.legal):
        return "baoting offered"
    if any(t.ready for t in truth):
        return "turn, an opponent ready"
    return "turn, none ready"


def wall_counts(job: tuple[int, str, int]) -> dict[str, Any]:
    """The counts of wall ``unit`` over its four rotations (P1's points beside them)."""
    unit, opponents, seed = job
    counts: dict[str, Counter[str]] = {}
    points = p1_wall_points(
        lambda bot_seed, game: ChoiceProbe(bot_seed, game, counts), opponents, seed, unit
    )
    return {"wall": unit, "points": points, "counts": {k: dict(v) for k, v in counts.items()}}


def summarise(rows: list[dict[str, Any]]) -> str:
    """The table: per kind of decision, its share of disagreements and of deals-in."""
    total: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    for row in rows:
        for kind, counts in row["counts"].items():
            total[kind].update(counts)
    lines = [
        f"{len(rows)} walls, {4 * len(rows)} hands, P1 the search bot "
        f"({sum(r['points'] for r in rows) / (4 * len(rows)):+.2f} points a hand)",
        f"{'decision':<26}{'n':>7}{'twin ≠':>9}{'oracle ≠':>10}"
        f"{'deal-in: search':>17}{'oracle':>8}{'pass: search':>14}{'oracle':>8}",
    ]

    def share(part: int, whole: int) -> str:
        return f"{100 * part / whole:.1f}%" if whole else "-"

    for kind in KINDS:
        c = total[kind]
        n = c["decisions"]
        compared = c["discards compared"]
        lines.append(
            f"{kind:<26}{n:>7}{share(c['twin differs'], n):>9}{share(c['oracle differs'], n):>10}"
            f"{share(c['search deals in'], compared):>17}"
            f"{share(c['oracle deals in'], compared):>8}"
            f"{share(c['search passes'], n) if kind == 'claim' else '':>14}"
            f"{share(c['oracle passes'], n) if kind == 'claim' else '':>8}"
        )
    return "\n".join(lines)


def read_rows(files: list[Path]) -> list[dict[str, Any]]:
    """The rows of ``files``, one per wall (a wall found twice is an error: runs overlap)."""
    rows: dict[int, dict[str, Any]] = {}
    for path in files:
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if row["wall"] in rows:
                raise SystemExit(f"{path}: wall {row['wall']} is already in another file")
            rows[row["wall"]] = row
    return [rows[wall] for wall in sorted(rows)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--walls", type=int, default=100)
    parser.add_argument("--start", type=int, default=0, help="the first wall (resume a run)")
    parser.add_argument("--seed", type=int, default=35_100)
    parser.add_argument("--opponents", default="efficient", choices=BOT_NAMES)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, help="JSON lines, one per wall, appended")
    parser.add_argument("--summarise", type=Path, nargs="+", help="print the table of files")
    args = parser.parse_args()
    if args.summarise:
        print(summarise(read_rows(args.summarise)))
        return 0
    if args.walls < 1 or args.start < 0 or args.workers < 1:
        parser.error("--walls and --workers must be at least 1, --start at least 0")
    jobs = [(unit, args.opponents, args.seed) for unit in range(args.start, args.walls)]
    print(summarise(run_walls(wall_counts, jobs, args.workers, args.out)))
    return 0


def run_walls(
    work: Callable[[Any], dict[str, Any]], jobs: list[Any], workers: int, out: Path | None
) -> list[dict[str, Any]]:
    """``work`` done on every job (a wall) in ``workers`` processes; each wall's row appended
    to ``out`` as it finishes, so that a stopped run keeps what it did (``--start``)."""
    rows = []
    with ProcessPoolExecutor(workers) as pool:
        for row in pool.map(work, jobs):
            rows.append(row)
            if out:
                with out.open("a") as file:
                    file.write(json.dumps(row) + "\n")
            print(f"wall {row['wall']}: {row['points']:+d}", file=sys.stderr, flush=True)
    return rows


if __name__ == "__main__":
    sys.exit(main())
