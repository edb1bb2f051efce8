"""Payments: every transfer of points is one ledger row (RULES R41).

A row names the rule that caused it so that a disputed settlement can be traced back to
docs/rules.md. ``fan`` is the number of base-score units of the row (fan for wins and 查大叫,
bean units for beans, units transferred for 槓上炮 and escapes): ``points = fan * base``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Payment:
    """One ledger row: ``payer`` pays ``payee`` ``points``."""

    payer: int
    payee: int
    fan: int
    points: int
    rule: str
    reason: str

    def to_json(self) -> dict[str, object]:
        return {
            "payer": self.payer,
            "payee": self.payee,
            "fan": self.fan,
            "points": self.points,
            "rule": self.rule,
            "reason": self.reason,
        }

    def __reduce__(self) -> tuple[object, ...]:
        # explicit: compiled, this dataclass is a native class whose default reduction calls
        # __init__ without arguments (pickling a round in play pickles its ledger)
        return (
            Payment,
            (self.payer, self.payee, self.fan, self.points, self.rule, self.reason),
        )

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Payment:
        return cls(
            payer=int(str(data["payer"])),
            payee=int(str(data["payee"])),
            fan=int(str(data["fan"])),
            points=int(str(data["points"])),
            rule=str(data["rule"]),
            reason=str(data["reason"]),
        )


def net_points(payments: Iterable[Payment], seats: int = 4) -> list[int]:
    """Net points per seat; they always sum to zero (R41)."""
    totals = [0] * seats
    for row in payments:
        totals[row.payer] -= row.points
        totals[row.payee] += row.points
    return totals
