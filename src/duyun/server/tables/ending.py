"""The end of a hand and of a match: settling, the ``hand_end`` and ``match_end`` messages,
and letting the players go. Functions of a :class:`~duyun.server.tables.table.Table`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from duyun.engine import HandResult
from duyun.server.tables.seats import SEATS, HandSummary, win_summaries

if TYPE_CHECKING:
    from duyun.server.tables.table import Table


async def finish_hand(table: Table) -> None:
    """Settle the hand that ended: store its result and payments, tell everyone, then the
    next hand's wait or the end of the match."""
    hand = table.hand
    assert hand is not None
    game = hand.game
    assert game.result is not None
    result = game.result
    end = next(e for e in reversed(game.events) if e["type"] == "end")
    wins = [e for e in game.events if e["type"] == "win"]
    coins, payments = await _settle(table, hand.hand_id, result, {**end, "wins": wins})
    table.results.append(
        HandSummary(
            hand.hand_id,
            result.result,
            list(result.winners),
            list(result.totals),
            coins,
            win_summaries(wins),
        )
    )
    table.dealer, table.streak = result.next_dealer, result.next_streak
    table.hand_index += 1
    last = table.hand_index >= table.options.hands
    table.last_hand_end = {
        "type": "hand_end",
        "hand_id": hand.hand_id,
        "hand_index": table.hand_index - 1,
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
        "balances": [None if s is None else s.balance for s in table.seats],
        "next_dealer": result.next_dealer,
        "next_streak": result.next_streak,
        "next_hand_in": None if last else table.config.next_hand_wait,
    }
    table.send_to_all(table.last_hand_end)
    if last:
        await finish_match(table, "completed")
        return
    table.status = "between"
    for _, seat in table.humans():
        seat.ready = False
    table.set_timer("next_hand", table.next_hand_limit())
    table.broadcast_table()
    await table.maybe_next_hand()


async def _settle(
    table: Table, hand_id: int, result: HandResult, stored_result: dict[str, Any]
) -> tuple[list[int], list[dict[str, Any]]]:
    """Store the hand's result and payments; returns the coins each seat won or lost and the
    payments as ``hand_end`` lists them (the coins asked for and paid, R41)."""
    rows = await table.host.store_call(
        table.store.finish_hand, hand_id, list(result.payments), stored_result, table.lease
    )
    coins = [0] * SEATS
    payments: list[dict[str, Any]] = []
    for payment, row in zip(result.payments, rows, strict=False):
        coins[payment.payer] -= row.coins
        coins[payment.payee] += row.coins
        payments.append({**payment.to_json(), "coins": row.requested, "paid": row.coins})
    await _refresh_balances(table)
    return coins, payments


async def _refresh_balances(table: Table) -> None:
    seats = [seat for _, seat in table.humans() if seat.account_id is not None]
    if not seats:
        return
    balances = await table.host.store_call(table.store.balances, [s.account_id for s in seats])
    for seat in seats:
        assert seat.account_id is not None
        seat.balance = balances[seat.account_id]


async def finish_match(table: Table, reason: str) -> None:
    """Store the match's end, send ``match_end`` and let everyone go."""
    assert table.match_id is not None
    table.cancel_all_timers()
    await table.host.store_call(table.store.finish_match, table.match_id, reason, table.lease)
    table.status = "ended"
    table.dissolve_votes = None
    table.match_end = {
        "type": "match_end",
        "reason": reason,
        "hands_played": len(table.results),
        "points": table.match_points(),
        "coins": table.match_coins(),
        "results": [
            {
                "hand_id": h.hand_id,
                "result": h.result,
                "winners": h.winners,
                "points": h.points,
                "coins": h.coins,
                "wins": h.wins,
            }
            for h in table.results
        ],
    }
    table.broadcast_table()
    table.send_to_all(table.match_end)
    for _, seat in table.humans():
        if seat.account_id is not None:
            table.host.unseat(seat.account_id, table)
        if seat.client is not None:
            table.host.detach_client(seat.client, table)
    for client in table.spectators:
        table.host.watch(client, None)
    table.host.drop_table(table)
