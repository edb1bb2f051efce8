"""The search bot's model of the other seats' hidden hands (issue 23).

:func:`~duyun.engine.determinize.sample_round` deals the tiles a seat cannot see uniformly,
so a sampled opponent holds a random hand: two or three steps from ready (shanten) whatever
the turn. Real hands were built by drawing and keeping the useful tiles: after six discards
about half of the strong bots' hands are ready, and the uniform samples almost never are
(``benchmarks/opponent_prior.py`` measures both). A search on uniform samples therefore plays
against opponents far slower than the real ones: it sees time it does not have and danger
where there is little, and values slow, big hands and dangerous discards too well.

The model closes that gap in the simplest way that keeps the hands' shapes natural: for each
other seat (not in 報聽, which the sampler already deals ready) it draws how far from ready
the hand is from :data:`SHANTEN_PRIOR` -- the distribution measured in self-play for what
anybody sees of that seat: its number of discards and of melds -- and then *develops* the
uniformly dealt hand towards it, as the hand would have grown: a random tile of the live wall
comes in, the least useful tile of the hand (lowest shanten, then least connected, the
rollouts' own rule) goes back to the wall in its place. Tiles only move between that hand and
the wall, so the sample stays consistent with the seat's view; it is no longer uniform, by
design. The others' discards say more (which suits they let go, what they did not pong):
that is not modelled.

Measured (docs/simulate.md): the model makes the samples as ready as real hands, but the
search bot plays no better with it (on 1,000 fresh walls against three strong bots, +0.02
[-0.39, +0.43] points per hand, paired), so ``SearchBot.MODEL_OPPONENTS`` is off.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from duyun.analysis import shanten
from duyun.bots.evaluation import HandEvaluator
from duyun.bots.rollout import least_connected
from duyun.engine.determinize import HandModel
from duyun.engine.view import SeatView
from duyun.tiles import from_counts, to_counts

MAX_DISCARDS = 12  # discards in the river counted up to this; more are the same cell
MAX_SHANTEN = 4  # shanten counted up to this; a hand further away is the same cell
MAX_STEPS = 40  # exchanges with the wall at most, per hand

# Shanten 0..MAX_SHANTEN by (discards in the river, melds): four strong bots, 2,000 hands
# (benchmarks/opponent_prior.py --hands 2000 --seed 1: its output, comments included), every
# cell smoothed by a pseudo-count of 0.2 per shanten.
SHANTEN_PRIOR: dict[tuple[int, int], tuple[float, ...]] = {
    (0, 0): (0.001, 0.073, 0.398, 0.453, 0.075),  # n=17300, mean 2.53, uniform 2.60
    (0, 1): (0.037, 0.353, 0.537, 0.073, 0.001),  # n=303, mean 1.65, uniform 2.52
    (1, 0): (0.006, 0.181, 0.534, 0.267, 0.011),  # n=27221, mean 2.09, uniform 2.57
    (1, 1): (0.042, 0.300, 0.540, 0.112, 0.007),  # n=3281, mean 1.74, uniform 2.32
    (1, 2): (0.133, 0.578, 0.265, 0.022, 0.002),  # n=98, mean 1.17, uniform 1.79
    (2, 0): (0.039, 0.333, 0.500, 0.126, 0.002),  # n=22619, mean 1.72, uniform 2.54
    (2, 1): (0.079, 0.434, 0.440, 0.045, 0.001),  # n=6755, mean 1.45, uniform 2.32
    (2, 2): (0.205, 0.606, 0.186, 0.002, 0.000),  # n=555, mean 0.98, uniform 1.75
    (2, 3): (0.240, 0.040, 0.640, 0.040, 0.040),  # n=4, mean 1.50, uniform 1.00
    (3, 0): (0.108, 0.448, 0.387, 0.057, 0.000),  # n=18895, mean 1.39, uniform 2.52
    (3, 1): (0.169, 0.511, 0.304, 0.017, 0.000),  # n=9182, mean 1.17, uniform 2.33
    (3, 2): (0.339, 0.557, 0.099, 0.005, 0.000),  # n=1300, mean 0.77, uniform 1.87
    (3, 3): (0.708, 0.282, 0.003, 0.003, 0.003),  # n=60, mean 0.28, uniform 1.50
    (4, 0): (0.196, 0.491, 0.288, 0.025, 0.000),  # n=15273, mean 1.14, uniform 2.49
    (4, 1): (0.277, 0.515, 0.204, 0.004, 0.000),  # n=10392, mean 0.93, uniform 2.31
    (4, 2): (0.431, 0.518, 0.051, 0.000, 0.000),  # n=2134, mean 0.62, uniform 1.90
    (4, 3): (0.593, 0.403, 0.001, 0.001, 0.001),  # n=151, mean 0.40, uniform 1.32
    (4, 4): (0.840, 0.040, 0.040, 0.040, 0.040),  # n=4, mean 0.00, uniform 0.00
    (5, 0): (0.283, 0.507, 0.198, 0.012, 0.000),  # n=12132, mean 0.94, uniform 2.51
    (5, 1): (0.369, 0.482, 0.146, 0.002, 0.000),  # n=10348, mean 0.78, uniform 2.30
    (5, 2): (0.490, 0.475, 0.035, 0.000, 0.000),  # n=2745, mean 0.54, uniform 1.87
    (5, 3): (0.818, 0.180, 0.001, 0.001, 0.001),  # n=272, mean 0.18, uniform 1.08
    (5, 4): (0.960, 0.010, 0.010, 0.010, 0.010),  # n=19, mean 0.00, uniform 0.00
    (6, 0): (0.378, 0.483, 0.133, 0.005, 0.000),  # n=9204, mean 0.77, uniform 2.45
    (6, 1): (0.468, 0.428, 0.101, 0.003, 0.000),  # n=9362, mean 0.64, uniform 2.27
    (6, 2): (0.559, 0.413, 0.029, 0.000, 0.000),  # n=3048, mean 0.47, uniform 1.84
    (6, 3): (0.785, 0.214, 0.001, 0.001, 0.001),  # n=384, mean 0.21, uniform 1.14
    (6, 4): (0.978, 0.006, 0.006, 0.006, 0.006),  # n=35, mean 0.00, uniform 0.00
    (7, 0): (0.481, 0.439, 0.079, 0.002, 0.000),  # n=6707, mean 0.60, uniform 2.44
    (7, 1): (0.570, 0.366, 0.064, 0.000, 0.000),  # n=7804, mean 0.49, uniform 2.22
    (7, 2): (0.611, 0.370, 0.018, 0.001, 0.000),  # n=3060, mean 0.41, uniform 1.84
    (7, 3): (0.809, 0.190, 0.000, 0.000, 0.000),  # n=479, mean 0.19, uniform 1.31
    (7, 4): (0.981, 0.005, 0.005, 0.005, 0.005),  # n=42, mean 0.00, uniform 0.00
    (8, 0): (0.545, 0.405, 0.049, 0.001, 0.000),  # n=4758, mean 0.51, uniform 2.46
    (8, 1): (0.639, 0.313, 0.048, 0.000, 0.000),  # n=6159, mean 0.41, uniform 2.25
    (8, 2): (0.682, 0.297, 0.021, 0.000, 0.000),  # n=2667, mean 0.34, uniform 1.82
    (8, 3): (0.841, 0.158, 0.000, 0.000, 0.000),  # n=469, mean 0.16, uniform 1.22
    (8, 4): (0.976, 0.006, 0.006, 0.006, 0.006),  # n=32, mean 0.00, uniform 0.00
    (9, 0): (0.634, 0.335, 0.030, 0.001, 0.000),  # n=3326, mean 0.40, uniform 2.37
    (9, 1): (0.701, 0.263, 0.036, 0.000, 0.000),  # n=4656, mean 0.34, uniform 2.24
    (9, 2): (0.748, 0.235, 0.017, 0.000, 0.000),  # n=2268, mean 0.27, uniform 1.84
    (9, 3): (0.854, 0.145, 0.000, 0.000, 0.000),  # n=477, mean 0.14, uniform 1.24
    (9, 4): (0.979, 0.005, 0.005, 0.005, 0.005),  # n=38, mean 0.00, uniform 0.00
    (10, 0): (0.696, 0.283, 0.020, 0.001, 0.000),  # n=2303, mean 0.33, uniform 2.34
    (10, 1): (0.761, 0.213, 0.025, 0.000, 0.000),  # n=3350, mean 0.26, uniform 2.12
    (10, 2): (0.777, 0.198, 0.025, 0.000, 0.000),  # n=1796, mean 0.25, uniform 1.79
    (10, 3): (0.833, 0.165, 0.001, 0.001, 0.001),  # n=357, mean 0.17, uniform 1.24
    (10, 4): (0.984, 0.004, 0.004, 0.004, 0.004),  # n=48, mean 0.00, uniform 0.00
    (11, 0): (0.757, 0.228, 0.012, 0.002, 0.000),  # n=1466, mean 0.26, uniform 2.28
    (11, 1): (0.808, 0.164, 0.024, 0.003, 0.000),  # n=2293, mean 0.22, uniform 2.05
    (11, 2): (0.836, 0.160, 0.004, 0.000, 0.000),  # n=1421, mean 0.17, uniform 1.63
    (11, 3): (0.888, 0.110, 0.001, 0.001, 0.001),  # n=320, mean 0.11, uniform 1.12
    (11, 4): (0.985, 0.004, 0.004, 0.004, 0.004),  # n=52, mean 0.00, uniform 0.00
    (12, 0): (0.826, 0.152, 0.020, 0.002, 0.000),  # n=1594, mean 0.20, uniform 2.21
    (12, 1): (0.865, 0.108, 0.026, 0.002, 0.000),  # n=2671, mean 0.16, uniform 1.90
    (12, 2): (0.866, 0.126, 0.008, 0.000, 0.000),  # n=2062, mean 0.14, uniform 1.67
    (12, 3): (0.924, 0.075, 0.000, 0.000, 0.000),  # n=548, mean 0.07, uniform 1.15
    (12, 4): (0.988, 0.003, 0.003, 0.003, 0.003),  # n=65, mean 0.00, uniform 0.00
}


def cell(discards: int, melds: int) -> tuple[int, int]:
    """The prior's cell for a seat with ``discards`` tiles in its river and ``melds`` melds."""
    return min(discards, MAX_DISCARDS), min(melds, 4)


def target_shanten(view: SeatView, seat: int, rng: random.Random, lowest: int = 0) -> int | None:
    """A shanten of at least ``lowest`` drawn from the prior for ``seat`` as ``view`` sees it,
    the prior's shares below ``lowest`` left out (None: no data)."""
    shares = SHANTEN_PRIOR.get(cell(len(view.rivers[seat]), len(view.melds[seat])))
    if shares is None:
        return None
    pick = rng.random() * (sum(shares[lowest:]) if lowest else 1.0)
    for value in range(lowest, len(shares)):
        pick -= shares[value]
        if pick < 0:
            return value
    return len(shares) - 1


def developed_hands(view: SeatView) -> HandModel:
    """The :data:`~duyun.engine.determinize.HandModel` for samples of ``view`` (module
    docstring): each free hand developed to a shanten drawn from the prior."""
    return _developing(lambda seat, rng: target_shanten(view, seat, rng))


def ready_hands(view: SeatView, ready: Sequence[float]) -> HandModel:
    """The :data:`~duyun.engine.determinize.HandModel` that makes each free hand (not 報聽:
    the sampler conditions those, R25) ready with ``ready[i]``, the chance that the seat
    ``i + 1`` places after ``view.seat`` is ready (a learned model's reading of the view:
    duyun.bots.learned), and otherwise develops it to a shanten of one or more drawn from
    :data:`SHANTEN_PRIOR` for what anybody sees of that seat. It needs no model itself, so
    the search bot can use it with whatever reads the readiness."""

    def target(seat: int, rng: random.Random) -> int | None:
        if rng.random() < ready[(seat - view.seat) % 4 - 1]:
            return 0
        return target_shanten(view, seat, rng, lowest=1)

    return _developing(target)


def _developing(target: Callable[[int, random.Random], int | None]) -> HandModel:
    """The hand model that develops each seat's 3k + 1 hand to ``target(seat, rng)`` (left as
    dealt for None, a hand mid-turn or an empty wall)."""

    def model(seat: int, hand: list[int], wall: list[int], rng: random.Random) -> None:
        if len(hand) % 3 != 1 or not wall:  # a hand mid-turn, or nothing left to draw
            return
        goal = target(seat, rng)
        if goal is None:
            return
        counts = to_counts(hand)
        develop(counts, wall, goal, rng)
        hand[:] = from_counts(counts)

    return model


def develop(counts: list[int], wall: list[int], target: int, rng: random.Random) -> int:
    """Exchange tiles of the 3k + 1 hand ``counts`` with random places of ``wall`` (both in
    place) until its shanten is at most ``target`` or :data:`MAX_STEPS` draws are spent; the
    hand's shanten at the end. Each step draws a wall tile and puts back the hand's least
    useful tile (the lowest shanten after it, then the least connected: the rollout rule)."""
    current = min(MAX_SHANTEN, shanten(counts))
    steps = 0
    while current > target and steps < MAX_STEPS:
        steps += 1
        place = rng.randrange(len(wall))
        drawn = wall[place]
        counts[drawn] += 1
        after = HandEvaluator(counts).discard_shanten()
        best = min(after.values())
        chosen = least_connected(counts, after, best, -1)
        counts[chosen] -= 1
        wall[place] = chosen
        current = min(MAX_SHANTEN, best)
    return current
