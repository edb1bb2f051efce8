"""Starting positions: a hand's set-up, the seeded deal and the checks a set-up must pass.

A :class:`Setup` is what a :class:`~duyun.engine.round.Round` starts from: the hands (with
melds), rivers, 報聽 flags and the wall order. :func:`deal_setup` deals a fresh one (R4) from a
seeded shuffle or an explicit wall; a scenario builds any other (scenario.py).

This module is interpreted, not compiled (``duyun._build``), on purpose: every value from
outside the engine -- a seed, a wall order, a set-up's fields -- passes here first, so a bad
one is named by these checks on both builds, before the compiled round stores it in a typed
field (where mypyc would refuse it with its own message: "int object expected; got str").
"""

from __future__ import annotations

import operator
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, Protocol, SupportsIndex

from duyun.engine.actions import EngineError, SetupError, as_seat, as_tile
from duyun.hand import Hand
from duyun.rules import RuleSet
from duyun.tiles import COPIES, NUM_KINDS, TILE_NAMES, TOTAL_TILES, Tile, full_set, tile_to_str

SEATS = 4
DEALER_HAND = 14
HAND_SIZE = 13


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


def _tile_names(tiles: Sequence[Tile]) -> list[str]:
    """``[tile_to_str(t) for t in tiles]``: one C-level map when every tile is in range."""
    if tiles and min(tiles) >= 0 and max(tiles) < NUM_KINDS:
        return list(map(TILE_NAMES.__getitem__, tiles))
    return [tile_to_str(t) for t in tiles]


def _four(value: object, what: str) -> tuple[Any, ...]:
    """A set-up field with one entry per seat, as a tuple (a list is accepted)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"setup {what} must be a sequence of 4 entries, one per seat")
    return tuple(value)


def _tiles(value: object, what: str) -> tuple[Tile, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"setup {what} must be a sequence of tile numbers 0..26")
    return tuple(
        tile if type(tile) is int and 0 <= tile < NUM_KINDS else as_tile(tile, f"{what} tile")
        for tile in value
    )


_TILE_KINDS = frozenset(range(NUM_KINDS))


def _plain_tiles(tiles: tuple[object, ...]) -> bool:
    """Whether every entry is an int tile 0..26 (C-level: no bool, float or str slips by)."""
    return _TILE_KINDS.issuperset(tiles) and all(type(tile) is int for tile in tiles)


@dataclass(frozen=True, slots=True)
class Setup:
    """A starting position: hands (with melds), rivers, 報聽 flags and the wall order.

    ``wall`` holds the live wall front first; kong replacements are taken from its back
    (R7), so ``wall[-1]`` is the first replacement tile. The fields are checked (and lists
    made tuples) on construction, so that a wrong type is named here and not deep in play.
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

    def __post_init__(self) -> None:
        # every deal passes here: plain tuples of valid values take the C-level checks only
        hands = self.hands if type(self.hands) is tuple else _four(self.hands, "hands")
        for seat, hand in enumerate(hands):
            if not isinstance(hand, Hand):
                raise TypeError(
                    f"setup hands[{seat}] must be a Hand (e.g. Hand.parse('11m234p')), not "
                    f"{type(hand).__name__}"
                )
        wall = self.wall
        if type(wall) is not tuple or not _plain_tiles(wall):
            wall = _tiles(wall, "wall")  # the checks again, naming the bad tile
        discards = self.discards
        if type(discards) is not tuple or not all(
            type(river) is tuple and _plain_tiles(river) for river in discards
        ):
            discards = tuple(
                _tiles(river, f"discards[{seat}]")
                for seat, river in enumerate(_four(discards, "discards"))
            )
        baoting = self.baoting if type(self.baoting) is tuple else _four(self.baoting, "baoting")
        for seat, flag in enumerate(baoting):
            if type(flag) is not bool:
                raise TypeError(f"setup baoting[{seat}] must be true or false, not {flag!r:.40}")
        for what in ("dealer", "streak"):
            if type(getattr(self, what)) is not int:
                raise TypeError(
                    f"setup {what} must be an integer, not {type(getattr(self, what)).__name__}"
                )
        if self.turn is not None and type(self.turn) is not int:
            raise TypeError(f"setup turn must be a seat 0..3 or None, not {self.turn!r:.40}")
        if type(self.drawn) is not bool:
            raise TypeError(f"setup drawn must be true or false, not {self.drawn!r:.40}")
        if self.seed is not None and type(self.seed) is not int:
            raise TypeError(f"setup seed must be an integer or None, not {self.seed!r:.40}")
        if self.match is not None and not isinstance(self.match, MatchLink):
            raise TypeError(
                f"setup match must be a MatchLink or None, not {type(self.match).__name__}"
            )
        if hands is not self.hands:
            object.__setattr__(self, "hands", hands)
        if wall is not self.wall:
            object.__setattr__(self, "wall", wall)
        if discards is not self.discards:
            object.__setattr__(self, "discards", discards)
        if baoting is not self.baoting:
            object.__setattr__(self, "baoting", baoting)

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
    dealer = setup_seat(dealer, "dealer")
    streak = setup_streak(streak)
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


def setup_seat(value: object, what: str) -> int:
    """A set-up's seat number, or a SetupError naming ``what`` (TypeError for a non-integer)."""
    try:
        return as_seat(value, what)
    except EngineError as error:
        raise SetupError(str(error)) from None


def setup_streak(value: object) -> int:
    if type(value) is not int:
        if isinstance(value, bool) or not isinstance(value, SupportsIndex):
            raise TypeError(f"streak must be an integer, not {type(value).__name__}")
        value = operator.index(value)
    if value < 0:
        raise SetupError(f"streak {value} must not be negative")
    return value


def _hand_size(hand: Hand) -> int:
    """Tiles a hand counts as (kongs as three, R7): 13, or 14 for the seat to act."""
    return len(hand.concealed) + 3 * len(hand.melds)


def validate_setup(setup: Setup, rules: RuleSet) -> None:
    """Refuse a starting position that cannot occur (R1, R25, R26, R55), naming what is wrong.

    Run before the round builds anything from ``setup``: the checks read the set-up only.
    """
    setup_seat(setup.dealer, "dealer")
    streak = setup_streak(setup.streak)
    if setup.turn is not None:
        setup_seat(setup.turn, "turn")
    if len(setup.hands) != SEATS or len(setup.discards) != SEATS or len(setup.baoting) != SEATS:
        raise SetupError("hands, discards and baoting need one entry per seat (4)")
    seen = Counter(chain(setup.wall, *setup.discards, *(hand.concealed for hand in setup.hands)))
    for hand in setup.hands:
        for meld in hand.melds:
            seen[meld.tile] += meld.kind.size
    totals = [seen[tile] for tile in range(NUM_KINDS)]
    for tile, count in enumerate(totals):
        if count > COPIES:
            raise SetupError(
                f"{count} copies of {tile_to_str(tile)} on the table (hands, melds, "
                "discards and wall): there are only 4 (R1)"
            )
    if rules.bloody_battle and streak:
        raise SetupError(f"streak {streak}: the streak stays 0 in a 血戰 room (R55, bloody_battle)")
    total = sum(totals)
    if total > TOTAL_TILES:
        raise SetupError(f"{total} tiles on the table: there are only 108 (R1)")
    turn = setup.dealer if setup.turn is None else setup.turn
    for seat, hand in enumerate(setup.hands):
        size = _hand_size(hand)
        if seat == turn and size == HAND_SIZE + 1:
            continue
        if size != HAND_SIZE:
            holds = "13 or 14" if seat == turn else "13"
            raise SetupError(
                f"seat {seat} holds {size} tiles (kongs counted as three); it must hold {holds}"
            )
        if seat == turn and setup.drawn:
            raise SetupError(
                f"seat {seat} is to act with drawn=true but holds 13 tiles: a seat that has "
                "drawn holds 14"
            )
    for seat in range(SEATS):
        if setup.baoting[seat] and setup.hands[seat].melds:
            raise SetupError(f"seat {seat} declared 報聽 but has melds (R25)")
        if setup.baoting[seat] and not setup.discards[seat]:
            raise SetupError(f"seat {seat} declared 報聽 but has not discarded yet (R25)")
    if setup.baoting[turn] and not setup.drawn and _hand_size(setup.hands[turn]) == HAND_SIZE + 1:
        raise SetupError(
            f"seat {turn} declared 報聽 and holds 14 tiles: set drawn=true (R26 discards "
            "the drawn tile)"
        )


class DrawnTileState(Protocol):
    """What guessing a scenario's drawn tile reads of a hand (round.py passes itself)."""

    @property
    def counts(self) -> Sequence[Sequence[int]]: ...
    @property
    def baoting(self) -> Sequence[bool]: ...
    def ready_waits_for(self, seat: int, counts: Sequence[int]) -> list[Tile]: ...


def guess_drawn_tile(game: DrawnTileState, seat: int) -> Tile | None:
    """A scenario's ``drawn`` hand does not say which tile was drawn; 報聽 needs it (R26)."""
    if not game.baoting[seat]:
        return None
    counts = list(game.counts[seat])  # a copy to try each tile on: the round is only read
    candidates = []
    for tile in range(NUM_KINDS):
        if counts[tile]:
            counts[tile] -= 1
            if game.ready_waits_for(seat, counts):
                candidates.append(tile)
            counts[tile] += 1
    if len(candidates) != 1:
        raise SetupError(
            f"seat {seat} declared 報聽 and holds a drawn tile, but which tile was drawn is "
            "ambiguous; give the seat 13 tiles and put the tile first in the wall instead"
        )
    return candidates[0]


__all__ = ["MatchLink", "Setup", "deal_setup", "validate_setup"]
