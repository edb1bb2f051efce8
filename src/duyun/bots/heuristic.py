"""The heuristic bot (the former ``strong``): efficiency steered by what pays under Duyun rules.

What it knows that the efficient bot does not (each point is a rule of docs/rules.md):

- 平胡 needs a bean (or a 報聽 discarder) to win on a discard (R17). When several discards
  leave it ready it scores each wait by its fan (R20) and whether a discard win would be
  allowed: a 平胡 wait without a bean can only be self-drawn, a 對對胡 / 七對 / 清一色 wait can
  be won off anybody. Before it is ready, among equally fast discards it keeps the hand's
  pairs and pungs (``strong_patterns``: distance to 對對胡 and 七對), which feed pongs, kongs
  (beans) and the patterns that win on discards -- measured as the largest single gain over
  the efficient bot. A suit holding most of the hand is steered towards 清一色 (6 fan).
- Pongs (R6): a pong that does not slow the hand, or one that puts a pung-heavy hand's
  對對胡 path (3 fan, wins on discards without beans) ahead of its standard one.
- Kongs by expected value: the bean pays at once (R12) and unlocks 平胡 discard wins
  (R15, R17), but it is returned at an exhaustive draw if the hand is not ready then (黃豆,
  R14) -- likely when the wall is short and the hand far from ready -- and the discard forced
  after the replacement draw may be won (槓上炮, R21/R28: +1 fan, and the kong's income goes to
  the winner); an added kong can be robbed (搶槓, R13). A kong that costs a step of shanten
  has to pay for the step, which gets dearer as the wall shrinks.
- 報聽 (R21, R25) by expected value: +6 fan on every payment it is party to (winning, but also
  paying for others' wins), a frozen hand (R26) whose automatic discards others may win 平胡
  on (R27). Declared when the live winning tiles make winning first likely enough.
- Defence: a discard can only be won by a player whose win on it is allowed (R17): someone
  with a bean, a likely pattern (melds all pongs, one-suit melds) or a 報聽 player. Tiles a 報聽
  player discarded after declaring cannot be their wait (they would have won on them, R26); a
  tile whose four copies are visible cannot be anybody's. When far from ready late in the
  hand, it discards the safest tile among the efficient ones.
- 查大叫 (R30): late in the hand being ready is what counts (it collects 大叫 instead of paying
  it), so the pattern tie-break stops when the wall runs short and a step of shanten is never
  traded for live-tile count; a ready hand is never broken for a kong.

No Monte Carlo: every decision is a few hundred table lookups (well under a millisecond), so
duplicate matches of tens of thousands of hands fit in minutes (issue #4). Every tunable is a
class attribute, so experiments can vary one on an instance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from duyun.analysis import waits as find_waits
from duyun.bots.efficient import EfficientBot
from duyun.bots.evaluation import HandEvaluator, unseen_counts
from duyun.bots.strong_patterns import (
    UNREACHABLE,
    qidui_shanten,
    toitoi_shanten,
)
from duyun.engine.actions import Action, ActionKind
from duyun.engine.view import SeatView
from duyun.hand import Hand, Meld, MeldKind
from duyun.scoring import best_pattern
from duyun.tiles import to_counts

FULL_WALL = 55


def _own_melds(view: SeatView) -> tuple[Meld, ...]:
    """This seat's melds as Hand melds (its own concealed kongs are visible to itself)."""
    return tuple(Meld(m.kind, m.tile) for m in view.own_melds if m.tile is not None)


class HeuristicBot(EfficientBot):
    """Points-aware play: pattern values, R17-aware waits, kong and 報聽 by expected value,
    defence, late readiness. It shares the efficient bot's decision skeleton (win whenever
    allowed, then a claim or a turn decision) and replaces both decisions."""

    name = "heuristic"

    # Relative chance of winning a wait by self-draw vs off the three opponents' discards.
    SELF_DRAW_WEIGHT = 1.0
    DISCARD_WIN_WEIGHT = 1.5
    # Discard scoring: one step of shanten vs one live useful tile.
    SHANTEN_WEIGHT = 10.0
    LIVE_WEIGHT = 0.25
    # The pattern tie-break stops below this many wall tiles (查大叫, R30: be ready late).
    PATTERN_FADE_WALL = 12
    # Kongs: 黃豆 model (R14) -- chance per remaining wall tile that the hand ends in a win.
    DRAW_HAZARD = 0.07
    UNLOCK_VALUE = 1.5  # a first bean lets a 平胡 win on discards (R17), in fan
    SLOW_BASE = 0.0  # one step of shanten lost to a kong, in fan, early...
    SLOW_LATE = 4.0  # ...plus this much more as the wall runs out
    GSP_FAN = 3.0  # 槓上炮 (R21/R28): fan paid if the discard after the kong is won, + income
    ROB_FAN = 2.5  # 搶槓 (R13): fan paid if the added tile is robbed
    # 報聽 (R25): declared when the expected gain is positive.
    BAOTING_K = 6.0  # p(win first) ~ live / (live + K)
    BAOTING_MIN_LIVE = 1
    # Flush steering (清一色, R20): a suit holding this many of the hand's tiles (melds
    # counted) is the target; discards of other suits get this bonus.
    FLUSH_THRESHOLD = 10
    FLUSH_BONUS = 6.0
    # Pattern tie-break among equally fast discards: per step of the "pattern ladder", the
    # mean of the 對對胡 shanten and the better of 對對胡/七對 (pairs and pungs: pongs, kongs,
    # 對對胡, 七對).
    PATTERN_TIE_WEIGHT = 3.0
    # Pongs: accept a 對對胡-path pong up to this many standard steps slower.
    TOITOI_PONG_SLACK = 1
    TOITOI_PONG_LEAD = -1  # ...when its 對對胡 path is then ahead of its standard one
    # Defence starts when this far from ready with this few tiles left.
    DEFENCE_SHANTEN = 2
    DEFENCE_WALL = 40
    DEFENCE_WEIGHT = 40.0

    def _turn(self, view: SeatView) -> Action:
        seat = view.seat
        counts = to_counts(view.hand)
        evaluator = HandEvaluator(counts)
        visible = view.visible_counts()
        unseen = unseen_counts(visible)
        after = evaluator.discard_shanten()
        lowest = min(after.values())

        kong = self._kong_on_turn(view, counts, evaluator, lowest, unseen)
        if kong is not None:
            return kong

        melds = _own_melds(view)
        if lowest == 0:
            choice = self._best_ready_discard(view, counts, melds, after, unseen)
            if choice is not None:
                tile, live, fan = choice
                baoting = Action(seat, ActionKind.BAOTING, tile)
                if baoting in view.legal and self._baoting_gain(view, live, fan) > 0:
                    return baoting
                return Action(seat, ActionKind.DISCARD, tile)

        tile = self._discard(view, counts, melds, evaluator, after, lowest, unseen)
        return Action(seat, ActionKind.DISCARD, tile)

    # ------------------------------------------------------------------ kongs

    def _kong_value(
        self,
        view: SeatView,
        income: float,
        after: int,
        lowest: int,
        forced_danger: float,
        rob_danger: float = 0.0,
    ) -> float:
        """Expected gain (fan) of a kong paying ``income`` that leaves shanten ``after`` when
        the hand is at ``lowest`` without it."""
        if lowest == 0 and after > 0:
            return -math.inf  # never break a ready hand for a bean
        wall = view.wall_remaining
        # 黃豆 (R14): the income is returned if the hand ends in a draw while not ready.
        p_draw = math.exp(-self.DRAW_HAZARD * wall)
        p_ready = 1.0 if after <= 0 else 1.0 - math.exp(-(wall / 16.0) / after)
        value = income * (1.0 - p_draw * (1.0 - p_ready))
        if not view.has_bean[view.seat]:
            value += self.UNLOCK_VALUE * p_ready  # R15/R17: 平胡 may now win on discards
        slow = after - lowest
        if slow > 0:
            value -= slow * (self.SLOW_BASE + self.SLOW_LATE * (1.0 - wall / FULL_WALL))
        # 槓上炮 (R21/R28): the forced discard after the replacement draw.
        value -= forced_danger * (self.GSP_FAN + income)
        value -= rob_danger * self.ROB_FAN  # 搶槓 (R13)
        return value

    def _forced_danger(self, view: SeatView, counts: list[int], unseen: Sequence[int]) -> float:
        """How likely the discard forced after a kong is won: the safest held tile's danger
        (it will usually have to throw something no safer)."""
        dangers = [self._danger(view, t, unseen) for t in range(27) if counts[t]]
        return min(dangers) if dangers else 0.0

    def _kong_on_turn(
        self,
        view: SeatView,
        counts: list[int],
        evaluator: HandEvaluator,
        lowest: int,
        unseen: Sequence[int],
    ) -> Action | None:
        """R12 beans by expected value (R14 黃豆, R21/R28 槓上炮, R13 搶槓)."""
        best: tuple[float, Action] | None = None
        payers = len(view.opponents())  # R12, R54: only the players still in the hand pay
        for action in view.legal:
            if action.tile is None:
                continue
            tile = action.tile
            if action.kind is ActionKind.CONCEALED_KONG:
                after = evaluator.shanten_after_removing(tile, 4)
                income, rob, used = 2.0 * payers, 0.0, 4
            elif action.kind is ActionKind.ADDED_KONG:
                after = evaluator.shanten_after_discard(tile)
                income, used = 1.0 * payers, 1
                rob = self._danger(view, tile, unseen)
            else:
                continue
            counts[tile] -= used
            forced = self._forced_danger(view, counts, unseen)
            counts[tile] += used
            value = self._kong_value(view, income, after, lowest, forced, rob)
            if value > 0 and (best is None or value > best[0]):
                best = (value, action)
        return None if best is None else best[1]

    # ------------------------------------------------------------------ ready discards

    def _wait_value(
        self,
        counts: list[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        has_bean: bool,
    ) -> tuple[float, int, int]:
        """(expected value, live winning tiles, largest fan) of a 13-tile hand's waits
        (R11, R17, R20)."""
        held = list(counts)
        for meld in melds:
            held[meld.tile] += meld.kind.size
        value = 0.0
        live_total = 0
        top = 0
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
            top = max(top, fan)
            win_value = self.SELF_DRAW_WEIGHT * 3 * fan
            if fan > 1 or has_bean:  # R17: otherwise no discard win
                win_value += self.DISCARD_WIN_WEIGHT * fan
            value += live * win_value
        return value, live_total, top

    def _best_ready_discard(
        self,
        view: SeatView,
        counts: list[int],
        melds: tuple[Meld, ...],
        after: dict[int, int],
        unseen: Sequence[int],
    ) -> tuple[int, int, int] | None:
        """(tile, live waits, top fan) of the ready-leaving discard whose waits are worth
        most; None if all waits are dead."""
        has_bean = view.has_bean[view.seat]
        best: tuple[float, int, int, int] | None = None
        for tile in sorted(after):
            if after[tile] != 0:
                continue
            counts[tile] -= 1
            value, live, top = self._wait_value(counts, melds, unseen, has_bean)
            counts[tile] += 1
            value -= self._danger(view, tile, unseen) * 2.0
            if live and (best is None or value > best[0]):
                best = (value, tile, live, top)
        if best is None:
            return None
        return best[1], best[2], best[3]

    def _baoting_gain(self, view: SeatView, live: int, fan: int) -> float:
        """Expected gain (fan) of declaring 報聽 (R21 +6 per payment, R25-R27)."""
        if live < self.BAOTING_MIN_LIVE:
            return -1.0
        p_win = live / (live + self.BAOTING_K)
        # Winning: +6 from each payer (three on a self-draw, the usual way for a frozen hand).
        gain = p_win * 6.0 * 2.5
        # Losing: +6 on what we pay -- a self-draw by another (1/3 of a loss each way), and
        # feeding with the frozen hand's automatic discards (R26, and R27: any 平胡 may win).
        gain -= (1.0 - p_win) * (6.0 * 0.7 + 1.0)
        return gain

    # ------------------------------------------------------------------ other discards

    def _discard(
        self,
        view: SeatView,
        counts: list[int],
        melds: tuple[Meld, ...],
        evaluator: HandEvaluator,
        after: dict[int, int],
        lowest: int,
        unseen: Sequence[int],
    ) -> int:
        """Efficiency steered by pattern values (R17, R20) and, when far from ready late in
        the hand, away from tiles an allowed win could be made on."""
        n_melds = len(melds)
        tie_break = self.PATTERN_TIE_WEIGHT > 0 and view.wall_remaining >= self.PATTERN_FADE_WALL
        flush_suit = self._flush_suit(counts, melds)
        defending = lowest >= self.DEFENCE_SHANTEN and view.wall_remaining <= self.DEFENCE_WALL
        # A step of shanten may be bought by a flush (清一色 6 fan) or by safety, never else.
        slack = 1 if (defending or flush_suit is not None) else 0
        lives: dict[int, int] = {}
        for tile in sorted(after):
            if after[tile] <= lowest + slack:
                lives[tile] = evaluator.useful_after_discard(tile, unseen)[1]
        # A slower hand has more tiles that speed it up: that live count is no merit.
        cap = max(live for tile, live in lives.items() if after[tile] == lowest)
        speeds = self._refine_speeds(counts, after, lowest, lives, unseen)
        best: tuple[float, int] | None = None
        for tile, live in speeds.items():
            shanten = after[tile]
            if shanten > lowest:
                live = min(live, cap)
            effective = float(shanten)
            if tie_break:
                counts[tile] -= 1
                tt = toitoi_shanten(counts, n_melds)
                qd = qidui_shanten(counts, n_melds)
                ladder = (tt + min(tt, qd)) / 2 if qd < UNREACHABLE else tt
                counts[tile] += 1
                effective += self.PATTERN_TIE_WEIGHT * ladder / self.SHANTEN_WEIGHT
            score = -self.SHANTEN_WEIGHT * effective + self.LIVE_WEIGHT * live
            if flush_suit is not None and tile // 9 != flush_suit:
                score += self.FLUSH_BONUS
            if defending:
                score -= self.DEFENCE_WEIGHT * self._danger(view, tile, unseen)
            if best is None or score > best[0]:
                best = (score, tile)
        assert best is not None
        return best[1]

    def _refine_speeds(
        self,
        counts: list[int],
        after: dict[int, int],
        lowest: int,
        lives: dict[int, int],
        unseen: Sequence[int],
    ) -> dict[int, float]:
        """The speed (live useful tiles) credited to each candidate discard. Here the live
        count as it is; the strong bot reads the fastest candidates one draw deeper."""
        return {tile: float(live) for tile, live in lives.items()}

    def _flush_suit(self, counts: Sequence[int], melds: tuple[Meld, ...]) -> int | None:
        """The suit to build a 清一色 in, when one suit holds most of the hand (R20)."""
        per_suit = [sum(counts[s * 9 : s * 9 + 9]) for s in range(3)]
        meld_suits = {meld.tile // 9 for meld in melds}
        for meld in melds:
            per_suit[meld.tile // 9] += 3
        suit = max(range(3), key=lambda s: per_suit[s])
        if per_suit[suit] >= self.FLUSH_THRESHOLD and meld_suits <= {suit}:
            return suit
        return None

    # ------------------------------------------------------------------ defence

    def _danger(self, view: SeatView, tile: int, unseen: Sequence[int]) -> float:
        """A rough chance that discarding ``tile`` is won on, weighted by R17 permission."""
        if unseen[tile] == 0 and view.hand.count(tile) == 0:
            return 0.0
        total = 0.0
        progress = 1.0 - view.wall_remaining / FULL_WALL
        for other in view.opponents():  # R53: a seat that has won claims nothing
            threat = self._threat(view, other, progress)
            if threat == 0.0:
                continue
            river = view.rivers[other]
            if view.baoting[other] and tile in river[1:]:
                continue  # R26: a frozen hand's discards after its 報聽 discard are not waits
            likely = 0.08 * (1.0 + 0.25 * min(unseen[tile], 3))
            if tile in river:
                likely *= 0.5  # discarded before: less likely kept for a wait
            total += threat * likely
        return total

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
        n_melds = len(view.own_melds)
        if Action(seat, ActionKind.KONG) in legal:
            counts[tile] -= 3
            after_kong = HandEvaluator(counts).shanten()
            unseen = unseen_counts(view.visible_counts())
            forced = self._forced_danger(view, counts, unseen)
            counts[tile] += 3
            if self._kong_value(view, 1.0, after_kong, now, forced) > 0:
                return Action(seat, ActionKind.KONG)
        if Action(seat, ActionKind.PONG) in legal:
            counts[tile] -= 2
            options = HandEvaluator(counts).discard_shanten()
            best = min(options.values())
            toitoi_after = UNREACHABLE
            for discard in options:
                counts[discard] -= 1
                toitoi_after = min(toitoi_after, toitoi_shanten(counts, n_melds + 1))
                counts[discard] += 1
            counts[tile] += 2
            if best <= now:  # pongs that do not slow the hand: a free draw
                return Action(seat, ActionKind.PONG)
            # 對對胡 (R20, 3 fan, wins on discards without beans, R17): a pung-heavy hand.
            if (
                toitoi_after < toitoi_shanten(counts, n_melds)
                and toitoi_after <= best + self.TOITOI_PONG_LEAD
                and best <= now + self.TOITOI_PONG_SLACK
                and view.wall_remaining >= self.PATTERN_FADE_WALL
            ):
                return Action(seat, ActionKind.PONG)
        return Action(seat, ActionKind.PASS)
