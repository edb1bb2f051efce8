"""One hand (一局) of Duyun mahjong as a pure state machine (RULES R3-R45).

Everything that drives a game -- the terminal game, self-play, bots, the RL environment --
goes through three calls, in the spirit of python-chess:

* ``legal_actions(seat)``: what that seat may do now (empty when it has no choice);
* ``apply(action)``: do it; returns the events it caused, including every automatic step
  that followed (draws, forced discards and wins of R19/R26, claim resolution, settlement);
* ``view(seat)``: what that seat may know.

Forced moves are never offered as choices: they are applied by the engine and reported as
events with ``"auto": true``. While a discard (or an added kong's tile) awaits claims, every
seat that may claim it is asked; the claims are resolved once all of them have answered.

The state is kept as flat count vectors (27 ints per seat) updated incrementally, so that the
hot path of self-play never re-parses notation.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import mul
from typing import Any, SupportsIndex

from duyun.analysis import is_win, shanten, waits
from duyun.analysis._tables import WIN_CODES
from duyun.engine import settlement
from duyun.engine.actions import (
    ADDED_KONG_ACTIONS,
    BAOTING_ACTIONS,
    CLAIM_ACTIONS,
    CONCEALED_KONG_ACTIONS,
    DISCARD_ACTIONS,
    HU_ACTIONS,
    Action,
    ActionKind,
    EngineError,
    IllegalActionError,
    LegalActions,
    SetupError,
    as_seat,
    as_tile,
)
from duyun.engine.ledger import Payment, net_points
from duyun.engine.phases import ClaimSource, Phase, TurnKind, WinKind
from duyun.engine.view import MeldView, RefusedWin, SeatView, copy_event, seat_view
from duyun.hand import Hand, Meld, MeldKind
from duyun.rules import DUYUN, RuleSet
from duyun.scoring import PatternResult, best_pattern, max_fan
from duyun.tiles import (
    COPIES,
    NUM_KINDS,
    TILE_NAMES,
    TOTAL_TILES,
    Tile,
    from_counts,
    full_set,
    tile_to_str,
)

# The ``act`` event of each of the engine's own Action objects (module-level singletons that
# live as long as the process, so their id() is a safe key), built once: a decision copies its
# template instead of serialising the action (same dict, same key order as Action.to_json).
_ACT_EVENTS: dict[int, dict[str, Any]] = {
    id(action): {"type": "act", **action.to_json()}
    for table in (DISCARD_ACTIONS, BAOTING_ACTIONS, ADDED_KONG_ACTIONS, CONCEALED_KONG_ACTIONS)
    for seat_actions in table
    for action in seat_actions
}
_ACT_EVENTS.update(
    (id(action), {"type": "act", **action.to_json()})
    for seat_actions in CLAIM_ACTIONS.values()
    for action in seat_actions
)
_NAMES = TILE_NAMES  # tile -> notation, for tiles the engine itself holds (always 0..26)

EVENT_LOG_VERSION = 2
# Version 2 added the ``match`` link to ``start``, the ``win_refused`` event and announces
# forced wins when their claim window resolves; version 1 logs are still read (replay.py).
READABLE_LOG_VERSIONS = (1, 2)
SEATS = 4
DEALER_HAND = 14
HAND_SIZE = 13
LAST_TILES = 4  # R19
# the other seats of each seat, in play order after it (R3)
_OTHERS: tuple[tuple[int, ...], ...] = tuple(
    tuple((seat + offset) % SEATS for offset in (1, 2, 3)) for seat in range(SEATS)
)
_SEAT_TUPLES: tuple[tuple[int], ...] = tuple((seat,) for seat in range(SEATS))
_NO_ACTIONS = LegalActions(())  # immutable: one object serves every seat without a choice
# enum members as module constants: the hot path reads them without a class lookup
_PHASE_TURN = Phase.TURN
_PHASE_CLAIMS = Phase.CLAIMS
_DISCARD_KIND = ActionKind.DISCARD
_DRAW_TURN = TurnKind.DRAW
_FROM_DISCARD = ClaimSource.DISCARD


@dataclass(slots=True)
class _ClaimWindow:
    source: ClaimSource
    from_seat: int
    tile: Tile
    last_four: bool
    gang_shang_pao: bool
    options: dict[int, tuple[ActionKind, ...]]
    forced: list[int]
    answers: dict[int, ActionKind] = field(default_factory=dict)
    legal: dict[int, LegalActions] = field(default_factory=dict)  # built on first request

    def copy(self) -> _ClaimWindow:
        """An independent window: its answers and legal caches change as seats answer."""
        return _ClaimWindow(
            self.source,
            self.from_seat,
            self.tile,
            self.last_four,
            self.gang_shang_pao,
            dict(self.options),
            list(self.forced),
            dict(self.answers),
            dict(self.legal),
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Explicit: a compiled dataclass is a native class whose default reduction calls
        # __init__ without arguments. The legal cache is rebuilt on demand.
        return (
            _ClaimWindow,
            (
                self.source,
                self.from_seat,
                self.tile,
                self.last_four,
                self.gang_shang_pao,
                self.options,
                self.forced,
                self.answers,
            ),
        )


@dataclass(frozen=True, slots=True)
class MatchLink:
    """Which match a hand belongs to: its id, the hand's number (1-based) and the match length.

    Written into the hand's ``start`` event so that a match log whose hands were deleted,
    duplicated or reordered is detected on replay.
    """

    match_id: str
    hand: int
    hands: int

    def __post_init__(self) -> None:
        if not isinstance(self.match_id, str) or not self.match_id:
            raise TypeError("a match id is a non-empty string")
        if type(self.hand) is not int or type(self.hands) is not int:
            raise TypeError("a match link's hand and hands are integers")
        if not 1 <= self.hand <= self.hands:
            raise SetupError(f"hand {self.hand} of a {self.hands}-hand match")

    def to_json(self) -> dict[str, Any]:
        return {"id": self.match_id, "hand": self.hand, "hands": self.hands}

    def __reduce__(self) -> tuple[Any, ...]:
        # the compiled dataclass has no argument-free constructor for pickle's default
        return (MatchLink, (self.match_id, self.hand, self.hands))


def _tile_names(tiles: Sequence[Tile]) -> list[str]:
    """``[tile_to_str(t) for t in tiles]``: one C-level map when every tile is in range."""
    if tiles and min(tiles) >= 0 and max(tiles) < NUM_KINDS:
        return list(map(TILE_NAMES.__getitem__, tiles))
    return [tile_to_str(t) for t in tiles]


@dataclass(frozen=True, slots=True)
class Setup:
    """A starting position: hands (with melds), rivers, 報聽 flags and the wall order.

    ``wall`` holds the live wall front first; kong replacements are taken from its back
    (R7), so ``wall[-1]`` is the first replacement tile.
    """

    hands: tuple[Hand, ...]
    wall: tuple[Tile, ...]
    dealer: int = 0
    streak: int = 0
    discards: tuple[tuple[Tile, ...], ...] = ((), (), (), ())
    baoting: tuple[bool, ...] = (False, False, False, False)
    turn: int | None = None
    drawn: bool = False
    seed: int | None = None
    match: MatchLink | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "streak": self.streak,
            "hands": [str(hand) if hand.concealed or hand.melds else "" for hand in self.hands],
            "discards": [_tile_names(river) for river in self.discards],
            "baoting": list(self.baoting),
            "turn": self.dealer if self.turn is None else self.turn,
            "drawn": self.drawn,
            "wall": _tile_names(self.wall),
            "seed": self.seed,
            "match": None if self.match is None else self.match.to_json(),
        }

    def __reduce__(self) -> tuple[Any, ...]:
        # the compiled dataclass has no argument-free constructor for pickle's default
        return (
            Setup,
            (
                self.hands,
                self.wall,
                self.dealer,
                self.streak,
                self.discards,
                self.baoting,
                self.turn,
                self.drawn,
                self.seed,
                self.match,
            ),
        )


@dataclass(frozen=True, slots=True)
class Win:
    """One win of a hand: its winners (several for a 一炮多響 or a double 搶槓, nearest to the
    discarder first), how, and the discarder or robbed kong player (None for 自摸)."""

    seats: tuple[int, ...]
    kind: WinKind
    from_seat: int | None

    def to_json(self) -> dict[str, Any]:
        return {"seats": list(self.seats), "how": self.kind.value, "from": self.from_seat}

    def __reduce__(self) -> tuple[Any, ...]:
        return (Win, (self.seats, self.kind, self.from_seat))  # as Setup.__reduce__


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended and what it means for the next one (R35, R36; R53, R55).

    In a 血戰 room (R53) ``winners`` lists every winner in order of winning, ``win_kind`` is
    the kind of the first win and ``loser`` its discarder (or the escapee when an escape ended
    the hand); ``wins`` lists each win. In the normal room ``wins`` holds the one win, if any.
    """

    result: str  # "win" | "draw" | "escape"
    winners: tuple[int, ...]
    win_kind: WinKind | None
    loser: int | None  # discarder / robbed kong player / escapee
    payments: tuple[Payment, ...]
    totals: tuple[int, ...]
    next_dealer: int
    next_streak: int
    wins: tuple[Win, ...] = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return (  # as Setup.__reduce__
            HandResult,
            (
                self.result,
                self.winners,
                self.win_kind,
                self.loser,
                self.payments,
                self.totals,
                self.next_dealer,
                self.next_streak,
                self.wins,
            ),
        )


def deal_setup(
    seed: SupportsIndex | None = None,
    *,
    wall_order: Sequence[Tile] | None = None,
    dealer: object = 0,
    streak: object = 0,
    match: MatchLink | None = None,
) -> Setup:
    """Deal a fresh hand (R4) from a seeded shuffle or an explicit 108-tile order.

    The order is read as the wall from which the dealer takes 14 tiles and then each seat in
    play order 13; the remaining 55 tiles form the live wall.
    """
    if seed is not None and type(seed) is not int:
        if isinstance(seed, bool) or not isinstance(seed, SupportsIndex):
            raise TypeError(f"seed must be an integer or None, not {type(seed).__name__}")
        seed = operator.index(seed)  # e.g. a numpy integer: the log stores a plain int
    dealer = _setup_seat(dealer, "dealer")
    streak = _setup_streak(streak)
    if match is not None and not isinstance(match, MatchLink):
        raise TypeError(f"match must be a MatchLink or None, not {type(match).__name__}")
    if wall_order is None:
        order = _shuffled_set(seed)
    else:
        if isinstance(wall_order, (str, bytes)) or not isinstance(wall_order, Sequence):
            raise TypeError("wall_order must be a sequence of 108 tile numbers 0..26")
        order = [as_tile(tile, "wall tile") for tile in wall_order]
        if sorted(order) != full_set():
            raise SetupError("an explicit wall must hold each of the 108 tiles exactly once (R1)")
    hands: list[Hand] = [Hand(())] * SEATS
    position = 0
    for offset in range(SEATS):
        seat = (dealer + offset) % SEATS
        size = DEALER_HAND if offset == 0 else HAND_SIZE
        hands[seat] = Hand(tuple(order[position : position + size]))
        position += size
    return Setup(
        hands=tuple(hands),
        wall=tuple(order[position:]),
        dealer=dealer,
        streak=streak,
        seed=seed,
        match=match,
    )


_FULL_SET = tuple(full_set())
# random.Random.shuffle's steps for 108 tiles: (position, bound, bits) as its randbelow draws
_SHUFFLE_STEPS = tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, TOTAL_TILES)))


def _shuffle_inline(seed: int | None) -> list[Tile]:
    """``random.Random(seed).shuffle(full_set())``, unrolled: the same draws of
    ``getrandbits`` in the same order (``_randbelow_with_getrandbits``), so the same walls,
    without two method calls per tile (a fifth of a deal's time)."""
    order = list(_FULL_SET)
    getrandbits = random.Random(seed).getrandbits
    for i, bound, bits in _SHUFFLE_STEPS:
        j = getrandbits(bits)
        while j >= bound:
            j = getrandbits(bits)
        order[i], order[j] = order[j], order[i]
    return order


def _shuffle_reference(seed: int | None) -> list[Tile]:
    order = full_set()
    random.Random(seed).shuffle(order)
    return order


def _same_shuffle() -> bool:
    """Whether this Python's shuffle draws as :func:`_shuffle_inline` does (checked once)."""
    return all(_shuffle_inline(seed) == _shuffle_reference(seed) for seed in (0, 1, 2**40 + 7))


# Seeded walls must stay what they were (logs store seeds, tests replay them): the unrolled
# shuffle is used only where it reproduces random.shuffle exactly.
_shuffled_set = _shuffle_inline if _same_shuffle() else _shuffle_reference


def _setup_seat(value: object, what: str) -> int:
    try:
        return as_seat(value, what)
    except EngineError as error:
        raise SetupError(str(error)) from None


def _setup_streak(value: object) -> int:
    if type(value) is not int:
        if isinstance(value, bool) or not isinstance(value, SupportsIndex):
            raise TypeError(f"streak must be an integer, not {type(value).__name__}")
        value = operator.index(value)
    if value < 0:
        raise SetupError(f"streak {value} must not be negative")
    return value


def _may_be_ready_after_discard(counts: Sequence[int]) -> bool:
    """A necessary condition, three dict lookups, for a discard to leave ``counts`` ready.

    If discarding ``d`` and then drawing ``w`` completes the hand, ``d`` and ``w`` touch at
    most two suits, so the third suit is complete as it is: sets with at most one pair, or all
    pairs (seven pairs, R10) -- the suit shapes of the win-code table. A hand none of whose
    suits is such a shape is never ready after a discard; most first hands are not, and this
    spares them the shanten search (whose tables miss often on fresh 14-tile shapes). The
    result of the 報聽 test is unchanged: it only skips hands the full test would refuse.
    """
    return (
        tuple(counts[0:9]) in WIN_CODES
        or tuple(counts[9:18]) in WIN_CODES
        or tuple(counts[18:27]) in WIN_CODES
    )


def _waits(counts: Sequence[int], held: Sequence[int]) -> list[Tile]:
    """:func:`duyun.analysis.waits`, answering [] at once for hands that cannot be ready.

    A wait completes the hand by adding one tile to one suit, so the other two suits are
    complete as they are (sets with at most one pair, or all pairs for seven pairs, R10): a
    3k+1 hand with fewer than two such suits has no wait. Most hands at an exhaustive draw
    (查大叫, R30) are like that, and their suit shapes often miss the lazily filled wait
    tables; this spares them. Other hands (and bad sizes, which waits() reports) go on to
    waits() itself, so the result is the same.
    """
    complete = (
        (tuple(counts[0:9]) in WIN_CODES)
        + (tuple(counts[9:18]) in WIN_CODES)
        + (tuple(counts[18:27]) in WIN_CODES)
    )
    if complete < 2 and sum(counts) % 3 == 1:
        return []
    return waits(counts, held)


def _concealed_text(counts: Sequence[int]) -> str:
    """The notation of a count vector, as ``format_counts`` writes it (``'11m234p'``): each
    suit's ranks repeated by their counts (C-level ``str * int``), then its letter."""
    m = "".join(map(mul, _RANKS, counts[0:9]))
    p = "".join(map(mul, _RANKS, counts[9:18]))
    s = "".join(map(mul, _RANKS, counts[18:27]))
    return (m + "m" if m else "") + (p + "p" if p else "") + (s + "s" if s else "")


_RANKS = "123456789"


class Round:
    """The state machine of one hand. Construct with :func:`deal_setup` or a scenario setup.

    :meth:`copy` (and ``copy.copy``, ``copy.deepcopy``, pickle) gives an independent hand
    that plays on exactly as this one would.
    """

    def __new__(cls, *_args: Any, **_kwargs: Any) -> Round:
        # Explicit so that ``Round.__new__(Round)`` gives an empty round, for copy() and
        # unpickling to fill in field by field: compiled by mypyc, a class without its own
        # __new__ runs __init__ from __new__, which needs a setup (issue 23).
        return super().__new__(cls)

    def __init__(
        self, setup: Setup, rules: RuleSet = DUYUN, *, log_version: int = EVENT_LOG_VERSION
    ) -> None:
        """Start the hand. ``log_version`` is only for replaying an older log (replay.py): the
        round then writes the events that version wrote (version 1: no ``match`` link, no
        ``win_refused``, a forced win announced when its claim window opens, with the other
        claimants left only "hu" or "pass")."""
        if log_version not in READABLE_LOG_VERSIONS:
            raise ValueError(f"event log version {log_version!r} is not supported")
        self.log_version = log_version
        if not isinstance(setup, Setup):
            raise TypeError(f"Round needs a Setup (see deal_setup), not {type(setup).__name__}")
        if not isinstance(rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, not {type(rules).__name__}")
        self.rules = rules
        self.setup = setup
        self.dealer = _setup_seat(setup.dealer, "dealer")
        self.streak = _setup_streak(setup.streak)
        if setup.turn is not None:
            _setup_seat(setup.turn, "turn")
        if len(setup.hands) != SEATS or len(setup.discards) != SEATS or len(setup.baoting) != SEATS:
            raise SetupError("hands, discards and baoting need one entry per seat (4)")

        self.counts: list[list[int]] = [hand.counts() for hand in setup.hands]
        # concealed tiles per seat (the sum of its counts), kept with every lasting change of
        # the counts: public (every view shows them), and read on every RL observation
        self.concealed_sizes: list[int] = [sum(counts) for counts in self.counts]
        self.melds: list[list[Meld]] = [list(hand.melds) for hand in setup.hands]
        self.rivers: list[list[Tile]] = [list(river) for river in setup.discards]
        self.discard_count: list[int] = [len(river) for river in setup.discards]
        self.baoting: list[bool] = list(setup.baoting)
        self.wall: list[Tile] = list(setup.wall)
        self.front = 0
        self.back = len(self.wall)
        self.has_bean = [any(m.is_kong for m in melds) for melds in self.melds]  # R15
        self.ledger: list[Payment] = []
        self.events: list[dict[str, Any]] = []
        self.result: HandResult | None = None
        self.win_tile: Tile | None = None  # the tile of the latest win
        # R53 血戰到底: winners leave play (``won``); a winner may then leave the table (R57)
        self.bloody = rules.bloody_battle
        self.won: list[bool] = [False] * SEATS
        self.left: list[bool] = [False] * SEATS
        self.winners: list[int] = []  # in order of winning
        self.wins: list[Win] = []
        self.win_tiles: list[Tile | None] = [None] * SEATS
        # tiles won on a discard or a robbed kong: in no hand, meld or river any more (one per
        # win, shared by the winners of a 一炮多響)
        self.off_table: list[Tile] = []

        self._validate_setup()

        self.phase = Phase.TURN
        self.current = self.dealer if setup.turn is None else setup.turn
        self.turn_kind = TurnKind.INITIAL
        self.drawn_tile: Tile | None = None
        self.drawn_last_four = False
        # R19: per seat and kind, how many tiles held were drawn from the last four; a discard
        # or an added kong's tile of a marked kind is one of the last four (the mark goes with it)
        self.last_four_marks: list[list[int]] = [[0] * NUM_KINDS for _ in range(SEATS)]
        self.kong_income: list[Payment] | None = None  # of the kong just made, for 槓上炮 (R28)
        self.claims: _ClaimWindow | None = None
        self.ron_blocked = [False] * SEATS  # R9
        # the latest win each seat was refused (R17, R9), until its next own action or draw
        self.refused_wins: list[RefusedWin | None] = [None] * SEATS
        self._self_draw_only: tuple[Tile, ...] | None = None
        self.any_meld_made = any(self.melds)
        self.discard_made = any(self.discard_count)
        # 地胡 (R20): a non-dealer's first draw of the hand; a seat that has discarded or melded
        # has drawn before.
        self.awaiting_first_draw = [
            not self.discard_count[s] and not self.melds[s] and s != self.dealer
            for s in range(SEATS)
        ]
        self.dihu_draw = False
        self._waits_cache: list[list[Tile] | None] = [None] * SEATS
        self._turn_legal: LegalActions | None = None
        # views are built before every bot decision; these parts change rarely
        self.meld_views: dict[int, tuple[tuple[MeldView, ...], ...]] = {}
        self.ledger_view: tuple[tuple[Payment, ...], tuple[int, ...]] | None = None

        start = {"type": "start", "version": log_version, "rules": rules.to_mapping()}
        start.update(setup.to_json())
        if log_version == 1:
            del start["match"]
        self.events.append(start)
        self._start()

    # ------------------------------------------------------------------ setup checks

    def _count_all_tiles(self) -> int:
        return (
            sum(map(sum, self.counts))
            + sum(meld.kind.size for melds in self.melds for meld in melds)
            + sum(map(len, self.rivers))
            + (self.back - self.front)
        )

    def _kind_totals(self) -> list[int]:
        totals = [0] * NUM_KINDS
        for seat in range(SEATS):
            for tile, count in enumerate(self.counts[seat]):
                totals[tile] += count
            for meld in self.melds[seat]:
                totals[meld.tile] += meld.kind.size
            for tile in self.rivers[seat]:
                totals[tile] += 1
        for tile in self.wall[self.front : self.back]:
            totals[tile] += 1
        return totals

    def _validate_setup(self) -> None:
        totals = self._kind_totals()
        for tile, count in enumerate(totals):
            if count > COPIES:
                raise SetupError(
                    f"{count} copies of {tile_to_str(tile)} on the table (hands, melds, "
                    "discards and wall): there are only 4 (R1)"
                )
        if self.rules.bloody_battle and self.streak:
            raise SetupError(
                f"streak {self.streak}: the streak stays 0 in a 血戰 room (R55, bloody_battle)"
            )
        total = self._count_all_tiles()
        if total > TOTAL_TILES:
            raise SetupError(f"{total} tiles on the table: there are only 108 (R1)")
        turn = self.dealer if self.setup.turn is None else self.setup.turn
        if not 0 <= turn < SEATS:
            raise SetupError(f"turn {turn} out of range 0..3")
        for seat in range(SEATS):
            size = self._size(seat)
            if seat == turn and size == HAND_SIZE + 1:
                continue
            if size != HAND_SIZE:
                holds = "13 or 14" if seat == turn else "13"
                raise SetupError(
                    f"seat {seat} holds {size} tiles (kongs counted as three); it must hold {holds}"
                )
            if seat == turn and self.setup.drawn:
                raise SetupError(
                    f"seat {seat} is to act with drawn=true but holds 13 tiles: a seat that has "
                    "drawn holds 14"
                )
        for seat in range(SEATS):
            if self.baoting[seat] and self.melds[seat]:
                raise SetupError(f"seat {seat} declared 報聽 but has melds (R25)")
            if self.baoting[seat] and not self.setup.discards[seat]:
                raise SetupError(f"seat {seat} declared 報聽 but has not discarded yet (R25)")
        if self.baoting[turn] and not self.setup.drawn and self._size(turn) == HAND_SIZE + 1:
            raise SetupError(
                f"seat {turn} declared 報聽 and holds 14 tiles: set drawn=true (R26 discards "
                "the drawn tile)"
            )

    def _size(self, seat: int) -> int:
        return sum(self.counts[seat]) + 3 * len(self.melds[seat])

    def _start(self) -> None:
        """Enter the first decision: the turn seat acts, or draws first when it holds 13."""
        seat = self.current
        if self._size(seat) == HAND_SIZE:
            self._draw_or_exhaust(seat, self.events)
            return
        if self.setup.drawn:
            self.turn_kind = TurnKind.DRAW
            self.drawn_tile = self._guess_drawn_tile(seat)
            # R19: the tile in hand was drawn from a wall one tile longer than now
            self.drawn_last_four = self.wall_remaining + 1 <= LAST_TILES
            if self.drawn_last_four and self.drawn_tile is not None:
                self.last_four_marks[seat][self.drawn_tile] += 1
        self._after_turn_start(seat, self.events)

    def _guess_drawn_tile(self, seat: int) -> Tile | None:
        """A scenario's ``drawn`` hand does not say which tile was drawn; 報聽 needs it (R26)."""
        if not self.baoting[seat]:
            return None
        counts = self.counts[seat]
        candidates = []
        for tile in range(NUM_KINDS):
            if counts[tile]:
                counts[tile] -= 1
                if self._ready_waits_for(seat, counts):
                    candidates.append(tile)
                counts[tile] += 1
        if len(candidates) != 1:
            raise SetupError(
                f"seat {seat} declared 報聽 and holds a drawn tile, but which tile was drawn is "
                "ambiguous; give the seat 13 tiles and put the tile first in the wall instead"
            )
        return candidates[0]

    # ------------------------------------------------------------------ queries

    @property
    def wall_remaining(self) -> int:
        return self.back - self.front

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.ENDED

    @property
    def to_act(self) -> tuple[int, ...]:
        """Seats that have a decision to make now."""
        if self.phase is Phase.TURN:
            return _SEAT_TUPLES[self.current]
        if self.phase is Phase.CLAIMS:
            assert self.claims is not None
            return tuple(s for s in self.claims.options if s not in self.claims.answers)
        return ()

    def hand_of(self, seat: int) -> Hand:
        return Hand(tuple(from_counts(self.counts[seat])), tuple(self.melds[seat]))

    def _hand_text(self, seat: int) -> str:
        """``str(self.hand_of(seat))`` without building the Hand (events name hands)."""
        concealed = _concealed_text(self.counts[seat])
        melds = self.melds[seat]
        if not melds:
            return concealed
        parts = [concealed] if concealed else []
        parts.extend(map(str, melds))
        return " ".join(parts)

    def held_counts(self, seat: int) -> list[int]:
        """Concealed and melded tiles of a seat (R11's four-copies exclusion)."""
        held = list(self.counts[seat])
        for meld in self.melds[seat]:
            held[meld.tile] += meld.kind.size
        return held

    def waits_of(self, seat: int) -> list[Tile]:
        """Waits of a seat holding 3k+1 tiles, cached until its hand changes."""
        cached = self._waits_cache[seat]
        if cached is None:
            cached = _waits(self.counts[seat], self.held_counts(seat))
            self._waits_cache[seat] = cached
        return cached

    def _ready_waits_for(self, seat: int, counts: Sequence[int]) -> list[Tile]:
        """R11 waits of ``counts`` (3k+1 tiles) for ``seat``, honouring ``dead_waits_count``."""
        held = list(counts)
        for meld in self.melds[seat]:
            held[meld.tile] += meld.kind.size
        found = _waits(counts, held)
        if self.rules.dead_waits_count or not found:
            return found
        visible = held
        for other in range(SEATS):
            for tile in self.rivers[other]:
                visible[tile] += 1
            if other != seat:
                for meld in self.melds[other]:
                    if meld.kind is not MeldKind.CONCEALED_KONG:
                        visible[meld.tile] += meld.kind.size
        return [tile for tile in found if visible[tile] < COPIES]

    def ready_waits(self, seat: int) -> list[Tile]:
        """R11 waits of a seat holding 3k+1 tiles (dead waits per the rule option)."""
        if self.rules.dead_waits_count:
            return self.waits_of(seat)
        return self._ready_waits_for(seat, self.counts[seat])

    def _invalidate(self, seat: int) -> None:
        self._waits_cache[seat] = None

    def legal_actions(self, seat: object) -> LegalActions:
        """Every action ``seat`` may take now; empty when it has no choice to make.

        ``seat`` is typed ``object`` because it is checked here (a bool, a float or a seat out
        of range is an error naming it): a compiled engine (mypyc) would otherwise convert or
        refuse it with its own message before the check."""
        seat = seat if type(seat) is int and 0 <= seat < SEATS else as_seat(seat)
        if self.phase is _PHASE_TURN and seat == self.current:
            # a driver lists the actions and apply() checks them again: compute them once
            # per position (any change of state goes through apply/escape, which clear this)
            cached = self._turn_legal
            if cached is None:
                cached = self._turn_legal = LegalActions(self._turn_actions(seat))
            return cached
        if self.phase is _PHASE_CLAIMS:
            window = self.claims
            assert window is not None
            if seat in window.answers:
                return _NO_ACTIONS
            # asked again by apply() and by drivers: built once per seat and window
            cached = window.legal.get(seat)
            if cached is None:
                options = window.options.get(seat)
                if options is None:
                    return _NO_ACTIONS
                cached = window.legal[seat] = LegalActions(
                    [CLAIM_ACTIONS[kind][seat] for kind in options]
                )
            return cached
        return _NO_ACTIONS

    def _turn_actions(self, seat: int) -> list[Action]:
        counts = self.counts[seat]
        actions: list[Action] = []
        if self.turn_kind is not TurnKind.PONG:
            if is_win(counts):
                actions.append(HU_ACTIONS[seat])
            if self.back > self.front and not self.baoting[seat]:  # R7, R26
                if 4 in counts:
                    concealed = CONCEALED_KONG_ACTIONS[seat]
                    actions.extend([concealed[t] for t in range(NUM_KINDS) if counts[t] == 4])
                melds = self.melds[seat]
                if melds:
                    added = ADDED_KONG_ACTIONS[seat]
                    actions.extend(
                        [
                            added[meld.tile]
                            for meld in melds
                            if meld.kind is MeldKind.PONG and counts[meld.tile]
                        ]
                    )
        # the discards in tile order: compress keeps the action of each kind held
        actions.extend(compress(DISCARD_ACTIONS[seat], counts))
        # a 14-tile hand's shanten is its best discard's: above 0 no discard leaves it ready
        if (
            not self.discard_count[seat]  # the cheapest part of R25's test first
            and self._may_declare_baoting(seat)
            and _may_be_ready_after_discard(counts)
            and shanten(counts) <= 0
        ):
            declarations = BAOTING_ACTIONS[seat]
            for tile in list(compress(range(NUM_KINDS), counts)):
                counts[tile] -= 1
                ready = bool(self._ready_waits_for(seat, counts))
                counts[tile] += 1
                if ready:
                    actions.append(declarations[tile])
        return actions

    def baoting_self_draw_only(self, seat: int) -> tuple[Tile, ...]:
        """Legal 報聽 discards after which ``seat`` could never win on an ordinary discard.

        A 報聽 hand is frozen (R26): it can make no kong, so a seat without a bean keeps none
        (R15). If every wait of the hand left by the discard scores only 平胡, R17 refuses each
        discard win except on another 報聽 player's discard (R27); the seat can still win by
        self-draw or 搶槓. Clients warn before such a declaration. Empty when the seat may not
        declare now or has a bean.
        """
        if (
            self.phase is not Phase.TURN
            or seat != self.current
            or self.has_bean[seat]
            or not self._may_declare_baoting(seat)
        ):
            return ()
        cached = self._self_draw_only
        if cached is not None:
            return cached
        declarable = [a.tile for a in self.legal_actions(seat) if a.kind is ActionKind.BAOTING]
        found: list[Tile] = []
        counts = self.counts[seat]
        for tile in declarable:
            assert tile is not None
            counts[tile] -= 1
            try:
                if all(
                    self._pinghu_only(seat, wait) for wait in self._ready_waits_for(seat, counts)
                ):
                    found.append(tile)
            finally:
                counts[tile] += 1
        self._self_draw_only = tuple(found)
        return self._self_draw_only

    def _pinghu_only(self, seat: int, wait: Tile) -> bool:
        """Whether ``seat``'s 13 tiles completed by ``wait`` score no more than 平胡 (R17)."""
        counts = self.counts[seat]
        counts[wait] += 1
        try:
            pattern = best_pattern(self.hand_of(seat))
        finally:
            counts[wait] -= 1
        return pattern is None or pattern.fan <= 1

    def _may_declare_baoting(self, seat: int) -> bool:
        """R25: with one's first discard, never after a pong or kong."""
        return (
            not self.baoting[seat]
            and self.discard_count[seat] == 0
            and not self.melds[seat]
            and self.turn_kind is not TurnKind.PONG
        )

    # ------------------------------------------------------------------ applying actions

    def apply(self, action: Action) -> list[dict[str, Any]]:
        """Apply a seat's decision; return the events it caused, automatic ones included.

        The returned events are copies; ``self.events`` is the log itself.
        """
        # the caller gets copies: editing them must not rewrite the log
        return [copy_event(event) for event in self.apply_logged(action)]

    def apply_logged(self, action: Action) -> list[dict[str, Any]]:
        """:meth:`apply` without the copies: the events returned are the log's own objects
        (``self.events[-len(result):]``) and must not be edited.

        For drivers that only read the events, or none at all (the RL environment follows the
        log itself): copying a decision's three or so events is a measurable part of a step.
        """
        if type(action) is not Action and not isinstance(action, Action):
            raise TypeError(
                f"apply() takes an Action (e.g. Action.parse('0 discard 5p')), not "
                f"{type(action).__name__}"
            )
        seat = action.seat
        # the engine's own action objects (the drivers hand them back) match by identity; a
        # scan by identity first spares the dataclass __eq__ on every earlier legal action
        for offered in self.legal_actions(seat).actions:
            if offered is action:
                break
        else:
            if action not in self.legal_actions(seat):
                raise IllegalActionError(f"{action}: {self._why_illegal(action)}")
        return self._apply_legal(action)

    def _apply_legal(self, action: Action) -> list[dict[str, Any]]:
        """:meth:`apply_logged` once ``action`` is known to be one of the engine's own legal
        action objects for this position (the RL environment has just found it among
        ``legal_actions`` by identity: checking again would repeat that scan)."""
        seat = action.seat
        template = _ACT_EVENTS.get(id(action))
        act = template.copy() if template is not None else {"type": "act", **action.to_json()}
        events: list[dict[str, Any]] = [act]
        self._turn_legal = None
        self._self_draw_only = None
        self.refused_wins[seat] = None
        if self.phase is _PHASE_CLAIMS:
            self._answer_claim(action, events)
        elif action.kind is _DISCARD_KIND:  # most decisions: straight to the discard
            self._discard(seat, action.tile, False, False, events)  # type: ignore[arg-type]
        else:
            self._turn_action(action, events)
        self.events.extend(events)
        return events

    def _why_illegal(self, action: Action) -> str:
        seat = action.seat
        if self.phase is Phase.ENDED:
            return "the hand is over"
        if self.phase is Phase.CLAIMS:
            assert self.claims is not None
            if seat not in self.claims.options:
                return f"seat {seat} has no claim on {tile_to_str(self.claims.tile)}"
            if seat in self.claims.answers:
                return f"seat {seat} has already answered this claim"
            allowed = ", ".join(kind.value for kind in self.claims.options[seat])
            return f"seat {seat} may only answer {allowed} on {tile_to_str(self.claims.tile)}"
        if seat != self.current:
            return f"it is seat {self.current}'s turn"
        kind, tile = action.kind, action.tile
        counts = self.counts[seat]
        if kind.is_claim:
            return "there is no discard to claim"
        if tile is not None and not counts[tile]:
            return f"seat {seat} holds no {tile_to_str(tile)}"
        if kind is ActionKind.HU:
            if self.turn_kind is TurnKind.PONG:
                return "after a pong the claimer must discard (R7)"
            return "the hand is not complete (R10)"
        if kind in (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG):
            if self.turn_kind is TurnKind.PONG:
                return "after a pong the claimer must discard (R7)"
            if self.baoting[seat]:
                return "a 報聽 hand is frozen (R26)"
            if self.wall_remaining == 0:
                return "a kong needs a tile left in the wall (R7)"
            if kind is ActionKind.CONCEALED_KONG:
                return f"a concealed kong needs four {tile_to_str(tile or 0)} in hand (R12)"
            return f"an added kong needs a pong of {tile_to_str(tile or 0)} (R12)"
        if kind is ActionKind.BAOTING:
            if not self._may_declare_baoting(seat):
                return "報聽 only with one's first discard, before any pong or kong (R25)"
            return "the hand would not be ready after that discard (R25, R11)"
        return "not allowed now"

    def _turn_action(self, action: Action, events: list[dict[str, Any]]) -> None:
        seat, kind = action.seat, action.kind
        if kind is ActionKind.HU:
            self._settle_self_draw(seat, auto=False, events=events)
        elif kind is ActionKind.DISCARD or kind is ActionKind.BAOTING:
            assert action.tile is not None
            self._discard(seat, action.tile, kind is ActionKind.BAOTING, False, events)
        elif kind is ActionKind.CONCEALED_KONG:
            assert action.tile is not None
            self._concealed_kong(seat, action.tile, events)
        elif kind is ActionKind.ADDED_KONG:
            assert action.tile is not None
            self._declare_added_kong(seat, action.tile, events)
        else:  # pragma: no cover - legal_actions never offers anything else on a turn
            raise IllegalActionError(f"{action}: not a turn action")

    def _draw_or_exhaust(self, seat: int, events: list[dict[str, Any]]) -> None:
        if self.wall_remaining == 0:
            self._settle_exhaustive_draw(events)
            return
        self._draw(seat, replacement=False, events=events)

    def _draw(self, seat: int, *, replacement: bool, events: list[dict[str, Any]]) -> None:
        # the hot path of every hand: small helpers are inlined (same steps, same order)
        last_four = self.back - self.front <= LAST_TILES  # R19: the drawn tile included
        if replacement:
            self.back -= 1
            tile = self.wall[self.back]
        else:
            tile = self.wall[self.front]
            self.front += 1
        self.counts[seat][tile] += 1
        self.concealed_sizes[seat] += 1
        if last_four:
            self.last_four_marks[seat][tile] += 1
        self._waits_cache[seat] = None
        self.phase = _PHASE_TURN
        self.current = seat
        self.claims = None
        self.drawn_tile = tile
        self.drawn_last_four = last_four
        self.ron_blocked[seat] = False  # R9: the block lasts until one's own next draw
        self.refused_wins[seat] = None
        if replacement:
            self.turn_kind = TurnKind.REPLACEMENT
            self.dihu_draw = False
        else:
            self.turn_kind = _DRAW_TURN
            self.kong_income = None
            awaiting = self.awaiting_first_draw
            self.dihu_draw = awaiting[seat] and not self.any_meld_made
            awaiting[seat] = False
        events.append(
            {
                "type": "draw",
                "seat": seat,
                "tile": _NAMES[tile],
                "replacement": replacement,
                "last_four": last_four,
            }
        )
        # a drawn turn has forced moves only for a 報聽 seat or a last-four tile (R19, R26)
        if last_four or self.baoting[seat]:
            self._after_turn_start(seat, events)

    def _after_turn_start(self, seat: int, events: list[dict[str, Any]]) -> None:
        """Forced moves at the start of a turn: R19 last-four wins, R26 報聽 wins and discards."""
        if self.turn_kind is TurnKind.PONG:
            return
        forced_win = self.baoting[seat] or (
            self.drawn_last_four and self.turn_kind is not TurnKind.INITIAL
        )
        if forced_win and is_win(self.counts[seat]):
            self._settle_self_draw(seat, auto=True, events=events)
        elif self.baoting[seat] and self.drawn_tile is not None:
            self._discard(seat, self.drawn_tile, False, True, events)

    def _discard(
        self, seat: int, tile: Tile, declare: bool, auto: bool, events: list[dict[str, Any]]
    ) -> None:
        counts = self.counts[seat]
        marks = self.last_four_marks[seat]  # R19, as _take_last_four_mark (inlined)
        last_four = marks[tile] > 0
        if last_four:
            marks[tile] -= 1
        gang_shang_pao = self.kong_income is not None and self.turn_kind is TurnKind.REPLACEMENT
        if declare:
            self.baoting[seat] = True  # R25
            events.append({"type": "baoting", "seat": seat, "tile": _NAMES[tile]})
        counts[tile] -= 1
        self.concealed_sizes[seat] -= 1
        self._waits_cache[seat] = None
        self.rivers[seat].append(tile)
        self.discard_count[seat] += 1
        self.discard_made = True
        self.drawn_tile = None
        events.append(
            {
                "type": "discard",
                "seat": seat,
                "tile": _NAMES[tile],
                "baoting": declare,
                "auto": auto,
            }
        )
        self._open_claims(ClaimSource.DISCARD, seat, tile, last_four, gang_shang_pao, events)

    def _take_last_four_mark(self, seat: int, tile: Tile) -> bool:
        """R19: whether a tile of kind ``tile`` leaving ``seat``'s hand is one of the last four.

        Copies of a kind are indistinguishable, so the reading is: it is when the seat holds a
        copy of that kind drawn from the last four; that copy's mark goes with it.
        """
        marks = self.last_four_marks[seat]
        if marks[tile]:
            marks[tile] -= 1
            return True
        return False

    def _drop_last_four_marks(self, seat: int, tile: Tile) -> None:
        """After a pong or kong took copies of ``tile`` from the hand: no more marks than
        copies left (marked copies are taken last: the seat keeps every mark it can)."""
        marks = self.last_four_marks[seat]
        if marks[tile] > self.counts[seat][tile]:
            marks[tile] = self.counts[seat][tile]

    def _win_allowed_on(
        self, seat: int, tile: Tile, source: ClaimSource, from_seat: int
    ) -> PatternResult | None:
        """The pattern a claim of ``tile`` would score, or None if it may not win (R16, R17)."""
        pattern, refusal = self._win_on(seat, tile, source, from_seat)
        return None if refusal is not None else pattern

    def _win_on(
        self, seat: int, tile: Tile, source: ClaimSource, from_seat: int
    ) -> tuple[PatternResult | None, str | None]:
        """Whether ``tile`` completes ``seat``'s hand, and whether the win is allowed.

        Returns ``(None, None)`` when the tile does not complete the hand, ``(pattern, None)``
        when the seat may win with ``pattern``, and ``(pattern, rule)`` when the hand is
        complete but the win is refused: ``"R17"`` (平胡 without a bean on a discard from a
        seat that has not declared 報聽) or ``"R9"`` (the 過水 block). When both apply, R17 is
        named: the win would be refused even without the block.
        """
        counts = self.counts[seat]
        # A tile someone else holds can never be a fifth copy, so R11's four-copies exclusion
        # cannot apply here, and a plain win check is cheaper than listing the waits.
        counts[tile] += 1
        try:
            if not is_win(counts):
                return None, None
            pattern = best_pattern(
                self.hand_of(seat), dihu=self._dihu_on_discard(seat, from_seat, source)
            )
        finally:
            counts[tile] -= 1
        if pattern is None:  # pragma: no cover - a wait always completes the hand
            return None, None
        if source is ClaimSource.ADDED_KONG:
            return pattern, None  # 搶槓 is always allowed (R17), and R9 does not block it
        if pattern.fan <= 1 and not self.has_bean[seat] and not self.baoting[from_seat]:
            return pattern, "R17"  # R17, R27
        if self.ron_blocked[seat]:
            return pattern, "R9"
        return pattern, None

    def _dihu_on_discard(self, seat: int, from_seat: int, source: ClaimSource) -> bool:
        """R20 option ``dihu_on_discard``: a non-dealer wins on the dealer's first discard."""
        return (
            self.rules.dihu_on_discard
            and source is ClaimSource.DISCARD
            and from_seat == self.dealer
            and seat != self.dealer
            and self.discard_count[from_seat] == 1
            and not self.any_meld_made
            and self.awaiting_first_draw[seat]
        )

    def _open_claims(
        self,
        source: ClaimSource,
        from_seat: int,
        tile: Tile,
        last_four: bool,
        gang_shang_pao: bool,
        events: list[dict[str, Any]],
    ) -> None:
        # The common case first: no other seat in the hand can win on the tile or pong it.
        # The test is the one of the full loop below (a win check of the seat's hand with the
        # tile added, two copies held), without building anything; when it fails the full
        # loop decides (and writes any refusal events) exactly as before.
        counts = self.counts
        won = self.won
        for seat in _OTHERS[from_seat]:
            if won[seat]:
                continue
            hand = counts[seat]
            held = hand[tile]
            if held >= 2:
                break
            hand[tile] = held + 1
            complete = is_win(hand)
            hand[tile] = held
            if complete:
                break
        else:
            self.claims = None
            if source is _FROM_DISCARD:
                nxt = _OTHERS[from_seat][0]
                if won[nxt]:
                    nxt = self._next_in_hand(from_seat)
                if self.back == self.front:
                    self._settle_exhaustive_draw(events)
                else:
                    self._draw(nxt, replacement=False, events=events)
            else:
                self._complete_added_kong(from_seat, tile, events)
            return
        options: dict[int, tuple[ActionKind, ...]] = {}
        forced: list[int] = []
        for offset in (1, 2, 3):
            seat = (from_seat + offset) % SEATS
            if self.won[seat]:
                continue  # R53: a winner claims no more
            kinds: list[ActionKind] = []
            pattern, refusal = self._win_on(seat, tile, source, from_seat)
            if refusal is not None:
                assert pattern is not None
                if self.log_version > 1:
                    self._refuse_win(seat, tile, from_seat, refusal, pattern.name, events)
            elif pattern is not None:
                # R19, R26: no choice -- except under the 過水 block (R9), which a robbed kong
                # tile does not refuse but which lifts the obligation
                if (self.baoting[seat] or last_four) and not self.ron_blocked[seat]:
                    forced.append(seat)
                    continue
                kinds.append(ActionKind.HU)
            if source is ClaimSource.DISCARD and not self.baoting[seat]:
                held = self.counts[seat][tile]
                if held >= 2:
                    kinds.append(ActionKind.PONG)
                if held == 3 and self.wall_remaining > 0:  # R7
                    kinds.append(ActionKind.KONG)
            if kinds:
                options[seat] = (*kinds, ActionKind.PASS)
        if not options and not forced:  # the common case: nobody can claim, play on
            self.claims = None
            if source is ClaimSource.DISCARD:
                self._draw_or_exhaust(self._next_in_hand(from_seat), events)
            else:
                self._complete_added_kong(from_seat, tile, events)
            return
        # Seats that must win (R19, R26) are not asked, and nobody learns of them before the
        # window resolves: the others keep every option (pong and kong too), so neither their
        # choices nor the pause tell that someone holds the winning tile. A forced win beats any
        # pong or kong (R6) when the window resolves, where it is announced.
        if forced and self.log_version == 1:  # how version 1 logs were written (leaky)
            options = {
                s: tuple(k for k in kinds if k in (ActionKind.HU, ActionKind.PASS))
                for s, kinds in options.items()
                if ActionKind.HU in kinds
            }
            for seat in forced:
                events.append({"type": "claim", "seat": seat, "claim": "hu", "auto": True})
        self.phase = Phase.CLAIMS
        self.claims = _ClaimWindow(
            source, from_seat, tile, last_four, gang_shang_pao, options, forced
        )
        if not options:  # only forced wins
            self._resolve_claims(events)

    def _refuse_win(
        self,
        seat: int,
        tile: Tile,
        from_seat: int,
        reason: str,
        pattern: str,
        events: list[dict[str, Any]],
    ) -> None:
        """Tell ``seat`` (and only it, see :func:`redact_event`) that ``tile`` completes its
        hand but may not win (R17, R9). Nothing else changes: no claim window opens for it."""
        self.refused_wins[seat] = RefusedWin(tile, from_seat, reason, pattern)
        events.append(
            {
                "type": "win_refused",
                "seat": seat,
                "tile": tile_to_str(tile),
                "from": from_seat,
                "reason": reason,
                "pattern": pattern,
            }
        )

    def _answer_claim(self, action: Action, events: list[dict[str, Any]]) -> None:
        assert self.claims is not None
        self.claims.answers[action.seat] = action.kind
        if len(self.claims.answers) == len(self.claims.options):
            self._resolve_claims(events)

    def _resolve_claims(self, events: list[dict[str, Any]]) -> None:
        window = self.claims
        assert window is not None
        for seat in window.forced if self.log_version > 1 else ():  # announced now
            events.append({"type": "claim", "seat": seat, "claim": "hu", "auto": True})
        winners = [s for s in window.forced]
        winners += [s for s, kind in window.answers.items() if kind is ActionKind.HU]
        if self.rules.pass_blocks_ron:
            for seat, kind in window.answers.items():
                if kind is ActionKind.PASS and ActionKind.HU in window.options[seat]:
                    self.ron_blocked[seat] = True  # R9
        if winners:
            order = sorted(winners, key=lambda s: (s - window.from_seat) % SEATS)
            self._settle_claimed_win(order, window, events)
            return
        claimer = next(
            (s for s, k in window.answers.items() if k in (ActionKind.PONG, ActionKind.KONG)),
            None,
        )
        if window.source is ClaimSource.ADDED_KONG:
            self._complete_added_kong(window.from_seat, window.tile, events)
        elif claimer is not None:
            if window.answers[claimer] is ActionKind.PONG:
                self._pong(claimer, window, events)
            else:
                self._direct_kong(claimer, window, events)
        else:
            self.claims = None
            self._draw_or_exhaust(self._next_in_hand(window.from_seat), events)

    # ------------------------------------------------------------------ melds and beans

    def _take_discard(self, window: _ClaimWindow) -> None:
        river = self.rivers[window.from_seat]
        assert river and river[-1] == window.tile
        river.pop()

    def _pong(self, seat: int, window: _ClaimWindow, events: list[dict[str, Any]]) -> None:
        self.meld_views.clear()
        self._take_discard(window)
        self.counts[seat][window.tile] -= 2
        self.concealed_sizes[seat] -= 2
        self._drop_last_four_marks(seat, window.tile)
        self._invalidate(seat)
        self.melds[seat].append(Meld(MeldKind.PONG, window.tile))
        self.any_meld_made = True
        self.claims = None
        self.phase = Phase.TURN
        self.current = seat
        self.turn_kind = TurnKind.PONG
        self.drawn_tile = None
        self.drawn_last_four = False
        self.kong_income = None
        events.append(
            {
                "type": "pong",
                "seat": seat,
                "tile": _NAMES[window.tile],
                "from": window.from_seat,
            }
        )

    def _bean(
        self, seat: int, payers: Sequence[int], units: int, kind: str, events: list[dict[str, Any]]
    ) -> None:
        """R12: beans are paid at once, in base units, without the dealer bonus (R36)."""
        rows = settlement.bean_rows(self._table(), seat, payers, units, kind)
        self._pay(rows, events)
        self.has_bean[seat] = True  # R15
        self.kong_income = rows

    def _after_kong(self, seat: int, events: list[dict[str, Any]]) -> None:
        self.any_meld_made = True
        self._invalidate(seat)
        self._draw(seat, replacement=True, events=events)

    def _direct_kong(self, seat: int, window: _ClaimWindow, events: list[dict[str, Any]]) -> None:
        self.meld_views.clear()
        self._take_discard(window)
        self.counts[seat][window.tile] -= 3
        self.concealed_sizes[seat] -= 3
        self._drop_last_four_marks(seat, window.tile)
        self.melds[seat].append(Meld(MeldKind.DIRECT_KONG, window.tile))
        self.claims = None
        events.append(
            {
                "type": "kong",
                "seat": seat,
                "kind": "direct_kong",
                "tile": _NAMES[window.tile],
                "from": window.from_seat,
            }
        )
        self._bean(seat, [window.from_seat], 1, "直槓 銀豆", events)
        self._after_kong(seat, events)

    def _concealed_kong(self, seat: int, tile: Tile, events: list[dict[str, Any]]) -> None:
        self.meld_views.clear()
        self.counts[seat][tile] -= 4
        self.concealed_sizes[seat] -= 4
        self._drop_last_four_marks(seat, tile)
        self.melds[seat].append(Meld(MeldKind.CONCEALED_KONG, tile))
        events.append(
            {"type": "kong", "seat": seat, "kind": "concealed_kong", "tile": _NAMES[tile]}
        )
        self._bean(seat, self._payers(seat), 2, "暗槓 金豆", events)
        self._after_kong(seat, events)

    def _declare_added_kong(self, seat: int, tile: Tile, events: list[dict[str, Any]]) -> None:
        """R13: the added tile may be robbed before the kong happens."""
        last_four = self._take_last_four_mark(seat, tile)
        self.counts[seat][tile] -= 1
        self.concealed_sizes[seat] -= 1
        self._invalidate(seat)
        self.drawn_tile = None
        self._open_claims(ClaimSource.ADDED_KONG, seat, tile, last_four, False, events)

    def _complete_added_kong(self, seat: int, tile: Tile, events: list[dict[str, Any]]) -> None:
        self.meld_views.clear()
        melds = self.melds[seat]
        index = next(i for i, m in enumerate(melds) if m.kind is MeldKind.PONG and m.tile == tile)
        melds[index] = Meld(MeldKind.ADDED_KONG, tile)
        self.claims = None
        events.append({"type": "kong", "seat": seat, "kind": "added_kong", "tile": _NAMES[tile]})
        self._bean(seat, self._payers(seat), 1, "面下槓 銀豆", events)
        self._after_kong(seat, events)

    @staticmethod
    def _others(seat: int) -> list[int]:
        return [(seat + offset) % SEATS for offset in (1, 2, 3)]

    def _payers(self, seat: int) -> list[int]:
        """Every other player still in the hand (未胡者, R12, R29, R45, R54), in play order."""
        return [other for other in self._others(seat) if not self.won[other]]

    def _next_in_hand(self, seat: int) -> int:
        """The next seat after ``seat`` in play order that is still in the hand (R8, R53)."""
        for other in _OTHERS[seat]:
            if not self.won[other]:
                return other
        raise AssertionError("nobody is left in the hand")  # pragma: no cover - R53 ends it

    def in_hand(self, seat: object) -> bool:
        """Whether ``seat`` still plays this hand: it has not won (R53) and the hand goes on."""
        return not self.won[as_seat(seat)] and self.phase is not Phase.ENDED

    # ------------------------------------------------------------------ settlement

    def _pay(self, rows: Sequence[Payment], events: list[dict[str, Any]]) -> None:
        self.ledger_view = None
        for row in rows:
            self.ledger.append(row)
            events.append({"type": "payment", **row.to_json()})

    def _table(self) -> settlement.Table:
        """The facts every payment depends on besides its parties (R21, R36, R40)."""
        return settlement.Table(
            self.dealer, self.streak, tuple(self.baoting), self.rules.base_points
        )

    def _settle_self_draw(self, seat: int, *, auto: bool, events: list[dict[str, Any]]) -> None:
        tianhu = (
            seat == self.dealer
            and self.turn_kind is TurnKind.INITIAL
            and not self.discard_made
            and not self.any_meld_made
        )
        dihu = self.turn_kind is TurnKind.DRAW and self.dihu_draw
        pattern = best_pattern(self.hand_of(seat), tianhu=tianhu, dihu=dihu)
        assert pattern is not None
        gang_shang_hua = self.turn_kind is TurnKind.REPLACEMENT  # R21
        self.win_tile = self.drawn_tile
        events.append(
            {
                "type": "win",
                "seat": seat,
                "how": WinKind.SELF_DRAW.value,
                "from": None,
                "tile": tile_to_str(self.drawn_tile) if self.drawn_tile is not None else None,
                "pattern": pattern.name,
                "fan": pattern.fan,
                "extras": ["槓上花"] if gang_shang_hua else [],
                "auto": auto,
                "hand": self._hand_text(seat),
            }
        )
        rows = settlement.self_draw_rows(
            self._table(), seat, pattern, self._payers(seat), gang_shang_hua=gang_shang_hua
        )
        self._pay(rows, events)
        self.win_tiles[seat] = self.drawn_tile
        self._after_win(Win((seat,), WinKind.SELF_DRAW, None), events)

    def _settle_claimed_win(
        self, winners: list[int], window: _ClaimWindow, events: list[dict[str, Any]]
    ) -> None:
        payer, tile = window.from_seat, window.tile
        robbed = window.source is ClaimSource.ADDED_KONG
        if not robbed:
            self._take_discard(window)
        self.win_tile = tile
        kind = WinKind.ROB_KONG if robbed else WinKind.DISCARD
        table = self._table()
        rows: list[Payment] = []
        for seat in winners:
            pattern = self._win_allowed_on(seat, tile, window.source, payer)
            assert pattern is not None
            self.counts[seat][tile] += 1
            hand_text = self._hand_text(seat)
            self.counts[seat][tile] -= 1
            events.append(
                {
                    "type": "win",
                    "seat": seat,
                    "how": kind.value,
                    "from": payer,
                    "tile": tile_to_str(tile),
                    "pattern": pattern.name,
                    "fan": pattern.fan,
                    "extras": ["槓上炮"] if window.gang_shang_pao else [],
                    "auto": seat in window.forced,
                    "hand": hand_text,
                }
            )
            if robbed:
                rows += settlement.rob_kong_rows(table, seat, pattern, payer)
            else:
                rows += settlement.discard_win_rows(
                    table,
                    seat,
                    pattern,
                    payer,
                    gang_shang_pao=window.gang_shang_pao,
                    kong_income=self.kong_income or (),
                )
        self._pay(rows, events)
        self.claims = None
        self.off_table.append(tile)
        for seat in winners:
            self.win_tiles[seat] = tile
        self._after_win(Win(tuple(winners), kind, payer), events)

    def _after_win(self, win: Win, events: list[dict[str, Any]]) -> None:
        """The normal room ends at the first win (R52). A 血戰 room (R53) ends when three have
        won; otherwise the winners leave play and the next seat still in the hand after the
        last of them (the furthest from the discarder, in play order) draws."""
        self.wins.append(win)
        if not self.bloody:
            self._finish("win", win.seats, win.kind, win.from_seat, events)
            return
        for seat in win.seats:
            self.won[seat] = True
            self.winners.append(seat)
            self.refused_wins[seat] = None
        self.meld_views.clear()
        self.claims = None
        self.drawn_tile = None
        self.kong_income = None
        if len(self.winners) >= SEATS - 1:
            self._finish("win", tuple(self.winners), win.kind, win.from_seat, events)
            return
        self._draw_or_exhaust(self._next_in_hand(win.seats[-1]), events)

    def da_jiao(self, seat: int) -> PatternResult | None:
        """R30 大叫: the largest basic fan over the seat's waits, None when not ready.

        A seat caught holding 3k+2 tiles (an escape in the middle of its turn, R45) is judged
        by its best discard: it is ready if some discard leaves it ready.
        """
        counts = self.counts[seat]
        if self._size(seat) == HAND_SIZE:
            waits_ = self.ready_waits(seat)
            return max_fan(self.hand_of(seat), waits_) if waits_ else None
        best: PatternResult | None = None
        for tile in range(NUM_KINDS):
            if not counts[tile]:
                continue
            counts[tile] -= 1
            waits_ = self._ready_waits_for(seat, counts)
            found = max_fan(self.hand_of(seat), waits_) if waits_ else None
            counts[tile] += 1
            if found is not None and (best is None or found.fan > best.fan):
                best = found
        return best

    def _settle_exhaustive_draw(self, events: list[dict[str, Any]]) -> None:
        """R30, R31, R14: 查大叫 then 黃豆 refunds by every seat that is not ready.

        In a 血戰 room (R56) among the players still in the hand only; bean income is returned
        to winners too, except to a winner who has left the table (R57). The event's ``ready``
        is null for a winner."""
        players = [seat for seat in range(SEATS) if not self.won[seat]]
        da_jiao = {seat: self.da_jiao(seat) for seat in players}
        events.append(
            {
                "type": "exhaustive_draw",
                "ready": [None if self.won[s] else da_jiao[s] is not None for s in range(SEATS)],
            }
        )
        refundable = [row for row in self.ledger if not self.left[row.payer]]  # R57
        rows = settlement.exhaustive_draw_rows(self._table(), players, da_jiao, refundable)
        self._pay(rows, events)
        self.phase = Phase.ENDED
        self._finish("draw", (), None, None, events)

    def leave(self, seat: object) -> list[dict[str, Any]]:
        """R57: a player who has won in a 血戰 room leaves the table, without penalty; the hand
        goes on, and no 黃豆 refund (R56) is owed to them any more. Logged (an ``act`` with
        action "leave", then a ``leave`` event) so that a replay reproduces it."""
        seat = as_seat(seat)
        if self.phase is Phase.ENDED:
            raise IllegalActionError(f"{seat} leave: the hand is over")
        if not self.won[seat]:
            raise IllegalActionError(
                f"{seat} leave: only a player who has won may leave a 血戰 hand that goes on "
                "(R57); a player still in the hand who quits escapes (R45)"
            )
        if self.left[seat]:
            raise IllegalActionError(f"{seat} leave: seat {seat} has already left the table")
        self.left[seat] = True
        events: list[dict[str, Any]] = [
            {"type": "act", "seat": seat, "action": "leave"},
            {"type": "leave", "seat": seat},
        ]
        self.events.extend(events)
        return [copy_event(event) for event in events]

    def escape(self, seat: object) -> list[dict[str, Any]]:
        """R45: a seat quits (or times out); it pays the larger of the two penalties.

        In a 血戰 room (R57) a winner who quits only leaves the table (see :meth:`leave`): no
        penalty, and the hand goes on."""
        seat = as_seat(seat)  # before anything changes: a bad seat must leave no trace
        if self.phase is Phase.ENDED:
            raise IllegalActionError(f"{seat} quit: the hand is over")
        if self.won[seat]:
            return self.leave(seat)
        events: list[dict[str, Any]] = [{"type": "act", "seat": seat, "action": "quit"}]
        self._turn_legal = None
        self._self_draw_only = None
        window = self.claims
        if window is not None and window.source is ClaimSource.ADDED_KONG:
            # R13, R45: the escape ends the hand before the chance to rob has passed, so the
            # added kong never happens (no bean); its tile goes back to the kong player's hand
            self.counts[window.from_seat][window.tile] += 1
            self.concealed_sizes[window.from_seat] += 1
            self._invalidate(window.from_seat)
            self.claims = None
        others = self._payers(seat)  # R57: the other players still in the hand
        da_jiao = (
            {other: self.da_jiao(other) for other in others}
            if self.wall_remaining <= LAST_TILES  # R45 (b)
            else None
        )
        penalty, chosen = settlement.escape_rows(
            self._table(),
            seat,
            others,
            units=self.rules.escape_penalty_units,
            da_jiao=da_jiao,
        )
        events.append({"type": "escape", "seat": seat, "penalty": penalty})
        self._pay(chosen, events)
        self.claims = None
        self._finish("escape", (), None, seat, events)
        self.events.extend(events)
        return [copy_event(event) for event in events]

    def _finish(
        self,
        result: str,
        winners: tuple[int, ...],
        win_kind: WinKind | None,
        loser: int | None,
        events: list[dict[str, Any]],
    ) -> None:
        """R35, R36: the next dealer and streak; in a 血戰 room R53 and R55."""
        first = self.wins[0] if self.wins else None
        if self.bloody:
            # R53: "escape" when an escape ended it, else "win" when anyone won, else "draw"
            winners = tuple(self.winners)
            if first is not None:
                win_kind = first.kind
                if result != "escape":
                    result, loser = "win", first.from_seat
        if (self.bloody and first is not None) or result == "win":
            assert first is not None
            # R35, R55: the (first) winner; after a multiple win, the discarder
            next_dealer = first.seats[0] if len(first.seats) == 1 else first.from_seat
        elif result == "escape":
            next_dealer = (self.dealer + 1) % SEATS if loser == self.dealer else self.dealer
        else:
            next_dealer = self.dealer
        assert next_dealer is not None
        # R36; R55: no streak in a 血戰 room
        kept = next_dealer == self.dealer and not self.bloody
        next_streak = self.streak + 1 if kept else 0
        totals = tuple(net_points(self.ledger))
        self.phase = Phase.ENDED
        self.result = HandResult(
            result,
            winners,
            win_kind,
            loser,
            tuple(self.ledger),
            totals,
            next_dealer,
            next_streak,
            tuple(self.wins),
        )
        end: dict[str, Any] = {
            "type": "end",
            "result": result,
            "winners": list(winners),
            "win_kind": win_kind.value if win_kind else None,
            "loser": loser,
            "totals": list(totals),
            "next_dealer": next_dealer,
            "next_streak": next_streak,
            "hands": [self._hand_text(s) for s in range(SEATS)],
        }
        if self.bloody:  # the normal room's events stay as they were (old logs replay)
            end["wins"] = [win.to_json() for win in self.wins]
            end["left"] = list(self.left)
        events.append(end)

    # ------------------------------------------------------------------ inspection

    def tile_total(self) -> int:
        """Every tile on the table: hands, melds, rivers, wall, a claimed winning tile and an
        added kong's tile while it may be robbed."""
        claimed = len(self.off_table)
        window = self.claims
        if window is not None and window.source is ClaimSource.ADDED_KONG:
            claimed += 1  # the added tile awaits 搶槓 (R13): in no hand, meld or river yet
        return self._count_all_tiles() + claimed

    def snapshot(self) -> dict[str, Any]:
        """The complete state as JSON-ready data, for replays and equality checks."""
        return {
            "hands": [str(self.hand_of(s)) for s in range(SEATS)],
            "rivers": [[tile_to_str(t) for t in river] for river in self.rivers],  # in order
            "baoting": list(self.baoting),
            "wall": [tile_to_str(t) for t in self.wall[self.front : self.back]],
            "phase": self.phase.value,
            "current": self.current,
            "ledger": [row.to_json() for row in self.ledger],
            "result": None
            if self.result is None
            else {
                "result": self.result.result,
                "winners": list(self.result.winners),
                "totals": list(self.result.totals),
                "next_dealer": self.result.next_dealer,
                "next_streak": self.result.next_streak,
            },
            **({"won": list(self.won), "left": list(self.left)} if self.bloody else {}),
        }

    def view(self, seat: object) -> SeatView:
        """What ``seat`` may know (see :mod:`duyun.engine.view`); an invalid seat is an error,
        never another seat's view."""
        return seat_view(self, as_seat(seat))

    # ------------------------------------------------------------------ copying (issue 23)

    def copy(self) -> Round:
        """An independent copy of the hand in play: the same state, the same future.

        Built field by field, for search (thousands of copies per decision). Every mutable
        container is copied one level down, which is a full copy because what they hold is
        immutable (tiles, frozen payments, melds, wins) -- except the event log's dicts: an
        event is never changed once emitted (``apply`` hands out copies), so the copy's log is
        a new list sharing them. The wall list is never written (``front``/``back`` move), so
        it is shared too.
        """
        new = Round.__new__(Round)
        new.log_version = self.log_version
        new.rules = self.rules
        new.setup = self.setup
        new.dealer = self.dealer
        new.streak = self.streak
        new.counts = [counts[:] for counts in self.counts]
        new.concealed_sizes = self.concealed_sizes[:]
        new.melds = [melds[:] for melds in self.melds]
        new.rivers = [river[:] for river in self.rivers]
        new.discard_count = self.discard_count[:]
        new.baoting = self.baoting[:]
        new.wall = self.wall
        new.front = self.front
        new.back = self.back
        new.has_bean = self.has_bean[:]
        new.ledger = self.ledger[:]
        new.events = self.events[:]
        new.result = self.result
        new.win_tile = self.win_tile
        new.bloody = self.bloody
        new.won = self.won[:]
        new.left = self.left[:]
        new.winners = self.winners[:]
        new.wins = self.wins[:]
        new.win_tiles = self.win_tiles[:]
        new.off_table = self.off_table[:]
        new.phase = self.phase
        new.current = self.current
        new.turn_kind = self.turn_kind
        new.drawn_tile = self.drawn_tile
        new.drawn_last_four = self.drawn_last_four
        new.last_four_marks = [marks[:] for marks in self.last_four_marks]
        income = self.kong_income
        new.kong_income = None if income is None else income[:]
        window = self.claims
        new.claims = None if window is None else window.copy()
        new.ron_blocked = self.ron_blocked[:]
        new.refused_wins = self.refused_wins[:]
        new._self_draw_only = self._self_draw_only
        new.any_meld_made = self.any_meld_made
        new.discard_made = self.discard_made
        new.awaiting_first_draw = self.awaiting_first_draw[:]
        new.dihu_draw = self.dihu_draw
        new._waits_cache = self._waits_cache[:]  # cached lists are replaced, never edited
        new._turn_legal = self._turn_legal  # immutable
        new.meld_views = dict(self.meld_views)  # immutable tuples, cleared on change
        new.ledger_view = self.ledger_view
        return new

    def __copy__(self) -> Round:
        # a shallow copy sharing the counts would corrupt both games: copying is always deep
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Round:
        new = self.copy()
        memo[id(self)] = new
        return new

    def __getstate__(self) -> dict[str, Any]:
        """The state pickle stores: every field but the caches (rebuilt on demand)."""
        return {
            "log_version": self.log_version,
            "rules": self.rules,
            "setup": self.setup,
            "dealer": self.dealer,
            "streak": self.streak,
            "counts": self.counts,
            "concealed_sizes": self.concealed_sizes,
            "melds": self.melds,
            "rivers": self.rivers,
            "discard_count": self.discard_count,
            "baoting": self.baoting,
            "wall": self.wall,
            "front": self.front,
            "back": self.back,
            "has_bean": self.has_bean,
            "ledger": self.ledger,
            "events": self.events,
            "result": self.result,
            "win_tile": self.win_tile,
            "bloody": self.bloody,
            "won": self.won,
            "left": self.left,
            "winners": self.winners,
            "wins": self.wins,
            "win_tiles": self.win_tiles,
            "off_table": self.off_table,
            "phase": self.phase,
            "current": self.current,
            "turn_kind": self.turn_kind,
            "drawn_tile": self.drawn_tile,
            "drawn_last_four": self.drawn_last_four,
            "last_four_marks": self.last_four_marks,
            "kong_income": self.kong_income,
            "claims": self.claims,
            "ron_blocked": self.ron_blocked,
            "refused_wins": self.refused_wins,
            "any_meld_made": self.any_meld_made,
            "discard_made": self.discard_made,
            "awaiting_first_draw": self.awaiting_first_draw,
            "dihu_draw": self.dihu_draw,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.log_version = state["log_version"]
        self.rules = state["rules"]
        self.setup = state["setup"]
        self.dealer = state["dealer"]
        self.streak = state["streak"]
        self.counts = state["counts"]
        self.concealed_sizes = state["concealed_sizes"]
        self.melds = state["melds"]
        self.rivers = state["rivers"]
        self.discard_count = state["discard_count"]
        self.baoting = state["baoting"]
        self.wall = state["wall"]
        self.front = state["front"]
        self.back = state["back"]
        self.has_bean = state["has_bean"]
        self.ledger = state["ledger"]
        self.events = state["events"]
        self.result = state["result"]
        self.win_tile = state["win_tile"]
        self.bloody = state["bloody"]
        self.won = state["won"]
        self.left = state["left"]
        self.winners = state["winners"]
        self.wins = state["wins"]
        self.win_tiles = state["win_tiles"]
        self.off_table = state["off_table"]
        self.phase = state["phase"]
        self.current = state["current"]
        self.turn_kind = state["turn_kind"]
        self.drawn_tile = state["drawn_tile"]
        self.drawn_last_four = state["drawn_last_four"]
        self.last_four_marks = state["last_four_marks"]
        self.kong_income = state["kong_income"]
        self.claims = state["claims"]
        self.ron_blocked = state["ron_blocked"]
        self.refused_wins = state["refused_wins"]
        self.any_meld_made = state["any_meld_made"]
        self.discard_made = state["discard_made"]
        self.awaiting_first_draw = state["awaiting_first_draw"]
        self.dihu_draw = state["dihu_draw"]
        self._self_draw_only = None
        self._waits_cache = [None] * SEATS
        self._turn_legal = None
        self.meld_views = {}
        self.ledger_view = None

    def __reduce__(self) -> tuple[Any, ...]:
        # explicit, for both builds: an empty round (see __new__) that __setstate__ fills in
        return (_blank_round, (), self.__getstate__())


def _blank_round() -> Round:
    """An empty round for unpickling to fill in (:meth:`Round.__setstate__`)."""
    return Round.__new__(Round)


def new_round(
    seed: SupportsIndex | None = None,
    *,
    rules: RuleSet = DUYUN,
    dealer: object = 0,
    streak: object = 0,
    wall_order: Sequence[Tile] | None = None,
) -> Round:
    """A freshly dealt hand (R4)."""
    return Round(deal_setup(seed, wall_order=wall_order, dealer=dealer, streak=streak), rules)


__all__ = [
    "EVENT_LOG_VERSION",
    "HandResult",
    "MatchLink",
    "Phase",
    "Round",
    "Setup",
    "TurnKind",
    "Win",
    "WinKind",
    "deal_setup",
    "new_round",
]
