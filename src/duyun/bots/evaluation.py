"""Fast hand evaluation for bots: shanten of "this hand minus/plus one tile", useful tiles.

A bot asks the same question dozens of times per decision: "what is the shanten if I discard
``t``, and how many live tiles would then improve it?". :func:`duyun.analysis.shanten` answers
one hand at a time, re-slicing all three suits; here the three per-suit summary ids of the hand
are computed once, and for each suit shape the summaries of "one tile more / one tile less"
are memoised, so a discard or a draw costs one combination lookup. That is what lets self-play
reach hundreds of hands per second (issue #4).

The numbers are exactly those of :mod:`duyun.analysis`
(``tests/bots/test_bots_protocol_and_legality.py`` compares them on random hands): standard
shanten from the per-suit block summaries, seven pairs (R10) only when no meld is held (13 or
14 concealed tiles).

Memory: the memo tables are keyed by a single suit's shape (nine counts), like the analysis
tables themselves, and bounded the same way (a full table starts over), so a long self-play
run keeps a flat footprint.
"""

from __future__ import annotations

from collections.abc import Sequence

from duyun.analysis._tables import FINAL_SHANTEN, PAIR_SUMMARY, SUIT_SUMMARY

NUM_KINDS = 27
MAX_TILES = 14

SuitKey = tuple[int, ...]
Step = tuple[int, SuitKey | None, int, int]
"""(rank index 0..8, the suit's key after the step, its summary id, change in pair count).
Draw steps keep no key (None): nothing chains from a draw, and the tables stay smaller."""


def _within_two_of_held(key: SuitKey, rank: int) -> bool:
    return any(key[r] for r in range(max(0, rank - 2), min(9, rank + 3)))


# Bounds of the lazily filled tables below, like the analysis tables': memory stays flat in
# long runs. Module constants rather than class attributes: a compiled (mypyc) dict subclass
# does not see its class attributes through ``self``.
_STEP_LIMIT = 32_768
_ROW_LIMIT = 4_096


class _StepTable(dict[SuitKey, tuple[Step, ...]]):
    """Suit key -> the one-tile steps from it (draws or discards), computed on first use."""

    def __init__(self, draw: bool) -> None:
        super().__init__()
        self._draw = draw

    def __missing__(self, key: SuitKey) -> tuple[Step, ...]:
        if len(self) >= _STEP_LIMIT:
            self.clear()
        steps: list[Step] = []
        for rank in range(9):
            count = key[rank]
            if self._draw:
                # Only a tile within two ranks of a held tile can join a block; an isolated
                # tile never lowers the shanten.
                if count >= 4 or not _within_two_of_held(key, rank):
                    continue
                pair_delta = 1 if count % 2 == 1 else 0
                new = (*key[:rank], count + 1, *key[rank + 1 :])
            else:
                if not count:
                    continue
                pair_delta = -1 if count % 2 == 0 else 0
                new = (*key[:rank], count - 1, *key[rank + 1 :])
            steps.append((rank, None if self._draw else new, SUIT_SUMMARY[new], pair_delta))
        value = tuple(steps)
        self[key] = value
        return value


DRAW_STEPS = _StepTable(draw=True)
DISCARD_STEPS = _StepTable(draw=False)


class _ShantenRow(dict[int, int]):
    """Summary id of the changed suit -> standard shanten, for fixed other suits and melds.

    An int-keyed row is a cheaper lookup than FINAL_SHANTEN's tuple key in the inner loops.
    """

    __slots__ = ("_other", "_sets")

    def __init__(self, other: int, sets: int) -> None:
        super().__init__()
        self._other = other
        self._sets = sets

    def __missing__(self, summary: int) -> int:
        value: int = FINAL_SHANTEN[self._other, summary, self._sets]
        self[summary] = value
        return value


class _RowTable(dict[tuple[int, int], _ShantenRow]):
    def __missing__(self, key: tuple[int, int]) -> _ShantenRow:
        if len(self) >= _ROW_LIMIT:
            self.clear()
        row = _ShantenRow(*key)
        self[key] = row
        return row


ROWS = _RowTable()
"""(combined summary of two suits, sets given by melds) -> row; bounded like the step tables."""


def _others(summaries: Sequence[int], suit: int) -> int:
    """Combined summary of the two suits other than ``suit``."""
    if suit == 0:
        return PAIR_SUMMARY[summaries[1], summaries[2]]
    if suit == 1:
        return PAIR_SUMMARY[summaries[0], summaries[2]]
    return PAIR_SUMMARY[summaries[0], summaries[1]]


class HandEvaluator:
    """Shanten queries about one concealed hand (a 27-count vector; it is copied)."""

    __slots__ = ("counts", "keys", "pairs", "size", "summaries")

    def __init__(self, counts: Sequence[int]) -> None:
        self.counts = list(counts)
        self.size = sum(self.counts)
        self.keys = (tuple(self.counts[0:9]), tuple(self.counts[9:18]), tuple(self.counts[18:27]))
        self.summaries = (
            SUIT_SUMMARY[self.keys[0]],
            SUIT_SUMMARY[self.keys[1]],
            SUIT_SUMMARY[self.keys[2]],
        )
        self.pairs = sum(c >> 1 for c in self.counts)

    def shanten(self) -> int:
        """Shanten of the hand as it is (standard, or seven pairs when better and allowed)."""
        s = self.summaries
        value: int = FINAL_SHANTEN[PAIR_SUMMARY[s[0], s[1]], s[2], (MAX_TILES - self.size) // 3]
        if self.size >= 13 and value >= 0:  # a winning 龍七對 may read 0 as standard (R10)
            value = min(value, 6 - min(7, self.pairs))
        return value

    def discard_shanten(self) -> dict[int, int]:
        """For a 3k + 2 hand: every held tile -> the shanten after discarding it."""
        size = self.size - 1
        sets = (MAX_TILES - size) // 3
        seven = size >= 13
        found: dict[int, int] = {}
        pairs = self.pairs
        for suit in range(3):
            row = ROWS[_others(self.summaries, suit), sets]
            offset = suit * 9
            for rank, _key, summary, pair_delta in DISCARD_STEPS[self.keys[suit]]:
                value = row[summary]
                if seven and value > 0:
                    seven_value = 6 - pairs - pair_delta  # at most 7 pairs in 13 tiles
                    if seven_value < value:
                        value = seven_value
                found[offset + rank] = value
        return found

    def shanten_after_discard(self, tile: int) -> int:
        """Shanten of the 3k + 1 hand left by discarding ``tile`` (which must be held)."""
        return self.discard_shanten()[tile]

    def shanten_after_removing(self, tile: int, copies: int) -> int:
        """Shanten after ``copies`` of ``tile`` leave the concealed part (a pong or a kong)."""
        counts = list(self.counts)
        counts[tile] -= copies
        return HandEvaluator(counts).shanten()

    def useful_after_discard(self, discard: int, unseen: Sequence[int]) -> tuple[int, int]:
        """(shanten, live useful tiles) of the 3k + 1 hand left by discarding ``discard``.

        ``unseen[t]`` is how many copies of ``t`` this seat cannot see.
        """
        suit = discard // 9
        rank = discard % 9
        step = next(s for s in DISCARD_STEPS[self.keys[suit]] if s[0] == rank)
        keys = list(self.keys)
        summaries = list(self.summaries)
        assert step[1] is not None
        keys[suit] = step[1]
        summaries[suit] = step[2]
        return _useful(keys, summaries, self.size - 1, self.pairs + step[3], unseen)

    def useful(self, unseen: Sequence[int]) -> tuple[int, int]:
        """(shanten, live useful tiles) of this 3k + 1 hand."""
        return _useful(self.keys, self.summaries, self.size, self.pairs, unseen)

    def useful_tiles(self, unseen: Sequence[int]) -> dict[int, int]:
        """For a 3k + 1 hand: tiles whose draw lowers the shanten -> copies unseen."""
        found: dict[int, int] = {}
        _useful(self.keys, self.summaries, self.size, self.pairs, unseen, found)
        return found


def _useful(
    keys: Sequence[SuitKey],
    summaries: Sequence[int],
    size: int,
    pairs: int,
    unseen: Sequence[int],
    found: dict[int, int] | None = None,
) -> tuple[int, int]:
    """Shanten of a 3k + 1 hand given by suit keys, and the live count of draws lowering it."""
    sets = (MAX_TILES - size) // 3
    base: int = FINAL_SHANTEN[PAIR_SUMMARY[summaries[0], summaries[1]], summaries[2], sets]
    if size >= 13 and base >= 0:
        base = min(base, 6 - min(7, pairs))
    seven = size + 1 >= 13
    draw_sets = (MAX_TILES - size - 1) // 3
    live = 0
    for suit in range(3):
        row = ROWS[_others(summaries, suit), draw_sets]
        offset = suit * 9
        for rank, _key, summary, pair_delta in DRAW_STEPS[keys[suit]]:
            value = row[summary]
            # a draw completing a 龍七對 lowers the shanten even when the standard reading is 0
            if value < base or (seven and value >= 0 and 6 - pairs - pair_delta < base):
                tile = offset + rank
                live += unseen[tile]
                if found is not None:
                    found[tile] = unseen[tile]
    return base, live


def unseen_counts(visible: Sequence[int]) -> list[int]:
    """Copies of each tile this seat cannot see (4 minus visible, never negative)."""
    return [4 - v if v < 4 else 0 for v in visible]


def next_stage_live(
    counts: Sequence[int], unseen: Sequence[int], *, drawn_copy_stays_live: bool = False
) -> float:
    """How fast a 3k + 1 hand's *second* step from here is: over every useful draw (weighted by
    its live copies), the live useful tiles of the best hand that draw allows (the discard
    after it that keeps the new, lower shanten with the most live useful tiles).

    Tile efficiency counted one draw deeper, as riichi efficiency tools count "ukeire after
    the next improvement": two discards with the same live count now may differ in how good
    the hand is after it improves. Exact over the draws: every tile this seat cannot see is
    equally likely, and the copy drawn is no longer live afterwards. 0.0 when no useful tile
    is live, and for a ready hand (its next useful draw wins: there is no second step).

    ``drawn_copy_stays_live`` counts the drawn copy as still live after the draw: the strong
    bot's chain two steps from ready was measured that way and keeps it.
    """
    kept = 0 if drawn_copy_stays_live else 1
    work = list(counts)
    live = list(unseen)
    evaluator = HandEvaluator(work)
    if evaluator.shanten() <= 0:
        return 0.0
    useful = evaluator.useful_tiles(unseen)
    total = 0.0
    weight = 0
    for tile, copies in useful.items():
        if not copies:
            continue
        work[tile] += 1
        live[tile] -= kept
        step = HandEvaluator(work)
        after = step.discard_shanten()
        lowest = min(after.values())
        best = 0
        for discard, value in after.items():
            if value == lowest:
                best = max(best, step.useful_after_discard(discard, live)[1])
        work[tile] -= 1
        live[tile] += kept
        total += copies * best
        weight += copies
    return total / weight if weight else 0.0
