"""Actions a seat can take, and the errors the engine raises about them.

An action is a small frozen value whose ``str()`` is the scenario notation ``SEAT VERB [TILE]``
(``"0 discard 5p"``, ``"1 pong"``) and ``Action.parse`` reads it back, in the spirit of
python-chess's ``Move.from_uci``.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import SupportsIndex

from duyun.engine.events import ActEvent, ActionName
from duyun.tiles import NotationError, Tile, tile_from_str, tile_to_str


class EngineError(ValueError):
    """Base of the engine's errors."""


class IllegalActionError(EngineError):
    """An action that the rules do not allow in the current state; the message says why."""


class SetupError(EngineError):
    """An impossible starting position (scenario or explicit wall)."""


SEATS = 4
NUM_TILE_KINDS = 27


def _as_index(value: object, what: str, limit: int) -> int:
    """``value`` as an int in ``0 .. limit - 1``, or a clear error naming ``what``.

    Anything with ``__index__`` is accepted as the integer it stands for (numpy integers, as the
    RL environment passes them), so that logs and views only ever hold plain ints. ``bool`` is
    refused although it is an int: ``True`` as a seat is a bug, not seat 1.
    """
    if type(value) is not int:
        if isinstance(value, bool) or not isinstance(value, SupportsIndex):
            shown = repr(value)
            if len(shown) > 40:
                shown = shown[:37] + "..."
            raise TypeError(
                f"{what} must be an integer 0..{limit - 1}, not {type(value).__name__} {shown}"
            )
        value = operator.index(value)
    if not 0 <= value < limit:
        raise EngineError(f"{what} {value} out of range 0..{limit - 1}")
    return value


def as_seat(value: object, what: str = "seat") -> int:
    """A seat number 0..3 (TypeError for a non-integer, EngineError for out of range)."""
    if type(value) is int and 0 <= value < SEATS:
        return value  # the hot path: a plain int in range
    return _as_index(value, what, SEATS)


def as_tile(value: object, what: str = "tile") -> int:
    """A tile kind 0..26 (R1; TypeError for a non-integer, EngineError for out of range)."""
    if type(value) is int and 0 <= value < NUM_TILE_KINDS:
        return value
    return _as_index(value, what, NUM_TILE_KINDS)


class ActionKind(enum.Enum):
    """What a seat does. The value is the scenario verb."""

    DISCARD = "discard"
    BAOTING = "baoting"  # 報聽 declared together with a discard (R25)
    PONG = "pong"  # claim: 碰 (R6)
    KONG = "kong"  # claim: 直槓 on a discard (R6, R12)
    ADDED_KONG = "added_kong"  # 面下槓 (R12)
    CONCEALED_KONG = "concealed_kong"  # 暗槓 (R12)
    HU = "hu"  # 胡: self-draw, on a discard or robbing a kong (R16)
    PASS = "pass"  # 過 (R6)

    # Members are singletons: identity hashing is exact and much cheaper than Enum's default,
    # which matters because actions are hashed and compared on the hot path of self-play.
    __hash__ = object.__hash__

    @property
    def needs_tile(self) -> bool:
        return self in _TILE_KINDS

    @property
    def is_claim(self) -> bool:
        """Answers to a discard or to an added kong's tile."""
        return self in _CLAIM_KINDS


_TILE_KINDS = frozenset(
    {ActionKind.DISCARD, ActionKind.BAOTING, ActionKind.ADDED_KONG, ActionKind.CONCEALED_KONG}
)
_CLAIM_KINDS = frozenset({ActionKind.PONG, ActionKind.KONG, ActionKind.PASS})


@dataclass(frozen=True, slots=True)
class Action:
    """One decision of one seat. ``tile`` is set exactly for the verbs that name a tile."""

    seat: int
    kind: ActionKind
    tile: Tile | None = None

    def __post_init__(self) -> None:
        # frozen: normalised values (numpy integers -> int) are set through object.__setattr__
        seat = self.seat
        if type(seat) is not int or not 0 <= seat < SEATS:
            object.__setattr__(self, "seat", as_seat(seat, "action seat"))
        if not isinstance(self.kind, ActionKind):
            kinds = ", ".join(k.name for k in ActionKind)
            raise TypeError(f"action kind must be an ActionKind ({kinds}), not {self.kind!r:.40}")
        tile = self.tile
        if tile is not None and (type(tile) is not int or not 0 <= tile < NUM_TILE_KINDS):
            object.__setattr__(self, "tile", as_tile(tile, "action tile"))
        if self.kind.needs_tile and self.tile is None:
            raise ValueError(f"{self.kind.value} needs a tile")
        if not self.kind.needs_tile and self.tile is not None:
            raise ValueError(f"{self.kind.value} takes no tile")

    def __str__(self) -> str:
        if self.tile is None:
            return f"{self.seat} {self.kind.value}"
        return f"{self.seat} {self.kind.value} {tile_to_str(self.tile)}"

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read ``"SEAT VERB [TILE]"``; errors name the part that is wrong."""
        if not isinstance(text, str):
            raise TypeError(
                f"an action is a string such as '0 discard 5p', not {type(text).__name__}"
            )
        parts = text.split()
        if len(parts) not in (2, 3):
            raise NotationError(f"action {text!r}: expected 'SEAT VERB [TILE]'")
        seat_text, verb = parts[0], parts[1]
        if seat_text not in ("0", "1", "2", "3"):
            raise NotationError(f"action {text!r}: seat must be 0, 1, 2 or 3, not {seat_text!r}")
        try:
            kind = ActionKind(verb)
        except ValueError:
            verbs = ", ".join(k.value for k in ActionKind)
            raise NotationError(
                f"action {text!r}: unknown verb {verb!r} (one of {verbs})"
            ) from None
        tile: Tile | None = None
        if kind.needs_tile:
            if len(parts) != 3:
                raise NotationError(
                    f"action {text!r}: {verb} needs a tile, e.g. '{seat_text} {verb} 5p'"
                )
            try:
                tile = tile_from_str(parts[2])
            except NotationError as error:
                raise NotationError(f"action {text!r}: {error}") from None
        elif len(parts) == 3:
            raise NotationError(f"action {text!r}: {verb} takes no tile")
        return cls(int(seat_text), kind, tile)

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"seat": self.seat, "action": self.kind.value}
        if self.tile is not None:
            data["tile"] = tile_to_str(self.tile)
        return data


class LegalActions(Sequence[Action]):
    """The legal actions of one seat: iterate it, index it, test ``in``."""

    __slots__ = ("_actions",)

    def __init__(self, actions: Sequence[Action]) -> None:
        self._actions = tuple(actions)

    @property
    def actions(self) -> tuple[Action, ...]:
        """The actions as the tuple they are kept in (iterating it skips a method call)."""
        return self._actions

    def __contains__(self, item: object) -> bool:
        # a linear scan: there are at most a few dozen actions, and most of the time the
        # engine's own cached Action objects are passed back, which match by identity first
        return item in self._actions

    def __iter__(self) -> Iterator[Action]:
        return iter(self._actions)

    def __len__(self) -> int:
        return len(self._actions)

    def __getitem__(self, index: int) -> Action:  # type: ignore[override]
        return self._actions[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalActions):
            return self._actions == other._actions
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._actions)

    def __repr__(self) -> str:
        return f"LegalActions([{', '.join(str(a) for a in self._actions)}])"


def _table(kind: ActionKind) -> tuple[tuple[Action, ...], ...]:
    return tuple(tuple(Action(seat, kind, tile) for tile in range(27)) for seat in range(4))


def _simple(kind: ActionKind) -> tuple[Action, ...]:
    return tuple(Action(seat, kind) for seat in range(4))


# Every possible action, built once: the engine hands these out instead of constructing new
# objects on each call (self-play lists legal actions hundreds of thousands of times).
DISCARD_ACTIONS = _table(ActionKind.DISCARD)
BAOTING_ACTIONS = _table(ActionKind.BAOTING)
ADDED_KONG_ACTIONS = _table(ActionKind.ADDED_KONG)
CONCEALED_KONG_ACTIONS = _table(ActionKind.CONCEALED_KONG)
CLAIM_ACTIONS: dict[ActionKind, tuple[Action, ...]] = {
    kind: _simple(kind)
    for kind in (ActionKind.HU, ActionKind.PONG, ActionKind.KONG, ActionKind.PASS)
}
HU_ACTIONS = CLAIM_ACTIONS[ActionKind.HU]


#: the ``act`` event's name of each kind of action (engine/events.py ``ActionName``)
ACTION_NAMES: dict[ActionKind, ActionName] = {
    ActionKind.DISCARD: "discard",
    ActionKind.BAOTING: "baoting",
    ActionKind.PONG: "pong",
    ActionKind.KONG: "kong",
    ActionKind.ADDED_KONG: "added_kong",
    ActionKind.CONCEALED_KONG: "concealed_kong",
    ActionKind.HU: "hu",
    ActionKind.PASS: "pass",
}


def act_event(action: Action) -> ActEvent:
    """The ``act`` event of ``action``, built through its schema (the same keys, in the same
    order, as ``{"type": "act", **action.to_json()}``)."""
    event: ActEvent = {"type": "act", "seat": action.seat, "action": ACTION_NAMES[action.kind]}
    if action.tile is not None:
        event["tile"] = tile_to_str(action.tile)
    return event


# The ``act`` event of each of the engine's own Action objects (module-level singletons that
# live as long as the process, so their id() is a safe key), built once: a decision copies its
# template instead of serialising the action.
ACT_EVENTS: dict[int, ActEvent] = {
    id(action): act_event(action)
    for table in (DISCARD_ACTIONS, BAOTING_ACTIONS, ADDED_KONG_ACTIONS, CONCEALED_KONG_ACTIONS)
    for seat_actions in table
    for action in seat_actions
}
ACT_EVENTS.update(
    (id(action), act_event(action))
    for seat_actions in CLAIM_ACTIONS.values()
    for action in seat_actions
)
