"""Variants of 大師 for the paired tools (``paired_bots.py``, ``oracle_search.py --bots
module:Class``): each changes one thing from the search bot and nothing else, so that its
difference from ``search`` on the same walls is that thing's worth.

- :class:`LearnedHandsSearch`: the search bot's samples with each other free hand made ready
  with the learned opponent model's chance that it is (``LearnedSearchBot.LEARNED_HANDS``,
  :func:`duyun.bots.learned.learned_hands`), the strong bot's own advice (the model's
  danger and readiness switched off in the advisor, so that only the samples differ).

usage: PYTHONPATH=benchmarks python benchmarks/oracle_search.py \\
           --bots search,search_variants:LearnedHandsSearch --seed S --walls N
"""

from __future__ import annotations

from duyun.bots.learned import LearnedSearchBot
from duyun.rules import RuleSet


class LearnedHandsSearch(LearnedSearchBot):
    """The search bot whose samples' opponents are ready as often as the model says."""

    name = "search-learned-hands"
    LEARNED_HANDS = True

    def __init__(self, seed: int = 0, rules: RuleSet | None = None) -> None:
        super().__init__(seed, rules)
        self.strong.LEARNED_DANGER = False
        self.strong.LEARNED_READY = False
