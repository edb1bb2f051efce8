"""The timers of a table, named in one place.

A table runs at most one timer of each key: the hand's decision timer (a claim window, a
person's turn, a bot's think time), the wait for bots to fill a room table, the idle drop of an
empty private table, the wait before the next hand and the settlement's countdown, and one
reconnect grace per seat. Keys are values, not strings assembled where they are used, so a
timer set in one transition and looked up in another cannot be misspelt; ``str()`` gives the
name the logs and the watchdog show (``grace:2``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Timer(StrEnum):
    #: the hand's one timer (server/tables/flow.py): its args say which decision it ends
    DECISION = "decision"
    #: a room table's wait for more people before bots take the free seats
    FILL = "fill"
    #: an empty private table keeps its code this long, then it is dropped
    IDLE = "idle"
    #: the longest wait between hands (``Table.next_hand_limit``)
    NEXT_HAND = "next_hand"
    #: what is left of the settlement's countdown for people a failed process cut off
    COUNTDOWN = "countdown"
    #: a dropped person's reconnect grace (one per seat)
    GRACE = "grace"


@dataclass(frozen=True, slots=True, eq=False)
class TimerKey:
    """One timer of a table. The keys are the constants below (and :func:`grace`), compared
    and hashed by identity: a key is looked up on every move, and identity is the cheapest
    equality there is."""

    timer: Timer
    #: the seat of a per-seat timer (``GRACE``), else None
    seat: int | None = None

    def __str__(self) -> str:
        return self.timer.value if self.seat is None else f"{self.timer.value}:{self.seat}"


DECISION = TimerKey(Timer.DECISION)
FILL = TimerKey(Timer.FILL)
IDLE = TimerKey(Timer.IDLE)
NEXT_HAND = TimerKey(Timer.NEXT_HAND)
COUNTDOWN = TimerKey(Timer.COUNTDOWN)
_GRACES = tuple(TimerKey(Timer.GRACE, seat) for seat in range(4))


def grace(seat: int) -> TimerKey:
    """Seat ``seat``'s reconnect grace."""
    return _GRACES[seat]
