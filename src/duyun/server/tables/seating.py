"""Seating: joining, reconnecting, leaving, spectating, and escapes (R45) of a table.

Functions of a :class:`~duyun.server.tables.table.Table`, run on its task. Where a client sits
is the host's to record (``TableHost.seat``/``unseat``, ``attach_client``/``detach_client``,
``watch``): the table only asks.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from duyun.server.protocol import ProtocolError
from duyun.server.tables.inbox import Unspectate
from duyun.server.tables.seats import PRIVATE_TABLE_IDLE, Client, Seat, address_key

if TYPE_CHECKING:
    from duyun.server.tables.table import Table


async def join(
    table: Table, client: Client, seat_wanted: int | None, by_code: bool = False
) -> None:
    table.pending_joins = max(0, table.pending_joins - 1)
    account = client.account
    assert account is not None
    if table.status != "waiting":
        mine = [
            i for i, s in enumerate(table.seats) if s is not None and s.account_id == account.id
        ]
        if mine and table.status in ("playing", "between"):
            await _come_back(table, client, mine[0])
            return
        _unjoin(table, client)
        raise ProtocolError("wrong_state", f"table {table.code} has already started")
    if any(s is not None and s.account_id == account.id for s in table.seats):
        table.send_state(client, table.seat_of(client))
        return
    free = [i for i, s in enumerate(table.seats) if s is None]
    if not free:
        _unjoin(table, client)
        if table.options.kind == "room" and table.options.room is not None:
            await table.host.quick_match(client, table.options.room)
            return
        raise ProtocolError("table_full", f"table {table.code} has no free seat")
    address = address_key(client.address)
    if shares_address(table, address):
        # fair matching (issue 32): a stake room's table never seats two people of one
        # address; the join of a quick match that raced another from the same address looks
        # again (this table now holds the other one, so it is not picked twice)
        _unjoin(table, client)
        assert table.options.room is not None
        await table.host.quick_match(client, table.options.room)
        return
    kept = table.reserved.get(account.id)
    if kept is not None and kept in free:
        index = kept  # 再來一局: one's seat of the match before
    elif seat_wanted is not None and seat_wanted in free:
        index = seat_wanted
    else:
        # seats kept for the people of the match before go last
        others = [i for i in free if i not in table.reserved.values()]
        index = (others or free)[0]
    table.seats[index] = Seat(
        kind="human",
        name=account.name,
        bot_name=table.options.bot,
        account_id=account.id,
        ready=table.options.kind == "room",
        client=client,
        balance=account.balance,
        rating=account.rating,
        address=address,
    )
    table.host.attach_client(client, table)
    if by_code and table.options.kind == "room":
        table.arrivals += 1
    if client.spectating is table:
        table.spectators.discard(client)
        table.host.watch(client, None)
    table.broadcast_table()
    table.send_state(client, index)
    if table.options.kind == "room" and not table.has_timer("fill") and table.free_seats:
        table.set_timer("fill", table.config.bot_fill_wait)
        table.fill_at = time.monotonic() + table.config.bot_fill_wait
    await table.maybe_start()


def shares_address(table: Table, address: str | None) -> bool:
    """Whether a person of ``address`` (:func:`address_key`) may not sit at ``table``: a
    stake room's table (quick match) where someone of that address sits already, unless the
    config allows it (``same_address_tables``). Private tables are for friends: never."""
    if address is None or table.options.kind != "room" or table.config.same_address_tables:
        return False
    return address in table.addresses()


async def _come_back(table: Table, client: Client, index: int) -> None:
    """A player back at the seat it left between hands (回到牌桌): it takes the seat from
    托管 and plays on. A seat that escaped during a hand (R45) stays its bot's to the end of
    the match: its player may only watch."""
    seat = table.seats[index]
    assert seat is not None and seat.account_id is not None
    if seat.forced_tuoguan and not seat.may_return:
        _unjoin(table, client)
        raise ProtocolError(
            "wrong_state",
            f"your seat at table {table.code} escaped and a bot plays it until the match ends; "
            "spectate it to watch",
        )
    if seat.client is not None and seat.client is not client:
        table.host.detach_client(seat.client, table)
    seat.client = client
    seat.cut_off_by_server = False
    table.cancel_timer(f"grace:{index}")
    table.host.seat(seat.account_id, table)
    table.host.attach_client(client, table)
    if seat.forced_tuoguan:
        seat.forced_tuoguan = seat.may_return = False
        await table.host.store_call(
            table.store.mark_forced_tuoguan, table.match_id, index, table.lease, False
        )
    await set_tuoguan(table, index, seat, False)
    table.send_state(client, index)


def _unjoin(table: Table, client: Client) -> None:
    """A join that did not get a seat: the client is free again."""
    if client.account is not None:
        table.host.unseat(client.account.id, table)
    table.host.detach_client(client, table)


def attach(table: Table, client: Client) -> None:
    """A reconnect (or a second connection taking over): the seat gets the new client."""
    account = client.account
    assert account is not None
    for index, seat in enumerate(table.seats):
        if seat is not None and seat.account_id == account.id and seat.is_human:
            seat.client = client
            seat.cut_off_by_server = False
            table.host.attach_client(client, table)
            table.cancel_timer(f"grace:{index}")
            table.broadcast_table()
            table.send_state(client, index)
            return
    table.host.attach_client(client, None)
    table.host.unseat(account.id, table)


async def detach(table: Table, client: Client) -> None:
    """The client's socket closed (or it was replaced)."""
    if client in table.spectators:
        table.spectators.discard(client)
        table.broadcast_table()
    index = table.seat_of(client)
    if index is None:
        return
    seat = table.seats[index]
    assert seat is not None
    seat.client = None
    seat.last_drop = asyncio.get_running_loop().time()
    if table.status == "waiting":
        _free_seat(table, index)
    elif table.status != "ended" and not seat.forced_tuoguan:
        # per match (issue 20 item 12): it runs on across the end of a hand, and the next
        # hand does not start before it has run out (``Table.next_hand``). An escaped seat
        # has nothing left to lose: its bot plays on whether its player watches or not.
        table.set_timer(f"grace:{index}", table.config.reconnect_grace, index)
    table.broadcast_table()


def _free_seat(table: Table, index: int) -> None:
    seat = table.seats[index]
    if seat is None:
        return
    table.seats[index] = None
    if seat.account_id is not None:
        table.host.unseat(seat.account_id, table)
    if seat.client is not None:
        table.host.detach_client(seat.client, table)
    if not table.humans() and table.status == "waiting":
        table.cancel_timer("fill")
        if table.options.kind == "private":
            # an invite stays valid while its players come and go (a page reload)
            table.set_timer("idle", PRIVATE_TABLE_IDLE)
        else:
            table.host.drop_table(table)


def spectate(table: Table, client: Client) -> None:
    if client.account is not None and any(
        s is not None and s.account_id == client.account.id for s in table.seats
    ):
        raise ProtocolError("wrong_state", "you are seated at this table; you cannot watch it")
    if client.spectating is not None and client.spectating is not table:
        client.spectating.post(Unspectate(client))
    table.host.watch(client, table)
    table.spectators.add(client)
    table.send_state(client, None)
    table.broadcast_table()


def unspectate(table: Table, client: Client) -> None:
    table.spectators.discard(client)
    if client.spectating is table:
        table.host.watch(client, None)
    table.broadcast_table()


async def leave(table: Table, index: int) -> None:
    seat = table.seats[index]
    assert seat is not None
    if table.status == "waiting":
        client = seat.client
        _free_seat(table, index)
        if client is not None:
            client.send({"type": "table", "table": None})
        table.broadcast_table()
        return
    # during a match: R45 when a hand is on, then 托管 for the rest of the match. A seat
    # that has escaped already only stops being watched by its player: no second escape.
    # Between hands nothing is paid, and the player may come back to the seat (回到牌桌)
    if not seat.forced_tuoguan:
        between = table.status == "between"
        await escape(table, index)
        seat.may_return = between
    client = seat.client
    seat.client = None
    if seat.account_id is not None:
        table.host.unseat(seat.account_id, table)
    if client is not None:
        table.host.attach_client(client, None)
        client.send({"type": "table", "table": None})
    table.broadcast_table()
    await table.maybe_next_hand()


async def escape(table: Table, index: int) -> None:
    """R45: a seat quits or its reconnect grace runs out while a hand is on."""
    seat = table.seats[index]
    assert seat is not None
    newly_forced = not seat.forced_tuoguan
    seat.forced_tuoguan = True
    seat.tuoguan = True
    table.cancel_timer(f"grace:{index}")
    if newly_forced and table.match_id is not None and seat.account_id is not None:
        # stored before the escape itself: a restart in between resumes the hand with the
        # seat played by its bot (no penalty charged) rather than waiting for the player
        await table.host.store_call(
            table.store.mark_forced_tuoguan, table.match_id, index, table.lease
        )
    hand = table.hand
    if table.status != "playing" or hand is None or hand.game.is_over:
        return
    await table.run_effects(hand.escape(index, time.monotonic()))


async def set_tuoguan(table: Table, index: int, seat: Seat, on: bool) -> None:
    if not on and seat.forced_tuoguan:
        raise ProtocolError("wrong_state", "your seat escaped: a bot plays it until the match ends")
    changed = seat.tuoguan != on
    seat.tuoguan = on
    seat.timeouts = 0
    if changed and table.status in ("playing", "between"):
        await table.keep_tuoguan(index)
    table.broadcast_table()
    if table.status == "between":
        await table.maybe_next_hand()
    hand = table.hand
    if table.status != "playing" or hand is None:
        return
    # re-prompt the seat's pending turn decision under its new driver
    await table.run_effects(hand.reprompt(index, time.monotonic()))


async def grace_over(table: Table, index: int) -> None:
    """A dropped person's reconnect grace ran out."""
    seat = table.seats[index]
    if seat is None or seat.client is not None or seat.forced_tuoguan:
        return
    if _shared_drop(table, index):
        # several people of the table lost their connections together: the network or
        # the server failed, nobody quit (issue 20 item 12). No R45: the seat is played
        # in 托管, which its player switches off on coming back.
        await set_tuoguan(table, index, seat, True)
        await table.maybe_next_hand()
        return
    # R45 when a hand is on; between hands only 托管 for the rest of the match. The
    # account stays seated (issue 20 item 6): its player may come back and watch the
    # seat finish the match, but not take it back (``tuoguan off`` is refused).
    await escape(table, index)
    table.broadcast_table()
    await table.maybe_next_hand()


def _shared_drop(table: Table, index: int) -> bool:
    """Whether another person at this table lost the connection within
    ``shared_drop_window`` seconds of this seat's person (before or after, back since or
    not), or the person has not been back since a restore seated them. One person leaving
    is a quit; people dropping together, or a server process dying under them, is a failure
    of the network or the server, which no player pays R45 for (issue 20 item 12). A table
    with one person cannot tell a lone drop from a quit: there a drop past the grace stays
    an escape."""
    seat = table.seats[index]
    if seat is None:
        return False
    if seat.cut_off_by_server:
        return True
    if seat.last_drop is None:
        return False
    window = table.config.shared_drop_window
    return any(
        other is not None
        and other is not seat
        and other.is_human
        and other.last_drop is not None
        and abs(other.last_drop - seat.last_drop) <= window
        for other in table.seats
    )
