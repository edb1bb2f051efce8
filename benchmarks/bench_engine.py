"""Full hands per second on one core: uniformly random legal actions, and the simplest
sensible policy (win when you can, otherwise discard the tile that keeps shanten lowest).

Printed against a reference measured in the same run (a bare loop that only shuffles and
deals 108 tiles), because absolute times on these small shared machines are noise.
"""

from __future__ import annotations

import random
import time

from duyun.analysis import shanten
from duyun.engine import Action, ActionKind, Round, new_round
from duyun.tiles import full_set

HANDS = 2000


def random_hand(seed: int) -> Round:
    rng = random.Random(seed)
    game = new_round(seed)
    while not game.is_over:
        legal = game.legal_actions(game.to_act[0])
        game.apply(legal[rng.randrange(len(legal))])
    return game


def simple_policy_action(game: Round, seat: int) -> Action:
    legal = game.legal_actions(seat)
    best: Action | None = None
    best_shanten = 99
    counts = game.counts[seat]
    for action in legal:
        if action.kind is ActionKind.HU:
            return action
        if action.kind is ActionKind.DISCARD and action.tile is not None:
            counts[action.tile] -= 1
            value = shanten(counts)
            counts[action.tile] += 1
            if value < best_shanten:
                best, best_shanten = action, value
    if best is not None:
        return best
    return next((a for a in legal if a.kind is ActionKind.PASS), legal[0])


def policy_hand(seed: int) -> Round:
    game = new_round(seed)
    while not game.is_over:
        seat = game.to_act[0]
        game.apply(simple_policy_action(game, seat))
    return game


def deal_only(seed: int) -> None:
    tiles = full_set()
    random.Random(seed).shuffle(tiles)


def rate(function: object, count: int) -> float:
    start = time.perf_counter()
    for seed in range(count):
        function(seed)  # type: ignore[operator]
    return count / (time.perf_counter() - start)


def main() -> int:
    print(f"== engine: {HANDS:,} full hands per policy, one core")
    reference = rate(deal_only, HANDS * 5)
    random_rate = rate(random_hand, HANDS)
    policy_rate = rate(policy_hand, HANDS // 2)
    outcomes = [policy_hand(seed).result for seed in range(200)]
    wins = sum(1 for r in outcomes if r is not None and r.result == "win")
    print(f"  shuffle+deal reference   {reference:12,.0f} /s")
    print(
        f"  random legal actions     {random_rate:12,.0f} hands/s  (target >= 1,000; "
        f"{random_rate / reference:.4f} × reference)"
    )
    print(
        f"  win-else-min-shanten     {policy_rate:12,.0f} hands/s  "
        f"({policy_rate / reference:.4f} × reference; {wins}/200 hands end in a win)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
