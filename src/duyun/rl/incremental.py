"""Observations kept up to date step by step, instead of re-encoding a whole view each time.

:func:`~duyun.rl.observation.encode_view` builds a seat's observation from its
:class:`~duyun.engine.SeatView`: correct by construction, but it rebuilds the 4,616 numbers and
the view itself on every decision, and most of them do not change between two decisions.
:class:`TableEncoder` keeps one vector per seat for the whole hand and brings it up to date:

* The large blocks (``melds``, ``rivers``, ``river_counts``: 4,492 of the 4,616 numbers) change
  only through public events — a discard sets one river slot, a pong or direct kong takes the
  discard back out of its owner's river and fills one meld slot, an added kong changes one
  meld's kind, a won discard leaves the river. They are written from the hand's event log as
  it grows, into all four vectors; the tile of a concealed kong (暗槓, face down, R12) is
  written into its owner's vector only.
* The small blocks are rewritten at each :meth:`TableEncoder.observation` from what the table
  shows everyone (phase, whose turn, the tile under claim, wall count, concealed tile counts,
  報聽 flags, beans, dealer, streak, points) and from the seat's **own** concealed tiles and
  drawn tile. Nothing of another seat's concealed tiles is read but their number, and nothing
  of the wall but its length.

The result equals ``encode_view(game.view(seat), ...)`` at every step: tests check that on
every decision of many hands, and the counterfactual no-leak tests run against this path.

Events are read from ``Round.events`` (the log) rather than from what ``Round.apply`` returns,
so the encoder also follows actions applied to the round directly (an ``escape``, a test that
drives the engine): :meth:`TableEncoder.sync` catches up with whatever was logged since.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from duyun.engine import Phase, Round, WinKind, net_points
from duyun.engine.phases import ClaimSource
from duyun.hand import MeldKind
from duyun.rl.observation import (
    FIELDS,
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
_DRAWN: Final = OFFSETS["drawn_tile"]
_MELDS: Final = OFFSETS["melds"]
_RIVERS: Final = OFFSETS["rivers"]
_RIVER_COUNTS: Final = OFFSETS["river_counts"]
_MELD_STRIDE: Final = MELD_SLOTS * MELD_WIDTH
_RIVER_STRIDE: Final = RIVER_SLOTS * NUM_KINDS
_MELD_TILE: Final = len(MELD_KINDS)

# The per-step blocks: own tiles and drawn tile at the start, everything from
# ``concealed_sizes`` to the end; between them the event-driven blocks.
_HEAD_END: Final = OFFSETS["drawn_tile"] + NUM_KINDS
_TAIL: Final = OFFSETS["concealed_sizes"]
if _HEAD_END != _MELDS or OFFSETS["river_counts"] + SEATS * NUM_KINDS != _TAIL:  # pragma: no cover
    raise AssertionError("observation layout changed: update duyun.rl.incremental")


def _tail(name: str) -> int:
    return OFFSETS[name] - _TAIL


_T_DEALER: Final = _tail("dealer")
_T_CLAIM_TILE: Final = _tail("claim_tile")
_T_CLAIM_FROM: Final = _tail("claim_from")
_T_CLAIM_ROB: Final = _tail("claim_is_rob")
_T_PHASE: Final = _tail("phase")
_T_CURRENT: Final = _tail("current")
_T_SEAT: Final = _tail("seat")
# the fields before ``dealer`` and between ``dealer`` and ``claim_tile`` are filled in one
# list (see observation()); their order is fixed here and checked against the layout
_NUMERIC_ORDER: Final = (
    "concealed_sizes",
    "baoting",
    "has_bean",
    "wall_remaining",
    "dealer",
    "streak",
    "points",
    "claim_tile",
    "claim_from",
    "claim_is_rob",
    "phase",
    "current",
    "seat",
    "match_points",
    "hands_left",
)
if tuple(f.name for f in FIELDS if OFFSETS[f.name] >= _TAIL) != _NUMERIC_ORDER:  # pragma: no cover
    raise AssertionError("observation layout changed: update duyun.rl.incremental")
_CLAIM_TO_SEAT_BLANK: Final = (0,) * (NUM_KINDS + SEATS + 1 + 3 + SEATS + SEATS)
# concealed_sizes .. points (22 numbers), the blank run, match_points and hands_left (5)
if 22 + len(_CLAIM_TO_SEAT_BLANK) + 5 != OBS_SIZE - _TAIL:  # pragma: no cover
    raise AssertionError("observation layout changed: update duyun.rl.incremental")
_PHASE_INDEX: Final = {Phase.TURN: 0, Phase.CLAIMS: 1, Phase.ENDED: 2}

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


class TableEncoder:
    """The four seats' observation vectors of one hand, kept up to date from its event log.

    Build one per dealt :class:`~duyun.engine.Round`; call :meth:`observation` for a seat's
    vector (a fresh array each call). It reads the round's public state, its event log and the
    observing seat's own tiles only (see the module docstring).
    """

    __slots__ = ("_melds", "_obs", "_points", "_rivers", "_seen", "game")

    def __init__(self, game: Round) -> None:
        self.game = game
        self._obs = [np.zeros(OBS_SIZE, dtype=np.float32) for _ in _SEATS]
        self._rivers: list[list[int]] = [[] for _ in _SEATS]
        # (kind index, tile) per meld in the order made; the tile of a concealed kong is
        # written into its owner's vector only
        self._melds: list[list[tuple[int, int]]] = [[] for _ in _SEATS]
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
        river_taken = False  # a discard won by several seats leaves the river once
        for index in range(start, end):
            event = log[index]
            kind = event["type"]
            if kind == "discard":
                self._discard(event["seat"], _TILE[event["tile"]])
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
                obs = self._obs[seat]
                obs[start + _PONG] = 0
                obs[start + _ADDED] = 1
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
        for seat in _SEATS:
            obs = self._obs[seat]
            obs[_RIVER_BASE[seat][owner] + offset] = 1
            obs[_COUNT_BASE[seat][owner] + tile] += 1

    def _take_discard(self, owner: int) -> None:
        """A claimed discard leaves its owner's river (R6), as at the table."""
        river = self._rivers[owner]
        tile = river.pop()
        offset = len(river) * NUM_KINDS + tile
        for seat in _SEATS:
            obs = self._obs[seat]
            obs[_RIVER_BASE[seat][owner] + offset] = 0
            obs[_COUNT_BASE[seat][owner] + tile] -= 1

    def _add_meld(self, owner: int, kind: int, tile: int) -> None:
        melds = self._melds[owner]
        slot = len(melds)
        if slot >= MELD_SLOTS:
            raise ObservationOverflowError(f"seat {owner} has {slot + 1} melds (at most 4)")
        melds.append((kind, tile))
        hidden = kind == _CONCEALED  # R12: face down to the other seats
        for seat in _SEATS:
            start = _MELD_BASE[seat][owner] + slot * MELD_WIDTH
            obs = self._obs[seat]
            obs[start + kind] = 1
            if not hidden or seat == owner:
                obs[start + _MELD_TILE + tile] = 1

    # ------------------------------------------------------------------ one seat's vector

    def observation(
        self, seat: int, match_points: Sequence[int] = (0, 0, 0, 0), hands_left: int = 0
    ) -> npt.NDArray[np.float32]:
        """``seat``'s observation now, as :func:`~duyun.rl.observation.encode_view` of its view
        would give it; a fresh array (callers may keep or edit it)."""
        self.sync()
        game = self.game
        obs = self._obs[seat]
        counts = game.counts
        phase = game.phase
        current = game.current
        # own tiles (the seat's own, never another's) and the drawn tile on its own turn
        head = counts[seat] + [0] * NUM_KINDS
        drawn = game.drawn_tile
        if drawn is not None and current == seat and phase is Phase.TURN:
            head[NUM_KINDS + drawn] = 1
        obs[_HAND:_HEAD_END] = head
        a, b, c, d = _ORDER[seat]
        baoting, bean, points = game.baoting, game.has_bean, self._points
        tail = [
            sum(counts[a]), sum(counts[b]), sum(counts[c]), sum(counts[d]),
            baoting[a], baoting[b], baoting[c], baoting[d],
            bean[a], bean[b], bean[c], bean[d],
            game.wall_remaining,
            0, 0, 0, 0,  # dealer
            game.streak,
            points[a], points[b], points[c], points[d],
            *_CLAIM_TO_SEAT_BLANK,  # claim tile, claim from, robbing, phase, current, seat
            match_points[a], match_points[b], match_points[c], match_points[d],
            hands_left,
        ]  # fmt: skip
        rel = _REL[seat]
        tail[_T_DEALER + rel[game.dealer]] = 1
        claims = game.claims
        if claims is not None:
            tail[_T_CLAIM_TILE + claims.tile] = 1
            tail[_T_CLAIM_FROM + rel[claims.from_seat]] = 1
            if claims.source is ClaimSource.ADDED_KONG:
                tail[_T_CLAIM_ROB] = 1
        tail[_T_PHASE + _PHASE_INDEX[phase]] = 1
        tail[_T_CURRENT + rel[current]] = 1
        tail[_T_SEAT + seat] = 1
        obs[_TAIL:] = tail
        return obs.copy()
