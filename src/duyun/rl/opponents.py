"""Bots as policies of the PettingZoo environment, by name (issue 35 item 5).

The Gymnasium environment plays its three opponents itself (``rl.gym_env(opponents=...)``);
in the PettingZoo AEC environment every seat is an agent and the caller chooses each action.
:class:`BotPolicy` lets any seat be played by one of the project's bots there -- including the
ones that read the learned opponent model (``strong-learned``, ``search-learned``,
:mod:`duyun.bots.learned`) -- from exactly what that seat may know
(:meth:`~duyun.rl.aec.DuyunEnv.seat_view`), returning the action index the environment takes.

>>> from duyun import rl
>>> env = rl.env()
>>> env.reset(seed=1)
>>> bots = {agent: rl.BotPolicy("strong-learned", seed=i) for i, agent in enumerate(env.agents)}
>>> for agent in env.agent_iter():
...     *_, terminated, truncated, _ = env.last()
...     env.step(None if terminated or truncated else bots[agent](env, agent))
"""

from __future__ import annotations

from typing import Any

from duyun.bots import BOT_NAMES, LEARNED_BOT_NAMES, Bot, make_bot
from duyun.rl.actions import index_of
from duyun.rl.aec import DuyunEnv, EnvOptionError
from duyun.rules import RuleSet


class BotPolicy:
    """A bot, by name, choosing one agent's actions in the AEC environment."""

    def __init__(self, name: str, seed: int = 0, rules: RuleSet | None = None) -> None:
        known = (*BOT_NAMES, *LEARNED_BOT_NAMES)
        if name not in known:
            raise EnvOptionError(f"unknown bot {name!r}; known bots: {', '.join(known)}")
        self.name = name
        self.bot: Bot = make_bot(name, seed, rules)

    def __call__(self, env: Any, agent: str) -> int:
        """The index of the bot's action for ``agent`` (``env`` wrapped or not)."""
        inner: DuyunEnv = env.unwrapped
        return index_of(self.bot.choose(inner.seat_view(agent)))
