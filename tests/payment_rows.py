"""One ledger row of every kind the engine writes, for the tests of what players read about
them (the web page's settlement, the terminal's): a new or reworded reason shows there."""

from __future__ import annotations

from duyun.engine.ledger import Payment
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


def every_kind_of_payment_row() -> list[Payment]:
    """One ledger row of every kind the engine writes, made by the engine's own settlement
    functions, so that a new or reworded reason shows here rather than at a player's table."""
    kong_income = bean_rows(PaymentTerms(0, 0, (False,) * 4, 1), 1, [2], 1, "直槓 銀豆")
    terms = PaymentTerms(dealer=0, streak=2, baoting=(True, False, False, False), base_points=1)
    pattern = PatternResult("對對胡", 3)
    ready = {0: pattern, 1: None, 2: PatternResult("清一色", 3), 3: None}
    rows = [
        *discard_win_rows(terms, 0, pattern, 1, gang_shang_pao=True, kong_income=kong_income),
        *discard_win_rows(terms, 2, pattern, 3, gang_shang_pao=False),
        *self_draw_rows(terms, 0, pattern, [1, 2, 3], gang_shang_hua=True),
        *self_draw_rows(terms, 2, pattern, [1], gang_shang_hua=False),
        *rob_kong_rows(terms, 3, pattern, 1),
        *bean_rows(terms, 1, [0, 2, 3], 1, "面下槓 銀豆"),
        *bean_rows(terms, 3, [0, 1, 2], 2, "暗槓 金豆"),
        *exhaustive_draw_rows(terms, [0, 1, 2, 3], ready, kong_income),
        *escape_rows(terms, 1, [0, 2, 3], units=12, da_jiao=None)[1],
        *escape_rows(terms, 1, [0, 2], units=1, da_jiao=ready)[1],
    ]
    return rows
