"""The end of a hand and of a match: settling, the ``hand_end`` and ``match_end`` messages,
and letting the players go. Functions of a :class:`~duyun.server.tables.table.Table`."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from duyun.engine import Round
from duyun.server.store import CoinRow, RatingChange
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
    rows = await table.host.store_call(
        table.store.finish_hand,
        hand.hand_id,
        list(result.payments),
        {**end, "wins": wins},
        table.lease,
    )
    await _refresh_balances(table)
    table.hand_index += 1
    summary, hand_end = settlement(table, hand.hand_id, table.hand_index - 1, game, rows)
    table.results.append(summary)
    table.last_hand_end = hand_end
    table.dealer, table.streak = result.next_dealer, result.next_streak
    # the wait for the next hand counts from here (a restore counts it from the stored end)
    table.hand_ended_at = time.monotonic()
    table.send_to_all(hand_end)
    if table.hand_index >= table.options.hands:
        await finish_match(table, "completed")
        return
    table.status = "between"
    for _, seat in table.humans():
        seat.ready = False
    table.set_timer("next_hand", table.next_hand_limit(), since=table.hand_ended_at)
    table.broadcast_table()
    await table.maybe_next_hand()


def settlement(
    table: Table, hand_id: int, hand_index: int, game: Round, rows: Sequence[CoinRow]
) -> tuple[HandSummary, dict[str, Any]]:
    """The settlement of ``game``, a finished hand: its summary among the match's results and
    its ``hand_end`` message. ``rows`` are the hand's coin rows in ledger order, one per engine
    payment (what each asked and what was paid, R41): as the settlement stored them, or as a
    restore reads them back, so a table rebuilt after a crash shows the same settlement."""
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
    last = hand_index + 1 >= table.options.hands
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
        "balances": [None if s is None else s.balance for s in table.seats],
        "next_dealer": result.next_dealer,
        "next_streak": result.next_streak,
        "next_hand_in": None if last else table.config.next_hand_wait,
    }
    return summary, message


async def _refresh_balances(table: Table) -> None:
    seats = [seat for _, seat in table.humans() if seat.account_id is not None]
    if not seats:
        return
    balances = await table.host.store_call(table.store.balances, [s.account_id for s in seats])
    for seat in seats:
        assert seat.account_id is not None
        seat.balance = balances[seat.account_id]


def _apply_ratings(table: Table, changes: list[RatingChange]) -> list[dict[str, Any]] | None:
    """The match summary's rating lines, and the seats' (and bot levels') new ratings, which
    the table shows from now on."""
    if not changes:
        return None
    lines = []
    for change in changes:
        seat = table.seats[change.seat]
        if seat is not None and seat.kind == "human":
            seat.rating = change.after
            client = seat.client
            if client is not None and client.account is not None:
                # the next table this connection sits at (by code) shows the new rating
                client.account = dataclasses.replace(
                    client.account,
                    rating=change.after,
                    rated_matches=client.account.rated_matches + 1,
                )
        if change.bot is not None:
            table.host.bot_ratings[change.bot] = change.after
        lines.append(
            {
                "seat": change.seat,
                "place": change.place,
                "before": change.before,
                "after": change.after,
                "change": change.after - change.before,
            }
        )
    return lines


async def finish_match(table: Table, reason: str) -> None:
    """Store the match's end, send ``match_end`` and let everyone go."""
    assert table.match_id is not None
    table.cancel_all_timers()
    changes: list[RatingChange] = await table.host.store_call(
        table.store.finish_match, table.match_id, reason, table.lease
    )
    ratings = _apply_ratings(table, changes)
    table.status = "ended"
    table.dissolve_votes = None
    table.match_end = {
        "type": "match_end",
        "reason": reason,
        "hands_played": len(table.results),
        "points": table.match_points(),
        "coins": table.match_coins(),
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
            for h in table.results
        ],
    }
    again = None
    if reason == "completed":
        # 再來一局 (issue 31 item 5): the same private table, waiting again; a room's players
        # quick-match again in the same room
        if table.options.kind == "private":
            again = {"code": table.host.rematch(table).code, "room": None}
        else:
            again = {"code": None, "room": table.options.room}
    table.match_end["rematch"] = again
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
