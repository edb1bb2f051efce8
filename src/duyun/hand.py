"""Melds and hands as immutable values, with the hand notation of RULES R2.

``Hand.parse("11m234p678s [555p] (9999s)")`` reads concealed tiles followed by melds:
``[555p]`` pong (碰), ``[5555p]`` direct kong (直槓), ``[5555p+]`` added kong (面下槓),
``(5555p)`` concealed kong (暗槓). ``str(hand)`` writes the normal form, so
``str(Hand.parse(s))`` is the canonical spelling of ``s``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from duyun.tiles import (
    COPIES,
    NUM_KINDS,
    NotationError,
    Tile,
    format_tiles,
    parse_tiles,
    tile_to_str,
    to_counts,
)


class MeldKind(enum.Enum):
    """The four kinds of exposed or declared meld (R6, R7, R12)."""

    PONG = "pong"  # 碰
    DIRECT_KONG = "direct_kong"  # 直槓 (銀豆)
    ADDED_KONG = "added_kong"  # 面下槓 / 四季豆 (銀豆)
    CONCEALED_KONG = "concealed_kong"  # 暗槓 (金豆)

    @property
    def is_kong(self) -> bool:
        return self is not MeldKind.PONG

    @property
    def size(self) -> int:
        return 3 if self is MeldKind.PONG else 4


@dataclass(frozen=True, slots=True)
class Meld:
    """A pong or kong of one tile kind. ``str()`` is its notation (R2)."""

    kind: MeldKind
    tile: Tile

    def __post_init__(self) -> None:
        if not 0 <= self.tile < NUM_KINDS:
            raise ValueError(f"tile {self.tile} out of range 0..26")

    @property
    def is_kong(self) -> bool:
        return self.kind.is_kong

    @property
    def tiles(self) -> tuple[Tile, ...]:
        return (self.tile,) * self.kind.size

    def __str__(self) -> str:
        body = tile_to_str(self.tile)
        ranks = body[0] * self.kind.size + body[1]
        if self.kind is MeldKind.CONCEALED_KONG:
            return f"({ranks})"
        if self.kind is MeldKind.ADDED_KONG:
            return f"[{ranks}+]"
        return f"[{ranks}]"

    def __repr__(self) -> str:
        return f"Meld.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Meld:
        """Parse one meld group such as ``[555p]``, ``[5555p+]`` or ``(5555p)``."""
        if not isinstance(text, str):
            raise TypeError(
                f"meld notation is a string such as '[555p]', not {type(text).__name__}"
            )
        if len(text) < 2:
            raise NotationError(f"meld {text!r} is too short")
        opener, closer = text[0], text[-1]
        if opener == "(" and closer == ")":
            inner, kind_hint = text[1:-1], "concealed"
        elif opener == "[" and closer == "]":
            inner, kind_hint = text[1:-1], "open"
        else:
            raise NotationError(
                f"meld {text!r} must be [..] (pong, direct or added kong) or (....) "
                "(concealed kong)"
            )
        added = inner.endswith("+")
        if added:
            if kind_hint != "open":
                raise NotationError(f"meld {text!r}: '+' (added kong) is only allowed in [..]")
            inner = inner[:-1]
        try:
            tiles = parse_tiles(inner)
        except NotationError as error:
            raise NotationError(f"meld {text!r}: {error}") from None
        if not tiles or len(set(tiles)) != 1:
            raise NotationError(f"meld {text!r} must hold 3 or 4 copies of one tile")
        count = len(tiles)
        if kind_hint == "concealed":
            if count != 4:
                raise NotationError(f"meld {text!r}: a concealed kong (....) holds 4 tiles")
            return cls(MeldKind.CONCEALED_KONG, tiles[0])
        if added:
            if count != 4:
                raise NotationError(f"meld {text!r}: an added kong [....+] holds 4 tiles")
            return cls(MeldKind.ADDED_KONG, tiles[0])
        if count == 3:
            return cls(MeldKind.PONG, tiles[0])
        if count == 4:
            return cls(MeldKind.DIRECT_KONG, tiles[0])
        raise NotationError(f"meld {text!r} must hold 3 (pong) or 4 (kong) tiles, not {count}")


def _meld_sort_key(meld: Meld) -> tuple[int, int]:
    return (meld.tile, list(MeldKind).index(meld.kind))


@dataclass(frozen=True, slots=True)
class Hand:
    """Concealed tiles (sorted) and melds (in the order they were made)."""

    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "concealed", tuple(sorted(self.concealed)))
        totals = self.all_counts()
        for tile, count in enumerate(totals):
            if count > COPIES:
                raise NotationError(
                    f"{count} copies of {tile_to_str(tile)} in one hand: there are only 4"
                )

    @classmethod
    def parse(cls, text: str) -> Hand:
        """Parse ``"11m234p678s [555p] (9999s)"``: concealed tiles first, then melds."""
        if not isinstance(text, str):
            raise TypeError(
                f"hand notation is a string such as '11m234p', not {type(text).__name__}"
            )
        groups = text.split()
        if not groups:
            raise NotationError("empty hand")
        concealed: list[Tile] = []
        melds: list[Meld] = []
        for index, group in enumerate(groups):
            if group[0] in "[(":
                melds.append(Meld.parse(group))
            elif index == 0:
                concealed = parse_tiles(group)
            else:
                raise NotationError(
                    f"group {group!r}: concealed tiles come first, as one group, before melds"
                )
        return cls(tuple(concealed), tuple(melds))

    @classmethod
    def from_counts(cls, counts: Sequence[int], melds: Sequence[Meld] = ()) -> Hand:
        return cls(tuple(t for t in range(NUM_KINDS) for _ in range(counts[t])), tuple(melds))

    def counts(self) -> list[int]:
        """Concealed tiles as a 27-entry count vector."""
        return to_counts(self.concealed)

    def all_counts(self) -> list[int]:
        """Concealed and melded tiles together (kongs as four), for the R11 four-copies check."""
        counts = to_counts(self.concealed)
        for meld in self.melds:
            counts[meld.tile] += meld.kind.size
        return counts

    @property
    def tile_count(self) -> int:
        """Tiles with each kong counted as three (R10): 13 when waiting, 14 when complete."""
        return len(self.concealed) + 3 * len(self.melds)

    @property
    def has_kong(self) -> bool:
        return any(meld.is_kong for meld in self.melds)

    def __str__(self) -> str:
        parts = [format_tiles(self.concealed)] if self.concealed else []
        parts.extend(str(meld) for meld in self.melds)
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Hand.parse({str(self)!r})"
