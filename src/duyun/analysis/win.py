"""Winning-hand checks and readings (R10).

Every function takes the 27-count vector of the concealed tiles only: melds are always
complete sets, so a hand with k melds wins when its 14 - 3k concealed tiles are k fewer sets
and a pair. Seven pairs needs all 14 tiles concealed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from duyun.analysis._tables import EVEN, WIN_CODES

SetKind = Literal["pung", "run"]


@dataclass(frozen=True, slots=True, order=True)
class TileSet:
    """A concealed set: a pung of ``tile`` or a run starting at ``tile`` (its lowest tile)."""

    kind: SetKind
    tile: int

    @property
    def tiles(self) -> tuple[int, int, int]:
        if self.kind == "pung":
            return (self.tile, self.tile, self.tile)
        return (self.tile, self.tile + 1, self.tile + 2)


@dataclass(frozen=True, slots=True)
class Decomposition:
    """One way to read a winning concealed part.

    A standard reading has ``pair`` (the head's tile), ``sets`` (sorted) and ``pairs ==
    (pair,)``. A seven-pairs reading (七對) has ``seven_pairs=True``, ``pair=None``, no sets and
    ``pairs`` = the seven pair tiles, sorted, a kind held four times listed twice (R10). So
    ``pairs`` always lists every pair and ``pair`` is only ever the head of four sets.
    """

    pair: int | None
    sets: tuple[TileSet, ...] = ()
    seven_pairs: bool = False
    pairs: tuple[int, ...] = field(default=())


def is_win(counts: Sequence[int]) -> bool:
    """Standard form or seven pairs (R10). Three dict hits: this is the bots' hot path."""
    a = WIN_CODES.get(tuple(counts[0:9]))
    if a is None:
        return False
    b = WIN_CODES.get(tuple(counts[9:18]))
    if b is None:
        return False
    c = WIN_CODES.get(tuple(counts[18:27]))
    if c is None:
        return False
    if (a & 3) + (b & 3) + (c & 3) == 5:  # 1 + 1 + 3: every suit complete, one pair
        return True
    return bool(a & b & c & EVEN) and (a >> 3) + (b >> 3) + (c >> 3) == 14


def is_standard_win(counts: Sequence[int]) -> bool:
    """Sets (pungs or runs) and exactly one pair; any size 3k + 2 (melds stand for sets)."""
    a = WIN_CODES.get(tuple(counts[0:9]), 0)
    b = WIN_CODES.get(tuple(counts[9:18]), 0)
    c = WIN_CODES.get(tuple(counts[18:27]), 0)
    return (a & 3) + (b & 3) + (c & 3) == 5


def is_seven_pairs(counts: Sequence[int]) -> bool:
    """Fourteen concealed tiles, all in pairs; four of a kind counts as two pairs (R10)."""
    return sum(counts) == 14 and all(c % 2 == 0 for c in counts)


def _sets_readings(counts: list[int], start: int) -> list[tuple[TileSet, ...]]:
    """Every multiset of sets that uses up ``counts`` exactly (lowest tile first)."""
    tile = start
    while tile < 27 and counts[tile] == 0:
        tile += 1
    if tile == 27:
        return [()]
    found: list[tuple[TileSet, ...]] = []
    if counts[tile] >= 3:
        counts[tile] -= 3
        found.extend((TileSet("pung", tile), *rest) for rest in _sets_readings(counts, tile))
        counts[tile] += 3
    if tile % 9 <= 6 and counts[tile + 1] and counts[tile + 2]:
        for t in (tile, tile + 1, tile + 2):
            counts[t] -= 1
        found.extend((TileSet("run", tile), *rest) for rest in _sets_readings(counts, tile))
        for t in (tile, tile + 1, tile + 2):
            counts[t] += 1
    return found


def decompositions(counts: Sequence[int]) -> list[Decomposition]:
    """Every distinct reading of a winning concealed part; empty if it does not win.

    Scoring takes the best pattern over all of them (R20), so none may be missed: standard
    readings first (by pair tile), then the seven-pairs reading if there is one.
    """
    work = list(counts)
    if len(work) != 27:
        raise ValueError(f"expected 27 counts, got {len(work)}")
    found: list[Decomposition] = []
    seen: set[tuple[int, tuple[TileSet, ...]]] = set()
    if sum(work) % 3 == 2:
        for pair in range(27):
            if work[pair] < 2:
                continue
            work[pair] -= 2
            for sets in _sets_readings(work, 0):
                key = (pair, tuple(sorted(sets)))
                if key not in seen:
                    seen.add(key)
                    found.append(Decomposition(pair=pair, sets=key[1], pairs=(pair,)))
            work[pair] += 2
    if is_seven_pairs(work):
        pairs = tuple(t for t in range(27) for _ in range(work[t] // 2))
        found.append(Decomposition(pair=None, seven_pairs=True, pairs=pairs))
    return found
