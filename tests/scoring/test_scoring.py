"""Fan: the R20 seed examples (each in its own test), extras R21, dealer bonus R36, 大叫 R30."""

from __future__ import annotations

import pytest

from duyun.hand import Hand
from duyun.scoring import (
    PATTERNS,
    FanBreakdown,
    PatternResult,
    best_pattern,
    max_fan,
    payment_fan,
    waits_fan,
)
from duyun.tiles import tile_from_str


def score(text: str) -> PatternResult | None:
    return best_pattern(Hand.parse(text))


def test_r20_seed_pinghu_23445677p345789s() -> None:
    assert score("23445677p345789s") == PatternResult("平胡", 1)


def test_r20_seed_duiduihu_111222444m33399p() -> None:
    assert score("111222444m33399p") == PatternResult("對對胡", 3)


def test_r20_seed_qingyise_11333222456999s() -> None:
    assert score("11333222456999s") == PatternResult("清一色", 6)


def test_r20_seed_longqidui_2244552299m1199p_holds_four_2m() -> None:
    assert score("2244552299m1199p") == PatternResult("龍七對", 12)


def test_r20_seed_qidui_2244556699m1199p() -> None:
    assert score("2244556699m1199p") == PatternResult("七對", 6)


def test_r20_seed_qingqidui_99887755221166p() -> None:
    assert score("99887755221166p") == PatternResult("清七對", 12)


def test_r20_seed_jiangdui_222555888s88855m() -> None:
    assert score("222555888s88855m") == PatternResult("將對", 9)


def test_r20_seed_longqidui_11222244p557799m() -> None:
    assert score("11222244p557799m") == PatternResult("龍七對", 12)


def test_r20_seed_qingqidui_11334466778899s() -> None:
    assert score("11334466778899s") == PatternResult("清七對", 12)


def test_r20_seed_qingyaojiu_11123777888999s() -> None:
    assert score("11123777888999s") == PatternResult("清么九", 12)


def test_r20_seed_qinglongqidui_11224444557799m() -> None:
    assert score("11224444557799m") == PatternResult("青龍七對", 18)


def test_r20_pattern_table_names_and_fan() -> None:
    assert [(p.name, p.fan) for p in PATTERNS] == [
        ("平胡", 1), ("對對胡", 3), ("清一色", 6), ("七對", 6), ("清對", 9), ("將對", 9),
        ("龍七對", 12), ("清七對", 12), ("清么九", 12), ("天胡", 18), ("地胡", 18),
        ("青龍七對", 18),
    ]  # fmt: skip


def test_r20_duiduihu_counts_melds_as_pungs() -> None:
    assert score("11m222p [333s] [4444m] (5555p)") == PatternResult("對對胡", 3)


def test_r20_qingdui_flush_all_pungs_with_melds() -> None:
    assert score("11222m [333m] [5555m+] (9999m)") == PatternResult("清對", 9)


def test_r20_qingyise_looks_at_melds_too() -> None:
    assert score("11234678999m [555p]") == PatternResult("平胡", 1)
    assert score("11234678999m [555m]") == PatternResult("清一色", 6)


def test_r20_jiangdui_needs_every_meld_tile_258() -> None:
    assert score("22m555p888s [222s] [888m]") == PatternResult("將對", 9)
    assert score("22m555p888s [222s] [999m]") == PatternResult("對對胡", 3)


def test_r20_qingyaojiu_pair_must_be_terminal() -> None:
    # 55 + 123 + 789 789 789: flush, but the pair has no 1 or 9
    assert score("12355777888999s") == PatternResult("清一色", 6)


def test_r20_largest_reading_wins_runs_versus_pungs() -> None:
    # 111222333m + 44p: 對對胡 (111 222 333) beats 平胡 (123 123 123)
    assert score("111222333m44p456s") == PatternResult("平胡", 1)
    assert score("111222333m44p555s") == PatternResult("對對胡", 3)


def test_r20_tianhu_dihu_flags() -> None:
    assert best_pattern(Hand.parse("23445677p345789s"), tianhu=True) == PatternResult("天胡", 18)
    assert best_pattern(Hand.parse("23445677p345789s"), dihu=True) == PatternResult("地胡", 18)
    # equal fan: the later-listed, more specific pattern names it
    hand = Hand.parse("11224444557799m")
    assert best_pattern(hand, tianhu=True) == PatternResult("青龍七對", 18)


def test_r20_not_winning_is_none() -> None:
    assert score("23445677p345788s") is None
    assert score("1112345678999m") is None  # 13 tiles


def test_r30_waits_fan_and_dajiao() -> None:
    hand = Hand.parse("1112345678999m")
    fans = waits_fan(hand)
    assert set(fans) == set(range(9))
    assert all(r == PatternResult("清一色", 6) for r in fans.values())
    assert max_fan(hand) == PatternResult("清一色", 6)


def test_r30_dajiao_is_the_largest_wait() -> None:
    # 11m 22m + sets: waits 1m (對對胡? no: 111 + 22 pair) and 2m
    hand = Hand.parse("1122m [333p] [555s] [777s]")
    fans = waits_fan(hand)
    assert fans == {0: PatternResult("對對胡", 3), 1: PatternResult("對對胡", 3)}
    mixed = Hand.parse("23m55p [111s] [999p] [444m]")
    assert max_fan(mixed) == PatternResult("平胡", 1)
    assert max_fan(Hand.parse("1133m557p [111s] [999p]")) is None


def test_r11_r30_waits_fan_skips_a_fifth_copy() -> None:
    assert waits_fan(Hand.parse("5m234p567p789p [555m]")) == {}
    assert max_fan(Hand.parse("5m234p567p789p [555m]")) is None


def test_r30_waits_fan_takes_explicit_waits() -> None:
    hand = Hand.parse("1112345678999m")
    assert waits_fan(hand, [tile_from_str("5m")]) == {4: PatternResult("清一色", 6)}


def test_r21_seed_duiduihu_on_baoting_discard_costs_3_plus_6() -> None:
    fan = payment_fan(3, winner_baoting=False, payer_baoting=True, pattern="對對胡")
    assert fan == FanBreakdown(9, (("對對胡", 3), ("報聽", 6)))


def test_r21_baoting_counts_for_each_party() -> None:
    assert payment_fan(1, winner_baoting=True, payer_baoting=True).total == 13


def test_r21_gang_shang_hua_and_pao_add_one() -> None:
    assert payment_fan(1, winner_baoting=False, payer_baoting=False, gang_shang_hua=True).total == 2
    assert payment_fan(6, winner_baoting=False, payer_baoting=False, gang_shang_pao=True).total == 7
    with pytest.raises(ValueError):
        payment_fan(1, winner_baoting=False, payer_baoting=False, gang_shang_hua=True,
                    gang_shang_pao=True)  # fmt: skip


def test_r36_seed_dealer_feeds_qingyise_streak_5_is_11() -> None:
    fan = payment_fan(6, winner_baoting=False, payer_baoting=False, dealer_involved=True, streak=5)
    assert fan.total == 11
    assert fan.items[-1] == ("連莊", 5)


def test_r36_seed_dealer_selfdraws_pinghu_streak_5_each_pays_6() -> None:
    fan = payment_fan(1, winner_baoting=False, payer_baoting=False, dealer_involved=True, streak=5)
    assert fan.total == 6


def test_r36_no_bonus_when_dealer_not_involved() -> None:
    assert payment_fan(1, winner_baoting=False, payer_baoting=False, streak=5).total == 1


def test_r22_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        payment_fan(0, winner_baoting=False, payer_baoting=False)
    with pytest.raises(ValueError):
        payment_fan(1, winner_baoting=False, payer_baoting=False, streak=-1)
