"""Golden-behaviour guard of ``duyun_v0`` (issue 12): the speed work must change nothing a user
sees -- which agent is selected, every observation vector and action mask, rewards,
terminations and infos -- for seeded episodes of random masked play.

The expected digests were made with :func:`digest` on the environment of commit 895ba7b (main
before the speed work), with ``PYTHONPATH=src:. python -c "from tests.test_rl_golden import
digest, CASES; [print(n, digest(n)) for n in CASES]"``. Only the observation's first
``GOLDEN_SIZE`` numbers (the layout of that commit) are hashed, so that fields appended to the
layout later do not change the digest; they are checked against ``encode_view`` elsewhere.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import numpy as np
import pytest

from duyun import rl

GOLDEN_SIZE = 4616  # the observation length of commit 895ba7b
EPISODES = 40

CASES: dict[str, dict[str, Any]] = {
    "default": {},
    "payments_match": {"reward_timing": "payments", "hands": 2, "reward_scale": 0.5},
    "bloody": {"rules": {"bloody_battle": True, "pass_blocks_ron": True}},
}

EXPECTED: dict[str, str] = {
    "default": "089411327387f68052c87ed660150d2e928e9de31181ec7d130316f717f9624d",
    "payments_match": "e44290dc11a9a906141bbc6d371f69fe91cfb24adcf36f8f4f9db4e4c6096855",
    "bloody": "6037a09daf509be612f347122d00b4d316200cb9a7a824cfe0c6dfe62b54417e",
}


def digest(case: str, episodes: int = EPISODES) -> str:
    """SHA-256 of everything ``last()`` shows on every step of ``episodes`` seeded episodes."""
    sha = hashlib.sha256()
    env = rl.raw_env(**CASES[case])
    for episode in range(episodes):
        rng = random.Random(episode)
        env.reset(seed=episode)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            vector = obs["observation"]
            assert vector.shape[0] >= GOLDEN_SIZE
            sha.update(agent.encode())
            sha.update(np.ascontiguousarray(vector[:GOLDEN_SIZE]).tobytes())
            sha.update(obs["action_mask"].tobytes())
            sha.update(repr((reward, terminated, truncated, sorted(info.items()))).encode())
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
    return sha.hexdigest()


@pytest.mark.parametrize("case", sorted(CASES))
def test_env_output_matches_golden_digest(case: str) -> None:
    """Agents, observations, masks, rewards and infos equal those before the speed work."""
    assert digest(case) == EXPECTED[case]
