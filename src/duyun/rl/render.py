"""Plain-text rendering of the table for ``render()`` (ansi and human modes).

The table is drawn as the selected seat sees it (its :class:`~duyun.engine.SeatView`): its own
hand, every seat's melds, rivers and 報聽, the wall count and the points -- so watching a
training run never shows an agent's screen more than the agent knows. Once the hand is over
every hand is shown, as players lay them down at the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from duyun.engine import MeldView, Round
from duyun.hand import MeldKind
from duyun.rl.actions import decode_action, index_of
from duyun.tiles import format_tiles, tile_to_str

SEATS = 4


def _meld(meld: MeldView) -> str:
    if meld.tile is None:
        return "(????)"
    tile = tile_to_str(meld.tile)
    rank, suit = tile[0], tile[1]
    if meld.kind is MeldKind.PONG:
        return f"[{rank * 3}{suit}]"
    if meld.kind is MeldKind.DIRECT_KONG:
        return f"[{rank * 4}{suit}]"
    if meld.kind is MeldKind.ADDED_KONG:
        return f"[{rank * 4}{suit}+]"
    return f"({rank * 4}{suit})"


def render_table(game: Round, seat: int, match_points: Sequence[int]) -> str:
    """The table as ``seat`` sees it, one line per seat, then its hand and legal actions."""
    view = game.view(seat)
    lines = [
        f"duyun_v0  dealer {view.dealer} (streak {view.streak})  wall {view.wall_remaining}  "
        f"phase {view.phase}  to act: player_{seat}"
    ]
    for other in range(SEATS):
        marks = []
        if other == view.dealer:
            marks.append("D")
        if view.baoting[other]:
            marks.append("報聽")
        if other == view.current and view.phase == "turn":
            marks.append("*")
        melds = " ".join(_meld(m) for m in view.melds[other]) or "-"
        river_order = " ".join(tile_to_str(t) for t in view.rivers[other]) or "-"
        points = view.points[other] + match_points[other]
        lines.append(
            f"  seat {other} {' '.join(marks):<8} points {points:+5d}  "
            f"tiles {view.concealed_sizes[other]:2d}  melds {melds}  river {river_order}"
        )
    own = format_tiles(view.hand) if view.hand else "-"
    drawn = f"  drawn {tile_to_str(view.drawn_tile)}" if view.drawn_tile is not None else ""
    lines.append(f"  hand of seat {seat}: {own}{drawn}")
    if view.claim_tile is not None:
        source = "added kong" if view.claim_is_rob else "discard"
        lines.append(f"  {source} {tile_to_str(view.claim_tile)} from seat {view.claim_from}")
    if view.legal:
        legal = ", ".join(f"{index_of(a)}:{decode_action(index_of(a))}" for a in view.legal)
        lines.append(f"  legal: {legal}")
    result = game.result
    if result is not None:
        lines.append(f"  hand over: {result.result}, winners {list(result.winners)}")
        for other in range(SEATS):
            lines.append(f"  seat {other} shows {game.hand_of(other)}  {result.totals[other]:+d}")
    return "\n".join(lines)
