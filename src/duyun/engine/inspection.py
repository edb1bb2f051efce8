"""Whole-state inspection of a round, for tests, replays and equality checks (a cold path:
interpreted, out of the compiled round)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from duyun.engine.phases import ClaimSource, ClaimWindow, HandResult
from duyun.engine.view import TableTiles
from duyun.hand import Hand
from duyun.tiles import Tile, tile_to_str


class InspectedState(TableTiles, Protocol):
    """What the whole-state inspection reads of a hand (round.py passes itself): the tiles
    every reader sees (:class:`~duyun.engine.view.TableTiles`), and the wall, the claim
    window and what only the whole state knows."""

    front: int
    back: int
    bloody: bool
    claims: ClaimWindow | None
    result: HandResult | None

    @property
    def wall(self) -> Sequence[Tile]: ...
    @property
    def off_table(self) -> Sequence[Tile]: ...
    def hand_of(self, seat: object) -> Hand: ...


SEATS = 4


def _count_all_tiles(game: InspectedState) -> int:
    return (
        sum(map(sum, game.counts))
        + sum(meld.kind.size for melds in game.melds for meld in melds)
        + sum(map(len, game.rivers))
        + (game.back - game.front)
    )


def tile_total(game: InspectedState) -> int:
    """Every tile on the table: hands, melds, rivers, wall, a claimed winning tile and an
    added kong's tile while it may be robbed."""
    claimed = len(game.off_table)
    window = game.claims
    if window is not None and window.source is ClaimSource.ADDED_KONG:
        claimed += 1  # the added tile awaits 搶槓 (R13): in no hand, meld or river yet
    return _count_all_tiles(game) + claimed


def snapshot(game: InspectedState) -> dict[str, Any]:
    """The complete state as JSON-ready data, for replays and equality checks."""
    return {
        "hands": [str(game.hand_of(s)) for s in range(SEATS)],
        "rivers": [[tile_to_str(t) for t in river] for river in game.rivers],  # in order
        "baoting": list(game.baoting),
        "wall": [tile_to_str(t) for t in game.wall[game.front : game.back]],
        "phase": game.phase.value,
        "current": game.current,
        "ledger": [row.to_json() for row in game.ledger],
        "result": None
        if game.result is None
        else {
            "result": game.result.result,
            "winners": list(game.result.winners),
            "totals": list(game.result.totals),
            "next_dealer": game.result.next_dealer,
            "next_streak": game.result.next_streak,
        },
        **({"won": list(game.won), "left": list(game.left)} if game.bloody else {}),
    }
