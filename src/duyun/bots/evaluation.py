"""Fast hand evaluation for bots: shanten of "this hand minus/plus one tile", useful tiles.

A bot asks the same question dozens of times per decision: "what is the shanten if I discard
``t``, and how many live tiles would then improve it?". :func:`duyun.analysis.shanten` answers
one hand at a time, re-slicing all three suits; here the three per-suit summary ids of the hand
are computed once and only the suit that a discard or a draw touches is looked up again. That
is what lets self-play reach hundreds of hands per second (issue #4).

The numbers are exactly those of :mod:`duyun.analysis` (``tests/test_bots.py`` compares them
on random hands): standard shanten from the per-suit block summaries, seven pairs (R10) only
when no meld is held.
"""

from __future__ import annotations

from collections.abc import Sequence

from duyun.analysis._tables import FINAL_SHANTEN, PAIR_SUMMARY, SUIT_SUMMARY

NUM_KINDS = 27
MAX_TILES = 14


def _neighbour_table() -> tuple[tuple[int, ...], ...]:
    """For each tile, the tiles of its suit at distance 0..2: the only draws that can help."""
    table = []
    for tile in range(NUM_KINDS):
        base = tile - tile % 9
        table.append(tuple(t for t in range(tile - 2, tile + 3) if base <= t < base + 9))
    return tuple(table)


NEIGHBOURS: tuple[tuple[int, ...], ...] = _neighbour_table()


class HandEvaluator:
    """Shanten queries about one concealed hand, answered one suit lookup at a time.

    ``counts`` is the 27-count vector of the concealed tiles; it is copied. Seven pairs counts
    only when the hand has no meld (R10), i.e. when it holds 13 or 14 concealed tiles.
    """

    __slots__ = ("counts", "keys", "pairs", "seven_pairs_ok", "size", "summaries")

    def __init__(self, counts: Sequence[int]) -> None:
        self.counts = list(counts)
        self.size = sum(self.counts)
        self.keys = [tuple(self.counts[0:9]), tuple(self.counts[9:18]), tuple(self.counts[18:27])]
        self.summaries = [SUIT_SUMMARY[key] for key in self.keys]
        self.pairs = sum(c >> 1 for c in self.counts)
        self.seven_pairs_ok = self.size >= 13

    # -- whole hand ---------------------------------------------------------------------

    def shanten(self) -> int:
        """Shanten of the hand as it is (standard, or seven pairs when it is better)."""
        s = self.summaries
        value: int = FINAL_SHANTEN[PAIR_SUMMARY[s[0], s[1]], s[2], (MAX_TILES - self.size) // 3]
        if self.seven_pairs_ok and value > 0:
            value = min(value, 6 - min(7, self.pairs))
        return value

    # -- one tile changed ---------------------------------------------------------------

    def _shanten_with(self, tile: int, delta: int, size: int, pairs: int) -> int:
        """Shanten after adding ``delta`` (+1 or -1) copies of ``tile``; counts are restored."""
        counts = self.counts
        suit = tile // 9
        start = suit * 9
        counts[tile] += delta
        changed = SUIT_SUMMARY[tuple(counts[start : start + 9])]
        counts[tile] -= delta
        s = self.summaries
        if suit == 0:
            other = PAIR_SUMMARY[s[1], s[2]]
        elif suit == 1:
            other = PAIR_SUMMARY[s[0], s[2]]
        else:
            other = PAIR_SUMMARY[s[0], s[1]]
        value: int = FINAL_SHANTEN[other, changed, (MAX_TILES - size) // 3]
        if self.seven_pairs_ok and value > 0 and size >= 13:
            value = min(value, 6 - min(7, pairs))
        return value

    def shanten_after_discard(self, tile: int) -> int:
        """Shanten of the 3k + 1 hand left by discarding ``tile`` (which must be held)."""
        pairs = self.pairs - (1 if self.counts[tile] % 2 == 0 else 0)
        return self._shanten_with(tile, -1, self.size - 1, pairs)

    def shanten_after_removing(self, tile: int, copies: int) -> int:
        """Shanten after taking ``copies`` of ``tile`` out (a pong or kong moving to a meld).

        The result counts the new meld as a set: the concealed part shrinks by a multiple of
        three only for kongs (4) and pongs-with-discard, so this is evaluated from scratch.
        """
        counts = list(self.counts)
        counts[tile] -= copies
        return HandEvaluator(counts).shanten()

    def useful_after_discard(self, discard: int, unseen: Sequence[int]) -> tuple[int, int]:
        """(shanten, live useful tiles) of the hand left by discarding ``discard``.

        ``unseen[t]`` is how many copies of ``t`` this seat cannot see. Only tiles within two
        ranks of a held tile can lower the shanten (an isolated tile forms no block), so only
        those are tried.
        """
        counts = self.counts
        pairs = self.pairs - (1 if counts[discard] % 2 == 0 else 0)
        size = self.size - 1
        counts[discard] -= 1
        try:
            suit = discard // 9
            start = suit * 9
            saved_key = self.keys[suit]
            saved_summary = self.summaries[suit]
            key = tuple(counts[start : start + 9])
            self.keys[suit] = key
            self.summaries[suit] = SUIT_SUMMARY[key]
            base = self._shanten_with(discard, 0, size, pairs)
            live = 0
            tried: set[int] = set()
            for held in range(NUM_KINDS):
                if not counts[held]:
                    continue
                for draw in NEIGHBOURS[held]:
                    if draw in tried or counts[draw] >= 4:
                        continue
                    tried.add(draw)
                    draw_pairs = pairs + (1 if counts[draw] % 2 == 1 else 0)
                    if self._shanten_with(draw, 1, size + 1, draw_pairs) < base:
                        live += unseen[draw]
            self.keys[suit] = saved_key
            self.summaries[suit] = saved_summary
        finally:
            counts[discard] += 1
        return base, live

    def useful_tiles(self, unseen: Sequence[int]) -> dict[int, int]:
        """For a 3k + 1 hand: tiles whose draw lowers the shanten -> copies unseen."""
        base = self.shanten()
        found: dict[int, int] = {}
        counts = self.counts
        for held in range(NUM_KINDS):
            if not counts[held]:
                continue
            for draw in NEIGHBOURS[held]:
                if draw in found or counts[draw] >= 4:
                    continue
                draw_pairs = self.pairs + (1 if counts[draw] % 2 == 1 else 0)
                if self._shanten_with(draw, 1, self.size + 1, draw_pairs) < base:
                    found[draw] = unseen[draw]
        return found


def unseen_counts(visible: Sequence[int]) -> list[int]:
    """Copies of each tile this seat cannot see (4 minus visible, never negative)."""
    return [4 - v if v < 4 else 0 for v in visible]
