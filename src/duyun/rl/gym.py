"""A Gymnasium single-agent view of ``duyun_v0``: one learning seat, three bots.

The learner plays one seat; the other three are bots of :mod:`duyun.bots`, which play from
their own seat's view exactly as in self-play. ``step`` applies the learner's action and then
lets the bots play until the learner must decide again (a turn of its own or a claim it may
make) or the episode ends. The reward of a step is the learner's reward since its previous
decision, so an episode's rewards sum to the learner's points (× ``reward_scale``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Final, SupportsFloat

import gymnasium as gym
import numpy as np

from duyun.bots import BOT_NAMES, LEARNED_BOT_NAMES, Bot, make_bot
from duyun.rl.actions import index_of
from duyun.rl.aec import AGENTS, SEATS, DuyunEnv, EnvOptionError, Observation
from duyun.rl.render import render_table
from duyun.rules import RuleSet

MAX_REDEALS: Final = 100


class DuyunGymEnv(gym.Env[Observation, np.int64]):
    """Single-agent Duyun mahjong (build it with :func:`duyun.rl.gym_env`).

    Options: ``seat`` (0..3, or None for a seat drawn per episode), ``opponents`` (a bot name
    for all three, or three names for the seats after the learner in play order: any of
    ``duyun.bots.BOT_NAMES`` or ``LEARNED_BOT_NAMES``, the bots that read the learned opponent
    model, ``strong-learned`` and ``search-learned``), and the
    :class:`~duyun.rl.aec.DuyunEnv` options ``rules``, ``reward_scale``, ``reward_timing``,
    ``hands``, ``dealer``, ``illegal_action`` (default ``"penalize"`` here, so a policy
    without masking still learns) and ``illegal_penalty``.

    A hand in which the learner would never be asked anything (a bot wins before the
    learner's first decision) is dealt again; such an episode would teach nothing.
    """

    # gymnasium declares ``metadata`` as an instance attribute, so no ClassVar here
    metadata = {"render_modes": ["ansi", "human"], "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        *,
        seat: int | None = 0,
        opponents: str | Sequence[str] = "strong",
        rules: RuleSet | Mapping[str, Any] | None = None,
        reward_scale: float = 1.0,
        reward_timing: str = "end",
        hands: int = 1,
        dealer: int | None = None,
        illegal_action: str = "penalize",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < SEATS
        ):
            raise EnvOptionError(f"seat must be 0..3 or None, not {seat!r}")
        names = (opponents,) * 3 if isinstance(opponents, str) else tuple(opponents)
        if len(names) != 3:
            raise EnvOptionError(f"opponents: one bot name or three, not {len(names)}")
        known = (*BOT_NAMES, *LEARNED_BOT_NAMES)
        for name in names:
            if name not in known:
                raise EnvOptionError(
                    f"unknown bot {name!r} in opponents; known bots: {', '.join(known)}"
                )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvOptionError(
                f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}"
            )
        self.seat = seat
        self.opponents = names
        self.render_mode = render_mode
        self.aec = DuyunEnv(
            rules=rules,
            reward_scale=reward_scale,
            reward_timing=reward_timing,
            hands=hands,
            dealer=dealer,
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            render_mode=None if render_mode is None else "ansi",
        )
        self.observation_space = self.aec.observation_space(AGENTS[0])
        self.action_space = self.aec.action_space(AGENTS[0])
        self._agent = AGENTS[0]
        self._bots: dict[str, Bot] = {}

    @property
    def agent(self) -> str:
        """The learner's agent name in the underlying AEC environment."""
        return self._agent

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        for _ in range(MAX_REDEALS):
            seat = self.seat if self.seat is not None else int(rng.integers(SEATS))
            self._agent = AGENTS[seat]
            self._bots = {}
            for offset, name in enumerate(self.opponents, start=1):
                other = (seat + offset) % SEATS
                self._bots[AGENTS[other]] = make_bot(name, int(rng.integers(2**62)), self.aec.rules)
            self.aec.reset(seed=int(rng.integers(2**62)), options=options)
            self._play_bots()
            if not self.aec.terminations[self._agent]:
                if self.render_mode == "human":
                    self.render()
                return self.aec.observe(self._agent), self._info()
            if options and "wall_order" in options:
                raise EnvOptionError(
                    f"with this wall_order the hand ends before seat {seat} has a decision"
                )
        raise RuntimeError(f"{MAX_REDEALS} deals in a row ended before the learner decided")

    def _play_bots(self) -> None:
        aec = self.aec
        while not aec.terminations[self._agent] and aec.agent_selection != self._agent:
            other = aec.agent_selection
            action = self._bots[other].choose(aec.seat_view(other))
            aec.step(index_of(action))

    def _info(self) -> dict[str, Any]:
        # a fresh copy each call: callers may keep or modify what they are given
        return copy.deepcopy(self.aec.infos[self._agent])

    def step(
        self, action: np.int64 | int
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        if self.aec.terminations.get(self._agent, True):
            raise RuntimeError("the episode is over: call reset() first")
        self.aec.step(action)
        self._play_bots()
        reward = float(self.aec._cumulative_rewards[self._agent])
        terminated = bool(self.aec.terminations[self._agent])
        if self.render_mode == "human":  # Gymnasium's convention: human mode draws each step
            self.render()
        return self.aec.observe(self._agent), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.int8]]:
        """The current action mask (the name sb3-contrib's MaskablePPO looks for)."""
        return self.aec.observe(self._agent)["action_mask"]

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: pass render_mode='ansi' or 'human'")
            return None
        seat = self.aec.agent_name_mapping[self._agent]
        text = render_table(self.aec.game, seat, self.aec.episode_points)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.aec.close()
