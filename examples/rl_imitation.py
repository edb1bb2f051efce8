"""Imitation learning on ``duyun_v0``: copy the ``strong`` bot, then measure the copy.

1. Collect trajectories: four ``strong`` bots play hands in the PettingZoo environment; every
   decision with more than one legal action is kept as (observation, action mask, bot action).
2. Train a small policy by behaviour cloning: a one-hidden-layer MLP in plain numpy, trained
   with Adam on the masked softmax cross-entropy (illegal actions get no probability).
3. Evaluate in duplicate format: each wall is played four times with the policy in each seat
   against three bots, and the same walls again with the ``strong`` bot in the policy's place.
   A unit is one wall's four rotations; the 95% confidence intervals are over units (as
   ``duyun simulate`` does), and the paired difference policy − strong cancels most of the
   luck of the deal.

    PYTHONPATH=src python examples/rl_imitation.py            # a few minutes on 2 cores
    PYTHONPATH=src python examples/rl_imitation.py --train-hands 60 --eval-walls 20  # quick

Needs the ``rl`` extra (numpy, pettingzoo, gymnasium); no PyTorch.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from duyun import rl
from duyun.bots import BOT_NAMES, Bot, make_bot
from duyun.tiles import full_set

Array = npt.NDArray[np.float32]
Z_95 = 1.959963984540054
SEATS = 4

# The policy reads every field except the long one-hot river order (its kind counts stay):
# a smaller input trains faster in numpy and loses little for a first model.
FEATURES = np.concatenate(
    [
        np.arange(f_slice.start, f_slice.stop)
        for f_slice in (rl.field_slice(field.name) for field in rl.FIELDS if field.name != "rivers")
    ]
)
SCALE = np.ones(len(FEATURES), dtype=np.float32)
for _name, _factor in (("points", 0.01), ("match_points", 0.01), ("wall_remaining", 1 / 55)):
    _positions = np.arange(rl.field_slice(_name).start, rl.field_slice(_name).stop)
    SCALE[np.searchsorted(FEATURES, _positions)] = _factor


HAND = rl.field_slice("hand")
THRESHOLDS = np.arange(1, 5, dtype=np.float32)


def features(observation: Array) -> Array:
    """The model's input: the chosen fields, scaled, plus the own hand as four 0/1 planes
    (at least 1, 2, 3, 4 copies of each kind): pairs and pungs are what discards are about,
    and planes let a one-layer network see them without learning thresholds first."""
    hand = observation[..., HAND, None] >= THRESHOLDS
    planes = hand.reshape(*observation.shape[:-1], -1).astype(np.float32)
    return np.concatenate([observation[..., FEATURES] * SCALE, planes], axis=-1)


# ---------------------------------------------------------------------- data


def collect(hands: int, seed: int) -> tuple[Array, npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """Observations, masks and the strong bot's actions at its multi-choice decisions."""
    env = rl.raw_env()
    observations: list[Array] = []
    masks: list[npt.NDArray[np.int8]] = []
    actions: list[int] = []
    for hand in range(hands):
        env.reset(seed=seed * 100_003 + hand)
        bots = {
            agent: make_bot("strong", seed * 1_000 + hand * 4 + s)
            for s, agent in enumerate(env.possible_agents)
        }
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = rl.index_of(bots[agent].choose(env.seat_view(agent)))
            if obs["action_mask"].sum() > 1:
                observations.append(features(obs["observation"]))
                masks.append(obs["action_mask"])
                actions.append(action)
            env.step(action)
    return np.stack(observations), np.stack(masks), np.array(actions, dtype=np.int64)


# ---------------------------------------------------------------------- model


@dataclass
class MLP:
    """logits = relu(x W1 + b1) W2 + b2; masked softmax over the legal actions."""

    w1: Array
    b1: Array
    w2: Array
    b2: Array

    @classmethod
    def create(cls, inputs: int, hidden: int, rng: np.random.Generator) -> MLP:
        return cls(
            (rng.standard_normal((inputs, hidden)) * math.sqrt(2 / inputs)).astype(np.float32),
            np.zeros(hidden, dtype=np.float32),
            (rng.standard_normal((hidden, rl.NUM_ACTIONS)) * math.sqrt(1 / hidden)).astype(
                np.float32
            ),
            np.zeros(rl.NUM_ACTIONS, dtype=np.float32),
        )

    def params(self) -> list[Array]:
        return [self.w1, self.b1, self.w2, self.b2]

    def logits(self, x: Array, mask: npt.NDArray[np.int8]) -> tuple[Array, Array]:
        hidden = np.maximum(x @ self.w1 + self.b1, 0)
        logits = hidden @ self.w2 + self.b2
        return np.where(mask > 0, logits, -1e9).astype(np.float32), hidden

    def act(self, x: Array, mask: npt.NDArray[np.int8]) -> int:
        logits, _ = self.logits(x[None, :], mask[None, :])
        return int(np.argmax(logits[0]))


def train(
    model: MLP,
    x: Array,
    masks: npt.NDArray[np.int8],
    y: npt.NDArray[np.int64],
    *,
    epochs: int,
    lr: float,
    batch: int,
    rng: np.random.Generator,
    log: Callable[[str], None],
) -> None:
    """Adam on the masked cross-entropy."""
    params = model.params()
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(y))
        loss_sum = 0.0
        for start in range(0, len(y), batch):
            index = order[start : start + batch]
            xb, mb, yb = x[index], masks[index], y[index]
            logits, hidden = model.logits(xb, mb)
            logits -= logits.max(axis=1, keepdims=True)
            probs = np.exp(logits)
            probs /= probs.sum(axis=1, keepdims=True)
            rows = np.arange(len(yb))
            loss_sum += float(-np.log(probs[rows, yb] + 1e-12).sum())
            grad = probs
            grad[rows, yb] -= 1
            grad /= len(yb)
            g_w2 = hidden.T @ grad
            g_b2 = grad.sum(axis=0)
            g_hidden = (grad @ model.w2.T) * (hidden > 0)
            g_w1 = xb.T @ g_hidden
            g_b1 = g_hidden.sum(axis=0)
            step += 1
            for p, g, m, v in zip(params, (g_w1, g_b1, g_w2, g_b2), first, second, strict=True):
                m *= beta1
                m += (1 - beta1) * g
                v *= beta2
                v += (1 - beta2) * g * g
                m_hat = m / (1 - beta1**step)
                v_hat = v / (1 - beta2**step)
                p -= (lr * m_hat / (np.sqrt(v_hat) + eps)).astype(np.float32)
        log(f"  epoch {epoch + 1:2d}  loss {loss_sum / len(y):.3f}")


def accuracy(model: MLP, x: Array, masks: npt.NDArray[np.int8], y: npt.NDArray[np.int64]) -> float:
    logits, _ = model.logits(x, masks)
    return float((logits.argmax(axis=1) == y).mean())


# ---------------------------------------------------------------------- evaluation

Policy = Callable[[Any, str, dict[str, Any]], int]
PolicyFactory = Callable[[int], Policy]  # a fresh policy for one hand, from a seed


def bot_policy(name: str) -> PolicyFactory:
    """A bot of :mod:`duyun.bots` in the learner's seat, one new bot per hand."""

    def factory(seed: int) -> Policy:
        bot = make_bot(name, seed)
        return lambda env, agent, obs: rl.index_of(bot.choose(env.seat_view(agent)))

    return factory


def wall_for(seed: int, wall: int) -> list[int]:
    order = full_set()
    random.Random(f"eval-wall/{seed}/{wall}").shuffle(order)
    return order


def play_duplicate_unit(
    order: Sequence[int], learner_for: PolicyFactory, opponents: Sequence[str], seed: int
) -> float:
    """The learner's mean points over the four rotations of one wall (dealer: seat 0)."""
    points = []
    for rotation in range(SEATS):
        env = rl.raw_env()
        env.reset(options={"dealer": 0, "wall_order": list(order)})
        learner_agent = env.possible_agents[rotation]
        learner = learner_for(seed * 16 + rotation * 4)
        bots: dict[str, Bot] = {}
        for offset, name in enumerate(opponents, start=1):
            agent = env.possible_agents[(rotation + offset) % SEATS]
            bots[agent] = make_bot(name, seed * 16 + rotation * 4 + offset)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if agent == learner_agent:
                env.step(learner(env, agent, obs))
            else:
                env.step(rl.index_of(bots[agent].choose(env.seat_view(agent))))
        points.append(env.results[0].totals[rotation])
    return sum(points) / SEATS


def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    data = np.asarray(values, dtype=np.float64)
    mean = float(data.mean())
    half = Z_95 * float(data.std(ddof=1)) / math.sqrt(len(data)) if len(data) > 1 else math.inf
    return mean, mean - half, mean + half


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-hands", type=int, default=600, help="hands of strong self-play")
    parser.add_argument("--eval-walls", type=int, default=150, help="duplicate walls (×4 hands)")
    parser.add_argument("--hidden", type=int, default=256, help="hidden units of the MLP")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument(
        "--opponents",
        default="efficient",
        choices=BOT_NAMES,
        help="the three bots at the table (against three strong bots the strong reference "
        "scores exactly 0: four identical players on a rotated wall sum to zero)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.train_hands < 2 or args.eval_walls < 2:
        parser.error("--train-hands and --eval-walls need at least 2")

    def log(text: str) -> None:
        print(text, flush=True)

    started = time.perf_counter()
    log(f"collecting decisions of the strong bot over {args.train_hands} hands ...")
    x, masks, y = collect(args.train_hands, args.seed)
    split = int(len(y) * 0.9)
    log(
        f"  {len(y):,} multi-choice decisions, {x.shape[1]} features "
        f"({time.perf_counter() - started:.0f}s)"
    )

    rng = np.random.default_rng(args.seed)
    model = MLP.create(x.shape[1], args.hidden, rng)
    log(f"training a {x.shape[1]}-{args.hidden}-{rl.NUM_ACTIONS} MLP (numpy, Adam) ...")
    train(
        model,
        x[:split],
        masks[:split],
        y[:split],
        epochs=args.epochs,
        lr=args.lr,
        batch=args.batch,
        rng=rng,
        log=log,
    )
    seen = accuracy(model, x[:split], masks[:split], y[:split])
    held_out = accuracy(model, x[split:], masks[split:], y[split:])
    log(
        f"  agreement with the strong bot: train {seen:.1%}, held-out {held_out:.1%} "
        f"({time.perf_counter() - started:.0f}s)"
    )

    def policy(env: Any, agent: str, obs: dict[str, Any]) -> int:
        return model.act(features(obs["observation"]), obs["action_mask"])

    opponents = (args.opponents,) * 3
    log(
        f"duplicate evaluation against three {args.opponents} bots: {args.eval_walls} walls × 4 "
        "rotations, each also played with strong and with random in the learner's seat ..."
    )
    learned: list[float] = []
    reference: list[float] = []
    baseline: list[float] = []
    for wall in range(args.eval_walls):
        order = wall_for(args.seed, wall)
        learned.append(play_duplicate_unit(order, lambda _seed: policy, opponents, wall))
        reference.append(play_duplicate_unit(order, bot_policy("strong"), opponents, wall))
        baseline.append(play_duplicate_unit(order, bot_policy("random"), opponents, wall))
    rows = [
        ("imitation policy", learned),
        ("strong bot (teacher)", reference),
        ("random legal actions", baseline),
        ("policy - strong (paired)", [a - b for a, b in zip(learned, reference, strict=True)]),
        ("policy - random (paired)", [a - b for a, b in zip(learned, baseline, strict=True)]),
    ]
    log(f"points per hand in the learner's seat, 95% CI over {args.eval_walls} duplicate units:")
    for label, values in rows:
        mean, low, high = mean_ci(values)
        log(f"  {label:<26} {mean:+8.2f}   [{low:+8.2f}, {high:+8.2f}]")
    log(f"done in {time.perf_counter() - started:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
