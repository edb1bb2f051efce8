"""Leaving a hand before it ends: an escape (R45) and a 血戰 winner leaving the table (R57).

Entered from :meth:`Round.escape` and :meth:`Round.leave`, at most once per hand per seat (a
cold path): interpreted, out of the compiled round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from duyun.engine import settlement
from duyun.engine.actions import IllegalActionError, as_seat
from duyun.engine.phases import ClaimSource, Phase
from duyun.engine.view import copy_event

if TYPE_CHECKING:
    from duyun.engine.round import Round

LAST_TILES = 4  # R19, R45 (b): the last four tiles of the wall


def leave(game: Round, seat: object) -> list[dict[str, Any]]:
    """R57: a player who has won in a 血戰 room leaves the table, without penalty; the hand
    goes on, and no 黃豆 refund (R56) is owed to them any more. Logged (an ``act`` with
    action "leave", then a ``leave`` event) so that a replay reproduces it."""
    seat = as_seat(seat)
    if game.phase is Phase.ENDED:
        raise IllegalActionError(f"{seat} leave: the hand is over")
    if not game.won[seat]:
        raise IllegalActionError(
            f"{seat} leave: only a player who has won may leave a 血戰 hand that goes on "
            "(R57); a player still in the hand who quits escapes (R45)"
        )
    if game.left[seat]:
        raise IllegalActionError(f"{seat} leave: seat {seat} has already left the table")
    game.left[seat] = True
    events: list[dict[str, Any]] = [
        {"type": "act", "seat": seat, "action": "leave"},
        {"type": "leave", "seat": seat},
    ]
    game.events.extend(events)
    return [copy_event(event) for event in events]


def escape(game: Round, seat: object) -> list[dict[str, Any]]:
    """R45: a seat quits (or times out); it pays the larger of the two penalties.

    In a 血戰 room (R57) a winner who quits only leaves the table (see :func:`leave`): no
    penalty, and the hand goes on."""
    seat = as_seat(seat)  # before anything changes: a bad seat must leave no trace
    if game.phase is Phase.ENDED:
        raise IllegalActionError(f"{seat} quit: the hand is over")
    if game.won[seat]:
        return leave(game, seat)
    events: list[dict[str, Any]] = [{"type": "act", "seat": seat, "action": "quit"}]
    game._turn_legal = None
    game._self_draw_only = None
    window = game.claims
    if window is not None and window.source is ClaimSource.ADDED_KONG:
        # R13, R45: the escape ends the hand before the chance to rob has passed, so the
        # added kong never happens (no bean); its tile goes back to the kong player's hand
        game.counts[window.from_seat][window.tile] += 1
        game.concealed_sizes[window.from_seat] += 1
        game._invalidate(window.from_seat)
        game.claims = None
    others = game._payers(seat)  # R57: the other players still in the hand
    da_jiao = (
        {other: game.da_jiao(other) for other in others}
        if game.wall_remaining <= LAST_TILES  # R45 (b)
        else None
    )
    penalty, chosen = settlement.escape_rows(
        game._table(),
        seat,
        others,
        units=game.rules.escape_penalty_units,
        da_jiao=da_jiao,
    )
    events.append({"type": "escape", "seat": seat, "penalty": penalty})
    game._pay(chosen, events)
    game.claims = None
    game._finish("escape", (), None, seat, events)
    game.events.extend(events)
    return [copy_event(event) for event in events]
