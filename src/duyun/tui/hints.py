"""The analysis shown with ``--hints``: shanten, waits (with their fan) and the best discards.

Computed from the player's own :class:`~duyun.engine.SeatView` only -- the same information a
player has at the table -- by the analysis and scoring modules; nothing is re-derived here.
"""

from __future__ import annotations

from dataclasses import dataclass

from duyun.analysis import rank_discards, shanten, waits
from duyun.engine import ActionKind, SeatView
from duyun.hand import Hand, Meld
from duyun.scoring import waits_fan
from duyun.tiles import Tile, to_counts

TOP_DISCARDS = 3


@dataclass(frozen=True, slots=True)
class DiscardHint:
    """A discard and what it leaves: shanten, live useful tiles, and waits when ready."""

    tile: Tile
    shanten: int
    useful_count: int
    waits: tuple[tuple[Tile, str, int], ...]  # (wait, pattern, fan)


@dataclass(frozen=True, slots=True)
class Hints:
    """``shanten`` of the hand as held (-1: complete); ``waits`` when it is a ready 13.

    ``can_win`` is whether 胡 is among the legal actions now: a complete shape is not always a
    win (after a pong the claimer must discard, R7). ``has_bean`` matters because 平胡 wins on
    a discard only with a bean (R17), which players often forget.
    """

    shanten: int
    waits: tuple[tuple[Tile, str, int], ...]
    discards: tuple[DiscardHint, ...]
    can_win: bool = False
    has_bean: bool = False
    #: when a pong is offered: the shanten of the hand after it (before its discard)
    pong_shanten: int | None = None


def _own_hand(view: SeatView, concealed: tuple[Tile, ...]) -> Hand:
    melds = tuple(Meld(m.kind, m.tile) for m in view.own_melds if m.tile is not None)
    return Hand(concealed, melds)


def _waits_with_fan(
    view: SeatView, concealed: tuple[Tile, ...]
) -> tuple[tuple[Tile, str, int], ...]:
    hand = _own_hand(view, concealed)
    found = waits(hand.counts(), hand.all_counts())
    if not found:
        return ()
    fans = waits_fan(hand, found)
    return tuple((t, fans[t].name, fans[t].fan) for t in found if t in fans)


def compute_hints(view: SeatView) -> Hints:
    """Hints for the player's hand as it is now (3k+1 between turns, 3k+2 on their turn)."""
    counts = to_counts(view.hand)
    size = len(view.hand)
    can_win = any(action.kind is ActionKind.HU for action in view.legal)
    has_bean = view.has_bean[view.seat]
    if size % 3 == 1:
        pong = None
        claim = view.claim_tile
        if claim is not None and any(a.kind is ActionKind.PONG for a in view.legal):
            after = list(counts)
            after[claim] -= 2  # the pair joins the meld; the hand then discards (3k+2)
            pong = shanten(after)
        return Hints(shanten(counts), _waits_with_fan(view, view.hand), (), can_win, has_bean, pong)
    visible = view.visible_counts()
    options = rank_discards(counts, visible)[:TOP_DISCARDS]
    discards = []
    for option in options:
        rest = list(view.hand)
        rest.remove(option.discard)
        ready = _waits_with_fan(view, tuple(rest)) if option.shanten == 0 else ()
        discards.append(DiscardHint(option.discard, option.shanten, option.useful_count, ready))
    return Hints(shanten(counts), (), tuple(discards), can_win, has_bean)
