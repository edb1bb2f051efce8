"""RL environment speed: decisions per second of ``duyun_v0`` with random masked actions,
against RLCard's mahjong environment measured in the same run (issue target: >= 10×).

Both loops do what a training loop does on every decision: read the observation and the legal
actions, pick one uniformly at random, step. For ``duyun_v0`` that is ``env.last()`` (the seat's
view encoded as the observation vector and action mask) and ``env.step(index)``; for RLCard it
is ``env.step(action)``, which returns the next player's state with its observation array and
legal actions. Rates are per second of this process's CPU time (``time.process_time``): on
the small shared machines wall-clock rates swing with other processes' load, CPU time much
less; both loops are single-threaded. The two are measured in alternating rounds and each
one's best round is kept: the ratio of the bests, measured seconds apart in one process, is
the figure to read.

Checks (the exit status): every ``duyun_v0`` episode ends and its rewards sum to zero.
"""

from __future__ import annotations

import time

import numpy as np

from duyun import rl

ROUNDS = 3
EPISODES = 150  # per round
RLCARD_EPISODES = 40  # per round
GYM_EPISODES = 100


def duyun_rate(episodes: int, *, wrapped: bool, first: int = 0) -> tuple[float, float, int]:
    """(decisions/CPU s, episodes/CPU s, failures) over ``episodes`` hands of random play."""
    env = rl.env() if wrapped else rl.raw_env()
    rng = np.random.default_rng(first)
    steps = 0
    failures = 0
    start = time.process_time()
    for episode in range(first, first + episodes):
        env.reset(seed=episode)
        total = 0.0
        for _agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            total += reward
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(legal[rng.integers(len(legal))])
            steps += 1
        if env.agents or abs(total) > 1e-9:
            failures += 1
    elapsed = time.process_time() - start
    return steps / elapsed, episodes / elapsed, failures


def gym_rate(episodes: int) -> tuple[float, float]:
    """(learner decisions/CPU s, episodes/CPU s) of the Gymnasium env vs three random bots."""
    env = rl.gym_env(opponents="random")
    rng = np.random.default_rng(0)
    steps = 0
    start = time.process_time()
    for episode in range(episodes):
        obs, _ = env.reset(seed=episode)
        terminated = False
        while not terminated:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, _, _ = env.step(legal[rng.integers(len(legal))])
            steps += 1
    elapsed = time.process_time() - start
    return steps / elapsed, episodes / elapsed


def rlcard_rate(episodes: int, seed: int = 0) -> tuple[float, float] | None:
    """(decisions/CPU s, episodes/CPU s) of RLCard's mahjong, random legal actions, or None."""
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("mahjong", config={"seed": seed})
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.process_time()
    for _ in range(episodes):
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rng.integers(len(legal))])
            steps += 1
    elapsed = time.process_time() - start
    return steps / elapsed, episodes / elapsed


def main() -> int:
    print(
        f"== rl: duyun_v0 with random masked actions vs RLCard mahjong, {ROUNDS} alternating "
        f"rounds of {EPISODES} and {RLCARD_EPISODES} hands, best round of each, per CPU second"
    )
    duyun_rate(20, wrapped=False)  # warm the analysis tables
    raw: list[tuple[float, float]] = []
    reference: list[tuple[float, float]] = []
    failures = 0
    for round_ in range(ROUNDS):
        rate, hands, failed = duyun_rate(EPISODES, wrapped=False, first=round_ * EPISODES)
        raw.append((rate, hands))
        failures += failed
        measured = rlcard_rate(RLCARD_EPISODES, seed=round_)
        if measured is not None:
            reference.append(measured)
    wrapped, wrapped_hands, wrapped_failures = duyun_rate(EPISODES, wrapped=True)
    failures += wrapped_failures
    gym, gym_hands = gym_rate(GYM_EPISODES)
    best, best_hands = max(raw)
    rounds = ", ".join(f"{rate:,.0f}" for rate, _ in raw)
    print(
        f"  duyun_v0 raw_env()        {best:10,.0f} steps/s  ({best_hands:6,.1f} hands/s)  "
        f"rounds: {rounds}"
    )
    print(f"  duyun_v0 env() (wrapped)  {wrapped:10,.0f} steps/s  ({wrapped_hands:6,.1f} hands/s)")
    print(f"  gym_env vs 3 random bots  {gym:10,.0f} learner steps/s  ({gym_hands:6,.1f} hands/s)")
    if not reference:
        print("  RLCard mahjong            not installed (pip install 'duyun[rl]'): no ratio")
    else:
        rate, hands = max(reference)
        rounds = ", ".join(f"{r:,.0f}" for r, _ in reference)
        print(
            f"  RLCard mahjong            {rate:10,.0f} steps/s  ({hands:6,.1f} hands/s)  "
            f"rounds: {rounds}"
        )
        print(
            f"  ratio duyun_v0 / RLCard   {best / rate:10.1f} × steps/s, "
            f"{best_hands / hands:.1f} × hands/s  (issue target >= 10 ×)"
        )
    if failures:
        print(f"  {failures} episodes did not end or had rewards not summing to zero")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
