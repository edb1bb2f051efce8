"""The learned models beside the hand-written estimates they would replace, on held-out
self-play (``duyun learn evaluate``).

Hands are played as ``duyun learn generate`` plays them (same bots, lineups and seeding, on a
seed of their own), and at every ``every``-th own-turn position four estimates are set beside
the hidden truth:

- **model**: the opponent model and the value model (:mod:`duyun.learn.models`);
- **strong**: the strong bot's reading of each opponent (``StrongBot._threats``: its chance of
  being ready, and ``StrongBot._feed_cost`` with a cost of one fan and no stake: its chance that
  our discard of each tile is a win the opponent may take -- ready × allowed by R17 × the
  tile's wait share). The reading remembers earlier views of the hand as the bot does: one
  shadow strong bot per seat is shown every view that seat is asked about;
- **uniform**: what uniform sampling of the hidden tiles believes
  (:func:`~duyun.engine.determinize.sample_round`, the search bot's sampler): over ``samples``
  sampled deals, the share in which the opponent is ready, a tile completes its hand, a
  discard of it would win for it (smoothed: (k + 0.5) / (samples + 1)); and for the value,
  the mean of ``rollouts`` rollouts (the search's own estimate of a position,
  :func:`~duyun.bots.rollout.rollout`);
- **base rate**: a constant, the rate over the positions evaluated.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from duyun.bots import BOT_NAMES
from duyun.bots.evaluation import unseen_counts
from duyun.bots.rollout import rollout
from duyun.bots.strong import StrongBot
from duyun.engine import net_points, sample_round
from duyun.engine.phases import Phase
from duyun.learn import metrics
from duyun.learn.dataset import DEFAULT_LINEUPS, GenerateConfig, hand_bots, hand_round
from duyun.learn.features import encode_view, hidden_labels
from duyun.learn.models import OpponentModel, ValueModel
from duyun.rules import DUYUN, RuleSet
from duyun.sim.runner import derive_seed

SEATS = 4
KINDS = 27
Log = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class EvalConfig:
    hands: int = 200
    seed: int = 99
    every: int = 3
    samples: int = 64
    rollouts: int = 16
    #: resamples of the hands for the intervals of the model's lead (0: no intervals)
    bootstrap: int = 500
    lineups: tuple[tuple[str, ...], ...] = DEFAULT_LINEUPS
    rules: RuleSet = field(default=DUYUN)


def _bits(mask: int) -> list[int]:
    return [(mask >> kind) & 1 for kind in range(KINDS)]


def evaluate(
    config: EvalConfig, opponent: OpponentModel, value: ValueModel, log: Log
) -> dict[str, Any]:
    """Play the held-out hands and score every estimate (module docstring)."""
    gen = GenerateConfig(hands=config.hands, seed=config.seed, lineups=config.lineups)
    feats: list[bytes] = []
    points_now: list[list[int]] = []
    final: list[int] = []
    truth_ready: list[list[int]] = []
    truth_waits: list[list[list[int]]] = []
    truth_deal: list[list[list[int]]] = []
    strong_ready: list[list[float]] = []
    strong_waits: list[list[list[float]]] = []
    strong_deal: list[list[float]] = []
    uni_ready: list[list[float]] = []
    uni_waits: list[list[list[float]]] = []
    uni_deal: list[list[list[float]]] = []
    rollout_value: list[float] = []
    hand_of: list[int] = []  # the hand of each position (the intervals resample hands)
    seconds = {"encode": 0.0, "strong": 0.0, "uniform": 0.0, "rollouts": 0.0}
    counter = 0
    for hand in range(config.hands):
        game = hand_round(gen, hand)
        bots, _ = hand_bots(gen, hand)
        shadows = [StrongBot(0) for _ in range(SEATS)]
        seats: list[int] = []
        while not game.is_over:
            seat = game.to_act[0]
            view = game.view(seat)
            shadows[seat]._remember(view)
            if game.phase is Phase.TURN:
                counter += 1
                if counter % config.every == 0:
                    seats.append(seat)
                    hand_of.append(hand)
                    clock = time.process_time()
                    feats.append(bytes(encode_view(view)))
                    seconds["encode"] += time.process_time() - clock
                    points_now.append([view.points[(seat + rel) % SEATS] for rel in range(SEATS)])
                    truths = hidden_labels(game, seat)
                    truth_ready.append([int(t.ready) for t in truths])
                    truth_waits.append([_bits(t.waits) for t in truths])
                    truth_deal.append([_bits(t.deal_in) for t in truths])
                    clock = time.process_time()
                    ready, waits, deal = _strong_reading(shadows[seat], view)
                    seconds["strong"] += time.process_time() - clock
                    strong_ready.append(ready)
                    strong_waits.append(waits)
                    strong_deal.append(deal)
                    clock = time.process_time()
                    rng = random.Random(derive_seed(config.seed, "eval", hand, len(feats)))
                    u_ready, u_waits, u_deal, values = _uniform_reading(view, rng, config, seconds)
                    seconds["uniform"] += time.process_time() - clock
                    uni_ready.append(u_ready)
                    uni_waits.append(u_waits)
                    uni_deal.append(u_deal)
                    rollout_value.append(values)
            game.apply(bots[seat].choose(view))
        totals = net_points(game.ledger)
        final.extend(totals[seat] for seat in seats)
        if (hand + 1) % 25 == 0:
            log(f"evaluate: {hand + 1}/{config.hands} hands, {len(feats):,} positions")
    features = np.frombuffer(b"".join(feats), dtype=np.uint8).reshape(len(feats), -1)
    clock = time.process_time()
    pred = opponent.predict(features)
    guess = value.predict(features, np.array(points_now))
    seconds["models"] = time.process_time() - clock
    y_ready = np.array(truth_ready, dtype=np.float64)
    y_waits = np.array(truth_waits, dtype=np.float64)
    y_deal = np.array(truth_deal, dtype=np.float64)
    s_deal = np.array(strong_deal, dtype=np.float64)
    s_ready = np.array(strong_ready)
    report: dict[str, Any] = {
        "config": {
            "hands": config.hands,
            "seed": config.seed,
            "every": config.every,
            "samples": config.samples,
            "rollouts": config.rollouts,
            "lineups": [list(lineup) for lineup in config.lineups],
        },
        "positions": len(feats),
        "cpu_seconds": seconds,
        "ready": {
            "model": metrics.scores(pred.ready, y_ready, table=True),
            "strong": metrics.scores(s_ready, y_ready, table=True),
            "uniform": metrics.scores(np.array(uni_ready), y_ready, table=True),
            "base_rate": metrics.scores(np.full_like(y_ready, y_ready.mean()), y_ready),
        },
        "waits": {
            "model": metrics.scores(pred.waits, y_waits, table=True),
            "strong": metrics.scores(np.array(strong_waits), y_waits, table=True),
            "uniform": metrics.scores(np.array(uni_waits), y_waits, table=True),
            "base_rate": metrics.scores(np.full_like(y_waits, y_waits.mean()), y_waits),
        },
        "deal_in": {
            "model": metrics.scores(pred.deal_in, y_deal, table=True),
            "strong": metrics.scores(s_deal, y_deal, table=True),
            "uniform": metrics.scores(np.array(uni_deal), y_deal, table=True),
            "base_rate": metrics.scores(np.full_like(y_deal, y_deal.mean()), y_deal),
        },
        "deal_in_any": _any_opponent(pred.deal_in, s_deal, np.array(uni_deal), y_deal),
        "deal_in_held": _any_opponent(
            pred.deal_in, s_deal, np.array(uni_deal), y_deal, held=features[:, :KINDS] > 0
        ),
        "value": {
            "model": metrics.regression_scores(guess, np.array(final)),
            "rollouts": metrics.regression_scores(np.array(rollout_value), np.array(final)),
            "points_so_far": metrics.regression_scores(np.array(points_now)[:, 0], np.array(final)),
            "mean": metrics.regression_scores(
                np.full(len(final), float(np.mean(final))), np.array(final)
            ),
        },
        "bots": list(BOT_NAMES),
    }
    if config.bootstrap:
        clock = time.process_time()
        report["intervals"] = _model_against_baselines(
            config,
            np.array(hand_of),
            (pred.ready, s_ready, y_ready),
            (pred.deal_in, s_deal, y_deal),
            features[:, :KINDS] > 0,
            (guess, np.array(rollout_value), np.array(final, dtype=np.float64)),
        )
        seconds["intervals"] = time.process_time() - clock
    return report


def _model_against_baselines(
    config: EvalConfig,
    hand_of: Any,
    ready: tuple[Any, Any, Any],
    deal_in: tuple[Any, Any, Any],
    held: Any,
    value: tuple[Any, Any, Any],
) -> dict[str, Any]:
    """The model's lead over the strong bot's reading (readiness, deal-in per seat and kind,
    deal-in of the discards the seat can choose) and over the rollouts (value R²), each with
    its interval over resampled hands (:func:`metrics.paired_bootstrap`)."""
    others = SEATS - 1

    def lead(metric: Any, first: Any, second: Any, truth: Any, groups: Any) -> dict[str, float]:
        return metrics.paired_bootstrap(
            metric, first, second, truth, groups, reps=config.bootstrap, seed=config.seed
        )

    model_deal, strong_deal, truth_deal = deal_in
    held_hands = np.broadcast_to(hand_of[:, None], held.shape)[held]
    out: dict[str, Any] = {"reps": config.bootstrap, "ready": {}, "deal_in": {}, "deal_in_held": {}}
    for name, metric in (("log_loss", metrics.log_loss), ("auc", metrics.auc)):
        out["ready"][name] = lead(metric, *ready, np.repeat(hand_of, others))
        out["deal_in"][name] = lead(metric, *deal_in, np.repeat(hand_of, others * KINDS))
        out["deal_in_held"][name] = lead(
            metric,
            _any_seat(model_deal)[held],
            _any_seat(strong_deal)[held],
            truth_deal.max(axis=1)[held],
            held_hands,
        )
    out["value"] = {"r2": lead(metrics.r_squared, *value, hand_of)}
    return out


def _any_opponent(
    model: Any, strong: Any, uniform: Any, truth: Any, held: Any = None
) -> dict[str, Any]:
    """Deal-in danger of a discard over all three others (as a bot uses it): the chance
    that at least one of them wins on it, against whether one would; with ``held``
    (positions × kinds), only the kinds the seat holds: the discards it can choose."""
    y = truth.max(axis=1)
    mask = np.ones_like(y, dtype=bool) if held is None else held
    y = y[mask]
    return {
        "model": metrics.scores(_any_seat(model)[mask], y, table=True),
        "strong": metrics.scores(_any_seat(strong)[mask], y, table=True),
        "uniform": metrics.scores(_any_seat(uniform)[mask], y, table=True),
    }


def _any_seat(deal_in: Any) -> Any:
    """Per position and kind, the chance that at least one of the three others wins on a
    discard of it (positions × others × kinds → positions × kinds), as a bot weighs it."""
    return 1.0 - np.prod(1.0 - deal_in, axis=1)


def _strong_reading(bot: StrongBot, view: Any) -> tuple[list[float], list[list[float]], Any]:
    """The strong bot's beliefs about each other seat (relative +1..+3): ready, wait share
    per tile (ready × chance), deal-in per tile (ready × allowed × chance)."""
    unseen = unseen_counts(view.visible_counts())
    threats = {threat.seat: threat for threat in bot._threats(view, unseen)}
    ready: list[float] = []
    waits: list[list[float]] = []
    deal: list[list[float]] = []
    for rel in (1, 2, 3):
        other = (view.seat + rel) % SEATS
        threat = threats.get(other)
        if threat is None:  # out of play (血戰)
            ready.append(0.0)
            waits.append([0.0] * KINDS)
            deal.append([0.0] * KINDS)
            continue
        ready.append(threat.ready)
        unit = replace(threat, cost=1.0)
        shape = replace(unit, allowed=1.0)
        deal.append([bot._feed_cost(view, t, [unit], unseen, 0.0) for t in range(KINDS)])
        waits.append([bot._feed_cost(view, t, [shape], unseen, 0.0) for t in range(KINDS)])
    return ready, waits, deal


def _uniform_reading(
    view: Any, rng: random.Random, config: EvalConfig, seconds: dict[str, float]
) -> tuple[list[float], list[list[float]], list[list[float]], float]:
    """Shares over uniformly sampled deals (smoothed), and the mean of the rollouts."""
    ready = [0] * 3
    waits = [[0] * KINDS for _ in range(3)]
    deal = [[0] * KINDS for _ in range(3)]
    values: list[int] = []
    for sample in range(config.samples):
        world = sample_round(view, rng=rng, rules=config.rules)
        for index, truth in enumerate(hidden_labels(world, view.seat)):
            ready[index] += truth.ready
            for kind in range(KINDS):
                waits[index][kind] += (truth.waits >> kind) & 1
                deal[index][kind] += (truth.deal_in >> kind) & 1
        if sample < config.rollouts:
            clock = time.process_time()
            values.append(rollout(world.copy(), view.seat, True, False))
            seconds["rollouts"] += time.process_time() - clock
    n = config.samples + 1.0

    def share(k: int) -> float:
        return (k + 0.5) / n

    return (
        [share(k) for k in ready],
        [[share(k) for k in row] for row in waits],
        [[share(k) for k in row] for row in deal],
        float(np.mean(values)) if values else 0.0,
    )


def format_report(report: dict[str, Any]) -> str:
    """The report as text tables (the JSON holds the reliability tables in full)."""
    lines = [
        f"held-out self-play: {report['config']['hands']} hands, seed "
        f"{report['config']['seed']}, {report['positions']:,} positions "
        f"(every {report['config']['every']}th own turn)",
        "",
        f"{'estimate':<28}{'log loss':>10}{'Brier':>10}{'AUC':>8}{'mean p':>9}{'rate':>8}",
    ]
    for head in ("ready", "waits", "deal_in"):
        for name, row in report[head].items():
            lines.append(
                f"{head + ' / ' + name:<28}{row['log_loss']:>10.4f}{row['brier']:>10.4f}"
                f"{row['auc']:>8.3f}{row['mean_predicted']:>9.4f}{row['observed_rate']:>8.4f}"
            )
    for key, label in (("deal_in_any", "any seat"), ("deal_in_held", "held tiles")):
        for name, row in report[key].items():
            lines.append(
                f"{'deal-in, ' + label + ' / ' + name:<28}{row['log_loss']:>10.4f}"
                f"{row['brier']:>10.4f}{row['auc']:>8.3f}{row['mean_predicted']:>9.4f}"
                f"{row['observed_rate']:>8.4f}"
            )
    lines += ["", f"{'value (points)':<28}{'RMSE':>10}{'MAE':>10}{'R²':>8}{'corr':>8}"]
    for name, row in report["value"].items():
        lines.append(
            f"{name:<28}{row['rmse']:>10.2f}{row['mae']:>10.2f}{row['r2']:>8.3f}{row['corr']:>8.3f}"
        )
    for head in ("ready", "deal_in", "deal_in_held"):
        lines += ["", f"reliability, {head}: predicted / observed (count) per bin"]
        for name in ("model", "strong", "uniform"):
            cells = [
                f"{row['predicted']:.3f}/{row['observed']:.3f} ({row['count']})"
                for row in report[head][name]["reliability"]
            ]
            lines.append(f"  {name:<8} " + "  ".join(cells))
    intervals = report.get("intervals")
    if intervals:
        lines += [
            "",
            f"the model's lead, 95 % interval over {intervals['reps']} resamples of the hands",
        ]
        for head, against in (
            ("ready", "strong"),
            ("deal_in", "strong"),
            ("deal_in_held", "strong"),
            ("value", "rollouts"),
        ):
            for name, row in intervals[head].items():
                lines.append(
                    f"  {head} / {name}, model - {against}: {row['difference']:+.4f} "
                    f"[{row['low']:+.4f}, {row['high']:+.4f}]"
                )
    seconds = report["cpu_seconds"]
    lines += [
        "",
        "CPU seconds: " + ", ".join(f"{key} {value:.1f}" for key, value in seconds.items()),
    ]
    return "\n".join(lines)
