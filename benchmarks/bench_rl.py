"""RL environment speed: decisions per second of ``duyun_v0`` with random masked actions,
against RLCard's mahjong environment measured in the same run (issue target: >= 10×).

Both loops do what a training loop does on every decision: read the observation and the legal
actions, pick one uniformly at random, step. For ``duyun_v0`` that is ``env.last()`` (the seat's
view encoded as the observation vector and action mask) and ``env.step(index)``; for RLCard it
is ``env.step(action)``, which returns the next player's state with its observation array and
legal actions. Times on these shared machines vary; the ratio of the two, measured minutes
apart in one process, is the figure to read.

Checks (the exit status): every ``duyun_v0`` episode ends and its rewards sum to zero.
"""

from __future__ import annotations

import time

import numpy as np

from duyun import rl

EPISODES = 400
RLCARD_EPISODES = 120
GYM_EPISODES = 100


def duyun_rate(episodes: int, *, wrapped: bool) -> tuple[float, float, int]:
    """(decisions/s, episodes/s, failures) over ``episodes`` hands of random masked play."""
    env = rl.env() if wrapped else rl.raw_env()
    rng = np.random.default_rng(0)
    steps = 0
    failures = 0
    start = time.perf_counter()
    for episode in range(episodes):
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
    elapsed = time.perf_counter() - start
    return steps / elapsed, episodes / elapsed, failures


def gym_rate(episodes: int) -> tuple[float, float]:
    """(learner decisions/s, episodes/s) of the Gymnasium wrapper against three random bots."""
    env = rl.gym_env(opponents="random")
    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    for episode in range(episodes):
        obs, _ = env.reset(seed=episode)
        terminated = False
        while not terminated:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, _, _ = env.step(legal[rng.integers(len(legal))])
            steps += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, episodes / elapsed


def rlcard_rate(episodes: int) -> tuple[float, float] | None:
    """(decisions/s, episodes/s) of RLCard's mahjong with random legal actions, or None."""
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("mahjong", config={"seed": 0})
    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    for _ in range(episodes):
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rng.integers(len(legal))])
            steps += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, episodes / elapsed


def main() -> int:
    print(f"== rl: duyun_v0 with random masked actions ({EPISODES} hands), RLCard mahjong")
    duyun_rate(20, wrapped=False)  # warm the analysis tables
    raw, raw_hands, raw_failures = duyun_rate(EPISODES, wrapped=False)
    wrapped, wrapped_hands, wrapped_failures = duyun_rate(EPISODES // 2, wrapped=True)
    gym, gym_hands = gym_rate(GYM_EPISODES)
    reference = rlcard_rate(RLCARD_EPISODES)
    print(f"  duyun_v0 raw_env()        {raw:10,.0f} steps/s  ({raw_hands:6,.1f} hands/s)")
    print(f"  duyun_v0 env() (wrapped)  {wrapped:10,.0f} steps/s  ({wrapped_hands:6,.1f} hands/s)")
    print(f"  gym_env vs 3 random bots  {gym:10,.0f} learner steps/s  ({gym_hands:6,.1f} hands/s)")
    if reference is None:
        print("  RLCard mahjong            not installed (pip install 'duyun[rl]'): no ratio")
    else:
        rate, hands = reference
        print(f"  RLCard mahjong            {rate:10,.0f} steps/s  ({hands:6,.1f} hands/s)")
        print(f"  ratio duyun_v0 / RLCard   {raw / rate:10.1f} ×  (issue target >= 10 ×)")
    failures = raw_failures + wrapped_failures
    if failures:
        print(f"  {failures} episodes did not end or had rewards not summing to zero")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
