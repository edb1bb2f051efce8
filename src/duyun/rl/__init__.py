"""Duyun mahjong for reinforcement learning: PettingZoo AEC and Gymnasium environments.

>>> from duyun import rl
>>> env = rl.env()                       # PettingZoo AEC, metadata["name"] == "duyun_v0"
>>> env.reset(seed=1)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     done = terminated or truncated
...     env.step(None if done else env.action_space(agent).sample(obs["action_mask"]))
>>> single = rl.gym_env(opponents="strong")   # Gymnasium, one learner against three bots
>>> learned = rl.gym_env(opponents="strong-learned")  # bots reading the learned opponent model
>>> policy = rl.BotPolicy("search-learned")  # a bot playing an agent of env(): policy(env, agent)

Needs the ``rl`` extra (``pip install duyun[rl]``: pettingzoo, gymnasium, numpy). The
observation and action encodings, rewards, episodes and options are described in docs/rl.md.
"""

from __future__ import annotations

from typing import Any

try:
    import gymnasium as _gymnasium  # noqa: F401
    import numpy as _numpy  # noqa: F401
    import pettingzoo as _pettingzoo  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"duyun.rl needs the rl extra ({error.name} is missing): pip install 'duyun[rl]'"
    ) from error

from duyun.rl.actions import (
    ACTION_NAMES,
    NUM_ACTIONS,
    ActionIndexError,
    action_for,
    decode_action,
    encode_action,
    index_of,
)
from duyun.rl.aec import (
    AGENTS,
    DuyunEnv,
    EnvOptionError,
    IllegalEnvActionError,
    OrderEnforcingEnv,
)
from duyun.rl.gym import DuyunGymEnv
from duyun.rl.observation import FIELDS, OBS_SIZE, RIVER_SLOTS, encode_view, field_slice
from duyun.rl.opponents import BotPolicy


def raw_env(**options: Any) -> DuyunEnv:
    """The AEC environment without PettingZoo's wrappers (fastest; see :class:`DuyunEnv`)."""
    return DuyunEnv(**options)


def env(**options: Any) -> Any:
    """The PettingZoo AEC environment ``duyun_v0`` (see :class:`DuyunEnv` for the options).

    Wrapped in PettingZoo's order-enforcing wrapper, as PettingZoo's own games are: using it
    before ``reset()`` is a clear error. ``env(...).unwrapped`` is the :class:`DuyunEnv`. (The
    wrapper is :class:`~duyun.rl.aec.OrderEnforcingEnv`, PettingZoo's own with ``last`` and
    ``step`` reaching the environment directly: the same checks, fewer attribute lookups.)
    """
    return OrderEnforcingEnv(DuyunEnv(**options))


def gym_env(**options: Any) -> DuyunGymEnv:
    """A Gymnasium single-agent environment: one learner, three bots (see :class:`DuyunGymEnv`)."""
    return DuyunGymEnv(**options)


__all__ = [
    "ACTION_NAMES",
    "AGENTS",
    "FIELDS",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "RIVER_SLOTS",
    "ActionIndexError",
    "BotPolicy",
    "DuyunEnv",
    "DuyunGymEnv",
    "EnvOptionError",
    "IllegalEnvActionError",
    "OrderEnforcingEnv",
    "action_for",
    "decode_action",
    "encode_action",
    "encode_view",
    "env",
    "field_slice",
    "gym_env",
    "index_of",
    "raw_env",
]
