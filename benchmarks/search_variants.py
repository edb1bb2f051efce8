"""Variants of 大師 for the paired tools (``paired_bots.py``, ``oracle_search.py --bots
module:Class``, ``change_judge.py --versus``): each changes one idea of the search bot and
nothing else, so that its difference from ``search`` on the same walls is that idea's worth.

- :class:`LearnedHandsSearch`: the search bot's samples with each other free hand made ready
  with the learned opponent model's chance that it is (``LearnedSearchBot.LEARNED_HANDS``,
  :func:`duyun.bots.learned.learned_hands`), the strong bot's own advice (the model's
  danger and readiness switched off in the advisor, so that only the samples differ). It is
  what ``search`` now plays (tested).
- :class:`DeeperSearch`: twice the rollouts a decision and a margin of 0.3 points;
  :class:`DeeperBolderSearch` also changes the advice at one standard error instead of 1.5.
- :class:`SaferCandidatesSearch`: the two discards the learned model finds least dangerous
  join the race when it reads an opponent as likely ready.
- :class:`LearnedAdvisorSearch`: 大師's samples with the learned strong bot as the advisor.
- :class:`RoutesSearch`: 大師 whose own seat, in the rollouts, steers to the pattern its
  hand is close to (``SearchBot.ROUTES``): a change of the continuation, which
  ``change_judge.py`` cannot judge (it plays the rest of the hand with the rollouts).
  :class:`PlainRolloutsSearch` goes the other way: its own seat plays the plain efficient
  rules in the rollouts, as the others do.
- :class:`StrongNextTurnSearch`: 大師 whose rollouts let the strong bot make the own seat's
  next turn after each candidate, the rollout policy the rest (another continuation
  variant).
- :class:`ConfirmedSearch`: 大師 whose changes stand only if they also gain over fresh
  samples with the strong bot playing the rest of the hand (``strong_play_out``).
- :class:`StrongRolloutsSearch`: 大師's race with every rollout's own seat played by the
  strong bot to the end of the hand: the right continuation at seven times the cost, a
  bound rather than a bot; :class:`ClaimStrongRolloutsSearch` does it at claims alone,
  which is what ``search`` now plays (:class:`PolicyClaimsSearch` is 大師 before it).

The variants measured before ``STRONG_CLAIM_ROLLOUTS`` was switched on were measured beside
大師 with the rollout policy at claims; those that keep ``SearchBot._play`` now inherit the
strong bot's continuation at claims (to play one as it was measured, subclass it with the
switch off, as :class:`PolicyClaimsSearch` does). What each was worth is in docs/simulate.md
("Are the search's changes right?", and for the continuation variants "The rest of the hand
as 大師 plays it" and the sections after it). Only LearnedHandsSearch and ClaimStrongRolloutsSearch
play as ``search`` does.

usage: PYTHONPATH=benchmarks python benchmarks/oracle_search.py \\
           --bots search,search_variants:LearnedHandsSearch --seed S --walls N
       PYTHONPATH=benchmarks python benchmarks/change_judge.py \\
           --versus search_variants:DeeperBolderSearch --seed S --walls N
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from duyun.bots.learned import LearnedSearchBot
from duyun.bots.rollout import fast_action, rollout
from duyun.bots.search import SearchBot, _offered, strong_play_out
from duyun.engine.actions import Action, ActionKind
from duyun.engine.phases import Phase
from duyun.engine.round import Round
from duyun.engine.view import SeatView
from duyun.rules import RuleSet


class LearnedHandsSearch(LearnedSearchBot):
    """The search bot whose samples' opponents are ready as often as the model says."""

    name = "search-learned-hands"
    LEARNED_HANDS = True

    def __init__(self, seed: int = 0, rules: RuleSet | None = None) -> None:
        super().__init__(seed, rules)
        self.strong.LEARNED_DANGER = False
        self.strong.LEARNED_READY = False


class DeeperSearch(SearchBot):
    """大師 with twice the rollouts a decision may spend and a smaller margin: whether its
    samples, now as ready as the model says, are good enough for more of its close calls
    to go the search's way (the pooled oracle, which knows the live tiles, gains only a
    fifth more than they do at the shipped budget)."""

    name = "search-deeper"
    BUDGET = 480
    MARGIN = 0.3


class DeeperBolderSearch(DeeperSearch):
    """:class:`DeeperSearch` that changes the strong bot's choice at one standard error
    instead of 1.5: where ``change_judge.py``'s grid put the best threshold for twice the
    samples (more samples, smaller errors, so fewer of the changes a lower bar lets through
    are noise)."""

    name = "search-deeper-bolder"
    Z = 1.0


class SaferCandidatesSearch(SearchBot):
    """The search bot that also weighs the two discards the learned opponent model finds
    least dangerous whenever it reads an opponent as likely ready (over ``READY``), where the
    search weighs the fastest discards only (and a 報聽 seat's passed tiles): folding against
    a ready hand that has not declared is a candidate the race never saw. The turns with an
    opponent ready are where the oracle, which sees the other hands, chooses otherwise most
    often (``oracle_choices.py``)."""

    name = "search-safer-candidates"
    READY = 0.4
    SAFER = 2

    def candidates(self, view: SeatView, advice: Action) -> list[Action]:
        chosen = super().candidates(view, advice)
        if view.claim_tile is not None:
            return chosen
        discards = {a.tile: a for a in view.legal if a.kind is ActionKind.DISCARD}
        if not discards:
            return chosen
        from duyun.learn.models import shipped_models

        prediction = shipped_models()[0].predict_view(view)
        if float(prediction.ready[0].max()) <= self.READY:
            return chosen
        danger = prediction.danger()[0]
        safest = sorted(discards, key=lambda tile: (float(danger[tile]), tile))
        for tile in safest[: self.SAFER]:
            if discards[tile] not in chosen:
                chosen.append(discards[tile])
        return chosen


class LearnedAdvisorSearch(LearnedSearchBot):
    """大師's samples (the model's readiness) with the learned strong bot as its advisor: the
    model's deal-in danger and readiness in the choice the search must beat and in its
    candidates (``strong-learned``), where 大師's advisor is the strong bot itself."""

    name = "search-learned-advisor"
    LEARNED_HANDS = True


class RoutesSearch(SearchBot):
    """大師 whose own seat plays the patterns its hand is close to in the rollouts (清一色,
    七對, 對對胡: ``duyun.bots.rollout.hand_route``), as 大師 itself does through the strong
    bot's choices, where the rollouts' own seat otherwise plays for speed. Measured without
    the model's readiness in the samples at -0.28 [-1.18, +0.61] on 200 walls; the samples now
    make speed matter more, which may change how a pattern's worth weighs against it. With
    them, on 1,000 walls of seed 20261206: -0.02 [-0.44, +0.40] against 大師."""

    name = "search-routes"
    ROUTES = True


class PlainRolloutsSearch(SearchBot):
    """大師 whose own seat plays the efficient rules in the rollouts, as the others do,
    without the value-aware variant's two touches (a 清一色 suit kept among the tied
    discards, a 報聽 opponent's passed tiles discarded when far from ready): the other
    direction from :class:`RoutesSearch`, whether a continuation that plays for speed alone
    values the candidates better. On 1,000 walls of seed 20261206: -0.18 [-0.45, +0.10]
    against 大師."""

    name = "search-plain-rollouts"
    VALUE_ROLLOUTS = False


class SharpRolloutsSearch(SearchBot):
    """大師 whose own seat, in the rollouts, also makes a kong that costs its hand one step
    and keeps the best-paying of several waits (``SearchBot.SHARP_ROLLOUTS``): the two
    touches of the strong bot worth most to a rollout player (about +0.25 a hand each
    against three efficient bots, docs/simulate.md). A continuation closer to how 大師 plays
    the rest of the hand; on 1,000 walls of seed 35320 against three efficient bots, +0.07
    [-0.38, +0.51] against 大師."""

    name = "search-sharp-rollouts"
    SHARP_ROLLOUTS = True


class StrongNextTurnSearch(SearchBot):
    """大師 whose rollouts let the strong bot make the own seat's next turn after the
    candidate (its discard, kong or 報聽 on the sampled hand's view), and the rollout policy
    the rest: what the strong bot has over the policy as a player is mostly its plain
    discards and kongs (``rollout_players.py``'s ``value+strong-discards`` and
    ``value+strong-kongs``), and the turn right after a candidate is where a pattern-keeping
    candidate and a fast one part. The strong bot's move is remembered for the rest of the
    search by the seat's tiles, its melds and who is in 報聽 (the samples differ in the
    others' hands and rivers, which the memory ignores): a searched decision asks it about
    forty times instead of a few hundred. On 1,000 walls of seed 35320 against three
    efficient bots, -0.27 [-0.74, +0.19] against 大師 (docs/simulate.md)."""

    name = "search-strong-next-turn"
    TURNS = 1  # own turns the strong bot plays in each rollout

    def __init__(self, seed: int = 0, rules: RuleSet | None = None) -> None:
        super().__init__(seed, rules)
        self.turn_player = self.strong.fork()
        self.turn_memory: dict[tuple[tuple[int, ...], int, tuple[bool, ...]], Action] = {}
        self.asked = 0  # strong-bot moves computed in the rollouts, for measurement

    def search(
        self,
        view: SeatView,
        candidates: Sequence[Action],
        advice: Action,
        deadline: float | None = None,
    ) -> Action:
        self.turn_player = self.strong.fork()
        self.turn_memory = {}
        return super().search(view, candidates, advice, deadline)

    def _play(self, world: Round, action: Action, seat: int) -> float:
        game = world.copy()
        offered = _offered(game, action)
        if offered is None:
            return -math.inf
        game.apply_logged(offered)
        turns = 0
        while game.phase is not Phase.ENDED and turns < self.TURNS:
            actor = game.to_act[0]
            if actor != seat or game.phase is not Phase.TURN:
                own = actor == seat and self.VALUE_ROLLOUTS
                game.apply_logged(
                    fast_action(game, actor, own, own and self.ROUTES, own and self.SHARP_ROLLOUTS)
                )
                continue
            turns += 1
            key = (tuple(game.counts[seat]), len(game.melds[seat]), tuple(game.baoting))
            move = self.turn_memory.get(key)
            if move is None:
                self.asked += 1
                move = self.turn_memory[key] = self.turn_player.choose(game.view(seat))
            played = _offered(game, move)
            game.apply_logged(
                played if played is not None else fast_action(game, seat, self.VALUE_ROLLOUTS)
            )
        if game.phase is Phase.ENDED:
            result = game.result
            assert result is not None
            return float(result.totals[seat])
        return float(rollout(game, seat, self.VALUE_ROLLOUTS, self.ROUTES, self.SHARP_ROLLOUTS))


class ConfirmedSearch(SearchBot):
    """大師 whose changes are checked by the continuation it plays: when the race would
    replace the strong bot's choice, both are played on ``CONFIRM`` fresh samples with the
    own seat's rest of the hand played by the strong bot (:func:`strong_play_out`), and the
    change stands only if it gains there on average. ``change_judge.py --strong-judge`` found
    the race's changes worth about a third of what the rollout policy says once the strong
    bot plays on (docs/simulate.md): the policy flatters changes that a weak continuation
    suits. About 5 ms a strong-bot rollout, so some 150 ms more at a changed decision (one
    searched decision in fourteen). Beside 大師 on 200 walls of seed 35350, judged with the
    strong bot playing on: +0.06 ± 0.24 a hand; it drops half of the changes, good and bad
    alike (docs/simulate.md)."""

    name = "search-confirmed"
    CONFIRM = 16

    def search(
        self,
        view: SeatView,
        candidates: Sequence[Action],
        advice: Action,
        deadline: float | None = None,
    ) -> Action:
        chosen = super().search(view, candidates, advice, deadline)
        if chosen == advice:
            return chosen
        rules = self.sample_rules(view)
        model = self.hand_model(view)
        gains: list[float] = []
        for _ in range(self.CONFIRM):
            if deadline is not None and self.clock() >= deadline:
                break
            world = self.sample_world(view, rules, model)
            gains.append(
                strong_play_out(world, chosen, view.seat, self.strong)
                - strong_play_out(world, advice, view.seat, self.strong)
            )
        if len(gains) < 2 or sum(gains) <= 0.0:
            self.changed -= 1
            return advice
        return chosen


class StrongRolloutsSearch(SearchBot):
    """大師 whose every rollout plays the own seat's rest of the hand with the strong bot
    (:func:`strong_play_out`), the others by the rollouts' efficient rules: the race of
    大師, its samples and thresholds, with the continuation it plays in a real game. About
    seven times the policy's cost a rollout, so it is no bot for a table (a searched
    decision takes most of a second); it measures what the right continuation is worth to
    the race, the bound for any cheaper continuation trained to rank candidates as the
    strong bot's continuation ranks them (docs/simulate.md)."""

    name = "search-strong-rollouts"

    def _play(self, world: Round, action: Action, seat: int) -> float:
        return strong_play_out(world, action, seat, self.strong)


class ClaimStrongRolloutsSearch(SearchBot):
    """大師 whose rollouts at a claim on a discard (a pong, a kong, passing) play the own
    seat's rest of the hand with the strong bot (``SearchBot.STRONG_CLAIM_ROLLOUTS``), and
    with the rollout policy at its own turns: the part of :class:`StrongRolloutsSearch` that
    its judged run favoured (docs/simulate.md). It is what ``search`` now plays (tested);
    :class:`PolicyClaimsSearch` is 大師 before it."""

    name = "search-claim-strong-rollouts"
    STRONG_CLAIM_ROLLOUTS = True


class PolicyClaimsSearch(SearchBot):
    """大師 as it was before ``STRONG_CLAIM_ROLLOUTS``: the rollout policy plays the rest of
    the hand at claims too (for before-and-after runs on the same walls)."""

    name = "search-policy-claims"
    STRONG_CLAIM_ROLLOUTS = False
