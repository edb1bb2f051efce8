"""Aggregating self-play records into per-player statistics with honest confidence intervals.

The 95% confidence interval of a player's average points per hand is computed over *units*
(a hand, or a match; in duplicate mode the four rotated plays of the same wall), not over
single hands: hands of one match share the dealer and streak, and the four rotations of a
duplicate wall are correlated on purpose. Units are independent, so the standard error of their
means is the right one.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from duyun.sim.records import RULE_EVENTS, SEATS, HandRecord

Z_95 = 1.959963984540054


@dataclass(slots=True)
class _Running:
    """Welford's running mean and variance: flat memory over any number of units."""

    count: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, value: float) -> None:
        self.count += 1
        delta = value - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (value - self.mean)

    @property
    def stderr(self) -> float:
        if self.count < 2:
            return math.inf
        return math.sqrt(self.m2 / (self.count - 1) / self.count)


@dataclass(slots=True)
class PlayerStats:
    """One lineup position's results."""

    player: int
    bot: str
    hands: int = 0
    points: int = 0
    wins: int = 0
    self_draws: int = 0
    feeds: int = 0
    patterns: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    unit_means: _Running = field(default_factory=_Running)

    @property
    def label(self) -> str:
        return f"P{self.player + 1} {self.bot}"

    @property
    def mean_points(self) -> float:
        return self.points / self.hands if self.hands else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        half = Z_95 * self.unit_means.stderr
        return (self.unit_means.mean - half, self.unit_means.mean + half)

    def rate(self, count: int) -> float:
        return count / self.hands if self.hands else 0.0


@dataclass(slots=True)
class Summary:
    """Everything the ``simulate`` command prints, accumulated unit by unit."""

    bots: tuple[str, ...]
    players: list[PlayerStats]
    hands: int = 0
    units: int = 0
    results: Counter[str] = field(default_factory=Counter)
    rule_events: Counter[str] = field(default_factory=Counter)
    winners: Counter[int] = field(default_factory=Counter)
    """Hands by their number of winners (0-1 in the normal room, 0-3 in a 血戰 room, R53)."""
    points_by_hand: list[tuple[int, ...]] = field(default_factory=list)
    """Points of every hand, by player, in order: for the distribution and cumulative plots
    (a few ints per hand, kept only when ``keep_points`` is set)."""
    keep_points: bool = True

    @classmethod
    def empty(cls, bots: tuple[str, ...], *, keep_points: bool = True) -> Summary:
        return cls(
            bots=bots,
            players=[PlayerStats(player, name) for player, name in enumerate(bots)],
            keep_points=keep_points,
        )

    def add_unit(self, records: Iterable[HandRecord]) -> None:
        unit_points = [0] * SEATS
        unit_hands = 0
        for record in records:
            unit_hands += 1
            self.hands += 1
            self.results[record.result] += 1
            self.winners[len(record.winners)] += 1
            self.rule_events.update(record.rule_events)
            if self.keep_points:
                self.points_by_hand.append(record.points)
            for player, stats in enumerate(self.players):
                stats.hands += 1
                stats.points += record.points[player]
                unit_points[player] += record.points[player]
                stats.events.update(record.player_events[player])
                if player in record.winners:
                    stats.wins += 1
                    # per player: in a 血戰 hand (R53) each winner won in its own way
                    if record.player_events[player].get("self_draw"):
                        stats.self_draws += 1
                if player in record.feeders:
                    stats.feeds += 1
            for player, pattern in record.patterns:
                self.players[player].patterns[pattern] += 1
        if unit_hands:
            self.units += 1
            for player, stats in enumerate(self.players):
                stats.unit_means.add(unit_points[player] / unit_hands)

    def to_json(self) -> dict[str, Any]:
        """Machine-readable results (``simulate --json``)."""
        return {
            "hands": self.hands,
            "units": self.units,
            "results": dict(self.results),
            "winners_per_hand": {str(n): count for n, count in sorted(self.winners.items())},
            "mean_winners": sum(n * c for n, c in self.winners.items()) / max(1, self.hands),
            "rule_events": {key: self.rule_events.get(key, 0) for key, _ in RULE_EVENTS},
            "players": [
                {
                    "player": stats.player,
                    "bot": stats.bot,
                    "hands": stats.hands,
                    "points": stats.points,
                    "mean_points": stats.mean_points,
                    "ci95": list(stats.ci95) if stats.unit_means.count >= 2 else None,
                    "win_rate": stats.rate(stats.wins),
                    "self_draw_rate": stats.rate(stats.self_draws),
                    "feed_rate": stats.rate(stats.feeds),
                    "patterns": dict(stats.patterns),
                    "events": dict(stats.events),
                }
                for stats in self.players
            ],
        }
