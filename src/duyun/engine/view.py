"""What one seat may know: its own view of a hand, and events redacted for it.

Every adapter (bots, terminal, server, RL) sees the game only through these, so that no
client can read another seat's concealed tiles or the order of the wall. Concealed kongs
(暗槓) are shown face down to the other seats: their kind is hidden.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from duyun.engine.actions import LegalActions, as_seat
from duyun.engine.ledger import Payment, net_points
from duyun.engine.phases import ClaimSource, Phase
from duyun.hand import Meld, MeldKind
from duyun.tiles import Tile

SEATS = 4


@dataclass(frozen=True, slots=True)
class MeldView:
    """A meld as a seat sees it; ``tile`` is None for another seat's concealed kong."""

    kind: MeldKind
    tile: Tile | None


@dataclass(frozen=True, slots=True)
class RefusedWin:
    """A win this seat was refused: ``tile`` from ``from_seat`` completes its hand, but the
    rule ``reason`` ("R17": 平胡 needs a bean or a 報聽 discarder; "R9": the 過水 block)
    refuses it. ``pattern`` is the basic pattern the win would have scored."""

    tile: Tile
    from_seat: int
    reason: str
    pattern: str


@dataclass(frozen=True, slots=True)
class SeatView:
    """A seat's observation of the table."""

    seat: int
    dealer: int
    streak: int
    phase: str
    current: int
    to_act: tuple[int, ...]  # the seat to play; during claims only this seat, if asked
    wall_remaining: int
    hand: tuple[Tile, ...]  # own concealed tiles, sorted, drawn tile included
    drawn_tile: Tile | None  # own drawn tile while it is this seat's turn
    concealed_sizes: tuple[int, ...]
    melds: tuple[tuple[MeldView, ...], ...]
    rivers: tuple[tuple[Tile, ...], ...]
    baoting: tuple[bool, ...]
    has_bean: tuple[bool, ...]
    claim_tile: Tile | None  # the discard or added-kong tile awaiting claims
    claim_from: int | None
    claim_is_rob: bool
    payments: tuple[Payment, ...]
    points: tuple[int, ...]
    legal: LegalActions
    # the latest win this seat was refused (R17, R9), kept until its next own action or draw
    refused_win: RefusedWin | None = None
    # legal 報聽 discards after which only self-draw, 搶槓 or a 報聽 discarder's tile can win
    # (R17, R25, R26, R27): every wait is 平胡 and the frozen hand can never gain a bean
    baoting_self_draw_only: tuple[Tile, ...] = ()
    # R53 血戰 room: who has won (left play), who has then left the table (R57), each winner's
    # laid-open concealed tiles (public; empty for a seat still in the hand), the tile each
    # winner won on, and the tiles won on discards or robbed kongs (held by no hand any more)
    won: tuple[bool, ...] = (False, False, False, False)
    left: tuple[bool, ...] = (False, False, False, False)
    open_hands: tuple[tuple[Tile, ...], ...] = ((), (), (), ())
    win_tiles: tuple[Tile | None, ...] = (None, None, None, None)
    off_table: tuple[Tile, ...] = ()

    @property
    def own_melds(self) -> tuple[MeldView, ...]:
        return self.melds[self.seat]

    @property
    def in_hand(self) -> tuple[int, ...]:
        """Seats still playing the hand (未胡者, R53): the only ones who pay, claim or draw."""
        return tuple(seat for seat in range(SEATS) if not self.won[seat])

    def opponents(self) -> tuple[int, ...]:
        """The other seats still in the hand: the only ones whose discards can still feed a
        win or who can still win on this seat's discard (R53)."""
        return tuple(seat for seat in self.in_hand if seat != self.seat)

    def visible_counts(self) -> list[int]:
        """Tiles this seat can see: own hand and melds, every exposed meld, every river, and
        in a 血戰 room every winner's laid-open hand and the tiles they won on (R53)."""
        counts = [0] * 27
        for tile in self.hand:
            counts[tile] += 1
        for owner, tiles in enumerate(self.open_hands):
            if owner != self.seat:
                for tile in tiles:
                    counts[tile] += 1
        for tile in self.off_table:
            counts[tile] += 1
        for melds in self.melds:
            for meld in melds:
                if meld.tile is not None:
                    counts[meld.tile] += meld.kind.size
        for river in self.rivers:
            for tile in river:
                counts[tile] += 1
        if self.claim_tile is not None and self.claim_is_rob:
            counts[self.claim_tile] += 1
        return counts


class ClaimState(Protocol):
    """What a view shows of an open claim window: the tile, its owner and why it is open."""

    @property
    def source(self) -> ClaimSource: ...
    @property
    def from_seat(self) -> int: ...
    @property
    def tile(self) -> Tile: ...


class TableTiles(Protocol):
    """Where a hand's tiles and turns stand, as everything that reads a whole hand sees it:
    :class:`TableState` (a seat's view) and the whole-state inspection extend it."""

    phase: Phase
    current: int

    @property
    def counts(self) -> Sequence[Sequence[int]]: ...
    @property
    def melds(self) -> Sequence[Sequence[Meld]]: ...
    @property
    def rivers(self) -> Sequence[Sequence[Tile]]: ...
    @property
    def baoting(self) -> Sequence[bool]: ...
    @property
    def ledger(self) -> Sequence[Payment]: ...
    @property
    def won(self) -> Sequence[bool]: ...
    @property
    def left(self) -> Sequence[bool]: ...


class TableState(TableTiles, Protocol):
    """What :func:`seat_view` reads of a hand. :class:`~duyun.engine.round.Round` provides it,
    and so does :class:`~duyun.engine.fold.SeatFold` (the hand as one seat's received events
    tell it); the view depends on this protocol, not on either, so this module imports
    neither."""

    dealer: int
    streak: int
    drawn_tile: Tile | None
    # caches the round clears when melds or the ledger change
    meld_views: dict[int, tuple[tuple[MeldView, ...], ...]]
    ledger_view: tuple[tuple[Payment, ...], tuple[int, ...]] | None

    @property
    def to_act(self) -> tuple[int, ...]: ...
    @property
    def wall_remaining(self) -> int: ...
    @property
    def has_bean(self) -> Sequence[bool]: ...
    @property
    def claims(self) -> ClaimState | None: ...
    @property
    def refused_wins(self) -> Sequence[RefusedWin | None]: ...
    @property
    def win_tiles(self) -> Sequence[Tile | None]: ...
    @property
    def off_table(self) -> Sequence[Tile]: ...

    def legal_actions(self, seat: int) -> LegalActions: ...
    def baoting_self_draw_only(self, seat: int) -> tuple[Tile, ...]: ...


# A state that knows how many tiles a seat conceals but not which (a fold of the events one
# seat received, duyun.engine.fold) also has ``concealed_sizes``; the round, which knows every
# tile, leaves it out and the sizes are its counts' sums.
_SIZES = "concealed_sizes"


def _meld_views(game: TableState, seat: int) -> tuple[tuple[MeldView, ...], ...]:
    """Melds as ``seat`` sees them: other seats' concealed kongs face down."""
    return tuple(
        tuple(
            MeldView(
                meld.kind,
                None if meld.kind is MeldKind.CONCEALED_KONG and owner != seat else meld.tile,
            )
            for meld in game.melds[owner]
        )
        for owner in range(SEATS)
    )


def seat_view(game: TableState, seat: int) -> SeatView:
    """Build ``seat``'s view of ``game``.

    Bots ask for a view before every decision, so the parts that change rarely (melds, the
    ledger) are cached on the round and rebuilt only when they change.
    """
    claims = game.claims
    melds = game.meld_views.get(seat)
    if melds is None:
        melds = game.meld_views[seat] = _meld_views(game, seat)
    ledger = game.ledger_view
    if ledger is None:
        ledger = game.ledger_view = (tuple(game.ledger), tuple(net_points(game.ledger)))
    own: list[Tile] = []
    for tile, count in enumerate(game.counts[seat]):
        if count:
            own.extend((tile,) * count)
    is_turn = game.phase is Phase.TURN
    sizes = getattr(game, _SIZES, None)
    won = tuple(game.won)
    open_hands: tuple[tuple[Tile, ...], ...] = ((), (), (), ())
    if any(won):  # R53: a winner's hand is laid open
        open_hands = tuple(
            tuple(tile for tile, count in enumerate(game.counts[owner]) for _ in range(count))
            if won[owner]
            else ()
            for owner in range(SEATS)
        )
    return SeatView(
        seat=seat,
        dealer=game.dealer,
        streak=game.streak,
        phase=game.phase.value,
        current=game.current,
        # during claims only one's own pending answer shows: who else is being asked would
        # tell who could pong or win on the tile
        to_act=game.to_act if is_turn else tuple(s for s in game.to_act if s == seat),
        wall_remaining=game.wall_remaining,
        hand=tuple(own),
        drawn_tile=game.drawn_tile if is_turn and game.current == seat else None,
        concealed_sizes=tuple(map(sum, game.counts)) if sizes is None else tuple(sizes),
        melds=melds,
        rivers=tuple(map(tuple, game.rivers)),
        baoting=tuple(game.baoting),
        has_bean=tuple(game.has_bean),
        claim_tile=claims.tile if claims is not None else None,
        claim_from=claims.from_seat if claims is not None else None,
        claim_is_rob=claims is not None and claims.source is ClaimSource.ADDED_KONG,
        payments=ledger[0],
        points=ledger[1],
        legal=game.legal_actions(seat),
        refused_win=game.refused_wins[seat],
        baoting_self_draw_only=game.baoting_self_draw_only(seat) if is_turn else (),
        won=won,
        left=tuple(game.left),
        open_hands=open_hands,
        win_tiles=tuple(game.win_tiles),
        off_table=tuple(game.off_table),
    )


# the events that hold lists or dicts; every other event is flat
_NESTED_EVENTS = frozenset({"start", "win", "exhaustive_draw", "end"})


def copy_event(event: dict[str, Any]) -> dict[str, Any]:
    """A copy of an event that shares no mutable part with it.

    Events are JSON objects at most two levels deep (a ``start`` event's rivers are lists of
    lists), so a copy of the dict and of its lists and dicts is a deep copy, at a fraction of
    ``copy.deepcopy``'s cost: self-play copies every event it is handed.
    """
    if event["type"] not in _NESTED_EVENTS:
        return event.copy()  # every value is a str, int, bool or None
    copied = event.copy()
    for key, value in event.items():
        if type(value) is list:
            copied[key] = [list(item) if type(item) is list else item for item in value]
        elif type(value) is dict:
            copied[key] = value.copy()
    return copied


_HIDDEN = "?"
_CLAIM_ANSWERS = frozenset({"pass", "pong", "kong", "hu"})


def redact_event(event: dict[str, Any], seat: int | None) -> dict[str, Any] | None:
    """The event as ``seat`` may see it (``None``: a spectator, who sees only public facts),
    or None when the seat may not see it at all. The result is always a new object: editing
    it never changes the event (or the log it came from).

    Hidden: other seats' dealt hands and draws, their refused wins (``win_refused``), the
    wall order, the kind of another seat's concealed kong, and other seats' answers to a claim
    (a "pass" would tell that the seat could have ponged or won; what was claimed shows in the
    pong, kong and win events that follow).
    The final ``end`` event shows every hand, as players do at the table.
    """
    if seat is not None and (type(seat) is not int or not 0 <= seat < SEATS):
        seat = as_seat(seat)
    kind = event["type"]
    if kind == "start":
        redacted = copy_event(event)
        redacted["hands"] = [
            hand if owner == seat else _HIDDEN for owner, hand in enumerate(event["hands"])
        ]
        redacted["wall"] = len(event["wall"])
        redacted["seed"] = None
        return redacted
    owner = event.get("seat")
    if owner == seat:
        return copy_event(event)
    if kind == "win_refused":
        return None  # private: it tells what the seat holds
    if kind == "draw":
        return {**event, "tile": _HIDDEN}
    if kind == "kong" and event.get("kind") == "concealed_kong":
        return {**event, "tile": _HIDDEN}
    if kind == "act":
        action = event.get("action")
        if action in _CLAIM_ANSWERS:
            return None
        if action == "concealed_kong":
            return {**event, "tile": _HIDDEN}
    return copy_event(event)


def events_for(events: Iterable[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """A hand's events as ``seat`` may see them (see :func:`redact_event`); ``None`` is a
    spectator. Any other seat is an error, not a spectator by accident."""
    if seat is not None:
        seat = as_seat(seat)
    return [seen for event in events if (seen := redact_event(event, seat)) is not None]
