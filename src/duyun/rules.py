"""The rule options of docs/rules.md as one frozen value; the defaults are Duyun rules.

Every option docs/rules.md names lives here. An option that the engine does not implement yet
raises :class:`UnsupportedRuleError` when switched on, so that no table silently plays
different rules from the ones it asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


class UnsupportedRuleError(ValueError):
    """A rule option was switched on that this version does not implement."""


class RuleOptionError(ValueError):
    """An unknown rule option or a value of the wrong type."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Rule options (docs/rules.md); defaults = Duyun mahjong."""

    pass_blocks_ron: bool = False
    """R9 過水不胡: after passing a possible win, no discard win until one's own next draw."""

    dead_waits_count: bool = True
    """R11 死叫算叫: a wait whose four copies are all visible still makes the hand ready."""

    dihu_on_discard: bool = False
    """R20 地胡 also on a win on the dealer's first discard."""

    base_points: int = 6
    """R40 points per fan (and per bean unit)."""

    escape_penalty_units: int = 16
    """R45 (a): base units the escapee pays each other player still in the hand."""

    flower_pig: bool = False
    """R32 花豬 (Sichuan family, with 定缺). Not part of Duyun rules; not implemented."""

    bloody_battle: bool = False
    """R52-R57 血戰到底: a win does not end the hand; winners leave play and the others play
    on until three have won, the wall is empty or a player still in the hand escapes."""

    def __post_init__(self) -> None:
        for option in fields(self):
            value = getattr(self, option.name)
            expected = bool if option.type in ("bool", bool) else int
            if type(value) is not expected:
                raise RuleOptionError(
                    f"rule option {option.name!r} must be {expected.__name__}, got {value!r}"
                )
        if self.base_points <= 0:
            raise RuleOptionError(f"base_points must be positive, got {self.base_points}")
        if self.escape_penalty_units < 0:
            raise RuleOptionError(
                f"escape_penalty_units must not be negative, got {self.escape_penalty_units}"
            )
        if self.flower_pig:
            raise UnsupportedRuleError(
                "flower_pig (R32 花豬) is a Sichuan rule that needs 定缺; it is not implemented"
            )

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> RuleSet:
        """Build from ``{"option": value}``, naming any unknown option."""
        known = {option.name for option in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise RuleOptionError(
                f"unknown rule option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return cls(**dict(options))

    def to_mapping(self) -> dict[str, Any]:
        # the names are read once: ``fields()`` rebuilds its tuple on every call, and every
        # table's summary (each heartbeat, each ``table`` message) carries the mapping
        return {name: getattr(self, name) for name in OPTION_NAMES}


#: the rule options' names, in their declared order (the keys of :meth:`RuleSet.to_mapping`)
OPTION_NAMES: tuple[str, ...] = tuple(option.name for option in fields(RuleSet))

DUYUN = RuleSet()
