"""The table as one seat knows it, rebuilt from the events that seat received.

A client (the server for each connection, a replay viewer, a test) holds only the events it
was sent (:func:`~duyun.engine.view.events_for`), never the round. :class:`SeatFold` applies
them one at a time and satisfies :class:`~duyun.engine.view.TableState`, so that
:func:`~duyun.engine.view.seat_view` of it is the seat's view: the rules a view depends on —
R18's one claimed tile shared by every winner of a 一炮多響, R53's laid-open winners' hands,
R57's leaving winners, the refused win kept until the seat's next decision (R9, R17) — are
written here once, beside the round that makes them.

Folding the released events, and not reading the round, matters for a server: during a claim
window the round can already be ahead of what the table has released (a discard nobody can
claim is followed at once by the next draw), and a view read from it would tell that nobody
could claim. A fold can never show more than its events do.

Where a fold's view differs from ``Round.view(seat)`` by design (tests hold it to exactly
these differences, over whole self-played hands):

- A discard nobody can claim opens a claim window in the fold (``phase`` "claims", the tile
  as ``claim_tile``) until the next event, although the round passes it on at once: the
  round's view is only ever read after a whole action, the fold after each event a table
  releases, and a seat must not tell from the view that nobody could claim.
- ``to_act`` during a claim window is empty: who is asked (the seat itself included) is not
  in any event, it comes with the seat's prompt. In a turn it is the seat to play, as the
  round's.
- ``legal`` is empty and ``baoting_self_draw_only`` is ``()``: a seat's choices come with its
  prompt; a fold does not re-derive them.
- Another seat's concealed kong is face down (``tile`` None), as in the round's view; a
  spectator's fold (``seat`` None) sees every concealed kong face down, no hand, no drawn tile
  and no refused win.
- A written start position (a scenario) with melds in another seat's hand: the ``start``
  event hides that hand, so the fold counts it as melds-free 13 (14 for the dealer) tiles.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from duyun.engine.actions import LegalActions, as_seat
from duyun.engine.ledger import Payment
from duyun.engine.phases import ClaimSource, Phase
from duyun.engine.view import SEATS, MeldView, RefusedWin, SeatView, seat_view
from duyun.hand import Hand, Meld, MeldKind
from duyun.tiles import NUM_KINDS, Tile, tile_from_str

__all__ = ["FoldError", "SeatFold", "fold_events"]

_NO_ACTIONS = LegalActions(())
_KINDS = {kind.value: kind for kind in MeldKind}
_HIDDEN = "?"
# the tile a face-down meld holds in ``SeatFold.melds``; never shown: views read the fold's
# own ``meld_views``, where it is None
_FACE_DOWN = 0


class FoldError(ValueError):
    """The events cannot be folded: not a hand's events from its ``start`` on, or an event
    that contradicts the ones before it (a tile the seat does not hold)."""


@dataclass(frozen=True, slots=True)
class _Claim:
    """An open claim window as the events tell it (:class:`~duyun.engine.view.ClaimState`)."""

    source: ClaimSource
    from_seat: int
    tile: Tile


def _tile(text: object) -> Tile:
    if not isinstance(text, str):
        raise FoldError(f"a tile must be written like '5p', got {text!r}")
    return tile_from_str(text)


class SeatFold:
    """What ``seat`` (None: a spectator) knows of a hand, one received event at a time.

    Feed it the seat's events in order with :meth:`apply`, starting with ``start``; read it
    with :meth:`view` (or ``seat_view(fold, fold.seat)``). The events must already be
    redacted for the seat (``events_for``): the fold takes a tile it is shown as known, and
    only its own seat's hand from ``start``.
    """

    def __init__(self, seat: int | None) -> None:
        self.seat: int | None = None if seat is None else as_seat(seat)
        self.started = False
        self.dealer = 0
        self.streak = 0
        self.phase = Phase.TURN
        self.current = 0
        self.drawn_tile: Tile | None = None
        self.meld_views: dict[int, tuple[tuple[MeldView, ...], ...]] = {}
        self.ledger_view: tuple[tuple[Payment, ...], tuple[int, ...]] | None = None
        self.bloody = False
        self._wall = 0
        # own concealed tiles as counts; another seat's stay zero (unknown) until it wins
        # in a 血戰 room and its hand is laid open (R53)
        self._counts: list[list[int]] = [[0] * NUM_KINDS for _ in range(SEATS)]
        self._sizes = [0] * SEATS
        self._melds: list[list[MeldView]] = [[] for _ in range(SEATS)]
        self._rivers: list[list[Tile]] = [[] for _ in range(SEATS)]
        self._baoting = [False] * SEATS
        self._has_bean = [False] * SEATS
        self._ledger: list[Payment] = []
        self._claim: _Claim | None = None
        self._taken = False  # the open window's tile has gone to its winner(s) (R18)
        self._refused: list[RefusedWin | None] = [None] * SEATS
        self._won = [False] * SEATS
        self._left = [False] * SEATS
        self._win_tiles: list[Tile | None] = [None] * SEATS
        self._off_table: list[Tile] = []

    # ------------------------------------------------------------------ TableState

    @property
    def to_act(self) -> tuple[int, ...]:
        """The seat to play in a turn; during claims nobody the events name (the prompt
        tells a seat it is asked)."""
        return (self.current,) if self.phase is Phase.TURN else ()

    @property
    def wall_remaining(self) -> int:
        return self._wall

    @property
    def counts(self) -> Sequence[Sequence[int]]:
        return self._counts

    @property
    def concealed_sizes(self) -> Sequence[int]:
        """How many concealed tiles each seat holds: known for every seat although their
        kinds are not (``seat_view`` reads this rather than summing ``counts``)."""
        return self._sizes

    @property
    def melds(self) -> Sequence[Sequence[Meld]]:
        return [
            [Meld(m.kind, _FACE_DOWN if m.tile is None else m.tile) for m in melds]
            for melds in self._melds
        ]

    @property
    def rivers(self) -> Sequence[Sequence[Tile]]:
        return self._rivers

    @property
    def baoting(self) -> Sequence[bool]:
        return self._baoting

    @property
    def has_bean(self) -> Sequence[bool]:
        return self._has_bean

    @property
    def ledger(self) -> Sequence[Payment]:
        return self._ledger

    @property
    def claims(self) -> _Claim | None:
        return self._claim

    @property
    def refused_wins(self) -> Sequence[RefusedWin | None]:
        return self._refused

    @property
    def won(self) -> Sequence[bool]:
        return self._won

    @property
    def left(self) -> Sequence[bool]:
        return self._left

    @property
    def win_tiles(self) -> Sequence[Tile | None]:
        return self._win_tiles

    @property
    def off_table(self) -> Sequence[Tile]:
        return self._off_table

    def legal_actions(self, seat: int) -> LegalActions:
        """None: a seat's legal actions come with its prompt, not from the events."""
        return _NO_ACTIONS

    def baoting_self_draw_only(self, seat: int) -> tuple[Tile, ...]:
        return ()

    # ------------------------------------------------------------------ reading

    @property
    def viewpoint(self) -> int:
        """The seat whose chair the view is written from: a spectator's is seat 0's, with
        nothing of seat 0's private (the spectator's fold knows none of it)."""
        return 0 if self.seat is None else self.seat

    def view(self) -> SeatView:
        """The seat's view of the hand so far (see the module notes for what it leaves out)."""
        if not self.started:
            raise FoldError("no 'start' event folded yet: a view needs the hand's start")
        view = seat_view(self, self.viewpoint)
        if self.seat is None and view.hand:
            # seat 0's laid-open hand (R53) is in open_hands; a spectator holds no hand
            view = replace(view, hand=())
        return view

    # ------------------------------------------------------------------ folding

    def apply(self, event: Mapping[str, Any]) -> None:
        """Fold one event the seat received. Events before ``start`` are an error."""
        kind = event.get("type")
        if kind == "start":
            if self.started:
                raise FoldError("a second 'start': fold one hand per SeatFold")
            try:
                self._start(event)
            except FoldError:
                raise
            except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
                raise FoldError(f"malformed 'start' event: {error!r}") from None
            return
        if not self.started:
            raise FoldError(f"a hand's events start with 'start', not {kind!r}")
        try:
            self._apply(kind, event)
        except FoldError:
            raise
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
            raise FoldError(f"malformed {kind!r} event: {error!r}") from None

    def _start(self, event: Mapping[str, Any]) -> None:
        self.dealer = as_seat(event["dealer"])
        self.streak = int(event["streak"])
        self.current = as_seat(event["turn"])
        wall = event["wall"]
        self._wall = wall if isinstance(wall, int) else len(wall)
        self._rivers = [[_tile(t) for t in river] for river in event["discards"]]
        self._baoting = [bool(b) for b in event["baoting"]]
        hands = event["hands"]
        if len(self._rivers) != SEATS or len(self._baoting) != SEATS or len(hands) != SEATS:
            raise FoldError("a 'start' event names four seats' hands, discards and 報聽")
        rules = event.get("rules")
        self.bloody = isinstance(rules, dict) and bool(rules.get("bloody_battle"))
        for owner, text in enumerate(hands):
            if owner != self.seat or text == _HIDDEN:
                self._sizes[owner] = 14 if owner == self.dealer else 13
                continue
            hand = Hand.parse(text) if text else Hand(())
            for tile in hand.concealed:
                self._counts[owner][tile] += 1
            self._sizes[owner] = len(hand.concealed)
            self._melds[owner] = [MeldView(m.kind, m.tile) for m in hand.melds]
            self._has_bean[owner] = any(m.kind.is_kong for m in hand.melds)  # R15
        self._meld_changed()
        self.started = True

    def _meld_changed(self) -> None:
        # the fold keeps the view's melds itself: a face-down meld has no tile to show
        self.meld_views = {self.viewpoint: tuple(tuple(melds) for melds in self._melds)}

    def _take(self, owner: int, tile: Tile, count: int) -> None:
        self._sizes[owner] -= count
        if owner == self.seat:
            counts = self._counts[owner]
            if counts[tile] < count:
                raise FoldError(f"seat {owner} gives up {count} of a tile it holds {counts[tile]}")
            counts[tile] -= count

    def _open_claim(self, source: ClaimSource, seat: int, tile: Tile) -> None:
        self.phase = Phase.CLAIMS
        self.current = seat if source is ClaimSource.DISCARD else self.current
        self._claim = _Claim(source, seat, tile)
        self._taken = False

    def _apply(self, kind: object, event: Mapping[str, Any]) -> None:
        who: Any = event.get("seat")
        if who is not None:
            who = as_seat(who)  # -1 is an error, never seat 3
        own = who is not None and who == self.seat
        if own:
            # the refused win is kept until the seat's next own decision (an escape is none:
            # the round keeps it) or draw; a 血戰 winner's is cleared by the win (R9, R17)
            if kind == "win_refused":
                self._refused[who] = RefusedWin(
                    _tile(event["tile"]),
                    as_seat(event["from"], "from"),
                    str(event["reason"]),
                    str(event["pattern"]),
                )
            elif (
                kind == "draw"
                or (kind == "act" and event.get("action") != "quit")
                or (kind == "win" and self.bloody)
            ):
                self._refused[who] = None
        if kind == "draw":
            self._sizes[who] += 1
            self._wall -= 1
            self.phase, self.current, self._claim = Phase.TURN, who, None
            if own:
                tile = _tile(event["tile"])
                self._counts[who][tile] += 1
                self.drawn_tile = tile
        elif kind == "discard":
            tile = _tile(event["tile"])
            self._take(who, tile, 1)
            self._rivers[who].append(tile)
            if event.get("baoting"):
                self._baoting[who] = True
            self._open_claim(ClaimSource.DISCARD, who, tile)
            self.drawn_tile = None
        elif kind == "baoting":
            self._baoting[who] = True
        elif kind == "act" and event.get("action") == "added_kong":
            tile = _tile(event["tile"])
            self._take(who, tile, 1)
            self._open_claim(ClaimSource.ADDED_KONG, who, tile)  # 搶槓 window (R13)
            if own:
                self.drawn_tile = None
        elif kind == "pong":
            tile = _tile(event["tile"])
            self._rivers[as_seat(event["from"], "from")].pop()
            self._take(who, tile, 2)
            self._melds[who].append(MeldView(MeldKind.PONG, tile))
            self._meld_changed()
            self.phase, self.current, self._claim = Phase.TURN, who, None
            if own:
                self.drawn_tile = None
        elif kind == "kong":
            self._kong(who, event)
            if own:
                self.drawn_tile = None
        elif kind == "payment":
            self._ledger.append(
                Payment(
                    as_seat(event["payer"], "payer"),
                    as_seat(event["payee"], "payee"),
                    int(event["fan"]),
                    int(event["points"]),
                    str(event["rule"]),
                    str(event["reason"]),
                )
            )
            self.ledger_view = None
        elif kind == "win":
            self._win(who, event)
        elif kind == "leave":
            self._left[who] = True  # R57
        elif kind == "end":
            self.phase, self.drawn_tile, self._claim = Phase.ENDED, None, None
        if self.phase is not Phase.TURN or self.current != self.seat:
            self.drawn_tile = None

    def _kong(self, who: int, event: Mapping[str, Any]) -> None:
        how = _KINDS.get(event["kind"])
        if how is None or not how.is_kong:
            raise FoldError(f"unknown kong kind {event['kind']!r}")
        text = event["tile"]
        if how is MeldKind.DIRECT_KONG:
            tile = _tile(text)
            self._rivers[as_seat(event["from"], "from")].pop()
            self._take(who, tile, 3)
            self._melds[who].append(MeldView(how, tile))
        elif how is MeldKind.ADDED_KONG:
            tile = _tile(text)
            melds = self._melds[who]
            for index, meld in enumerate(melds):
                if meld.kind is MeldKind.PONG and meld.tile == tile:
                    melds[index] = MeldView(how, tile)
                    break
            else:
                raise FoldError(f"seat {who} adds a kong of {text} without a pong of it")
        else:  # 暗槓: its tile is shown to its owner only
            tile_or_none = None if text == _HIDDEN else _tile(text)
            if tile_or_none is None or who != self.seat:
                self._sizes[who] -= 4
            else:
                self._take(who, tile_or_none, 4)
            self._melds[who].append(MeldView(how, tile_or_none))
        self._meld_changed()
        self._has_bean[who] = True  # R15: a kong is a bean
        self._claim = None

    def _win(self, who: int, event: Mapping[str, Any]) -> None:
        how = event.get("how")
        tile = _tile(event["tile"])
        if how in ("discard", "rob_kong") and not self._taken:
            # one tile per claim window, shared by every winner of a 一炮多響 (R18)
            self._taken = True
            self._off_table.append(tile)
            claim = self._claim
            if how == "discard" and claim is not None:
                river = self._rivers[claim.from_seat]
                if river and river[-1] == tile:
                    river.pop()
        self._win_tiles[who] = tile
        if self.bloody:  # R53: the winner leaves play, its hand laid open
            self._won[who] = True
            concealed = list(Hand.parse(event["hand"]).concealed)
            if how != "self_draw":
                concealed.remove(tile)  # the claimed tile is off the table
            counts = [0] * NUM_KINDS
            for kept in concealed:
                counts[kept] += 1
            self._counts[who] = counts
            self.drawn_tile = None
            self._claim = None


def fold_events(events: Iterable[Mapping[str, Any]], seat: int | None) -> SeatFold:
    """The fold of a hand's events as ``seat`` received them (``events_for(log, seat)``)."""
    fold = SeatFold(seat)
    for event in events:
        fold.apply(event)
    if not fold.started:
        raise FoldError("a view is folded from a hand's events, starting with 'start'")
    return fold
