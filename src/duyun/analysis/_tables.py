"""Per-suit lookup tables, the reason the analysis is fast enough for bots.

Sets never cross suits (R10), so a hand is judged suit by suit: each suit's nine counts are a
key (a 9-tuple: slicing a count vector into a tuple is cheaper in CPython than folding it into
a base-5 integer, and hashes just as well) and everything the analysis needs about that suit is
looked up once per suit instead of searched for per hand.

- :data:`WIN_CODES` is built whole at first use (a few tens of thousands of complete suits,
  well under a second): it answers "is this suit made of sets, with or without a pair".
- :class:`LazyTable` subclasses fill in on a miss: the wait table and the shanten block
  summaries. A suit shape is computed once per process; afterwards it is one dict hit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

SuitKey = tuple[int, ...]
"""Nine counts of one suit, ranks 1..9."""

EMPTY_SUIT: Final[SuitKey] = (0,) * 9

# Win codes: low two bits 1 = sets only, 3 = sets and one pair (0 = neither); bit 2 = every
# count even (a seven-pairs suit, R10: four of a kind is two pairs); bits 3+ = tiles in suit.
# Encoding "sets only" as 1 and "with pair" as 3 makes "three complete suits with exactly one
# pair" the single sum 1 + 1 + 3 == 5, which no other mix of 0, 1 and 3 reaches.
NO_PAIR: Final = 1
WITH_PAIR: Final = 3
EVEN: Final = 4

_SET_SHAPES: Final[tuple[tuple[int, ...], ...]] = tuple(
    [tuple(3 if r == p else 0 for r in range(9)) for p in range(9)]
    + [tuple(1 if s <= r < s + 3 else 0 for r in range(9)) for s in range(7)]
)

MAX_SETS: Final = 4  # R10: a hand holds at most four sets, so a suit does too


def _complete_suits() -> dict[SuitKey, int]:
    """Every suit that is complete as sets (up to four) with or without one pair."""
    found: dict[SuitKey, int] = {}

    def add_sets(counts: list[int], first_shape: int, sets: int) -> None:
        key = tuple(counts)
        found[key] = found.get(key, 0) | NO_PAIR
        for rank in range(9):
            if counts[rank] <= 2:
                counts[rank] += 2
                paired = tuple(counts)
                found[paired] = found.get(paired, 0) | WITH_PAIR
                counts[rank] -= 2
        if sets == MAX_SETS:
            return
        for index in range(first_shape, len(_SET_SHAPES)):
            shape = _SET_SHAPES[index]
            if all(c + s <= 4 for c, s in zip(counts, shape, strict=True)):
                for rank in range(9):
                    counts[rank] += shape[rank]
                add_sets(counts, index, sets + 1)
                for rank in range(9):
                    counts[rank] -= shape[rank]

    add_sets([0] * 9, 0, 0)
    return found


def _even_suits() -> list[SuitKey]:
    """Every suit whose counts are all 0, 2 or 4 and hold at most 14 tiles (seven pairs)."""
    keys: list[SuitKey] = [()]
    for _ in range(9):
        keys = [(*k, c) for k in keys for c in (0, 2, 4) if sum(k) + c <= 14]
    return keys


def build_win_codes() -> dict[SuitKey, int]:
    """The win-code table (see the encoding above)."""
    codes = _complete_suits()
    for key in _even_suits():
        codes[key] = codes.get(key, 0) | EVEN
    return {key: code | (sum(key) << 3) for key, code in codes.items()}


K = TypeVar("K")
V = TypeVar("V")


class LazyTable(dict[K, V]):
    """A dict that computes and stores a missing entry, so ``table[key]`` is a C-level hit.

    ``limit`` bounds it: a table that reaches it starts over empty. Suit shapes are finite but
    numerous (405,350 of up to 14 tiles), and a long self-play run would otherwise keep
    adding rarely used shapes; starting over keeps memory flat at the cost of recomputing the
    shapes in use, a small fraction of a second. A bound checked on misses only costs the hot
    path (hits) nothing.
    """

    def __init__(self, compute: Callable[[K], V], limit: int = 65_536) -> None:
        super().__init__()
        self._compute = compute
        self.limit = limit

    def __missing__(self, key: K) -> V:
        if len(self) >= self.limit:
            self.clear()
        value = self._compute(key)
        self[key] = value
        return value


WIN_CODES: Final[dict[SuitKey, int]] = build_win_codes()


# --- waits -------------------------------------------------------------------------------

WaitEntry = tuple[int, tuple[int, ...], tuple[int, ...], int, int, tuple[int, ...]]
"""(win code & 3, waits that make the suit sets+pair, waits that make it sets only,
tiles in the suit, pairs in the suit (four of a kind = two), kinds held an odd number of times).
Tiles are absolute (suit offset added), so a hand's waits are a concatenation."""


def _wait_entry(key: SuitKey, offset: int) -> WaitEntry:
    with_pair: list[int] = []
    sets_only: list[int] = []
    counts = list(key)
    for rank in range(9):
        if counts[rank] < 4:
            counts[rank] += 1
            code = WIN_CODES.get(tuple(counts), 0) & 3
            counts[rank] -= 1
            if code == WITH_PAIR:
                with_pair.append(offset + rank)
            elif code == NO_PAIR:
                sets_only.append(offset + rank)
    odd = tuple(offset + rank for rank in range(9) if key[rank] % 2)
    return (
        WIN_CODES.get(key, 0) & 3,
        tuple(with_pair),
        tuple(sets_only),
        sum(key),
        sum(c // 2 for c in key),
        odd,
    )


def _wait_table(offset: int) -> LazyTable[SuitKey, WaitEntry]:
    return LazyTable(lambda key: _wait_entry(key, offset), limit=16_384)


WAIT_TABLES: Final = (_wait_table(0), _wait_table(9), _wait_table(18))


# --- shanten block summaries -------------------------------------------------------------
#
# A suit is summarised by the non-dominated ways to read it as blocks: (m, t, h, q) with
# m sets, t partial sets (two tiles of a pung or run; a second pair counts here), h = 1 when it
# holds a pair for the head, and q the state of its isolated tiles: 0 none, 1 all of kinds the
# hand holds four of, 2 some other kind. q exists to match the reference (the ``mahjong``
# package), which adds one shanten when a hand has no pair and its only isolated tiles are of a
# kind it holds all four of: waiting on a fifth copy is not being ready (R11). For the same
# reason a kind never gives two pairs (that would wait on its fifth copy).

Block = tuple[int, int, int, int]
_Q_GOODNESS: Final = (1, 0, 2)  # q -> how much it helps: 2 best (never the penalty), 1 worst


def _prune(blocks: set[Block]) -> frozenset[Block]:
    """Drop readings that another reading is at least as good as in every respect."""
    items = list(blocks)
    kept: list[Block] = []
    for a in items:
        ga = _Q_GOODNESS[a[3]]
        dominated = False
        for b in items:
            if (
                b != a
                and b[0] >= a[0]
                and b[1] >= a[1]
                and b[2] >= a[2]
                and _Q_GOODNESS[b[3]] >= ga
            ):
                dominated = True
                break
        if not dominated:
            kept.append(a)
    return frozenset(kept)


MAX_PARTIALS: Final = 4  # more partial sets than four never lower the shanten

_SET, _PARTIAL, _PAIR, _ISOLATED = range(4)
_SearchKey = tuple[SuitKey, SuitKey, bool]
_search_memo: dict[_SearchKey, frozenset[Block]] = {}


def _search(counts: SuitKey, four: SuitKey, pair_here: bool) -> frozenset[Block]:
    """Every non-dominated block reading of ``counts``, taking the lowest rank first."""
    # The four-copies flag of an emptied rank can no longer matter: drop it to share entries.
    four = tuple(f if c else 0 for f, c in zip(four, counts, strict=True))
    memo_key = (counts, four, pair_here)
    cached = _search_memo.get(memo_key)
    if cached is not None:
        return cached
    low = 0
    while low < 9 and counts[low] == 0:
        low += 1
    if low == 9:
        result = frozenset({(0, 0, 0, 0)})
        _search_memo[memo_key] = result
        return result
    c = counts[low]
    nxt = counts[low + 1] if low < 8 else 0
    nxt2 = counts[low + 2] if low < 7 else 0
    out: set[Block] = set()

    def take(ranks: tuple[int, ...], kind: int, pair_after: bool = False) -> None:
        work = list(counts)
        for r in ranks:
            work[r] -= 1
        keep_flag = (pair_here or pair_after) and work[low] > 0
        sub = _search(tuple(work), four, keep_flag)
        if kind == _SET:
            out.update((m + 1, t, h, q) for m, t, h, q in sub)
        elif kind == _PARTIAL:
            out.update((m, min(t + 1, MAX_PARTIALS), h, q) for m, t, h, q in sub)
        elif kind == _PAIR:
            out.update(
                (m, min(t + 1, MAX_PARTIALS), 1, q) if h else (m, t, 1, q) for m, t, h, q in sub
            )
        else:
            iso = 1 if four[low] else 2
            out.update((m, t, h, q if q > iso else iso) for m, t, h, q in sub)

    if c >= 3:
        take((low, low, low), _SET)
    if nxt and nxt2:
        take((low, low + 1, low + 2), _SET)
    if c >= 2 and not pair_here:
        take((low, low), _PAIR, pair_after=True)
    if nxt:
        take((low, low + 1), _PARTIAL)
    if nxt2:
        take((low, low + 2), _PARTIAL)
    take((low,), _ISOLATED)
    result = _prune(out)
    _search_memo[memo_key] = result
    return result


# Interned summaries: a summary id indexes SUMMARIES; equal summaries share an id, which keeps
# the combination memos small.
SUMMARIES: Final[list[frozenset[Block]]] = []
_summary_ids: dict[frozenset[Block], int] = {}


def _intern(summary: frozenset[Block]) -> int:
    found = _summary_ids.get(summary)
    if found is None:
        found = len(SUMMARIES)
        SUMMARIES.append(summary)
        _summary_ids[summary] = found
    return found


SEARCH_MEMO_LIMIT: Final = 65_536
"""The search memo only speeds up summarising new shapes; bounded like the LazyTables."""


def _suit_summary(key: SuitKey) -> int:
    if len(_search_memo) >= SEARCH_MEMO_LIMIT:
        _search_memo.clear()
    four = tuple(1 if c == 4 else 0 for c in key)
    return _intern(_search(key, four, False))


SUIT_SUMMARY: Final[LazyTable[SuitKey, int]] = LazyTable(_suit_summary)
"""Suit key -> summary id."""


def _combine_pair(ids: tuple[int, int]) -> int:
    out: set[Block] = set()
    for ma, ta, ha, qa in SUMMARIES[ids[0]]:
        for mb, tb, hb, qb in SUMMARIES[ids[1]]:
            t = ta + tb + (1 if ha and hb else 0)
            out.add((ma + mb, min(t, MAX_PARTIALS), ha | hb, max(qa, qb)))
    return _intern(_prune(out))


PAIR_SUMMARY: Final[LazyTable[tuple[int, int], int]] = LazyTable(_combine_pair, limit=32_768)
"""(summary id, summary id) -> summary id of the two suits together."""


def _final_shanten(key: tuple[int, int, int]) -> int:
    ab, c, sets_given = key
    best = 8
    for ma, ta, ha, qa in SUMMARIES[ab]:
        for mc, tc, hc, qc in SUMMARIES[c]:
            m = sets_given + ma + mc
            t = ta + tc + (1 if ha and hc else 0)
            h = ha | hc
            value = 8 - 2 * m - h - min(t, 4 - m)
            if not h and max(qa, qc) == 1:
                value += 1
            best = min(best, value)
    return best


FINAL_SHANTEN: Final[LazyTable[tuple[int, int, int], int]] = LazyTable(_final_shanten)
"""(two-suit summary id, third-suit summary id, sets already counted) -> standard shanten.
"Sets already counted" is (14 - concealed tiles) // 3: the sets that melds stand for."""
