"""Observations kept up to date step by step, instead of re-encoding a whole view each time.

:func:`~duyun.rl.observation.encode_view` builds a seat's observation from its
:class:`~duyun.engine.SeatView`: correct by construction, but it rebuilds the 4,620 numbers and
the view itself on every decision, and most of them do not change between two decisions.
:class:`TableEncoder` keeps one vector per seat for the whole hand and brings it up to date:

* The large blocks (``melds``, ``rivers``, ``river_counts``: 4,492 of the 4,620 numbers) change
  only through public events — a discard sets one river slot, a pong or direct kong takes the
  discard back out of its owner's river and fills one meld slot, an added kong changes one
  meld's kind, a won discard leaves the river. They are written from the hand's event log as
  it grows, into all four vectors; the tile of a concealed kong (暗槓, face down, R12) is
  written into its owner's vector only.
* The small blocks are rewritten at each :meth:`TableEncoder.observation` from what the table
  shows everyone (phase, whose turn, the tile under claim, wall count, concealed tile counts,
  報聽 flags, beans, 血戰 winners, dealer, streak, points) and from the seat's **own**
  concealed tiles and drawn tile. Nothing of another seat's concealed tiles is read but their
  number, and nothing of the wall but its length.

The result equals ``encode_view(game.view(seat), ...)`` at every step: tests check that on
every decision of many hands, and the counterfactual no-leak tests run against this path.

Events are read from ``Round.events`` (the log) rather than from what ``Round.apply`` returns,
so the encoder also follows actions applied to the round directly (an ``escape``, a test that
drives the engine): :meth:`TableEncoder.sync` catches up with whatever was logged since.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from duyun.engine import Phase, Round, WinKind, net_points
from duyun.engine.phases import ClaimSource
from duyun.hand import MeldKind
from duyun.rl.observation import (
    MELD_KINDS,
    MELD_SLOTS,
    MELD_WIDTH,
    OBS_SIZE,
    OFFSETS,
    RIVER_SLOTS,
    SEATS,
    ObservationOverflowError,
)
from duyun.tiles import NUM_KINDS, tile_to_str

_TILE: Final[dict[str, int]] = {tile_to_str(tile): tile for tile in range(NUM_KINDS)}
_MELD_KIND_INDEX: Final = {kind: i for i, kind in enumerate(MELD_KINDS)}
_PONG: Final = _MELD_KIND_INDEX[MeldKind.PONG]
_DIRECT: Final = _MELD_KIND_INDEX[MeldKind.DIRECT_KONG]
_ADDED: Final = _MELD_KIND_INDEX[MeldKind.ADDED_KONG]
_CONCEALED: Final = _MELD_KIND_INDEX[MeldKind.CONCEALED_KONG]
_MELD_KIND_BY_NAME: Final = {"direct_kong": _DIRECT, "concealed_kong": _CONCEALED}
_DISCARD_WIN: Final = WinKind.DISCARD.value

_HAND: Final = OFFSETS["hand"]
_MELDS: Final = OFFSETS["melds"]
_RIVERS: Final = OFFSETS["rivers"]
_RIVER_COUNTS: Final = OFFSETS["river_counts"]
_MELD_STRIDE: Final = MELD_SLOTS * MELD_WIDTH
_RIVER_STRIDE: Final = RIVER_SLOTS * NUM_KINDS
_MELD_TILE: Final = len(MELD_KINDS)

# where each small block starts (the blocks rewritten per observation, when they changed)
_DRAWN_AT: Final = OFFSETS["drawn_tile"]
_SIZES_AT: Final = OFFSETS["concealed_sizes"]
_BAOTING_AT: Final = OFFSETS["baoting"]
_BEAN_AT: Final = OFFSETS["has_bean"]
_WALL_AT: Final = OFFSETS["wall_remaining"]
_DEALER_AT: Final = OFFSETS["dealer"]
_STREAK_AT: Final = OFFSETS["streak"]
_POINTS_AT: Final = OFFSETS["points"]
_CLAIM_TILE_AT: Final = OFFSETS["claim_tile"]
_CLAIM_FROM_AT: Final = OFFSETS["claim_from"]
_CLAIM_ROB_AT: Final = OFFSETS["claim_is_rob"]
_PHASE_AT: Final = OFFSETS["phase"]
_CURRENT_AT: Final = OFFSETS["current"]
_SEAT_AT: Final = OFFSETS["seat"]
_MATCH_AT: Final = OFFSETS["match_points"]
_HANDS_LEFT_AT: Final = OFFSETS["hands_left"]
_WON_AT: Final = OFFSETS["won"]
_PHASE_INDEX: Final = {Phase.TURN: 0, Phase.CLAIMS: 1, Phase.ENDED: 2}
# the own hand (27 counts) and the run concealed sizes, 報聽, beans, wall count (13 numbers,
# contiguous in the layout) are written as float32 by one struct call each
_FLOAT: Final = np.dtype(np.float32).itemsize
_PACK_HAND: Final = struct.Struct(f"={NUM_KINDS}f").pack_into
_HAND_BYTES: Final = _HAND * _FLOAT
_PACK_TABLE: Final = struct.Struct(f"={3 * SEATS + 1}f").pack_into
_PACK_SIZES: Final = struct.Struct(f"={SEATS}f").pack_into
_TABLE_BYTES: Final = _SIZES_AT * _FLOAT
if not (_BAOTING_AT == _SIZES_AT + SEATS and _BEAN_AT == _BAOTING_AT + SEATS
        and _WALL_AT == _BEAN_AT + SEATS):  # fmt: skip  # pragma: no cover - layout changed
    raise AssertionError("concealed_sizes, baoting, has_bean, wall_remaining must be contiguous")
# enum members as module constants: reading one off its class costs a descriptor call
_TURN: Final = Phase.TURN
_ROB: Final = ClaimSource.ADDED_KONG

# absolute seats in relative order for each observer, and each owner's relative position
_ORDER: Final = tuple(tuple((seat + rel) % SEATS for rel in range(SEATS)) for seat in range(SEATS))
_REL: Final = tuple(
    tuple((owner - seat) % SEATS for owner in range(SEATS)) for seat in range(SEATS)
)
# (observer, owner) -> where the owner's river slots, river counts and meld slots start in the
# observer's vector
_RIVER_BASE: Final = tuple(
    tuple(_RIVERS + _REL[seat][owner] * _RIVER_STRIDE for owner in range(SEATS))
    for seat in range(SEATS)
)
_COUNT_BASE: Final = tuple(
    tuple(_RIVER_COUNTS + _REL[seat][owner] * NUM_KINDS for owner in range(SEATS))
    for seat in range(SEATS)
)
_MELD_BASE: Final = tuple(
    tuple(_MELDS + _REL[seat][owner] * _MELD_STRIDE for owner in range(SEATS))
    for seat in range(SEATS)
)
_SEATS: Final = range(SEATS)


class _Written:
    """What one seat's vector holds now in its small blocks, so that an observation rewrites
    only what changed (a numpy element write costs more than comparing two tuples)."""

    __slots__ = (
        "baoting",
        "bean",
        "claim",
        "current",
        "drawn",
        "hand",
        "hands_left",
        "match",
        "phase",
        "points",
        "sizes",
        "wall",
        "won",
    )

    def __init__(self) -> None:
        # the values an all-zero block stands for; None: no one-hot entry set
        self.hand: list[int] = [0] * NUM_KINDS
        self.drawn: int | None = None
        self.sizes: list[int] = [0] * SEATS
        self.baoting: list[bool] = [False] * SEATS  # absolute seat order, as the round has it
        self.bean: list[bool] = [False] * SEATS
        self.won: list[bool] = [False] * SEATS  # R53, absolute seat order
        self.points: list[int] = [0] * SEATS
        self.match: list[int] = [0] * SEATS
        self.wall = 0
        self.claim: tuple[int, int, bool] | None = None
        self.phase: int | None = None
        self.current: int | None = None
        self.hands_left = 0


class TableEncoder:
    """The four seats' observation vectors of one hand, kept up to date from its event log.

    Build one per dealt :class:`~duyun.engine.Round`; call :meth:`observation` for a seat's
    vector (a fresh array each call). It reads the round's public state, its event log and the
    observing seat's own tiles only (see the module docstring).
    """

    __slots__ = (
        "_melds",
        "_obs",
        "_points",
        "_read_only",
        "_river_kinds",
        "_rivers",
        "_seen",
        "_targets",
        "_views",
        "_written",
        "game",
    )

    def __init__(self, game: Round) -> None:
        self.game = game
        self._obs = [np.zeros(OBS_SIZE, dtype=np.float32) for _ in _SEATS]
        # element writes through a memoryview cost a third of numpy's own
        self._views = [obs.data for obs in self._obs]
        self._read_only = [obs.view() for obs in self._obs]
        for read_only in self._read_only:
            read_only.flags.writeable = False
        self._written = [_Written() for _ in _SEATS]
        # per owner, each seat's vector with where the owner's river and river counts start
        self._targets = [
            [
                (self._views[seat], _RIVER_BASE[seat][owner], _COUNT_BASE[seat][owner])
                for seat in _SEATS
            ]
            for owner in _SEATS
        ]
        self._rivers: list[list[int]] = [[] for _ in _SEATS]
        self._river_kinds: list[list[int]] = [[0] * NUM_KINDS for _ in _SEATS]  # counts
        # (kind index, tile) per meld in the order made; the tile of a concealed kong is
        # written into its owner's vector only
        self._melds: list[list[tuple[int, int]]] = [[] for _ in _SEATS]
        # what does not change during a hand: the seat, the dealer and the streak (R36)
        for seat in _SEATS:
            view = self._views[seat]
            view[_SEAT_AT + seat] = 1
            view[_DEALER_AT + _REL[seat][game.dealer]] = 1
            view[_STREAK_AT] = game.streak
        # the table as it is now: rivers and melds (a fresh deal has none) and the ledger
        for owner in _SEATS:
            for tile in game.rivers[owner]:
                self._discard(owner, tile)
            for meld in game.melds[owner]:
                self._add_meld(owner, _MELD_KIND_INDEX[meld.kind], meld.tile)
        self._points = net_points(game.ledger)
        self._seen = len(game.events)

    # ------------------------------------------------------------------ public events

    def sync(self) -> None:
        """Apply the events logged since the last call (every change to the large blocks)."""
        log = self.game.events
        end = len(log)
        if end == self._seen:
            return
        start, self._seen = self._seen, end
        river_taken = False  # a discard won by several seats (R18) leaves the river once
        for event in log[start:end]:
            kind = event["type"]
            if kind == "act" or kind == "draw":  # most events: nothing public in the blocks
                continue
            if kind == "discard":
                self._discard(event["seat"], _TILE[event["tile"]])
                river_taken = False  # a new discard, a new claim window
            elif kind == "pong":
                self._take_discard(event["from"])
                self._add_meld(event["seat"], _PONG, _TILE[event["tile"]])
            elif kind == "kong":
                self._kong(event)
            elif kind == "payment":
                points = event["points"]
                self._points[event["payer"]] -= points
                self._points[event["payee"]] += points
            elif kind == "win":
                if event["how"] == _DISCARD_WIN and not river_taken:
                    self._take_discard(event["from"])
                    river_taken = True
            elif kind == "start":  # pragma: no cover - a Round logs one, before any encoder
                raise ValueError("a TableEncoder follows one hand; build a new one per deal")

    def _kong(self, event: dict[str, Any]) -> None:
        owner, tile = event["seat"], _TILE[event["tile"]]
        kind = event["kind"]
        if kind == "added_kong":  # R12 面下槓: the pong it extends changes kind in place
            melds = self._melds[owner]
            slot = melds.index((_PONG, tile))
            melds[slot] = (_ADDED, tile)
            for seat in _SEATS:
                start = _MELD_BASE[seat][owner] + slot * MELD_WIDTH
                view = self._views[seat]
                view[start + _PONG] = 0
                view[start + _ADDED] = 1
            return
        meld_kind = _MELD_KIND_BY_NAME[kind]
        if meld_kind == _DIRECT:
            self._take_discard(event["from"])
        self._add_meld(owner, meld_kind, tile)

    def _discard(self, owner: int, tile: int) -> None:
        river = self._rivers[owner]
        slot = len(river)
        if slot >= RIVER_SLOTS:
            raise ObservationOverflowError(
                f"seat {owner} has discarded {slot + 1} tiles (the layout holds {RIVER_SLOTS})"
            )
        river.append(tile)
        offset = slot * NUM_KINDS + tile
        kinds = self._river_kinds[owner]
        count = kinds[tile] = kinds[tile] + 1  # written, not read back from four vectors
        for view, river_at, count_at in self._targets[owner]:
            view[river_at + offset] = 1
            view[count_at + tile] = count

    def _take_discard(self, owner: int) -> None:
        """A claimed discard leaves its owner's river (R6), as at the table."""
        river = self._rivers[owner]
        tile = river.pop()
        offset = len(river) * NUM_KINDS + tile
        kinds = self._river_kinds[owner]
        count = kinds[tile] = kinds[tile] - 1
        for view, river_at, count_at in self._targets[owner]:
            view[river_at + offset] = 0
            view[count_at + tile] = count

    def _add_meld(self, owner: int, kind: int, tile: int) -> None:
        melds = self._melds[owner]
        slot = len(melds)
        if slot >= MELD_SLOTS:
            raise ObservationOverflowError(f"seat {owner} has {slot + 1} melds (at most 4)")
        melds.append((kind, tile))
        hidden = kind == _CONCEALED  # R12: face down to the other seats
        for seat in _SEATS:
            start = _MELD_BASE[seat][owner] + slot * MELD_WIDTH
            view = self._views[seat]
            view[start + kind] = 1
            if not hidden or seat == owner:
                view[start + _MELD_TILE + tile] = 1

    # ------------------------------------------------------------------ one seat's vector

    def observation(
        self,
        seat: int,
        match_points: Sequence[int] = (0, 0, 0, 0),
        hands_left: int = 0,
        *,
        copy: bool = True,
    ) -> npt.NDArray[np.float32]:
        """``seat``'s observation now, as :func:`~duyun.rl.observation.encode_view` of its view
        would give it: a fresh array (callers may keep or edit it), or with ``copy=False`` a
        read-only view of the seat's vector, which later observations and steps overwrite.

        ``match_points`` (absolute seat order) and ``hands_left`` describe the episode around
        the hand, as for ``encode_view``. Each small block is compared with what the vector
        holds and rewritten only when it changed.
        """
        game = self.game
        if len(game.events) != self._seen:
            self.sync()
        view = self._views[seat]
        written = self._written[seat]
        order = _ORDER[seat]
        rel = _REL[seat]
        # own concealed tiles: the observing seat's own, never another's
        counts = game.counts[seat]
        if counts != written.hand:
            # all 27 counts in one C-level write (as float32): cheaper than finding the
            # one or two that changed since the seat's last observation
            _PACK_HAND(view, _HAND_BYTES, *counts)
            written.hand = counts.copy()
        phase = game.phase
        current = game.current
        drawn = game.drawn_tile if phase is _TURN and current == seat else None
        if drawn != written.drawn:
            if written.drawn is not None:
                view[_DRAWN_AT + written.drawn] = 0
            if drawn is not None:
                view[_DRAWN_AT + drawn] = 1
            written.drawn = drawn
        # other seats' concealed tiles: only how many there are. With 報聽, beans and the wall
        # count they make one run of 13 numbers; the sizes and the wall change on most steps,
        # 報聽 and beans seldom (then the whole run is written at once)
        sizes = game.concealed_sizes
        wall = game.back - game.front  # Round.wall_remaining, without the property call
        baoting = game.baoting
        bean = game.has_bean
        a, b, c, d = order
        if baoting != written.baoting or bean != written.bean:
            _PACK_TABLE(
                view, _TABLE_BYTES,
                sizes[a], sizes[b], sizes[c], sizes[d],
                baoting[a], baoting[b], baoting[c], baoting[d],
                bean[a], bean[b], bean[c], bean[d],
                wall,
            )  # fmt: skip
            written.sizes = sizes.copy()
            written.baoting = baoting.copy()
            written.bean = bean.copy()
            written.wall = wall
        else:
            if sizes != written.sizes:
                _PACK_SIZES(view, _TABLE_BYTES, sizes[a], sizes[b], sizes[c], sizes[d])
                written.sizes = sizes.copy()
            if wall != written.wall:
                view[_WALL_AT] = wall
                written.wall = wall
        if game.won != written.won:  # R53: public, every winner leaves play
            written.won = _write_seats(view, _WON_AT, order, game.won)
        if self._points != written.points:
            written.points = _write_seats(view, _POINTS_AT, order, self._points)
        if match_points != written.match:
            written.match = _write_seats(view, _MATCH_AT, order, match_points)
        if hands_left != written.hands_left:
            view[_HANDS_LEFT_AT] = hands_left
            written.hands_left = hands_left
        claims = game.claims
        claim = (
            None if claims is None else (claims.tile, rel[claims.from_seat], claims.source is _ROB)
        )
        if claim != written.claim:
            if written.claim is not None:
                tile, source, rob = written.claim
                view[_CLAIM_TILE_AT + tile] = 0
                view[_CLAIM_FROM_AT + source] = 0
                view[_CLAIM_ROB_AT] = 0
            if claim is not None:
                tile, source, rob = claim
                view[_CLAIM_TILE_AT + tile] = 1
                view[_CLAIM_FROM_AT + source] = 1
                view[_CLAIM_ROB_AT] = rob
            written.claim = claim
        index = _PHASE_INDEX[phase]
        if index != written.phase:
            if written.phase is not None:
                view[_PHASE_AT + written.phase] = 0
            view[_PHASE_AT + index] = 1
            written.phase = index
        position = rel[current]
        if position != written.current:
            if written.current is not None:
                view[_CURRENT_AT + written.current] = 0
            view[_CURRENT_AT + position] = 1
            written.current = position
        return self._obs[seat].copy() if copy else self._read_only[seat]


def _write_seats(
    view: memoryview, start: int, order: tuple[int, ...], values: Sequence[Any]
) -> list[Any]:
    """Write a per-seat block in the observer's relative ``order``; return a copy of
    ``values`` (absolute order) to compare the next observation with."""
    for position, owner in enumerate(order):
        view[start + position] = values[owner]
    return list(values)
