"""Hypothesis: the table-driven analysis agrees with slow references (R10, R11)."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st
from test_analysis_reference import (
    complete_targets,
    exchange_distance,
    seven_pairs,
    shanten_formula,
    standard_win,
    win,
)
from test_analysis_reference import waits as ref_waits

from duyun.analysis import (
    decompositions,
    is_seven_pairs,
    is_standard_win,
    is_win,
    shanten,
    shanten_standard,
    useful_tiles,
    waits,
)

WALL = [t for t in range(27) for _ in range(4)]
SET_SHAPES = [[t] * 3 for t in range(27)] + [[t, t + 1, t + 2] for t in range(27) if t % 9 <= 6]


def counts_of(tiles: list[int]) -> list[int]:
    counts = [0] * 27
    for tile in tiles:
        counts[tile] += 1
    return counts


def random_hand(size: int) -> st.SearchStrategy[list[int]]:
    """``size`` distinct tiles of the 108 (so at most four of a kind)."""
    return st.lists(st.integers(0, 107), min_size=size, max_size=size, unique=True).map(
        lambda picks: counts_of([WALL[i] for i in picks])
    )


@st.composite
def near_complete(draw: st.DrawFn, sets: int = 4, swaps_max: int = 2) -> list[int]:
    """A complete hand of ``sets`` sets + a pair, then up to ``swaps_max`` tiles exchanged:
    random hands are almost never ready, these mostly are or nearly are."""
    counts = [0] * 27
    for _ in range(sets):
        shape = draw(st.sampled_from(SET_SHAPES))
        for tile in shape:
            counts[tile] += 1
    counts[draw(st.integers(0, 26))] += 2
    for _ in range(draw(st.integers(0, swaps_max))):
        held = [t for t in range(27) if counts[t]]
        counts[draw(st.sampled_from(held))] -= 1
        counts[draw(st.integers(0, 26))] += 1
    if max(counts) > 4:
        counts = [min(x, 4) for x in counts]
        while sum(counts) < 3 * sets + 2:
            counts[next(t for t in range(27) if counts[t] < 4)] += 1
    return counts


def drop_one(counts: list[int], index: int) -> list[int]:
    held = [t for t in range(27) if counts[t]]
    out = list(counts)
    out[held[index % len(held)]] -= 1
    return out


hands14 = st.one_of(random_hand(14), near_complete())
hands13 = st.tuples(hands14, st.integers(0, 26)).map(lambda pair: drop_one(*pair))


@settings(max_examples=500)
@given(hands14)
def test_r10_is_win_matches_reference(counts: list[int]) -> None:
    assert is_win(counts) == win(counts)
    assert is_standard_win(counts) == standard_win(counts)
    assert is_seven_pairs(counts) == seven_pairs(counts)


@given(st.one_of(near_complete(sets=1), near_complete(sets=2), near_complete(sets=3)))
def test_r10_is_win_with_melds_matches_reference(counts: list[int]) -> None:
    assert is_win(counts) == win(counts)


@given(hands14)
def test_r10_decompositions_exist_exactly_for_wins_and_use_every_tile(counts: list[int]) -> None:
    readings = decompositions(counts)
    assert bool(readings) == win(counts)
    for reading in readings:
        used = [0] * 27
        for tile in reading.pairs:
            used[tile] += 2
        for tile_set in reading.sets:
            for tile in tile_set.tiles:
                used[tile] += 1
        assert used == counts
    assert len(readings) == len(set(readings))


@settings(max_examples=500)
@given(hands13, st.lists(st.integers(0, 26), max_size=6))
def test_r11_waits_match_reference(counts: list[int], melded: list[int]) -> None:
    held = list(counts)
    for tile in melded:
        held[tile] = min(4, held[tile] + 3)
    assert waits(counts) == ref_waits(counts)
    assert waits(counts, held) == ref_waits(counts, held)


@settings(max_examples=500)
@given(hands13)
def test_r11_ready_exactly_when_there_are_waits(counts: list[int]) -> None:
    """Shanten 0 <=> some tile completes the hand (concealed only: no melded copies excluded)."""
    assert (shanten(counts) == 0) == bool(waits(counts))


@settings(max_examples=150)
@given(st.one_of(hands14, hands13))
def test_r10_r11_standard_shanten_matches_exhaustive_formula(counts: list[int]) -> None:
    assert shanten_standard(counts) == shanten_formula(counts)


@given(st.one_of(random_hand(14), random_hand(13), hands14, hands13), st.data())
def test_r11_shanten_moves_at_most_one_per_exchange(counts: list[int], data: st.DataObject) -> None:
    held = [t for t in range(27) if counts[t]]
    out = data.draw(st.sampled_from(held))
    into = data.draw(st.sampled_from([t for t in range(27) if counts[t] < 4 or t == out]))
    after = list(counts)
    after[out] -= 1
    after[into] += 1
    assert abs(shanten(after) - shanten(counts)) <= 1
    assert abs(shanten_standard(after) - shanten_standard(counts)) <= 1


@cache
def _targets(size: int) -> list[tuple[int, ...]]:
    return complete_targets(size)


@given(st.sampled_from([2, 4, 5]).flatmap(random_hand))
def test_r10_r11_shanten_is_the_exchange_distance_on_small_hands(counts: list[int]) -> None:
    """The textbook meaning: tiles to draw (replacing others) until complete, minus one."""
    size = sum(counts)
    assert shanten_standard(counts) == exchange_distance(counts, _targets(size + size % 3 % 2))


@given(hands13)
def test_r11_useful_tiles_lower_shanten_and_others_do_not(counts: list[int]) -> None:
    base = shanten(counts)
    useful = useful_tiles(counts)
    for tile in range(27):
        if counts[tile] == 4:
            assert tile not in useful
            continue
        after = list(counts)
        after[tile] += 1
        assert (shanten(after) < base) == (tile in useful)
        if tile in useful:
            assert useful[tile] == 4 - counts[tile]
