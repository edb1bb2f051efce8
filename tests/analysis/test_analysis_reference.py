"""Slow, obviously-correct references for the table-driven analysis (R10, R11).

Plain recursion over tiles, no tables and no pruning, so that an error in the fast code is not
repeated here.
"""

from __future__ import annotations

from functools import cache


def _sets_only(counts: list[int]) -> bool:
    tile = next((t for t in range(27) if counts[t]), None)
    if tile is None:
        return True
    if counts[tile] >= 3:
        counts[tile] -= 3
        ok = _sets_only(counts)
        counts[tile] += 3
        if ok:
            return True
    if tile % 9 <= 6 and counts[tile + 1] and counts[tile + 2]:
        for t in (tile, tile + 1, tile + 2):
            counts[t] -= 1
        ok = _sets_only(counts)
        for t in (tile, tile + 1, tile + 2):
            counts[t] += 1
        return ok
    return False


def standard_win(counts: list[int]) -> bool:
    work = list(counts)
    if sum(work) % 3 != 2:
        return False
    for pair in range(27):
        if work[pair] >= 2:
            work[pair] -= 2
            ok = _sets_only(work)
            work[pair] += 2
            if ok:
                return True
    return False


def seven_pairs(counts: list[int]) -> bool:
    return sum(counts) == 14 and all(c % 2 == 0 for c in counts)


def win(counts: list[int]) -> bool:
    return standard_win(counts) or seven_pairs(counts)


def waits(counts: list[int], held: list[int] | None = None) -> list[int]:
    held = counts if held is None else held
    found = []
    for tile in range(27):
        if counts[tile] < 4 and held[tile] < 4:
            counts[tile] += 1
            if win(counts):
                found.append(tile)
            counts[tile] -= 1
    return found


def shanten_formula(counts: list[int]) -> int:
    """Every reading into sets, pairs, partials and leftovers, then the block formula.

    Leftover tiles of a kind held four times, with no pair at all, cost one more (the reference
    ``mahjong`` package's rule: waiting on a fifth copy is not ready); a kind gives at most one
    pair. Exhaustive, so only for modest hands.
    """
    size = sum(counts)
    sets_given = (14 - size) // 3
    four = tuple(c == 4 for c in counts)

    @cache
    def best(state: tuple[int, ...], start: int, paired_here: bool) -> frozenset[tuple[int, ...]]:
        tile = start
        while tile < 27 and state[tile] == 0:
            tile += 1
            paired_here = False
        if tile == 27:
            return frozenset({(0, 0, 0, 0, 0)})
        out: set[tuple[int, ...]] = set()

        def go(removed: list[int], add: tuple[int, ...], pair: bool = False) -> None:
            nxt = list(state)
            for t in removed:
                nxt[t] -= 1
            for m, t, p, iso_four, iso_other in best(tuple(nxt), tile, paired_here or pair):
                out.add((m + add[0], t + add[1], p + add[2], iso_four + add[3], iso_other + add[4]))

        c = state[tile]
        rank = tile % 9
        if c >= 3:
            go([tile] * 3, (1, 0, 0, 0, 0))
        if rank <= 6 and state[tile + 1] and state[tile + 2]:
            go([tile, tile + 1, tile + 2], (1, 0, 0, 0, 0))
        if c >= 2 and not paired_here:
            go([tile, tile], (0, 0, 1, 0, 0), pair=True)
        if rank <= 7 and state[tile + 1]:
            go([tile, tile + 1], (0, 1, 0, 0, 0))
        if rank <= 6 and state[tile + 2]:
            go([tile, tile + 2], (0, 1, 0, 0, 0))
        go([tile], (0, 0, 0, 1, 0) if four[tile] else (0, 0, 0, 0, 1))
        return frozenset(out)

    result = 99
    for m, t, p, iso_four, iso_other in best(tuple(counts), 0, False):
        m += sets_given
        head = 1 if p else 0
        partials = t + max(p - 1, 0)
        value = 8 - 2 * m - head - min(partials, 4 - m)
        if not p and iso_four and not iso_other:
            value += 1
        result = min(result, value)
    return result


def complete_targets(size: int) -> list[tuple[int, ...]]:
    """Every complete standard concealed part of ``size`` tiles (3k + 2), counts <= 4."""
    shapes = [[t] * 3 for t in range(27)] + [[t, t + 1, t + 2] for t in range(27) if t % 9 <= 6]
    found: set[tuple[int, ...]] = set()

    def add(counts: list[int], first: int, left: int) -> None:
        if left == 0:
            found.add(tuple(counts))
            return
        for index in range(first, len(shapes)):
            for t in shapes[index]:
                counts[t] += 1
            if max(counts) <= 4:
                add(counts, index, left - 1)
            for t in shapes[index]:
                counts[t] -= 1

    for pair in range(27):
        counts = [0] * 27
        counts[pair] = 2
        add(counts, 0, (size - 2) // 3)
    return sorted(found)


def exchange_distance(counts: list[int], targets: list[tuple[int, ...]]) -> int:
    """Fewest tiles to draw (each replacing one held tile) to hold a complete target, minus one:
    the textbook definition of shanten, respecting four copies per kind."""
    size = sum(counts)
    best = 99
    for target in targets:
        overlap = sum(min(a, b) for a, b in zip(counts, target, strict=True))
        best = min(best, (size + (size % 3 == 1)) - overlap)
    return best - 1


def test_reference_sanity_r10() -> None:
    """The references themselves on hand-checked R10 examples."""
    from duyun.tiles import parse_tiles, to_counts

    assert win(to_counts(parse_tiles("23445677p345789s")))
    assert win(to_counts(parse_tiles("11224444557799m")))  # R10: four alike = two pairs
    assert not win(to_counts(parse_tiles("23445677p345788s")))
    assert waits(to_counts(parse_tiles("1112345678999m"))) == list(range(9))
    assert shanten_formula(to_counts(parse_tiles("1112345678999m"))) == 0
