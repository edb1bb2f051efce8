"""Hypothesis: a winning hand scores the largest pattern over every reading (R20)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from duyun.analysis import decompositions, is_win
from duyun.hand import Hand, Meld, MeldKind
from duyun.scoring import PATTERNS, Context, best_pattern, max_fan, waits_fan

SET_SHAPES = [[t] * 3 for t in range(27)] + [[t, t + 1, t + 2] for t in range(27) if t % 9 <= 6]


@st.composite
def winning_hands(draw: st.DrawFn) -> Hand:
    """Complete hands: sets (some as melds when pungs) and a pair, or seven pairs; often one
    suit, so the flush patterns come up."""
    suits = draw(st.sampled_from([[0], [1], [2], [0, 1, 2]]))
    if draw(st.booleans()):
        kinds = [t for t in range(27) if t // 9 in suits]
        pairs = draw(st.lists(st.sampled_from(kinds), min_size=7, max_size=7))
        counts = [0] * 27
        for tile in pairs:
            counts[tile] += 2
        if max(counts) > 4:
            return Hand.parse("23445677p345789s")
        return Hand.from_counts(counts)
    shapes = [s for s in SET_SHAPES if s[0] // 9 in suits]
    counts = [0] * 27
    melds: list[Meld] = []
    for _ in range(4):
        shape = draw(st.sampled_from(shapes))
        if shape[0] == shape[1] and draw(st.booleans()):
            kind = draw(st.sampled_from(list(MeldKind)))
            melds.append(Meld(kind, shape[0]))
        else:
            for tile in shape:
                counts[tile] += 1
    pair = draw(st.sampled_from([t for t in range(27) if t // 9 in suits]))
    counts[pair] += 2
    total = list(counts)
    for meld in melds:
        total[meld.tile] += meld.kind.size
    if max(total) > 4:
        return Hand.parse("11123777888999s")
    return Hand.from_counts(counts, melds)


@given(winning_hands(), st.booleans(), st.booleans())
def test_r20_fan_is_the_max_over_patterns_and_readings(
    hand: Hand, tianhu: bool, dihu: bool
) -> None:
    assert is_win(hand.counts())
    matched = [
        pattern
        for reading in decompositions(hand.counts())
        for pattern in PATTERNS
        if pattern.condition(Context(hand, reading, tianhu, dihu))
    ]
    result = best_pattern(hand, tianhu=tianhu, dihu=dihu)
    assert result is not None
    assert result.fan == max(p.fan for p in matched)
    assert result.name in {p.name for p in matched if p.fan == result.fan}


@given(winning_hands(), st.data())
def test_r30_dajiao_is_the_max_over_waits(hand: Hand, data: st.DataObject) -> None:
    tile = data.draw(st.sampled_from(sorted(set(hand.concealed))))
    rest = list(hand.concealed)
    rest.remove(tile)
    waiting = Hand(tuple(rest), hand.melds)
    fans = waits_fan(waiting)
    assert tile in fans  # the tile just taken out completes it again
    biggest = max_fan(waiting)
    assert biggest is not None
    assert biggest.fan == max(r.fan for r in fans.values())
