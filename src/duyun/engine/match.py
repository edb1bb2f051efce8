"""A match: a sequence of hands with dealer rotation, the streak and running totals.

R35 (next dealer), R36 (streak), R41 (coins = points × stake). The match only chains hands:
each hand is a :class:`~duyun.engine.round.Round` whose result says who deals next. Every
hand's ``start`` event names its match, its number and the match length (``"match"``), so
that a log of the whole match can be checked for a missing, repeated or reordered hand.
"""

from __future__ import annotations

import operator
import random
from dataclasses import dataclass, field
from typing import SupportsIndex

from duyun.engine.actions import as_seat
from duyun.engine.round import HandResult, MatchLink, Round, deal_setup
from duyun.rules import DUYUN, RuleSet

SEATS = 4


class MatchOverError(ValueError):
    """Asked for another hand after the last one."""


def _count(value: object, what: str) -> int:
    if type(value) is not int:
        if isinstance(value, bool) or not isinstance(value, SupportsIndex):
            raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
        value = operator.index(value)
    return value


@dataclass(slots=True)
class Match:
    """Hands played in order; ``seed`` makes every hand's wall reproducible.

    ``match_id`` names the match in every hand's ``start`` event; by default it is derived
    from the seed (same seed, same logs), or random when there is no seed.
    """

    hands: int = 8
    seed: int | None = None
    stake: int = 1
    rules: RuleSet = DUYUN
    first_dealer: int = 0
    match_id: str | None = None
    dealer: int = field(init=False)
    streak: int = field(init=False, default=0)
    totals: list[int] = field(init=False, default_factory=lambda: [0] * SEATS)
    results: list[HandResult] = field(init=False, default_factory=list)
    current: Round | None = field(init=False, default=None)
    _hand_seeds: list[int] = field(init=False, default_factory=list)
    _recorded: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.hands = _count(self.hands, "hands")
        if self.hands < 1:
            raise ValueError(f"a match needs at least one hand, not {self.hands}")
        if self.seed is not None:
            self.seed = _count(self.seed, "seed")
        self.stake = _count(self.stake, "stake")
        if self.stake < 0:
            raise ValueError(f"stake must not be negative, got {self.stake}")
        if not isinstance(self.rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, not {type(self.rules).__name__}")
        self.first_dealer = as_seat(self.first_dealer, "first dealer")
        if self.match_id is None:
            self.match_id = (
                f"seed-{self.seed}-hands-{self.hands}"
                if self.seed is not None
                else f"{random.getrandbits(64):016x}"
            )
        elif not isinstance(self.match_id, str) or not self.match_id:
            raise TypeError("match_id must be a non-empty string")
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
        index = _count(index, "hand index")
        if not 0 <= index < self.hands:
            raise ValueError(f"hand index {index} out of range 0..{self.hands - 1}")
        return self._hand_seeds[index]

    def next_hand(self) -> Round:
        """Deal the next hand with the current dealer and streak."""
        if self.is_over:
            raise MatchOverError(f"the match is over after {self.hands} hands")
        if self.current is not None and not self._recorded:
            if not self.current.is_over:
                raise ValueError("the current hand is still being played")
            raise ValueError("record() the finished hand before dealing the next one")
        assert self.match_id is not None
        index = self.hands_played
        setup = deal_setup(
            self.hand_seed(index),
            dealer=self.dealer,
            streak=self.streak,
            match=MatchLink(self.match_id, index + 1, self.hands),
        )
        self.current = Round(setup, self.rules)
        self._recorded = False
        return self.current

    def record(self, game: Round) -> HandResult:
        """Take a finished hand's result: totals, next dealer and streak (R35, R36).

        Only the hand this match dealt last, once it is over, and only once: recording it
        twice would count its payments twice.
        """
        if not isinstance(game, Round):
            raise TypeError(f"record() takes a Round, not {type(game).__name__}")
        if game is not self.current:
            raise ValueError("record() takes the hand this match dealt last (next_hand())")
        if self._recorded:
            raise ValueError("this hand is already recorded")
        if game.result is None:
            raise ValueError("the hand is not over yet: record() it once it has ended")
        result = game.result
        self.results.append(result)
        self._recorded = True
        for seat, points in enumerate(result.totals):
            self.totals[seat] += points
        self.dealer = result.next_dealer
        self.streak = result.next_streak
        return result
