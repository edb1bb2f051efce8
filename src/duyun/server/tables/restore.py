"""Rebuilding a table from a live match in the store (a restart, an adoption, a reload).

The seats come back as they were stored (an escaped seat stays with its bot), the finished
hands as the match summary, and the hand in progress is replayed from its stored events and
resumed exactly where it stopped: a hand whose result was not stored is finished, a pending
decision is asked again.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from duyun.engine import Round, replay
from duyun.server.store import LiveMatch, SettledHand
from duyun.server.tables import ending
from duyun.server.tables.seats import SEATS, HandSummary, Seat, bot_seat, win_summaries

if TYPE_CHECKING:
    from duyun.server.tables.table import Table


async def restore_table(table: Table, live: LiveMatch) -> None:
    """Rebuild ``table`` from ``live`` (called before the table's task runs)."""
    table.match_id = live.match_id
    table.lease = live.lease
    table.host.register_match(live.match_id, table)
    table.seed = live.spec.seed
    table.status = "playing"
    await _reseat(table, live)
    _summarise(table, live)
    table.hand_index = len(live.finished_hands)
    if live.hand is None:
        table.status = "between"
        if table.hand_index >= table.options.hands:
            await table.finish_match("completed")
            return
        if live.settled is not None:
            _show_settled(table, live.settled)
        # the wait counts from the hand's stored end, never from this restore: any number of
        # restarts between two hands adds only their own seconds (issue 37)
        table.set_timer("next_hand", table.next_hand_limit(), since=table.hand_ended_at)
        return
    events = [dict(e) for e in live.hand.events]
    table.hand_index = live.hand.index
    table.dealer, table.streak = live.hand.dealer, live.hand.streak
    game = (
        replay(events, require_end=False)  # exact, but a hand in progress
        if events
        else Round(table.deal(live.hand.seed), table.options.rules)
    )
    hand = table.new_hand(game, live.hand.hand_id)
    hand.stored = hand.released = len(events)
    for viewer in hand.seen:
        hand.seen[viewer] = len(hand.released_events(viewer))
    # resume: finish a hand whose result was not stored, or reopen its pending decision
    await table.run_effects(hand.resume(time.monotonic()))


def _show_settled(table: Table, settled: SettledHand) -> None:
    """The last hand as the table showed it when it ended: its view (the hand replayed from
    its events) and its settlement with the coins as stored, for every client arriving
    between hands; and when it ended, on this process's clock."""
    events = [dict(e) for e in settled.events]
    hand = table.new_hand(replay(events), settled.hand_id)
    hand.stored = hand.released = len(events)
    for viewer in hand.seen:
        hand.seen[viewer] = len(hand.released_events(viewer))
    _, table.last_hand_end = ending.settlement(
        table, settled.hand_id, settled.index, hand.game, settled.rows
    )
    ago = max(0.0, table.store.clock() - settled.finished.timestamp())
    table.hand_ended_at = time.monotonic() - ago


async def _reseat(table: Table, live: LiveMatch) -> None:
    for index, seat_spec in enumerate(live.spec.seats):
        if seat_spec.account_id is None:
            table.seats[index] = bot_seat(seat_spec.bot or table.config.default_bot)
            continue
        account = await table.host.store_call(table.store.account, seat_spec.account_id)
        seat = Seat(
            kind="human",
            name=account.name,
            bot_name=seat_spec.bot or table.options.bot,
            account_id=account.id,
            balance=account.balance,
            rating=account.rating,
            tuoguan=seat_spec.tuoguan or seat_spec.forced_tuoguan,
            forced_tuoguan=seat_spec.forced_tuoguan,
        )
        table.seats[index] = seat
        if seat_spec.forced_tuoguan:
            continue  # escaped or left before the restart: its bot plays on, nobody waits
        table.host.seat(account.id, table)
        # everyone was cut off by the failed process: a grace that runs out after a
        # restore is 托管, never R45 (issue 20 item 12)
        seat.cut_off_by_server = True
        table.set_timer(f"grace:{index}", table.config.reconnect_grace, index)


def _summarise(table: Table, live: LiveMatch) -> None:
    for record in live.finished_hands:
        res = record.result or {}
        table.results.append(
            HandSummary(
                record.hand_id,
                str(res.get("result", "")),
                list(res.get("winners", [])),
                list(res.get("totals", [0] * SEATS)),
                list(record.coins),
                win_summaries(list(res.get("wins", []))),
            )
        )
        table.dealer = int(res.get("next_dealer", table.dealer))
        table.streak = int(res.get("next_streak", table.streak))
