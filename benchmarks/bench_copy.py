"""Copies of a hand in play per second, beside full random hands per second, in one run
(issue 23 item 1): a search copies the hand once per candidate and sample, so a copy must cost
a small fraction of playing a hand (the aim: under a fifth of a random hand).

The copies are of positions part-way through random hands (the mix a search meets), by
``Round.copy()``, ``copy.deepcopy`` and pickle; each copy is checked to play on like its
original on a few positions first.
"""

from __future__ import annotations

import copy
import pickle
import random
import time

from duyun.engine import Round, new_round

HANDS = 600
POSITIONS = 300
REPEAT = 20


def random_hand(seed: int) -> Round:
    rng = random.Random(seed)
    game = new_round(seed)
    while not game.is_over:
        legal = game.legal_actions(game.to_act[0])
        game.apply(legal[rng.randrange(len(legal))])
    return game


def positions(count: int) -> list[Round]:
    """Hands stopped after a random number of random actions (never finished)."""
    found: list[Round] = []
    seed = 0
    while len(found) < count:
        rng = random.Random(seed)
        game = new_round(seed)
        for _ in range(rng.randrange(0, 90)):
            if game.is_over:
                break
            legal = game.legal_actions(game.to_act[0])
            game.apply(legal[rng.randrange(len(legal))])
        if not game.is_over:
            found.append(game)
        seed += 1
    return found


def plays_alike(game: Round, twin: Round, seed: int) -> bool:
    first, second = random.Random(seed), random.Random(seed)
    while not game.is_over:
        legal = game.legal_actions(game.to_act[0])
        game.apply(legal[first.randrange(len(legal))])
        legal = twin.legal_actions(twin.to_act[0])
        twin.apply(legal[second.randrange(len(legal))])
    return game.events == twin.events and game.result == twin.result


def main() -> int:
    print(f"== copying a hand in play: {POSITIONS} positions x {REPEAT}, one core")
    games = positions(POSITIONS)
    ok = all(
        plays_alike(game.copy(), copier(game), seed)
        for seed, game in enumerate(games[:20])
        for copier in (Round.copy, copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g)))
    )
    start = time.perf_counter()
    for seed in range(HANDS):
        random_hand(seed)
    hand_rate = HANDS / (time.perf_counter() - start)
    rates = {}
    for name, copier, repeat in (
        ("Round.copy()", Round.copy, REPEAT),
        ("copy.deepcopy", copy.deepcopy, REPEAT // 4),
        ("pickle round trip", lambda g: pickle.loads(pickle.dumps(g)), REPEAT // 4),
    ):
        start = time.perf_counter()
        for _ in range(repeat):
            for game in games:
                copier(game)
        rates[name] = repeat * len(games) / (time.perf_counter() - start)
    print(f"  random hands             {hand_rate:12,.0f} hands/s")
    for name, rate in rates.items():
        print(
            f"  {name:<24} {rate:12,.0f} copies/s  (a copy costs "
            f"{hand_rate / rate:.4f} of a random hand)"
        )
    ratio = hand_rate / rates["Round.copy()"]
    print(f"  copy / hand cost ratio   {ratio:.4f}  (aim < 0.2)  copies play on alike: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
