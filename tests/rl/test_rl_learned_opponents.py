"""The learned models as opponents in the environments (issue 35 item 5): the Gymnasium
environment takes the bots that read the learned opponent model by name, and
:class:`duyun.rl.BotPolicy` plays any agent of the PettingZoo environment with one."""

from __future__ import annotations

import numpy as np
import pytest

from duyun import rl
from duyun.bots import LEARNED_BOT_NAMES


def test_the_gym_env_plays_a_learner_against_the_learned_bots() -> None:
    env = rl.gym_env(seat=0, opponents=("strong-learned", "efficient", "search-learned"))
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    done, steps, reward = False, 0, 0.0
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, r, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        reward += float(r)
        done = terminated or truncated
        steps += 1
    assert steps > 0 and env.aec.game.is_over
    assert [type(bot).__name__ for bot in env._bots.values()] == [
        "LearnedStrongBot",
        "EfficientBot",
        "LearnedSearchBot",
    ]


@pytest.mark.parametrize("name", ["strong-learned", "efficient"])
def test_bot_policies_play_every_agent_of_the_pettingzoo_env_legally(name: str) -> None:
    env = rl.env()
    env.reset(seed=5)
    policies = {agent: rl.BotPolicy(name, seed=i) for i, agent in enumerate(env.possible_agents)}
    steps = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = policies[agent](env, agent)
        assert obs["action_mask"][action] == 1
        env.step(action)
        steps += 1
    assert steps > 20


def test_an_unknown_bot_is_named_with_the_known_ones() -> None:
    with pytest.raises(rl.EnvOptionError, match="strong-learned"):
        rl.BotPolicy("perfect")
    with pytest.raises(rl.EnvOptionError, match="search-learned"):
        rl.gym_env(opponents="perfect")
    assert set(LEARNED_BOT_NAMES) == {"strong-learned", "search-learned"}
