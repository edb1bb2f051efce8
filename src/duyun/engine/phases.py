"""The small enumerations that describe where a hand stands (shared by the round and views)."""

from __future__ import annotations

import enum


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
