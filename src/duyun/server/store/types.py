"""The store's public types: what callers pass in and get back, and the errors it raises.

Every value is a frozen dataclass built from database rows inside a transaction, so callers (the
asyncio tables, the REST handlers, ``duyun admin``) never hold an ORM object or a session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

AccountKind = Literal["guest", "user", "house"]
MatchKind = Literal["room", "private"]
MatchStatus = Literal["open", "playing", "completed", "dissolved"]
HandStatus = Literal["playing", "finished"]
CoinKind = Literal["starting", "grant", "hand", "gift", "topup"]
#: the house's free coins (issue 32): the daily gift and the bankruptcy top-up (破產補助)
BonusKind = Literal["gift", "topup"]

SEATS = 4


class StoreError(ValueError):
    """Base of every error the store raises on bad input or a broken expectation."""


class NotFoundError(StoreError):
    """An account, match or hand id (or a player name) that does not exist."""


class AccountError(StoreError):
    """Registration refused: name taken, name or password invalid (the message says which)."""


class AuthError(StoreError):
    """Login or token refused. The message never says whether the name exists."""


class RateLimitedError(AuthError):
    """Too many failed logins for this name or client address; retry after ``retry_after``."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ConflictError(StoreError):
    """A write that contradicts what is stored: an event seq already written, a hand finished
    twice, a match already over. The writer still owns the match: it may reload it from the
    store and go on."""


class BonusRefused(StoreError):
    """A daily gift or top-up that is not paid now; ``next_at`` says when it may be claimed
    again (None: not until something else changes, e.g. the balance falls)."""

    code = "not_eligible"

    def __init__(self, message: str, next_at: datetime | None) -> None:
        super().__init__(message)
        self.next_at = next_at


class AlreadyClaimedError(BonusRefused):
    """This account claimed the gift today, or used up today's top-ups."""

    code = "already_claimed"


class NotEligibleError(BonusRefused):
    """The balance is not low enough for a top-up, the address has claimed its share today,
    or the account cannot claim (the house)."""

    code = "not_eligible"


class LeaseLostError(StoreError):
    """A write for a match whose lease the writer no longer holds: another process adopted the
    match (this one was paused past its lease). Nothing was written; the writer's table must
    stop, since the match is played elsewhere now (docs/deploy.md "leases")."""


@dataclass(frozen=True, slots=True)
class Lease:
    """What a table holds of its match: the process name (None for a lone process without
    ``--owner``) and the epoch its adoption set. Every write for the match names it and is
    refused with :class:`LeaseLostError` once the match row says otherwise."""

    owner: str | None
    epoch: int


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """Settings the store needs from the server configuration.

    ``starting_balance`` is granted from the house (a ledgered row) when a guest or user account
    is created. Tokens expire after ``token_max_age`` seconds. Logins are refused for a name after
    ``login_max_failures_per_name`` failures within ``login_window`` seconds, and for a client
    address after ``login_max_failures_per_client`` failures in the same window.
    ``secret_key`` signs tokens; None uses the random secret kept in the database, which every
    process sharing the database reads (set it only to rotate or pin the key).
    """

    starting_balance: int = 1000
    token_max_age: int = 30 * 24 * 3600
    login_window: int = 15 * 60
    login_max_failures_per_name: int = 5
    login_max_failures_per_client: int = 20
    #: argon2 cost; tests lower it for speed (never below argon2's own minimums)
    argon2_time_cost: int = 2
    argon2_memory_cost: int = 19 * 1024
    secret_key: str | None = None

    def __post_init__(self) -> None:
        for name in (
            "starting_balance",
            "token_max_age",
            "login_window",
            "login_max_failures_per_name",
            "login_max_failures_per_client",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise StoreError(f"{name} must be a whole number >= 0, got {value!r}")
        if self.starting_balance > 10**12:  # balances are BIGINT and the house pays them all
            raise StoreError(f"starting_balance must be at most 10^12, got {self.starting_balance}")
        if self.token_max_age < 1 or self.login_window < 1:
            raise StoreError("token_max_age and login_window must be at least 1 second")
        if self.login_max_failures_per_name < 1 or self.login_max_failures_per_client < 1:
            raise StoreError("login failure limits must be at least 1")
        if self.argon2_time_cost < 1 or self.argon2_memory_cost < 8:
            raise StoreError("argon2 costs below the minimum (time 1, memory 8 KiB)")
        if self.secret_key is not None and len(self.secret_key) < 16:
            raise StoreError("secret_key must be at least 16 characters")


@dataclass(frozen=True, slots=True)
class Account:
    """A player (guest or registered user) or the house, with its current coin balance."""

    id: int
    name: str
    kind: AccountKind
    balance: int
    created: datetime
    #: the skill rating shown next to the name (issue 32): the initial value until the
    #: account's first rated match
    rating: int = 1000
    rated_matches: int = 0


@dataclass(frozen=True, slots=True)
class Economy:
    """The house's free coins (issue 32), from the server config; every process of a service
    must use the same values. A day runs midnight to midnight in ``time_zone``.

    ``daily_gift`` coins once a day per account; ``topup_to``: a top-up raises a balance below
    ``topup_below`` to this, at most ``topups_per_day`` times a day; ``gifts_per_address`` and
    ``topups_per_address`` cap the claims of every account from one client address in a day
    (guests are free to create, the address is not; 0 = no cap). 0 coins switch a bonus off.
    """

    daily_gift: int = 100
    topup_to: int = 300
    topup_below: int = 100
    topups_per_day: int = 3
    gifts_per_address: int = 3
    topups_per_address: int = 6
    time_zone: str = "Asia/Shanghai"

    def __post_init__(self) -> None:
        for name in (
            "daily_gift",
            "topup_to",
            "topup_below",
            "topups_per_day",
            "gifts_per_address",
            "topups_per_address",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 10**12:
                raise StoreError(f"{name} must be a whole number 0..10^12, got {value!r}")
        if self.topup_to and self.topup_to < self.topup_below:
            raise StoreError(
                f"topup_to ({self.topup_to}) must be at least topup_below ({self.topup_below}): "
                "a top-up must lift a balance to where the player can sit down again"
            )


@dataclass(frozen=True, slots=True)
class BonusState:
    """What one bonus offers an account now: ``coins`` it would pay (0 when it would pay
    nothing), whether it may be claimed, claims left today and when it may be claimed next."""

    kind: BonusKind
    coins: int
    available: bool
    left: int
    next_at: datetime | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One seat's rating before and after a rated match (issue 32); ``place`` 1..4, ties share
    a place, an escape is last."""

    seat: int
    account_id: int | None
    bot: str | None
    place: int
    before: int
    after: int


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """One entry of an account's rating history."""

    match_id: int
    rating: int
    change: int
    place: int
    at: datetime


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """One line of a leaderboard: place 1.. and the value ranked (rating, or coins won)."""

    place: int
    account_id: int
    name: str
    value: int


@dataclass(frozen=True, slots=True)
class Board:
    """A leaderboard: its top lines and the asking account's own line (None when it is not
    ranked: no rated match yet, or no hand this week)."""

    top: tuple[BoardEntry, ...]
    own: BoardEntry | None


@dataclass(frozen=True, slots=True)
class BiggestWin:
    hand_id: int
    match_id: int
    pattern: str
    fan: int
    coins: int


@dataclass(frozen=True, slots=True)
class Profile:
    """An account's profile page (issue 32): rating and its history, counts, biggest win."""

    account: Account
    matches: int
    hands: int
    hands_won: int
    biggest_win: BiggestWin | None
    history: tuple[RatingPoint, ...]


@dataclass(frozen=True, slots=True)
class CoinRow:
    """One coin transfer: ``payer`` pays ``payee`` ``coins``.

    ``requested`` is what was owed (points × stake for a hand row) and ``cut`` = ``requested`` −
    ``coins`` is the part a human payer could not pay (R41 with the never-below-zero rule).
    ``kind`` is ``starting`` (the starting balance), ``grant`` (an operator grant) or ``hand``
    (a hand's settlement; ``hand_id``, ``rule`` and ``note`` say which payment it was).
    """

    id: int
    payer: int
    payee: int
    coins: int
    requested: int
    cut: int
    kind: CoinKind
    rule: str
    note: str
    hand_id: int | None
    created: datetime


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who sits at a seat: a human account (``account_id``) or a bot (``account_id`` None,
    paying and paid through the house). ``bot`` names the bot kind for bot seats and the 托管
    bot for humans (informational). ``forced_tuoguan``: the player escaped (R45) or left during
    the match, so the 托管 bot plays the seat to its end; stored so a restart keeps it so.
    ``tuoguan``: the seat's 托管 is on (which its player may switch off), also kept through a
    restart."""

    account_id: int | None
    bot: str | None = None
    forced_tuoguan: bool = False
    tuoguan: bool = False


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """Everything needed to recreate a match after a restart.

    ``kind`` is ``room`` (quick match in a stake room named ``room``) or ``private`` (好友房 with a
    6-digit ``code``). ``rules`` is the RuleSet as a JSON mapping; ``options`` holds anything
    else the table needs to restore (bots allowed, which bot, timers), stored as JSON.
    """

    kind: MatchKind
    room: str
    stake: int
    hands: int
    seats: tuple[SeatSpec, ...]
    seed: int
    code: str | None = None
    first_dealer: int = 0
    rules: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LiveHand:
    """The unfinished hand of a live match and every event stored for it, in order."""

    hand_id: int
    index: int
    seed: int
    dealer: int
    streak: int
    events: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A hand of a match: its stored result (None while playing) and each seat's coin change."""

    hand_id: int
    index: int
    seed: int
    dealer: int
    streak: int
    status: HandStatus
    result: dict[str, Any] | None
    coins: tuple[int, ...]
    #: when its result was stored (None while playing)
    finished: datetime | None = None


@dataclass(frozen=True, slots=True)
class SettledHand:
    """The last hand of a match that is between hands, as much as showing its settlement again
    needs (issue 37): its events (the hand is replayed to show it), its coin rows in ledger
    order (what each payment asked and what was paid, R41) and when its result was stored, from
    which the wait for the next hand counts (``next_hand_limit``), whatever restarts came since.
    """

    hand_id: int
    index: int
    events: tuple[dict[str, Any], ...]
    rows: tuple[CoinRow, ...]
    finished: datetime


@dataclass(frozen=True, slots=True)
class LiveMatch:
    """An unfinished match: its spec, the hands already finished and the hand in progress."""

    match_id: int
    spec: MatchSpec
    status: MatchStatus
    finished_hands: tuple[HandRecord, ...]
    hand: LiveHand | None
    #: the lease as read after this process claimed (or, without an owner, found) the match
    lease: Lease = Lease(None, 0)
    #: between hands (``hand`` None): the hand that ended last, to show its settlement again
    settled: SettledHand | None = None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One match in a player's history (戰績): seat, per-hand results and coin changes."""

    match_id: int
    kind: MatchKind
    room: str
    code: str | None
    stake: int
    hands: int
    status: MatchStatus
    reason: str | None
    created: datetime
    finished: datetime | None
    seat: int
    seat_names: tuple[str, ...]
    hand_records: tuple[HandRecord, ...]
    coins: int


@dataclass(frozen=True, slots=True)
class HandLog:
    """A hand's full event log and who sat where: what a replay viewer needs."""

    hand_id: int
    match_id: int
    index: int
    seed: int
    dealer: int
    streak: int
    status: HandStatus
    stake: int
    rules: dict[str, Any]
    seat_names: tuple[str, ...]
    seat_accounts: tuple[int | None, ...]
    events: tuple[dict[str, Any], ...]
    result: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class AuditReport:
    """Result of :meth:`Store.audit`: the ledger sum (must be 0), every account whose
    balance differs from the sum of its rows and every hand not settled exactly once (both
    must be empty)."""

    ledger_sum: int
    rows: int
    accounts: int
    mismatches: tuple[tuple[int, str, int, int], ...]  # (id, name, balance, ledger)
    #: (hand id, what is wrong) for every hand not settled exactly once: coin rows of a hand
    #: that is not finished, or rows that do not add up to the hand's stored totals × stake
    #: (a second settlement doubles them even when every balance matches its rows)
    settlements: tuple[tuple[int, str], ...] = ()
    hands: int = 0

    @property
    def ok(self) -> bool:
        return self.ledger_sum == 0 and not self.mismatches and not self.settlements


@dataclass(frozen=True, slots=True)
class HouseReport:
    """The house's position for the operator: coins granted out (starting balances and grants)
    and its net from hands (bots' winnings minus losses); ``balance`` is the sum of both."""

    balance: int
    granted: int
    hands_net: int
    hands_played: int
    #: daily gifts and top-ups paid (issue 32); ``balance`` = hands_net - granted - bonuses
    bonuses: int = 0
