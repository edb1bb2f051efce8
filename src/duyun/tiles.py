"""Tiles and the tile notation (RULES R1, R2).

A tile kind is a plain ``int`` in ``0..26``: ``suit * 9 + rank - 1`` with suits in the order
m (萬), p (筒), s (條). Ints keep the hot paths (count vectors, tables, bots) cheap; the
functions here are the single place where they meet text.

Notation (R2): ranks followed by their suit letter, suits may repeat, so ``1m1m2m`` and ``112m``
are the same tiles. :func:`format_tiles` writes the normal form: sorted, suits in m, p, s order,
each suit once.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Final

SUITS: Final = "mps"
SUIT_NAMES: Final = ("萬", "筒", "條")
NUM_KINDS: Final = 27
COPIES: Final = 4
TOTAL_TILES: Final = NUM_KINDS * COPIES  # R1: 108

Tile = int
"""A tile kind, 0..26 (see the module docstring)."""

TILE_NAMES: Final[tuple[str, ...]] = tuple(f"{r}{s}" for s in SUITS for r in range(1, 10))


class NotationError(ValueError):
    """Bad tile or hand notation; the message names the offending character or group."""


def suit_of(tile: Tile) -> int:
    """Suit index 0 (m), 1 (p) or 2 (s)."""
    return tile // 9


def rank_of(tile: Tile) -> int:
    """Rank 1..9."""
    return tile % 9 + 1


def make_tile(rank: int, suit: str) -> Tile:
    """The tile of ``rank`` (1..9) in ``suit`` ('m', 'p' or 's')."""
    if suit not in SUITS or len(suit) != 1:
        raise NotationError(f"unknown suit {suit!r}: expected one of m, p, s")
    if not 1 <= rank <= 9:
        raise NotationError(f"rank {rank} out of range 1..9")
    return SUITS.index(suit) * 9 + rank - 1


def tile_to_str(tile: Tile) -> str:
    """``13`` → ``'5p'``."""
    if not 0 <= tile < NUM_KINDS:
        raise ValueError(f"tile {tile} out of range 0..26")
    return TILE_NAMES[tile]


def tile_from_str(text: str) -> Tile:
    """``'5p'`` → ``13``; exactly one tile, strict."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise NotationError(f"expected exactly one tile, got {len(tiles)} in {text!r}")
    return tiles[0]


def parse_tiles(text: str) -> list[Tile]:
    """Parse concealed-tile notation (no melds, no spaces) into tiles, in written order.

    Errors name the character and its position, because a user fixing a typo in a long hand
    string needs to know where it is.
    """
    if not isinstance(text, str):
        raise TypeError(f"tile notation is a string such as '5p', not {type(text).__name__}")
    tiles: list[Tile] = []
    pending: list[tuple[int, int]] = []  # (rank, position)
    for position, char in enumerate(text):
        if char.isdigit() and char.isascii():
            rank = int(char)
            if rank == 0:
                raise NotationError(f"rank 0 at position {position} in {text!r}: ranks are 1-9")
            pending.append((rank, position))
        elif char in SUITS:
            if not pending:
                raise NotationError(
                    f"suit letter {char!r} at position {position} in {text!r} "
                    "has no ranks before it"
                )
            base = SUITS.index(char) * 9
            tiles.extend(base + rank - 1 for rank, _ in pending)
            pending.clear()
        else:
            raise NotationError(
                f"unexpected character {char!r} at position {position} in {text!r}: "
                "expected ranks 1-9 followed by a suit letter m, p or s"
            )
    if pending:
        raise NotationError(
            f"ranks at position {pending[0][1]} in {text!r} have no suit letter after them"
        )
    return tiles


_RANK_CHARS: Final[tuple[str, ...]] = tuple(str(tile % 9 + 1) for tile in range(NUM_KINDS))


def format_tiles(tiles: Iterable[Tile]) -> str:
    """Normal notation: sorted, each suit written once in m, p, s order (``'11m234p'``)."""
    if not isinstance(tiles, list | tuple):
        tiles = list(tiles)  # read once: the checked loop below may need it again
    ordered = sorted(tiles)
    if not ordered:
        return ""
    if ordered[0] >= 0 and ordered[-1] < NUM_KINDS:
        # the usual case (every event names hands): the sorted tiles split at the suit bounds
        # (C-level joins instead of a loop per tile; the same text as the loop below)
        ranks = "".join(map(_RANK_CHARS.__getitem__, ordered))
        first = bisect_left(ordered, 9)
        second = bisect_left(ordered, 18, first)
        return (
            (ranks[:first] + "m" if first else "")
            + (ranks[first:second] + "p" if second > first else "")
            + (ranks[second:] + "s" if len(ranks) > second else "")
        )
    return _format_checked(tiles)  # names the first bad tile in the given order


def _format_checked(tiles: Iterable[Tile]) -> str:
    """format_tiles's reference loop, which names a tile out of range."""
    by_suit: list[list[int]] = [[], [], []]
    for tile in tiles:
        if not 0 <= tile < NUM_KINDS:
            raise ValueError(f"tile {tile} out of range 0..26")
        by_suit[tile // 9].append(tile % 9 + 1)
    parts = []
    for suit, ranks in zip(SUITS, by_suit, strict=True):
        if ranks:
            parts.append("".join(str(r) for r in sorted(ranks)) + suit)
    return "".join(parts)


def format_counts(counts: Sequence[int]) -> str:
    """Normal notation of a 27-entry count vector."""
    return format_tiles(t for t in range(NUM_KINDS) for _ in range(counts[t]))


def to_counts(tiles: Iterable[Tile]) -> list[int]:
    """Count vector (27 ints) of some tiles."""
    counts = [0] * NUM_KINDS
    for tile in tiles:
        counts[tile] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[Tile]:
    """Sorted tiles of a count vector."""
    return [t for t in range(NUM_KINDS) for _ in range(counts[t])]


def full_set() -> list[Tile]:
    """All 108 tiles (R1), sorted."""
    return [t for t in range(NUM_KINDS) for _ in range(COPIES)]
