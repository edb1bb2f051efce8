"""The efficient bot: plays for speed (tile efficiency), blind to points.

It wins whenever the engine offers a win, discards the tile that leaves the lowest shanten and
then the most live useful tiles, declares 報聽 (R25) when its chosen discard allows it, and
pongs or kongs when the meld does not raise its shanten. It does not know R17 (平胡 needs a
bean to win on a discard): the engine simply never offers it such a win, which is exactly the
weakness the strong bot exploits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from duyun.bots.evaluation import HandEvaluator, unseen_counts
from duyun.engine.actions import Action, ActionKind
from duyun.engine.view import SeatView
from duyun.tiles import to_counts


def best_efficiency_discard(
    evaluator: HandEvaluator, tiles: Iterable[int], unseen: Sequence[int]
) -> tuple[int, int, int]:
    """(tile, shanten, live useful) of the most efficient discard among ``tiles``.

    Shanten first for every tile (one lookup each), useful tiles only for the tiles tied at
    the lowest shanten: that keeps a decision to a few dozen lookups. Ties go to the lowest
    tile so that replays are deterministic.
    """
    after = evaluator.discard_shanten()
    candidates = sorted(set(tiles))
    lowest = min(after[tile] for tile in candidates)
    best: tuple[int, int, int] | None = None
    for tile in candidates:
        if after[tile] != lowest:
            continue
        _, live = evaluator.useful_after_discard(tile, unseen)
        if best is None or live > best[2]:
            best = (tile, lowest, live)
    assert best is not None
    return best


class EfficientBot:
    """Lowest shanten, then most live useful tiles; melds that do not slow the hand."""

    name = "efficient"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed  # deterministic without randomness; kept for the make_bot signature

    def choose(self, view: SeatView) -> Action:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        for action in legal:
            if action.kind is ActionKind.HU:
                return action  # wins whenever allowed
        if view.claim_tile is not None:
            return self._claim(view)
        return self._turn(view)

    def _turn(self, view: SeatView) -> Action:
        seat = view.seat
        evaluator = HandEvaluator(to_counts(view.hand))
        unseen = unseen_counts(view.visible_counts())
        discards = [
            a.tile for a in view.legal if a.kind is ActionKind.DISCARD and a.tile is not None
        ]
        tile, shanten, _ = best_efficiency_discard(evaluator, discards, unseen)
        for action in view.legal:
            if action.tile is None:
                continue
            if action.kind is ActionKind.CONCEALED_KONG:
                after = evaluator.shanten_after_removing(action.tile, 4)
            elif action.kind is ActionKind.ADDED_KONG:
                after = evaluator.shanten_after_discard(action.tile)
            else:
                continue
            if after <= shanten:  # a bean (R12) that does not slow the hand
                return action
        baoting = Action(seat, ActionKind.BAOTING, tile)
        if baoting in view.legal:
            return baoting
        return Action(seat, ActionKind.DISCARD, tile)

    def _claim(self, view: SeatView) -> Action:
        seat, tile = view.seat, view.claim_tile
        assert tile is not None
        legal = view.legal
        counts = to_counts(view.hand)
        now = HandEvaluator(counts).shanten()
        if Action(seat, ActionKind.KONG) in legal:
            counts[tile] -= 3
            after_kong = HandEvaluator(counts).shanten()
            counts[tile] += 3
            if after_kong <= now:
                return Action(seat, ActionKind.KONG)
        if Action(seat, ActionKind.PONG) in legal:
            counts[tile] -= 2
            after = HandEvaluator(counts)
            counts[tile] += 2
            best = min(after.discard_shanten().values())
            if best <= now:
                return Action(seat, ActionKind.PONG)
        return Action(seat, ActionKind.PASS)
