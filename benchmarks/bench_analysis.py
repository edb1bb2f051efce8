"""Analysis speed against the ``mahjong`` package, on the same hands in the same run.

Times our ``is_win`` against ``Agari().is_agari`` and our ``shanten_standard`` against
``Shanten().calculate_shanten_for_regular_hand`` on 100,000 three-suit hands (a fixed seed),
and ``waits`` on 13-tile hands. It also checks that the answers agree on every hand: standard
shanten must be equal; ``is_win`` must equal ``is_agari`` except on seven pairs holding four of
a kind, which Duyun counts as two pairs (R10) and riichi does not. A mismatch makes ``main``
return 1; slow timings are reported, not failed, because they depend on the machine.

Our tables fill lazily, so the first pass over new hands pays for table entries; both that
cold pass and the steady state (the same hands again, as a long-running bot would see) are
reported, and the targets are judged on the steady state.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence

from mahjong.agari import Agari
from mahjong.shanten import Shanten

from duyun.analysis import is_seven_pairs, is_win, shanten_standard, waits

HANDS = 100_000
SEED = 20240611
NEAR_COMPLETE_SHARE = 0.2
WIN_TARGET = 5.0
SHANTEN_TARGET = 20.0
WAITS_TARGET = 100_000

WALL = [t for t in range(27) for _ in range(4)]
SET_SHAPES = [[t] * 3 for t in range(27)] + [[t, t + 1, t + 2] for t in range(27) if t % 9 <= 6]


def random_hand(rng: random.Random) -> list[int]:
    """14 distinct tiles of the 108: mostly far from complete."""
    counts = [0] * 27
    for tile in rng.sample(WALL, 14):
        counts[tile] += 1
    return counts


def near_complete_hand(rng: random.Random) -> list[int]:
    """A complete hand with 0-2 tiles exchanged, so that wins and ready hands occur."""
    while True:
        counts = [0] * 27
        for _ in range(4):
            for tile in rng.choice(SET_SHAPES):
                counts[tile] += 1
        counts[rng.randrange(27)] += 2
        for _ in range(rng.choice((0, 0, 1, 2))):
            counts[rng.choice([t for t in range(27) if counts[t]])] -= 1
            counts[rng.randrange(27)] += 1
        if max(counts) <= 4:
            return counts


def make_hands(count: int, seed: int) -> tuple[list[list[int]], list[list[int]]]:
    """14-tile hands and, from each, a 13-tile hand (one random tile removed)."""
    rng = random.Random(seed)
    hands14 = [
        near_complete_hand(rng) if rng.random() < NEAR_COMPLETE_SHARE else random_hand(rng)
        for _ in range(count)
    ]
    hands13 = []
    for counts in hands14:
        less = list(counts)
        less[rng.choice([t for t in range(27) if less[t]])] -= 1
        hands13.append(less)
    return hands14, hands13


def rate(function: Callable[[list[int]], object], hands: Sequence[list[int]]) -> float:
    """Hands per second of ``function`` over ``hands`` (one pass)."""
    start = time.perf_counter()
    for counts in hands:
        function(counts)
    return len(hands) / (time.perf_counter() - start)


def check_agreement(hands14: list[list[int]], hands13: list[list[int]]) -> int:
    agari = Agari()
    shanten = Shanten()
    mismatches = 0
    for counts in hands14:
        tiles34 = [*counts, 0, 0, 0, 0, 0, 0, 0]
        quad_pairs = is_seven_pairs(counts) and 4 in counts
        if is_win(counts) != (agari.is_agari(tiles34) or quad_pairs):
            mismatches += 1
            print(f"  is_win mismatch: {counts}")
    for counts in (*hands14, *hands13):
        ours = shanten_standard(counts)
        theirs = shanten.calculate_shanten_for_regular_hand([*counts, 0, 0, 0, 0, 0, 0, 0])
        if ours != theirs:
            mismatches += 1
            print(f"  shanten mismatch: {counts}: ours {ours}, mahjong {theirs}")
    return mismatches


def main() -> int:
    print(f"== analysis: {HANDS:,} hands (seed {SEED}, {NEAR_COMPLETE_SHARE:.0%} near complete)")
    hands14, hands13 = make_hands(HANDS, SEED)
    as34 = [[*counts, 0, 0, 0, 0, 0, 0, 0] for counts in hands14]
    agari = Agari()
    reference = Shanten()

    ours_win_cold = rate(is_win, hands14)
    ours_win = rate(is_win, hands14)
    theirs_win = rate(agari.is_agari, as34)
    ours_shanten_cold = rate(shanten_standard, hands14)
    ours_shanten = rate(shanten_standard, hands14)
    theirs_shanten = rate(reference.calculate_shanten_for_regular_hand, as34)
    waits_cold = rate(waits, hands13)
    waits_warm = rate(waits, hands13)

    wins = sum(map(is_win, hands14))
    ready = sum(1 for counts in hands13 if waits(counts))
    print(f"  {wins:,} winning 14-tile hands, {ready:,} ready 13-tile hands")
    rows = [
        ("is_win", ours_win_cold, ours_win, theirs_win, WIN_TARGET),
        ("shanten_standard", ours_shanten_cold, ours_shanten, theirs_shanten, SHANTEN_TARGET),
    ]
    print(f"  {'':18} {'ours cold/s':>12} {'ours/s':>12} {'mahjong/s':>12} {'ratio':>7}  target")
    for name, cold, warm, theirs, target in rows:
        ratio = warm / theirs
        verdict = "ok" if ratio >= target else "MISSED"
        print(
            f"  {name:18} {cold:12,.0f} {warm:12,.0f} {theirs:12,.0f} {ratio:6.1f}x"
            f"  >= {target:.0f}x {verdict} (cold {cold / theirs:.1f}x)"
        )
    verdict = "ok" if waits_warm >= WAITS_TARGET else "MISSED"
    print(
        f"  waits (13 tiles)   {waits_cold:12,.0f} {waits_warm:12,.0f} hands/s on one core"
        f"  >= {WAITS_TARGET:,} {verdict}"
    )

    mismatches = check_agreement(hands14, hands13)
    checked = f"{len(hands14):,} win checks and {len(hands14) + len(hands13):,} shanten values"
    if mismatches:
        print(f"  FAIL: {mismatches} mismatches against mahjong ({checked})")
        return 1
    print(f"  agreement with mahjong: {checked}, 0 mismatches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
