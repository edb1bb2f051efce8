"""Unit tests of duyun.analysis on notation examples (R10, R11)."""

from __future__ import annotations

import pytest

from duyun.analysis import (
    Decomposition,
    TileSet,
    decompositions,
    is_seven_pairs,
    is_standard_win,
    is_win,
    rank_discards,
    shanten,
    shanten_seven_pairs,
    shanten_standard,
    useful_tiles,
    waits,
)
from duyun.hand import Hand
from duyun.tiles import parse_tiles, tile_from_str, to_counts


def c(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


def tiles(text: str) -> list[int]:
    return sorted(parse_tiles(text))


@pytest.mark.parametrize(
    "hand", ["23445677p345789s", "111222444m33399p", "11123777888999s", "11m", "11m123p"]
)
def test_r10_standard_wins(hand: str) -> None:
    assert is_win(c(hand))
    assert is_standard_win(c(hand))


@pytest.mark.parametrize("hand", ["23445677p345788s", "1122m", "11m12p", "111m", "1199m"])
def test_r10_not_wins(hand: str) -> None:
    assert not is_win(c(hand))


def test_r10_seven_pairs_with_four_alike_is_a_win() -> None:
    counts = c("11224444557799m")
    assert is_seven_pairs(counts)
    assert is_win(counts)
    assert not is_standard_win(counts)


def test_r10_seven_pairs_needs_all_fourteen_concealed() -> None:
    assert not is_seven_pairs(c("112244557799m"))  # 12 tiles: a hand with a meld
    assert not is_win(c("11224455m"))


def test_r10_melded_hand_wins_on_concealed_part() -> None:
    # 11m234p678s [555p] (9999s): the concealed 8 tiles are 2 sets + a pair
    assert is_win(Hand.parse("11m234p678s [555p] (9999s)").counts())


def test_r10_decompositions_of_a_flush_list_every_reading() -> None:
    readings = decompositions(c("11123777888999s"))
    s = 18  # 1s
    pungs = (TileSet("pung", s + 6), TileSet("pung", s + 7), TileSet("pung", s + 8))
    runs = (TileSet("run", s + 6),) * 3
    # 11 + 123 + (777 888 999 | 789 789 789); sets are sorted
    assert sorted(readings, key=lambda d: d.sets) == sorted(
        [
            Decomposition(pair=s, sets=tuple(sorted((*pungs, TileSet("run", s)))), pairs=(s,)),
            Decomposition(pair=s, sets=tuple(sorted((*runs, TileSet("run", s)))), pairs=(s,)),
        ],
        key=lambda d: d.sets,
    )


def test_r10_seven_pairs_reading_lists_four_alike_twice() -> None:
    readings = decompositions(c("11224444557799m"))
    assert readings == [Decomposition(pair=None, seven_pairs=True, pairs=(0, 1, 3, 3, 4, 6, 8))]


def test_r10_decompositions_empty_when_not_winning() -> None:
    assert decompositions(c("23445677p345788s")) == []


def test_r10_hand_both_standard_and_seven_pairs_has_both_readings() -> None:
    readings = decompositions(c("11223344556677m"))
    assert any(d.seven_pairs for d in readings)
    assert any(not d.seven_pairs for d in readings)


def test_r11_nine_gates_waits_everywhere() -> None:
    assert waits(c("1112345678999m")) == tiles("123456789m")


def test_r11_waits_exclude_a_kind_held_four_times_with_melds() -> None:
    hand = Hand.parse("2m234p567p789p [111m]")
    assert waits(hand.counts(), hand.all_counts()) == [tile_from_str("2m")]
    held = Hand.parse("5m234p567p789p [555m]")
    assert waits(held.counts(), held.all_counts()) == []  # tanki on a fifth 5m: not ready
    assert waits(held.counts()) == [tile_from_str("5m")]


def test_r11_seven_pairs_wait_on_third_copy_is_a_wait() -> None:
    # 112233m445566p7s + 7s; and 1122m 4455p 7799s 111... four alike as two pairs
    assert waits(c("112233m445566p7s")) == tiles("7s")
    assert tile_from_str("3m") in waits(c("1122333m4455p77s"))


def test_r11_shanpon_wait_across_suits() -> None:
    assert waits(c("11m55p123456789s")) == tiles("1m5p")


def test_r11_shanten_examples() -> None:
    assert shanten(c("23445677p345789s")) == -1
    assert shanten(c("1112345678999m")) == 0
    assert shanten_seven_pairs(c("1122334455667m")) == 0
    assert shanten_standard(c("19m19p19s1234567m")) >= 3


def test_r10_shanten_with_melds_needs_fewer_sets() -> None:
    # 8 concealed tiles: two sets and a pair are needed
    assert shanten_standard(c("11m234p678s")) == -1
    assert shanten_standard(c("1m234p678s")) == 0
    assert shanten_standard(c("19m19p")) == 2  # one set and a pair from four loose tiles


def test_shanten_fifth_copy_tanki_is_not_ready_r11() -> None:
    # 1111m + three runs: only a fifth 1m would complete it
    assert shanten(c("1111m234p567p789p")) == 1
    assert waits(c("1111m234p567p789p")) == []


def test_r10_shanten_rejects_sizes_divisible_by_three() -> None:
    with pytest.raises(ValueError, match="3k"):
        shanten(c("123m"))


def test_r11_useful_tiles_count_unseen_copies() -> None:
    counts = c("1112345678999m")
    useful = useful_tiles(counts)
    assert sorted(useful) == tiles("123456789m")
    assert useful[0] == 1 and useful[1] == 3  # three 1m held, one 2m held
    visible = list(counts)
    visible[1] = 4
    assert useful_tiles(counts, visible)[1] == 0  # kept, with 0 unseen


def test_r11_rank_discards_best_first() -> None:
    options = rank_discards(c("1112345678999m3p"))
    best = options[0]
    assert best.discard == tile_from_str("3p")
    assert best.shanten == 0
    assert best.useful == tuple(tiles("123456789m"))
    assert best.useful_count == 23
    keys = [(o.shanten, -o.useful_count, o.discard) for o in options]
    assert keys == sorted(keys)
    assert len(options) == len({o.discard for o in options}) == 10


def test_r10_rank_discards_rejects_a_13_tile_hand() -> None:
    with pytest.raises(ValueError, match="3k \\+ 2"):
        rank_discards(c("1112345678999m"))
