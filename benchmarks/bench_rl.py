"""RL environment speed: decisions per second of ``duyun_v0`` with random masked actions,
against RLCard's mahjong environment measured in the same run (issue target: >= 10×).

Both environments are driven by the same loop, the one a training loop runs on every
decision: read the next observation and the legal actions as a user gets them, pick one
uniformly at random with the same chooser (``random.Random.randrange``), step. For
``duyun_v0`` that is ``env.last()`` (observation vector and action mask), ``np.flatnonzero`` of
the mask, ``env.step(index)``; for RLCard ``env.step(action)``, which returns the next player's
state with its observation array and legal actions. Each hand starts with a reset (a fresh
deal), counted in the time, as in training.

Rates are per second of this process's CPU time (``time.process_time``): on the small shared
machines wall-clock rates swing with other processes' load, CPU time much less; every loop is
single-threaded. The environments are measured in alternating rounds, seconds apart, and the
figure to read is the median of the rounds' paired ratios (each round's ``duyun_v0`` rate over
the RLCard rate measured right after it); the best round of each is shown too. Also measured
in every round: the PettingZoo-wrapped ``env()`` and ``raw_env(copy_observations=False)``
(read-only views instead of a copy per observation). The same loop
over the bare engine (``legal_actions`` and ``apply_logged``, as the environment steps it, no
observation at all) is measured alongside: it is the ceiling that any encoding of the engine's
state can approach.

The engine's hot modules and the observation encoder are compiled with mypyc when the project
is installed (``setup.py``); the header says which build runs. When it is the compiled one, the
same ``raw_env()`` loop also runs in a child process on a copy of the sources without the
compiled modules, so that the gain of compiling is measured in the same run.

Checks (the exit status): every ``duyun_v0`` episode ends and its rewards sum to zero.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import duyun
from duyun import rl
from duyun.engine import new_round

ROUNDS = 5
EPISODES = 100  # duyun_v0 hands per round (about 68 decisions each)
RLCARD_EPISODES = 25  # RLCard hands per round (about 94 decisions each)
GYM_EPISODES = 100


def duyun_rate(
    episodes: int, *, wrapped: bool, first: int = 0, copy: bool = True
) -> tuple[float, float, int]:
    """(decisions/CPU s, episodes/CPU s, failures) over ``episodes`` hands of random play."""
    env = rl.env(copy_observations=copy) if wrapped else rl.raw_env(copy_observations=copy)
    rng = random.Random(first)
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
            env.step(legal[rng.randrange(len(legal))])
            steps += 1
        if env.agents or abs(total) > 1e-9:
            failures += 1
    elapsed = time.process_time() - start
    return steps / elapsed, episodes / elapsed, failures


def engine_rate(episodes: int, *, first: int = 0) -> tuple[float, float]:
    """(decisions/CPU s, hands/CPU s) of the bare engine: deal, legal actions, apply.

    Applied with ``apply_logged`` as the environment does (``apply`` also copies the events it
    returns, which the environment never reads: it follows the log itself).
    """
    rng = random.Random(first)
    steps = 0
    start = time.process_time()
    for episode in range(first, first + episodes):
        game = new_round(episode)
        while not game.is_over:
            legal = game.legal_actions(game.to_act[0])
            game.apply_logged(legal[rng.randrange(len(legal))])
            steps += 1
    elapsed = time.process_time() - start
    return steps / elapsed, episodes / elapsed


def gym_rate(episodes: int) -> tuple[float, float]:
    """(learner decisions/CPU s, episodes/CPU s) of the Gymnasium env vs three random bots."""
    env = rl.gym_env(opponents="random")
    rng = random.Random(0)
    steps = 0
    start = time.process_time()
    for episode in range(episodes):
        obs, _ = env.reset(seed=episode)
        terminated = False
        while not terminated:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, _, _ = env.step(legal[rng.randrange(len(legal))])
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
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    for _ in range(episodes):
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rng.randrange(len(legal))])
            steps += 1
    elapsed = time.process_time() - start
    return steps / elapsed, episodes / elapsed


def _rounds(rates: list[tuple[float, float]]) -> str:
    return ", ".join(f"{rate:,.0f}" for rate, _ in rates)


def build_label() -> str:
    compiled = duyun.compiled_modules()
    if not compiled:
        return "pure Python (nothing compiled)"
    return f"compiled with mypyc: {len(compiled)} modules ({', '.join(compiled)})"


def pure_python_copy(scratch: str) -> Path:
    """A copy of the package under ``scratch`` without its compiled modules."""
    package = Path(duyun.__file__).resolve().parent
    copy = Path(scratch) / "duyun"
    shutil.copytree(
        package, copy, ignore=shutil.ignore_patterns("*.so", "*.pyd", "_compiled_sources.json")
    )
    return copy


def pure_python_rate(scratch: str, first: int) -> float | None:
    """``raw_env()`` decisions/CPU s of one round (the same hands as the compiled round) in a
    child process importing the pure copy under ``scratch``; None if it cannot run here."""
    code = (
        "import json, bench_rl, duyun\n"
        "assert not duyun.compiled_modules(), 'the copy must be pure Python'\n"
        "bench_rl.duyun_rate(20, wrapped=False, first=10_000)\n"
        f"print(json.dumps(bench_rl.duyun_rate({EPISODES}, wrapped=False, first={first})[0]))"
    )
    here = str(Path(__file__).resolve().parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([scratch, here])}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        print(f"  (pure-Python comparison failed: {done.stderr.strip()[-300:]})")
        return None
    return float(json.loads(done.stdout))


def main() -> int:
    print(
        f"== rl: duyun_v0 with random masked actions vs RLCard mahjong, {ROUNDS} alternating "
        f"rounds of {EPISODES} and {RLCARD_EPISODES} hands, per CPU second"
    )
    print(f"  build: {build_label()}")
    duyun_rate(20, wrapped=False)  # warm the analysis tables
    raw: list[tuple[float, float]] = []
    engine: list[tuple[float, float]] = []
    reference: list[tuple[float, float]] = []
    wrapped_rates: list[tuple[float, float]] = []
    view_rates: list[tuple[float, float]] = []
    failures = 0
    pure_ratios: list[float] = []
    scratch = tempfile.TemporaryDirectory() if duyun.compiled_modules() else None
    if scratch is not None:
        pure_python_copy(scratch.name)
    for round_ in range(ROUNDS):
        rate, hands, failed = duyun_rate(EPISODES, wrapped=False, first=round_ * EPISODES)
        raw.append((rate, hands))
        failures += failed
        if scratch is not None:
            pure = pure_python_rate(scratch.name, round_ * EPISODES)
            if pure is not None:
                pure_ratios.append(rate / pure)
        measured = rlcard_rate(RLCARD_EPISODES, seed=round_)
        if measured is not None:
            reference.append(measured)
        engine.append(engine_rate(EPISODES, first=round_ * EPISODES))
        rate, hands, failed = duyun_rate(EPISODES, wrapped=True, first=round_ * EPISODES)
        wrapped_rates.append((rate, hands))
        failures += failed
        rate, hands, failed = duyun_rate(
            EPISODES, wrapped=False, first=round_ * EPISODES, copy=False
        )
        view_rates.append((rate, hands))
        failures += failed
    wrapped, wrapped_hands = max(wrapped_rates)
    views, views_hands = max(view_rates)
    gym, gym_hands = gym_rate(GYM_EPISODES)
    best, best_hands = max(raw)
    bare, bare_hands = max(engine)
    print(
        f"  duyun_v0 raw_env()        {best:10,.0f} steps/s  ({best_hands:6,.1f} hands/s)  "
        f"rounds: {_rounds(raw)}"
    )
    print(
        f"  duyun_v0 env() (wrapped)  {wrapped:10,.0f} steps/s  ({wrapped_hands:6,.1f} hands/s)  "
        f"rounds: {_rounds(wrapped_rates)}"
    )
    print(
        f"  raw_env, no obs copies    {views:10,.0f} steps/s  ({views_hands:6,.1f} hands/s)  "
        f"rounds: {_rounds(view_rates)}  (copy_observations=False)"
    )
    print(f"  gym_env vs 3 random bots  {gym:10,.0f} learner steps/s  ({gym_hands:6,.1f} hands/s)")
    print(
        f"  bare engine (no obs)      {bare:10,.0f} steps/s  ({bare_hands:6,.1f} hands/s)  "
        f"rounds: {_rounds(engine)}"
    )
    if not reference:
        print("  RLCard mahjong            not installed (pip install 'duyun[rl]'): no ratio")
    else:
        rate, hands = max(reference)
        print(
            f"  RLCard mahjong            {rate:10,.0f} steps/s  ({hands:6,.1f} hands/s)  "
            f"rounds: {_rounds(reference)}"
        )
        steps_ratio = statistics.median(d[0] / r[0] for d, r in zip(raw, reference, strict=True))
        hands_ratio = statistics.median(d[1] / r[1] for d, r in zip(raw, reference, strict=True))
        ceiling = statistics.median(e[0] / r[0] for e, r in zip(engine, reference, strict=True))
        print(
            f"  ratio duyun_v0 / RLCard   {steps_ratio:10.1f} × steps/s, {hands_ratio:.1f} × "
            f"hands/s  (median of paired rounds; best/best {best / rate:.1f} ×; "
            f"issue target >= 10 ×)"
        )
        print(
            f"  ratio bare engine/RLCard  {ceiling:10.1f} × steps/s  (the ceiling of any encoding)"
        )
    if scratch is not None:
        scratch.cleanup()
    if pure_ratios:
        print(
            f"  compiled / pure Python    {statistics.median(pure_ratios):10.2f} × raw_env() "
            f"steps/s  (the same hands in a child process on the sources without the compiled "
            f"modules; median of paired rounds: {', '.join(f'{r:.2f}' for r in pure_ratios)})"
        )
    if failures:
        print(f"  {failures} episodes did not end or had rewards not summing to zero")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
