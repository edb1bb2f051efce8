"""The schema of every message the server sends on ``/ws``: one ``TypedDict`` per message, and
the JSON Schema (draft 2020-12) generated from them by the generator that describes the
engine's events (``duyun.engine.events``), so an event inside a ``snapshot`` or an ``events``
batch is the very definition the log uses.

Why one schema: the messages are built in several modules (the table, its settlement, the
websocket handshake, the cluster's redirect), and clients -- the browser, the terminal, a
third party's bot -- are written against docs/protocol.md. Tests validate every message the
server sends in the suite against this schema, and hold the browser's readers
(``static/js/main.js``) to the fields it defines; docs/protocol.md ("Server messages")
publishes the generated schema, and a test keeps the two equal (``duyun schema --messages``
prints it).

The snapshot carries both the hand's events (what a client folds, and what the browser's
log and animations need) and the VIEW (the engine's own fold of those events, for clients
that do not fold): each is read by a client, nothing else is sent.
"""

import json
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from duyun.engine.events import (
    Event,
    Fan,
    Field,
    HandText,
    Points,
    RuleOptions,
    Seat,
    TileName,
    WinEvent,
    WinHow,
    one_of_schema,
    types_by_name,
)

# ---------------------------------------------------------------- shared field types

TableCode = Annotated[str, Field("a table's code: six digits", pattern="^[0-9]{6}$")]
HandId = Annotated[int, Field("the hand's id in the store", minimum=1)]
HandIndex = Annotated[int, Field("the hand's number in the match, from 0", minimum=0)]
Coins = Annotated[int, Field("game coins (points × the table's stake, R40)")]
Rating = Annotated[int, Field("a skill rating (1000 before the first rated match)")]
PerSeatPoints = Annotated[list[Points], Field("per seat, in seat order", minItems=4, maxItems=4)]
PerSeatCoins = Annotated[list[Coins], Field("per seat, in seat order", minItems=4, maxItems=4)]
PerSeatFlags = Annotated[list[bool], Field("per seat, in seat order", minItems=4, maxItems=4)]
Rid = Annotated[
    str | int, Field("the ``rid`` of the client's message this answers, as the client sent it")
]
Seconds = Annotated[float, Field("seconds", minimum=0)]


class AccountJson(TypedDict):
    """The account the connection speaks for, as REST shows it too."""

    id: Annotated[int, Field("the account's id", minimum=1)]
    name: Annotated[str, Field("the name shown at the table")]
    kind: Annotated[Literal["guest", "user"], Field("a guest account or a registered user")]
    balance: Annotated[Coins, Field("the account's coin balance")]
    rating: Rating


class ReactionChoice(TypedDict):
    """One reaction the table offers (the ☺ menu)."""

    id: Annotated[str, Field("what a ``reaction`` message sends")]
    text: Annotated[str, Field("what it shows")]


class MatchRef(TypedDict):
    """The live match the account plays a seat in."""

    id: Annotated[int, Field("the match's id", minimum=1)]
    status: Annotated[
        Literal["playing", "pending"],
        Field(
            "playing: at the table named in ``table``; pending: a match this process does not "
            "host yet (its owner died and it is being adopted): keep reconnecting"
        ),
    ]


class PublicConfig(TypedDict):
    """The server's settings a client may know (docs/protocol.md "Server configuration")."""

    turn_timer: Annotated[Seconds, Field("a turn's time")]
    claim_window: Annotated[Seconds, Field("a claim's time")]
    claim_beat: Annotated[Seconds, Field("a natural table's pause after a discard")]
    bot_delay: Annotated[Seconds, Field("a bot's least thinking time")]
    bot_delay_max: Annotated[Seconds, Field("a bot's most thinking time")]
    bot_fill_wait: Annotated[Seconds, Field("how long a room table waits before bots sit")]
    reconnect_grace: Annotated[Seconds, Field("how long a dropped seat is kept before 托管")]
    next_hand_wait: Annotated[Seconds, Field("the settlement's countdown")]
    next_hand_limit: Annotated[Seconds, Field("the most a settlement waits for its reader")]
    max_message_bytes: Annotated[int, Field("the largest message accepted", minimum=1)]
    rate_limit: Annotated[float, Field("messages per second allowed", minimum=0)]
    rate_burst: Annotated[int, Field("messages allowed at once", minimum=0)]
    daily_gift: Annotated[Coins, Field("the daily free coins")]
    topup_to: Annotated[Coins, Field("a top-up refills the balance to this")]
    topup_below: Annotated[Coins, Field("a top-up is offered below this balance")]
    topups_per_day: Annotated[int, Field("top-ups a day", minimum=0)]


class SeatJson(TypedDict):
    """One seat of a table."""

    seat: Seat
    name: Annotated[str, Field("the player's name; 'bot:LEVEL' for a bot")]
    kind: Annotated[Literal["human", "bot"], Field("a person or a bot")]
    account_id: Annotated[int | None, Field("a person's account id; null for a bot")]
    bot: Annotated[str | None, Field("a bot's level; null for a person")]
    ready: Annotated[bool, Field("ready for the next hand")]
    connected: Annotated[bool, Field("a person's connection is open (bots: always true)")]
    tuoguan: Annotated[bool, Field("托管: a bot plays the seat")]
    escaped: Annotated[
        bool, Field("escaped (R45) or left during the match: 托管 to the end of the match")
    ]
    balance: Annotated[Coins | None, Field("a person's coin balance; null for a bot")]
    rating: Rating
    points: Annotated[Points, Field("the seat's points over the match so far")]
    coins: Annotated[Coins, Field("the coins the seat moved over the match so far")]


class DissolveVote(TypedDict):
    """A running vote to dissolve (解散) the match."""

    agreed: Annotated[list[Seat], Field("the seats that agreed")]
    needed: Annotated[list[Seat], Field("the seats whose agreement is needed")]


class TableJson(TypedDict):
    """A table as its seats and spectators see it (TABLE in docs/protocol.md)."""

    code: TableCode
    kind: Annotated[Literal["private", "room"], Field("a private table or a stake room's")]
    room: Annotated[str | None, Field("the room's id; null for a private table")]
    stake: Annotated[int, Field("coins per point (R40)", minimum=1)]
    hands: Annotated[int, Field("the hands the match plays", minimum=1)]
    rules: RuleOptions
    bots_allowed: Annotated[bool, Field("bots may fill empty seats")]
    bot: Annotated[str, Field("the level of the bots that sit here")]
    spectators_allowed: Annotated[bool, Field("others may watch")]
    claim_pause: Annotated[
        Literal["natural", "fixed"], Field("how the table pauses after a discard")
    ]
    rated: Annotated[bool, Field("the match changes ratings")]
    status: Annotated[
        Literal["waiting", "playing", "between", "ended"],
        Field("before the first hand, a hand on, between hands, the match over"),
    ]
    seated: Annotated[int, Field("seats taken", minimum=0, maximum=4)]
    humans: Annotated[int, Field("seats taken by people", minimum=0, maximum=4)]
    hand_index: HandIndex
    spectators: Annotated[int, Field("people watching", minimum=0)]
    host: Annotated[Seat | None, Field("the private table's creator's seat, if seated")]
    hand_id: Annotated[HandId | None, Field("the hand on or last played; null before one")]
    you: Annotated[Seat | None, Field("the receiver's seat; null for a spectator")]
    seats: Annotated[list[SeatJson | None], Field("a free seat is null", minItems=4, maxItems=4)]
    dissolve: Annotated[DissolveVote | None, Field("null when no vote runs")]
    invite: Annotated[str, Field("the page's path that joins this table")]


class MeldJson(TypedDict):
    """A meld as a seat sees it."""

    kind: Annotated[
        Literal["pong", "direct_kong", "added_kong", "concealed_kong"], Field("the meld")
    ]
    tile: Annotated[TileName | None, Field("null: another seat's concealed kong")]


class PaymentJson(TypedDict):
    """A ledger row of the hand (R12, R28-R31, R36-R45)."""

    payer: Seat
    payee: Seat
    fan: Fan
    points: Points
    rule: Annotated[str, Field("the rule applied", pattern="^R[0-9]+$")]
    reason: Annotated[str, Field("a short text for people")]


class SettledPayment(PaymentJson):
    """A ledger row as settled: what it asked and what was paid (a person never goes below
    zero coins, R41, so ``paid`` can be less than ``coins``)."""

    coins: Annotated[Coins, Field("points × stake: what the row asked", minimum=0)]
    paid: Annotated[Coins, Field("what actually moved", minimum=0)]


RefusedWinJson = TypedDict(
    "RefusedWinJson",
    {
        "tile": Annotated[TileName, Field("the tile that would have won")],
        "from": Annotated[Seat, Field("its discarder")],
        "reason": Annotated[Literal["R17", "R9"], Field("the rule that refused the win")],
        "pattern": Annotated[str, Field("what it would have scored")],
    },
)
RefusedWinJson.__doc__ = "The latest win this seat was refused (R17, R9), until its next move."


class ViewJson(TypedDict):
    """The engine's fold of the events the receiver has (VIEW in docs/protocol.md)."""

    seat: Annotated[Seat | None, Field("the viewer's seat; null for a spectator")]
    dealer: Seat
    streak: Annotated[int, Field("the dealer's streak (R36)", minimum=0)]
    phase: Annotated[Literal["turn", "claims", "ended"], Field("what the hand waits for")]
    current: Annotated[Seat, Field("whose turn it is")]
    wall_remaining: Annotated[int, Field("tiles left to draw", minimum=0)]
    hand: Annotated[list[TileName], Field("the viewer's concealed tiles, sorted")]
    drawn_tile: Annotated[TileName | None, Field("the viewer's drawn tile")]
    concealed_sizes: Annotated[list[int], Field("per seat: concealed tiles", minItems=4)]
    melds: Annotated[list[list[MeldJson]], Field("per seat, in the order made", minItems=4)]
    rivers: Annotated[list[list[TileName]], Field("per seat: its discards", minItems=4)]
    baoting: Annotated[PerSeatFlags, Field("報聽 declared (R25)")]
    has_bean: Annotated[PerSeatFlags, Field("has a bean 豆 (R12, R17)")]
    claim_tile: Annotated[TileName | None, Field("the tile whose claim window is open")]
    claim_from: Annotated[Seat | None, Field("its discarder or kong maker")]
    claim_is_rob: Annotated[bool, Field("the tile is an added kong's (R13)")]
    payments: Annotated[list[PaymentJson], Field("the hand's ledger so far")]
    points: Annotated[PerSeatPoints, Field("net points so far")]
    refused_win: Annotated[RefusedWinJson | None, Field("always null for others")]
    won: Annotated[PerSeatFlags, Field("has won (血戰, R53)")]
    left: Annotated[PerSeatFlags, Field("a winner who left the table (R57)")]
    in_hand: Annotated[list[Seat], Field("the seats still playing the hand (R53)")]
    open_hands: Annotated[list[list[TileName]], Field("per seat: a winner's open tiles")]
    win_tiles: Annotated[list[TileName | None], Field("per seat: the tile it won on")]
    off_table: Annotated[list[TileName], Field("tiles won on a discard or a robbed kong")]


class LegalJson(TypedDict):
    """One thing the seat may do now: answer with ``act`` and these fields."""

    action: Annotated[
        Literal["discard", "baoting", "pong", "kong", "added_kong", "concealed_kong", "hu", "pass"],
        Field("the action (R6-R19, R25)"),
    ]
    tile: NotRequired[Annotated[TileName, Field("the tile it is done with")]]


# ---------------------------------------------------------------- the messages


class WelcomeMessage(TypedDict):
    """After a good ``hello``: the account, where it sits, the public settings."""

    type: Literal["welcome"]
    version: Annotated[int, Field("the protocol version spoken", minimum=1)]
    account: AccountJson
    reactions: Annotated[list[ReactionChoice], Field("the reactions a table offers")]
    table: Annotated[TableCode | None, Field("the table the account sits at")]
    match: Annotated[MatchRef | None, Field("the live match the account plays in")]
    config: PublicConfig


class TableMessage(TypedDict):
    """Anything about the table changed (seats, ready, 托管, connection, status, a vote)."""

    type: Literal["table"]
    table: Annotated[TableJson | None, Field("null: the receiver left the table")]


class PromptMessage(TypedDict):
    """A decision the receiver's seat must make, after the events that led to it."""

    type: Literal["prompt"]
    id: Annotated[int, Field("name it in ``act``'s ``prompt``", minimum=1)]
    hand_id: Annotated[HandId | None, Field("the hand it belongs to")]
    kind: Annotated[
        Literal["turn", "claim"], Field("one's turn, or another seat's tile to claim (R6, R13)")
    ]
    deadline: Annotated[Seconds, Field("time left to answer")]
    legal: Annotated[list[LegalJson], Field("what may be done", minItems=1)]
    claim_tile: Annotated[TileName | None, Field("a claim's tile")]
    claim_from: Annotated[Seat | None, Field("a claim's discarder or kong maker")]
    baoting_self_draw_only: NotRequired[
        Annotated[
            list[TileName],
            Field("報聽 discards after which the hand could win only by self-draw (R17, R25)"),
        ]
    ]


class SnapshotMessage(TypedDict):
    """The hand as the receiver may see it: on sitting down, reconnecting, spectating and at
    every hand's start."""

    type: Literal["snapshot"]
    hand_id: HandId
    hand_index: HandIndex
    seat: Annotated[Seat | None, Field("the receiver's seat; null for a spectator")]
    view: ViewJson
    events: Annotated[list[Event], Field("every event of the hand the receiver may see")]
    prompt: Annotated[PromptMessage | None, Field("the receiver's open decision, if any")]


class EventsMessage(TypedDict):
    """The hand goes on: the next events the receiver may see."""

    type: Literal["events"]
    hand_id: HandId
    seq: Annotated[int, Field("events of this hand the receiver had before", minimum=0)]
    events: Annotated[list[Event], Field("in order", minItems=1)]


class HandEndMessage(TypedDict):
    """A hand ended: its settlement (and, sent again to a client arriving between hands, what
    is left of the countdown)."""

    type: Literal["hand_end"]
    hand_id: HandId
    hand_index: HandIndex
    result: Annotated[Literal["win", "draw", "escape"], Field("how the hand ended")]
    winners: Annotated[list[Seat], Field("the winners; in a 血戰 room in order of winning")]
    win_kind: Annotated[WinHow | None, Field("how the (first) win was made")]
    loser: Annotated[Seat | None, Field("the (first) win's discarder or robbed seat, or escapee")]
    wins: Annotated[list[WinEvent], Field("the hand's ``win`` events")]
    hands: Annotated[list[HandText], Field("every seat's hand", minItems=4, maxItems=4)]
    left: Annotated[PerSeatFlags, Field("a 血戰 winner who left the table (R57)")]
    payments: Annotated[list[SettledPayment], Field("the ledger, in order")]
    points: Annotated[PerSeatPoints, Field("net points of the hand")]
    coins: Annotated[PerSeatCoins, Field("net coins that moved")]
    balances: Annotated[
        list[Coins | None], Field("each seat's balance after the hand (null: a bot)", minItems=4)
    ]
    next_dealer: Seat
    next_streak: Annotated[int, Field("the next hand's streak (R36)", minimum=0)]
    next_hand_in: Annotated[
        Seconds | None, Field("the settlement's countdown; null after the last hand")
    ]


WinSummary = TypedDict(
    "WinSummary",
    {
        "seat": Annotated[Seat, Field("the winner")],
        "how": Annotated[WinHow, Field("self_draw 自摸, discard 點炮, rob_kong 搶槓")],
        "from": Annotated[Seat | None, Field("the discarder or robbed seat; null: self-draw")],
        "tile": Annotated[TileName, Field("the winning tile")],
        "pattern": Annotated[str, Field("the pattern scored (R20-R22)")],
        "fan": Fan,
        "extras": Annotated[list[Literal["槓上花", "槓上炮"]], Field("槓上花 R21, 槓上炮 R28")],
    },
)
WinSummary.__doc__ = "A win as the match summary lists it (its ``win`` event, shortened)."


class HandResultJson(TypedDict):
    """One hand of the match, as the summary lists it."""

    hand_id: HandId
    result: Annotated[Literal["win", "draw", "escape"], Field("how the hand ended")]
    winners: Annotated[list[Seat], Field("the winners")]
    points: PerSeatPoints
    coins: PerSeatCoins
    wins: Annotated[list[WinSummary], Field("the hand's wins, in order")]


class RatingLine(TypedDict):
    """A seat's rating before and after a rated match."""

    seat: Seat
    place: Annotated[int, Field("1 for the most points", minimum=1, maximum=4)]
    before: Rating
    after: Rating
    change: Annotated[int, Field("after − before")]


class Rematch(TypedDict):
    """再來一局: where the same people play again."""

    code: Annotated[TableCode | None, Field("a private table's code, waiting again")]
    room: Annotated[str | None, Field("a room to quick-match in again")]


class MatchEndMessage(TypedDict):
    """The match is over (大結算)."""

    type: Literal["match_end"]
    reason: Annotated[Literal["completed", "dissolved"], Field("played out or dissolved")]
    hands_played: Annotated[int, Field("hands played", minimum=0)]
    points: Annotated[PerSeatPoints, Field("the whole match's points")]
    coins: Annotated[PerSeatCoins, Field("the whole match's coins")]
    ratings: Annotated[list[RatingLine] | None, Field("null: the match was not rated")]
    results: Annotated[list[HandResultJson], Field("every hand, in order")]
    rematch: Annotated[Rematch | None, Field("after a completed match; else null")]


class ReactionMessage(TypedDict):
    """Someone at the table reacted (☺)."""

    type: Literal["reaction"]
    seat: Annotated[Seat | None, Field("the sender's seat; null for a spectator")]
    name: Annotated[str, Field("the sender's name")]
    id: Annotated[str, Field("the reaction's id")]
    text: Annotated[str, Field("what it shows")]


class ErrorMessage(TypedDict):
    """The receiver's message was refused; only the client whose message caused it gets it."""

    type: Literal["error"]
    code: Annotated[str, Field("a stable code for programs, e.g. 'illegal', 'rate_limited'")]
    message: Annotated[str, Field("an explanation for people")]
    rid: NotRequired[Rid]
    dropped: NotRequired[Annotated[int, Field("messages dropped by the rate limit", minimum=1)]]


class RedirectMessage(TypedDict):
    """Another server process holds what was asked for: go there (docs/deploy.md)."""

    type: Literal["redirect"]
    url: Annotated[str, Field("the websocket URL to open")]
    origin: Annotated[str, Field("that process's public address")]
    code: Annotated[TableCode | None, Field("the table to join there")]
    room: Annotated[str | None, Field("the room to quick-match in there")]
    reason: Annotated[
        Literal["join", "spectate", "quick_match", "reconnect"], Field("what was asked")
    ]
    rid: NotRequired[Rid]


class PongMessage(TypedDict):
    """The answer to ``ping``."""

    type: Literal["pong"]
    t: Annotated[int | float | str | None, Field("the ping's ``t``, echoed")]


#: every message the server sends on /ws, by its ``type``
MESSAGE_CLASSES: tuple[type, ...] = (
    WelcomeMessage,
    TableMessage,
    SnapshotMessage,
    EventsMessage,
    PromptMessage,
    HandEndMessage,
    MatchEndMessage,
    ReactionMessage,
    ErrorMessage,
    RedirectMessage,
    PongMessage,
)


def message_schema() -> dict[str, Any]:
    """The JSON Schema of one message the server sends on ``/ws``."""
    return one_of_schema(
        MESSAGE_CLASSES,
        "Duyun server message",
        'One message the server sends on /ws (docs/protocol.md "Server → client"); the '
        'events inside are the engine\'s ("Events").',
    )


def message_types() -> dict[str, type]:
    """Every message ``type`` the server sends, with its TypedDict."""
    return types_by_name(MESSAGE_CLASSES)


def message_schema_text() -> str:
    """:func:`message_schema` as published in docs/protocol.md."""
    return json.dumps(message_schema(), indent=2, ensure_ascii=False) + "\n"


__all__ = [
    "MESSAGE_CLASSES",
    "message_schema",
    "message_schema_text",
    "message_types",
]
