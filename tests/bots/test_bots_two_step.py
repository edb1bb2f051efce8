"""The strong bot's two-step tile efficiency (duyun.bots.evaluation.next_stage_live).

Far from ready the strong bot ranks its fastest discards by the live useful tiles now *and*
after the next useful draw. The function is checked on a hand small enough to count on
paper, and against a slow reference built on :func:`duyun.analysis.shanten` alone.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from duyun.analysis import shanten
from duyun.bots.evaluation import next_stage_live
from duyun.tiles import parse_tiles, to_counts


def _unseen(live: dict[str, int]) -> list[int]:
    unseen = [0] * 27
    for text, count in live.items():
        unseen[parse_tiles(text)[0]] = count
    return unseen


def test_next_stage_live_by_hand() -> None:
    """11m 5p 9s (three sets already melded: one set and a pair to go, shanten 1) with only
    5p x3, 9s x3 and 6p x2 live. Useful draws: 5p, 9s, 6p (8 copies).
    - 5p: 11m 55p 9s, discard 9s -> waits 1m (0 live) and 5p (2 left after the draw): 2.
    - 9s: 11m 5p 99s, discard 5p -> waits 1m (0) and 9s (2 left): 2.
    - 6p: 11m 56p 9s, discard 9s -> waits 4p and 7p, none live: 0.
    Weighted: (3 * 2 + 3 * 2 + 2 * 0) / 8 = 1.5."""
    counts = to_counts(parse_tiles("11m5p9s"))
    unseen = _unseen({"5p": 3, "9s": 3, "6p": 2})
    assert next_stage_live(counts, unseen) == 1.5
    # with nothing live there is no next stage to read
    assert next_stage_live(counts, [0] * 27) == 0.0
    # a ready hand (11m 99s waits on 1m and 9s) has no second step: its next useful draw wins
    assert next_stage_live(to_counts(parse_tiles("11m99s")), unseen) == 0.0


def _reference(counts: list[int], unseen: list[int]) -> float:
    """The same quantity the slow way: every tile kind, every discard, shanten from scratch."""
    now = shanten(counts)
    if now <= 0:
        return 0.0  # a ready hand's next useful draw wins
    total = 0.0
    weight = 0
    for draw in range(27):
        if not unseen[draw] or counts[draw] >= 4:
            continue
        counts[draw] += 1
        options: dict[int, int] = {}
        for discard in range(27):
            if counts[discard]:
                counts[discard] -= 1
                options[discard] = shanten(counts)
                counts[discard] += 1
        lowest = min(options.values())
        if lowest < now:
            live = list(unseen)
            live[draw] -= 1
            best = 0
            for discard, value in options.items():
                if value != lowest:
                    continue
                counts[discard] -= 1
                after = shanten(counts)
                useful = 0
                for tile in range(27):
                    if live[tile] and counts[tile] < 4:
                        counts[tile] += 1
                        better = shanten(counts) < after  # 3k + 2 tiles: -1 is a win
                        counts[tile] -= 1
                        if better:
                            useful += live[tile]
                counts[discard] += 1
                best = max(best, useful)
            total += unseen[draw] * best
            weight += unseen[draw]
        counts[draw] -= 1
    return total / weight if weight else 0.0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_next_stage_live_matches_a_slow_reference(seed: int) -> None:
    """Random 4-, 7- and 10-tile hands (melds standing for the other sets) with random live
    counts."""
    rng = random.Random(seed)
    wall = [t for t in range(27) for _ in range(4)]
    rng.shuffle(wall)
    counts = [0] * 27
    for tile in wall[: rng.choice((4, 7, 10))]:
        counts[tile] += 1
    unseen = [min(4 - counts[t], rng.randint(0, 3)) for t in range(27)]
    assert abs(next_stage_live(counts, unseen) - _reference(counts, unseen)) < 1e-9
