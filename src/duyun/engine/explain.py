"""What the round tells a player about an action: why it is refused (the message of an
:class:`IllegalActionError`), and which 報聽 declarations would leave only self-draw wins.

Asked once an action is refused, or once per position a seat may declare 報聽 (cold paths):
interpreted, out of the compiled round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from duyun.engine.actions import Action, ActionKind
from duyun.engine.phases import Phase, TurnKind
from duyun.scoring import best_pattern
from duyun.tiles import Tile, tile_to_str

if TYPE_CHECKING:
    from duyun.engine.round import Round


def why_illegal(game: Round, action: Action) -> str:
    """Why ``action`` is not legal now, in a few words citing the rule (the message of
    :class:`IllegalActionError`); only ever asked about an action the round refused."""
    seat = action.seat
    if game.phase is Phase.ENDED:
        return "the hand is over"
    if game.phase is Phase.CLAIMS:
        assert game.claims is not None
        if seat not in game.claims.options:
            return f"seat {seat} has no claim on {tile_to_str(game.claims.tile)}"
        if seat in game.claims.answers:
            return f"seat {seat} has already answered this claim"
        allowed = ", ".join(kind.value for kind in game.claims.options[seat])
        return f"seat {seat} may only answer {allowed} on {tile_to_str(game.claims.tile)}"
    if seat != game.current:
        return f"it is seat {game.current}'s turn"
    kind, tile = action.kind, action.tile
    counts = game.counts[seat]
    if kind.is_claim:
        return "there is no discard to claim"
    if tile is not None and not counts[tile]:
        return f"seat {seat} holds no {tile_to_str(tile)}"
    if kind is ActionKind.HU:
        if game.turn_kind is TurnKind.PONG:
            return "after a pong the claimer must discard (R7)"
        return "the hand is not complete (R10)"
    if kind in (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG):
        if game.turn_kind is TurnKind.PONG:
            return "after a pong the claimer must discard (R7)"
        if game.baoting[seat]:
            return "a 報聽 hand is frozen (R26)"
        if game.wall_remaining == 0:
            return "a kong needs a tile left in the wall (R7)"
        if kind is ActionKind.CONCEALED_KONG:
            return f"a concealed kong needs four {tile_to_str(tile or 0)} in hand (R12)"
        return f"an added kong needs a pong of {tile_to_str(tile or 0)} (R12)"
    if kind is ActionKind.BAOTING:
        if not game._may_declare_baoting(seat):
            return "報聽 only with one's first discard, before any pong or kong (R25)"
        return "the hand would not be ready after that discard (R25, R11)"
    return "not allowed now"


def self_draw_only_declarations(game: Round, seat: int) -> tuple[Tile, ...]:
    """The legal 報聽 discards of ``seat`` after which every wait scores only 平胡 (R17,
    R26; see :meth:`Round.baoting_self_draw_only`, which asks only when the seat may declare
    and has no bean)."""
    declarable = [a.tile for a in game.legal_actions(seat) if a.kind is ActionKind.BAOTING]
    found: list[Tile] = []
    counts = game.counts[seat]
    for tile in declarable:
        assert tile is not None
        counts[tile] -= 1
        try:
            if all(_pinghu_only(game, seat, wait) for wait in game._ready_waits_for(seat, counts)):
                found.append(tile)
        finally:
            counts[tile] += 1
    return tuple(found)


def _pinghu_only(game: Round, seat: int, wait: Tile) -> bool:
    """Whether ``seat``'s 13 tiles completed by ``wait`` score no more than 平胡 (R17)."""
    counts = game.counts[seat]
    counts[wait] += 1
    try:
        pattern = best_pattern(game.hand_of(seat))
    finally:
        counts[wait] -= 1
    return pattern is None or pattern.fan <= 1
