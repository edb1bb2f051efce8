"""The search bot's model of the other hands (issue 23, duyun/bots/opponent_model.py): hands
developed from the wall towards a shanten drawn from what a seat sees of the others, so that a
search does not play against opponents far slower than the real ones."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duyun.analysis import shanten
from duyun.bots import make_bot
from duyun.bots import search as search_module
from duyun.bots.opponent_model import (
    MAX_SHANTEN,
    SHANTEN_PRIOR,
    cell,
    develop,
    developed_hands,
    target_shanten,
)
from duyun.bots.search import SearchBot
from duyun.engine import Round, SeatView, new_round, sample_round
from duyun.tiles import full_set, to_counts

SEATS = 4


@settings(max_examples=80)
@given(
    seed=st.integers(0, 10**6), size=st.sampled_from([1, 4, 7, 10, 13]), target=st.integers(0, 4)
)
def test_a_developed_hand_reaches_its_target_by_exchanges_only(
    seed: int, size: int, target: int
) -> None:
    rng = random.Random(seed)
    tiles = full_set()
    rng.shuffle(tiles)
    hand, wall = tiles[:size], tiles[size : size + 40]
    counts = to_counts(hand)
    before = Counter(hand) + Counter(wall)
    reached = develop(counts, wall, target, rng)
    after = Counter(wall) + Counter({k: c for k, c in enumerate(counts) if c})
    assert after == before  # R1: tiles moved, none made or lost
    assert sum(counts) == size and len(wall) == 40
    assert reached == min(MAX_SHANTEN, shanten(counts))
    # a step keeps the lowest shanten after the draw: a hand never gets further from ready
    assert reached <= min(MAX_SHANTEN, shanten(to_counts(hand)))


def test_most_hands_reach_their_target_within_the_steps() -> None:
    rng = random.Random(4)
    reached = Counter()
    for _ in range(200):
        tiles = full_set()
        rng.shuffle(tiles)
        for target in (0, 1):
            counts = to_counts(tiles[:13])
            reached[target] += develop(counts, tiles[13:73], target, rng) <= target
    assert reached[1] >= 190 and reached[0] >= 160


def test_the_prior_is_a_distribution_that_grows_readier_with_the_turns() -> None:
    """The measured table (benchmarks/opponent_prior.py): every cell sums to one, and with
    no meld a hand is readier after more discards."""
    for shares in SHANTEN_PRIOR.values():
        assert len(shares) == MAX_SHANTEN + 1
        assert abs(sum(shares) - 1) < 0.01
    ready = [SHANTEN_PRIOR[(discards, 0)][0] for discards in range(13)]
    assert ready == sorted(ready) and ready[0] < 0.05 < 0.5 < ready[-1]
    assert cell(30, 9) == (12, 4)
    view = new_round(1).view(0)
    rng = random.Random(2)
    draws = Counter(target_shanten(view, 1, rng) for _ in range(2000))
    assert draws[0] < 40 and draws[2] + draws[3] > 1400  # (0, 0): mostly two or three away


def late_position(seed: int) -> Round:
    """Four strong bots' hand after each seat has discarded several tiles."""
    game = new_round(seed, dealer=seed % SEATS)
    bots = [make_bot("strong", seed * 4 + seat) for seat in range(SEATS)]
    while not game.is_over and min(len(river) for river in game.rivers) < 7:
        seat = game.to_act[0]
        game.apply(bots[seat].choose(game.view(seat)))
    return game


def test_modelled_opponents_are_as_ready_as_real_ones_and_uniform_ones_are_not() -> None:
    """After seven discards each, most real hands of strong bots are ready or one step away
    (the prior says so); uniform samples are random hands, two or three away; the model's
    samples are close to the real hands."""
    real: list[int] = []
    uniform: list[int] = []
    modelled: list[int] = []
    rng = random.Random(7)
    for seed in range(40):
        game = late_position(seed)
        if game.is_over:
            continue
        seat = game.to_act[0]
        view = game.view(seat)
        for _ in range(5):
            plain = sample_round(view, rng=rng)
            shaped = sample_round(view, rng=rng, hand_model=developed_hands(view))
            assert shaped.view(seat) == view
            for other in view.opponents():
                if view.baoting[other] or view.won[other] or view.concealed_sizes[other] % 3 != 1:
                    continue
                real.append(shanten(game.counts[other]))
                uniform.append(shanten(plain.counts[other]))
                modelled.append(shanten(shaped.counts[other]))
    assert len(real) > 200

    def mean(values: list[int]) -> float:
        return sum(values) / len(values)

    assert mean(uniform) - mean(real) > 1.0
    assert abs(mean(modelled) - mean(real)) < 0.35


def test_the_search_bot_samples_with_the_model_and_can_do_without(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """MODEL_OPPONENTS hands the model to every sample of a search; off (the default: it
    measured no gain, docs/simulate.md) and with the learned hands off too, the samples are
    uniform."""
    models: list[object] = []

    def recording(view: SeatView, **options: Any) -> Round:
        models.append(options.get("hand_model"))
        return sample_round(view, **options)

    monkeypatch.setattr(search_module, "sample_round", recording)
    assert SearchBot.MODEL_OPPONENTS is False
    for modelled in (True, False):
        models.clear()
        game = new_round(11)
        bot = SearchBot(1)
        bot.MODEL_OPPONENTS = modelled
        bot.LEARNED_HANDS = False
        others = [make_bot("efficient", seat) for seat in range(SEATS)]
        while not game.is_over and bot.searched < 3:
            seat = game.to_act[0]
            chooser = bot if seat == 0 else others[seat]
            game.apply(chooser.choose(game.view(seat)))
        assert bot.searched >= 3 and models
        assert all((model is not None) is modelled for model in models)
