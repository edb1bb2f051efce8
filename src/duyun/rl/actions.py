"""The fixed action space of the RL environment: every engine action as one index 0..111.

A learning agent needs one ``Discrete`` space that does not change from state to state; the
legal subset is given by the observation's ``action_mask``. The layout (also in docs/rl.md):

=========  =====================================================  ============================
index      action                                                 rule
=========  =====================================================  ============================
0..26      discard tile ``index``                                 R5
27..53     declare 報聽 with the discard of tile ``index - 27``    R25
54         pong the tile awaiting claims                          R6
55         direct kong on the discard awaiting claims             R6, R12
56..82     concealed kong of tile ``index - 56``                  R12
83..109    added kong of tile ``index - 83``                      R12
110        win (胡): self-draw, on a discard or robbing a kong     R16
111        pass on a claim                                        R6
=========  =====================================================  ============================

Tiles are the engine's kinds 0..26 (``1m``..``9m``, ``1p``..``9p``, ``1s``..``9s``). The
readable notation of an index is the engine's action notation without the seat
(``"discard 5p"``, ``"pong"``), so ``decode_action`` and ``encode_action`` round-trip and
``"{seat} " + decode_action(i)`` parses with :meth:`duyun.engine.Action.parse`.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Final

import numpy as np
import numpy.typing as npt

from duyun.engine import Action, ActionKind, LegalActions
from duyun.engine.actions import (
    ADDED_KONG_ACTIONS,
    BAOTING_ACTIONS,
    CLAIM_ACTIONS,
    CONCEALED_KONG_ACTIONS,
    DISCARD_ACTIONS,
)
from duyun.tiles import NUM_KINDS, NotationError, tile_from_str, tile_to_str

DISCARD: Final = 0
BAOTING: Final = DISCARD + NUM_KINDS  # 27
PONG: Final = BAOTING + NUM_KINDS  # 54
KONG: Final = PONG + 1  # 55
CONCEALED_KONG: Final = KONG + 1  # 56
ADDED_KONG: Final = CONCEALED_KONG + NUM_KINDS  # 83
HU: Final = ADDED_KONG + NUM_KINDS  # 110
PASS: Final = HU + 1  # 111
NUM_ACTIONS: Final = PASS + 1  # 112

_TILE_BASES: Final[dict[ActionKind, int]] = {
    ActionKind.DISCARD: DISCARD,
    ActionKind.BAOTING: BAOTING,
    ActionKind.CONCEALED_KONG: CONCEALED_KONG,
    ActionKind.ADDED_KONG: ADDED_KONG,
}
_SIMPLE: Final[dict[ActionKind, int]] = {
    ActionKind.PONG: PONG,
    ActionKind.KONG: KONG,
    ActionKind.HU: HU,
    ActionKind.PASS: PASS,
}


class ActionIndexError(ValueError):
    """An action index or notation that is not in the action space; the message says why."""


def _kind_and_tile(index: int) -> tuple[ActionKind, int | None]:
    for kind, base in _TILE_BASES.items():
        if base <= index < base + NUM_KINDS:
            return kind, index - base
    for kind, simple in _SIMPLE.items():
        if index == simple:
            return kind, None
    raise ActionIndexError(f"action index {index} out of range 0..{NUM_ACTIONS - 1}")


# index -> Action for every seat, built once: the environment converts an index on every step
_ACTIONS: Final[tuple[tuple[Action, ...], ...]] = tuple(
    tuple(Action(seat, *_kind_and_tile(index)) for index in range(NUM_ACTIONS)) for seat in range(4)
)
_NAMES: Final[tuple[str, ...]] = tuple(str(action)[2:] for action in _ACTIONS[0])
_BY_NAME: Final[dict[str, int]] = {name: index for index, name in enumerate(_NAMES)}


def check_index(action: object) -> int:
    """``action`` as a plain int in the action space.

    Accepts Python and numpy integers (numpy's are converted with ``int()``, so the engine only
    ever sees plain ints); anything else is a TypeError, an out-of-range value an
    :class:`ActionIndexError`.
    """
    if isinstance(action, np.integer):  # the usual case after np.flatnonzero(mask)
        action = int(action)
    elif isinstance(action, bool) or not isinstance(action, numbers.Integral):
        raise TypeError(
            f"an action is an integer index 0..{NUM_ACTIONS - 1}, not {type(action).__name__} "
            f"{action!r}"
        )
    index = int(action)
    if not 0 <= index < NUM_ACTIONS:
        raise ActionIndexError(f"action index {index} out of range 0..{NUM_ACTIONS - 1}")
    return index


def action_for(index: int, seat: int) -> Action:
    """The engine :class:`Action` of ``seat`` that ``index`` stands for."""
    return _ACTIONS[seat][check_index(index)]


_BASE_OF_KIND: Final[dict[ActionKind, int]] = {**_TILE_BASES, **_SIMPLE}


def index_of(action: Action) -> int:
    """The index of an engine action (any seat).

    Computed from the kind and tile rather than looked up by the action: hashing and comparing
    the action dataclass would cost more than the arithmetic on this hot path; the engine's
    own action objects are looked up by identity first, cheaper still.
    """
    index = _INDEX_BY_ID.get(id(action))
    if index is not None:
        return index
    tile = action.tile
    return _BASE_OF_KIND[action.kind] + (0 if tile is None else tile)


# The engine hands out its own module-level Action objects (one per seat, kind and tile), and
# they live as long as the process: their id() is a safe and cheap key. Any other Action (one a
# caller built) falls back to index_of.
_ENGINE_TABLES: Final = (
    (DISCARD, DISCARD_ACTIONS),
    (BAOTING, BAOTING_ACTIONS),
    (CONCEALED_KONG, CONCEALED_KONG_ACTIONS),
    (ADDED_KONG, ADDED_KONG_ACTIONS),
)
_ENGINE_ACTIONS: Final[tuple[list[Action], ...]] = tuple(list(_ACTIONS[seat]) for seat in range(4))
for _base, _table in _ENGINE_TABLES:
    for _seat in range(4):
        for _tile, _action in enumerate(_table[_seat]):
            _ENGINE_ACTIONS[_seat][_base + _tile] = _action
for _kind, _simple_index in _SIMPLE.items():
    for _seat in range(4):
        _ENGINE_ACTIONS[_seat][_simple_index] = CLAIM_ACTIONS[_kind][_seat]
_INDEX_BY_ID: Final[dict[int, int]] = {
    id(action): index
    for seat_actions in _ENGINE_ACTIONS
    for index, action in enumerate(seat_actions)
}
for _seat in range(4):  # every engine object must stand for the index it is filed under
    for _index, _action in enumerate(_ENGINE_ACTIONS[_seat]):
        if _action != _ACTIONS[_seat][_index]:  # pragma: no cover - an engine table changed
            raise AssertionError(f"engine action {_action} filed under index {_index}")
del _base, _table, _seat, _tile, _action, _kind, _simple_index, _index


_INDEX_OF_ID: Final = _INDEX_BY_ID.__getitem__


def engine_action(index: int, seat: int) -> Action:
    """The engine's own Action object for ``index`` (a plain int in range, unchecked).

    The engine recognises its own objects by identity when it checks legality, so handing it
    this one rather than an equal copy saves comparisons on every step.
    """
    return _ENGINE_ACTIONS[seat][index]


def action_mask(legal: Iterable[Action]) -> npt.NDArray[np.int8]:
    """The ``int8`` mask (1 = legal) of the actions ``legal``: a fresh, writable array."""
    mask = bytearray(NUM_ACTIONS)
    if isinstance(legal, LegalActions):
        legal = legal.actions  # the tuple itself: no Python-level __iter__
    try:  # the engine's own action objects: one C-level dict hit each
        for action in legal:
            mask[_INDEX_OF_ID(id(action))] = 1
    except KeyError:  # an Action built elsewhere: by kind and tile
        for action in legal:
            mask[index_of(action)] = 1
    return np.frombuffer(mask, dtype=np.int8)


def decode_action(index: int) -> str:
    """Readable notation of an action index: ``54`` → ``"pong"``, ``13`` → ``"discard 5p"``."""
    return _NAMES[check_index(index)]


def encode_action(text: str | Action) -> int:
    """The inverse of :func:`decode_action`; also takes an engine :class:`Action`.

    Notation is ``VERB [TILE]`` as in scenarios (``"baoting 3s"``, ``"hu"``); a leading seat
    number (``"2 discard 5p"``) is accepted and ignored, since the index space is per seat.
    """
    if isinstance(text, Action):
        return index_of(text)
    if not isinstance(text, str):
        raise TypeError(f"encode_action takes a str or an Action, not {type(text).__name__}")
    parts = text.split()
    if parts and parts[0] in ("0", "1", "2", "3"):
        parts = parts[1:]
    if not parts or len(parts) > 2:
        raise ActionIndexError(f"action {text!r}: expected 'VERB [TILE]', e.g. 'discard 5p'")
    try:
        kind = ActionKind(parts[0])
    except ValueError:
        verbs = ", ".join(k.value for k in ActionKind)
        raise ActionIndexError(
            f"action {text!r}: unknown verb {parts[0]!r} (one of {verbs})"
        ) from None
    if kind.needs_tile:
        if len(parts) != 2:
            raise ActionIndexError(f"action {text!r}: {kind.value} needs a tile, e.g. '5p'")
        try:
            tile = tile_from_str(parts[1])
        except NotationError as error:
            raise ActionIndexError(f"action {text!r}: {error}") from None
        return _BY_NAME[f"{kind.value} {tile_to_str(tile)}"]
    if len(parts) != 1:
        raise ActionIndexError(f"action {text!r}: {kind.value} takes no tile")
    return _BY_NAME[kind.value]


ACTION_NAMES: Final = _NAMES
"""``ACTION_NAMES[i] == decode_action(i)`` for every index."""
