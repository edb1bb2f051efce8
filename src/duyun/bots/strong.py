"""The strong bot: every decision by its expected value in fan, with defence.

For each option -- every discard, 報聽 with it, a pong, a kong, passing -- the bot values the
hand the option leaves with :mod:`duyun.bots.expectation`: a chain over the rounds still to
come in which each own draw is a useful tile with the probability given by the tiles still
live for this seat, a ready hand wins off discards where R17 allows it and by self-draw, every
win is paid as Duyun pays it (R20-R22, R28, R29, R36), an opponent may end the hand first, and
an exhaustive draw settles 查大叫 and 黃豆 (R30, R14). It takes the best of three routes to a
win -- the standard shape (exact over the next two draws when one step from ready, every wait
scored), 七對 and 對對胡 (R20: 6 and 3 fan, both win on any discard, R17).

From that value it subtracts what the discarded tile may cost: for each opponent, the chance
it is ready and allowed to win on that tile (R17: a bean, a pattern its melds show, our 報聽),
times the chance the tile is one of its waits (its river, R26 for a 報聽 player, what is
visible), times what it would be paid (its likely fan, 報聽 +6 each way, streak) plus the
share of our own hand's value the win would end. So the bot attacks with a good hand and folds
a poor one against a ready table, without a separate switch.

Kongs weigh the bean (R12) against 黃豆 (the chain's chance of ending not ready at the draw,
R14), the 平胡 discard wins the bean unlocks (R15, R17: the hand is revalued with a bean), the
extra draw, 槓上炮 (R21, R28) and 搶槓 (R13). 報聽 (R25) weighs +6 on every payment both ways
and the frozen hand (R26, R27) against the chain's chances of winning first.

Where the chain is weakest -- hands four or more steps from ready, with no opponent very
likely ready and allowed to win on a discard -- the bot plays the ``heuristic`` bot's tuned
efficiency and pattern tie-breaks instead (paired duplicate runs measured that no worse; see
docs/research/strong-bot.md), its fastest discards ranked by their speed over two steps, exact
over the next draw (:func:`~duyun.bots.evaluation.next_stage_live`). Everything else -- every
decision at most three steps from ready, every discard under threat, and 報聽 -- is decided by
value; two and three steps from ready the chain's stage after the next is read by the same
function.

One thing the chain of wins alone would miss (third round, docs/research/strong-bot.md): a
concealed triplet or a pong whose fourth tile is live is worth the kong it may become -- its
bean income (R12) from the draws the hand still makes, less 黃豆 (R14), plus part of the R17
unlock a bean brings (:func:`~duyun.bots.expectation.bean_chances`).

It sees only its :class:`~duyun.engine.view.SeatView` (and remembers earlier views of the same
hand: who ponged lately) and uses no randomness: the same views give the same actions.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Self

from duyun.bots.evaluation import HandEvaluator, next_stage_live, unseen_counts
from duyun.bots.expectation import (
    DRAWS_PER_ROUND,
    NOT_READY,
    SEATS,
    Outcome,
    ReadyRates,
    SeatSituation,
    bean_chances,
    chain,
    ready_rates,
    wait_fans,
)
from duyun.bots.heuristic import HeuristicBot
from duyun.engine.actions import Action, ActionKind
from duyun.engine.view import SeatView
from duyun.hand import Meld, MeldKind
from duyun.tiles import to_counts

FULL_WALL = 55
BAOTING_FAN = 6


def _own_melds(view: SeatView) -> tuple[Meld, ...]:
    """This seat's melds as Hand melds (its own concealed kongs are visible to itself)."""
    return tuple(Meld(m.kind, m.tile) for m in view.own_melds if m.tile is not None)


@dataclass(frozen=True, slots=True)
class Threat:
    """What the bot reads of one opponent: how likely it is ready and may win on our discard
    (R17), and what feeding it would cost (fan)."""

    seat: int
    ready: float  # chance it is ready now
    allowed: float  # chance a win on our discard is allowed (R17, R27)
    cost: float  # fan we would pay it
    flush_suit: int | None  # melds all in one suit: its waits are likely there
    safe: frozenset[int]  # tiles that cannot be its waits (R26: a 報聽 hand's later discards)


class StrongBot(HeuristicBot):
    """Expected value over future draws in Duyun terms, and defence (issue 11)."""

    name = "strong"

    # Opponents (calibrated on efficient self-play, where hands end fairly evenly over the
    # wall): readiness rises with the turns played and the melds shown; a ready opponent
    # wins about this often per round.
    READY_TURNS = 7.0  # ready(turn) = 1 - exp(-(turn / READY_TURNS) ** READY_SHAPE)
    READY_SHAPE = 1.6
    READY_PER_MELD = 0.08
    READY_WIN_RATE = 0.10
    WIN_BONUS = 1.0  # fan credited to any win besides its payments: the losses it ends
    FRESH_PONG_READY = 0.15  # an opponent that ponged within the last two rounds
    # A live tile an opponent draws is discarded with this chance (it keeps the useful ones);
    # a 報聽 hand discards every tile that does not win (R26).
    DISCARD_RATE = 0.65
    # Feeding: a ready hand waits on about two kinds.
    WAIT_SHARE = 0.10
    # The chance a win on our discard is allowed to an opponent without a bean (R17), by what
    # its melds show: two or more melds all in one suit (清一色), all pungs (對對胡), or
    # neither (only a concealed 七對 / 對對胡 / 清一色). Measured on what was actually won on
    # the bot's own discards (docs/research/strong-bot.md, fourth round): melds in one suit or
    # all pungs are mostly chance, not a pattern being built, and these wins are rare.
    ALLOWED_FLUSH = 0.06
    ALLOWED_PUNGS = 0.08
    ALLOWED_CONCEALED = 0.02
    # Beyond EV_SHANTEN with no near-certain threat, play the heuristic bot (module docstring).
    HYBRID = True
    # A ready hand may be broken for a one-step-slower hand worth more (both read exactly).
    BREAK_READY = False
    EV_SHANTEN = 3  # decide by value up to this distance from ready (beyond: heuristic)
    PONG_FREE = False  # near ready, take every pong that does not slow the hand
    # Two steps from ready, read the next stage's speed one draw ahead (the useful count of
    # the best hand after each useful draw) instead of from typical hands.
    LOOKAHEAD_TWO = True
    FOLD_THREAT = 0.9  # an opponent this likely ready and allowed: every discard is weighed
    LOSS_SHARE = 0.5  # share of our own hand's value a win by someone else ends
    # 報聽: when another player wins, how likely we are among the payers (self-draws: always;
    # a frozen hand's discards feed any 平胡, R27).
    BAOTING_PAY_SHARE = 0.85
    # Later stages of a hand two or more steps from ready: each a bit slower than the first.
    STAGE_DECAY = 0.85
    FLUSH_MIN = 9  # tiles of one suit (melds counted) before 清一色 is a route
    FLUSH_SWAP = 0.6  # share of drawn tiles of the flush suit that can replace another suit's
    TYPICAL_WAIT_LIVE = 5  # live winning tiles of a typical ready hand
    # live useful tiles of a typical hand 1, 2, 3, 4+ steps from ready (efficient self-play)
    TYPICAL_STAGE_LIVE = (16, 26, 34, 40)
    # Three or more steps from ready (the heuristic's efficiency): the fastest few discards
    # are ranked by their speed over the next two steps, not the next one only.
    TWO_STEP_CANDIDATES = 5
    # Kongs still to come (R12, R15, R17): a concealed triplet or a pong whose fourth tile is
    # live is worth its expected bean income, less 黃豆 (R14), plus this share of what a bean
    # would add to the hand (a kong made on average half-way through the hand's draws).
    KONG_POTENTIAL = True
    KONG_UNLOCK_SHARE = 0.5

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        # What the bot remembers of earlier views in this hand: each opponent's meld count
        # and the wall when it last ponged (a pong on the tile just discarded is usually
        # made to get ready or nearly so).
        self._last_wall = FULL_WALL + 1
        self._melds_seen = [0] * SEATS
        self._fresh_pong: dict[int, int] = {}
        # ready hands' rates with a bean, for the R17 unlock of kongs to come (one decision)
        self._bean_memo: dict[tuple[int, ...], ReadyRates] = {}

    def fork(self) -> Self:
        """A twin with this bot's memory of the hand, which then remembers on its own (the
        search bot's :meth:`~duyun.bots.search.SearchBot.fork`)."""
        twin = copy.copy(self)
        twin._melds_seen = list(self._melds_seen)
        twin._fresh_pong = dict(self._fresh_pong)
        twin._bean_memo = {}
        return twin

    def choose(self, view: SeatView) -> Action:
        self._remember(view)
        self._bean_memo = {}
        return super().choose(view)

    def _remember(self, view: SeatView) -> None:
        """Note new pongs since the last view; start over when a new hand has begun."""
        shrunk = any(len(view.melds[o]) < self._melds_seen[o] for o in range(SEATS))
        if view.wall_remaining > self._last_wall or shrunk:
            self._melds_seen = [0] * SEATS
            self._fresh_pong = {}
        self._last_wall = view.wall_remaining
        for other in range(SEATS):
            melds = view.melds[other]
            new = len(melds) > self._melds_seen[other]
            if other != view.seat and new and melds[-1].kind is MeldKind.PONG:
                self._fresh_pong[other] = view.wall_remaining
            self._melds_seen[other] = len(melds)

    # ------------------------------------------------------------------ the situation

    def _threats(self, view: SeatView, unseen: Sequence[int]) -> list[Threat]:
        turn = (FULL_WALL - view.wall_remaining) / DRAWS_PER_ROUND
        threats: list[Threat] = []
        me = view.seat
        for other in view.opponents():  # R53: a seat that has won claims nothing
            melds = view.melds[other]
            safe: frozenset[int] = frozenset()
            if view.baoting[other]:
                ready = 1.0
                safe = frozenset(view.rivers[other][1:])  # R26: those did not win
            else:
                ready = self._ready_by_turn(turn, len(melds))
                ponged = self._fresh_pong.get(other)
                if ponged is not None and view.wall_remaining >= ponged - 2 * DRAWS_PER_ROUND:
                    ready = min(0.97, ready + self.FRESH_PONG_READY)
            suits = {m.tile // 9 for m in melds if m.tile is not None}
            pungs = len(melds) >= 2 and all(
                m.kind is MeldKind.PONG or m.kind.is_kong for m in melds
            )
            flush = len(melds) >= 2 and len(suits) == 1
            if view.has_bean[other] or view.baoting[me]:
                allowed, fan = 1.0, 1.6
            elif flush:
                allowed, fan = self.ALLOWED_FLUSH, 6.0
            elif pungs:
                allowed, fan = self.ALLOWED_PUNGS, 3.0
            else:
                allowed, fan = self.ALLOWED_CONCEALED, 5.0  # concealed 七對 / 對對胡 / 清一色
            cost = fan
            if view.baoting[other]:
                cost += BAOTING_FAN
            if view.baoting[me]:
                cost += BAOTING_FAN
            if view.dealer in (me, other):
                cost += view.streak
            threats.append(
                Threat(other, ready, allowed, cost, next(iter(suits)) if flush else None, safe)
            )
        return threats

    def _ready_by_turn(self, turn: float, melds: int) -> float:
        """Chance that an opponent is ready at ``turn`` (own draws so far), from efficient
        self-play: 1 - exp(-(turn / 7) ** 1.6) (measured 0.20 at turn 3, 0.62 at 7, 0.84 at
        11), more with every meld it shows."""
        base = 1.0 - math.exp(-((max(turn, 0.0) / self.READY_TURNS) ** self.READY_SHAPE))
        return min(0.97, base + self.READY_PER_MELD * melds)

    def _table(
        self, view: SeatView, unseen: Sequence[int], threats: list[Threat], extra_rounds: int = 0
    ) -> SeatSituation:
        me = view.seat
        rounds = view.wall_remaining // DRAWS_PER_ROUND + extra_rounds
        turn = (FULL_WALL - view.wall_remaining) / DRAWS_PER_ROUND
        melds = [len(view.melds[t.seat]) for t in threats]

        def ready_later(index: int, r: int) -> float:
            threat = threats[index]
            if view.baoting[threat.seat]:
                return 1.0
            return max(threat.ready, self._ready_by_turn(turn + r, melds[index]))

        hazards: list[float] = []
        for r in range(max(rounds, 1)):
            survive = 1.0
            for index in range(len(threats)):
                survive *= 1.0 - ready_later(index, r) * self.READY_WIN_RATE
            hazards.append(1.0 - survive)
        rates = [0.0] * SEATS
        for threat in threats:
            rates[threat.seat] = 1.0 if view.baoting[threat.seat] else self.DISCARD_RATE
        end_ready = [ready_later(index, rounds) for index in range(len(threats))]
        not_ready = sum(1.0 - r for r in end_ready)
        pay_ready = 0.0
        for threat, ready in zip(threats, end_ready, strict=True):
            dajiao = 1.5 + (BAOTING_FAN if view.baoting[threat.seat] else 0)
            dajiao += BAOTING_FAN if view.baoting[me] else 0
            if view.dealer in (me, threat.seat):
                dajiao += view.streak
            pay_ready += ready * dajiao
        income = float(sum(p.fan for p in view.payments if p.payee == me and p.rule == "R12"))
        return SeatSituation(
            seat=me,
            rounds=rounds,
            unseen=max(1, sum(unseen)),
            hazards=tuple(hazards),
            discard_rate=tuple(rates),
            baoting_discarders=tuple(view.baoting),
            has_bean=view.has_bean[me],
            baoting=view.baoting[me],
            streak=view.streak,
            dealer=view.dealer,
            not_ready_opponents=not_ready,
            ready_opponents_cost=pay_ready,
            bean_income=income,
            win_bonus=self.WIN_BONUS,
            payers=len(threats),  # R54: the opponents still in the hand
        )

    # ------------------------------------------------------------------ hand value

    def _hand_value(
        self,
        table: SeatSituation,
        counts: list[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        memo: dict[tuple[int, ...], ReadyRates],
        fastest: int | None = None,
    ) -> Outcome:
        """The best route's outcome for a 3k + 1 concealed hand, plus the kongs it may still
        make (``KONG_POTENTIAL``, :meth:`_with_kongs_to_come`)."""
        best = self._routes_value(table, counts, melds, unseen, memo, fastest)
        if self.KONG_POTENTIAL:
            best = self._with_kongs_to_come(table, counts, melds, unseen, best, fastest)
        return best

    def _routes_value(
        self,
        table: SeatSituation,
        counts: list[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        memo: dict[tuple[int, ...], ReadyRates],
        fastest: int | None = None,
    ) -> Outcome:
        """The best route's outcome for a 3k + 1 concealed hand (see the module docstring).

        ``fastest`` is the lowest shanten among the options being compared: a hand slower
        than that gets no credit for its many useful tiles (a slower hand always has more
        tiles that speed it up), its first stage too is a typical one."""
        evaluator = HandEvaluator(counts)
        shanten = evaluator.shanten()
        pool = float(table.unseen)
        slower = fastest is not None and shanten > fastest
        best = self._standard_route(
            table, counts, melds, unseen, memo, evaluator, shanten, pool, slower
        )
        if not melds and sum(counts) == 13:
            seven = self._seven_pairs_route(table, counts, unseen, pool, shanten)
            if seven is not None and seven.value > best.value:
                best = seven
        toitoi = self._toitoi_route(table, counts, melds, unseen, pool, shanten)
        if toitoi is not None and toitoi.value > best.value:
            best = toitoi
        flush = self._flush_route(table, counts, melds, unseen, pool, shanten)
        if flush is not None and flush.value > best.value:
            best = flush
        return best

    def _with_kongs_to_come(
        self,
        table: SeatSituation,
        counts: list[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        outcome: Outcome,
        fastest: int | None,
    ) -> Outcome:
        """The hand's value plus the kongs it may still make (:func:`bean_chances`).

        The chain values a hand by its wins only; a triplet whose fourth tile is live is also
        a 暗槓 (6 fan from the three others, R12) or a 直槓 waiting to happen, a pong a 面下槓.
        The income is kept unless the hand ends not ready at the draw (黃豆, R14), and without
        a bean yet, a kong lets 平胡 win on discards (R15, R17): credited as the share
        ``KONG_UNLOCK_SHARE`` of the difference the bean makes to the hand's value, times the
        expected number of kongs. A 報聽 hand makes no more kongs (R26).
        """
        if table.baoting:
            return outcome
        beans = bean_chances(table, counts, melds, unseen, outcome.draws)
        if not beans.chance:
            return outcome
        gain = beans.income * (1.0 - outcome.p_unready_at_draw)
        if not table.has_bean:
            with_bean = replace(table, has_bean=True)
            bean = self._routes_value(with_bean, counts, melds, unseen, self._bean_memo, fastest)
            unlock = max(0.0, bean.value - outcome.value)
            gain += min(1.0, beans.chance) * unlock * self.KONG_UNLOCK_SHARE
        return replace(outcome, value=outcome.value + gain)

    def _flush_route(
        self,
        table: SeatSituation,
        counts: Sequence[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        pool: float,
        shanten: int,
    ) -> Outcome | None:
        """清一色 (R20: 6 fan, wins on any discard): one suit holds most of the hand and all
        its melds; each tile of another suit must give way to a tile of that suit."""
        per_suit = [sum(counts[s * 9 : s * 9 + 9]) for s in range(3)]
        for meld in melds:
            per_suit[meld.tile // 9] += 3
        suit = max(range(3), key=lambda s: per_suit[s])
        if per_suit[suit] < self.FLUSH_MIN or any(m.tile // 9 != suit for m in melds):
            return None
        off = sum(per_suit) - per_suit[suit]
        if off == 0 or shanten >= 2 + 3:
            return None  # already one suit: the standard route reads the fan
        in_suit = sum(unseen[suit * 9 : suit * 9 + 9]) / pool
        swaps = tuple(in_suit * self.FLUSH_SWAP for _ in range(off))
        steps = tuple(self._typical_stage(k, pool) for k in range(1, shanten + 1))
        stages = steps + swaps if len(steps) + len(swaps) else ()
        return chain(table, stages, _synthetic_ready(table, 6, self.TYPICAL_WAIT_LIVE - 1))

    def _ready(
        self,
        table: SeatSituation,
        counts: list[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        memo: dict[tuple[int, ...], ReadyRates],
    ) -> ReadyRates:
        key = tuple(counts)
        rates = memo.get(key)
        if rates is None:
            rates = ready_rates(table, wait_fans(counts, melds), unseen)
            memo[key] = rates
        return rates

    def _standard_route(
        self,
        table: SeatSituation,
        counts: list[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        memo: dict[tuple[int, ...], ReadyRates],
        evaluator: HandEvaluator,
        shanten: int,
        pool: float,
        slower: bool = False,
    ) -> Outcome:
        if shanten <= 0:
            return chain(table, (), self._ready(table, counts, melds, unseen, memo))
        useful = evaluator.useful_tiles(unseen)
        live = sum(useful.values())
        if not live:
            return chain(table, (0.0,) * shanten, NOT_READY)
        first = live / pool
        if shanten == 1:
            parts: list[tuple[float, ReadyRates]] = []
            for tile, copies in useful.items():
                if not copies:
                    continue
                counts[tile] += 1
                after = HandEvaluator(counts).discard_shanten()
                best: ReadyRates | None = None
                for discard, value in after.items():
                    if value != 0:
                        continue
                    counts[discard] -= 1
                    rates = self._ready(table, counts, melds, unseen, memo)
                    counts[discard] += 1
                    if best is None or rates.rate > best.rate:
                        best = rates
                counts[tile] -= 1
                if best is not None:
                    parts.append((float(copies), best))
            return chain(table, (first,), ReadyRates.blend(parts))
        if shanten == 2 and self.LOOKAHEAD_TWO:
            # one draw ahead: the useful count of the best hand after each useful draw
            second = next_stage_live(counts, unseen, drawn_copy_stays_live=True) / pool
            stages: tuple[float, ...] = (second, first)
        else:
            # later stages at most as fast as a typical hand that far from ready: useful
            # tiles thin out as a hand closes in
            later = [min(first, self._typical_stage(k, pool)) for k in range(1, shanten)]
            if not slower:
                # the stage after the next: exact over the next draw (two-step efficiency)
                later[-1] = next_stage_live(counts, unseen) / pool
            head = min(first, self._typical_stage(shanten, pool)) if slower else first
            stages = (*later, head)
        return chain(table, stages, self._typical_ready(table, counts, melds, unseen))

    def _typical_stage(self, stage: int, pool: float) -> float:
        """Chance per draw that a typical hand ``stage`` steps from ready gets one closer."""
        index = min(stage, len(self.TYPICAL_STAGE_LIVE)) - 1
        return self.TYPICAL_STAGE_LIVE[index] / pool

    def _typical_ready(
        self,
        table: SeatSituation,
        counts: Sequence[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
    ) -> ReadyRates:
        """A ready hand as this one will typically become: a few live waits, 平胡 unless the
        hand is all one suit already (清一色, 6 fan, R20)."""
        suits = {t // 9 for t in range(27) if counts[t]} | {m.tile // 9 for m in melds}
        fan = 6 if len(suits) == 1 else 1
        return _synthetic_ready(table, fan, self.TYPICAL_WAIT_LIVE)

    def _seven_pairs_route(
        self,
        table: SeatSituation,
        counts: Sequence[int],
        unseen: Sequence[int],
        pool: float,
        shanten: int,
    ) -> Outcome | None:
        """七對 (R10, R20: 6 fan, wins on any discard): pair the singles with most live copies."""
        pairs = sum(c >> 1 for c in counts)
        distance = 6 - min(7, pairs)
        if distance <= 0 or (distance <= 1 and shanten <= 1) or distance > shanten + 2:
            return None  # read exactly by the standard route, or too far to matter
        lives = sorted((unseen[t] for t in range(27) if counts[t] % 2 == 1), reverse=True)
        stages = tuple(sum(lives[: 1 + 2 * k]) / pool for k in range(1, distance + 1))
        suits = {t // 9 for t in range(27) if counts[t]}
        fan = 12 if len(suits) == 1 else 6
        return chain(table, stages, _synthetic_ready(table, fan, lives[0] if lives else 0))

    def _toitoi_route(
        self,
        table: SeatSituation,
        counts: Sequence[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        pool: float,
        shanten: int,
    ) -> Outcome | None:
        """對對胡 (R20: 3 fan, wins on any discard): pairs become pungs by a draw or a pong."""
        sets = len(melds) + sum(1 for c in counts if c >= 3)
        pair_tiles = [t for t in range(27) if counts[t] == 2]
        singles = [t for t in range(27) if counts[t] == 1]
        distance = 8 - 2 * sets - min(len(pair_tiles), 5 - sets)
        if distance <= 0 or (distance <= 1 and shanten <= 1) or distance > shanten + 2:
            return None  # read exactly by the standard route, or too far to matter
        pong_rate = 1.0 + sum(table.discard_rate)
        pair_live = sum(unseen[t] for t in pair_tiles) * pong_rate
        single_live = sum(unseen[t] for t in singles)
        full = sets + len(pair_tiles) >= 5
        first = (pair_live + (0 if full else single_live)) / pool
        stages = tuple(first * self.STAGE_DECAY ** (distance - k) for k in range(1, distance + 1))
        suits = {t // 9 for t in range(27) if counts[t]} | {m.tile // 9 for m in melds}
        fan = 9 if len(suits) == 1 else 3
        live = sorted((unseen[t] for t in pair_tiles), reverse=True)
        return chain(table, stages, _synthetic_ready(table, fan, sum(live[:2]) or 3))

    # ------------------------------------------------------------------ far from ready

    def _refine_speeds(
        self,
        counts: list[int],
        after: dict[int, int],
        lowest: int,
        lives: dict[int, int],
        unseen: Sequence[int],
    ) -> dict[int, float]:
        """Three or more steps from ready: the fastest discards by their speed over two steps.

        A hand needing two more useful draws takes about ``pool / live1 + pool / live2``
        draws, so the speed credited is the harmonic mean of the live useful count now and
        the one after the next useful draw (:func:`next_stage_live`, exact over the draws).
        The other discards at the same distance are credited at most the slowest of those
        read (they were not among the fastest now either); slower discards keep their
        capped live count.
        """
        speeds = {tile: float(live) for tile, live in lives.items()}
        fastest = sorted(
            (tile for tile in lives if after[tile] == lowest), key=lambda t: (-lives[t], t)
        )[: self.TWO_STEP_CANDIDATES]
        deeper: dict[int, float] = {}
        for tile in fastest:
            counts[tile] -= 1
            second = next_stage_live(counts, unseen)
            counts[tile] += 1
            if lives[tile] and second:
                deeper[tile] = 2.0 / (1.0 / lives[tile] + 1.0 / second)
        if not deeper:
            return speeds
        floor = min(deeper.values())
        for tile in speeds:
            if tile in deeper:
                speeds[tile] = deeper[tile]
            elif after[tile] == lowest:
                speeds[tile] = min(speeds[tile], floor)
        return speeds

    # ------------------------------------------------------------------ defence

    def _feed_cost(
        self, view: SeatView, tile: int, threats: list[Threat], unseen: Sequence[int], stake: float
    ) -> float:
        """Expected fan lost by discarding ``tile``: each opponent ready, allowed to win on it
        (R17) and waiting on it, paid its fan, and our own ``stake`` partly lost with it."""
        rank = tile % 9
        rank_factor = 0.7 if rank in (0, 8) else 0.9 if rank in (1, 7) else 1.1
        # a tile nobody else can hold makes pair-waits on it impossible
        visibility = 0.6 + 0.15 * min(unseen[tile], 3)
        total = 0.0
        for threat in threats:
            if tile in threat.safe:
                continue
            chance = self.WAIT_SHARE * rank_factor * visibility
            if tile in view.rivers[threat.seat]:
                chance *= 0.5
            if threat.flush_suit is not None:
                chance *= 2.5 if tile // 9 == threat.flush_suit else 0.2
            total += (
                threat.ready
                * threat.allowed
                * chance
                * (threat.cost + self.LOSS_SHARE * max(stake, 0.0))
            )
        return total

    # ------------------------------------------------------------------ turn

    def _turn(self, view: SeatView) -> Action:
        seat = view.seat
        counts = to_counts(view.hand)
        unseen = unseen_counts(view.visible_counts())
        melds = _own_melds(view)
        threats = self._threats(view, unseen)
        evaluator = HandEvaluator(counts)
        after = evaluator.discard_shanten()
        lowest = min(after.values())
        threatened = any(t.ready * t.allowed >= self.FOLD_THREAT for t in threats)
        if self.HYBRID and lowest > self.EV_SHANTEN and not threatened:
            return super()._turn(view)
        table = self._table(view, unseen, threats)
        memo: dict[tuple[int, ...], ReadyRates] = {}

        discards = sorted(
            {a.tile for a in view.legal if a.kind is ActionKind.DISCARD and a.tile is not None}
        )
        # The chain ranks hands of one distance from ready well, and hands one step apart
        # well when one of them is near ready (read exactly); beyond that tile efficiency
        # is the better guide. Under threat every tile is a candidate: folding may be right.
        span = 1 if lowest == 0 and self.BREAK_READY else 0
        options: list[tuple[float, int, Outcome]] = []
        for tile in discards:
            if not threatened and after.get(tile, 99) > lowest + span:
                continue
            counts[tile] -= 1
            outcome = self._hand_value(table, counts, melds, unseen, memo, lowest)
            counts[tile] += 1
            options.append((outcome.value, tile, outcome))
        stake = max(value for value, _, _ in options)
        scored = [
            (value - self._feed_cost(view, tile, threats, unseen, stake), -tile, tile, outcome)
            for value, tile, outcome in options
        ]
        scored.sort(reverse=True)
        best_value, _, best_tile, _ = scored[0]

        kong = self._turn_kong(view, counts, melds, unseen, threats, table, best_value)
        if kong is not None:
            return kong

        baoting = self._baoting_choice(view, counts, melds, unseen, threats, table, scored)
        if baoting is not None:
            return baoting
        return Action(seat, ActionKind.DISCARD, best_tile)

    def _baoting_choice(
        self,
        view: SeatView,
        counts: list[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        threats: list[Threat],
        table: SeatSituation,
        scored: list[tuple[float, int, int, Outcome]],
    ) -> Action | None:
        """報聽 (R25) with the discard that makes it worth most, if that beats not declaring:
        +6 on every payment both ways (R21), a frozen hand (R26) whose discards any 平胡 may
        win on (R27)."""
        legal = [a.tile for a in view.legal if a.kind is ActionKind.BAOTING and a.tile is not None]
        if not legal:
            return None
        declared = replace(table, baoting=True)
        best: tuple[float, int] | None = None
        for tile in sorted(set(legal)):
            counts[tile] -= 1
            outcome = chain(declared, (), ready_rates(declared, wait_fans(counts, melds), unseen))
            counts[tile] += 1
            others_win = max(0.0, 1.0 - outcome.p_win - outcome.p_ready_at_draw)
            value = outcome.value - others_win * BAOTING_FAN * self.BAOTING_PAY_SHARE
            value -= self._feed_cost(view, tile, threats, unseen, outcome.value)
            if best is None or value > best[0]:
                best = (value, tile)
        if best is None or best[0] <= scored[0][0]:
            return None
        return Action(view.seat, ActionKind.BAOTING, best[1])

    def _turn_kong(
        self,
        view: SeatView,
        counts: list[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        threats: list[Threat],
        table: SeatSituation,
        discard_value: float,
    ) -> Action | None:
        """A concealed or added kong when its value beats the best discard's (R12-R15)."""
        best: tuple[float, Action] | None = None
        payers = len(view.opponents())  # R12, R54: only the players still in the hand pay
        for action in view.legal:
            tile = action.tile
            if tile is None:
                continue
            if action.kind is ActionKind.CONCEALED_KONG:
                used, income, kind = 4, 2.0 * payers, MeldKind.CONCEALED_KONG
                robbed = 0.0
            elif action.kind is ActionKind.ADDED_KONG:
                used, income, kind = 1, 1.0 * payers, MeldKind.ADDED_KONG
                robbed = self._feed_cost(view, tile, threats, unseen, 0.0)
            else:
                continue
            if action.kind is ActionKind.ADDED_KONG:
                new_melds = tuple(
                    Meld(kind, m.tile) if m.tile == tile and m.kind is MeldKind.PONG else m
                    for m in melds
                )
            else:
                new_melds = (*melds, Meld(kind, tile))
            counts[tile] -= used
            value = self._kong_ev(view, counts, new_melds, unseen, threats, table, income)
            counts[tile] += used
            value -= robbed
            if value > discard_value and (best is None or value > best[0]):
                best = (value, action)
        return None if best is None else best[1]

    def _kong_ev(
        self,
        view: SeatView,
        counts: list[int],
        melds: tuple[Meld, ...],
        unseen: Sequence[int],
        threats: list[Threat],
        table: SeatSituation,
        income: float,
    ) -> float:
        """Value after a kong: the hand with a bean (R15, R17) and the replacement draw (R7),
        the bean's ``income`` kept unless the hand ends not ready at the draw (黃豆, R14), less
        槓上炮 (R21, R28): the forced discard may be won, and then the income goes too."""
        with_bean = replace(
            self._table(view, unseen, threats, extra_rounds=1),
            has_bean=True,
            bean_income=table.bean_income + income,
        )
        outcome = self._hand_value(with_bean, counts, melds, unseen, {})
        # the income is counted in bean_income, returned only in the not-ready draw branch
        value = outcome.value + income
        held = [t for t in range(27) if counts[t]]
        if held:
            forced = min(self._feed_cost(view, t, threats, unseen, 0.0) for t in held)
            value -= forced * (1.0 + income)
        return value

    # ------------------------------------------------------------------ claims

    def _claim(self, view: SeatView) -> Action:
        seat, tile = view.seat, view.claim_tile
        assert tile is not None
        legal = view.legal
        can_kong = Action(seat, ActionKind.KONG) in legal
        can_pong = Action(seat, ActionKind.PONG) in legal
        if not (can_kong or can_pong):
            return Action(seat, ActionKind.PASS)
        counts = to_counts(view.hand)
        now = HandEvaluator(counts).shanten()
        if self.HYBRID and now > self.EV_SHANTEN:
            return super()._claim(view)
        unseen = unseen_counts(view.visible_counts())
        melds = _own_melds(view)
        threats = self._threats(view, unseen)
        table = self._table(view, unseen, threats)
        memo: dict[tuple[int, ...], ReadyRates] = {}
        best_value = self._hand_value(table, counts, melds, unseen, memo).value
        choice = Action(seat, ActionKind.PASS)
        if can_pong:
            counts[tile] -= 2
            ponged = (*melds, Meld(MeldKind.PONG, tile))
            options = HandEvaluator(counts).discard_shanten()
            lowest = min(options.values())
            pong_value = -math.inf
            for discard in sorted(options):
                if options[discard] > lowest + 1:
                    continue
                counts[discard] -= 1
                value = self._hand_value(table, counts, ponged, unseen, memo, lowest).value
                counts[discard] += 1
                value -= self._feed_cost(view, discard, threats, unseen, value)
                pong_value = max(pong_value, value)
            counts[tile] += 2
            # a pong that does not slow the hand is a free draw (the efficient bot's rule)
            free = self.PONG_FREE and lowest <= now
            if pong_value > best_value or free:
                best_value, choice = max(pong_value, best_value), Action(seat, ActionKind.PONG)
        if can_kong:
            counts[tile] -= 3
            konged = (*melds, Meld(MeldKind.DIRECT_KONG, tile))
            value = self._kong_ev(view, counts, konged, unseen, threats, table, 1.0)
            counts[tile] += 3
            if value > best_value:
                choice = Action(seat, ActionKind.KONG)
        return choice


def _synthetic_ready(table: SeatSituation, fan: int, live: int) -> ReadyRates:
    """Rates of a ready hand with ``live`` winning tiles of one kind scoring ``fan``."""
    unseen = [0] * 27
    unseen[0] = live
    return ready_rates(table, ((0, fan),), unseen)
