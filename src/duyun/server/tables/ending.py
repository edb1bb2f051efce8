"""The end of a hand and of a match as data: the settlement of a finished hand (its summary
among the match's results and its ``hand_end`` message) and the ``match_end`` message.

Pure functions of what they are given; the table's state machine (``state.py``) calls them
when the store has answered (the settlement's coin rows, the match's rating changes), and a
restore calls :func:`settlement` with the rows it read back, so a table rebuilt after a crash
shows the same settlement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duyun.engine import Round
from duyun.server.store import CoinRow, RatingChange
from duyun.server.tables.seats import SEATS, HandSummary, win_summaries


def settlement(
    hand_id: int,
    hand_index: int,
    game: Round,
    rows: Sequence[CoinRow],
    *,
    hands: int,
    balances: list[int | None],
    next_hand_wait: float,
) -> tuple[HandSummary, dict[str, Any]]:
    """The settlement of ``game``, a finished hand: its summary among the match's results and
    its ``hand_end`` message. ``rows`` are the hand's coin rows in ledger order, one per engine
    payment (what each asked and what was paid, R41); ``balances`` the seats' balances after
    it (None: a bot's seat); ``hands`` the match's length."""
    result = game.result
    assert result is not None
    end = next(e for e in reversed(game.events) if e["type"] == "end")
    wins = [e for e in game.events if e["type"] == "win"]
    coins = [0] * SEATS
    payments: list[dict[str, Any]] = []
    for payment, row in zip(result.payments, rows, strict=True):
        coins[payment.payer] -= row.coins
        coins[payment.payee] += row.coins
        payments.append({**payment.to_json(), "coins": row.requested, "paid": row.coins})
    summary = HandSummary(
        hand_id,
        result.result,
        list(result.winners),
        list(result.totals),
        coins,
        win_summaries(wins),
    )
    last = hand_index + 1 >= hands
    message = {
        "type": "hand_end",
        "hand_id": hand_id,
        "hand_index": hand_index,
        "result": result.result,
        "winners": list(result.winners),
        "win_kind": None if result.win_kind is None else result.win_kind.value,
        "loser": result.loser,
        "wins": wins,
        "hands": end["hands"],
        # 血戰 (R57): the winners who left the table during the hand
        "left": list(end.get("left", [False] * SEATS)),
        "payments": payments,
        "points": list(result.totals),
        "coins": coins,
        "balances": balances,
        "next_dealer": result.next_dealer,
        "next_streak": result.next_streak,
        "next_hand_in": None if last else next_hand_wait,
    }
    return summary, message


def stored_result(game: Round) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A finished hand's ``end`` event and its ``win`` events: what its stored result holds."""
    end = next(e for e in reversed(game.events) if e["type"] == "end")
    wins = [e for e in game.events if e["type"] == "win"]
    return end, wins


def rating_lines(changes: list[RatingChange]) -> list[dict[str, Any]] | None:
    """The match summary's rating lines (issue 32); None: the match was not rated."""
    if not changes:
        return None
    return [
        {
            "seat": change.seat,
            "place": change.place,
            "before": change.before,
            "after": change.after,
            "change": change.after - change.before,
        }
        for change in changes
    ]


def match_end_message(
    reason: str,
    results: list[HandSummary],
    points: list[int],
    coins: list[int],
    ratings: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    """``match_end`` without its ``rematch`` (which the host decides)."""
    return {
        "type": "match_end",
        "reason": reason,
        "hands_played": len(results),
        "points": points,
        "coins": coins,
        # each seat's rating before and after (issue 32); null: the match was not rated
        "ratings": ratings,
        "results": [
            {
                "hand_id": h.hand_id,
                "result": h.result,
                "winners": h.winners,
                "points": h.points,
                "coins": h.coins,
                "wins": h.wins,
            }
            for h in results
        ],
    }
