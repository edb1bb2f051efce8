"""Duyun mahjong (都勻麻將): rules engine, hand analysis, scoring, bots and games.

The core (tiles, hand, rules, analysis, scoring, engine) is pure Python with no I/O and no
third-party imports; adapters (CLI, bots, simulation) are built around it.
"""

__version__ = "0.1.0"

from duyun._build import check_compiled as _check_compiled
from duyun._build import compiled_modules

_check_compiled()  # refuse to run compiled code built from other sources (see duyun._build)

__all__ = ["__version__", "compiled_modules"]
