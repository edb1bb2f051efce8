"""The strong bot: tile efficiency steered by what actually pays under Duyun rules.

What it knows that the efficient bot does not (each point is a rule of RULES.md):

- Beans pay at once (R12): a concealed kong is 2 units from each of three players, more than a
  self-drawn 平胡 (1 fan from each). So it kongs even when the kong costs one step of shanten,
  as long as the hand is not ready and the wall is long enough to recover -- and a bean also
  unlocks 平胡 discard wins (R15, R17).
- 平胡 needs a bean (or a 報聽 discarder) to win on a discard (R17). When several discards
  leave it ready it scores each wait by its fan (R20) and by whether a discard win would be
  allowed: a 平胡 wait without a bean can only be self-drawn, a 對對胡 / 七對 / 清一色 wait can
  be won off anybody. That is where the patterns get their value.
- 報聽 (R21, R25) adds 6 fan to every payment the player is party to; it is declared when the
  waits it would freeze are alive enough to be worth the frozen hand and the fed discards.
- Flushes (清一色, 6 fan) are steered towards when one suit already dominates the hand.
- Defence: a discard can only be won by a player whose win on it is allowed (R17): someone
  with a bean, a likely pattern (melds all pongs, one-suit melds) or a 報聽 player. Tiles a 報聽
  player discarded after declaring cannot be their wait (they would have self-drawn them, R26),
  a tile whose four copies are visible cannot be anybody's. When far from ready late in the
  hand, it discards the safest tile among the efficient ones.

No Monte Carlo: every decision is a few hundred table lookups (well under a millisecond), so
duplicate matches of tens of thousands of hands fit in minutes (issue #4).
"""

from __future__ import annotations

from collections.abc import Sequence

from duyun.analysis import waits as find_waits
from duyun.bots.evaluation import HandEvaluator, unseen_counts
from duyun.engine.actions import Action, ActionKind
from duyun.engine.view import SeatView
from duyun.hand import Hand, Meld, MeldKind
from duyun.scoring import best_pattern
from duyun.tiles import to_counts

SEATS = 4

# Relative chance of winning a wait by self-draw vs off the three opponents' discards: every
# tile drawn by anybody is first seen by its drawer, then usually discarded.
SELF_DRAW_WEIGHT = 1.0
DISCARD_WIN_WEIGHT = 1.5
# Below this many live winning tiles a 報聽 is not worth freezing the hand for.
BAOTING_MIN_LIVE = 3
# Kongs that cost a step of shanten are taken only while the wall can still pay it back.
KONG_SLOWDOWN_MIN_WALL = 20
# Flush steering: a suit holding this many of the hand's tiles (melds counted) is the target.
FLUSH_THRESHOLD = 10
# Defence starts when this far from ready with this few tiles left.
DEFENCE_SHANTEN = 2
DEFENCE_WALL = 30


def _own_melds(view: SeatView) -> tuple[Meld, ...]:
    """This seat's melds as Hand melds (its own concealed kongs are visible to itself)."""
    return tuple(Meld(m.kind, m.tile) for m in view.own_melds if m.tile is not None)


class StrongBot:
    """Points-aware play: beans, R17-aware waits, 報聽 by expected value, flushes, defence."""

    name = "strong"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed  # no randomness: deterministic for any seed

    # ------------------------------------------------------------------ entry point

    def choose(self, view: SeatView) -> Action:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        for action in legal:
            if action.kind is ActionKind.HU:
                return action
        if view.claim_tile is not None:
            return self._claim(view)
        return self._turn(view)

    # ------------------------------------------------------------------ own turn

    def _turn(self, view: SeatView) -> Action:
        seat = view.seat
        counts = to_counts(view.hand)
        evaluator = HandEvaluator(counts)
        visible = view.visible_counts()
        unseen = unseen_counts(visible)
        after = evaluator.discard_shanten()
        lowest = min(after.values())

        kong = self._kong_on_turn(view, evaluator, lowest)
        if kong is not None:
            return kong

        melds = _own_melds(view)
        if lowest == 0:
            choice = self._best_ready_discard(view, counts, melds, after, unseen)
            if choice is not None:
                tile, live = choice
                baoting = Action(seat, ActionKind.BAOTING, tile)
                if live >= BAOTING_MIN_LIVE and baoting in view.legal:
                    return baoting
                return Action(seat, ActionKind.DISCARD, tile)

        tile = self._efficient_discard(view, counts, melds, evaluator, after, lowest, unseen)
        return Action(seat, ActionKind.DISCARD, tile)

    def _kong_on_turn(self, view: SeatView, evaluator: HandEvaluator, lowest: int) -> Action | None:
        """R12 beans: take a kong unless it breaks a ready hand or comes too late to recover."""
        for action in view.legal:
            if action.tile is None:
                continue
            if action.kind is ActionKind.CONCEALED_KONG:
                after = evaluator.shanten_after_removing(action.tile, 4)
            elif action.kind is ActionKind.ADDED_KONG:
                after = evaluator.shanten_after_discard(action.tile)
            else:
                continue
            if after <= lowest:
                return action
            if (
                lowest >= 1
                and after == lowest + 1
                and view.wall_remaining >= KONG_SLOWDOWN_MIN_WALL
            ):
                return action
        return None

    def _wait_value(
        self,
        view: SeatView,
        counts: list[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        has_bean: bool,
    ) -> tuple[float, int]:
        """(expected value, live winning tiles) of a 13-tile hand's waits (R11, R17, R20)."""
        held = list(counts)
        for meld in melds:
            held[meld.tile] += meld.kind.size
        value = 0.0
        live_total = 0
        for wait in find_waits(counts, held):
            live = unseen[wait]
            if not live:
                continue
            counts[wait] += 1
            pattern = best_pattern(Hand.from_counts(counts, melds))
            counts[wait] -= 1
            if pattern is None:  # pragma: no cover - a wait completes the hand
                continue
            live_total += live
            fan = pattern.fan
            win_value = SELF_DRAW_WEIGHT * 3 * fan
            if fan > 1 or has_bean:  # R17: otherwise no discard win
                win_value += DISCARD_WIN_WEIGHT * fan
            value += live * win_value
        return value, live_total

    def _best_ready_discard(
        self,
        view: SeatView,
        counts: list[int],
        melds: tuple[Meld, ...],
        after: dict[int, int],
        unseen: Sequence[int],
    ) -> tuple[int, int] | None:
        """The ready-leaving discard whose waits are worth most; None if all waits are dead."""
        has_bean = view.has_bean[view.seat]
        best: tuple[float, int, int] | None = None
        for tile in sorted(after):
            if after[tile] != 0:
                continue
            counts[tile] -= 1
            value, live = self._wait_value(view, counts, melds, unseen, has_bean)
            counts[tile] += 1
            value -= self._danger(view, tile, unseen) * 2.0
            if live and (best is None or value > best[0]):
                best = (value, tile, live)
        if best is None:
            return None
        return best[1], best[2]

    def _efficient_discard(
        self,
        view: SeatView,
        counts: list[int],
        melds: tuple[Meld, ...],
        evaluator: HandEvaluator,
        after: dict[int, int],
        lowest: int,
        unseen: Sequence[int],
    ) -> int:
        """Efficiency with two biases: towards a dominant suit (清一色) and, when far from
        ready late in the hand, away from tiles an allowed win could be made on."""
        flush_suit = self._flush_suit(counts, melds)
        defending = lowest >= DEFENCE_SHANTEN and view.wall_remaining <= DEFENCE_WALL
        best: tuple[float, int] | None = None
        for tile in sorted(after):
            shanten = after[tile]
            if shanten > lowest + (1 if (defending or flush_suit is not None) else 0):
                continue
            _, live = evaluator.useful_after_discard(tile, unseen)
            score = -10.0 * shanten + live * 0.25
            if flush_suit is not None and tile // 9 != flush_suit:
                score += 6.0
            if defending:
                score -= 40.0 * self._danger(view, tile, unseen)
            if best is None or score > best[0]:
                best = (score, tile)
        assert best is not None
        return best[1]

    @staticmethod
    def _flush_suit(counts: Sequence[int], melds: tuple[Meld, ...]) -> int | None:
        """The suit to build a 清一色 in, when one suit holds most of the hand (R20)."""
        per_suit = [sum(counts[s * 9 : s * 9 + 9]) for s in range(3)]
        meld_suits = {meld.tile // 9 for meld in melds}
        for meld in melds:
            per_suit[meld.tile // 9] += 3
        suit = max(range(3), key=lambda s: per_suit[s])
        if per_suit[suit] >= FLUSH_THRESHOLD and meld_suits <= {suit}:
            return suit
        return None

    # ------------------------------------------------------------------ defence

    def _danger(self, view: SeatView, tile: int, unseen: Sequence[int]) -> float:
        """A rough chance that discarding ``tile`` is won on, weighted by R17 permission."""
        if unseen[tile] == 0 and view.hand.count(tile) == 0:
            return 0.0
        total = 0.0
        progress = 1.0 - view.wall_remaining / 55.0
        for other in range(SEATS):
            if other == view.seat:
                continue
            threat = self._threat(view, other, progress)
            if threat == 0.0:
                continue
            river = view.rivers[other]
            if view.baoting[other] and tile in river[self._baoting_index(view, other) + 1 :]:
                continue  # R26: a frozen hand's later discards are not its waits
            likely = 0.08 * (1.0 + 0.25 * min(unseen[tile], 3))
            if tile in river:
                likely *= 0.5  # discarded before: less likely kept for a wait
            total += threat * likely
        return total

    @staticmethod
    def _baoting_index(view: SeatView, seat: int) -> int:
        """Index in the river of the 報聽 discard: always the first discard (R25)."""
        return 0

    @staticmethod
    def _threat(view: SeatView, other: int, progress: float) -> float:
        """How likely ``other`` is ready and allowed to win on a discard (R17, R27)."""
        melds = view.melds[other]
        pattern_signal = len(melds) >= 2 and all(
            m.kind is MeldKind.PONG or m.kind.is_kong for m in melds
        )
        suits = {m.tile // 9 for m in melds if m.tile is not None}
        flush_signal = len(melds) >= 2 and len(suits) == 1
        allowed = view.has_bean[other] or pattern_signal or flush_signal or view.baoting[view.seat]
        if view.baoting[other]:
            # Ready for sure; a frozen 平胡 (the common case) may still not win on our
            # discard unless we declared 報聽 ourselves (R17, R27).
            return 1.0 if view.baoting[view.seat] else 0.35
        if not allowed:
            return 0.0
        return min(1.0, 0.15 + 0.2 * len(melds) + 0.6 * progress)

    # ------------------------------------------------------------------ claims

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
            late = view.wall_remaining < KONG_SLOWDOWN_MIN_WALL
            if after_kong <= now or (now >= 1 and after_kong == now + 1 and not late):
                return Action(seat, ActionKind.KONG)
        if Action(seat, ActionKind.PONG) in legal:
            counts[tile] -= 2
            best = min(HandEvaluator(counts).discard_shanten().values())
            counts[tile] += 2
            if best <= now:
                return Action(seat, ActionKind.PONG)
        return Action(seat, ActionKind.PASS)
