"""Shanten (向聽), useful tiles and discard ranking.

Shanten is the number of tile exchanges a hand is away from ready: 0 ready, -1 complete. The
standard form is computed from per-suit block summaries (see ``_tables``) combined through two
memo tables, so a hand costs three suit lookups and two combination lookups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from duyun.analysis._tables import FINAL_SHANTEN, PAIR_SUMMARY, SUIT_SUMMARY

MAX_TILES = 14


def _check_size(size: int) -> None:
    if size % 3 == 0 or not 0 < size <= MAX_TILES:
        raise ValueError(f"shanten needs 3k + 1 or 3k + 2 concealed tiles (at most 14), got {size}")


def shanten_standard(counts: Sequence[int]) -> int:
    """Four sets and a pair, melds standing for sets: 8 concealed tiles need 2 sets + a pair.

    Equal to the ``mahjong`` package's regular-hand shanten on three-suit hands (the benchmark
    checks this on every hand it times).
    """
    size = sum(counts)
    _check_size(size)
    ab = PAIR_SUMMARY[SUIT_SUMMARY[tuple(counts[0:9])], SUIT_SUMMARY[tuple(counts[9:18])]]
    return FINAL_SHANTEN[ab, SUIT_SUMMARY[tuple(counts[18:27])], (MAX_TILES - size) // 3]


def shanten_seven_pairs(counts: Sequence[int]) -> int:
    """Six minus the pairs held (four of a kind = two pairs, R10); only for 13 or 14 tiles."""
    size = sum(counts)
    if size not in (13, 14):
        raise ValueError(f"seven pairs needs 13 or 14 concealed tiles, got {size}")
    return 6 - min(7, sum(c // 2 for c in counts))


def shanten(counts: Sequence[int]) -> int:
    """The lower of standard and seven-pairs shanten (seven pairs only at 13 or 14 tiles)."""
    value = shanten_standard(counts)
    # A 七對 with four alike (龍七對, 青龍七對, R10) may be complete (-1) while its standard
    # reading is only ready (0): seven pairs is compared unless the hand is already complete.
    if sum(counts) >= 13 and value >= 0:
        value = min(value, 6 - min(7, sum(c // 2 for c in counts)))
    return value


def _visible(counts: Sequence[int], visible: Sequence[int] | None) -> Sequence[int]:
    return counts if visible is None else visible


def _useful(work: list[int], visible: Sequence[int]) -> tuple[int, dict[int, int]]:
    """Shanten of a 3k + 1 hand and its useful tiles; ``work`` is restored before returning."""
    base = shanten(work)
    found: dict[int, int] = {}
    for tile in range(27):
        if work[tile] >= 4:
            continue
        work[tile] += 1
        if shanten(work) < base:
            found[tile] = max(0, 4 - visible[tile])
        work[tile] -= 1
    return base, found


def useful_tiles(counts: Sequence[int], visible: Sequence[int] | None = None) -> dict[int, int]:
    """Tiles whose draw lowers the shanten of a 3k + 1 hand -> copies still unseen.

    Unseen = 4 - visible[t]; ``visible`` defaults to the hand itself (pass own melds and every
    discard for a table's view). Tiles with 0 unseen stay in the dict with 0, so callers can
    tell "useful but dead" from "not useful"; filter them out if only live tiles matter.
    """
    size = sum(counts)
    if size % 3 != 1:
        raise ValueError(f"useful tiles need a 3k + 1 tile hand, got {size} tiles")
    return _useful(list(counts), _visible(counts, visible))[1]


@dataclass(frozen=True, slots=True)
class DiscardOption:
    """What discarding ``discard`` leaves: shanten, useful tiles (sorted) and their live count."""

    discard: int
    shanten: int
    useful: tuple[int, ...]
    useful_count: int


def rank_discards(
    counts: Sequence[int], visible: Sequence[int] | None = None
) -> list[DiscardOption]:
    """Every distinct discard of a 3k + 2 hand, best first.

    Best = lowest shanten, then most live useful tiles, then lowest tile: a deterministic order,
    so bots built on it replay identically.
    """
    size = sum(counts)
    if size % 3 != 2:
        raise ValueError(f"discards need a 3k + 2 tile hand, got {size} tiles")
    seen = _visible(counts, visible)
    work = list(counts)
    options: list[DiscardOption] = []
    for tile in range(27):
        if work[tile] == 0:
            continue
        work[tile] -= 1
        value, useful = _useful(work, seen)
        work[tile] += 1
        options.append(DiscardOption(tile, value, tuple(sorted(useful)), sum(useful.values())))
    options.sort(key=lambda o: (o.shanten, -o.useful_count, o.discard))
    return options
