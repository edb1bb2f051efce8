"""Tile notation (R1, R2): parse, format, round trips, strict errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from duyun.tiles import (
    NUM_KINDS,
    NotationError,
    format_tiles,
    from_counts,
    full_set,
    parse_tiles,
    tile_from_str,
    tile_to_str,
    to_counts,
)

tiles_lists = st.lists(st.integers(0, NUM_KINDS - 1), max_size=14)


def test_r1_full_set_has_108_tiles_four_of_each() -> None:
    tiles = full_set()
    assert len(tiles) == 108
    assert to_counts(tiles) == [4] * 27


def test_r2_suits_may_repeat() -> None:
    assert parse_tiles("1m1m2m") == parse_tiles("112m")
    assert format_tiles(parse_tiles("5s1m9p1m")) == "11m9p5s"


def test_r2_tile_ints_are_suit_times_nine_plus_rank() -> None:
    assert tile_from_str("1m") == 0
    assert tile_from_str("5p") == 13
    assert tile_from_str("9s") == 26
    assert tile_to_str(13) == "5p"


@given(tiles_lists)
def test_r2_parse_of_format_is_the_sorted_tiles(tiles: list[int]) -> None:
    assert parse_tiles(format_tiles(tiles)) == sorted(tiles)


@given(tiles_lists, st.randoms(use_true_random=False))
def test_r2_format_normalises_any_spelling(tiles: list[int], rnd: object) -> None:
    shuffled = list(tiles)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    spelled = "".join(tile_to_str(t) for t in shuffled)  # one suit letter per tile
    assert format_tiles(parse_tiles(spelled)) == format_tiles(tiles)


@given(tiles_lists)
def test_r2_counts_round_trip(tiles: list[int]) -> None:
    assert from_counts(to_counts(tiles)) == sorted(tiles)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("11x", "'x' at position 2"),
        ("10m", "rank 0 at position 1"),
        ("m1", "'m' at position 0"),
        ("123", "position 0"),
        ("12m 3p", "' ' at position 3"),
        ("1z", "'z'"),
    ],
)
def test_r2_strict_errors_name_the_character(text: str, named: str) -> None:
    with pytest.raises(NotationError, match=named):
        parse_tiles(text)


@given(st.text(alphabet="123456789mpsx0 z", min_size=1, max_size=12))
def test_r2_bad_notation_errors_name_a_position(text: str) -> None:
    try:
        parse_tiles(text)
    except NotationError as error:
        assert "position" in str(error)
