"""What the round tells a player about an action: why it is refused (the message of an
:class:`IllegalActionError`), and which 報聽 declarations would leave only self-draw wins.

Asked once an action is refused, or once per position a seat may declare 報聽 (cold paths):
interpreted, out of the compiled round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from duyun.engine.actions import Action, ActionKind, LegalActions
from duyun.engine.phases import ClaimWindow, Phase, TurnKind
from duyun.hand import Hand
from duyun.scoring import best_pattern
from duyun.tiles import Tile, tile_to_str


class ExplainedState(Protocol):
    """What explaining an action reads of a hand (round.py passes itself; this module never
    imports it, nor reaches inside it)."""

    phase: Phase
    current: int
    turn_kind: TurnKind
    claims: ClaimWindow | None

    @property
    def counts(self) -> Sequence[Sequence[int]]: ...
    @property
    def baoting(self) -> Sequence[bool]: ...
    @property
    def wall_remaining(self) -> int: ...
    def hand_of(self, seat: object) -> Hand: ...
    def legal_actions(self, seat: object) -> LegalActions: ...
    def may_declare_baoting(self, seat: int) -> bool: ...
    def ready_waits_for(self, seat: int, counts: Sequence[int]) -> list[Tile]: ...


def why_illegal(game: ExplainedState, action: Action) -> str:
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
        if not game.may_declare_baoting(seat):
            return "報聽 only with one's first discard, before any pong or kong (R25)"
        return "the hand would not be ready after that discard (R25, R11)"
    return "not allowed now"


def self_draw_only_declarations(game: ExplainedState, seat: int) -> tuple[Tile, ...]:
    """The legal 報聽 discards of ``seat`` after which every wait scores only 平胡 (R17,
    R26; see :meth:`Round.baoting_self_draw_only`, which asks only when the seat may declare
    and has no bean)."""
    declarable = [a.tile for a in game.legal_actions(seat) if a.kind is ActionKind.BAOTING]
    found: list[Tile] = []
    counts = list(game.counts[seat])  # a copy to try discards on: the round is only read
    for tile in declarable:
        assert tile is not None
        counts[tile] -= 1
        if all(
            _pinghu_only(game, seat, counts, wait) for wait in game.ready_waits_for(seat, counts)
        ):
            found.append(tile)
        counts[tile] += 1
    return tuple(found)


def _pinghu_only(game: ExplainedState, seat: int, counts: Sequence[int], wait: Tile) -> bool:
    """Whether ``seat``'s 13 tiles ``counts`` completed by ``wait`` score no more than 平胡
    (R17)."""
    completed = list(counts)
    completed[wait] += 1
    pattern = best_pattern(Hand.from_counts(completed, game.hand_of(seat).melds))
    return pattern is None or pattern.fan <= 1
