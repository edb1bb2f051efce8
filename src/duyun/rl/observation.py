"""The numeric observation of one seat, built from its :class:`~duyun.engine.SeatView` only.

The engine's view is the single place that decides what a seat may know (its own concealed
tiles, never another seat's, nor the wall order); encoding nothing but the view keeps the
environment from leaking hidden state by construction. The encoding is a flat ``float32``
vector of fixed length whose fields are listed in :data:`FIELDS` (and in docs/rl.md).
:func:`encode_view` is the reference: the environment keeps its vectors up to date step by
step instead (:mod:`duyun.rl.incremental`, much cheaper), and tests hold the two equal.

Every per-seat field is in *relative* seat order: position 0 is the observing seat, 1 the next
seat in play order (下家), 2 the seat opposite (對家), 3 the previous seat (上家). The seat's
absolute index is its own one-hot field, so a policy can still tell who is who.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from operator import add
from typing import Final

import numpy as np
import numpy.typing as npt

from duyun.engine import SeatView
from duyun.hand import MeldKind
from duyun.tiles import NUM_KINDS

SEATS: Final = 4
MELD_SLOTS: Final = 4  # 13 tiles make at most four melds (R6, R12)
MELD_KINDS: Final[tuple[MeldKind, ...]] = (
    MeldKind.PONG,
    MeldKind.DIRECT_KONG,
    MeldKind.ADDED_KONG,
    MeldKind.CONCEALED_KONG,
)
MELD_WIDTH: Final = len(MELD_KINDS) + NUM_KINDS  # kind one-hot, then tile one-hot
# A river never holds more than 35 tiles. A seat discards once per turn of its own: the
# dealer's first turn (at most 1), turns after a pong (at most 4, one per meld), and turns
# after drawing from the front of the wall. A seat draws from the front only after the seat
# before it ended a turn with an unclaimed discard, so its draws are at most that seat's turns
# (draws + 4 pongs + 1), and the two seats' draws share the 55-tile live wall (R4): at most
# 30 draws. 1 + 4 + 30 = 35; kong replacements continue a turn and add no discard.
RIVER_SLOTS: Final = 36
WALL_TILES: Final = 55  # R4: 108 - 14 - 3 * 13
INF: Final = math.inf

_MELD_KIND_INDEX: Final = {kind: i for i, kind in enumerate(MELD_KINDS)}


@dataclass(frozen=True, slots=True)
class Field:
    """One block of the observation vector."""

    name: str
    size: int
    low: float
    high: float
    doc: str


FIELDS: Final[tuple[Field, ...]] = (
    Field("hand", NUM_KINDS, 0, 4, "own concealed tiles: count of each kind (drawn tile included)"),
    Field("drawn_tile", NUM_KINDS, 0, 1, "one-hot of the tile just drawn, on one's own turn"),
    Field(
        "melds",
        SEATS * MELD_SLOTS * MELD_WIDTH,
        0,
        1,
        "per relative seat, 4 slots in the order made: meld kind one-hot (pong, direct kong, "
        "added kong, concealed kong) then tile one-hot (all zero for another seat's concealed "
        "kong, which is face down); empty slots are zero",
    ),
    Field(
        "rivers",
        SEATS * RIVER_SLOTS * NUM_KINDS,
        0,
        1,
        f"per relative seat, its discards in order, one one-hot tile per slot ({RIVER_SLOTS} "
        "slots, unused slots zero); a claimed discard leaves the river",
    ),
    Field("river_counts", SEATS * NUM_KINDS, 0, 4, "per relative seat, count of each kind"),
    Field("concealed_sizes", SEATS, 0, 14, "per relative seat, number of concealed tiles"),
    Field("baoting", SEATS, 0, 1, "per relative seat, 報聽 declared (R25)"),
    Field("has_bean", SEATS, 0, 1, "per relative seat, holds a kong (bean, R15)"),
    Field("wall_remaining", 1, 0, WALL_TILES, "tiles left in the live wall"),
    Field("dealer", SEATS, 0, 1, "relative seat of the dealer, one-hot"),
    Field("streak", 1, 0, INF, "dealer streak (R36)"),
    Field("points", SEATS, -INF, INF, "per relative seat, net points so far in this hand"),
    Field("claim_tile", NUM_KINDS, 0, 1, "one-hot of the discard or added-kong tile asked about"),
    Field("claim_from", SEATS, 0, 1, "relative seat of that tile's owner, one-hot"),
    Field("claim_is_rob", 1, 0, 1, "1 when the tile is an added kong's (robbing it, R16)"),
    Field("phase", 3, 0, 1, "one-hot: [a seat's turn, claims on a tile, hand over]"),
    Field("current", SEATS, 0, 1, "relative seat whose turn it is, one-hot"),
    Field("seat", SEATS, 0, 1, "own absolute seat index 0..3, one-hot"),
    Field(
        "match_points",
        SEATS,
        -INF,
        INF,
        "per relative seat, net points of the episode's earlier hands (match option)",
    ),
    Field("hands_left", 1, 0, INF, "hands of the episode still to deal after this one"),
    Field(
        "won",
        SEATS,
        0,
        1,
        "per relative seat, has won and left play (血戰 room, R53; the normal room ends at "
        "the first win, so there it stays 0)",
    ),
)

OFFSETS: Final[dict[str, int]] = {}
_offset = 0
for _field in FIELDS:
    OFFSETS[_field.name] = _offset
    _offset += _field.size
OBS_SIZE: Final = _offset
del _offset, _field

LOW: Final = np.concatenate([np.full(f.size, f.low, dtype=np.float32) for f in FIELDS])
HIGH: Final = np.concatenate([np.full(f.size, f.high, dtype=np.float32) for f in FIELDS])

_HAND = OFFSETS["hand"]
_DRAWN = OFFSETS["drawn_tile"]
_MELDS = OFFSETS["melds"]
_RIVERS = OFFSETS["rivers"]
_RIVER_COUNTS = OFFSETS["river_counts"]
_SIZES = OFFSETS["concealed_sizes"]
_BAOTING = OFFSETS["baoting"]
_BEAN = OFFSETS["has_bean"]
_WALL = OFFSETS["wall_remaining"]
_DEALER = OFFSETS["dealer"]
_STREAK = OFFSETS["streak"]
_POINTS = OFFSETS["points"]
_CLAIM_TILE = OFFSETS["claim_tile"]
_CLAIM_FROM = OFFSETS["claim_from"]
_CLAIM_ROB = OFFSETS["claim_is_rob"]
_PHASE = OFFSETS["phase"]
_CURRENT = OFFSETS["current"]
_SEAT = OFFSETS["seat"]
_MATCH = OFFSETS["match_points"]
_HANDS_LEFT = OFFSETS["hands_left"]
_WON = OFFSETS["won"]
_PHASES: Final = {"turn": 0, "claims": 1, "ended": 2}
_RIVER_STRIDE = RIVER_SLOTS * NUM_KINDS
_MELD_STRIDE = MELD_SLOTS * MELD_WIDTH
_MELD_TILE = len(MELD_KINDS)
# where the slots of each relative seat's river start, and where its kind counts start
_SLOT_BASES: Final = tuple(
    [_RIVERS + rel * _RIVER_STRIDE + slot * NUM_KINDS for slot in range(RIVER_SLOTS)]
    for rel in range(SEATS)
)
_COUNT_BASES: Final = tuple(_RIVER_COUNTS + rel * NUM_KINDS for rel in range(SEATS))
# absolute seats in relative order (0 = the observer), and (relative, absolute) pairs
_ORDER: Final = tuple(tuple((seat + rel) % SEATS for rel in range(SEATS)) for seat in range(SEATS))
_RELATIVE: Final = tuple(tuple(enumerate(order)) for order in _ORDER)
# the numeric (non-count) positions, in the order encode_view fills them
_NUMERIC: Final = np.array(
    [_SIZES + rel for rel in range(SEATS)]
    + [_POINTS + rel for rel in range(SEATS)]
    + [_MATCH + rel for rel in range(SEATS)]
    + [_WALL, _STREAK, _HANDS_LEFT]
)


class ObservationOverflowError(RuntimeError):
    """A view that does not fit the fixed layout (more melds or discards than the rules allow)."""


def encode_view(
    view: SeatView,
    match_points: Sequence[int] = (0, 0, 0, 0),
    hands_left: int = 0,
) -> npt.NDArray[np.float32]:
    """The observation vector of ``view``'s seat (see :data:`FIELDS`).

    ``match_points`` (absolute seat order) and ``hands_left`` describe the episode around the
    hand; both are public. A fresh array is returned on every call, so callers may keep it.

    Every count and one-hot entry is gathered as a list of positions (a position listed twice
    counts 2) and turned into the vector by one ``bincount``: the encoder runs on every step
    of every episode, and a few numpy calls cost less than many small assignments.
    """
    seat = view.seat
    hits: list[int] = [_HAND + tile for tile in view.hand]
    if view.drawn_tile is not None:
        hits.append(_DRAWN + view.drawn_tile)
    melds_by_seat, rivers, baoting, has_bean = view.melds, view.rivers, view.baoting, view.has_bean
    won = view.won
    for rel, owner in _RELATIVE[seat]:
        melds = melds_by_seat[owner]
        if melds:
            if len(melds) > MELD_SLOTS:
                raise ObservationOverflowError(f"seat {owner} has {len(melds)} melds (at most 4)")
            base = _MELDS + rel * _MELD_STRIDE
            for slot, meld in enumerate(melds):
                start = base + slot * MELD_WIDTH
                hits.append(start + _MELD_KIND_INDEX[meld.kind])
                if meld.tile is not None:
                    hits.append(start + _MELD_TILE + meld.tile)
        river = rivers[owner]
        if river:
            if len(river) > RIVER_SLOTS:
                raise ObservationOverflowError(
                    f"seat {owner} has discarded {len(river)} tiles (the layout holds "
                    f"{RIVER_SLOTS})"
                )
            hits += map(add, _SLOT_BASES[rel], river)
            hits += map(_COUNT_BASES[rel].__add__, river)
        if baoting[owner]:
            hits.append(_BAOTING + rel)
        if has_bean[owner]:
            hits.append(_BEAN + rel)
        if won[owner]:
            hits.append(_WON + rel)
    hits.append(_DEALER + (view.dealer - seat) % SEATS)
    if view.claim_tile is not None:
        hits.append(_CLAIM_TILE + view.claim_tile)
        if view.claim_from is not None:
            hits.append(_CLAIM_FROM + (view.claim_from - seat) % SEATS)
        if view.claim_is_rob:
            hits.append(_CLAIM_ROB)
    hits.append(_PHASE + _PHASES[view.phase])
    hits.append(_CURRENT + (view.current - seat) % SEATS)
    hits.append(_SEAT + seat)
    obs = np.bincount(np.fromiter(hits, np.intp, len(hits)), minlength=OBS_SIZE).astype(np.float32)
    a, b, c, d = _ORDER[seat]
    sizes, points = view.concealed_sizes, view.points
    obs[_NUMERIC] = (
        sizes[a], sizes[b], sizes[c], sizes[d],
        points[a], points[b], points[c], points[d],
        match_points[a], match_points[b], match_points[c], match_points[d],
        view.wall_remaining, view.streak, hands_left,
    )  # fmt: skip
    return obs


def field_slice(name: str) -> slice:
    """Where field ``name`` lies in the observation vector (for models and for tests)."""
    for candidate in FIELDS:
        if candidate.name == name:
            start = OFFSETS[name]
            return slice(start, start + candidate.size)
    known = ", ".join(f.name for f in FIELDS)
    raise KeyError(f"no observation field {name!r}; fields: {known}")
