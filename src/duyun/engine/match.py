"""A match: a sequence of hands with dealer rotation, the streak and running totals.

R35 (next dealer), R36 (streak), R41 (coins = points × stake). The match only chains hands:
each hand is a :class:`~duyun.engine.round.Round` whose result says who deals next.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from duyun.engine.round import HandResult, Round, deal_setup
from duyun.rules import DUYUN, RuleSet

SEATS = 4


class MatchOverError(ValueError):
    """Asked for another hand after the last one."""


@dataclass(slots=True)
class Match:
    """Hands played in order; ``seed`` makes every hand's wall reproducible."""

    hands: int = 8
    seed: int | None = None
    stake: int = 1
    rules: RuleSet = DUYUN
    first_dealer: int = 0
    dealer: int = field(init=False)
    streak: int = field(init=False, default=0)
    totals: list[int] = field(init=False, default_factory=lambda: [0] * SEATS)
    results: list[HandResult] = field(init=False, default_factory=list)
    current: Round | None = field(init=False, default=None)
    _hand_seeds: list[int] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        if self.hands < 1:
            raise ValueError(f"a match needs at least one hand, not {self.hands}")
        if self.stake < 0:
            raise ValueError(f"stake must not be negative, got {self.stake}")
        if not 0 <= self.first_dealer < SEATS:
            raise ValueError(f"first dealer {self.first_dealer} out of range 0..3")
        self.dealer = self.first_dealer  # R3
        rng = random.Random(self.seed)
        self._hand_seeds = [rng.getrandbits(63) for _ in range(self.hands)]

    @property
    def hands_played(self) -> int:
        return len(self.results)

    @property
    def is_over(self) -> bool:
        return self.hands_played >= self.hands

    @property
    def coins(self) -> list[int]:
        """R41: coins = points × stake."""
        return [points * self.stake for points in self.totals]

    def hand_seed(self, index: int) -> int:
        return self._hand_seeds[index]

    def next_hand(self) -> Round:
        """Deal the next hand with the current dealer and streak."""
        if self.is_over:
            raise MatchOverError(f"the match is over after {self.hands} hands")
        if self.current is not None and not self.current.is_over:
            raise ValueError("the current hand is still being played")
        setup = deal_setup(
            self.hand_seed(self.hands_played), dealer=self.dealer, streak=self.streak
        )
        self.current = Round(setup, self.rules)
        return self.current

    def record(self, game: Round) -> HandResult:
        """Take a finished hand's result: totals, next dealer and streak (R35, R36)."""
        if game is not self.current or game.result is None:
            raise ValueError("record() takes the current hand once it is over")
        result = game.result
        self.results.append(result)
        for seat, points in enumerate(result.totals):
            self.totals[seat] += points
        self.dealer = result.next_dealer
        self.streak = result.next_streak
        return result
