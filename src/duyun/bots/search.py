"""The search bot (大師, issue 23): determinized look-ahead on top of the strong bot.

At a decision where the options are close, the bot deals several complete hands consistent
with its view (:func:`~duyun.engine.determinize.sample_round`: the other hands and the wall
sampled uniformly over the tiles it cannot see, a 報聽 hand conditioned on being ready), then
makes each other free hand ready with the learned opponent model's chance that it is, or
develops it to a shanten of the self-play prior (``LEARNED_HANDS``: uniform hands are ready
2 % of the time where real ones are a third, and a search whose opponents are never ready
values slow hands and dangerous discards too well; this is what made it measurably stronger
than the strong bot, docs/simulate.md; with no NumPy, as in the core install, the samples
stay uniform. ``MODEL_OPPONENTS``, the self-play prior's readiness for every seat alike, an
earlier experiment, measured no gain), plays each candidate action in each of them and then
the rest of the hand with a fast policy (at a claim on a discard, its own seat is played on
by the strong bot itself: ``STRONG_CLAIM_ROLLOUTS``), and takes the candidate with the best
mean result in points. The other seats play the policy it believes they play (win when
allowed, discard for the lowest shanten and then the least connected tile, 報聽 and melds that
do not slow the hand -- the ``efficient`` bot's rules); its own seat plays the same rules
with a little of what a hand is worth (a 清一色 suit kept, a 報聽 opponent's passed tiles
discarded when far from ready; with ``ROUTES``, another experiment that measured no gain,
the pattern its hand is close to played out), so that a candidate is not judged by a later
play the bot would not make. Every candidate is played out on the same sampled hands (common
random numbers: the rollout policy is deterministic, so two candidates differ only by what
they change), which cuts the variance of their difference.

Time goes only where it may change the choice: a decision with one legal action, a win the
engine offers (always taken) and a claim the strong bot would not consider are not searched;
the candidates are the strong bot's own choice and the few discards it would not rule out on
speed (the lowest shanten after the discard, then the most live useful tiles), plus every
legal kong, 報聽 and claim. They race: batches of sampled hands are played out for every
candidate still in it, and a candidate that cannot plausibly beat the strong bot's choice
leaves, so a clear decision ends after a batch or two and a close one gets most of the
budget. The strong bot's choice stands unless another candidate beats it on the same samples
by more than the noise (a margin in points and a number of standard errors of the paired
difference): a search that sees no clear difference changes nothing.

A caller that must answer by a given time (a table's think time, where a move that comes late
would tell the table the bot faced a close decision) passes ``deadline``: the race stops when
the clock passes it and decides on the samples played so far, by the same rule (with few
samples the strong bot's choice stands). Without a deadline, as in self-play, the bot is
deterministic given its seed; with one, how far the search gets depends on the machine.

The bot sees only its view. Given the room's rules
(``make_bot(..., rules=...)``), a 血戰 room (R53) is played out to the end of the hand; without
them the bot learns the room from the first win (until then rollouts end at it).
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol, Self

from duyun.bots.evaluation import HandEvaluator, unseen_counts
from duyun.bots.opponent_model import developed_hands, ready_hands
from duyun.bots.rollout import fast_action, rollout
from duyun.bots.strong import StrongBot
from duyun.engine.actions import Action, ActionKind
from duyun.engine.determinize import HandModel, sample_round
from duyun.engine.phases import Phase
from duyun.engine.round import Round
from duyun.engine.view import SeatView
from duyun.rules import DUYUN, RuleSet
from duyun.tiles import to_counts

_TURN_KINDS = (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG, ActionKind.BAOTING)


class SearchBot:
    """Determinized rollouts over the strong bot's close options (module docstring)."""

    name = "search"

    BUDGET = 240  # rollouts per searched decision at most, shared among its candidates
    BATCH = 8  # sampled hands per round of the race (each played out for every candidate left)
    MIN_SAMPLES = 8  # sampled hands before a candidate may leave the race
    DISCARD_CANDIDATES = 3  # fastest discards searched besides the strong bot's choice
    # Another candidate replaces the strong bot's choice only when it gains more than this
    # many points per hand on the same samples, and more than Z standard errors.
    MARGIN = 0.5
    Z = 1.5
    # A candidate leaves the race once its gain plus DROP_Z standard errors is below MARGIN.
    DROP_Z = 1.0
    # The bot's own seat plays the value-aware rollout policy (duyun/bots/rollout.py
    # fast_action). Off, it plays the efficient rules as the others do: on 1,000 walls
    # against three efficient bots, -0.18 [-0.45, +0.10] points per hand (docs/simulate.md).
    VALUE_ROLLOUTS = True
    # With VALUE_ROLLOUTS, the bot's own seat also steers to a pattern its hand is close to
    # (清一色, 七對, 對對胡: duyun/bots/rollout.py hand_route) in the rollouts. Off: on 200
    # fresh walls against three efficient bots it played no better than without (-0.28
    # [-1.18, +0.61] points per hand, paired), nor with the learned-readiness samples on
    # 1,000 (-0.02 [-0.44, +0.40]; docs/simulate.md).
    ROUTES = False
    # With VALUE_ROLLOUTS, the bot's own seat also makes a kong that costs its hand a step
    # and keeps the best-paying of several waits in the rollouts (duyun/bots/rollout.py
    # fast_action's ``sharp``): the two things the strong bot does that lift a rollout
    # player most, +0.57 a hand against three efficient bots. Off: the search it makes was
    # not measurably stronger, +0.07 [-0.38, +0.51] points per hand against 大師 on 1,000
    # walls of seed 35320 against three efficient bots (docs/simulate.md, "A sharper own
    # seat").
    SHARP_ROLLOUTS = False
    # Whether a plain discard may replace the strong bot's plain discard. Off, the search
    # weighs only kongs, 報聽 (and declining it) and claims, where the rollouts' efficient
    # play after the decision matters least (an experiment's switch: docs/simulate.md).
    SEARCH_DISCARDS = True
    # The others' hands in the samples are developed as far from ready as their turn suggests
    # (duyun/bots/opponent_model.py) instead of left as random hands. Off: on 1,000 fresh
    # walls against three strong bots it changed nothing measurable (+0.02 [-0.39, +0.43]
    # points per hand, paired) for 16 ms more per decision (docs/simulate.md).
    MODEL_OPPONENTS = False
    # Each other free hand of a sample is made ready with the learned opponent model's chance
    # that it is, else developed to a shanten of the self-play prior (duyun/bots/learned.py
    # learned_hands). On 1,000 walls against three efficient bots it made 大師 +0.66
    # [+0.30, +1.03] points per hand over the strong bot, where uniform samples made +0.29
    # [-0.08, +0.67]; with four more fresh seeds' 1,000 walls each (+0.30, +0.20, +0.57 and
    # +0.19 there) +0.38 [+0.21, +0.56]; against three strong bots, +0.34 [+0.13, +0.54]
    # over three fresh seeds (docs/simulate.md). The model runs on NumPy: without it (the
    # core install) the samples stay uniform.
    LEARNED_HANDS = True
    # At a claim on a discard (a pong, a kong or passing), every rollout's own seat is played
    # to the end of the hand by the strong bot (strong_play_out), as 大師 goes on in a real
    # game, instead of by the rollout policy, which values a claim by how well *it* plays the
    # hand after it. Judged on the real hands with the strong bot playing on, the race with
    # that continuation gained at claims, +0.35, +0.26 and (at STRONG_CLAIM_BUDGET) +0.15
    # points a hand over the policy's on three fresh seeds (+0.25 [+0.15, +0.35] pooled), and
    # nothing at turns (docs/simulate.md, "The race with the strong bot playing on"). A claim
    # has two or three candidates and about one searched decision in seven is one, so the
    # sevenfold rollout costs 12 ms a decision on average.
    STRONG_CLAIM_ROLLOUTS = True
    # The rollouts such a claim search may spend, in place of BUDGET: a strong-bot rollout
    # costs 2 to 11 ms where the policy's costs 0.3 to 1.5, and at BUDGET a close claim early
    # in a hand took up to 2.6 s of CPU (a quarter of the claims searched went the whole
    # way); at 64 the longest stays under 0.75 s (docs/simulate.md).
    STRONG_CLAIM_BUDGET = 64

    def __init__(self, seed: int = 0, rules: RuleSet | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.strong = StrongBot(seed)
        self.rules = rules
        self.searched = 0  # decisions searched, for measurement
        self.failed = 0  # searches given up (DeterminizeError, EngineError): the advice played
        self.rollouts = 0  # rollouts played, for measurement
        self.changed = 0  # searched decisions where another candidate replaced the advice
        self.cut = 0  # searches stopped by their deadline
        self.strong_continuation = False  # this search's rollouts: STRONG_CLAIM_ROLLOUTS
        #: the clock deadlines are read on (``time.monotonic``; a test may drive its own)
        self.clock: Callable[[], float] = time.monotonic

    def fork(self) -> Self:
        """A twin that remembers the hand as this bot does and goes its own way from here.

        A table begins a search before it knows that the turn will come (at the claim window
        before it, on the hypothesis that a person asked to claim passes). Searching would
        also feed the bot's memory of the hand (the strong bot's fresh pongs, its random
        numbers) a view that may never come; the twin takes that risk instead. If the turn
        comes as foreseen, the twin has seen exactly what the bot would have, and replaces
        it; else it is dropped, and the bot never saw the view."""
        twin = copy.copy(self)
        twin.rng = random.Random()
        twin.rng.setstate(self.rng.getstate())
        twin.strong = self.strong.fork()
        return twin

    def stop(self) -> None:
        """End a search running in another thread at its next sampled hand, as if its
        deadline had passed (a twin thinking for a turn that did not come: its thread is
        wanted by searches that count). The bot is not to be used again: every later search
        would be cut at once."""
        self.clock = _too_late

    def choose(self, view: SeatView, deadline: float | None = None) -> Action:
        """The move for ``view``; a search stops at ``deadline`` (a :attr:`clock` reading)
        when one is given (module docstring)."""
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
            return self.search(view, candidates, advice, deadline)
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
        if not self.SEARCH_DISCARDS:
            if advice.kind is ActionKind.BAOTING:  # declining 報聽: the same tile, plain
                plain = Action(view.seat, ActionKind.DISCARD, advice.tile)
                chosen += [plain] if plain in legal else []
            chosen += [a for a in legal if a.kind in _TURN_KINDS and a not in chosen]
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

    def search(
        self,
        view: SeatView,
        candidates: Sequence[Action],
        advice: Action,
        deadline: float | None = None,
    ) -> Action:
        """The candidate with the best mean points over sampled hands, if it beats ``advice``
        (``candidates[0]``) by more than the noise: its mean paired difference from the advice
        over the same samples must exceed ``MARGIN`` points and ``Z`` standard errors.

        The samples come in batches of ``BATCH`` hands, each played out for every candidate
        still in the race (common random numbers), until ``BUDGET`` rollouts are spent
        (``STRONG_CLAIM_BUDGET`` at a claim). After each batch a candidate whose gain over the
        advice cannot plausibly reach the margin (its mean plus ``DROP_Z`` standard errors is
        below it) leaves the race: a decision where the advice dominates ends after one or two
        batches, and the rollouts go to the candidates that are still close.

        At ``deadline`` the race stops between two sampled hands, and the rule above decides
        on the hands played out by then: a candidate needs two of them to have an error at
        all, so a search cut short keeps the advice unless the samples already say clearly
        otherwise."""
        seat = view.seat
        self.strong_continuation = self.STRONG_CLAIM_ROLLOUTS and view.claim_tile is not None
        budget = self.STRONG_CLAIM_BUDGET if self.strong_continuation else self.BUDGET
        rules = self.sample_rules(view)
        model = self.hand_model(view)
        weigh = self.sample_weigher(view)
        values: list[list[float]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        spent = 0
        out_of_time = False
        while len(alive) > 1 and spent + len(alive) <= budget:
            for _ in range(self.BATCH):
                if deadline is not None and self.clock() >= deadline:
                    out_of_time = True
                    self.cut += 1
                    break
                world = self.sample_world(view, rules, model)
                if weigh is not None:
                    weigh.add(world)
                for index in alive:
                    values[index].append(self._play(world, candidates[index], seat))
                spent += len(alive)
            if out_of_time:
                break
            samples = len(values[0])
            if samples < self.MIN_SAMPLES:
                continue
            weights = None if weigh is None else weigh.weights()
            keep = [0]
            for index in alive[1:]:
                gain, error = _paired(values[index], values[0], weights)
                if math.isfinite(gain) and gain + self.DROP_Z * error >= self.MARGIN:
                    keep.append(index)
            alive = keep
        best, best_gain = 0, 0.0
        weights = None if weigh is None else weigh.weights()
        for index in alive[1:] if len(values[0]) >= 2 else ():
            gain, error = _paired(values[index], values[0], weights)
            if not math.isfinite(gain):
                continue
            if gain > max(self.MARGIN, self.Z * error, best_gain):
                best, best_gain = index, gain
        self.rollouts += spent
        self.changed += best != 0
        return candidates[best]

    def sample_rules(self, view: SeatView) -> RuleSet:
        """The rules the samples of ``view`` are played by: the room's (R53 when given), and
        a hand that goes on after a win once anyone has won, as only a 血戰 hand does (a bot
        told no rules learns the room from the first win)."""
        rules = self.rules or DUYUN
        if any(view.won) and not rules.bloody_battle:
            rules = replace(rules, bloody_battle=True)
        return rules

    def sample_world(self, view: SeatView, rules: RuleSet, model: HandModel | None) -> Round:
        """One complete hand the seat cannot tell from the real one, dealt uniformly over what
        it cannot see (``sample_round``). ``benchmarks/oracle_search.py`` replaces it by the
        real hand with only the wall shuffled, to measure what knowing the other hands would
        be worth to the search: a ceiling for any model of them."""
        return sample_round(view, rng=self.rng, rules=rules, hand_model=model)

    def hand_model(self, view: SeatView) -> HandModel | None:
        """How the others' sampled hands are reshaped (None: left as dealt uniformly)."""
        if self.MODEL_OPPONENTS:
            return developed_hands(view)
        return learned_hand_model(view) if self.LEARNED_HANDS else None

    def sample_weigher(self, view: SeatView) -> SampleWeigher | None:
        """What weights the sampled hands of one search (None: all weigh the same, as the
        sampler deals them uniformly); :mod:`duyun.bots.learned` weights them by the learned
        opponent model."""
        return None

    def _play(self, world: Round, action: Action, seat: int) -> float:
        if self.strong_continuation:
            return strong_play_out(world, action, seat, self.strong)
        return play_out(world, action, seat, self.VALUE_ROLLOUTS, self.ROUTES, self.SHARP_ROLLOUTS)


_READER: list[Callable[[SeatView], HandModel] | None] = []


def _learned_hands_reader() -> Callable[[SeatView], HandModel] | None:
    """``view ->`` the samples' shaping by the shipped opponent model's readiness for it
    (:func:`~duyun.bots.opponent_model.ready_hands`), or None when the model cannot run here
    (NumPy missing: the core install). Looked up once, and imported only here: NumPy is not
    the core's to require."""
    if not _READER:
        try:
            from duyun.learn.models import shipped_models
        except ImportError:
            _READER.append(None)
        else:
            model = shipped_models()[0]

            def reader(view: SeatView) -> HandModel:
                ready = [float(chance) for chance in model.predict_view(view).ready[0]]
                return ready_hands(view, ready)

            _READER.append(reader)
    return _READER[0]


def learned_hand_model(view: SeatView) -> HandModel | None:
    """The samples' shaping 大師 uses for ``view`` (``SearchBot.LEARNED_HANDS``): each other
    free hand made ready with the learned opponent model's chance that it is, else developed
    to a shanten of the self-play prior; None (uniform samples) where NumPy is missing."""
    reader = _learned_hands_reader()
    return None if reader is None else reader(view)


def load_learned_hands() -> bool:
    """Load the learned opponent model the search's samples read now, rather than at the
    first searched decision (about a quarter of a second with NumPy's import): a server calls
    it at start, so that no table's first 大師 move is cut at its deadline by the load.
    Whether the model can run here (False: no NumPy, the samples stay uniform)."""
    return _learned_hands_reader() is not None


def play_out(
    world: Round,
    action: Action,
    seat: int,
    value_aware: bool = True,
    routes: bool = False,
    sharp: bool = False,
) -> float:
    """``seat``'s points when ``action`` is played in a copy of ``world`` (a sampled hand)
    and the hand then runs to its end under the rollout policy: one sample of what the option
    is worth. The search and the review (:mod:`duyun.review`) value options the same way."""
    game = world.copy()
    offered = _offered(game, action)
    if offered is None:  # never for a legal action of the view; never chosen
        return -math.inf
    game.apply_logged(offered)
    return rollout(game, seat, value_aware, routes, sharp)


def strong_play_out(world: Round, action: Action, seat: int, advisor: StrongBot) -> float:
    """``seat``'s points when ``action`` is played in a copy of ``world`` and the hand runs to
    its end with ``seat`` played by a twin of ``advisor`` (the strong bot that remembers the
    hand as the search bot's does) and the others by the rollouts' efficient rules: the rest
    of the hand as 大師 plays it in a real game, where :func:`play_out` plays it with the
    rollout policy, at about seven times the cost."""
    game = world.copy()
    offered = _offered(game, action)
    if offered is None:  # never for a legal action of the view; never chosen
        return -math.inf
    game.apply_logged(offered)
    player = advisor.fork()
    while game.phase is not Phase.ENDED:
        actor = game.to_act[0]
        if actor != seat:
            game.apply_logged(fast_action(game, actor))
            continue
        move = _offered(game, player.choose(game.view(seat)))
        # the strong bot answers with a legal action; were it ever not to on a sampled hand,
        # the policy's move keeps a table's search going rather than failing the bot's turn
        game.apply_logged(move if move is not None else fast_action(game, seat))
    result = game.result
    assert result is not None
    return float(result.totals[seat])


class SampleWeigher(Protocol):
    """Importance weights of the hands one search samples: ``add`` each as it is dealt,
    ``weights`` (one per hand so far, any positive scale) when the race reads them."""

    def add(self, world: Round) -> None: ...

    def weights(self) -> list[float]: ...


def _paired(
    values: Sequence[float], base: Sequence[float], weights: Sequence[float] | None = None
) -> tuple[float, float]:
    """Mean of the paired differences ``values - base`` and its standard error; with
    ``weights``, the self-normalised weighted mean and its delta-method error."""
    diffs = [a - b for a, b in zip(values, base, strict=True)]
    if weights is not None:
        return _weighted(diffs, weights[: len(diffs)])
    samples = len(diffs)
    gain = sum(diffs) / samples
    if not math.isfinite(gain) or samples < 2:
        return gain, math.inf
    spread = math.sqrt(sum((d - gain) ** 2 for d in diffs) / (samples - 1))
    return gain, spread / math.sqrt(samples)


def _weighted(diffs: Sequence[float], weights: Sequence[float]) -> tuple[float, float]:
    total = sum(weights)
    if len(diffs) < 2 or total <= 0.0:
        return (diffs[0] if diffs else math.nan), math.inf
    gain = sum(w * d for w, d in zip(weights, diffs, strict=True)) / total
    if not math.isfinite(gain):
        return gain, math.inf
    spread = sum((w * (d - gain)) ** 2 for w, d in zip(weights, diffs, strict=True))
    return gain, math.sqrt(spread) / total


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


def _too_late() -> float:
    """The clock of a stopped search (:meth:`SearchBot.stop`): every deadline has passed."""
    return math.inf
