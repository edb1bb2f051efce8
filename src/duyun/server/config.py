"""Server configuration: stake rooms, timers, limits; read from a TOML file or the defaults.

Every timer is configurable so that tests can run whole matches with tiny values (a claim window
of 0.02 s) while a real deployment gives people time to think. Unknown keys and wrong types are
refused with a message naming the key: a typo in a config file must not silently fall back to a
default.

Example file (every key optional)::

    starting_balance = 1000
    turn_timer = 15.0
    claim_window = 4.0
    allowed_origins = ["https://mahjong.example"]

    [[rooms]]
    id = "novice"
    name = "新手場"
    stake = 1
    entry = 100

    [[rooms]]
    id = "bloody-novice"
    name = "血戰新手場"
    stake = 1
    entry = 100
    rules = {bloody_battle = true}     # any RuleSet option (docs/rules.md), checked at load
    claim_pause = "fixed"              # "natural" (the default) or "fixed" (docs/protocol.md)
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from duyun.bots import BOT_NAMES
from duyun.rules import RuleSet

if TYPE_CHECKING:  # the store needs the server extra; the config is read without it too
    from duyun.server.store.types import Economy

#: the websocket layer's own limit on one frame (uvicorn ``ws_max_size``): a larger frame is
#: refused unread with close code 1009; a message between ``max_message_bytes`` and this gets
#: the ``too_large`` error and the socket stays open (docs/protocol.md "Limits")
MAX_FRAME_BYTES = 1 << 20


class ConfigError(ValueError):
    """A config file or value that cannot be used; the message names the key."""


#: the most coins an account is given on creation: balances are BIGINT (about 9.2e18) and the
#: house pays every starting balance, so this leaves room for millions of accounts
MAX_STARTING_BALANCE = 10**12
#: the longest any timer may be (a day): larger ones are typos, and NaN or infinity are errors
MAX_SECONDS = 24 * 3600.0
#: the longest ``commit_wait`` a server accepts: every move of every table may wait for it
MAX_COMMIT_WAIT = 0.1
#: how a table paces the claim window after a discard (docs/protocol.md "Timing", issue 21
#: item 1): ``natural`` waits only for a person who was offered a claim (else one short beat),
#: ``fixed`` keeps one uniform window after every discard
CLAIM_PAUSES = ("natural", "fixed")
#: a metrics token's length: short ones can be guessed, long ones only waste header space
MIN_METRICS_TOKEN, MAX_METRICS_TOKEN = 16, 256
#: (lowest, highest) of the whole-number settings a typo could make nonsensical
_RANGES: dict[str, tuple[int, int]] = {
    "starting_balance": (0, MAX_STARTING_BALANCE),
    "token_max_age": (60, 10 * 366 * 24 * 3600),  # a minute .. ten years
    "login_attempts": (1, 10_000),
    "login_window": (1, 7 * 24 * 3600),
    "argon2_time_cost": (1, 100),
    "argon2_memory_cost": (8, 4 * 1024 * 1024),  # KiB: argon2's minimum .. 4 GiB
    "review_workers": (0, 64),
    "review_samples": (4, 4096),  # duyun.review.MIN_SAMPLES: two deals choose, two measure
    "review_queue": (1, 10_000),
    "reviews_per_hour": (0, 100_000),
    # the house's free coins (issue 32): at most a starting balance's worth each
    "daily_gift": (0, MAX_STARTING_BALANCE),
    "topup_to": (0, MAX_STARTING_BALANCE),
    "topup_below": (0, MAX_STARTING_BALANCE),
    "topups_per_day": (0, 100),
    "gifts_per_address": (0, 100_000),
    "topups_per_address": (0, 100_000),
}


@dataclass(frozen=True, slots=True)
class Room:
    """A stake room (R41): coins per point, the balance needed to sit down, and the rules its
    tables play (a 血戰 room is ``RuleSet(bloody_battle=True)``, R52-R57)."""

    id: str
    name: str
    stake: int
    entry: int
    hands: int = 8
    rules: RuleSet = field(default_factory=RuleSet)
    #: ``natural`` or ``fixed`` (CLAIM_PAUSES)
    claim_pause: str = "natural"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "stake": self.stake,
            "entry": self.entry,
            "hands": self.hands,
            "rules": self.rules.to_mapping(),
            "claim_pause": self.claim_pause,
        }


BLOODY_BATTLE = RuleSet(bloody_battle=True)


DEFAULT_ROOMS: tuple[Room, ...] = (
    Room("novice", "新手場", stake=1, entry=100),
    Room("junior", "初級場", stake=5, entry=1000),
    Room("senior", "高級場", stake=20, entry=10000),
    Room("bloody-novice", "血戰新手場", stake=1, entry=100, rules=BLOODY_BATTLE),
    Room("bloody-junior", "血戰初級場", stake=5, entry=1000, rules=BLOODY_BATTLE),
)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything `duyun serve` can be told; the defaults suit people playing in a browser."""

    rooms: tuple[Room, ...] = DEFAULT_ROOMS
    starting_balance: int = 1000
    #: seconds for a turn decision before the obvious move is played
    turn_timer: float = 15.0
    #: the claim timer: the ``fixed`` window after every discard and added kong's tile, and the
    #: longest a ``natural`` table waits for a person offered a claim (docs/protocol.md)
    claim_window: float = 4.0
    #: a ``natural`` table's one short pause after a discard no person may claim
    claim_beat: float = 0.6
    #: a bot's (or a 托管 seat's) think time before its turn move: uniform between
    #: ``bot_delay`` and ``bot_delay_max`` (taken as ``bot_delay`` when smaller)
    bot_delay: float = 0.3
    bot_delay_max: float = 0.8
    #: quick match: seconds after the first player sits before empty seats get bots
    bot_fill_wait: float = 1.5
    #: seconds a dropped seat has to reconnect before R45 applies
    reconnect_grace: float = 60.0
    #: seconds within which several people of one table losing their connections count as one
    #: failure of the network or the server: their graces then end in 托管, not in R45. A dead
    #: connection is noticed by the websocket ping (every 20 s, 20 s to answer), so people cut
    #: off together may be noticed up to about 40 s apart
    shared_drop_window: float = 45.0
    #: seconds between hands (the settlement's countdown, ``hand_end.next_hand_in``) unless
    #: every person is ready earlier
    next_hand_wait: float = 15.0
    #: the longest the next hand waits for connected people who have not pressed 下一局
    #: (counted from the end of the hand; issue 21 item 4)
    next_hand_limit: float = 60.0
    default_bot: str = "strong"
    max_message_bytes: int = 4096
    #: messages per second per connection (token bucket) and the burst it allows
    rate_limit: float = 20.0
    rate_burst: int = 40
    #: seconds a new websocket has to authenticate (``hello``) before it is closed (4004)
    hello_timeout: float = 5.0
    #: open websockets allowed from one client address, and in total (over: the handshake is
    #: refused, HTTP 429 / 503)
    max_connections_per_address: int = 20
    max_connections: int = 800
    #: Origin headers accepted on /ws; empty = same host as the request; "*" = any
    allowed_origins: tuple[str, ...] = ()
    #: token signing key; None = the store generates one and keeps it in the database
    secret_key: str | None = None
    #: the bearer token ``GET /metrics`` asks for; None = /metrics is off (404). The numbers
    #: are the operator's: counted per process, a person's claim answers and refusals would
    #: tell anybody polling them that a seat was offered a claim (docs/deploy.md "Monitoring")
    metrics_token: str | None = None
    #: this process's address as browsers reach it (https://s1.play.example): other processes
    #: send clients of this process's tables here (issue 24; ``duyun serve --public-url``)
    public_url: str | None = None
    token_max_age: int = 30 * 24 * 3600
    login_attempts: int = 5
    login_window: int = 15 * 60
    #: seconds between two reactions of one connection
    reaction_interval: float = 1.0
    #: argon2 costs (tests lower them; never below argon2's minimums)
    argon2_time_cost: int = 2
    argon2_memory_cost: int = 19 * 1024
    #: REST request bodies above this many bytes are refused (413) before they are read
    max_body_bytes: int = 16 * 1024
    #: per client address and minute (0 = no limit): guest accounts, registrations, private
    #: tables created, and table-code lookups (GET /api/tables/{code}, websocket join/spectate)
    guests_per_minute: int = 10
    registrations_per_minute: int = 5
    tables_per_minute: int = 10
    code_lookups_per_minute: int = 30
    #: a guest's display-name changes per client address and minute (issue 32; 0 = no limit)
    renames_per_minute: int = 5
    #: private tables an account may have open (created, not yet ended) at once; at the
    #: limit its oldest empty one (waiting to close, PRIVATE_TABLE_IDLE) closes for a new one
    #: (0 = no limit)
    open_tables_per_account: int = 3
    #: several processes on one database (docs/deploy.md "Leases"): how long a process's
    #: claim on a match lasts unless renewed, and how often it renews them (and looks for
    #: matches of dead processes to adopt). A process silent for longer than ``lease_seconds``
    #: loses its matches to the others; every process of a service must use the same values
    lease_seconds: float = 30.0
    lease_renew_every: float = 10.0
    #: proxies whose X-Forwarded-For / X-Forwarded-Proto are believed (uvicorn's
    #: ``forwarded_allow_ips``): comma-separated addresses or networks, "*" = any peer
    forwarded_allow_ips: str = "127.0.0.1"
    #: 牌譜解析 (docs/protocol.md "Reviews"): worker processes that compute 大師's reviews at
    #: a lower CPU priority than the tables (0 = no reviews on this process), the deals per
    #: decision, the reviews a process accepts at once (queued and running; more are refused
    #: with ``review_busy``), and the new reviews one account may ask for per hour (0 = no
    #: limit; reading a stored review is free)
    review_workers: int = 1
    review_samples: int = 48
    review_queue: int = 8
    reviews_per_hour: int = 20
    #: anyone signed in may replay and review any finished hand, not only its players
    public_replays: bool = False
    #: the house's free coins (issue 32; docs/deploy.md "Economy"): a gift of ``daily_gift``
    #: coins on the first visit of each day, and up to ``topups_per_day`` top-ups a day to
    #: ``topup_to`` coins for a balance below ``topup_below`` (0: the cheapest room's entry).
    #: ``gifts_per_address`` / ``topups_per_address`` cap the claims of all accounts of one
    #: client address in a day (0 = no cap). Days run midnight to midnight in ``time_zone``
    daily_gift: int = 100
    topup_to: int = 300
    topup_below: int = 0
    topups_per_day: int = 3
    gifts_per_address: int = 3
    topups_per_address: int = 6
    time_zone: str = "Asia/Shanghai"
    #: quick match may seat two accounts of one client address at one table (issue 32 fair
    #: matching: off, so one person cannot fill a stake table with their own accounts)
    same_address_tables: bool = False
    #: seconds a leaderboard answer is reused before it is read again
    leaderboard_cache: float = 30.0
    #: the event writer's bounded group commit (docs/deploy.md "Group commit"): a move may
    #: wait this long for other tables' moves to share its transaction (0..0.1 s; 0 = write
    #: each batch as soon as the writer is free). A move is still stored before anyone sees it
    commit_wait: float = 0.0

    def economy(self) -> Economy:
        """The economy settings as the store takes them; ``topup_below`` 0 is the cheapest
        room's entry (a balance below it cannot sit down anywhere)."""
        from duyun.server.store.types import Economy

        below = self.topup_below or min(room.entry for room in self.rooms)
        return Economy(
            daily_gift=self.daily_gift,
            topup_to=max(self.topup_to, below) if self.topup_to else 0,
            topup_below=below,
            topups_per_day=self.topups_per_day,
            gifts_per_address=self.gifts_per_address,
            topups_per_address=self.topups_per_address,
            time_zone=self.time_zone,
        )

    def __post_init__(self) -> None:
        for name in (
            "turn_timer",
            "claim_window",
            "claim_beat",
            "bot_delay",
            "bot_delay_max",
            "bot_fill_wait",
            "reconnect_grace",
            "shared_drop_window",
            "next_hand_wait",
            "next_hand_limit",
            "rate_limit",
            "reaction_interval",
            "hello_timeout",
            "lease_seconds",
            "lease_renew_every",
            "leaderboard_cache",
            "commit_wait",
        ):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                raise ConfigError(f"{name} must be a number of seconds ≥ 0, got {value!r}")
            if not math.isfinite(value) or value > MAX_SECONDS:
                raise ConfigError(f"{name} must be 0..{MAX_SECONDS:g} seconds, got {value!r}")
        for name, (low, high) in _RANGES.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise ConfigError(f"{name} must be a whole number {low}..{high}, got {value!r}")
        if not 0 <= self.commit_wait <= MAX_COMMIT_WAIT:
            raise ConfigError(
                f"commit_wait must be 0..{MAX_COMMIT_WAIT:g} seconds (every move waits up to it), "
                f"got {self.commit_wait!r}"
            )
        if self.secret_key is not None and len(self.secret_key) < 16:
            raise ConfigError("secret_key must be at least 16 characters")
        if self.metrics_token is not None and not (
            MIN_METRICS_TOKEN <= len(self.metrics_token) <= MAX_METRICS_TOKEN
            and all(33 <= ord(c) <= 126 for c in self.metrics_token)
        ):
            raise ConfigError(
                f"metrics_token must be {MIN_METRICS_TOKEN}..{MAX_METRICS_TOKEN} printable ASCII "
                "characters without spaces (it travels in an HTTP header), for example "
                "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )
        if self.topup_to and self.topup_below and self.topup_to < self.topup_below:
            raise ConfigError(
                f"topup_to ({self.topup_to}) must be at least topup_below ({self.topup_below}): "
                "a top-up lifts a balance to where its player can sit down again"
            )
        if self.rate_limit <= 0:
            raise ConfigError("rate_limit must be positive")
        if not 0 < self.lease_renew_every <= self.lease_seconds / 2:
            raise ConfigError(
                "lease_renew_every must be more than 0 and at most half of lease_seconds "
                f"({self.lease_seconds:g} s): a lease is renewed at least twice before it "
                f"expires, got {self.lease_renew_every!r}"
            )
        for name in (
            "starting_balance",
            "max_message_bytes",
            "rate_burst",
            "login_attempts",
            "max_body_bytes",
            "guests_per_minute",
            "registrations_per_minute",
            "tables_per_minute",
            "code_lookups_per_minute",
            "renames_per_minute",
            "open_tables_per_account",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ConfigError(f"{name} must be a whole number ≥ 0, got {value!r}")
        for name in ("max_connections_per_address", "max_connections"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{name} must be a whole number ≥ 1, got {value!r}")
        if self.hello_timeout <= 0:
            raise ConfigError("hello_timeout must be positive")
        if not 256 <= self.max_message_bytes <= MAX_FRAME_BYTES:
            raise ConfigError(
                f"max_message_bytes must be 256..{MAX_FRAME_BYTES} (the websocket frame limit), "
                f"got {self.max_message_bytes}"
            )
        if self.max_body_bytes < 1024:
            raise ConfigError("max_body_bytes must be at least 1024")
        if not isinstance(self.forwarded_allow_ips, str):
            raise ConfigError("forwarded_allow_ips must be a string such as '127.0.0.1'")
        if self.default_bot not in BOT_NAMES:
            raise ConfigError(
                f"default_bot {self.default_bot!r} is not a bot; known: {', '.join(BOT_NAMES)}"
            )
        if self.public_url is not None:
            parts = urlsplit(self.public_url)
            if parts.scheme not in ("http", "https") or not parts.netloc or parts.query:
                raise ConfigError(
                    f"public_url must be an absolute http(s) address without a query, like "
                    f"https://s1.play.example, got {self.public_url!r}"
                )
        try:
            ZoneInfo(self.time_zone)
        except (ValueError, KeyError, TypeError, OSError):
            raise ConfigError(
                f"time_zone must be an IANA zone name such as 'Asia/Shanghai', "
                f"got {self.time_zone!r}"
            ) from None
        if not isinstance(self.same_address_tables, bool):
            raise ConfigError("same_address_tables must be true or false")
        if not self.rooms:
            raise ConfigError("at least one room is needed")
        ids = [room.id for room in self.rooms]
        if len(set(ids)) != len(ids):
            raise ConfigError(f"room ids must be unique, got {ids}")
        for room in self.rooms:
            if not (
                1 <= room.stake <= 10**9 and 0 <= room.entry <= 10**15 and 1 <= room.hands <= 64
            ):
                raise ConfigError(
                    f"room {room.id!r}: stake must be 1..10^9, entry 0..10^15 and hands 1..64"
                )
            if room.claim_pause not in CLAIM_PAUSES:
                raise ConfigError(
                    f"room {room.id!r}: claim_pause must be one of {', '.join(CLAIM_PAUSES)}, "
                    f"got {room.claim_pause!r}"
                )

    def room(self, room_id: str) -> Room | None:
        return next((room for room in self.rooms if room.id == room_id), None)

    def with_overrides(self, **changes: Any) -> ServerConfig:
        """A copy with some values changed (tests use tiny timers this way)."""
        return replace(self, **changes)

    def public(self) -> dict[str, Any]:
        """The values a client may know (sent in ``welcome``)."""
        economy = self.economy()
        return {
            "turn_timer": self.turn_timer,
            "claim_window": self.claim_window,
            "claim_beat": self.claim_beat,
            "bot_delay": self.bot_delay,
            "bot_delay_max": max(self.bot_delay, self.bot_delay_max),
            "bot_fill_wait": self.bot_fill_wait,
            "reconnect_grace": self.reconnect_grace,
            "next_hand_wait": self.next_hand_wait,
            "next_hand_limit": self.next_hand_limit,
            "max_message_bytes": self.max_message_bytes,
            "rate_limit": self.rate_limit,
            "rate_burst": self.rate_burst,
            # the house's free coins (issue 32): the lobby and the rules page name them
            "daily_gift": self.daily_gift,
            "topup_to": economy.topup_to,
            "topup_below": economy.topup_below,
            "topups_per_day": self.topups_per_day,
        }


_ROOM_KEYS = {f.name for f in fields(Room)}


def _room_from(data: object, index: int) -> Room:
    if not isinstance(data, dict):
        raise ConfigError(f"rooms[{index}] must be a table")
    unknown = sorted(set(data) - _ROOM_KEYS)
    if unknown:
        raise ConfigError(f"rooms[{index}]: unknown key(s) {', '.join(unknown)}")
    try:
        return Room(
            id=str(data["id"]),
            name=str(data.get("name", data["id"])),
            stake=_int(data["stake"], f"rooms[{index}].stake"),
            entry=_int(data.get("entry", 0), f"rooms[{index}].entry"),
            hands=_int(data.get("hands", 8), f"rooms[{index}].hands"),
            rules=_rules(data.get("rules", {}), f"rooms[{index}].rules"),
            claim_pause=_claim_pause(data.get("claim_pause", "natural"), index),
        )
    except KeyError as error:
        raise ConfigError(f"rooms[{index}]: missing key {error.args[0]!r}") from None


def _claim_pause(value: object, index: int) -> str:
    if value not in CLAIM_PAUSES:
        raise ConfigError(
            f"rooms[{index}].claim_pause must be one of {', '.join(CLAIM_PAUSES)}, got {value!r}"
        )
    return str(value)


def _rules(value: object, key: str) -> RuleSet:
    """A room's rule options (``rules = {bloody_battle = true}``), checked by the engine's own
    :meth:`RuleSet.from_mapping` so that a room never plays rules it did not ask for."""
    if not isinstance(value, dict):
        raise ConfigError(f"{key} must be a table of rule options, e.g. {{bloody_battle = true}}")
    try:
        return RuleSet.from_mapping(value)
    except (ValueError, TypeError) as error:
        raise ConfigError(f"{key}: {error}") from None


def _int(value: object, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"{key} must be a whole number, got {value!r}")
    return value


def config_from_mapping(data: dict[str, Any]) -> ServerConfig:
    """Build a config from parsed TOML, naming any unknown key or wrong type."""
    known = {f.name: f for f in fields(ServerConfig)}
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"unknown config key {key!r}; known: {', '.join(sorted(known))}")
        if key == "rooms":
            if not isinstance(value, list):
                raise ConfigError("rooms must be an array of tables ([[rooms]])")
            values[key] = tuple(_room_from(room, i) for i, room in enumerate(value))
        elif key == "allowed_origins":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError("allowed_origins must be a list of strings")
            values[key] = tuple(value)
        elif key in ("default_bot", "secret_key", "public_url", "metrics_token", "time_zone"):
            if not isinstance(value, str):
                raise ConfigError(f"{key} must be a string")
            values[key] = value
        else:
            default = getattr(ServerConfig(), key)
            if (
                isinstance(default, float)
                and isinstance(value, int)
                and not isinstance(value, bool)
            ):
                value = float(value)
            if type(value) is not type(default):
                raise ConfigError(f"{key} must be {type(default).__name__}, got {value!r}")
            values[key] = value
    return ServerConfig(**values)


def load_config(path: str | Path | None) -> ServerConfig:
    """Read a TOML config file (None: the defaults)."""
    if path is None:
        return ServerConfig()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror}") from None
    except UnicodeDecodeError as error:  # binary, UTF-16, Latin-1 ...
        raise ConfigError(
            f"config file {path} is not UTF-8 text (byte {error.start}); save it as UTF-8 TOML"
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]  # a UTF-8 byte order mark, as some editors write
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config file {path} is not valid TOML: {error}") from None
    return config_from_mapping(data)


__all__ = [
    "CLAIM_PAUSES",
    "DEFAULT_ROOMS",
    "ConfigError",
    "Room",
    "ServerConfig",
    "config_from_mapping",
    "load_config",
]
