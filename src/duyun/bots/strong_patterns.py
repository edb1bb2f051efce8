"""Pattern shanten for the strong bot: how far a hand is from 對對胡 and 七對 (R20).

The standard shanten (:mod:`duyun.bots.evaluation`) measures the distance to *any* win; the
strong bot also wants the distance to the patterns that pay more and that may win on a
discard without a bean (R17). Both are closed forms over a 27-count vector:

- 對對胡 (four pungs/kongs and a pair): every meld is a pung or a kong (no chow, R6), so only
  the concealed tiles matter: ``8 - 2 * sets - min(pairs, 5 - sets)``.
- 七對 (seven pairs, no melds, R10; four of a kind is two pairs): ``6 - pairs``.
"""

from __future__ import annotations

from collections.abc import Sequence

UNREACHABLE = 99


def toitoi_shanten(counts: Sequence[int], melds: int) -> int:
    """Shanten towards 對對胡 of a concealed part (3k + 1 or 3k + 2 tiles) with ``melds``
    pungs/kongs already down."""
    sets = melds
    pairs = 0
    for count in counts:
        if count >= 3:
            sets += 1
        elif count == 2:
            pairs += 1
    if sets > 4:  # pragma: no cover - a hand holds at most four sets
        sets = 4
    return 8 - 2 * sets - min(pairs, 5 - sets)


def qidui_shanten(counts: Sequence[int], melds: int) -> int:
    """Shanten towards 七對 (no melds allowed, R10)."""
    if melds:
        return UNREACHABLE
    pairs = 0
    for count in counts:
        pairs += count >> 1
    return 6 - min(7, pairs)
