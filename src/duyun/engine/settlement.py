"""Settlement: who pays whom for a win, a kong, a draw or an escape (RULES R12-R14, R28-R31,
R36, R45).

Pure functions from the facts of a hand to ledger rows. The round decides *what* happened
(the winner, the pattern, whether it was 槓上花, who is ready and their 大叫); this module only
turns those facts into :class:`~duyun.engine.ledger.Payment` rows, so that "how is a 槓上炮
paid" has one answer in one place.

Payers are always passed in ("every other player still in the hand"), never derived from the
number of seats: the 血戰到底 variant (R52-R57), where winners leave the hand, reuses these
functions with fewer players.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from duyun.engine.ledger import Payment
from duyun.scoring import FanBreakdown, PatternResult, payment_fan

BEAN_RULE = "R12"


@dataclass(frozen=True, slots=True)
class PaymentTerms:
    """The facts every payment of a hand depends on besides its two parties."""

    dealer: int
    streak: int  # R36: added to the fan of every win payment the dealer makes or receives
    baoting: tuple[bool, ...]  # R21: +6 for each party that declared 報聽
    base_points: int  # R40


def fan_between(
    table: PaymentTerms,
    pattern: PatternResult,
    winner: int,
    payer: int,
    *,
    gang_shang_hua: bool = False,
    gang_shang_pao: bool = False,
) -> FanBreakdown:
    """R21, R22, R36: the extras and the dealer bonus depend on the two parties."""
    return payment_fan(
        pattern.fan,
        pattern=pattern.name,
        winner_baoting=table.baoting[winner],
        payer_baoting=table.baoting[payer],
        gang_shang_hua=gang_shang_hua,
        gang_shang_pao=gang_shang_pao,
        dealer_involved=table.dealer in (winner, payer),
        streak=table.streak,
    )


def row(
    table: PaymentTerms, payer: int, payee: int, breakdown: FanBreakdown, rule: str, what: str
) -> Payment:
    """One payment of ``breakdown.total`` fan × base, its reason listing the fan items."""
    detail = " + ".join(f"{name} {fan}" for name, fan in breakdown.items)
    return Payment(
        payer,
        payee,
        breakdown.total,
        breakdown.total * table.base_points,
        rule,
        f"{what}: {detail}",
    )


def bean_rows(
    table: PaymentTerms, kong_player: int, payers: Iterable[int], units: int, kind: str
) -> list[Payment]:
    """R12: a kong's beans, paid at once in base units, without the dealer bonus (R36).

    直槓: the discarder pays 1; 面下槓: every other player still in the hand pays 1; 暗槓:
    every other player still in the hand pays 2.
    """
    return [
        Payment(payer, kong_player, units, units * table.base_points, BEAN_RULE, kind)
        for payer in payers
    ]


def self_draw_rows(
    table: PaymentTerms,
    winner: int,
    pattern: PatternResult,
    payers: Iterable[int],
    *,
    gang_shang_hua: bool,
) -> list[Payment]:
    """R29 自摸 / 槓上花: every other player still in the hand pays, fan computed per payer."""
    what = "槓上花" if gang_shang_hua else "自摸"
    return [
        row(
            table,
            payer,
            winner,
            fan_between(table, pattern, winner, payer, gang_shang_hua=gang_shang_hua),
            "R29",
            what,
        )
        for payer in payers
    ]


def discard_win_rows(
    table: PaymentTerms,
    winner: int,
    pattern: PatternResult,
    discarder: int,
    *,
    gang_shang_pao: bool,
    kong_income: Sequence[Payment] = (),
) -> list[Payment]:
    """R28 點炮: the discarder pays the winner. 槓上炮 adds +1 fan (R21) and hands over the
    income of the discarder's last kong (``kong_income``), one full share per winner, as its
    own row with no dealer bonus."""
    breakdown = fan_between(table, pattern, winner, discarder, gang_shang_pao=gang_shang_pao)
    rows = [row(table, discarder, winner, breakdown, "R28", "點炮")]
    transfer = sum(income.points for income in kong_income) if gang_shang_pao else 0
    if transfer:
        rows.append(
            Payment(
                discarder,
                winner,
                transfer // table.base_points,
                transfer,
                "R28",
                "槓上炮: the kong's income handed over",
            )
        )
    return rows


def rob_kong_rows(
    table: PaymentTerms, winner: int, pattern: PatternResult, kong_player: int
) -> list[Payment]:
    """R13, R29: 搶槓 is settled like 點炮 with the kong player as the discarder."""
    return [
        row(
            table,
            kong_player,
            winner,
            fan_between(table, pattern, winner, kong_player),
            "R29",
            "搶槓",
        )
    ]


def da_jiao_row(
    table: PaymentTerms, payer: int, payee: int, best: PatternResult | None, rule: str
) -> Payment | None:
    """R30 查大叫: ``payer`` pays ready ``payee`` its 大叫 (``best``, None if not ready), with
    R21 報聽 and the R36 dealer bonus as they apply between the two."""
    if best is None:
        return None
    return row(
        table, payer, payee, fan_between(table, best, payee, payer), rule, f"查大叫 {best.name}"
    )


def exhaustive_draw_rows(
    table: PaymentTerms,
    players: Sequence[int],
    da_jiao: Mapping[int, PatternResult | None],
    ledger: Iterable[Payment],
) -> list[Payment]:
    """R30, R31, R14 at an exhaustive draw among ``players`` (those still in the hand).

    ``da_jiao[seat]`` is a player's 大叫 (None: not ready, R11 ignoring R17). Every not-ready
    player pays every ready one; then every not-ready player returns each bean payment it
    received in this hand (``ledger`` so far) to whoever paid it (黃豆), winners included.
    """
    ready = {seat for seat in players if da_jiao.get(seat) is not None}
    rows: list[Payment] = []
    for payer in players:
        if payer in ready:
            continue
        for payee in players:
            if payee in ready:
                found = da_jiao_row(table, payer, payee, da_jiao[payee], "R30")
                if found is not None:
                    rows.append(found)
    refunding = set(players) - ready
    rows.extend(
        Payment(
            income.payee,
            income.payer,
            income.fan,
            income.points,
            "R14",
            f"黃豆: returns {income.reason}",
        )
        for income in list(ledger)
        if income.rule == BEAN_RULE and income.payee in refunding
    )
    return rows


def escape_rows(
    table: PaymentTerms,
    escapee: int,
    others: Sequence[int],
    *,
    units: int,
    da_jiao: Mapping[int, PatternResult | None] | None,
) -> tuple[str, list[Payment]]:
    """R45: the escapee pays the larger of (a) ``units`` × base to each of ``others`` (the
    players still in the hand) and (b) — only when ``da_jiao`` is given, i.e. the wall holds
    four tiles or fewer — 查大叫 to every ready one of them. Compared by totals; a tie takes
    (a). Returns ``("flat" | "da_jiao", rows)``."""
    flat = [
        Payment(escapee, other, units, units * table.base_points, "R45", f"escape: {units} × base")
        for other in others
    ]
    if da_jiao is None:
        return "flat", flat
    by_da_jiao = [
        found
        for other in others
        if (found := da_jiao_row(table, escapee, other, da_jiao.get(other), "R45")) is not None
    ]
    if sum(p.points for p in by_da_jiao) > sum(p.points for p in flat):
        return "da_jiao", by_da_jiao
    return "flat", flat


__all__ = [
    "PaymentTerms",
    "bean_rows",
    "da_jiao_row",
    "discard_win_rows",
    "escape_rows",
    "exhaustive_draw_rows",
    "fan_between",
    "rob_kong_rows",
    "row",
    "self_draw_rows",
]
