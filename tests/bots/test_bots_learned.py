"""The bots that read the learned opponent model (issue 35 item 3): ``strong-learned`` and
``search-learned``. They play legal moves to the end of hands, deterministically; the strong
bot's feed cost follows the model's deal-in chances (R26's certain safe tiles still cost
nothing); the search's sampled hands are weighted or developed by the model without moving a
tile the seat can see."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import numpy as np
import pytest

from duyun.analysis.shanten import shanten
from duyun.bots import BOT_NAMES, LEARNED_BOT_NAMES, make_bot
from duyun.bots import search as search_module
from duyun.bots.learned import (
    LearnedSearchBot,
    LearnedStrongBot,
    ModelWeigher,
    learned_hands,
    shipped_opponent_model,
    shipped_value_model,
    truncated_play_out,
)
from duyun.bots.search import SearchBot, _paired, play_out
from duyun.bots.strong import Threat
from duyun.engine import SeatView, new_round, sample_round
from duyun.learn.models import KINDS, OpponentPrediction


def play_hand(name: str, seed: int) -> list[str]:
    game = new_round(seed)
    bots = [make_bot(name if seat == 0 else "efficient", seat) for seat in range(4)]
    taken = []
    while not game.is_over:
        seat = game.to_act[0]
        view = game.view(seat)
        action = bots[seat].choose(view)
        assert action in view.legal
        taken.append(str(action))
        game.apply(action)
    return taken


@pytest.mark.parametrize("name", LEARNED_BOT_NAMES)
def test_the_learned_bots_play_legal_hands_deterministically(name: str) -> None:
    assert play_hand(name, 4) == play_hand(name, 4)


def test_the_learned_bots_are_not_offered_where_the_core_install_is() -> None:
    """They need NumPy: not among the core bots the server and its levels offer."""
    assert not set(LEARNED_BOT_NAMES) & set(BOT_NAMES)
    assert make_bot("strong-learned", 1).name == "strong-learned"
    assert isinstance(make_bot("search-learned", 1), LearnedSearchBot)


def own_turn_view(seed: int, turns: int) -> SeatView:
    """Seat 0's view at its ``turns``-th own turn of an efficient-bot hand (the first hand
    from ``seed`` on that lasts so long)."""
    for hand in range(seed, seed + 20):
        game = new_round(hand)
        bots = [make_bot("efficient", seat) for seat in range(4)]
        seen = 0
        while not game.is_over:
            seat = game.to_act[0]
            view = game.view(seat)
            if seat == 0 and game.claims is None:
                seen += 1
                if seen == turns and len(view.legal) > 1:
                    return view
            game.apply(bots[seat].choose(view))
    raise AssertionError("no hand lasted so long")


class _Fixed:
    """An opponent model answering one fixed prediction."""

    def __init__(self, prediction: OpponentPrediction) -> None:
        self.prediction = prediction

    def predict_view(self, view: SeatView) -> OpponentPrediction:
        return self.prediction


def fixed_prediction(deal_in: dict[tuple[int, int], float], ready: float) -> OpponentPrediction:
    danger = np.zeros((1, 3, KINDS), dtype=np.float32)
    for (rel, kind), chance in deal_in.items():
        danger[0, rel, kind] = chance
    return OpponentPrediction(
        ready=np.full((1, 3), ready, dtype=np.float32),
        waits=danger.copy(),
        deal_in=danger,
        concealed=np.full((1, 3, KINDS, 4), 0.1, dtype=np.float32),
    )


def test_the_feed_cost_is_the_models_deal_in_chance_times_what_a_win_costs() -> None:
    view = own_turn_view(2, 6)
    tile = view.hand[0]
    prediction = fixed_prediction({(0, tile): 0.2, (2, tile): 0.1}, ready=0.5)
    bot = LearnedStrongBot(0, model=_Fixed(prediction))  # type: ignore[arg-type]
    threats = [
        Threat(
            seat=(view.seat + rel + 1) % 4,
            ready=0.5,
            allowed=1.0,
            cost=4.0,
            flush_suit=None,
            safe=frozenset(),
        )
        for rel in range(3)
    ]
    stake = 2.0
    expected = (0.2 + 0.1) * (4.0 + bot.LOSS_SHARE * stake)
    assert math.isclose(
        bot._feed_cost(view, tile, threats, [4] * KINDS, stake), expected, rel_tol=1e-6
    )
    other = next(k for k in range(KINDS) if k != tile)
    assert bot._feed_cost(view, other, threats, [4] * KINDS, stake) == 0.0
    # R26: a tile a 報聽 seat let pass is certain to be safe from it, whatever the model says
    safe = [replace(threats[0], safe=frozenset({tile})), *threats[1:]]
    assert math.isclose(
        bot._feed_cost(view, tile, safe, [4] * KINDS, stake),
        0.1 * (4.0 + bot.LOSS_SHARE * stake),
        rel_tol=1e-6,
    )


def test_the_learned_strong_bot_keeps_a_tile_the_model_calls_dangerous() -> None:
    """The same view, the model certain that the strong bot's own choice deals in to a
    ready opponent: the learned bot discards something else."""
    view = own_turn_view(2, 8)
    plain = LearnedStrongBot(0, model=_Fixed(fixed_prediction({}, ready=0.3)))  # type: ignore[arg-type]
    choice = plain.choose(view)
    assert choice.tile is not None
    danger = fixed_prediction({(rel, choice.tile): 0.9 for rel in range(3)}, ready=0.95)
    wary = LearnedStrongBot(0, model=_Fixed(danger))  # type: ignore[arg-type]
    assert wary.choose(view).tile != choice.tile


def test_model_weights_are_positive_and_equal_weights_give_the_plain_mean() -> None:
    view = own_turn_view(3, 7)
    prediction = shipped_opponent_model().predict_view(view)
    weigher = ModelWeigher(view, prediction, hands=0.5, ready=1.0)
    rng = random.Random(1)
    for _ in range(16):
        weigher.add(sample_round(view, rng=rng))
    weights = weigher.weights()
    assert len(weights) == 16 and all(w > 0 for w in weights) and max(weights) == 1.0
    values, base = [float(v) for v in range(10)], [0.0] * 10
    gain, error = _paired(values, base, [1.0] * 10)
    plain_gain, _ = _paired(values, base)
    assert math.isclose(gain, plain_gain) and math.isfinite(error)
    # all the weight on one sample: its difference is the estimate
    tilted, _ = _paired(values, base, [0.0] * 9 + [1.0])
    assert math.isclose(tilted, 9.0)


def test_learned_hands_make_an_opponent_the_model_calls_ready_ready_in_the_samples() -> None:
    """Readiness 1 for every other seat: the developed hands are ready (R11: shanten 0),
    and the sample still shows the seat exactly its view (only unseen tiles moved)."""
    view = own_turn_view(5, 6)
    model = learned_hands(view, fixed_prediction({}, ready=1.0))
    rng = random.Random(3)
    ready = total = 0
    for _ in range(6):
        world = sample_round(view, rng=rng, hand_model=model)
        assert world.view(view.seat) == view
        for other in view.opponents():
            total += 1
            ready += shanten(world.counts[other]) == 0
    assert ready >= 0.8 * total


def test_the_learned_search_weights_its_samples_only_when_asked() -> None:
    bot = LearnedSearchBot(0)
    view = own_turn_view(3, 7)
    assert bot.sample_weigher(view) is None and bot.hand_model(view) is None
    bot.WEIGHT_HANDS = 0.5
    assert isinstance(bot.sample_weigher(view), ModelWeigher)
    bot.LEARNED_HANDS = True
    assert bot.hand_model(view) is not None


def test_the_search_bot_samples_opponents_as_ready_as_the_model_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """大師 (``search``): with NumPy, the sampled hands of the other seats are developed by
    the shipped model's reading of the view (``learned_hands``: docs/simulate.md measured it);
    with LEARNED_HANDS off, or where the models cannot run (NumPy missing: the core
    install), the samples stay uniform."""
    view = own_turn_view(5, 6)
    bot = SearchBot(1)
    assert SearchBot.LEARNED_HANDS is True
    model = bot.hand_model(view)
    assert model is not None
    expected = learned_hands(view, shipped_opponent_model().predict_view(view))
    for seed in range(4):
        worlds = [
            sample_round(view, rng=random.Random(seed), hand_model=shaper)
            for shaper in (model, expected)
        ]
        assert [w.counts for w in worlds[:1]] == [w.counts for w in worlds[1:]]
        assert worlds[0].view(view.seat) == view
    bot.LEARNED_HANDS = False
    assert bot.hand_model(view) is None
    monkeypatch.setattr(search_module, "_READER", [None])
    assert SearchBot(1).hand_model(view) is None


def test_a_rollout_cut_beyond_the_hands_end_is_the_full_rollout() -> None:
    """VALUE_LEAF: with more own turns allowed than the hand has, the truncated play-out
    is the plain one (same moves, same points); cut at the next own turn it is the value
    model's reading of a view, a finite number of points."""
    view = own_turn_view(6, 5)
    world = sample_round(view, rng=random.Random(2))
    value = shipped_value_model()
    for action in list(view.legal)[:3]:
        full = play_out(world, action, view.seat, value_aware=True)
        assert truncated_play_out(world, action, view.seat, 99, value, True) == full
        assert math.isfinite(truncated_play_out(world, action, view.seat, 0, value, True))
