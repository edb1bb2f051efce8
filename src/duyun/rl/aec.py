"""The PettingZoo AEC environment ``duyun_v0``: Duyun mahjong for four learning agents.

One episode is one hand (or, with ``hands=N``, N hands chained as a match: the dealer and
streak pass on by R35/R36). Agents are ``player_0``..``player_3`` for seats 0..3. The agent
selected is always a seat the engine asks for a decision: the seat whose turn it is, or --
while a discard or an added kong's tile awaits claims -- each seat that may claim it, one after
another; the engine resolves the claims once all have answered (R6, R16, R18). Forced moves
(R19 last four, R26 報聽 discards and wins) are played by the engine and never asked.

Observations hold exactly what :meth:`duyun.engine.Round.view` shows the seat (the layout is
:mod:`duyun.rl.observation`); they are kept up to date step by step from the hand's public
events and the seat's own tiles (:mod:`duyun.rl.incremental`) and always equal the view's
encoding. The action space is :mod:`duyun.rl.actions`. Rewards are the
points each seat wins or loses (R40), times ``reward_scale``: zero-sum over the four agents.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from duyun.engine import (
    Action,
    HandResult,
    IllegalActionError,
    Phase,
    Round,
    SeatView,
    new_round,
    replay,
)
from duyun.rl.actions import (
    _ENGINE_ACTIONS,
    NUM_ACTIONS,
    PASS,
    action_mask,
    check_index,
    decode_action,
    engine_action,
    index_of,
)
from duyun.rl.incremental import TableEncoder
from duyun.rl.observation import HIGH, LOW, OBS_SIZE, encode_view
from duyun.rl.render import render_table
from duyun.rules import DUYUN, RuleSet
from duyun.tiles import TOTAL_TILES, NotationError, parse_tiles

SEATS: Final = 4
AGENTS: Final[tuple[str, ...]] = tuple(f"player_{seat}" for seat in range(SEATS))
REWARD_TIMINGS: Final = ("end", "payments")
ILLEGAL_ACTION_MODES: Final = ("raise", "penalize")
RESET_OPTIONS: Final = ("dealer", "streak", "wall_order")
_TURN: Final = Phase.TURN
_INTP: Final = np.dtype(np.intp).type  # the index type of np.flatnonzero
#: the ``act`` events after which other seats may be asked to claim the tile
_WINDOW_OPENERS: Final = frozenset({"discard", "baoting", "added_kong"})
_ENDED: Final = Phase.ENDED

Observation = dict[str, npt.NDArray[Any]]


class EnvOptionError(ValueError):
    """A bad environment option; the message names it and what it accepts."""


class IllegalEnvActionError(IllegalActionError):
    """An action index that the selected agent may not take now (masked out)."""


def _rules_from(rules: RuleSet | Mapping[str, Any] | None) -> RuleSet:
    if rules is None:
        return DUYUN
    if isinstance(rules, RuleSet):
        return rules
    if isinstance(rules, Mapping):
        return RuleSet.from_mapping(rules)
    raise EnvOptionError(f"rules must be a RuleSet or a mapping of options, not {rules!r}")


def _seat_option(name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise EnvOptionError(f"{name} must be a seat 0..3 or None, not {value!r}")
    if not 0 <= int(value) < SEATS:
        raise EnvOptionError(f"{name} must be a seat 0..3, not {value}")
    return int(value)


def _wall_option(value: object) -> list[int] | None:
    """``wall_order``: 108 tiles, as ints 0..26 or notation (``"123m..."``)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            tiles = parse_tiles(value)
        except NotationError as error:
            raise EnvOptionError(f"wall_order: {error}") from None
    elif isinstance(value, Sequence | np.ndarray):
        tiles = []
        for tile in value:
            if isinstance(tile, bool) or not isinstance(tile, int | np.integer):
                raise EnvOptionError(f"wall_order holds tile kinds 0..26, not {tile!r}")
            tiles.append(int(tile))
    else:
        raise EnvOptionError(f"wall_order must be 108 tiles (ints or notation), not {value!r}")
    if len(tiles) != TOTAL_TILES:
        raise EnvOptionError(f"wall_order must hold 108 tiles, not {len(tiles)}")
    return tiles


class DuyunEnv(AECEnv):  # type: ignore[misc]
    """Duyun mahjong as a PettingZoo AEC environment (build it with :func:`duyun.rl.env`).

    Options (all keyword-only):

    * ``rules``: a :class:`~duyun.rules.RuleSet` or a mapping of its options (default Duyun).
    * ``reward_scale``: rewards are points × this (default 1.0: raw points, R40).
    * ``reward_timing``: ``"end"`` (default) pays each agent its hand total when the hand ends;
      ``"payments"`` pays each payment as it happens (kong beans at once, R12). Both sum to
      the same total per hand.
    * ``hands``: hands per episode (default 1); more make a match with R35/R36 dealer passing.
    * ``dealer``: the first dealer, or None (default) for one drawn from the seed.
    * ``illegal_action``: ``"raise"`` (default) raises :class:`IllegalEnvActionError` on a
      masked-out action; ``"penalize"`` plays the fallback action (pass when it is legal, else
      the lowest legal index) and charges the agent ``illegal_penalty`` (scaled reward units).
    * ``render_mode``: ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints it).
    * ``copy_observations``: True (default) returns a fresh observation vector from every
      ``observe``; False returns a read-only view of the seat's vector that the next ``step``
      overwrites (a little faster, for loops that use each observation before stepping and
      never keep it).

    ``reset(seed=..., options={"dealer": 2, "streak": 1, "wall_order": [...]})`` deals a given
    position (the wall order as in :func:`duyun.engine.new_round`); those options apply to the
    first hand of that episode only.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "duyun_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        *,
        rules: RuleSet | Mapping[str, Any] | None = None,
        reward_scale: float = 1.0,
        reward_timing: str = "end",
        hands: int = 1,
        dealer: int | None = None,
        illegal_action: str = "raise",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
        copy_observations: bool = True,
    ) -> None:
        super().__init__()
        self.rules = _rules_from(rules)
        if isinstance(reward_scale, bool) or not isinstance(reward_scale, int | float):
            raise EnvOptionError(f"reward_scale must be a number, not {reward_scale!r}")
        if not np.isfinite(reward_scale) or reward_scale <= 0:
            raise EnvOptionError(f"reward_scale must be a positive number, not {reward_scale}")
        if reward_timing not in REWARD_TIMINGS:
            raise EnvOptionError(
                f"reward_timing must be one of {', '.join(REWARD_TIMINGS)}, not {reward_timing!r}"
            )
        if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
            raise EnvOptionError(f"hands must be a positive int, not {hands!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise EnvOptionError(
                f"illegal_action must be one of {', '.join(ILLEGAL_ACTION_MODES)}, "
                f"not {illegal_action!r}"
            )
        if isinstance(illegal_penalty, bool) or not isinstance(illegal_penalty, int | float):
            raise EnvOptionError(f"illegal_penalty must be a number, not {illegal_penalty!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvOptionError(
                f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}"
            )
        self.reward_scale = float(reward_scale)
        self.reward_timing = reward_timing
        self.hands = hands
        self.first_dealer = _seat_option("dealer", dealer)
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        if not isinstance(copy_observations, bool):
            raise EnvOptionError(
                f"copy_observations must be True or False, not {copy_observations!r}"
            )
        self.copy_observations = copy_observations

        self.possible_agents = list(AGENTS)
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(AGENTS)}
        space = spaces.Dict(
            {
                "observation": spaces.Box(LOW, HIGH, shape=(OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {agent: space for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in AGENTS}

        self._rng = random.Random()
        self._game: Round | None = None
        self._encoder: TableEncoder | None = None  # the current hand's observation vectors
        self._rewards_zero = True  # self.rewards holds only zeros (no reset needed)
        self._match_points = [0] * SEATS
        self._hand_paid = [0] * SEATS  # points already paid out as rewards this hand
        self._hands_left = 0
        self.results: list[HandResult] = []

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode: deal the first hand (seeded by ``seed`` when given).

        Without a seed the episode continues the random sequence of the previous one, so
        consecutive resets deal different hands and a seeded run stays reproducible.
        """
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
                raise EnvOptionError(f"seed must be an integer or None, not {seed!r}")
            self._rng = random.Random(int(seed))  # numpy integers too, as plain ints
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            # PettingZoo's api_test passes an arbitrary option; a warning keeps that working
            # while still telling a user about a typo
            warnings.warn(
                f"duyun_v0 ignores unknown reset option(s) {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(RESET_OPTIONS)}",
                stacklevel=2,
            )
        dealer = _seat_option("dealer", options.get("dealer", self.first_dealer))
        streak = options.get("streak", 0)
        if isinstance(streak, bool) or not isinstance(streak, int | np.integer) or streak < 0:
            raise EnvOptionError(f"streak must be a non-negative int, not {streak!r}")
        wall = _wall_option(options.get("wall_order"))

        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._rewards_zero = True
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self._match_points = [0] * SEATS
        self._hands_left = self.hands - 1
        self.results = []
        if dealer is None:
            dealer = self._rng.randrange(SEATS)
        self._deal(dealer, int(streak), wall)

    def _deal(self, dealer: int, streak: int, wall: list[int] | None = None) -> None:
        wall_seed = self._rng.getrandbits(63)
        self._game = new_round(
            None if wall is not None else wall_seed,
            rules=self.rules,
            dealer=dealer,
            streak=streak,
            wall_order=wall,
        )
        self._hand_paid = [0] * SEATS
        self._encoder = TableEncoder(self._game)
        # a fresh deal always asks the dealer first (R4): no hand ends before a decision
        self.agent_selection = AGENTS[self._game.to_act[0]]

    @property
    def game(self) -> Round:
        """The current hand. Observations read only its public state and event log and the
        observing seat's own tiles (:mod:`duyun.rl.incremental`), never another seat's."""
        if self._game is None:
            raise RuntimeError("call reset() before using the environment")
        return self._game

    @property
    def episode_points(self) -> tuple[int, ...]:
        """Net points of the episode's finished hands, by seat (public at the table)."""
        return tuple(self._match_points)

    def seat_view(self, agent: str) -> SeatView:
        """What ``agent``'s seat may know now (the engine's view; bots play from it).

        While a claim window is open, a seat that is not asked sees the table as it was before
        the tile that opened the window (see :meth:`_before_window`)."""
        seat = self.agent_name_mapping[agent]
        before = self._before_window(seat)
        return (before if before is not None else self.game).view(seat)

    def _before_window(self, seat: int) -> Round | None:
        """The hand just before the discard (or added kong) whose claim window is open, when
        ``seat`` is not asked in it; else None.

        Whether anybody may claim a tile depends on the other seats' concealed tiles; a tile
        nobody can claim opens no window and play goes straight on. A seat that is not asked
        must therefore not see that a window is open: not the claims phase, not the tile under
        claim -- not even the discard itself without the next draw, a moment that exists only
        when somebody may claim. Until the window closes it sees the hand as it was before the
        tile was played, as it would have at that moment either way (its action mask included).
        The selected agent is always asked, so the training loop never takes this path.
        """
        game = self._game
        if game is None or game.claims is None or seat in game.to_act:
            return None
        events = game.events
        for cut in range(len(events) - 1, -1, -1):
            event = events[cut]
            if event["type"] == "act" and event.get("action") in _WINDOW_OPENERS:
                return replay(events[:cut], verify=False)
        raise AssertionError("a claim window is open but no discard or added kong opened it")

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation vector and action mask (fresh arrays on every call).

        The vector comes from the hand's :class:`~duyun.rl.incremental.TableEncoder`, which
        keeps each seat's vector up to date from the public events and rewrites only the
        small, changing blocks (and the seat's own tiles) here; it equals
        ``encode_view(self.seat_view(agent), ...)`` at every step, at a fraction of the cost.
        """
        seat = self.agent_name_mapping[agent]
        game = self._game
        if game is None:
            game = self.game  # raises: reset() first
        before = None if game.claims is None else self._before_window(seat)
        if before is not None:
            return {
                "observation": encode_view(before.view(seat), self._match_points, self._hands_left),
                "action_mask": action_mask(before.legal_actions(seat)),
            }
        encoder = self._encoder
        if encoder is None or encoder.game is not game:
            encoder = self._encoder = TableEncoder(game)
        return {
            "observation": encoder.observation(
                seat, self._match_points, self._hands_left, copy=self.copy_observations
            ),
            "action_mask": action_mask(game.legal_actions(seat)),
        }

    def last(
        self, observe: bool = True
    ) -> tuple[Observation | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``: the selected agent's observation, cumulative reward,
        termination, truncation and info (the same values, one attribute lookup each)."""
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def legal_indices(self, agent: str) -> list[int]:
        """The action indices ``agent`` may take now, ascending (empty when not asked)."""
        return sorted(
            index_of(action) for action in self.game.legal_actions(self.agent_name_mapping[agent])
        )

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game
        if game is None:
            game = self.game  # raises: reset() first
        seat = self.agent_name_mapping[agent]
        # the hot path is a plain int in range; anything else is checked and converted
        kind = type(action)
        if kind is int and 0 <= action < NUM_ACTIONS:
            index = action
        elif kind is _INTP and 0 <= action < NUM_ACTIONS:
            index = int(action)  # what np.flatnonzero hands out: a plain int for the engine
        else:
            index = check_index(action)
        legal = game.legal_actions(seat)
        # hand the engine its own action object: it recognises it by identity at once
        chosen: Action | None = _ENGINE_ACTIONS[seat][index]  # engine_action, inlined
        penalty = 0.0
        for offered in legal.actions:  # by identity: an equality test would cost more
            if offered is chosen:
                break
        else:
            # an engine that built its actions afresh would still be understood, by equality
            chosen = next((offered for offered in legal if offered == chosen), None)
        if chosen is None:
            if self.illegal_action == "raise":
                allowed = ", ".join(f"{i} ({decode_action(i)})" for i in self.legal_indices(agent))
                raise IllegalEnvActionError(
                    f"{agent} (seat {seat}) may not take action {index} "
                    f"({decode_action(index)}) now; legal: {allowed}"
                )
            fallback = min(index_of(a) for a in legal)
            if any(index_of(a) == PASS for a in legal):
                fallback = PASS
            chosen = engine_action(fallback, seat)
            penalty = self.illegal_penalty
        self._cumulative_rewards[agent] = 0.0
        if penalty:
            self.infos[agent] = {"illegal_action": True}
        elif self.infos[agent]:
            self.infos[agent] = {}
        # the log's own events, uncopied: they are only read here (and by the encoder, which
        # follows the log itself). A chosen action found in ``legal`` above is one of its own
        # objects, so the engine need not check it again; a penalised fallback is checked.
        events = game.apply_logged(chosen) if penalty else game.apply_unchecked(chosen)
        rewards: dict[str, float] | None = None  # None: nobody is rewarded on this step
        if self.reward_timing == "payments":
            for event in events:
                if event["type"] == "payment":
                    if rewards is None:
                        rewards = dict.fromkeys(AGENTS, 0.0)
                    points = int(event["points"])
                    rewards[AGENTS[event["payer"]]] -= points * self.reward_scale
                    rewards[AGENTS[event["payee"]]] += points * self.reward_scale
                    self._hand_paid[event["payer"]] -= points
                    self._hand_paid[event["payee"]] += points
        if penalty:
            if rewards is None:
                rewards = dict.fromkeys(AGENTS, 0.0)
            rewards[agent] -= penalty
        phase = game.phase
        if phase is _TURN:
            self.agent_selection = AGENTS[game.current]
        elif phase is _ENDED:
            if rewards is None:
                rewards = dict.fromkeys(AGENTS, 0.0)
            self._end_hand(rewards)
        else:
            self.agent_selection = AGENTS[game.to_act[0]]
        if rewards is not None:
            self.rewards = rewards
            self._rewards_zero = False
            self._accumulate_rewards()
        elif not self._rewards_zero:
            # most steps pay nothing: the zero rewards (and the unchanged cumulative rewards)
            # are left as they are instead of being rebuilt and added up on every step
            self.rewards = dict.fromkeys(AGENTS, 0.0)
            self._rewards_zero = True
        if self.render_mode == "human":
            self.render()

    def _end_hand(self, rewards: dict[str, float]) -> None:
        game = self.game
        result = game.result
        assert result is not None
        self.results.append(result)
        for seat, total in enumerate(result.totals):
            # whatever the "payments" timing has not paid yet (all of it for "end")
            rewards[AGENTS[seat]] += (total - self._hand_paid[seat]) * self.reward_scale
        for seat, total in enumerate(result.totals):
            self._match_points[seat] += total
        hand_info = {
            "result": result.result,
            "winners": result.winners,
            "hand_points": result.totals,
            "episode_points": tuple(self._match_points),
        }
        if self._hands_left > 0:
            self._hands_left -= 1
            for agent in AGENTS:
                self.infos[agent] = {**self.infos[agent], "last_hand": hand_info}
            self._deal(result.next_dealer, result.next_streak)
            return
        for agent in AGENTS:
            self.terminations[agent] = True
            self.infos[agent] = {**self.infos[agent], **hand_info}

    # ------------------------------------------------------------------ output

    def render(self) -> str | None:
        if self.render_mode is None:
            warnings.warn(
                "render() without a render_mode: build the env with render_mode='ansi' or 'human'",
                stacklevel=2,
            )
            return None
        text = render_table(
            self.game,
            self.agent_name_mapping.get(self.agent_selection, 0),
            self._match_points,
        )
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self._game = None


class OrderEnforcingEnv(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order-enforcing wrapper around :class:`DuyunEnv`, with ``last`` and
    ``step`` reaching the environment directly.

    The base wrapper reads every attribute of ``last`` (the agent, its reward, termination,
    truncation and info) through its ``__getattr__``, which checks each name against the
    attributes forbidden before ``reset()``: several microseconds a step. These two methods
    make the same checks once and then call the environment's own. Everything else is
    PettingZoo's wrapper unchanged.
    """

    def last(
        self, observe: bool = True
    ) -> tuple[Observation | None, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:  # as the base: its first read is agent_selection
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)  # type: ignore[no-any-return]

    def step(self, action: Any) -> None:
        env = self.env
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            env.step(action)
