"""The strong bot's expected-value arithmetic (duyun.bots.expectation), checked by hand.

Each test builds a :class:`SeatSituation` directly, so the probabilities and payments can be worked
out on paper from the rules they cite.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duyun.analysis import waits as find_waits
from duyun.bots.expectation import (
    NOT_READY,
    ReadyRates,
    SeatSituation,
    bean_chances,
    chain,
    payment,
    ready_rates,
    wait_fans,
    winning_fan,
)
from duyun.hand import Hand, Meld, MeldKind
from duyun.scoring import best_pattern
from duyun.tiles import parse_tiles, to_counts

BASE = SeatSituation(
    seat=0,
    rounds=5,
    unseen=80,
    hazards=(0.0,) * 5,
    discard_rate=(0.0, 0.5, 0.5, 0.5),
    baoting_discarders=(False, False, False, False),
    has_bean=False,
    baoting=False,
    streak=0,
    dealer=1,
    not_ready_opponents=0.0,
    ready_opponents_cost=0.0,
    bean_income=0.0,
    win_bonus=0.0,
)


def tile(text: str) -> int:
    return parse_tiles(text)[0]


def unseen_with(live: dict[str, int]) -> list[int]:
    unseen = [0] * 27
    for text, count in live.items():
        unseen[tile(text)] = count
    return unseen


def test_wait_fans_reads_each_wait_and_its_pattern_r11_r20() -> None:
    """111222444m3399p waits on 3p and 9p, each completing a 對對胡 (3 fan); 23445677p345789s
    minus 7p (a 13-tile 平胡 shape 2344567p345789s) waits 1p/4p/7p at 1 fan."""
    toitoi = to_counts(parse_tiles("111222444m3399p"))
    assert wait_fans(toitoi, ()) == ((tile("3p"), 3), (tile("9p"), 3))
    plain = to_counts(parse_tiles("2344567p345789s"))
    assert {w for w, _ in wait_fans(plain, ())} == {tile("1p"), tile("4p"), tile("7p")}
    assert all(fan == 1 for _, fan in wait_fans(plain, ()))
    assert wait_fans(plain, ()) == tuple((w, 1) for w in sorted(w for w, _ in wait_fans(plain, ())))
    hand = Hand.parse("2344567p345789s")
    assert hand.tile_count == 13


def test_one_wait_pinghu_without_bean_wins_only_by_self_draw_r17() -> None:
    """A single 平胡 wait with 3 live of 80 unseen, no bean, nobody 報聽: no discard win is
    allowed (R17), so p_win over 5 draws is 1 - (77/80)^5 and each win is paid 1 fan by each
    of the three others (R29)."""
    waits = ((tile("5p"), 1),)
    rates = ready_rates(BASE, waits, unseen_with({"5p": 3}))
    assert rates.p_discard == 0.0 and rates.v_discard == 0.0
    assert rates.p_self == pytest.approx(3 / 80)
    assert rates.v_self == pytest.approx(3 / 80 * 3)
    outcome = chain(BASE, (), rates)
    assert outcome.p_win == pytest.approx(1 - (77 / 80) ** 5)
    assert outcome.value == pytest.approx(3 * (1 - (77 / 80) ** 5))


def test_a_bean_opens_discard_wins_for_pinghu_r15_r17() -> None:
    """With a bean the same wait also wins off each opponent's discard: per round the chance
    is 3/80 x 0.5 for each of three discarders; every such win is paid 1 fan by the
    discarder (R28)."""
    table = replace(BASE, has_bean=True)
    rates = ready_rates(table, ((tile("5p"), 1),), unseen_with({"5p": 3}))
    assert rates.p_discard == pytest.approx(3 * (3 / 80) * 0.5)
    assert rates.v_discard == pytest.approx(3 * (3 / 80) * 0.5 * 1)
    round_win = rates.p_discard + (1 - rates.p_discard) * rates.p_self
    assert chain(table, (), rates).p_win == pytest.approx(1 - (1 - round_win) ** 5)


def test_a_pattern_wait_wins_on_discards_without_a_bean_r17_r20() -> None:
    """對對胡 (3 fan) is bigger than 平胡: it may win off any discard without a bean."""
    rates = ready_rates(BASE, ((tile("5p"), 3),), unseen_with({"5p": 2}))
    assert rates.p_discard == pytest.approx(3 * (2 / 80) * 0.5)
    assert rates.v_self == pytest.approx(2 / 80 * 9)


def test_pinghu_may_win_off_a_baoting_discarder_only_r27() -> None:
    """R27: without a bean, 平胡 wins off the 報聽 player's discard (paid 1 + 6, R21) and no
    other's."""
    table = replace(BASE, baoting_discarders=(False, False, True, False))
    rates = ready_rates(table, ((tile("5p"), 1),), unseen_with({"5p": 4}))
    assert rates.p_discard == pytest.approx((4 / 80) * 0.5)
    assert rates.v_discard == pytest.approx((4 / 80) * 0.5 * 7)


def test_payment_adds_baoting_and_streak_r21_r22_r36() -> None:
    """報聽 +6 per declaring party, the streak when the dealer pays or is paid."""
    table = replace(BASE, baoting=True, streak=5, dealer=2)
    table = replace(table, baoting_discarders=(True, False, True, False))
    assert payment(table, 3, 1) == 3 + 6
    assert payment(table, 3, 2) == 3 + 6 + 6 + 5
    assert payment(replace(table, dealer=0), 1, 3) == 1 + 6 + 5


def test_one_step_chain_by_hand() -> None:
    """One step from ready with chance a per draw, then a wait won with chance b per draw,
    over two rounds: the only way to win is ready at draw 1 and win at draw 2, a * b."""
    a, b = 0.25, 0.1
    ready = ReadyRates(0.0, 0.0, b, b * 3, 0.0)
    outcome = chain(replace(BASE, rounds=2), (a,), ready)
    assert outcome.p_win == pytest.approx(a * b)
    assert outcome.value == pytest.approx(a * b * 3)
    # ready at the draw: ready at draw 1 and no win at draw 2, or ready only at draw 2
    assert outcome.p_ready_at_draw == pytest.approx(a * (1 - b) + (1 - a) * a)
    assert outcome.p_unready_at_draw == pytest.approx((1 - a) ** 2)


def test_draw_settles_chadajiao_and_huangdou_r14_r30() -> None:
    """At the end of the wall a ready hand collects its 大叫 (times the opponents expected not
    ready), a hand that is not ready pays the ready ones and returns its bean income."""
    table = replace(BASE, rounds=1, ready_opponents_cost=2.5, bean_income=3.0)
    ready = ReadyRates(0.0, 0.0, 0.0, 0.0, 4.0)
    assert chain(table, (), ready).value == pytest.approx(4.0)
    assert chain(table, (0.0,), ready).value == pytest.approx(-(2.5 + 3.0))


def test_opponent_hazard_ends_the_hand_first() -> None:
    """With a hazard h every round the hand survives to draw k with (1-h)^k; a ready hand
    winning with chance b per draw wins sum_k (1-h)^k (1-b)^(k-1) b."""
    h, b, n = 0.2, 0.1, 4
    table = replace(BASE, rounds=n, hazards=(h,) * n)
    outcome = chain(table, (), ReadyRates(0.0, 0.0, b, b, 0.0))
    expected = sum((1 - h) ** k * (1 - b) ** (k - 1) * b for k in range(1, n + 1))
    assert outcome.p_win == pytest.approx(expected)


def test_not_ready_never_wins() -> None:
    assert chain(BASE, (0.0, 0.0), NOT_READY).p_win == 0.0


@settings(max_examples=60, deadline=None)
@given(
    stages=st.lists(st.floats(0.0, 1.0), max_size=4),
    p_self=st.floats(0.0, 0.9),
    p_discard=st.floats(0.0, 0.9),
    hazard=st.floats(0.0, 0.5),
    rounds=st.integers(0, 14),
)
def test_chain_probabilities_add_up(
    stages: list[float], p_self: float, p_discard: float, hazard: float, rounds: int
) -> None:
    """Invariant: win, reaching the draw ready, reaching it not ready and someone else
    ending the hand first never exceed certainty, and more rounds never lower p_win."""
    table = replace(BASE, rounds=rounds, hazards=(hazard,) * max(rounds, 1))
    ready = ReadyRates(p_discard, p_discard, p_self, p_self, 0.0)
    outcome = chain(table, stages, ready)
    total = outcome.p_win + outcome.p_ready_at_draw + outcome.p_unready_at_draw
    assert 0.0 <= outcome.p_win <= 1.0
    assert total <= 1.0 + 1e-9
    if hazard == 0.0:
        assert math.isclose(total, 1.0, rel_tol=1e-9, abs_tol=1e-9)
    longer = chain(replace(table, rounds=rounds + 1), stages, ready)
    assert longer.p_win >= outcome.p_win - 1e-12


def _winning_hand(rng: random.Random) -> tuple[list[int], tuple[Meld, ...]] | None:
    """A random winning hand (concealed counts, melds), pattern-rich: few suits, many pungs."""
    suits = rng.choice([[0], [0, 1], [0, 1, 2], [1, 2]])
    kinds = [t for t in range(27) if t // 9 in suits]
    if rng.random() < 0.25:  # 七對 / 龍七對 (R10)
        counts = [0] * 27
        for _ in range(7):
            counts[rng.choice(kinds)] += 2
        return (counts, ()) if max(counts) <= 4 else None
    counts = [0] * 27
    melds: list[Meld] = []
    for _ in range(4):
        tile = rng.choice(kinds)
        roll = rng.random()
        if roll < 0.3:
            melds.append(Meld(rng.choice(list(MeldKind)), tile))
        elif roll < 0.65 or tile % 9 > 6:
            counts[tile] += 3
        else:
            for step in range(3):
                counts[tile + step] += 1
    counts[rng.choice(kinds)] += 2
    held = list(counts)
    for meld in melds:
        held[meld.tile] += meld.kind.size
    return (counts, tuple(melds)) if max(held) <= 4 else None


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_winning_fan_equals_best_pattern_r20(seed: int) -> None:
    """The fast fan reader agrees with duyun.scoring.best_pattern on every wait of random
    ready hands (a random winning hand less one tile), pattern-rich ones included."""
    rng = random.Random(seed)
    built = _winning_hand(rng)
    if built is None:
        return
    counts, melds = built
    counts[rng.choice([t for t in range(27) if counts[t]])] -= 1
    held = list(counts)
    for meld in melds:
        held[meld.tile] += meld.kind.size
    found = find_waits(counts, held)
    for wait in found:
        counts[wait] += 1
        expected = best_pattern(Hand.from_counts(counts, melds))
        assert expected is not None
        assert winning_fan(counts, melds) == expected.fan
        counts[wait] -= 1
    assert [w for w, _ in wait_fans(counts, melds)] == found


# ---------------------------------------------------------------------- kongs to come


def test_chain_counts_the_draws_still_made_before_the_hand_ends() -> None:
    """A hand that never advances draws once per round until the wall ends (5 rounds, no
    hazard: 5 draws). With a per-round hazard h of someone else ending the hand first, the
    draw of round r happens with chance (1 - h)^r. A ready hand that self-draws with chance
    s stops drawing after its win: draws = sum over r of (1 - s)^(r - 1)."""
    assert chain(BASE, (0.0,), NOT_READY).draws == pytest.approx(5.0)
    risky = replace(BASE, hazards=(0.1,) * 5)
    assert chain(risky, (0.0,), NOT_READY).draws == pytest.approx(sum(0.9**r for r in range(1, 6)))
    ready = ReadyRates(0.0, 0.0, 0.2, 0.6, 0.0)
    assert chain(BASE, (), ready).draws == pytest.approx(sum(0.8**r for r in range(5)))


def test_bean_chances_of_a_triplet_and_a_pong_by_hand_r12() -> None:
    """8 draws left, 80 unseen, opponents discarding a live tile half the time. A concealed
    555m with the fourth 5m live: drawn with chance 8/80 = 0.1 (暗槓: 2 from each of three, 6
    fan), else discarded by one of the three opponents, each drawing as often: 3 x 0.1 x 0.5
    = 0.15 (直槓: 1 from the discarder). 0.1 x 6 + 0.15 x 1 = 0.75 fan over 0.25 kongs. A pong
    of 3p with its fourth live adds a 面下槓 (1 from each of three) when drawn: 0.1 x 3."""
    counts = to_counts(parse_tiles("555m12p789s"))
    unseen = unseen_with({"5m": 1, "3p": 1, "9s": 2})
    beans = bean_chances(BASE, counts, (), unseen, 8.0)
    assert beans.income == pytest.approx(0.75)
    assert beans.chance == pytest.approx(0.25)
    ponged = (Meld(MeldKind.PONG, tile("3p")),)
    with_pong = bean_chances(BASE, counts, ponged, unseen, 8.0)
    assert with_pong.income == pytest.approx(0.75 + 0.3)
    assert with_pong.chance == pytest.approx(0.35)


def test_bean_chances_need_a_live_fourth_tile_r12() -> None:
    """No kong is possible when the fourth tile is visible (dead), from a pair, or without
    draws left; four alike are an option of the turn, not a chance to come."""
    counts = to_counts(parse_tiles("555m12p789s"))
    assert bean_chances(BASE, counts, (), unseen_with({"5m": 0}), 8.0).chance == 0.0
    assert bean_chances(BASE, counts, (), unseen_with({"5m": 1}), 0.0).income == 0.0
    pair = to_counts(parse_tiles("55m123p789s"))
    assert bean_chances(BASE, pair, (), unseen_with({"5m": 2}), 8.0).chance == 0.0
    four = to_counts(parse_tiles("5555m12p789s"))
    assert bean_chances(BASE, four, (), unseen_with({"1p": 3}), 8.0).chance == 0.0


def test_bean_chances_in_a_bloody_room_after_a_win_r54() -> None:
    """血戰 room, seat 3 has won and left play: it discards nothing and pays no bean (R53,
    R54). The same 555m and 3p pong as above, 8 draws of 80: 暗槓 0.1 x 2 x 2 = 0.4, 直槓 from
    one of the two players still in the hand 2 x 0.1 x 0.5 = 0.1 (x 1), 面下槓 0.1 x 2 = 0.2."""
    table = replace(BASE, discard_rate=(0.0, 0.5, 0.5, 0.0), payers=2)
    counts = to_counts(parse_tiles("555m12p789s"))
    unseen = unseen_with({"5m": 1, "3p": 1, "9s": 2})
    beans = bean_chances(table, counts, (Meld(MeldKind.PONG, tile("3p")),), unseen, 8.0)
    assert beans.income == pytest.approx(0.4 + 0.1 + 0.2)
    assert beans.chance == pytest.approx(0.1 + 0.1 + 0.1)
    nobody = bean_chances(
        replace(table, discard_rate=(0.0,) * 4, payers=0), counts, (), unseen, 8.0
    )
    assert nobody.income == 0.0 and nobody.chance == 0.0


@given(
    draws=st.floats(0.0, 60.0),
    live=st.integers(0, 1),
    rate=st.floats(0.0, 1.0),
)
def test_bean_chances_stay_probabilities(draws: float, live: int, rate: float) -> None:
    """However many draws are left, a triplet makes at most one kong (own draw or a
    discard), and its income is at most the 暗槓's 6 fan (R12)."""
    table = replace(BASE, discard_rate=(0.0, rate, rate, rate))
    counts = to_counts(parse_tiles("555m12p789s"))
    beans = bean_chances(table, counts, (), unseen_with({"5m": live}), draws)
    assert 0.0 <= beans.chance <= 1.0 + 1e-12
    assert 0.0 <= beans.income <= 6.0 + 1e-12
