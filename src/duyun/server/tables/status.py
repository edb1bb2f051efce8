"""The status of a table, and the one declared set of changes it may make.

A table is waiting for its seats, playing a hand, between two hands, or ended. Every change
goes through :meth:`~duyun.server.tables.board.Board._move`, which refuses one that is not in
:data:`TRANSITIONS`; tests/server/tables/test_table_state.py reads the code to hold every
change in it to this set, and drives matches through each of them.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    #: seats fill up; the match starts when four sit and every person is ready
    WAITING = "waiting"
    #: a hand is being played (or being dealt: the store is asked for its id)
    PLAYING = "playing"
    #: between two hands: the settlement is shown, the next hand waits for 下一局
    BETWEEN = "between"
    #: the match is over (played out or dissolved); the table is dropped
    ENDED = "ended"


#: every status change a table makes, and nothing else (``TableState._move``)
TRANSITIONS: frozenset[tuple[Status, Status]] = frozenset(
    {
        # four seated and ready: the match starts; or a live match is restored
        (Status.WAITING, Status.PLAYING),
        # a hand settled and more are to be played; or a match restored between hands
        (Status.PLAYING, Status.BETWEEN),
        # the next hand is dealt
        (Status.BETWEEN, Status.PLAYING),
        # the last hand settled
        (Status.PLAYING, Status.ENDED),
        # 解散 between hands; or a restored match whose hands were all played
        (Status.BETWEEN, Status.ENDED),
    }
)


class IllegalTransitionError(AssertionError):
    """A status change :data:`TRANSITIONS` does not declare: a bug."""
