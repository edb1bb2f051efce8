"""Shortcuts over suit shapes for the round's hot path: cheap tests that spare the full
searches of :mod:`duyun.analysis`, and the notation of a count vector.

Each gives exactly what the code it stands in for gives (tests/engine/test_engine_fast_paths.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import mul

from duyun.analysis._tables import WIN_CODES
from duyun.analysis.waits import waits
from duyun.hand import Meld
from duyun.tiles import Tile


def may_be_ready_after_discard(counts: Sequence[int]) -> bool:
    """A necessary condition, three dict lookups, for a discard to leave ``counts`` ready.

    If discarding ``d`` and then drawing ``w`` completes the hand, ``d`` and ``w`` touch at
    most two suits, so the third suit is complete as it is: sets with at most one pair, or all
    pairs (seven pairs, R10) -- the suit shapes of the win-code table. A hand none of whose
    suits is such a shape is never ready after a discard; most first hands are not, and this
    spares them the shanten search (whose tables miss often on fresh 14-tile shapes). The
    result of the 報聽 test is unchanged: it only skips hands the full test would refuse.
    """
    return (
        tuple(counts[0:9]) in WIN_CODES
        or tuple(counts[9:18]) in WIN_CODES
        or tuple(counts[18:27]) in WIN_CODES
    )


def quick_waits(counts: Sequence[int], held: Sequence[int]) -> list[Tile]:
    """:func:`duyun.analysis.waits`, answering [] at once for hands that cannot be ready.

    A wait completes the hand by adding one tile to one suit, so the other two suits are
    complete as they are (sets with at most one pair, or all pairs for seven pairs, R10): a
    3k+1 hand with fewer than two such suits has no wait. Most hands at an exhaustive draw
    (查大叫, R30) are like that, and their suit shapes often miss the lazily filled wait
    tables; this spares them. Other hands (and bad sizes, which waits() reports) go on to
    waits() itself, so the result is the same.
    """
    complete = (
        (tuple(counts[0:9]) in WIN_CODES)
        + (tuple(counts[9:18]) in WIN_CODES)
        + (tuple(counts[18:27]) in WIN_CODES)
    )
    if complete < 2 and sum(counts) % 3 == 1:
        return []
    return waits(counts, held)


def concealed_text(counts: Sequence[int]) -> str:
    """The notation of a count vector, as ``format_counts`` writes it (``'11m234p'``): each
    suit's ranks repeated by their counts (C-level ``str * int``), then its letter."""
    m = "".join(map(mul, _RANKS, counts[0:9]))
    p = "".join(map(mul, _RANKS, counts[9:18]))
    s = "".join(map(mul, _RANKS, counts[18:27]))
    return (m + "m" if m else "") + (p + "p" if p else "") + (s + "s" if s else "")


_RANKS = "123456789"


def hand_text(counts: Sequence[int], melds: Sequence[Meld]) -> str:
    """``str(Hand)`` of a count vector and melds, without building the Hand (events name
    hands): the concealed tiles, then the melds in the order made (R2)."""
    concealed = concealed_text(counts)
    if not melds:
        return concealed
    parts = [concealed] if concealed else []
    parts.extend(map(str, melds))
    return " ".join(parts)
