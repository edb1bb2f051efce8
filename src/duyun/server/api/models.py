"""The REST bodies, both ways: what every request body shares, and a model of every answer.

The routes return their answers through these models (``response_model`` of each route), so
an answer that does not fit its model is a server fault the tests see (``500 internal``), never
an answer that quietly differs from /openapi.json, which FastAPI generates from the same models
(docs/protocol.md "REST": /openapi.json is the contract). Answers keep the fields a route gives
and no others (``extra="forbid"``); a field that only some answers carry has a default and the
route leaves it out when it does not apply (``response_model_exclude_unset``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, GetJsonSchemaHandler, Strict
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from duyun.server.store.types import AccountKind, CoinKind, HandStatus, MatchKind, MatchStatus


class _StrictInteger:
    """Marks an integer of a JSON body in the schema as ``x-strict``: JSON Schema counts ``8.0``
    as an integer, but the server refuses it (a number with a fraction or exponent is not read
    as an integer, issue 20 item 8), and the schema has no other way to say so."""

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema["x-strict"] = True
        return schema


#: an integer of a request or answer body: ``8`` only, never ``8.0``, ``"8"`` or ``true``
Int = Annotated[int, Strict(), _StrictInteger()]


class Body(BaseModel):
    """Strict: a stake ``"5"`` or bots_allowed ``"no"`` is refused naming the field, never
    converted (issue 20 item 8); an unknown field is refused too."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Answer(BaseModel):
    """An answer body: exactly its declared fields, each of its declared type."""

    model_config = ConfigDict(extra="forbid", strict=True)


# ------------------------------------------------------------------ rules (duyun.rules.RuleSet)


class Rules(Answer):
    """Every rule option of :class:`duyun.rules.RuleSet` (docs/rules.md) with its value;
    tests/server/api/test_openapi.py holds the two to the same fields and types."""

    pass_blocks_ron: bool
    dead_waits_count: bool
    dihu_on_discard: bool
    base_points: Int = Field(ge=1)
    escape_penalty_units: Int = Field(ge=0)
    flower_pig: Literal[False]
    bloody_battle: bool


# ------------------------------------------------------------------ accounts


class AccountAnswer(Answer):
    id: Int
    name: str
    kind: AccountKind
    balance: Int
    rating: Int


class Session(Answer):
    token: str
    account: AccountAnswer


class LoggedOut(Answer):
    logged_out: Literal[True]
    everywhere: bool


class InPlay(Answer):
    """A match in play where the account holds a seat (``GET /api/me`` ``in_play``)."""

    code: str
    match_id: Int | None
    seat: Int
    hand_index: Int
    hands: Int
    stake: Int
    room: str | None
    seated: bool
    tuoguan: bool
    escaped: bool
    may_return: bool
    coins: Int


class Me(AccountAnswer):
    table: str | None
    in_play: list[InPlay]


# ------------------------------------------------------------------ rooms and tables


class Room(Answer):
    id: str
    name: str
    stake: Int
    entry: Int
    hands: Int
    rules: Rules
    claim_pause: Literal["natural", "fixed"]


class TableSummary(Answer):
    code: str
    kind: MatchKind
    room: str | None
    stake: Int
    hands: Int
    rules: Rules
    bots_allowed: bool
    bot: str
    spectators_allowed: bool
    claim_pause: Literal["natural", "fixed"]
    rated: bool
    status: str
    seated: Int
    humans: Int
    hand_index: Int
    spectators: Int
    #: with several processes: the public address of the process holding the table
    url: str | None = None


class Lobby(Answer):
    tables: list[TableSummary]
    playing: list[TableSummary]


class Reaction(Answer):
    id: str
    text: str


class BotLevel(Answer):
    level: str
    bot: str
    label: str
    label_zh: str


class CreatedTable(Answer):
    code: str
    invite: str
    table: TableSummary


# ------------------------------------------------------------------ records


class HandRecordAnswer(Answer):
    hand_id: Int
    index: Int
    #: null while the hand is played: its seed would deal it again
    seed: Int | None
    dealer: Int
    streak: Int
    status: HandStatus
    result: dict[str, Any] | None
    coins: list[Int]
    finished: str | None
    replay: str | None


class MatchRecordAnswer(Answer):
    match_id: Int
    kind: MatchKind
    room: str
    code: str | None
    stake: Int
    hands: Int
    status: MatchStatus
    reason: str | None
    created: str
    finished: str | None
    seat: Int
    seat_names: list[str]
    hand_records: list[HandRecordAnswer]
    coins: Int


class History(Answer):
    matches: list[MatchRecordAnswer]


class CoinRowAnswer(Answer):
    id: Int
    payer: Int
    payee: Int
    coins: Int
    requested: Int
    cut: Int
    kind: CoinKind
    rule: str
    note: str
    hand_id: Int | None
    created: str


class Ledger(Answer):
    balance: Int
    rows: list[CoinRowAnswer]


class HandLogAnswer(Answer):
    hand_id: Int
    match_id: Int
    index: Int
    stake: Int
    seats: list[str]
    events: list[dict[str, Any]]
    result: dict[str, Any] | None


class ReviewStatus(Answer):
    """docs/protocol.md "Reviews" REVIEW_STATUS: the fields after ``status`` are those of
    that status only."""

    hand_id: Int
    seat: Int
    status: Literal["none", "queued", "running", "done", "failed"]
    done: Int | None = None
    total: Int | None = None
    ahead: Int | None = None
    review: dict[str, Any] | None = None
    reason: str | None = None


# ------------------------------------------------------------------ players (issue 32)


class Bonus(Answer):
    kind: Literal["gift", "topup"]
    coins: Int
    available: bool
    left: Int
    next: str | None
    reason: str | None


class Bonuses(Answer):
    balance: Int
    bonuses: list[Bonus]


class Claimed(Answer):
    kind: Literal["gift", "topup"]
    coins: Int
    balance: Int
    ledger_id: Int


class BoardLine(Answer):
    place: Int
    account_id: Int
    name: str
    value: Int


class Leaderboard(Answer):
    board: Literal["rating", "weekly"]
    #: ``weekly`` only: when the week began
    since: str | None = None
    top: list[BoardLine]
    own: BoardLine | None


class BiggestWin(Answer):
    hand_id: Int
    match_id: Int
    pattern: str
    fan: Int
    coins: Int


class RatingPoint(Answer):
    match_id: Int
    rating: Int
    change: Int
    place: Int
    at: str


class ProfileAnswer(Answer):
    id: Int
    name: str
    kind: AccountKind
    #: one's own profile only
    balance: Int | None = None
    rating: Int
    rated_matches: Int
    matches: Int
    hands: Int
    hands_won: Int
    win_rate: float | None
    biggest_win: BiggestWin | None
    history: list[RatingPoint]
    recent: list[MatchRecordAnswer]


class BotRatings(Answer):
    bots: dict[str, Int]


class Health(Answer):
    status: Literal["ok", "starting"]


__all__ = [
    "AccountAnswer",
    "Answer",
    "BiggestWin",
    "BoardLine",
    "Body",
    "Bonus",
    "Bonuses",
    "BotLevel",
    "BotRatings",
    "Claimed",
    "CoinRowAnswer",
    "CreatedTable",
    "HandLogAnswer",
    "HandRecordAnswer",
    "Health",
    "History",
    "InPlay",
    "Int",
    "Leaderboard",
    "Ledger",
    "Lobby",
    "LoggedOut",
    "MatchRecordAnswer",
    "Me",
    "ProfileAnswer",
    "RatingPoint",
    "Reaction",
    "ReviewStatus",
    "Room",
    "Rules",
    "Session",
    "TableSummary",
]
