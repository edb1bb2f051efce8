"""Hand analysis: win checks, readings, waits, shanten, useful tiles, discard ranking.

Stateless functions over the 27-count vector of a hand's concealed tiles, table-driven because
bots, claim checks and 查叫 call them constantly. No I/O, no third-party imports.
"""

from duyun.analysis.shanten import (
    DiscardOption,
    rank_discards,
    shanten,
    shanten_seven_pairs,
    shanten_standard,
    useful_tiles,
)
from duyun.analysis.waits import waits
from duyun.analysis.win import (
    Decomposition,
    TileSet,
    decompositions,
    is_seven_pairs,
    is_standard_win,
    is_win,
)

__all__ = [
    "Decomposition",
    "DiscardOption",
    "TileSet",
    "decompositions",
    "is_seven_pairs",
    "is_standard_win",
    "is_win",
    "rank_discards",
    "shanten",
    "shanten_seven_pairs",
    "shanten_standard",
    "useful_tiles",
    "waits",
]
