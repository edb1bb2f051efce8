"""Bots that read the learned opponent model (issue 35 item 3): ``strong-learned`` and
``search-learned``.

The strong bot's defence rests on two hand-written estimates (:mod:`duyun.bots.strong`): how
likely each opponent is ready (a curve over the turn and its melds, measured on efficient
self-play) and how likely each discard is one of its waits that it may win on (R17). The
opponent model trained on self-play (:mod:`duyun.learn.models`) reads both from the seat's
whole view -- every river, the discards after 報聽 (R26), the melds, the beans -- and on fresh
self-play it is calibrated where the curve is not (the curve says 0.6 where 0.42 of the
opponents are ready) and ranks deal-ins better (AUC 0.959 against 0.934;
docs/research/learned-models.md).

:class:`LearnedStrongBot` is the strong bot with the model's readings in their place:

- ``LEARNED_DANGER``: the expected cost of a discard is, for each opponent, the model's chance
  that it wins on the tile now (its ``deal_in`` output, R17 included) times what it would be
  paid plus the share of our own hand the win would end -- where the strong bot multiplies
  its readiness, an R17 permission and a wait share of its own;
- ``LEARNED_READY``: each opponent's readiness now (what decides whether every discard is
  weighed under threat) is the model's; the hand-value chain's hazards take the larger of it
  and the strong bot's curve, as they did.

:class:`LearnedSearchBot` is 大師 with this bot's advice (its candidates and the choice a
search must beat), and switches, off, for the other ways the models could enter the search:
sampled hands weighted towards the model (``WEIGHT_HANDS``, ``WEIGHT_READY``:
:class:`ModelWeigher`) or developed to the readiness it reads (``LEARNED_HANDS``:
:func:`learned_hands`), and rollouts cut short with the value model's expected points
(``VALUE_LEAF``: :func:`truncated_play_out`).

Measured (docs/simulate.md, "The search bot on the learned models"): the learned danger does
not make the strong bot measurably stronger (+0.03 [-0.36, +0.43] points per hand on 1,000
fresh walls against three efficient bots); the hidden truth in the model's place gains about
+0.5, the bound on any danger model. The weights collapse onto two or three samples, or do
nothing when no sample has a ready opponent, and the value model tells candidates apart less
than the rollouts do. The samples developed to the readiness the model reads were measured
last and did move the search (+0.66 [+0.30, +1.03] over the strong bot, where uniform samples
made +0.29, on 1,000 walls against three efficient bots): :func:`learned_hands` is what 大師
itself (:class:`~duyun.bots.search.SearchBot`, ``LEARNED_HANDS``) samples with wherever NumPy
is installed. ``search-learned`` keeps the switch off, as it was measured.

The models need NumPy (the ``rl``, ``train`` or ``server`` extra); the core install does not
have it, so these bots are built by name only through :func:`duyun.bots.make_bot` with a
clear error when NumPy is missing, and are not among the server's difficulty levels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from duyun.bots.evaluation import HandEvaluator
from duyun.bots.opponent_model import ready_hands
from duyun.bots.rollout import fast_action
from duyun.bots.search import SampleWeigher, SearchBot, _offered
from duyun.bots.strong import StrongBot, Threat
from duyun.engine.actions import Action
from duyun.engine.determinize import HandModel, unseen_pool
from duyun.engine.phases import Phase
from duyun.engine.round import Round
from duyun.engine.view import SeatView
from duyun.learn.models import OpponentModel, OpponentPrediction, ValueModel, shipped_models
from duyun.rules import RuleSet


def shipped_opponent_model() -> OpponentModel:
    """The package's trained opponent model, loaded once per process (0.7 MB of weights)."""
    return shipped_models()[0]


def shipped_value_model() -> ValueModel:
    """The package's trained value model, loaded once per process."""
    return shipped_models()[1]


class LearnedStrongBot(StrongBot):
    """The strong bot with the learned opponent model's readiness and deal-in danger."""

    name = "strong-learned"

    LEARNED_DANGER = True
    LEARNED_READY = True
    # The model's deal-in chance is multiplied by this in the feed cost (1: as calibrated).
    DANGER_SCALE = 1.0

    def __init__(self, seed: int = 0, model: OpponentModel | None = None) -> None:
        super().__init__(seed)
        self.model = model if model is not None else shipped_opponent_model()
        self._view: SeatView | None = None
        self._prediction: OpponentPrediction | None = None

    def predict(self, view: SeatView) -> OpponentPrediction:
        """The model's reading of ``view``, computed once per view (one decision reads it
        for every discard it weighs)."""
        if self._view is not view or self._prediction is None:
            self._prediction = self.model.predict_view(view)
            self._view = view
        return self._prediction

    def _threats(self, view: SeatView, unseen: Sequence[int]) -> list[Threat]:
        threats = super()._threats(view, unseen)
        if not self.LEARNED_READY:
            return threats
        ready = self.predict(view).ready[0]
        return [
            t if view.baoting[t.seat] else replace(t, ready=float(ready[_rel(view, t.seat)]))
            for t in threats
        ]

    def _feed_cost(
        self, view: SeatView, tile: int, threats: list[Threat], unseen: Sequence[int], stake: float
    ) -> float:
        if not self.LEARNED_DANGER:
            return super()._feed_cost(view, tile, threats, unseen, stake)
        deal_in = self.predict(view).deal_in[0]
        total = 0.0
        for threat in threats:
            if tile in threat.safe:  # R26: certain, whatever the model says
                continue
            chance = float(deal_in[_rel(view, threat.seat), tile]) * self.DANGER_SCALE
            total += chance * (threat.cost + self.LOSS_SHARE * max(stake, 0.0))
        return total


def _rel(view: SeatView, seat: int) -> int:
    """The model's index of ``seat`` seen from ``view.seat``: 0, 1, 2 for +1, +2, +3."""
    return (seat - view.seat) % 4 - 1


class LearnedSearchBot(SearchBot):
    """大師 on the learned strong bot's advice (module docstring)."""

    name = "search-learned"

    # Importance weights of the sampled hands (0: off). WEIGHT_HANDS multiplies each other
    # seat's log weight for its concealed tiles (the model's marginals over uniform dealing;
    # below 1 it tempers weights that would otherwise rest on a few samples); WEIGHT_READY
    # multiplies the log weight that moves each seat's share of ready samples to the model's
    # readiness.
    WEIGHT_HANDS = 0.0
    WEIGHT_READY = 0.0
    # Each other seat's sampled hand is made ready with the model's chance that it is
    # (learned_hands) instead of left as dealt.
    LEARNED_HANDS = False
    # Rollouts stop at the bot's own turn after this many more of its turns and the value
    # model's expected points of the hand stand for the rest (0: played to the end).
    VALUE_LEAF = 0

    def __init__(
        self, seed: int = 0, rules: RuleSet | None = None, model: OpponentModel | None = None
    ) -> None:
        super().__init__(seed, rules)
        self.strong: LearnedStrongBot = LearnedStrongBot(seed, model)

    def _play(self, world: Round, action: Action, seat: int) -> float:
        if not self.VALUE_LEAF:
            return super()._play(world, action, seat)
        return truncated_play_out(
            world, action, seat, int(self.VALUE_LEAF), shipped_value_model(), self.VALUE_ROLLOUTS
        )

    def hand_model(self, view: SeatView) -> HandModel | None:
        if not self.LEARNED_HANDS:
            return super().hand_model(view)
        return learned_hands(view, self.strong.predict(view))

    def sample_weigher(self, view: SeatView) -> SampleWeigher | None:
        if not (self.WEIGHT_HANDS or self.WEIGHT_READY):
            return None
        return ModelWeigher(view, self.strong.predict(view), self.WEIGHT_HANDS, self.WEIGHT_READY)


def truncated_play_out(
    world: Round, action: Action, seat: int, turns: int, value: ValueModel, own_value: bool
) -> float:
    """As :func:`duyun.bots.search.play_out`, but the rollout stops when ``seat`` comes to
    its ``turns + 1``-th own turn after ``action`` and the value model's expected points of
    the hand from that view are the sample's value (the model was trained on own-turn views)."""
    game = world.copy()
    offered = _offered(game, action)
    if offered is None:
        return -math.inf
    game.apply_logged(offered)
    own = 0
    while game.phase is not Phase.ENDED:
        actor = game.to_act[0]
        if actor == seat and game.phase is Phase.TURN:
            own += 1
            if own > turns:
                return value.predict_view(game.view(seat))
        mine = own_value and actor == seat
        game.apply_logged(fast_action(game, actor, mine, False))
    result = game.result
    assert result is not None
    return float(result.totals[seat])


def learned_hands(view: SeatView, prediction: OpponentPrediction) -> HandModel:
    """A :data:`~duyun.engine.determinize.HandModel` that develops each free hand (not 報聽:
    the sampler conditions those, R25) towards ready with the model's chance that it is, and
    otherwise to a shanten of one or more drawn from the self-play prior for what anybody
    sees of it (:func:`duyun.bots.opponent_model.ready_hands`): uniform samples' hands are
    almost never ready where a third of the real ones are (docs/research/learned-models.md)."""
    return ready_hands(view, [float(chance) for chance in prediction.ready[0]])


class ModelWeigher:
    """Weights of one search's uniform samples towards the opponent model: for each other
    seat not in 報聽 (those samples are conditioned already, R25), the model's marginal chance
    of its sampled concealed counts over the uniform chance (as
    :func:`duyun.learn.models.sample_log_weights`), and its readiness in the sample against
    the model's chance that it is ready, the uniform share of ready samples estimated from
    the samples so far."""

    def __init__(
        self, view: SeatView, prediction: OpponentPrediction, hands: float, ready: float
    ) -> None:
        self.hands, self.ready = hands, ready
        pool = unseen_pool(view)
        self.seats: list[tuple[int, list[list[float]], float]] = []
        for other in view.opponents():
            if view.baoting[other]:
                continue
            rel = _rel(view, other)
            at_least = np.minimum.accumulate(
                prediction.concealed[0, rel].astype(np.float64), axis=-1
            )
            cumulative = np.concatenate([np.ones((27, 1)), at_least, np.zeros((27, 1))], axis=1)
            exactly = np.log(np.clip(cumulative[:, :-1] - cumulative[:, 1:], 1e-6, 1.0))
            table = [
                [
                    float(exactly[k, c]) - _LOG_COMB[min(pool[k], 4)][c] if c <= pool[k] else 0.0
                    for c in range(5)
                ]
                for k in range(27)
            ]
            self.seats.append((other, table, float(prediction.ready[0, rel])))
        self.log_hands: list[float] = []
        self.flags: list[list[bool]] = [[] for _ in self.seats]

    def add(self, world: Round) -> None:
        total = 0.0
        for index, (seat, table, _) in enumerate(self.seats):
            counts = world.counts[seat]
            if self.hands:
                total += sum(table[k][min(c, 4)] for k, c in enumerate(counts))
            if self.ready:
                self.flags[index].append(HandEvaluator(counts).shanten() == 0)
        self.log_hands.append(self.hands * total)

    def weights(self) -> list[float]:
        logs = list(self.log_hands)
        n = len(logs)
        if self.ready and n:
            for flags, (_, _, p_model) in zip(self.flags, self.seats, strict=True):
                p = min(max(p_model, 1e-3), 1 - 1e-3)
                share = min(max(sum(flags) / n, 0.5 / n), 1 - 0.5 / n)
                up = self.ready * math.log(p / share)
                down = self.ready * math.log((1 - p) / (1 - share))
                for i, flag in enumerate(flags):
                    logs[i] += up if flag else down
        top = max(logs, default=0.0)
        return [math.exp(v - top) for v in logs]


_LOG_COMB = [[math.log(math.comb(n, k)) if k <= n else -1e9 for k in range(5)] for n in range(5)]
