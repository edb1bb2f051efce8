"""The search bot (大師, issue 23): determinized look-ahead on top of the strong bot.

At a decision where the options are close, the bot deals several complete hands consistent
with its view (:func:`~duyun.engine.determinize.sample_round`: the other hands and the wall
sampled uniformly over the tiles it cannot see, a 報聽 hand conditioned on being ready), plays
each candidate action in each of them and then the rest of the hand with a fast policy for
every seat (the policy it believes the others play: win when allowed, discard for the lowest
shanten, 報聽 and melds that do not slow the hand -- the ``efficient`` bot's rules), and takes
the candidate with the best mean result in points. Every candidate is played out on the same
sampled hands (common random numbers: the rollout policy is deterministic, so two candidates
differ only by what they change), which cuts the variance of their difference.

Time goes only where it may change the choice: a decision with one legal action, a win the
engine offers (always taken) and a claim the strong bot would not consider are not searched;
the candidates are the strong bot's own choice and the few discards it would not rule out on
speed (the lowest shanten after the discard, then the most live useful tiles), plus every
legal kong, 報聽 and claim. The strong bot's choice stands unless another candidate beats it on
the same samples by more than the noise (a margin in points and a number of standard errors of
the paired difference): a search that sees no clear difference changes nothing.

The bot sees only its view and is deterministic given its seed. In a 血戰 room (R53) it
plays out to the end of the hand once any seat has won (a view does not tell the room
before that: until the first win rollouts end at it).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import replace

from duyun.analysis import shanten
from duyun.bots.evaluation import HandEvaluator, unseen_counts
from duyun.bots.strong import StrongBot
from duyun.engine.actions import Action, ActionKind
from duyun.engine.determinize import sample_round
from duyun.engine.phases import Phase
from duyun.engine.round import Round
from duyun.engine.view import SeatView
from duyun.rules import DUYUN, RuleSet
from duyun.tiles import to_counts

_TURN_KINDS = (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG, ActionKind.BAOTING)


class SearchBot:
    """Determinized rollouts over the strong bot's close options (module docstring)."""

    name = "search"

    ROLLOUTS = 72  # rollouts per searched decision, shared among its candidates
    MIN_SAMPLES = 8  # sampled hands per candidate, at least
    DISCARD_CANDIDATES = 3  # fastest discards searched besides the strong bot's choice
    # Another candidate replaces the strong bot's choice only when it gains more than this
    # many points per hand on the same samples, and more than Z standard errors.
    MARGIN = 0.5
    Z = 1.5

    def __init__(self, seed: int = 0, rules: RuleSet | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.strong = StrongBot(seed)
        self.rules = rules
        self.searched = 0  # decisions searched, for measurement
        self.failed = 0  # searches given up (DeterminizeError, EngineError): the advice played

    def choose(self, view: SeatView) -> Action:
        legal = view.legal
        advice = self.strong.choose(view)  # also keeps the strong bot's memory of the hand
        if len(legal) == 1:
            return legal[0]
        for action in legal:
            if action.kind is ActionKind.HU:
                return action
        candidates = self.candidates(view, advice)
        if len(candidates) < 2:
            return advice
        self.searched += 1
        try:
            return self.search(view, candidates, advice)
        except ValueError:  # a view the sampler cannot complete: never stop the game for it
            self.failed += 1
            return advice

    # ------------------------------------------------------------------ candidates

    def candidates(self, view: SeatView, advice: Action) -> list[Action]:
        """The actions worth a search: the strong bot's choice first."""
        legal = view.legal
        chosen: list[Action] = [advice]
        if view.claim_tile is not None:
            chosen += [a for a in legal if a not in chosen]
            return chosen
        counts = to_counts(view.hand)
        evaluator = HandEvaluator(counts)
        after = evaluator.discard_shanten()
        discards = sorted(
            {a.tile for a in legal if a.kind is ActionKind.DISCARD and a.tile is not None}
        )
        if discards:
            lowest = min(after[t] for t in discards)
            unseen = unseen_counts(view.visible_counts())
            ranked = sorted(
                (t for t in discards if after[t] == lowest),
                key=lambda t: (-evaluator.useful_after_discard(t, unseen)[1], t),
            )
            threatened = any(view.baoting[s] for s in view.opponents())
            if threatened:  # folding may be right: the safest-looking tiles too
                ranked += [t for t in discards if t in _safe_tiles(view) and t not in ranked]
            for tile in ranked[: self.DISCARD_CANDIDATES + (2 if threatened else 0)]:
                action = Action(view.seat, ActionKind.DISCARD, tile)
                if action not in chosen:
                    chosen.append(action)
        chosen += [a for a in legal if a.kind in _TURN_KINDS and a not in chosen]
        return chosen

    # ------------------------------------------------------------------ search

    def search(self, view: SeatView, candidates: Sequence[Action], advice: Action) -> Action:
        """The candidate with the best mean points over sampled hands, if it beats ``advice``
        (``candidates[0]``) by more than the noise: its mean paired difference from the advice
        over the same samples must exceed ``MARGIN`` points and ``Z`` standard errors."""
        seat = view.seat
        rules = self.rules or DUYUN
        if any(view.won) and not rules.bloody_battle:  # only a 血戰 hand goes on after a win
            rules = replace(rules, bloody_battle=True)
        samples = max(self.MIN_SAMPLES, self.ROLLOUTS // len(candidates))
        values = [[0.0] * samples for _ in candidates]
        for sample in range(samples):
            world = sample_round(view, rng=self.rng, rules=rules)
            for index, action in enumerate(candidates):
                game = world.copy()
                offered = _offered(game, action)
                if offered is None:  # never for a legal action of the view; never chosen
                    values[index][sample] = -math.inf
                    continue
                game.apply_logged(offered)
                values[index][sample] = rollout(game, seat)
        best, best_gain = 0, 0.0
        for index in range(1, len(candidates)):
            diffs = [a - b for a, b in zip(values[index], values[0], strict=True)]
            gain = sum(diffs) / samples
            if not math.isfinite(gain):
                continue
            spread = math.sqrt(sum((d - gain) ** 2 for d in diffs) / (samples - 1))
            if gain > max(self.MARGIN, self.Z * spread / math.sqrt(samples), best_gain):
                best, best_gain = index, gain
        return candidates[best]


def _safe_tiles(view: SeatView) -> set[int]:
    """Tiles a 報聽 opponent cannot be waiting on (R26: its later discards did not win)."""
    safe: set[int] = set()
    for other in view.opponents():
        if view.baoting[other]:
            safe.update(view.rivers[other][1:])
    return safe


def _offered(game: Round, action: Action) -> Action | None:
    """The engine's own object for ``action`` in ``game`` (apply checks by identity first)."""
    for offered in game.legal_actions(action.seat).actions:
        if offered == action:
            return offered
    return None


# ---------------------------------------------------------------------- the rollout policy


def rollout(game: Round, seat: int) -> int:
    """Play ``game`` to its end with :func:`fast_action` for every seat; ``seat``'s points."""
    while game.phase is not Phase.ENDED:
        actor = game.to_act[0]
        game.apply_logged(fast_action(game, actor))
    assert game.result is not None
    return game.result.totals[seat]


def fast_action(game: Round, seat: int) -> Action:
    """The efficient bot's rules on the round's own counts (no view built): win when allowed,
    discard for the lowest shanten (報聽 with it when allowed), kong or pong when it does not
    slow the hand."""
    legal = game.legal_actions(seat).actions
    if len(legal) == 1:
        return legal[0]
    counts = game.counts[seat]
    if game.phase is Phase.CLAIMS:
        window = game.claims
        assert window is not None
        tile = window.tile
        pass_action = legal[-1]
        kinds = {a.kind: a for a in legal}
        if ActionKind.HU in kinds:
            return kinds[ActionKind.HU]
        now = shanten(counts)
        if ActionKind.KONG in kinds:
            counts[tile] -= 3
            after = shanten(counts)
            counts[tile] += 3
            if after <= now:
                return kinds[ActionKind.KONG]
        if ActionKind.PONG in kinds:
            counts[tile] -= 2
            best = _best_discard_shanten(counts)
            counts[tile] += 2
            if best <= now:
                return kinds[ActionKind.PONG]
        return pass_action
    best_action: Action | None = None
    best_value = 99
    others: list[Action] = []
    for action in legal:
        kind = action.kind
        if kind is ActionKind.HU:
            return action
        if kind is ActionKind.DISCARD:
            discard = action.tile
            assert discard is not None
            counts[discard] -= 1
            value = shanten(counts)
            counts[discard] += 1
            if value < best_value:
                best_action, best_value = action, value
        else:
            others.append(action)
    assert best_action is not None
    for action in others:
        meld_tile = action.tile
        assert meld_tile is not None
        if action.kind is ActionKind.BAOTING and meld_tile == best_action.tile:
            return action
        if action.kind is ActionKind.CONCEALED_KONG:
            counts[meld_tile] -= 4
            after = shanten(counts)
            counts[meld_tile] += 4
            if after <= best_value:
                return action
        elif action.kind is ActionKind.ADDED_KONG:
            counts[meld_tile] -= 1
            after = shanten(counts)
            counts[meld_tile] += 1
            if after <= best_value:
                return action
    return best_action


def _best_discard_shanten(counts: list[int]) -> int:
    best = 99
    for tile in range(len(counts)):
        if counts[tile]:
            counts[tile] -= 1
            value = shanten(counts)
            counts[tile] += 1
            best = min(best, value)
    return best
