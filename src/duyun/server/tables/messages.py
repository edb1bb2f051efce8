"""The players' messages to their table (docs/protocol.md "Client → server"): acts, ready,
seats, bots, start, 托管, 解散 and reactions. Each refusal is a :class:`ProtocolError` that
the table's run loop sends to the offending client only.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from duyun.bots import resolve_bot
from duyun.server import protocol
from duyun.server.protocol import ProtocolError
from duyun.server.tables import seating
from duyun.server.tables.seats import Client, Seat, bot_seat

if TYPE_CHECKING:
    from duyun.server.tables.table import Table


async def handle(table: Table, client: Client, message: protocol._Message) -> None:
    index = table.seat_of(client)
    if isinstance(message, protocol.Reaction):
        _reaction(table, client, index, message)
        return
    if index is None:
        raise ProtocolError("not_seated", "sit at a table first")
    seat = table.seats[index]
    assert seat is not None
    if isinstance(message, protocol.Act):
        await _act(table, index, seat, message)
    elif isinstance(message, protocol.Ready):
        await _ready(table, seat, message.ready)
    elif isinstance(message, protocol.Sit):
        _sit(table, index, message.seat)
    elif isinstance(message, protocol.Leave):
        await seating.leave(table, index)
    elif isinstance(message, protocol.AddBot):
        await _add_bot(table, client, message)
    elif isinstance(message, protocol.RemoveBot):
        _remove_bot(table, client, message.seat)
    elif isinstance(message, protocol.Start):
        await _start(table, client)
    elif isinstance(message, protocol.Tuoguan):
        await seating.set_tuoguan(table, index, seat, message.on)
    elif isinstance(message, protocol.Dissolve):
        await _dissolve(table, index, message.agree)
    else:  # pragma: no cover - the manager routes only table messages here
        raise ProtocolError("unknown_type", f"{message.__class__.__name__} is not for tables")


async def _act(table: Table, index: int, seat: Seat, message: protocol.Act) -> None:
    if message.seat is not None and message.seat != index:
        raise ProtocolError(
            "not_your_seat", f"you sit at seat {index}; you cannot act for seat {message.seat}"
        )
    if seat.forced_tuoguan:
        raise ProtocolError("wrong_state", "your seat escaped: a bot plays it until the match ends")
    action = protocol.action_from_message(message, index)
    hand = table.hand
    if hand is None:
        if message.prompt is not None:
            raise ProtocolError("too_late", f"prompt {message.prompt} has closed; nothing was done")
        raise ProtocolError("not_your_turn", "no hand is being played")
    effects = hand.act(
        index, action, message.prompt, playing=table.status == "playing", now=time.monotonic()
    )
    await table.run_effects(effects)


def _reaction(table: Table, client: Client, index: int | None, message: protocol.Reaction) -> None:
    text = protocol.REACTION_TEXT.get(message.id)
    if text is None:
        raise ProtocolError(
            "unknown_reaction",
            f"unknown reaction {message.id!r}; known: {', '.join(protocol.REACTION_TEXT)}",
        )
    if index is None and client not in table.spectators:
        raise ProtocolError("not_seated", "sit at or watch a table first")
    name = client.account.name if client.account is not None else "?"
    table.send_to_all(
        {"type": "reaction", "seat": index, "name": name, "id": message.id, "text": text}
    )


def _sit(table: Table, index: int, wanted: int) -> None:
    if table.status != "waiting":
        raise ProtocolError("wrong_state", "seats can change only before the match starts")
    if wanted == index:
        return
    if table.seats[wanted] is not None:
        raise ProtocolError("wrong_state", f"seat {wanted} is taken")
    table.seats[wanted], table.seats[index] = table.seats[index], None
    table.broadcast_table()


def _require_host(table: Table, client: Client) -> None:
    account = client.account
    if table.options.kind != "private" or account is None or account.id != table.options.host:
        raise ProtocolError("not_host", "only the host of a private table may do that")
    if table.status != "waiting":
        raise ProtocolError("wrong_state", "only before the match starts")


async def _add_bot(table: Table, client: Client, message: protocol.AddBot) -> None:
    _require_host(table, client)
    if not table.options.bots_allowed:
        raise ProtocolError("wrong_state", "this table does not allow bots")
    try:  # a bot name or a difficulty level (easy/normal/hard/expert)
        name = resolve_bot(message.bot or table.options.bot)
    except ValueError as error:
        raise ProtocolError("unknown_bot", str(error)) from None
    if table.seats[message.seat] is not None:
        raise ProtocolError("wrong_state", f"seat {message.seat} is taken")
    table.seats[message.seat] = bot_seat(name)
    table.broadcast_table()
    await table.maybe_start()


def _remove_bot(table: Table, client: Client, index: int) -> None:
    _require_host(table, client)
    seat = table.seats[index]
    if seat is None or seat.kind != "bot":
        raise ProtocolError("wrong_state", f"seat {index} holds no bot")
    table.seats[index] = None
    table.broadcast_table()


async def _start(table: Table, client: Client) -> None:
    _require_host(table, client)
    if any(not s.ready for _, s in table.humans()):
        raise ProtocolError("wrong_state", "every player must be ready (準備) first")
    if table.free_seats and not table.options.bots_allowed:
        raise ProtocolError("wrong_state", "four players are needed (this table has no bots)")
    for index, seat in enumerate(table.seats):
        if seat is None:
            table.seats[index] = bot_seat(table.options.bot)
    table.broadcast_table()
    await table.maybe_start()


async def _ready(table: Table, seat: Seat, ready: bool) -> None:
    if table.status not in ("waiting", "between"):
        raise ProtocolError("wrong_state", "ready (準備) only before the match or between hands")
    seat.ready = ready
    table.broadcast_table()
    if table.status == "waiting":
        await table.maybe_start()
    else:
        await table.maybe_next_hand()


async def _dissolve(table: Table, index: int, agree: bool) -> None:
    if table.status != "between":
        raise ProtocolError("wrong_state", "解散 votes are held only between hands")
    if not agree:
        table.dissolve_votes = None
        table.broadcast_table()
        return
    if table.dissolve_votes is None:
        table.dissolve_votes = set()
    table.dissolve_votes.add(index)
    table.broadcast_table()
    if set(table.voters()) <= table.dissolve_votes:
        await table.finish_match("dissolved")
