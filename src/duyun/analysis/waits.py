"""Waits of a 13-tile (3k + 1) hand (R11), from the per-suit wait table."""

from __future__ import annotations

from collections.abc import Sequence

from duyun.analysis._tables import WAIT_TABLES


def waits(counts: Sequence[int], held: Sequence[int] | None = None) -> list[int]:
    """Tile kinds that complete the hand (standard or seven pairs), sorted.

    ``held`` is concealed + melded tiles (default ``counts``): a kind the player holds all
    four of is no wait (R11), because no fifth copy exists. Tiles seen elsewhere do not
    matter here (R11 [decision]; the engine applies ``dead_waits_count`` itself).

    Only the suit that receives the tile changes, so a wait comes from one suit whose own
    table lists it while the other two suits are already complete with the right number of
    pairs (sets-only codes 1, with-pair code 3: 1 + 1 or 1 + 3).
    """
    ta, tb, tc = WAIT_TABLES
    a = ta[tuple(counts[0:9])]
    b = tb[tuple(counts[9:18])]
    c = tc[tuple(counts[18:27])]
    size = a[3] + b[3] + c[3]
    if size % 3 != 1:
        raise ValueError(f"waits need a 3k + 1 tile hand, got {size} tiles")
    found: list[int] = []
    rest = b[0] + c[0]
    if rest == 2:
        found.extend(a[1])
    elif rest == 4:
        found.extend(a[2])
    rest = a[0] + c[0]
    if rest == 2:
        found.extend(b[1])
    elif rest == 4:
        found.extend(b[2])
    rest = a[0] + b[0]
    if rest == 2:
        found.extend(c[1])
    elif rest == 4:
        found.extend(c[2])
    if size == 13 and a[4] + b[4] + c[4] == 6:
        single = (a[5] or b[5] or c[5])[0]  # 13 tiles in six pairs leave one odd kind
        if single not in found:
            found.append(single)
            found.sort()
    held_counts = counts if held is None else held
    return [t for t in found if held_counts[t] < 4]
