"""Leaving a hand before it ends: when a seat may (R45, R57) and what an escape costs (R45).

:meth:`Round.escape` and :meth:`Round.leave` change the round; this module only reads it,
through :class:`LeavingState` (the public fields and queries it needs), so it never reaches
inside the round and round.py is its only user. Cold code (at most once per hand per seat):
interpreted, out of the compiled round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from duyun.engine import settlement
from duyun.engine.actions import IllegalActionError
from duyun.engine.ledger import Payment
from duyun.engine.phases import Phase
from duyun.rules import RuleSet
from duyun.scoring import PatternResult

LAST_TILES = 4  # R19, R45 (b): the last four tiles of the wall


class LeavingState(Protocol):
    """What deciding on an escape or a leave reads of a hand."""

    dealer: int
    streak: int
    phase: Phase
    rules: RuleSet

    @property
    def won(self) -> Sequence[bool]: ...
    @property
    def left(self) -> Sequence[bool]: ...
    @property
    def baoting(self) -> Sequence[bool]: ...
    @property
    def wall_remaining(self) -> int: ...
    def da_jiao(self, seat: object) -> PatternResult | None: ...


def check_leave(game: LeavingState, seat: int) -> None:
    """:class:`IllegalActionError` unless ``seat`` may leave the table now (R57): it has won
    in a 血戰 hand that goes on, and has not left already."""
    if game.phase is Phase.ENDED:
        raise IllegalActionError(f"{seat} leave: the hand is over")
    if not game.won[seat]:
        raise IllegalActionError(
            f"{seat} leave: only a player who has won may leave a 血戰 hand that goes on "
            "(R57); a player still in the hand who quits escapes (R45)"
        )
    if game.left[seat]:
        raise IllegalActionError(f"{seat} leave: seat {seat} has already left the table")


def check_escape(game: LeavingState, seat: int) -> None:
    """:class:`IllegalActionError` when the hand is over: there is nothing left to quit."""
    if game.phase is Phase.ENDED:
        raise IllegalActionError(f"{seat} quit: the hand is over")


def escape_penalty(
    game: LeavingState, seat: int, others: list[int]
) -> tuple[Literal["flat", "da_jiao"], list[Payment]]:
    """R45: which penalty ``seat`` pays to ``others`` (the players still in the hand),
    ``"flat"`` or ``"da_jiao"``, and its rows: the larger of (a) the flat units and (b) 查大叫
    near the end of the wall."""
    da_jiao = (
        {other: game.da_jiao(other) for other in others}
        if game.wall_remaining <= LAST_TILES  # R45 (b)
        else None
    )
    terms = settlement.PaymentTerms(
        game.dealer, game.streak, tuple(game.baoting), game.rules.base_points
    )
    kind, rows = settlement.escape_rows(
        terms, seat, others, units=game.rules.escape_penalty_units, da_jiao=da_jiao
    )
    return ("da_jiao" if kind == "da_jiao" else "flat"), rows
