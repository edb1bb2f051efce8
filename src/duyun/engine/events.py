"""The event schema: one ``TypedDict`` per event the engine emits, the one definition of every
field, and the JSON Schema (draft 2020-12) generated from them.

Every consumer of the event log -- the server's views and replays, the browser's fold
(``static/js/state.js``), the RL encoder (``rl/incremental.py``), the terminal -- reads the
fields defined here; tests hold the engine's events (also as ``events_for`` redacts them for a
seat or a spectator) and those consumers to this schema. docs/protocol.md ("Events") publishes
the generated schema; ``duyun schema`` and ``python -m duyun.engine.events`` print it.

A field's meaning, unit and when it is null are written once, in its ``Annotated`` metadata
(:class:`Field`): :func:`event_schema` turns them into the schema's ``description`` and
constraints. The generator is a few lines over ``typing.get_type_hints`` (the core imports
nothing from outside the standard library).

The schema is that of log version 2 (``EVENT_LOG_VERSION``); version-1 logs, still replayed,
lack ``start.match`` and ``win_refused``.
"""

import json
import sys
import types
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    TypedDict,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class Field:
    """A field's documentation (what it means, its unit, when it is null) and any JSON Schema
    constraints (``minimum``, ``pattern`` ...). Nested ``Annotated`` metadata adds up: the
    outer, more specific text first. Hashable, as ``typing`` needs its metadata to be."""

    __slots__ = ("constraints", "doc")

    def __init__(self, doc: str, **constraints: Any) -> None:
        self.doc = doc
        self.constraints = tuple(constraints.items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Field) and (self.doc, self.constraints) == (
            other.doc,
            other.constraints,
        )

    def __hash__(self) -> int:
        return hash((self.doc, self.constraints))

    def __repr__(self) -> str:
        return f"Field({self.doc!r})"


# ---------------------------------------------------------------- shared field types

Seat = Annotated[int, Field("a seat, 0..3, in play order (R3)", minimum=0, maximum=3)]
TileName = Annotated[
    str,
    Field(
        "a tile in notation: rank 1-9 and suit m (萬), p (筒) or s (條), e.g. '5p' (R1, R2)",
        pattern="^[1-9][mps]$",
    ),
]
SeenTile = Annotated[
    str,
    Field(
        "a tile in notation ('5p'), or '?' where the receiver may not see it (events_for)",
        pattern="^([1-9][mps]|\\?)$",
    ),
]
HandText = Annotated[
    str,
    Field(
        "a hand in notation: the concealed tiles, then the melds in the order made (R2), "
        "e.g. '11m234p [555p] (9999s)'; '' for a seat without tiles"
    ),
]
Points = Annotated[int, Field("points: fan (base units) × the rules' base_points (R40)")]
Fan = Annotated[int, Field("base units (番): the fan of a pattern, R20-R22", minimum=0)]
Auto = Annotated[bool, Field("true when the engine made this move itself (R19, R26), not a seat")]
WinHow = Literal["self_draw", "discard", "rob_kong"]
RefusalRule = Literal["R17", "R9"]  # the rule that refuses a win (RefusedWin.reason)


class RuleOptions(TypedDict):
    """The rule options of the hand (``RuleSet.to_mapping``; docs/rules.md)."""

    pass_blocks_ron: Annotated[bool, Field("R9 過水不胡: a passed win blocks discard wins")]
    dead_waits_count: Annotated[bool, Field("R11 死叫算叫: a wait all of whose copies are seen")]
    dihu_on_discard: Annotated[bool, Field("R20 地胡 also on the dealer's first discard")]
    base_points: Annotated[int, Field("R40 points per fan and per bean unit", minimum=1)]
    escape_penalty_units: Annotated[int, Field("R45 (a) base units an escapee pays", minimum=0)]
    flower_pig: Annotated[bool, Field("R32 花豬: never on (not implemented)")]
    bloody_battle: Annotated[bool, Field("R52-R57 血戰到底: a win does not end the hand")]


class MatchLinkJson(TypedDict):
    """Which match a hand belongs to (checked on replay: no hand missing, repeated or moved)."""

    id: Annotated[str, Field("the match's id", minLength=1)]
    hand: Annotated[int, Field("this hand's number in the match, from 1", minimum=1)]
    hands: Annotated[int, Field("the number of hands the match plays", minimum=1)]


_FROM_SELF_DRAW = Annotated[
    Seat | None, Field("the discarder or the robbed kong's seat; null for a self-draw")
]
_FROM_DISCARDER = Annotated[Seat, Field("the seat whose discard or kong tile it was")]

# "from" is a Python keyword: the TypedDicts that hold it are written in the functional form.
WinRecord = TypedDict(
    "WinRecord",
    {
        "seats": Annotated[list[Seat], Field("the winners, nearest to the discarder first")],
        "how": Annotated[WinHow, Field("self-draw 自摸, a discard 點炮 or a robbed kong 搶槓")],
        "from": _FROM_SELF_DRAW,
    },
)
WinRecord.__doc__ = "One win of a 血戰 hand (R53), in the order the wins happened."


# ---------------------------------------------------------------- the events


class StartEvent(TypedDict):
    """The hand begins: the set-up it was dealt from (R4) and its rules."""

    type: Literal["start"]
    version: Annotated[int, Field("the event log version (EVENT_LOG_VERSION)", minimum=1)]
    rules: Annotated[RuleOptions, Field("the rule options the hand is played by")]
    dealer: Annotated[Seat, Field("the dealer 莊家 (R3)")]
    streak: Annotated[int, Field("the dealer's streak 連莊 count (R36); 0 in 血戰", minimum=0)]
    hands: Annotated[
        list[Annotated[HandText, Field("or '?': another seat's hand, hidden")]],
        Field("each seat's hand as dealt (or as a scenario set it up)", minItems=4, maxItems=4),
    ]
    discards: Annotated[
        list[list[TileName]],
        Field("each seat's river 棄牌 at the start: empty for a fresh deal", minItems=4),
    ]
    baoting: Annotated[list[bool], Field("which seats have declared 報聽 (R25)", minItems=4)]
    turn: Annotated[Seat, Field("the seat to act first (the dealer for a fresh deal)")]
    drawn: Annotated[bool, Field("whether that seat already holds its drawn tile (scenarios)")]
    wall: Annotated[
        list[TileName] | Annotated[int, Field("the wall's length, as redacted", minimum=0)],
        Field("the live wall, front first (kong replacements from the back, R7)"),
    ]
    seed: Annotated[
        int | None,
        Field("the seed the wall was shuffled from; null for an explicit wall or when redacted"),
    ]
    match: NotRequired[
        Annotated[
            MatchLinkJson | None,
            Field("the match this hand belongs to; null outside a match; absent in version 1"),
        ]
    ]


ActionName = Literal[
    "discard",
    "baoting",
    "pong",
    "kong",
    "added_kong",
    "concealed_kong",
    "hu",
    "pass",
    "quit",
    "leave",
]


class ActEvent(TypedDict):
    """A seat's decision, as it was taken (replays re-apply these): the events it caused
    follow. Other seats' claim answers are never shown to a seat (events_for)."""

    type: Literal["act"]
    seat: Annotated[Seat, Field("the deciding seat")]
    action: Annotated[
        ActionName, Field("the verb (Action notation); 'quit' an escape R45, 'leave' R57")
    ]
    tile: NotRequired[Annotated[SeenTile, Field("the tile a discard or kong names")]]


class DrawEvent(TypedDict):
    """A seat draws from the wall (R8), or a kong's replacement from its back (R7)."""

    type: Literal["draw"]
    seat: Annotated[Seat, Field("the drawing seat")]
    tile: Annotated[SeenTile, Field("the tile drawn")]
    replacement: Annotated[bool, Field("a kong's replacement tile 槓上 (R7)")]
    last_four: Annotated[bool, Field("one of the last four tiles: a win is forced (R19)")]


class BaotingEvent(TypedDict):
    """A seat declares 報聽 with this discard (R25); the discard event follows."""

    type: Literal["baoting"]
    seat: Annotated[Seat, Field("the declaring seat")]
    tile: Annotated[TileName, Field("the discard declared with")]


class DiscardEvent(TypedDict):
    """A tile goes to the seat's river; a claim window may open on it (R6)."""

    type: Literal["discard"]
    seat: Annotated[Seat, Field("the discarding seat")]
    tile: Annotated[TileName, Field("the discarded tile")]
    baoting: Annotated[bool, Field("discarded with a 報聽 declaration (R25)")]
    auto: Annotated[Auto, Field("a 報聽 seat's forced discard of its drawn tile (R26)")]


WinRefusedEvent = TypedDict(
    "WinRefusedEvent",
    {
        "type": Literal["win_refused"],
        "seat": Annotated[Seat, Field("the seat refused")],
        "tile": Annotated[
            TileName, Field("the discard or added-kong tile that completes the hand")
        ],
        "from": _FROM_DISCARDER,
        "reason": Annotated[
            RefusalRule,
            Field("R17: 平胡 needs a bean or a 報聽 discarder; R9: the 過水 block"),
        ],
        "pattern": Annotated[str, Field("the basic pattern the win would have scored")],
    },
)
WinRefusedEvent.__doc__ = (
    """Private to its seat: ``tile`` completes its hand but may not win (R17, R9)."""
)


class ClaimEvent(TypedDict):
    """A forced win on a discard or robbed kong (R19, R26), announced as its window resolves."""

    type: Literal["claim"]
    seat: Annotated[Seat, Field("the seat that must win")]
    claim: Annotated[Literal["hu"], Field("the claim: a win")]
    auto: Annotated[Auto, Field("always true: nobody chose it")]


PongEvent = TypedDict(
    "PongEvent",
    {
        "type": Literal["pong"],
        "seat": Annotated[Seat, Field("the claiming seat")],
        "tile": Annotated[TileName, Field("the ponged tile")],
        "from": _FROM_DISCARDER,
    },
)
PongEvent.__doc__ = """A seat pongs 碰 a discard (R6, R7): it then discards without drawing."""


KongEvent = TypedDict(
    "KongEvent",
    {
        "type": Literal["kong"],
        "seat": Annotated[Seat, Field("the seat making the kong")],
        "kind": Annotated[
            Literal["direct_kong", "added_kong", "concealed_kong"],
            Field("直槓 on a discard, 面下槓 on an own pong, 暗槓 of four held tiles"),
        ],
        "tile": Annotated[SeenTile, Field("the kong's tile ('?': another seat's concealed kong)")],
        "from": NotRequired[Annotated[Seat, Field("a direct kong only: the discarder")]],
    },
)
KongEvent.__doc__ = """A kong 槓 is made (R12): a bean payment and a replacement draw follow."""


class PaymentEvent(TypedDict):
    """One ledger row: ``payer`` pays ``payee`` (R12, R28-R31, R36-R45)."""

    type: Literal["payment"]
    payer: Annotated[Seat, Field("the paying seat")]
    payee: Annotated[Seat, Field("the paid seat")]
    fan: Annotated[Fan, Field("the row's base units: a win's or 查大叫's fan, a bean's units")]
    points: Points
    rule: Annotated[str, Field("the rule the row applies, e.g. 'R29'", pattern="^R[0-9]+$")]
    reason: Annotated[str, Field("a short text for people, e.g. '自摸 平胡'")]


WinEvent = TypedDict(
    "WinEvent",
    {
        "type": Literal["win"],
        "seat": Annotated[Seat, Field("the winner")],
        "how": Annotated[WinHow, Field("self_draw 自摸, discard 點炮, rob_kong 搶槓")],
        "from": _FROM_SELF_DRAW,
        "tile": Annotated[
            TileName | None,
            Field("the winning tile; null for a self-drawn win on the hand as dealt (天胡)"),
        ],
        "pattern": Annotated[str, Field("the pattern scored (R20-R22), e.g. '平胡', '清一色'")],
        "fan": Fan,
        "extras": Annotated[
            list[Literal["槓上花", "槓上炮"]],
            Field("bonuses beside the pattern: 槓上花 R21, 槓上炮 R28"),
        ],
        "auto": Annotated[Auto, Field("a forced win (R19, R26)")],
        "hand": Annotated[HandText, Field("the winner's whole hand, winning tile included")],
    },
)
WinEvent.__doc__ = """A seat wins 胡 (R16): by self-draw, on a discard, or by robbing a kong."""


class ExhaustiveDrawEvent(TypedDict):
    """The wall is empty (R30): 查大叫 and refunds follow as payments."""

    type: Literal["exhaustive_draw"]
    ready: Annotated[
        list[bool | None],
        Field("per seat: ready 聽牌 at the end (R30); null for a 血戰 winner", minItems=4),
    ]


class EscapeEvent(TypedDict):
    """A seat quits or times out (R45): the hand ends; the penalty's payments follow."""

    type: Literal["escape"]
    seat: Annotated[Seat, Field("the escapee")]
    penalty: Annotated[
        Literal["flat", "da_jiao"],
        Field("which R45 penalty was larger: (a) flat units, (b) 查大叫 near the end"),
    ]


class LeaveEvent(TypedDict):
    """A 血戰 winner leaves the table (R57); the hand goes on."""

    type: Literal["leave"]
    seat: Annotated[Seat, Field("the seat that left")]


class EndEvent(TypedDict):
    """The hand is over: its result and what it means for the next hand (R35, R36, R53)."""

    type: Literal["end"]
    result: Annotated[Literal["win", "draw", "escape"], Field("how the hand ended")]
    winners: Annotated[list[Seat], Field("the winners; in a 血戰 room in order of winning")]
    win_kind: Annotated[WinHow | None, Field("how the (first) win was made; null without one")]
    loser: Annotated[
        Seat | None,
        Field("the discarder or robbed seat of the (first) win, or the escapee; else null"),
    ]
    totals: Annotated[list[Points], Field("each seat's net points for the hand", minItems=4)]
    next_dealer: Annotated[Seat, Field("who deals the next hand (R35, R55)")]
    next_streak: Annotated[int, Field("the next hand's streak (R36; 0 in 血戰)", minimum=0)]
    hands: Annotated[list[HandText], Field("every seat's hand, shown at the end", minItems=4)]
    wins: NotRequired[Annotated[list[WinRecord], Field("血戰 only: every win, in order")]]
    left: NotRequired[Annotated[list[bool], Field("血戰 only: who left the table (R57)")]]


# Every event the engine emits, by its ``type``.
EVENT_CLASSES: tuple[type, ...] = (
    StartEvent,
    ActEvent,
    DrawEvent,
    BaotingEvent,
    DiscardEvent,
    WinRefusedEvent,
    ClaimEvent,
    PongEvent,
    KongEvent,
    PaymentEvent,
    WinEvent,
    ExhaustiveDrawEvent,
    EscapeEvent,
    LeaveEvent,
    EndEvent,
)

Event = Union[  # noqa: UP007 - a runtime Union of TypedDicts, for isinstance-free narrowing
    StartEvent,
    ActEvent,
    DrawEvent,
    BaotingEvent,
    DiscardEvent,
    WinRefusedEvent,
    ClaimEvent,
    PongEvent,
    KongEvent,
    PaymentEvent,
    WinEvent,
    ExhaustiveDrawEvent,
    EscapeEvent,
    LeaveEvent,
    EndEvent,
]


# ---------------------------------------------------------------- the JSON Schema generator


def _fields(cls: type) -> dict[str, tuple[Any, bool]]:
    """A TypedDict's fields in declaration order: name -> (type, required)."""
    hints = get_type_hints(cls, include_extras=True)
    required_keys: frozenset[str] = cls.__required_keys__  # type: ignore[attr-defined]
    found = {name: (hint, name in required_keys) for name, hint in hints.items()}
    return found


def _unwrap_required(hint: Any) -> tuple[Any, bool | None]:
    origin = get_origin(hint)
    if origin is NotRequired:
        return get_args(hint)[0], False
    if origin is Required:
        return get_args(hint)[0], True
    return hint, None


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if value is None:
        return "null"
    return "string"


class _Generator:
    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}

    def schema(self, hint: Any) -> dict[str, Any]:
        hint, _ = _unwrap_required(hint)
        origin = get_origin(hint)
        if origin is Annotated:
            base, *metadata = get_args(hint)
            inner = self.schema(base)
            docs = [m.doc for m in reversed(metadata) if isinstance(m, Field)]
            result = dict(inner)
            for meta in metadata:
                if isinstance(meta, Field):
                    result.update(dict(meta.constraints))
            if docs:
                known = inner.get("description")
                text = "; ".join(docs + ([known] if known else []))
                result.pop("description", None)
                result = {"description": text, **result}
            return result
        if origin is Literal:
            values = list(get_args(hint))
            kinds = sorted({_json_type(v) for v in values})
            typed: dict[str, Any] = {"type": kinds[0] if len(kinds) == 1 else kinds}
            if len(values) == 1:
                return {**typed, "const": values[0]}
            return {**typed, "enum": values}
        if origin in (Union, types.UnionType):
            parts = [self.schema(arg) for arg in get_args(hint)]
            if all(set(part) == {"type"} for part in parts):
                return {"type": [part["type"] for part in parts]}
            return {"anyOf": parts}
        if origin is list:
            (item,) = get_args(hint)
            return {"type": "array", "items": self.schema(item)}
        if is_typeddict(hint):
            name = hint.__name__
            if name not in self.defs:
                self.defs[name] = {}  # reserved before recursing
                self.defs[name] = self.object_schema(hint)
            return {"$ref": f"#/$defs/{name}"}
        if origin is dict:  # a mapping of names to values, e.g. the rules' options
            _, value = get_args(hint)
            return {"type": "object", "additionalProperties": self.schema(value)}
        simple = {
            bool: "boolean",
            int: "integer",
            float: "number",
            str: "string",
            type(None): "null",
        }
        if hint in simple:
            return {"type": simple[hint]}
        raise TypeError(f"JSON Schema generator: no JSON Schema for {hint!r}")

    def object_schema(self, cls: type) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        for name, (hint, is_required) in _fields(cls).items():
            properties[name] = self.schema(hint)
            if is_required:
                required.append(name)
        doc = " ".join((cls.__doc__ or "").split())
        return {
            "description": doc,
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }


def one_of_schema(classes: tuple[type, ...], title: str, description: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a value that is exactly one of ``classes``
    (TypedDicts told apart by their ``type`` literal), with every nested TypedDict in
    ``$defs``. The server's messages (``duyun.server.schema``) are described by the same
    generator, so an event inside a message is the same definition as in the log."""
    generator = _Generator()
    refs = [generator.schema(cls) for cls in classes]
    return {
        "$schema": SCHEMA_DIALECT,
        "title": title,
        "description": description,
        "oneOf": refs,
        "$defs": dict(sorted(generator.defs.items())),
    }


def event_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one event of the engine's log, generated from the
    TypedDicts above: an event is exactly one of them, told apart by ``type``."""
    return one_of_schema(
        EVENT_CLASSES,
        "Duyun engine event",
        "One event of a hand's log (duyun.engine, log version 2), as the engine writes it "
        "or as events_for redacts it for a seat or a spectator.",
    )


def types_by_name(classes: tuple[type, ...]) -> dict[str, type]:
    """Each TypedDict of ``classes`` by the value of its ``type`` literal."""
    found: dict[str, type] = {}
    for cls in classes:
        hint = get_type_hints(cls)["type"]
        (name,) = get_args(hint)
        found[name] = cls
    return found


def event_types() -> dict[str, type]:
    """Every event ``type`` the engine emits, with its TypedDict."""
    return types_by_name(EVENT_CLASSES)


def schema_text() -> str:
    """:func:`event_schema` as published in docs/protocol.md: indented JSON, then a newline."""
    return json.dumps(event_schema(), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    sys.stdout.write(schema_text())
    return 0


__all__ = [
    "EVENT_CLASSES",
    "ActEvent",
    "BaotingEvent",
    "ClaimEvent",
    "DiscardEvent",
    "DrawEvent",
    "EndEvent",
    "EscapeEvent",
    "Event",
    "ExhaustiveDrawEvent",
    "Field",
    "KongEvent",
    "LeaveEvent",
    "PaymentEvent",
    "PongEvent",
    "StartEvent",
    "WinEvent",
    "WinRefusedEvent",
    "event_schema",
    "event_types",
    "one_of_schema",
    "schema_text",
    "types_by_name",
]

if __name__ == "__main__":
    raise SystemExit(main())
