"""Settlement as pure functions: facts of a hand in, ledger rows out (R12-R14, R28-R31, R36,
R45). Payers are passed in, so a hand with fewer players still in it (血戰, R52-R57) settles
with the same functions."""

from __future__ import annotations

from duyun.engine.ledger import Payment, net_points
from duyun.engine.settlement import (
    PaymentTerms,
    bean_rows,
    discard_win_rows,
    escape_rows,
    exhaustive_draw_rows,
    rob_kong_rows,
    self_draw_rows,
)
from duyun.scoring import PatternResult

PINGHU = PatternResult("平胡", 1)
PENGPENG = PatternResult("對對胡", 3)
TABLE = PaymentTerms(dealer=0, streak=2, baoting=(False, False, True, False), base_points=6)


def _cells(rows: list[Payment]) -> list[tuple[int, int, int, str]]:
    return [(r.payer, r.payee, r.points, r.rule) for r in rows]


def test_r29_r36_r21_self_draw_paid_by_the_players_still_in_the_hand_only() -> None:
    rows = self_draw_rows(TABLE, 1, PENGPENG, [0, 2], gang_shang_hua=True)
    # payer 0 is the dealer: 3 + 槓上花 1 + streak 2; payer 2 declared 報聽: 3 + 6 + 1
    assert _cells(rows) == [(0, 1, 36, "R29"), (2, 1, 60, "R29")]


def test_r28_gang_shang_pao_hands_over_the_last_kongs_income_without_dealer_bonus() -> None:
    income = bean_rows(TABLE, 3, [0, 1, 2], 2, "暗槓 金豆")
    rows = discard_win_rows(TABLE, 0, PINGHU, 3, gang_shang_pao=True, kong_income=income)
    # 平胡 1 + 槓上炮 1 + streak 2 (dealer wins) = 4 fan; then the 36 points of income
    assert _cells(rows) == [(3, 0, 24, "R28"), (3, 0, 36, "R28")]


def test_r13_rob_kong_is_paid_by_the_kong_player() -> None:
    assert _cells(rob_kong_rows(TABLE, 2, PINGHU, 1)) == [(1, 2, 42, "R29")]  # 1 + 報聽 6


def test_r30_r31_r14_draw_among_the_players_still_in_the_hand() -> None:
    ledger = bean_rows(TABLE, 1, [0, 2, 3], 1, "面下槓 銀豆")
    da_jiao = {0: PINGHU, 1: None, 3: None}
    rows = exhaustive_draw_rows(TABLE, [0, 1, 3], da_jiao, ledger)
    # not-ready 1 and 3 pay ready 0 (dealer: 1 + 2); 1 returns its three bean payments
    assert _cells(rows) == [
        (1, 0, 18, "R30"),
        (3, 0, 18, "R30"),
        (1, 0, 6, "R14"),
        (1, 2, 6, "R14"),
        (1, 3, 6, "R14"),
    ]
    assert sum(net_points(rows)) == 0


def test_r45_escape_takes_the_larger_total_and_a_tie_takes_the_flat_penalty() -> None:
    flat_only = escape_rows(TABLE, 3, [0, 1, 2], units=16, da_jiao=None)
    assert flat_only[0] == "flat" and [r.points for r in flat_only[1]] == [96, 96, 96]
    big = PatternResult("青龍七對", 18)
    kind, rows = escape_rows(TABLE, 3, [0, 1, 2], units=16, da_jiao={0: big, 1: big, 2: None})
    # 查大叫: seat 0 (dealer) 18 + 2 = 20 fan, seat 1 18 fan: 228 points < flat 3 × 96 = 288
    assert kind == "flat" and sum(r.points for r in rows) == 288
    huge = PatternResult("x", 30)
    kind, rows = escape_rows(TABLE, 3, [0, 1], units=16, da_jiao={0: huge, 1: huge})
    assert kind == "da_jiao" and _cells(rows) == [(3, 0, 192, "R45"), (3, 1, 180, "R45")]
    tie = PatternResult("y", 16)
    kind, _ = escape_rows(TABLE, 3, [1], units=16, da_jiao={1: tie})
    assert kind == "flat"
