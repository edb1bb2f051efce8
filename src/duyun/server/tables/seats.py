"""What a table is made of, apart from its behaviour: who sits where, the prompts they are
asked, the summaries of finished hands and the options a table was opened with.

Plain data shared by the hand flow (``flow.py``), the table's state machine (``state.py``), the
async table (``table.py``) and the manager (``manager.py``); nothing here does I/O or knows
asyncio.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from duyun.bots import Bot
from duyun.rules import RuleSet
from duyun.server.tables.inbox import Client as Client

SEATS = 4
#: seconds an empty private table (no human seated) keeps its code before it is dropped
PRIVATE_TABLE_IDLE = 600.0
Viewer = int | None  # a seat, or None for spectators
#: every viewer of a hand: the four seats and the spectators
VIEWERS: tuple[Viewer, ...] = (0, 1, 2, 3, None)


def address_key(address: str | None) -> str | None:
    """A digest of a client address (issue 32 fair matching): what a table and the shared
    ``table_codes`` rows keep to tell two people of one address apart from strangers, without
    keeping the address itself. None for an unknown address (it matches nobody)."""
    if not address or address == "?":
        return None
    return hashlib.sha256(f"duyun-address:{address}".encode()).hexdigest()[:20]


def hand_seed(match_seed: int, index: int) -> int:
    """Each hand's wall seed, derived from the match seed (reproducible, R4)."""
    return random.Random(f"{match_seed}:{index}").getrandbits(63)


def dumps(message: dict[str, Any]) -> str:
    """One server message as the text of its websocket frame: compact UTF-8 JSON.

    orjson, not ``json``: every frame a table sends is encoded here, a tenth of a decision's
    CPU at 1,000 tables with ``json``'s C encoder, and orjson takes about a tenth of that
    (docs/deploy.md, the sixth round). It never writes NaN or Infinity, which are not JSON
    and which a browser's JSON.parse refuses with the whole message (issue 20 item 5): a
    non-finite float would go out as ``null``. Keys that are not strings (an int) are written
    as strings, as ``json`` writes them."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


@dataclass(slots=True)
class Seat:
    """Who sits at a seat and how they are playing."""

    kind: Literal["human", "bot"]
    name: str
    bot_name: str
    account_id: int | None = None
    ready: bool = False
    client: Client | None = None
    tuoguan: bool = False
    #: escaped (R45) or left: a bot plays this seat for the rest of the match
    forced_tuoguan: bool = False
    #: left between hands (no hand on, nothing paid): its player may take it back with a
    #: ``join`` of the table's code (issue 31 item 1); an escape during a hand may not
    may_return: bool = False
    timeouts: int = 0
    balance: int | None = None
    bot: Bot | None = None
    #: when (event-loop clock) this seat's person last lost the connection; kept after a
    #: reconnect, so that a drop shared with other people of the table is recognised as one
    #: failure (``TableState._shared_drop``)
    last_drop: float | None = None
    #: the person has not been back since a restored or adopted table seated them: the server
    #: process failed under them (cleared on reconnect)
    cut_off_by_server: bool = False
    #: the rating shown next to the name (issue 32): the account's, or the bot level's
    rating: int | None = None
    #: :func:`address_key` of the person's address when they sat down (fair matching)
    address: str | None = None

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    @property
    def botted(self) -> bool:
        """A bot decides for this seat (a bot seat, or a human in 托管)."""
        return self.kind == "bot" or self.tuoguan

    def to_json(self, index: int, points: int, coins: int) -> dict[str, Any]:
        return {
            "seat": index,
            "name": self.name,
            "kind": self.kind,
            "account_id": self.account_id,
            "bot": self.bot_name if self.kind == "bot" else None,
            "ready": self.ready,
            "connected": self.kind == "bot" or self.client is not None,
            "tuoguan": self.tuoguan,
            # escaped (R45) or left: 托管 to the end of the match, not to be switched off
            "escaped": self.forced_tuoguan,
            "balance": self.balance,
            "rating": self.rating,
            "points": points,
            "coins": coins,
        }


def bot_seat(name: str) -> Seat:
    return Seat(kind="bot", name=f"bot:{name}", bot_name=name, ready=True)


#: prompt ids start below this, at random, in each process (far inside the 2**53 that a JSON
#: number, and so a browser, holds exactly)
PROMPT_ID_SPAN = 2**40


def first_prompt_id() -> int:
    """Where this process's prompt ids start. Why not at 1: a client may send an ``act``
    naming a prompt again after it reconnects (it cannot know whether the first one arrived),
    and after a restart, or to the process that adopted its match, that id names nothing
    current and is refused as ``too_late``; counted from 1 in every process, the same ids come
    round again within minutes, and the old answer could land on a new prompt of its seat
    that happens to have the old number. Random starts keep the processes' ids apart."""
    return secrets.randbelow(PROMPT_ID_SPAN) + 1


_PROMPT_IDS = itertools.count(first_prompt_id())


@dataclass(slots=True)
class Prompt:
    """A decision asked of one seat; ``id`` lets a late answer be told from a wrong one."""

    kind: Literal["turn", "claim"]
    legal: list[dict[str, Any]]
    deadline: float  # time.monotonic()
    claim_tile: str | None = None
    claim_from: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    id: int = field(default_factory=lambda: next(_PROMPT_IDS))

    def to_json(self, hand_id: int | None) -> dict[str, Any]:
        return {
            **self.extra,
            "type": "prompt",
            "id": self.id,
            "hand_id": hand_id,
            "kind": self.kind,
            "deadline": round(max(0.0, self.deadline - time.monotonic()), 3),
            "legal": self.legal,
            "claim_tile": self.claim_tile,
            "claim_from": self.claim_from,
        }


#: the public fields of a ``win`` event that ``match_end.results`` repeats per hand
WIN_SUMMARY_KEYS = ("seat", "how", "from", "tile", "pattern", "fan", "extras")


def win_summaries(wins: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A hand's wins as the match summary lists them (pattern, fan): a page that joined in
    the middle of a match never saw those hands' ``hand_end`` (issue 21 item 4)."""
    return [{key: win.get(key) for key in WIN_SUMMARY_KEYS} for win in wins]


@dataclass(slots=True)
class HandSummary:
    hand_id: int
    result: str
    winners: list[int]
    points: list[int]
    coins: list[int]
    wins: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class TableOptions:
    kind: Literal["room", "private"]
    room: str | None
    stake: int
    hands: int
    rules: RuleSet
    bots_allowed: bool
    bot: str
    listed: bool
    host: int | None  # account id of the creator (private tables)
    #: may strangers watch (room tables: always; private: the host's choice, issue 20 item 13)
    spectators: bool = True
    #: ``natural`` or ``fixed`` (config.CLAIM_PAUSES; docs/protocol.md "Timing")
    claim_pause: str = "natural"
    #: a private table's match is rated when at least two people sit (issue 32); false: never
    #: (room tables are always rated)
    rated: bool = True
