"""牌譜解析: 大師's review of one seat's decisions in a finished hand (issue 36).

A reviewer is only worth reading if it judges a decision by what the player could know when
they made it. Every decision is therefore valued **from that seat's view at that moment**
(:meth:`Round.view`): the other hands and the wall are dealt again at random, consistent with
everything the seat had seen (:func:`~duyun.engine.determinize.sample_round`), and each legal
option is played in each of those deals and the hand played out to its end with the search
bot's rollout policy (:func:`~duyun.bots.search.play_out`, the way 大師 values options). The
real wall and the real hands, which the log holds, are never looked at: a review that used them
would blame a player for not knowing the next tile.

Every option of a decision is played out on the same sampled deals (common random numbers), so
the difference between two options carries much less noise than either value.

The deals are split in two halves that never mix. The first half **chooses**: 大師's choice is
the one the search bot would make, the strong bot's choice
(:class:`~duyun.bots.strong.StrongBot`, shown the seat's views in the order of the hand) unless
the option with the highest mean on these deals beats it by more than :data:`MARGIN` points
and :func:`override_z` standard errors (:data:`Z` for two options, more for more: the luckiest
of fourteen equal discards is far more often Z standard errors ahead than one other option).
The second half **measures**: every value shown, and the loss of the player's choice against
大師's, comes from it alone. Measured on the deals that chose it, the best of fourteen
discards would look better than it is (whichever is luckiest in the sample wins), every loss
against it would be too large and the sampling noise would be counted as mistakes; on deals
that played no part in the choice, the loss is a fair estimate whichever option was chosen.
An option's value is its mean points at the end of the hand over the measuring deals, with
the standard error of that mean; the loss is the mean of the paired differences from 大師's
choice, with their standard error (negative when the player's choice did better, without 大師
being sure of it). The choice is a **mistake** only when that loss exceeds both MARGIN points
and Z standard errors, so that the noise of the sampling is never called a mistake. A
decision with one legal option (a 報聽 seat's automatic discard, a forced win) is no decision
and is not reviewed.

A review is deterministic: the deals of each decision come from ``seed``, the hand and the
decision's place in its log. More ``samples`` narrow the error bars at a proportional cost in
time.

The JSON form (:meth:`HandReview.to_json`, :meth:`MatchReview.to_json`) is documented in
docs/review.md; ``duyun review`` prints it with ``--json``.
"""

from __future__ import annotations

import json
import math
import random
import zlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from duyun.bots.search import SearchBot, play_out
from duyun.bots.strong import StrongBot
from duyun.engine.actions import Action, ActionKind, EngineError
from duyun.engine.determinize import sample_round
from duyun.engine.replay import ReplayError, action_from_event, replay_steps, verify_replay
from duyun.engine.round import Round
from duyun.engine.view import SeatView, redact_event
from duyun.rules import RuleSet
from duyun.tiles import tile_to_str

#: the version of the JSON form (docs/review.md); raised when a field changes meaning
REVIEW_VERSION = 1
#: sampled deals per decision: every option is played out in each of them; the first half
#: chooses 大師's option, the second half values the options (module docstring)
DEFAULT_SAMPLES = 48
#: the fewest deals: two to choose, two to measure (a standard error needs two)
MIN_SAMPLES = 4
#: the most deals
MAX_SAMPLES = 4096
#: a loss under this many points is never a mistake, however sure
MARGIN = 0.5
#: a loss is a mistake only beyond this many standard errors of the paired difference
Z = 2.0
_NORMAL = NormalDist()
#: how many of the largest mistakes the summary lists
TOP_MISTAKES = 5
#: tries to deal one sample before a view is taken for one that no deal fits
SAMPLE_TRIES = 50


class ReviewError(ValueError):
    """A log that cannot be reviewed (not a finished hand, no such seat, bad settings)."""


@dataclass(frozen=True)
class OptionValue:
    """One legal option of a decision: its mean points at the end of the hand over the
    sampled deals, and the standard error of that mean."""

    action: Action
    value: float
    error: float

    def to_json(self) -> dict[str, Any]:
        return {
            **_action_json(self.action),
            "value": _round(self.value),
            "error": _round(self.error),
        }


@dataclass(frozen=True)
class Decision:
    """One decision of the reviewed seat: what it could do, what it did, what 大師 would do."""

    event: int  #: the decision's ``act`` event, numbered from 1 as ``duyun replay`` lists it
    kind: str  #: ``turn`` (own turn: discard, kong, 報聽, 自摸) or ``claim`` (碰, 槓, 胡, pass)
    hand: tuple[int, ...]  #: the seat's concealed tiles at that moment, drawn tile included
    claim_tile: int | None  #: the tile offered, for a claim
    options: tuple[OptionValue, ...]  #: every legal option, the highest value first
    chosen: Action
    best: Action  #: 大師's choice
    loss: float  #: points the choice loses against 大師's (0 when it is the same)
    loss_error: float  #: standard error of that loss
    mistake: bool  #: the loss is beyond both MARGIN and Z standard errors

    @property
    def agrees(self) -> bool:
        return self.chosen == self.best

    def to_json(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "kind": self.kind,
            "hand": "".join(tile_to_str(t) for t in self.hand),
            "claim_tile": tile_to_str(self.claim_tile) if self.claim_tile is not None else None,
            "options": [option.to_json() for option in self.options],
            "chosen": _action_json(self.chosen),
            "best": _action_json(self.best),
            "loss": _round(self.loss),
            "loss_error": _round(self.loss_error),
            "mistake": self.mistake,
        }


@dataclass(frozen=True)
class HandReview:
    """The review of one seat's decisions in one hand."""

    seat: int
    samples: int
    seed: int
    decisions: tuple[Decision, ...]
    #: the seat's points in the hand as it was played
    points: int

    @property
    def agreement(self) -> float | None:
        """The share of decisions where the choice was 大師's (None without decisions)."""
        return _agreement(self.decisions)

    @property
    def expected_loss(self) -> float:
        """The points the seat's choices lost against 大師's, in expectation."""
        return sum(d.loss for d in self.decisions)

    def mistakes(self, limit: int = TOP_MISTAKES) -> list[Decision]:
        """The largest mistakes, largest first."""
        mistakes = [d for d in self.decisions if d.mistake]
        return sorted(mistakes, key=lambda d: (-d.loss, d.event))[:limit]

    def to_json(self) -> dict[str, Any]:
        return hand_review_json(
            self.seat,
            self.samples,
            self.seed,
            self.points,
            [decision.to_json() for decision in self.decisions],
        )


@dataclass(frozen=True)
class MatchReview:
    """The review of one seat over every hand of a match (or any list of hands)."""

    hands: tuple[HandReview, ...]

    def to_json(self) -> dict[str, Any]:
        decisions = [
            (n, d.to_json()) for n, hand in enumerate(self.hands, 1) for d in hand.decisions
        ]
        summary = summary_json([d for _, d in decisions])
        # the largest mistakes of the match, each named by its hand (numbered from 1)
        summary["largest"] = [
            {"hand": number, "event": d["event"], "loss": d["loss"]}
            for number, d in _largest(decisions, TOP_MISTAKES)
        ]
        return {
            "version": REVIEW_VERSION,
            "summary": summary,
            "hands": [hand.to_json() for hand in self.hands],
        }


def review_hand(
    events: Sequence[dict[str, Any]],
    seat: int,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    only: Collection[int] | None = None,
) -> HandReview:
    """Review ``seat``'s decisions in the finished hand whose log is ``events`` (module
    docstring); ``only``: just the decisions of these ``act`` events (numbered from 1, as in
    :attr:`Decision.event`), with the values a full review gives them. :class:`ReviewError`
    for a log that does not replay or did not finish, or a seat or sample count out of
    range."""
    _check_samples(samples)
    plan = HandPlan(events, seat, seed=seed)
    wanted = plan.events if only is None else [e for e in plan.events if e in only]
    decisions = [d for d in (plan.review(event, samples) for event in wanted) if d is not None]
    return HandReview(seat, samples, seed, tuple(decisions), plan.points)


@dataclass(frozen=True)
class _Moment:
    """One of the seat's decisions as the replay met it."""

    view: SeatView
    advice: Action  #: the strong bot's choice, which 大師 keeps unless the deals overturn it
    chosen: Action
    rng_key: str  #: the seed of the decision's deals


class HandPlan:
    """A finished hand replayed once for the review of one seat: each of its decisions'
    view, the strong bot's advice there (the bot is shown every view of the seat in order,
    its memory) and the choice made. Reviewing the decisions one at a time, as the server's
    worker processes do, then replays the hand and asks the bot once per hand, not once per
    decision. :class:`ReviewError` for a log that does not replay or did not finish, or a
    seat out of range."""

    def __init__(self, events: Sequence[dict[str, Any]], seat: int, *, seed: int = 0) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            raise ReviewError(f"seat {seat!r}: a seat is 0, 1, 2 or 3")
        if not events:
            raise ReviewError("no events to review")
        # the deals of a decision come from the seed, the hand's start as the seat saw it and
        # the decision's place in the log: the same hand reviewed alone or in its match gets
        # the same review, and two hands the seat could not tell apart get the same deals
        if events[0].get("type") != "start":
            raise ReviewError("the first event of a hand must be 'start'")
        seen = redact_event(events[0], seat)
        hand_key = zlib.crc32(json.dumps(seen, sort_keys=True, ensure_ascii=False).encode())
        self.seat = seat
        self.seed = seed
        self._moments: dict[int, _Moment] = {}
        master = StrongBot(seed)
        steps = replay_steps(events)
        try:
            game, _ = next(steps)
            for index, event in enumerate(events):
                if event.get("type") != "act":
                    continue
                if event.get("seat") == seat and (action := action_from_event(event)) is not None:
                    view = game.view(seat)
                    advice = master.choose(view)  # every view, in order: the bot's memory
                    key = f"{seed}:{hand_key}:{index}"
                    self._moments[index + 1] = _Moment(view, advice, action, key)
                next(steps)
            verify_replay(game, events)
        except ReplayError as error:
            raise ReviewError(str(error)) from None
        result = game.result
        assert result is not None  # verify_replay requires the end
        self.rules = game.rules
        #: the seat's points in the hand as it was played
        self.points: int = result.totals[seat]

    @property
    def events(self) -> list[int]:
        """The ``act`` events (numbered from 1) where the seat acted, in order."""
        return list(self._moments)

    def review(self, event: int, samples: int = DEFAULT_SAMPLES) -> Decision | None:
        """The review of the seat's decision at ``event`` (one of :attr:`events`), the same
        whichever other decisions are reviewed; None where the seat had a single option, or
        did not act."""
        _check_samples(samples)
        moment = self._moments.get(event)
        if moment is None:
            return None
        rng = random.Random(moment.rng_key)
        return _review_decision(
            self.rules, moment.view, moment.advice, moment.chosen, event, samples, rng
        )


def _check_samples(samples: int) -> None:
    if (
        isinstance(samples, bool)
        or not isinstance(samples, int)
        or not MIN_SAMPLES <= samples <= MAX_SAMPLES
    ):
        raise ReviewError(
            f"samples {samples!r}: between {MIN_SAMPLES} and {MAX_SAMPLES} deals per decision"
        )


def review_match(
    hands: Sequence[Sequence[dict[str, Any]]],
    seat: int,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    only: Collection[int] | None = None,
) -> MatchReview:
    """:func:`review_hand` for each hand (a hand's review is the same alone or in its
    match); ``only`` applies to every hand."""
    return MatchReview(
        tuple(review_hand(events, seat, samples=samples, seed=seed, only=only) for events in hands)
    )


def _review_decision(
    rules: RuleSet,
    view: SeatView,
    advice: Action,
    chosen: Action,
    event: int,
    samples: int,
    rng: random.Random,
) -> Decision | None:
    seat = view.seat
    options = list(dict.fromkeys(view.legal))
    if len(options) < 2:
        return None  # nothing to decide
    if chosen not in options:
        raise ReviewError(f"event {event}: {chosen} was not a legal option")
    values: list[list[float]] = [[] for _ in options]
    for _ in range(samples):
        world = _sample(rules, view, rng, event)
        for index, option in enumerate(options):
            values[index].append(play_out(world, option, seat, *_MASTERS_ROLLOUTS))
    half = samples // 2
    choosing = [v[:half] for v in values]
    measuring = [v[half:] for v in values]
    best = _masters_choice(options, options.index(advice), choosing)
    means = [sum(v) / len(v) for v in measuring]
    order = sorted(range(len(options)), key=lambda i: (-means[i], _sort_key(options[i])))
    mine = options.index(chosen)
    loss, loss_error = (0.0, 0.0) if mine == best else _paired(measuring[best], measuring[mine])
    return Decision(
        event=event,
        kind="claim" if view.claim_tile is not None else "turn",
        hand=tuple(view.hand),
        claim_tile=view.claim_tile,
        options=tuple(OptionValue(options[i], means[i], _error(measuring[i])) for i in order),
        chosen=chosen,
        best=options[best],
        loss=loss,
        loss_error=loss_error,
        mistake=loss > max(MARGIN, Z * loss_error),
    )


def _sample(rules: RuleSet, view: SeatView, rng: random.Random, event: int) -> Round:
    """One deal consistent with the seat's view. Late in a hand with several 報聽 seats the
    unseen tiles are few and each 報聽 hand must be dealt ready from them, one after the
    other: the sampler then sometimes deals the first ones so that no ready hand is left for
    the last, although real deals exist. Such a failed try is drawn again (rejection keeps the
    deals uniform over the ones that fit); only a view no deal fits at all is an error."""
    error: Exception | None = None
    for _ in range(SAMPLE_TRIES):
        try:
            return sample_round(view, rng=rng, rules=rules)
        except (ValueError, EngineError) as failed:
            error = failed
    raise ReviewError(f"event {event}: no deal fits the seat's view ({error})")


# the rollout switches 大師 plays with: a review values options as the search does
_MASTERS_ROLLOUTS = (SearchBot.VALUE_ROLLOUTS, SearchBot.ROUTES, SearchBot.SHARP_ROLLOUTS)


def _masters_choice(options: Sequence[Action], advice: int, values: Sequence[list[float]]) -> int:
    """The option 大師 takes on the choosing deals ``values``: the strong bot's, unless the
    option with the highest mean there beats it on the same deals beyond the noise (the
    search bot's rule)."""
    means = [sum(v) / len(v) for v in values]
    top = min(range(len(values)), key=lambda i: (-means[i], _sort_key(options[i])))
    if top == advice:
        return advice
    gain, error = _paired(values[top], values[advice])
    return top if gain > max(MARGIN, override_z(len(options)) * error) else advice


def override_z(options: int) -> float:
    """How many standard errors the best of ``options`` options must beat the strong bot's
    choice by before 大師 takes it instead: :data:`Z` for two options, more for more, so that
    among equal options the luckiest of them all looks that much better no more often than
    one other option alone would look Z standard errors better (Bonferroni). Without it,
    with every option worth the same, 大師 overturned the strong bot's choice for the
    luckiest of them in 12 % of the decisions, and the agreement rate counted that luck."""
    alpha = 1.0 - _NORMAL.cdf(Z)
    return _NORMAL.inv_cdf(1.0 - alpha / max(1, options - 1))


def _paired(better: Sequence[float], worse: Sequence[float]) -> tuple[float, float]:
    """Mean of the paired differences and its standard error."""
    diffs = [a - b for a, b in zip(better, worse, strict=True)]
    mean = sum(diffs) / len(diffs)
    return mean, _error(diffs)


def _error(values: Sequence[float]) -> float:
    """Standard error of the mean of ``values``."""
    count = len(values)
    if count < 2:
        return math.inf
    mean = sum(values) / count
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / (count - 1))
    return spread / math.sqrt(count)


def _sort_key(action: Action) -> tuple[int, int]:
    """Ties between equal values keep a fixed order (the review is deterministic)."""
    kinds = list(ActionKind)
    return kinds.index(action.kind), -1 if action.tile is None else action.tile


def _action_json(action: Action) -> dict[str, Any]:
    data: dict[str, Any] = {"action": action.kind.value}
    if action.tile is not None:
        data["tile"] = tile_to_str(action.tile)
    return data


def _round(value: float) -> float | None:
    return round(value, 3) if math.isfinite(value) else None


def _agreement(decisions: Sequence[Decision]) -> float | None:
    return sum(d.agrees for d in decisions) / len(decisions) if decisions else None


def _largest(
    decisions: Sequence[tuple[int, dict[str, Any]]], limit: int
) -> list[tuple[int, dict[str, Any]]]:
    """The largest mistakes of (hand number, decision JSON) pairs, largest first."""
    mistakes = [(n, d) for n, d in decisions if d["mistake"]]
    return sorted(mistakes, key=lambda nd: (-(nd[1]["loss"] or 0.0), nd[0], nd[1]["event"]))[:limit]


def summary_json(decisions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The summary of decisions in their JSON form (:meth:`Decision.to_json`).

    It is computed from the JSON form, not the dataclasses, so that a review assembled from
    parts computed elsewhere (the server reviews a hand one decision at a time in worker
    processes) has exactly the summary a review made in one piece has."""
    agrees = [d["chosen"] == d["best"] for d in decisions]
    return {
        "decisions": len(decisions),
        "agreement": round(sum(agrees) / len(agrees), 4) if agrees else None,
        "expected_loss": _round(sum(d["loss"] or 0.0 for d in decisions)),
        "mistakes": sum(bool(d["mistake"]) for d in decisions),
        "largest": [d["event"] for _, d in _largest(list(enumerate(decisions)), TOP_MISTAKES)],
    }


def hand_review_json(
    seat: int, samples: int, seed: int, points: int, decisions: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """One hand's review in its JSON form (docs/review.md) from its decisions' JSON forms,
    which may come from several partial reviews (``only=``) of the same hand, seat, samples
    and seed: they are put in the order of the hand, as one full review lists them."""
    ordered = sorted(decisions, key=lambda d: int(d["event"]))
    return {
        "version": REVIEW_VERSION,
        "seat": seat,
        "samples": samples,
        "seed": seed,
        "points": points,
        "summary": summary_json(ordered),
        "decisions": list(ordered),
    }


def decision_events(events: Sequence[dict[str, Any]], seat: int) -> list[int]:
    """The ``act`` events (numbered from 1, as :attr:`Decision.event`) where ``seat`` acted:
    the candidates for its review. Those with a single legal option are not decisions, which
    only replaying tells; :func:`review_hand` with ``only`` skips them."""
    return [
        index + 1
        for index, event in enumerate(events)
        if event.get("type") == "act" and event.get("seat") == seat
    ]
