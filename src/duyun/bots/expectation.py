"""Expected value of a hand over future draws, in Duyun terms (the strong bot's arithmetic).

The strong bot asks one question of every option it has (each discard, a pong, a kong, 報聽):
*what is this 13-tile (3k + 1) hand worth, in fan, from here to the end of the hand?* The
answer is a small Markov chain over the rounds still to come, the way riichi "expected value
per discard" tools compute it:

- the hand is in a *stage*: its distance to ready (shanten) along a *route* -- the standard
  shape, 七對 or 對對胡 (R10, R20) -- and each own draw moves it one stage closer with the
  probability that the tile drawn is one of the useful tiles still live for this seat
  (``live / unseen``; every tile this seat cannot see is equally likely to be drawn);
- once ready, every round it may win off an opponent's discard (only where R17 allows it: a
  pattern bigger than 平胡, a bean, or a 報聽 discarder, R27) and then by its own draw, each win
  paid as Duyun pays it: the pattern's fan (R20), +6 per 報聽 party (R21), the dealer streak
  when the dealer pays or is paid (R36), from three payers on a self-draw (R29) and from the
  discarder alone on a discard (R28);
- every round an opponent may end the hand first (a per-round hazard that grows as the wall
  shrinks and with what the opponents show);
- if the wall runs out, a ready hand collects its 大叫 from the players not ready, a hand that is
  not ready pays the ready ones and returns its bean income (查大叫 R30, 黃豆 R14, R31).

For a hand one step from ready the chain is exact over the next two draws: every useful draw
is followed by the best ready-leaving discard, whose waits are read tile by tile (which tiles,
how many still live, what each would score). Further from ready the later stages use the
average useful count seen one draw ahead (two steps) or the current one.

Everything here is a pure function of its arguments (no I/O, no randomness): the bot is
deterministic, and the numbers can be checked by hand (``tests/bots/test_bots_expectation.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from duyun.analysis import waits as find_waits
from duyun.hand import Hand, Meld, MeldKind
from duyun.scoring import BAOTING_FAN, best_pattern

SEATS = 4
DRAWS_PER_ROUND = 4  # every seat draws once a round (R5, R8)

WaitFans = tuple[tuple[int, int], ...]
"""((wait tile, fan of the win on it), ...) for a ready 13-tile hand (R11, R20)."""


# the bound of the table below (a module constant: a compiled dict subclass does not see its
# class attributes through ``self``)
_WAIT_LIMIT = 65_536


class _WaitCache(dict[tuple[tuple[int, ...], tuple[Meld, ...]], WaitFans]):
    """(concealed counts, melds) -> waits with their fan; bounded so that memory stays flat."""

    def __missing__(self, key: tuple[tuple[int, ...], tuple[Meld, ...]]) -> WaitFans:
        if len(self) >= _WAIT_LIMIT:
            self.clear()
        counts, melds = key
        held = list(counts)
        for meld in melds:
            held[meld.tile] += meld.kind.size
        work = list(counts)
        found: list[tuple[int, int]] = []
        for wait in find_waits(work, held):
            work[wait] += 1
            fan = winning_fan(work, melds)
            work[wait] -= 1
            found.append((wait, fan))
        value = tuple(found)
        self[key] = value
        return value


WAIT_FANS = _WaitCache()


def winning_fan(counts: Sequence[int], melds: tuple[Meld, ...]) -> int:
    """The R20 basic fan of a winning 14-tile hand (concealed ``counts`` + ``melds``).

    The hand is known to win, so outside 清一色 the patterns are read from the counts alone:
    seven pairs (七對, 龍七對 with four alike, R10) or four pungs and a pair (對對胡, 將對 when
    every tile is a 2, 5 or 8), else 平胡. A flush can also be 清么九, which depends on the
    reading: those hands go to :func:`duyun.scoring.best_pattern`. Equal to it on every
    winning hand (tested); about a tenth of its cost.
    """
    suits = {t // 9 for t in range(27) if counts[t]} | {m.tile // 9 for m in melds}
    if len(suits) == 1:
        pattern = best_pattern(Hand.from_counts(counts, melds))
        return pattern.fan if pattern is not None else 0
    held = [c for c in counts if c]
    if not melds and all(c % 2 == 0 for c in held):
        return 12 if any(c == 4 for c in held) else 6  # 龍七對 / 七對
    if all(c in (2, 3) for c in held) and sum(1 for c in held if c == 2) == 1:
        tiles = [t for t in range(27) if counts[t]] + [m.tile for m in melds]
        return 9 if all(t % 9 in (1, 4, 7) for t in tiles) else 3  # 將對 / 對對胡
    return 1


def wait_fans(counts: Sequence[int], melds: tuple[Meld, ...]) -> WaitFans:
    """Waits of a 13-tile hand and the basic fan each would score (R11, R20), memoised."""
    return WAIT_FANS[tuple(counts), melds]


@dataclass(frozen=True, slots=True)
class SeatSituation:
    """What the value of a hand depends on besides its tiles: the seat's situation.

    All values are in fan (one fan = one base score, R40), summed over the payments.
    """

    seat: int
    rounds: int  # own draws still to come
    unseen: int  # tiles this seat cannot see: the pool every draw comes from
    hazards: tuple[float, ...]  # per round: chance an opponent ends the hand first
    discard_rate: tuple[float, ...]  # per opponent: chance a given live tile is its discard
    baoting_discarders: tuple[bool, ...]  # per seat: declared 報聽 (R27: any 平胡 may win)
    has_bean: bool  # R15
    baoting: bool  # this seat declared 報聽 (R21 +6 on every payment)
    streak: int  # R36
    dealer: int
    not_ready_opponents: float  # expected opponents not ready at an exhaustive draw (R30)
    ready_opponents_cost: float  # what a not-ready hand pays at an exhaustive draw (R30)
    bean_income: float  # returned if not ready at an exhaustive draw (黃豆, R14)
    win_bonus: float = 1.0  # ending the hand also ends the losses it would bring
    # the other players still in the hand (R52-R54: in a 血戰 room a winner leaves play and
    # pays no bean), three in a normal room
    payers: int = SEATS - 1


@dataclass(frozen=True, slots=True)
class ReadyRates:
    """A ready hand's chances per round and what they are worth (fan)."""

    p_discard: float  # chance per round of winning off an opponent's discard
    v_discard: float  # expected fan of that, per round (probability x value)
    p_self: float  # chance per own draw of a self-draw win
    v_self: float  # expected fan of that, per draw
    dajiao: float  # 大叫 collected at an exhaustive draw (R30)

    @staticmethod
    def blend(parts: Sequence[tuple[float, ReadyRates]]) -> ReadyRates:
        """The weighted mean of several ready hands (weights: how likely each is reached)."""
        total = sum(weight for weight, _ in parts)
        if total <= 0:
            return NOT_READY
        return ReadyRates(
            sum(w * r.p_discard for w, r in parts) / total,
            sum(w * r.v_discard for w, r in parts) / total,
            sum(w * r.p_self for w, r in parts) / total,
            sum(w * r.v_self for w, r in parts) / total,
            sum(w * r.dajiao for w, r in parts) / total,
        )

    @property
    def rate(self) -> float:
        """Expected fan per round: what ranks two ready hands."""
        return self.v_discard + self.v_self


NOT_READY = ReadyRates(0.0, 0.0, 0.0, 0.0, 0.0)


def payment(table: SeatSituation, fan: int, payer: int) -> float:
    """Fan ``payer`` pays this seat for a win of basic ``fan`` (R21 報聽, R22, R36)."""
    total = float(fan)
    if table.baoting:
        total += BAOTING_FAN
    if table.baoting_discarders[payer]:
        total += BAOTING_FAN
    if table.dealer in (table.seat, payer):
        total += table.streak
    return total


def ready_rates(table: SeatSituation, waits: WaitFans, unseen: Sequence[int]) -> ReadyRates:
    """Per-round win chances and values of a ready hand with these waits (R17, R27-R29)."""
    if not waits or table.unseen <= 0:
        return NOT_READY
    pool = float(table.unseen)
    opponents = [o for o in range(SEATS) if o != table.seat]
    p_discard = v_discard = p_self = v_self = 0.0
    dajiao = 0
    for wait, fan in waits:
        dajiao = max(dajiao, fan)
        live = unseen[wait]
        if not live:
            continue
        share = live / pool
        p_self += share
        v_self += share * (sum(payment(table, fan, o) for o in opponents) + table.win_bonus)
        for other in opponents:
            # R17: 平胡 wins on a discard only with a bean or from a 報聽 discarder (R27).
            if fan <= 1 and not table.has_bean and not table.baoting_discarders[other]:
                continue
            chance = share * table.discard_rate[other]
            p_discard += chance
            v_discard += chance * (payment(table, fan, other) + table.win_bonus)
    bonus = table.streak if table.dealer == table.seat else 0
    dajiao_value = (dajiao + (BAOTING_FAN if table.baoting else 0) + bonus) if dajiao else 0.0
    return ReadyRates(
        min(p_discard, 0.95),
        v_discard,
        min(p_self, 0.95),
        v_self,
        dajiao_value * table.not_ready_opponents,
    )


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the chain predicts for a hand: expected fan, and how the hand ends for it."""

    value: float
    p_win: float
    p_ready_at_draw: float  # reaches the exhaustive draw ready (collects 大叫)
    p_unready_at_draw: float  # reaches it not ready (pays 大叫, returns beans: 黃豆)
    draws: float = 0.0  # expected own draws still made before the hand ends (kong chances)


def chain(
    table: SeatSituation, stages: Sequence[float], ready: ReadyRates, rounds: int | None = None
) -> Outcome:
    """Run the stage chain over the remaining rounds.

    ``stages[k]`` is the chance per own draw of moving from ``k + 1`` steps from ready to
    ``k`` (so ``stages`` is empty for a ready hand). Each round: an opponent may end the
    hand (``table.hazards``); a ready hand may win off the three discards, then on its draw;
    a hand not ready may advance one stage. At the end of the wall, 查大叫 and 黃豆 (R30,
    R14) settle the rest.
    """
    count = table.rounds if rounds is None else rounds
    levels = len(stages)
    mass = [0.0] * (levels + 1)
    mass[levels] = 1.0
    value = 0.0
    p_win = 0.0
    draws = 0.0
    hazards = table.hazards
    last_hazard = hazards[-1] if hazards else 0.0
    for r in range(count):
        keep = 1.0 - (hazards[r] if r < len(hazards) else last_hazard)
        for k in range(levels + 1):
            mass[k] *= keep
        ready_mass = mass[0]
        if ready_mass:
            won = ready_mass * ready.p_discard
            value += ready_mass * ready.v_discard
            ready_mass -= won
            p_win += won
        # every hand still in play draws now (a self-draw win is such a draw too)
        draws += ready_mass + sum(mass[1:])
        if ready_mass:
            won = ready_mass * ready.p_self
            value += ready_mass * ready.v_self
            p_win += won
            ready_mass -= won
        mass[0] = ready_mass
        # advance after the draw, the lowest stage first, so that one draw moves a hand once
        for k in range(1, levels + 1):
            moved = mass[k] * stages[k - 1]
            mass[k] -= moved
            mass[k - 1] += moved
    unready = sum(mass[1:])
    value += mass[0] * ready.dajiao
    value -= unready * (table.ready_opponents_cost + table.bean_income)
    return Outcome(value, p_win, mass[0], unready, draws)


@dataclass(frozen=True, slots=True)
class BeanChances:
    """What the kongs a hand may still make are worth before it wins (R12, R15)."""

    income: float  # expected bean income in fan, before 黃豆 (R14) takes any back
    chance: float  # expected number of kongs made (at most one per set): the R17 unlock


def bean_chances(
    table: SeatSituation,
    counts: Sequence[int],
    melds: tuple[Meld, ...],
    unseen: Sequence[int],
    draws: float,
) -> BeanChances:
    """Kongs a hand may make before it ends, from the draws it has left (``Outcome.draws``).

    Each own draw is any unseen tile with equal chance (the chain's model), so the fourth
    tile of a set is drawn with chance ``draws x live / unseen`` (capped at 1):

    - a concealed triplet makes a 暗槓 when drawn, paid 2 by each of the others still in the
      hand (``table.payers``: three, fewer in a 血戰 room after a win, R54), or a
      直槓 when an opponent discards it, paid 1 by that discarder (R12); each opponent draws
      as often as this seat and discards a live tile at its ``discard_rate``;
    - a pong makes a 面下槓 when drawn (an added kong, R12: 1 from each other player; a pong
      cannot take the fourth tile off a discard).

    A hand of four alike is left out: that kong is on offer now and weighed as an option.
    The income is what R12 pays; the caller discounts 黃豆 (R14) by the chance of ending the
    hand not ready, and values the bean's R17 unlock with ``chance``.
    """
    pool = float(table.unseen)
    if draws <= 0.0 or pool <= 0.0:
        return BeanChances(0.0, 0.0)
    payers = table.payers  # R12, R54: only the players still in the hand pay
    if payers <= 0:
        return BeanChances(0.0, 0.0)
    opponents = [o for o in range(SEATS) if o != table.seat]
    # the opponents still in the hand discard (a winner's rate is 0), on average this often
    discard = sum(table.discard_rate[o] for o in opponents) / payers
    income = chance = 0.0
    for tile in range(len(counts)):
        if counts[tile] == 3 and unseen[tile]:
            own = min(1.0, draws * unseen[tile] / pool)
            fed = min(1.0 - own, payers * draws * unseen[tile] / pool * discard)
            income += own * 2 * payers + fed
            chance += own + fed
    for meld in melds:
        if meld.kind is MeldKind.PONG and unseen[meld.tile]:
            own = min(1.0, draws * unseen[meld.tile] / pool)
            income += own * payers
            chance += own
    return BeanChances(income, chance)
