"""The websocket protocol (docs/protocol.md): typed client messages and what seats are sent.

Client messages are validated with pydantic into one model per ``type``; anything else becomes a
:class:`ProtocolError` with a code from docs/protocol.md and a message naming what is wrong, so
the server answers bad input with a clear error and never a traceback.

The seat's VIEW is folded from the events the seat has been sent (:func:`fold_view`), not read
from the engine: during a claim window the engine may already be ahead of what the table has
released (a discard nobody could claim is followed at once by the next draw inside the engine),
and a view read from it then would tell that nobody could claim. Folding the released events
can never show more than the events do.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from duyun.engine import Action, ActionKind, LegalActions, SeatView
from duyun.engine.fold import fold_events
from duyun.engine.view import RefusedWin
from duyun.tiles import NotationError, tile_from_str, tile_to_str

PROTOCOL_VERSION = 1

REACTIONS: tuple[tuple[str, str], ...] = (
    ("hello", "你好！"),
    ("nice", "好牌！"),
    ("hurry", "快點吧～"),
    ("oops", "哎呀！"),
    ("thanks", "謝謝"),
    ("again", "再來一局"),
)
REACTION_TEXT = dict(REACTIONS)


class ProtocolError(ValueError):
    """A message the server refuses: ``code`` is the protocol error code (docs/protocol.md)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


#: the largest integer a JavaScript client reads exactly (Number.MAX_SAFE_INTEGER): a ``rid`` or
#: ``t`` beyond it would come back to a browser as a different number
SAFE_INT = 2**53 - 1
SafeInt = Annotated[int, Field(ge=-SAFE_INT, le=SAFE_INT)]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    rid: Annotated[str, Field(max_length=64)] | SafeInt | None = None


class Hello(_Message):
    type: Literal["hello"]
    version: int
    token: str = Field(max_length=1024)


class QuickMatch(_Message):
    type: Literal["quick_match"]
    room: str = Field(max_length=64)


class Join(_Message):
    type: Literal["join"]
    code: str = Field(pattern=r"^[0-9]{6}$")


class Sit(_Message):
    type: Literal["sit"]
    seat: int = Field(ge=0, le=3)


class Leave(_Message):
    type: Literal["leave"]


class Ready(_Message):
    type: Literal["ready"]
    ready: bool = True


class AddBot(_Message):
    type: Literal["add_bot"]
    seat: int = Field(ge=0, le=3)
    bot: str | None = Field(default=None, max_length=32)


class RemoveBot(_Message):
    type: Literal["remove_bot"]
    seat: int = Field(ge=0, le=3)


class Start(_Message):
    type: Literal["start"]


class Act(_Message):
    type: Literal["act"]
    action: Literal[
        "discard", "baoting", "pong", "kong", "added_kong", "concealed_kong", "hu", "pass"
    ]
    tile: str | None = Field(default=None, max_length=4)
    seat: int | None = None
    prompt: int | None = None


class Tuoguan(_Message):
    type: Literal["tuoguan"]
    on: bool


class Reaction(_Message):
    type: Literal["reaction"]
    id: str = Field(max_length=32)


class Dissolve(_Message):
    type: Literal["dissolve"]
    agree: bool


class Spectate(_Message):
    type: Literal["spectate"]
    code: str = Field(pattern=r"^[0-9]{6}$")


class Unspectate(_Message):
    type: Literal["unspectate"]


class Ping(_Message):
    type: Literal["ping"]
    t: (
        SafeInt
        | Annotated[float, Field(allow_inf_nan=False)]
        | Annotated[str, Field(max_length=256)]
        | None
    ) = None


ClientMessage = (
    Hello
    | QuickMatch
    | Join
    | Sit
    | Leave
    | Ready
    | AddBot
    | RemoveBot
    | Start
    | Act
    | Tuoguan
    | Reaction
    | Dissolve
    | Spectate
    | Unspectate
    | Ping
)

_MODELS: dict[str, type[_Message]] = {
    model.model_fields["type"].annotation.__args__[0]: model  # type: ignore[union-attr]
    for model in (
        Hello,
        QuickMatch,
        Join,
        Sit,
        Leave,
        Ready,
        AddBot,
        RemoveBot,
        Start,
        Act,
        Tuoguan,
        Reaction,
        Dissolve,
        Spectate,
        Unspectate,
        Ping,
    )
}
MESSAGE_TYPES: tuple[str, ...] = tuple(_MODELS)
_ANY_JSON: TypeAdapter[Any] = TypeAdapter(Any)


class _NotPlainJSON(Exception):
    """A JSON value a strict parser (and a browser's ``JSON.parse``) refuses: NaN, Infinity, a
    number too large for a double. Not a ValueError, so that it is told apart from bad syntax."""


def _refuse_constant(name: str) -> Any:
    raise _NotPlainJSON(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotPlainJSON(f"the number {text[:40]} is too large")
    return value


def _lone_surrogate(value: Any) -> bool:
    """Whether a string anywhere in ``value`` holds a lone UTF-16 surrogate (``"\\ud800"``):
    JSON allows the escape, but such a string cannot be written as UTF-8, so echoing it (a
    ``pong``, an error naming a value) would fail to send and drop the connection."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def load_json(text: str | bytes) -> Any:
    """Parse one client message as plain JSON, or raise :class:`ProtocolError`.

    Plain means what every JSON parser reads the same way: no NaN/Infinity (Python's json
    accepts them, browsers do not), no number that overflows a double, no lone surrogate, and
    nesting the parser can follow (a 4,000-deep array under the size limit otherwise raises
    RecursionError, which would end the connection instead of answering it).
    """
    if isinstance(text, bytes):
        raise ProtocolError(
            "bad_json", "binary frames are not read: send each message as a text frame"
        )
    try:
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except _NotPlainJSON as error:
        raise ProtocolError("bad_message", f"not plain JSON: {error}") from None
    except RecursionError:
        raise ProtocolError("bad_json", "not JSON this server reads: nested too deeply") from None
    except ValueError as error:
        raise ProtocolError("bad_json", f"not JSON: {error}") from None
    if _lone_surrogate(data):
        raise ProtocolError(
            "bad_message", "a string holds a lone UTF-16 surrogate (not valid Unicode text)"
        )
    return data


def parse_client_message(text: str | bytes) -> _Message:
    """Parse and validate one client message, or raise :class:`ProtocolError`."""
    data = load_json(text)
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "a message must be a JSON object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message needs a string field 'type'")
    model = _MODELS.get(kind)
    if model is None:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {kind[:40]!r}; known: {', '.join(_MODELS)}",
        )
    try:
        return model.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'message'}: {e['msg']}"
            for e in error.errors()[:3]
        )
        raise ProtocolError("bad_message", f"{kind}: {problems}") from None


def message_rid(text: str | bytes) -> str | int | None:
    """The ``rid`` of a message that failed validation, if it can be read at all."""
    if isinstance(text, bytes):
        return None
    try:  # leniently: the message may have been refused for a value elsewhere in it
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    rid = data.get("rid") if isinstance(data, dict) else None
    if isinstance(rid, bool) or not isinstance(rid, str | int):
        return None
    if isinstance(rid, int):
        return rid if -SAFE_INT <= rid <= SAFE_INT else None
    return rid if len(rid) <= 64 and not _lone_surrogate(rid) else None


def action_from_message(message: Act, seat: int) -> Action:
    """The engine action an ``act`` message asks for (the seat is the connection's own)."""
    kind = ActionKind(message.action)
    if kind.needs_tile:
        if message.tile is None:
            raise ProtocolError("bad_message", f"act: {kind.value} needs a 'tile', e.g. '5p'")
        try:
            tile = tile_from_str(message.tile)
        except NotationError as error:
            raise ProtocolError("bad_message", f"act: tile: {error}") from None
        return Action(seat, kind, tile)
    if message.tile is not None:
        raise ProtocolError("bad_message", f"act: {kind.value} takes no 'tile'")
    return Action(seat, kind)


def legal_to_json(legal: Iterable[Action]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for action in legal:
        item: dict[str, Any] = {"action": action.kind.value}
        if action.tile is not None:
            item["tile"] = tile_to_str(action.tile)
        out.append(item)
    return out


def error_message(code: str, message: str, rid: str | int | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if rid is not None:
        data["rid"] = rid
    return data


# --------------------------------------------------------------------------- views


def view_to_json(view: SeatView) -> dict[str, Any]:
    """An engine SeatView as the protocol's VIEW (without ``legal``; that is the prompt)."""
    return {
        "seat": view.seat,
        "dealer": view.dealer,
        "streak": view.streak,
        "phase": view.phase,
        "current": view.current,
        "wall_remaining": view.wall_remaining,
        "hand": [tile_to_str(t) for t in view.hand],
        "drawn_tile": None if view.drawn_tile is None else tile_to_str(view.drawn_tile),
        "concealed_sizes": list(view.concealed_sizes),
        "melds": [
            [
                {"kind": m.kind.value, "tile": None if m.tile is None else tile_to_str(m.tile)}
                for m in melds
            ]
            for melds in view.melds
        ],
        "rivers": [[tile_to_str(t) for t in river] for river in view.rivers],
        "baoting": list(view.baoting),
        "has_bean": list(view.has_bean),
        "claim_tile": None if view.claim_tile is None else tile_to_str(view.claim_tile),
        "claim_from": view.claim_from,
        "claim_is_rob": view.claim_is_rob,
        "payments": [p.to_json() for p in view.payments],
        "points": list(view.points),
        "refused_win": None if view.refused_win is None else _refused_json(view.refused_win),
        # 血戰 rooms (R53-R57); in a normal room nobody is ever marked won and no hand opens
        "won": list(view.won),
        "left": list(view.left),
        "in_hand": list(view.in_hand),
        "open_hands": [[tile_to_str(t) for t in tiles] for tiles in view.open_hands],
        "win_tiles": [None if t is None else tile_to_str(t) for t in view.win_tiles],
        "off_table": [tile_to_str(t) for t in view.off_table],
    }


def _refused_json(refused: RefusedWin) -> dict[str, Any]:
    """A refused win (R17, R9) as the ``win_refused`` event tells it."""
    return {
        "tile": tile_to_str(refused.tile),
        "from": refused.from_seat,
        "reason": refused.reason,
        "pattern": refused.pattern,
    }


def fold_view(events: Sequence[dict[str, Any]], seat: int | None) -> dict[str, Any]:
    """The VIEW of ``seat`` (None: a spectator) built from the events it was sent.

    ``events`` must already be redacted for ``seat`` (``events_for``). The engine's fold
    (:class:`duyun.engine.fold.SeatFold`) holds every rule of it; this only writes it as JSON.
    Equal to ``view_to_json(round.view(seat))`` whenever the table has released every event of
    the round (tests check this over whole hands).
    """
    data = view_to_json(fold_events(events, seat).view())  # FoldError: a ValueError
    data["seat"] = seat  # a spectator's view is written from seat 0's chair
    return data


def legal_of(legal: LegalActions) -> list[dict[str, Any]]:
    return legal_to_json(legal)


__all__ = [
    "MESSAGE_TYPES",
    "PROTOCOL_VERSION",
    "REACTIONS",
    "REACTION_TEXT",
    "Act",
    "AddBot",
    "ClientMessage",
    "Dissolve",
    "Hello",
    "Join",
    "Leave",
    "Ping",
    "ProtocolError",
    "QuickMatch",
    "Reaction",
    "Ready",
    "RemoveBot",
    "Sit",
    "Spectate",
    "Start",
    "Tuoguan",
    "Unspectate",
    "action_from_message",
    "error_message",
    "fold_view",
    "legal_to_json",
    "load_json",
    "message_rid",
    "parse_client_message",
    "view_to_json",
]
