"""The compact feature set of a position, from one seat's view, and its hidden-truth labels.

Features (:func:`encode_view`) read a :class:`~duyun.engine.view.SeatView` and nothing else,
so a bot can compute them at play time from what it holds; labels (:func:`hidden_labels`)
read the :class:`~duyun.engine.round.Round` itself, which self-play has and a bot never does.

Every feature is a small non-negative integer (a count of tiles, a flag, a length), stored as
``uint8``: a position is :data:`FEATURE_SIZE` bytes. Seats are relative, as in the RL
observation (docs/rl.md): 0 is the observing seat, 1 the next in play order (下家), 2 the seat
opposite (對家), 3 the previous one (上家). The layout is :data:`FIELDS`; its version is
:data:`FEATURES_VERSION`, written into every shard and every model file, so that a model is
never fed another layout's vectors.

Points (each seat's net points so far in the hand, R40) can be negative and large; they are
kept beside the vector, as ``int16``, by the pipeline (``points_now``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from duyun.analysis import shanten
from duyun.engine.round import Round
from duyun.engine.view import SeatView
from duyun.hand import Hand, Meld, MeldKind
from duyun.scoring import best_pattern
from duyun.tiles import COPIES, NUM_KINDS

SEATS = 4
FEATURES_VERSION = 1
EARLY_DISCARDS = 6  # a seat's first discards: the suits and tiles it did not want
RECENT_DISCARDS = 3  # its latest discards: near its waits when it is ready
_BYTE = 255
# copies unseen, by copies visible (a corrupt view showing more than four reads as none unseen)
_UNSEEN_OF = tuple(max(0, COPIES - visible) for visible in range(4 * COPIES + 1))


@dataclass(frozen=True, slots=True)
class Field:
    """One block of the feature vector: ``size`` numbers from ``start``."""

    name: str
    start: int
    size: int
    meaning: str


_OWN: tuple[tuple[str, int, str], ...] = (
    ("hand", 27, "own concealed tiles, count per kind (the drawn tile included)"),
    ("own_melds", 27, "copies of each kind in own melds (pong 3, kong 4)"),
    ("unseen", 27, "copies of each kind the seat cannot see (4 minus own, melds, rivers)"),
    ("wall", 1, "tiles left in the live wall (0-55)"),
    ("claim", 1, "1 when the seat answers a claim window, 0 on its own turn"),
    ("own_shanten", 1, "own shanten + 1 (0: a complete hand, 1: ready, ...)"),
    ("own_baoting", 1, "the seat declared 報聽 (R25)"),
    ("own_bean", 1, "the seat has a bean (R15)"),
    ("dealer", 4, "relative seat of the dealer, one-hot"),
    ("streak", 1, "the dealer's streak (R36), at most 255"),
    ("own_discards", 1, "tiles in the seat's river"),
)
_OPPONENT: tuple[tuple[str, int, str], ...] = (
    ("river", 27, "count per kind in its river (claimed discards leave it)"),
    ("early", 27, f"count per kind among its first {EARLY_DISCARDS} discards still in the river"),
    ("recent", 27, f"count per kind among its last {RECENT_DISCARDS} discards"),
    ("after_baoting", 27, "count per kind in its river after the first, once it declared 報聽"),
    ("melds", 27, "copies of each kind in its visible melds (a concealed kong is face down)"),
    ("size", 1, "its concealed tiles"),
    ("discards", 1, "tiles in its river"),
    ("pongs", 1, "its pongs"),
    ("kongs", 1, "its direct and added kongs"),
    ("concealed_kongs", 1, "its concealed kongs (kind hidden)"),
    ("baoting", 1, "it declared 報聽 (R25)"),
    ("bean", 1, "it has a bean (R15): its 平胡 may win on any discard (R17)"),
    ("won", 1, "it has won and left play (血戰 room, R53)"),
    ("is_dealer", 1, "it is the dealer"),
)


def _layout() -> tuple[Field, ...]:
    fields: list[Field] = []
    start = 0
    for name, size, meaning in _OWN:
        fields.append(Field(name, start, size, meaning))
        start += size
    for rel in (1, 2, 3):
        for name, size, meaning in _OPPONENT:
            fields.append(Field(f"opp{rel}_{name}", start, size, f"seat +{rel}: {meaning}"))
            start += size
    return tuple(fields)


FIELDS: tuple[Field, ...] = _layout()
OWN_SIZE = sum(size for _, size, _ in _OWN)
OPPONENT_SIZE = sum(size for _, size, _ in _OPPONENT)
FEATURE_SIZE = OWN_SIZE + 3 * OPPONENT_SIZE
_AT = {field.name: field.start for field in FIELDS}
_HAND, _OWN_MELDS, _UNSEEN = _AT["hand"], _AT["own_melds"], _AT["unseen"]
_WALL, _CLAIM, _SHANTEN = _AT["wall"], _AT["claim"], _AT["own_shanten"]
_OWN_BAOTING, _OWN_BEAN, _DEALER = _AT["own_baoting"], _AT["own_bean"], _AT["dealer"]
_STREAK, _OWN_DISCARDS = _AT["streak"], _AT["own_discards"]
# offsets inside an opponent block
_O = {name: sum(s for _, s, _ in _OPPONENT[:i]) for i, (name, _, _) in enumerate(_OPPONENT)}
_RIVER, _EARLY, _RECENT, _AFTER, _MELDS = (
    _O["river"],
    _O["early"],
    _O["recent"],
    _O["after_baoting"],
    _O["melds"],
)
_SCALARS = _O["size"]  # size, discards, pongs, kongs, concealed_kongs, baoting, bean, won,
# is_dealer: consecutive, in that order


def field_slice(name: str) -> slice:
    """Where field ``name`` (e.g. ``"unseen"``, ``"opp2_river"``) lies in the vector."""
    for field in FIELDS:
        if field.name == name:
            return slice(field.start, field.start + field.size)
    raise KeyError(f"no feature field {name!r}")


def encode_view(view: SeatView, out: bytearray | None = None) -> bytearray:
    """The position's features as :data:`FEATURE_SIZE` bytes (the layout :data:`FIELDS`).

    ``out`` (a zeroed bytearray of that size) is filled and returned when given."""
    vec = bytearray(FEATURE_SIZE) if out is None else out
    me = view.seat
    counts = [0] * NUM_KINDS
    for tile in view.hand:
        counts[tile] += 1
    vec[_HAND : _HAND + NUM_KINDS] = bytes(counts)
    for meld in view.melds[me]:
        if meld.tile is not None:
            vec[_OWN_MELDS + meld.tile] += meld.kind.size
    vec[_UNSEEN : _UNSEEN + NUM_KINDS] = bytes(map(_UNSEEN_OF.__getitem__, view.visible_counts()))
    vec[_WALL] = view.wall_remaining
    vec[_CLAIM] = view.claim_tile is not None
    if view.won[me]:
        vec[_SHANTEN] = 0
    else:
        size = len(view.hand)
        vec[_SHANTEN] = shanten(counts) + 1 if size % 3 else 0
    vec[_OWN_BAOTING] = view.baoting[me]
    vec[_OWN_BEAN] = view.has_bean[me]
    vec[_DEALER + (view.dealer - me) % SEATS] = 1
    vec[_STREAK] = min(view.streak, _BYTE)
    vec[_OWN_DISCARDS] = len(view.rivers[me])
    base = OWN_SIZE
    for rel in (1, 2, 3):
        seat = (me + rel) % SEATS
        river = view.rivers[seat]
        for tile in river:
            vec[base + _RIVER + tile] += 1
        for tile in river[:EARLY_DISCARDS]:
            vec[base + _EARLY + tile] += 1
        for tile in river[-RECENT_DISCARDS:]:
            vec[base + _RECENT + tile] += 1
        if view.baoting[seat]:
            # R25: 報聽 comes with the first discard; R26: no later discard of a frozen hand
            # wins for it (the strong bot reads its safe tiles the same way)
            for tile in river[1:]:
                vec[base + _AFTER + tile] += 1
        pongs = kongs = hidden = 0
        for meld in view.melds[seat]:
            kind = meld.kind
            if meld.tile is None:
                hidden += 1
                continue
            vec[base + _MELDS + meld.tile] += kind.size
            if kind is MeldKind.PONG:
                pongs += 1
            elif kind is MeldKind.CONCEALED_KONG:
                hidden += 1
            else:
                kongs += 1
        at = base + _SCALARS
        vec[at] = view.concealed_sizes[seat]
        vec[at + 1] = len(river)
        vec[at + 2] = pongs
        vec[at + 3] = kongs
        vec[at + 4] = hidden
        vec[at + 5] = view.baoting[seat]
        vec[at + 6] = view.has_bean[seat]
        vec[at + 7] = view.won[seat]
        vec[at + 8] = view.dealer == seat
        base += OPPONENT_SIZE
    return vec


# ---------------------------------------------------------------------- labels (hidden truth)


@dataclass(frozen=True, slots=True)
class OpponentTruth:
    """What one other seat holds, as self-play knows it: the labels of an opponent model."""

    ready: bool  # R11: some tile completes its hand
    waits: int  # bit k: kind k completes its hand (R11, dead waits per the room's rules)
    deal_in: int  # bit k: a discard of kind k by the observing seat now is a win it may take
    concealed: tuple[int, ...]  # its concealed tiles, count per kind
    shanten: int  # its shanten (-1 complete, 0 ready, ...); 0 for a seat out of play
    in_hand: bool  # still playing the hand (not a 血戰 winner, R53)


class _FanCache(dict[tuple[tuple[int, ...], tuple[Meld, ...], int], int]):
    """Fan of a hand completed by a tile, per (concealed counts, melds, tile): best_pattern is
    the costly part of a label and the same hand is asked about many times."""

    LIMIT = 200_000

    def fan(self, counts: Sequence[int], melds: Sequence[Meld], tile: int) -> int:
        key = (tuple(counts), tuple(melds), tile)
        found = self.get(key)
        if found is None:
            if len(self) >= self.LIMIT:
                self.clear()
            tiles = [kind for kind, count in enumerate(counts) for _ in range(count)]
            tiles.append(tile)
            result = best_pattern(Hand(tuple(sorted(tiles)), tuple(melds)))
            found = self[key] = 0 if result is None else result.fan
        return found


_FANS = _FanCache()


def hidden_labels(game: Round, seat: int) -> tuple[OpponentTruth, ...]:
    """The truth about seats +1, +2, +3 (relative to ``seat``) in ``game`` now.

    ``deal_in`` is what a danger estimate predicts: the tile, discarded by ``seat`` now, would
    be a win the other seat may take -- it completes the hand (R11), and the win is allowed:
    a pattern above 平胡, or a bean, or ``seat``'s own 報聽 (R17, R27), and no 過水 block
    (R9, when the room has it). A 報聽 seat takes it automatically (R26), any other would
    always take it (every bot does). (地胡 on a discard, option ``dihu_on_discard``, is not
    counted.)
    """
    truths: list[OpponentTruth] = []
    rules = game.rules
    my_baoting = game.baoting[seat]
    for rel in (1, 2, 3):
        other = (seat + rel) % SEATS
        counts = game.counts[other]
        concealed = tuple(counts)
        if game.won[other] or sum(counts) % 3 != 1:
            # a 血戰 winner (R53) claims nothing; a seat holding 3k+2 tiles (never the case on
            # another seat's turn) has no waits to speak of
            truths.append(OpponentTruth(False, 0, 0, concealed, 0, not game.won[other]))
            continue
        waits = game.ready_waits(other)
        wait_bits = 0
        deal_bits = 0
        blocked = rules.pass_blocks_ron and game.ron_blocked[other]
        free = game.has_bean[other] or my_baoting
        melds = game.melds[other]
        for tile in waits:
            wait_bits |= 1 << tile
            if blocked:
                continue
            if free or _FANS.fan(counts, melds, tile) > 1:
                deal_bits |= 1 << tile
        truths.append(
            OpponentTruth(bool(waits), wait_bits, deal_bits, concealed, shanten(counts), True)
        )
    return tuple(truths)
