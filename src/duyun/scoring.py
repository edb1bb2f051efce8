"""Fan (番): basic patterns (R20), extras (R21), a payment's fan (R22, R36) and 大叫 (R30).

Patterns are small objects in :data:`PATTERNS`, in the order of the R20 table. Basic patterns
do not stack: a hand scores the single largest pattern it matches under any reading (R20), and
on equal fan the later-listed, more specific pattern names the result, so the same hand always
reports the same name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from duyun.analysis import Decomposition, decompositions
from duyun.analysis import waits as find_waits
from duyun.hand import Hand

JIANG_RANKS = frozenset({2, 5, 8})  # 將對: every tile a 2, 5 or 8
TERMINAL_RANKS = frozenset({1, 9})


@dataclass(frozen=True, slots=True)
class Context:
    """What a pattern may look at: one reading of the concealed part, plus the whole hand."""

    hand: Hand
    reading: Decomposition
    tianhu: bool
    dihu: bool

    @property
    def flush(self) -> bool:
        """清一色: hand and melds in one suit."""
        suits = {t // 9 for t in self.hand.concealed} | {m.tile // 9 for m in self.hand.melds}
        return len(suits) == 1

    @property
    def all_pungs(self) -> bool:
        """對對胡: a standard reading whose concealed sets are all pungs (melds always are)."""
        return not self.reading.seven_pairs and all(s.kind == "pung" for s in self.reading.sets)

    @property
    def seven_pairs(self) -> bool:
        """七對: seven pairs and no melds (R10)."""
        return self.reading.seven_pairs and not self.hand.melds

    @property
    def dragon(self) -> bool:
        """龍: four identical concealed tiles inside seven pairs."""
        pairs = self.reading.pairs
        return any(pairs[i] == pairs[i + 1] for i in range(len(pairs) - 1))

    @property
    def all_jiang(self) -> bool:
        tiles = [*self.hand.concealed, *(m.tile for m in self.hand.melds)]
        return all(t % 9 + 1 in JIANG_RANKS for t in tiles)

    @property
    def terminal_everywhere(self) -> bool:
        """Every set and the pair contains a 1 or a 9 (清么九's condition, without the flush)."""
        reading = self.reading
        if reading.seven_pairs or reading.pair is None:
            return False
        if reading.pair % 9 + 1 not in TERMINAL_RANKS:
            return False
        for tile_set in reading.sets:
            ranks = {t % 9 + 1 for t in tile_set.tiles}
            if not ranks & TERMINAL_RANKS:
                return False
        return all(m.tile % 9 + 1 in TERMINAL_RANKS for m in self.hand.melds)


@dataclass(frozen=True, slots=True)
class Pattern:
    """A basic pattern of R20: its name, its fan and when a reading matches it."""

    name: str
    fan: int
    condition: Callable[[Context], bool]


PATTERNS: list[Pattern] = [
    Pattern("平胡", 1, lambda c: not c.reading.seven_pairs),
    Pattern("對對胡", 3, lambda c: c.all_pungs),
    Pattern("清一色", 6, lambda c: c.flush),
    Pattern("七對", 6, lambda c: c.seven_pairs),
    Pattern("清對", 9, lambda c: c.flush and c.all_pungs),
    Pattern("將對", 9, lambda c: c.all_pungs and c.all_jiang),
    Pattern("龍七對", 12, lambda c: c.seven_pairs and c.dragon),
    Pattern("清七對", 12, lambda c: c.flush and c.seven_pairs),
    Pattern("清么九", 12, lambda c: c.flush and c.terminal_everywhere),
    Pattern("天胡", 18, lambda c: c.tianhu),
    Pattern("地胡", 18, lambda c: c.dihu),
    Pattern("青龍七對", 18, lambda c: c.flush and c.seven_pairs and c.dragon),
]
"""R20, in table order; the order breaks ties of fan (later wins)."""


@dataclass(frozen=True, slots=True)
class PatternResult:
    name: str
    fan: int


def best_pattern(hand: Hand, *, tianhu: bool = False, dihu: bool = False) -> PatternResult | None:
    """The largest R20 pattern of a complete 14-tile hand (concealed incl. the winning tile +
    melds) over every reading; None when it does not win. 天胡/地胡 are situations only the
    engine knows, hence flags."""
    if hand.tile_count != 14:
        return None
    readings = decompositions(hand.counts())
    if not readings:
        return None
    best: Pattern | None = None
    for reading in readings:
        context = Context(hand, reading, tianhu, dihu)
        for pattern in PATTERNS:
            better = best is None or pattern.fan > best.fan
            tie_later = best is not None and pattern.fan == best.fan and _later(pattern, best)
            if (better or tie_later) and pattern.condition(context):
                best = pattern
    assert best is not None  # 平胡 or 七對 matches any reading
    return PatternResult(best.name, best.fan)


def _later(a: Pattern, b: Pattern) -> bool:
    return PATTERNS.index(a) > PATTERNS.index(b)


def waits_fan(hand: Hand, waits: Sequence[int] | None = None) -> dict[int, PatternResult]:
    """For a 13-tile hand: each wait -> the pattern winning on it would score (no 天胡/地胡).

    Default waits follow R11 (a kind held four times, melds included, is no wait).
    """
    if hand.tile_count != 13:
        raise ValueError(f"waits_fan needs a 13-tile hand, got {hand.tile_count}")
    if waits is None:
        waits = find_waits(hand.counts(), hand.all_counts())
    result: dict[int, PatternResult] = {}
    for tile in waits:
        won = best_pattern(Hand((*hand.concealed, tile), hand.melds))
        if won is not None:
            result[tile] = won
    return result


def max_fan(hand: Hand, waits: Sequence[int] | None = None) -> PatternResult | None:
    """大叫 (R30): the largest pattern over the waits; None when the hand is not ready.
    Ties go to the lowest wait, for a deterministic name."""
    best: PatternResult | None = None
    for result in waits_fan(hand, waits).values():
        if best is None or result.fan > best.fan:
            best = result
    return best


@dataclass(frozen=True, slots=True)
class FanBreakdown:
    """A payment's fan and where it came from, e.g. (("對對胡", 3), ("報聽", 6), ("連莊", 5))."""

    total: int
    items: tuple[tuple[str, int], ...]


BAOTING_FAN = 6  # R21
GANG_SHANG_HUA_FAN = 1  # R21 槓上花
GANG_SHANG_PAO_FAN = 1  # R21 槓上炮


def payment_fan(
    basic_fan: int,
    *,
    winner_baoting: bool,
    payer_baoting: bool,
    gang_shang_hua: bool = False,
    gang_shang_pao: bool = False,
    dealer_involved: bool = False,
    streak: int = 0,
    pattern: str = "基本番",
) -> FanBreakdown:
    """The fan of one payment between a winner (or ready player, R30) and one payer (R22).

    報聽 is +6 for each of the two parties that declared it (R21), so it is per payment, not
    per win; the dealer bonus is the streak when the dealer is payer or payee (R36). ``pattern``
    only labels the basic item.
    """
    if basic_fan <= 0:
        raise ValueError(f"basic fan must be positive, got {basic_fan}")
    if streak < 0:
        raise ValueError(f"streak must not be negative, got {streak}")
    if gang_shang_hua and gang_shang_pao:
        raise ValueError("槓上花 is a self-draw and 槓上炮 a discard win: not both")
    items: list[tuple[str, int]] = [(pattern, basic_fan)]
    if winner_baoting:
        items.append(("報聽", BAOTING_FAN))
    if payer_baoting:
        items.append(("報聽", BAOTING_FAN))
    if gang_shang_hua:
        items.append(("槓上花", GANG_SHANG_HUA_FAN))
    if gang_shang_pao:
        items.append(("槓上炮", GANG_SHANG_PAO_FAN))
    if dealer_involved and streak:
        items.append(("連莊", streak))
    return FanBreakdown(sum(fan for _, fan in items), tuple(items))
