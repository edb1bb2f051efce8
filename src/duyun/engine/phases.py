"""The small enumerations that describe where a hand stands (shared by the round and views),
and the values that say how it ended."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from duyun.engine.actions import ActionKind, LegalActions
from duyun.engine.ledger import Payment, net_points
from duyun.tiles import Tile

SEATS = 4


class Phase(enum.Enum):
    TURN = "turn"  # the current seat holds 3k+2 tiles and must act
    CLAIMS = "claims"  # a discard or an added kong's tile awaits answers
    ENDED = "ended"

    # Members are singletons compared by identity: identity hashing is exact and much cheaper
    # than Enum's default (a Python-level hash of the name), for lookups on the hot path.
    __hash__ = object.__hash__


class TurnKind(enum.Enum):
    """How the current seat came to hold 3k+2 tiles; it decides what they may do."""

    INITIAL = "initial"  # dealer's first turn (or a scenario's seat that did not draw)
    DRAW = "draw"
    REPLACEMENT = "replacement"  # after a kong (R7)
    PONG = "pong"  # after a pong: discard only (R7)

    __hash__ = object.__hash__  # as Phase


class ClaimSource(enum.Enum):
    DISCARD = "discard"
    ADDED_KONG = "added_kong"  # 搶槓 window (R13)

    __hash__ = object.__hash__  # as Phase


class WinKind(enum.Enum):
    SELF_DRAW = "self_draw"  # 自摸 (R16, R29)
    DISCARD = "discard"  # 點炮 (R16, R28)
    ROB_KONG = "rob_kong"  # 搶槓 (R13, R29)

    __hash__ = object.__hash__  # as Phase


@dataclass(slots=True)
class ClaimWindow:
    """A discard or an added kong's tile awaiting claims: who may answer what, who must win
    (R19, R26), and the answers so far."""

    source: ClaimSource
    from_seat: int
    tile: Tile
    last_four: bool
    gang_shang_pao: bool
    options: dict[int, tuple[ActionKind, ...]]
    forced: list[int]
    answers: dict[int, ActionKind] = field(default_factory=dict)
    legal: dict[int, LegalActions] = field(default_factory=dict)  # built on first request

    def copy(self) -> ClaimWindow:
        """An independent window: its answers and legal caches change as seats answer."""
        return ClaimWindow(
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
            ClaimWindow,
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
class Win:
    """One win of a hand: its winners (several for a 一炮多響 or a double 搶槓, nearest to the
    discarder first), how, and the discarder or robbed kong player (None for 自摸)."""

    seats: tuple[int, ...]
    kind: WinKind
    from_seat: int | None

    def to_json(self) -> dict[str, Any]:
        return {"seats": list(self.seats), "how": self.kind.value, "from": self.from_seat}

    def __reduce__(self) -> tuple[Any, ...]:
        # the compiled dataclass has no argument-free constructor for pickle's default
        return (Win, (self.seats, self.kind, self.from_seat))


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
        return (  # as Win.__reduce__
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


def hand_result(
    result: str,
    winners: tuple[int, ...],
    win_kind: WinKind | None,
    loser: int | None,
    *,
    wins: tuple[Win, ...],
    winners_in_order: tuple[int, ...],
    dealer: int,
    streak: int,
    bloody: bool,
    ledger: tuple[Payment, ...],
) -> HandResult:
    """How a hand ended and who deals next: R35, R36; in a 血戰 room R53 and R55."""
    first = wins[0] if wins else None
    if bloody:
        # R53: "escape" when an escape ended it, else "win" when anyone won, else "draw"
        winners = winners_in_order
        if first is not None:
            win_kind = first.kind
            if result != "escape":
                result, loser = "win", first.from_seat
    if (bloody and first is not None) or result == "win":
        assert first is not None
        # R35, R55: the (first) winner; after a multiple win, the discarder
        next_dealer = first.seats[0] if len(first.seats) == 1 else first.from_seat
    elif result == "escape":
        next_dealer = (dealer + 1) % SEATS if loser == dealer else dealer
    else:
        next_dealer = dealer
    assert next_dealer is not None
    # R36; R55: no streak in a 血戰 room
    kept = next_dealer == dealer and not bloody
    next_streak = streak + 1 if kept else 0
    totals = tuple(net_points(ledger))
    return HandResult(
        result, winners, win_kind, loser, ledger, totals, next_dealer, next_streak, wins
    )


def leak_forced_wins_v1(
    options: dict[int, tuple[ActionKind, ...]],
    forced: list[int],
    events: list[dict[str, Any]],
) -> dict[int, tuple[ActionKind, ...]]:
    """How version 1 logs were written (leaky), for their replays: forced wins announced at
    once, the others left only "hu" or "pass". Since version 2 nobody learns of a forced win
    before the window resolves: the others keep every option, so neither their choices nor the
    pause tell that someone holds the winning tile; the forced win beats any pong or kong (R6).
    """
    for seat in forced:
        events.append({"type": "claim", "seat": seat, "claim": "hu", "auto": True})
    return {
        s: tuple(k for k in kinds if k in (ActionKind.HU, ActionKind.PASS))
        for s, kinds in options.items()
        if ActionKind.HU in kinds
    }
