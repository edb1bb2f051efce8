"""Duyun mahjong (都勻麻將): rules engine, hand analysis, scoring, bots and games.

The core (tiles, hand, rules, analysis, scoring, engine) is pure Python with no I/O and no
third-party imports; adapters (CLI, bots, simulation) are built around it.
"""

__version__ = "0.1.0"
