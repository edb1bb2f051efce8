"""How well the strong bot's beliefs about its opponents match what happens (issue 11).

The strong bot prices every discard by two beliefs: how likely each opponent is to win on it
(ready x allowed by R17 x the tile being a wait) and how likely another player ends the hand
before its next turn (the chain's per-round hazard). This plays the strong bot against three
opponents and, at every one of its turns, sets what it believed beside what then happened:

- *feeding*, per opponent and by the kind of threat the bot read (``bean``: a win on a
  discard is open to it, R15/R17/R27; ``flush``/``pungs``: its melds are all one suit / all
  pungs; ``concealed``: neither) and the readiness it estimated: the predicted chance that
  opponent wins on the tile discarded against the share of such discards it did win on;
- *hazard*, by tiles left in the wall: the predicted chance someone else wins before the
  bot's next turn against the share of turns after which that happened.

A belief far from its outcome is a setting to revisit (``StrongBot.ALLOWED_*``,
``READY_*``, ``WAIT_SHARE``): docs/research/strong-bot.md, fourth round, reads this table. Prints
numbers and asserts nothing.

usage: python benchmarks/calibrate_strong.py [HANDS] [--opponents efficient|heuristic]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from duyun.bots import make_bot
from duyun.bots.evaluation import unseen_counts
from duyun.bots.strong import StrongBot, Threat
from duyun.engine import Round, deal_setup
from duyun.engine.actions import Action, ActionKind
from duyun.engine.view import SeatView
from duyun.rules import DUYUN
from duyun.sim.runner import derive_seed, play_round

WIN_RULES = ("R28", "R29", "R13")  # discard win, self-draw, robbed kong


def threat_kind(bot: StrongBot, threat: Threat) -> str:
    """The bot's reading of an opponent, named by the permission it gave it (R17)."""
    if threat.allowed >= 1.0:
        return "bean"
    return {
        bot.ALLOWED_FLUSH: "flush",
        bot.ALLOWED_PUNGS: "pungs",
        bot.ALLOWED_CONCEALED: "concealed",
    }.get(threat.allowed, "other")


@dataclass
class Turn:
    """One discard of the recorded bot: its beliefs at the time."""

    hazard: float
    wall: int
    # per opponent: seat, kind of threat, estimated readiness, predicted chance of a win on
    # the discarded tile
    feeds: list[tuple[int, str, float, float]] = field(default_factory=list)


class RecordingStrongBot(StrongBot):
    """The strong bot, noting its beliefs at each discard (decisions unchanged)."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.turns: list[Turn] = []

    def _turn(self, view: SeatView) -> Action:
        action = super()._turn(view)
        if action.kind not in (ActionKind.DISCARD, ActionKind.BAOTING) or action.tile is None:
            return action
        unseen = unseen_counts(view.visible_counts())
        threats = self._threats(view, unseen)
        table = self._table(view, unseen, threats)
        turn = Turn(table.hazards[0] if table.hazards else 0.0, view.wall_remaining)
        for threat in threats:
            alone = self._feed_cost(view, action.tile, [threat], unseen, 0.0)
            chance = alone / threat.cost if threat.cost else 0.0
            turn.feeds.append((threat.seat, threat_kind(self, threat), threat.ready, chance))
        self.turns.append(turn)
        return action


def play(job: tuple[int, str, int]) -> list[tuple[Turn, bool, frozenset[int]]]:
    """One hand with the recording bot at seat ``unit % 4``: each turn, and for its last
    turn whether another player then won and who won on its discard."""
    seed, opponents, unit = job
    seat = unit % 4
    bots = [make_bot(opponents, derive_seed(seed, "bot", unit, s)) for s in range(4)]
    recorder = RecordingStrongBot(derive_seed(seed, "bot", unit, seat))
    bots[seat] = recorder
    game = Round(deal_setup(derive_seed(seed, "wall", unit), dealer=unit % 4), DUYUN)
    play_round(game, bots)
    wins = [e for e in game.events if e.get("type") == "payment" and e.get("rule") in WIN_RULES]
    other_won = bool(wins) and all(e["payee"] != seat for e in wins)
    fed = frozenset(e["payee"] for e in wins if e["payer"] == seat and e["rule"] == "R28")
    last = len(recorder.turns) - 1
    return [
        (turn, other_won and i == last, fed if i == last else frozenset())
        for i, turn in enumerate(recorder.turns)
    ]


def report(rows: Sequence[tuple[Turn, bool, frozenset[int]]]) -> None:
    """Print predicted against observed, bucketed."""
    feeding: dict[tuple[str, int], list[tuple[float, bool]]] = defaultdict(list)
    hazard: dict[int, list[tuple[float, bool]]] = defaultdict(list)
    for turn, other_won, fed in rows:
        hazard[turn.wall // 6].append((turn.hazard, other_won))
        for seat, kind, ready, chance in turn.feeds:
            feeding[kind, min(int(ready * 5), 4)].append((chance, seat in fed))
    print("feeding: per opponent, by kind of threat and estimated readiness")
    print(f"  {'kind':>9} {'ready':>9} {'discards':>9} {'predicted':>10} {'observed':>9}")
    for (kind, bucket), cases in sorted(feeding.items()):
        predicted = sum(c for c, _ in cases) / len(cases)
        observed = sum(1 for _, won in cases if won) / len(cases)
        span = f"{bucket / 5:.1f}-{(bucket + 1) / 5:.1f}"
        print(f"  {kind:>9} {span:>9} {len(cases):>9} {predicted:>10.4f} {observed:>9.4f}")
    print("hazard: another player wins before the next turn, by tiles left in the wall")
    print(f"  {'wall':>9} {'turns':>9} {'predicted':>10} {'observed':>9}")
    for bucket, cases in sorted(hazard.items(), reverse=True):
        predicted = sum(c for c, _ in cases) / len(cases)
        observed = sum(1 for _, won in cases if won) / len(cases)
        span = f"{bucket * 6}-{bucket * 6 + 5}"
        print(f"  {span:>9} {len(cases):>9} {predicted:>10.3f} {observed:>9.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hands", nargs="?", type=int, default=2000)
    parser.add_argument("--opponents", default="efficient", choices=("efficient", "heuristic"))
    parser.add_argument("--seed", type=int, default=78)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    jobs = [(args.seed, args.opponents, unit) for unit in range(args.hands)]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = [row for hand in pool.map(play, jobs, chunksize=20) for row in hand]
    print(f"== strong bot calibration: {args.hands} hands against three {args.opponents} bots")
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
