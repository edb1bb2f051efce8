"""Tables: one asyncio task per table owning the match and its current engine Round.

Every message, timer and connection change for a table is queued to its task, so moves never
race. The task applies decisions to the engine, appends the resulting events to the store
before anyone sees them, and releases them to each seat through ``events_for`` (DESIGN "The
online game, in layers").

The claim window (docs/protocol.md "Timing"). After every discard and every added kong's tile
the table holds what follows for one pause (``_claim_pause``): ``claim_window`` seconds at a
``fixed`` table; at a ``natural`` one (issue 21 item 1) the short ``claim_beat`` unless a person
was offered a claim, whose answer is then awaited. The engine goes straight on
when nobody can claim (it draws the next tile at once), so the table keeps a *released* mark
into the engine's event list: events up to and including the discard are released, the rest
wait for the end of the window. Seats that may claim are prompted at once; their answers are
collected and applied only when the window ends. Content and timing are thus the same whether
or not anyone could claim. Views are folded from the released events
(:func:`duyun.server.protocol.fold_view`), never read from an engine that may be ahead.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from duyun.bots import Bot, make_bot, resolve_bot
from duyun.bots.search import SearchBot
from duyun.engine import (
    Action,
    ActionKind,
    IllegalActionError,
    Phase,
    Round,
    Setup,
    deal_setup,
    events_for,
    replay,
)
from duyun.rules import RuleSet
from duyun.server import protocol
from duyun.server.config import Room, ServerConfig
from duyun.server.dbthread import MOVES, OTHER, DatabaseThread
from duyun.server.metrics import Metrics
from duyun.server.protocol import ProtocolError, error_message
from duyun.server.store import (
    Account,
    ConflictError,
    Lease,
    LeaseLostError,
    LiveMatch,
    MatchSpec,
    SeatSpec,
    Store,
)
from duyun.server.writer import EventWriter
from duyun.tiles import tile_to_str

log = logging.getLogger("duyun.server")

SEATS = 4
#: seconds between the end of a claim window and what follows it going out (at most half the
#: window): resolving claims stores the answers first, and that must not be seen in the timing
CLAIM_SETTLE = 0.02
#: seconds an empty private table (no human seated) keeps its code before it is dropped
PRIVATE_TABLE_IDLE = 600.0
Status = Literal["waiting", "playing", "between", "ended"]
Viewer = int | None  # a seat, or None for spectators


class Client(Protocol):
    """A connected websocket as the tables see it (implemented in app.py)."""

    account: Account | None
    table: Table | None
    spectating: Table | None

    def send(self, message: dict[str, Any]) -> None: ...

    def send_text(self, text: str) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


def hand_seed(match_seed: int, index: int) -> int:
    """Each hand's wall seed, derived from the match seed (reproducible, R4)."""
    return random.Random(f"{match_seed}:{index}").getrandbits(63)


def dumps(message: dict[str, Any]) -> str:
    # allow_nan=False: NaN/Infinity are not JSON and a browser's JSON.parse refuses the whole
    # message (issue 20 item 5); such a value raises here instead of reaching a client
    return json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


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
    timeouts: int = 0
    balance: int | None = None
    bot: Bot | None = None
    #: when (event-loop clock) this seat's person last lost the connection; kept after a
    #: reconnect, so that a drop shared with other people of the table is recognised as one
    #: failure (``Table._shared_drop``)
    last_drop: float | None = None
    #: the person has not been back since a restored or adopted table seated them: the server
    #: process failed under them (cleared on reconnect)
    cut_off_by_server: bool = False

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
            "points": points,
            "coins": coins,
        }


_PROMPT_IDS = itertools.count(1)


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


class Table:
    """One table: seats, spectators, the match and the hand being played."""

    def __init__(self, manager: TableManager, code: str, options: TableOptions) -> None:
        self.manager = manager
        self.config = manager.config
        self.store = manager.store
        self.code = code
        self.options = options
        self.seats: list[Seat | None] = [None] * SEATS
        self.spectators: set[Client] = set()
        self.status: Status = "waiting"
        self.inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.pending_joins = 0
        # match
        self.match_id: int | None = None
        #: the match's lease as this table holds it: every write names it (issue 20 item 9)
        self.lease: Lease | None = None
        self.seed = secrets.randbits(63)
        self.hand_index = 0
        self.dealer = 0
        self.streak = 0
        self.results: list[HandSummary] = []
        self.last_hand_end: dict[str, Any] | None = None
        self.match_end: dict[str, Any] | None = None
        # the hand
        self.round: Round | None = None
        self.hand_id: int | None = None
        self.stored = 0
        self.released = 0
        self.seen: dict[Viewer, int] = {}
        self.window_open = False
        #: the open claim window's start (time.monotonic()) and pause (``_claim_pause``)
        self.window_opened = 0.0
        self.window_pause = 0.0
        #: bots' think times: random, and drawn from nothing about the hand
        self.think = random.Random()
        #: when the last move was made (time.monotonic()): a bot's think time counts from it
        self.moved_at = 0.0
        #: a botted seat's turn move, chosen when its think time starts: (log length, move)
        self.bot_moves: dict[int, tuple[int, Action]] = {}
        self.answers: dict[int, Action] = {}
        self.prompts: dict[int, Prompt] = {}
        self.dissolve_votes: set[int] | None = None
        # 血戰 winners who left the table (R57) while events were held back (a claim window):
        # their leave is applied once every event before it has gone out
        self.pending_leaves: set[int] = set()
        # timers: name -> (id, handle); a firing timer whose id is stale is ignored
        self._timers: dict[str, tuple[int, asyncio.TimerHandle]] = {}
        self._timer_ids = itertools.count(1)
        self.fill_at: float | None = None
        #: the wait between hands is over but a reconnect grace still runs (``_next_hand``)
        self.next_hand_due = False

    # ------------------------------------------------------------------ plumbing

    def start_task(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"table-{self.code}")
        if self.options.kind == "private" and self.status == "waiting":
            self._set_timer("idle", PRIVATE_TABLE_IDLE)

    def post(self, *item: Any) -> None:
        self.inbox.put_nowait(item)

    async def _run(self) -> None:
        while True:
            item = await self.inbox.get()
            if item[0] == "stop":
                self._cancel_all_timers()
                return
            started = time.monotonic()
            try:
                await self._handle(item)
                if item[0] == "message" and isinstance(item[2], protocol.Act):
                    self.manager.metrics.decision(started)
            except ProtocolError as error:
                client = item[1] if len(item) > 1 else None
                if client is not None and hasattr(client, "send"):
                    client.send(error_message(error.code, error.message, _rid(item)))
            except LeaseLostError as error:  # another process adopted the match: stop at once
                log.warning("table %s: %s; its table stops here", self.code, error)
                self.manager.stop_moved(self)
            except ConflictError as error:  # the store disagrees but the match is still ours
                log.warning("table %s: %s; reloading its match from the store", self.code, error)
                await self.manager.reload(self)
            except Exception:  # a bug must not take the table down for everyone
                self.manager.metrics.error("internal")
                log.exception("table %s: error handling %s", self.code, item[0])

    def _set_timer(self, name: str, delay: float, *args: Any) -> None:
        self._cancel_timer(name)
        timer_id = next(self._timer_ids)
        handle = asyncio.get_running_loop().call_later(
            delay, self.inbox.put_nowait, ("timer", name, timer_id, args)
        )
        self._timers[name] = (timer_id, handle)

    def _cancel_timer(self, name: str) -> None:
        entry = self._timers.pop(name, None)
        if entry is not None:
            entry[1].cancel()

    def _cancel_all_timers(self) -> None:
        for name in list(self._timers):
            self._cancel_timer(name)

    async def _handle(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind == "timer":
            _, name, timer_id, args = item
            entry = self._timers.get(name)
            if entry is None or entry[0] != timer_id:
                return  # cancelled or replaced
            del self._timers[name]
            await self._on_timer(name, *args)
        elif kind == "message":
            await self._on_message(item[1], item[2])
        elif kind == "join":
            await self._on_join(item[1], item[2])
        elif kind == "attach":
            self._on_attach(item[1])
            await self._maybe_next_hand()
        elif kind == "detach":
            await self._on_detach(item[1])
        elif kind == "spectate":
            self._on_spectate(item[1])
        elif kind == "unspectate":
            self.spectators.discard(item[1])
            if item[1].spectating is self:
                item[1].spectating = None
            self._broadcast_table()
        elif kind == "call":
            await item[1]()

    async def _db(self, function: Callable[..., Any], *args: Any) -> Any:
        return await self.manager.run_db(function, *args)

    # ------------------------------------------------------------------ state to clients

    @property
    def seated_count(self) -> int:
        return sum(seat is not None for seat in self.seats)

    @property
    def free_seats(self) -> int:
        return SEATS - self.seated_count

    def humans(self) -> list[tuple[int, Seat]]:
        return [(i, s) for i, s in enumerate(self.seats) if s is not None and s.is_human]

    def seat_of(self, client: Client) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.client is client:
                return index
        return None

    def host_seat(self) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.account_id == self.options.host and seat.is_human:
                return index
        return None

    def match_points(self) -> list[int]:
        return [sum(h.points[s] for h in self.results) for s in range(SEATS)]

    def match_coins(self) -> list[int]:
        return [sum(h.coins[s] for h in self.results) for s in range(SEATS)]

    def summary(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "kind": self.options.kind,
            "room": self.options.room,
            "stake": self.options.stake,
            "hands": self.options.hands,
            "rules": self.options.rules.to_mapping(),
            "bots_allowed": self.options.bots_allowed,
            "bot": self.options.bot,
            "spectators_allowed": self.options.spectators,
            "claim_pause": self.options.claim_pause,
            "status": self.status,
            "seated": self.seated_count,
            "humans": len(self.humans()),
            "hand_index": self.hand_index,
            "spectators": len(self.spectators),
        }

    def table_json(self, you: int | None) -> dict[str, Any]:
        points, coins = self.match_points(), self.match_coins()
        data = self.summary()
        data.update(
            {
                "host": self.host_seat(),
                "hand_id": self.hand_id,
                "you": you,
                "seats": [
                    None if seat is None else seat.to_json(i, points[i], coins[i])
                    for i, seat in enumerate(self.seats)
                ],
                "dissolve": None
                if self.dissolve_votes is None
                else {"agreed": sorted(self.dissolve_votes), "needed": self._voters()},
                "invite": f"/?join={self.code}",
            }
        )
        return data

    def _broadcast_table(self) -> None:
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.client is not None:
                seat.client.send({"type": "table", "table": self.table_json(index)})
        if self.spectators:
            text = dumps({"type": "table", "table": self.table_json(None)})
            for client in self.spectators:
                client.send_text(text)

    def _viewers(self) -> list[tuple[Viewer, list[Client]]]:
        out: list[tuple[Viewer, list[Client]]] = []
        for index, seat in enumerate(self.seats):
            out.append((index, [seat.client] if seat is not None and seat.client else []))
        out.append((None, list(self.spectators)))
        return out

    def _send_to_all(self, message: dict[str, Any]) -> None:
        text = dumps(message)
        for _, clients in self._viewers():
            for client in clients:
                client.send_text(text)

    def snapshot(self, viewer: Viewer) -> dict[str, Any] | None:
        if self.round is None or self.released == 0:
            return None
        events = events_for(self.round.events[: self.released], viewer)
        prompt = self.prompts.get(viewer) if viewer is not None else None
        return {
            "type": "snapshot",
            "hand_id": self.hand_id,
            "hand_index": self.hand_index,
            "seat": viewer,
            "view": protocol.fold_view(events, viewer),
            "events": events,
            "prompt": None if prompt is None else prompt.to_json(self.hand_id),
        }

    def _send_state(self, client: Client, viewer: Viewer) -> None:
        """table + snapshot (+ the last settlement between hands) for a client arriving."""
        client.send({"type": "table", "table": self.table_json(viewer)})
        snap = self.snapshot(viewer)
        if snap is not None:
            client.send(snap)
            self.seen[viewer] = len(snap["events"])  # the next events batch follows on
        if self.status in ("between", "ended") and self.last_hand_end is not None:
            client.send(self.last_hand_end)
        if self.status == "ended" and self.match_end is not None:
            client.send(self.match_end)

    # ------------------------------------------------------------------ joining and leaving

    async def _on_join(self, client: Client, seat_wanted: int | None) -> None:
        self.pending_joins = max(0, self.pending_joins - 1)
        account = client.account
        assert account is not None
        if self.status != "waiting":
            self._unjoin(client)
            raise ProtocolError("wrong_state", f"table {self.code} has already started")
        if any(s is not None and s.account_id == account.id for s in self.seats):
            self._send_state(client, self.seat_of(client))
            return
        free = [i for i, s in enumerate(self.seats) if s is None]
        if not free:
            self._unjoin(client)
            if self.options.kind == "room" and self.options.room is not None:
                await self.manager.quick_match(client, self.options.room)
                return
            raise ProtocolError("table_full", f"table {self.code} has no free seat")
        index = free[0] if seat_wanted is None or seat_wanted not in free else seat_wanted
        self.seats[index] = Seat(
            kind="human",
            name=account.name,
            bot_name=self.options.bot,
            account_id=account.id,
            ready=self.options.kind == "room",
            client=client,
            balance=account.balance,
        )
        client.table = self
        if client.spectating is self:
            self.spectators.discard(client)
            client.spectating = None
        self._broadcast_table()
        self._send_state(client, index)
        if self.options.kind == "room" and "fill" not in self._timers and self.free_seats:
            self._set_timer("fill", self.config.bot_fill_wait)
            self.fill_at = time.monotonic() + self.config.bot_fill_wait
        await self._maybe_start()

    def _unjoin(self, client: Client) -> None:
        """A join that did not get a seat: the client is free again."""
        if client.account is not None:
            self.manager.unseat(client.account.id, self)
        if client.table is self:
            client.table = None

    def _on_attach(self, client: Client) -> None:
        """A reconnect (or a second connection taking over): the seat gets the new client."""
        account = client.account
        assert account is not None
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.account_id == account.id and seat.is_human:
                seat.client = client
                seat.cut_off_by_server = False
                client.table = self
                self._cancel_timer(f"grace:{index}")
                self._broadcast_table()
                self._send_state(client, index)
                return
        client.table = None
        self.manager.unseat(account.id, self)

    async def _on_detach(self, client: Client) -> None:
        """The client's socket closed (or it was replaced)."""
        if client in self.spectators:
            self.spectators.discard(client)
            self._broadcast_table()
        index = self.seat_of(client)
        if index is None:
            return
        seat = self.seats[index]
        assert seat is not None
        seat.client = None
        seat.last_drop = asyncio.get_running_loop().time()
        if self.status == "waiting":
            self._free_seat(index)
        elif self.status != "ended" and not seat.forced_tuoguan:
            # per match (issue 20 item 12): it runs on across the end of a hand, and the next
            # hand does not start before it has run out (``_next_hand``). An escaped seat has
            # nothing left to lose: its bot plays on whether its player watches or not.
            self._set_timer(f"grace:{index}", self.config.reconnect_grace, index)
        self._broadcast_table()

    def _free_seat(self, index: int) -> None:
        seat = self.seats[index]
        if seat is None:
            return
        self.seats[index] = None
        if seat.account_id is not None:
            self.manager.unseat(seat.account_id, self)
        if seat.client is not None and seat.client.table is self:
            seat.client.table = None
        if not self.humans() and self.status == "waiting":
            self._cancel_timer("fill")
            if self.options.kind == "private":
                # an invite stays valid while its players come and go (a page reload)
                self._set_timer("idle", PRIVATE_TABLE_IDLE)
            else:
                self.manager.drop_table(self)

    def _on_spectate(self, client: Client) -> None:
        if client.account is not None and any(
            s is not None and s.account_id == client.account.id for s in self.seats
        ):
            raise ProtocolError("wrong_state", "you are seated at this table; you cannot watch it")
        if client.spectating is not None and client.spectating is not self:
            client.spectating.post("unspectate", client)
        client.spectating = self
        self.spectators.add(client)
        self._send_state(client, None)
        self._broadcast_table()

    async def _leave(self, index: int) -> None:
        seat = self.seats[index]
        assert seat is not None
        if self.status == "waiting":
            client = seat.client
            self._free_seat(index)
            if client is not None:
                client.send({"type": "table", "table": None})
            self._broadcast_table()
            return
        # during a match: R45 when a hand is on, then 托管 for the rest of the match. A seat
        # that has escaped already only stops being watched by its player: no second escape.
        if not seat.forced_tuoguan:
            await self._escape(index)
        client = seat.client
        seat.client = None
        if seat.account_id is not None:
            self.manager.unseat(seat.account_id, self)
        if client is not None:
            client.table = None
            client.send({"type": "table", "table": None})
        self._broadcast_table()
        await self._maybe_next_hand()

    async def _escape(self, index: int) -> None:
        """R45: a seat quits or its reconnect grace runs out while a hand is on."""
        seat = self.seats[index]
        assert seat is not None
        newly_forced = not seat.forced_tuoguan
        seat.forced_tuoguan = True
        seat.tuoguan = True
        self._cancel_timer(f"grace:{index}")
        if newly_forced and self.match_id is not None and seat.account_id is not None:
            # stored before the escape itself: a restart in between resumes the hand with the
            # seat played by its bot (no penalty charged) rather than waiting for the player
            await self._db(self.store.mark_forced_tuoguan, self.match_id, index, self.lease)
        game = self.round
        if self.status != "playing" or game is None or game.is_over:
            return
        if game.won[index]:
            # R57: a 血戰 winner leaves the table without penalty and the hand goes on; nobody
            # else's prompt, timer or claim window is touched (a winner is never prompted)
            self.pending_leaves.add(index)
            if not self.window_open and self.released == len(game.events):
                await self._apply_leaves()
            return
        game.escape(index)
        self.prompts.clear()
        self.answers.clear()
        await self._store_events()
        if not self.window_open:
            self._cancel_timer("decision")
            await self._pump()

    # ------------------------------------------------------------------ messages

    async def _on_message(self, client: Client, message: protocol._Message) -> None:
        index = self.seat_of(client)
        if isinstance(message, protocol.Reaction):
            self._reaction(client, index, message)
            return
        if index is None:
            raise ProtocolError("not_seated", "sit at a table first")
        seat = self.seats[index]
        assert seat is not None
        if isinstance(message, protocol.Act):
            await self._on_act(index, seat, message)
        elif isinstance(message, protocol.Ready):
            await self._on_ready(index, seat, message.ready)
        elif isinstance(message, protocol.Sit):
            self._on_sit(index, message.seat)
        elif isinstance(message, protocol.Leave):
            await self._leave(index)
        elif isinstance(message, protocol.AddBot):
            await self._on_add_bot(client, message)
        elif isinstance(message, protocol.RemoveBot):
            self._on_remove_bot(client, message.seat)
        elif isinstance(message, protocol.Start):
            await self._on_start(client)
        elif isinstance(message, protocol.Tuoguan):
            await self._on_tuoguan(index, seat, message.on)
        elif isinstance(message, protocol.Dissolve):
            await self._on_dissolve(index, message.agree)
        else:  # pragma: no cover - the manager routes only table messages here
            raise ProtocolError("unknown_type", f"{message.__class__.__name__} is not for tables")

    def _reaction(self, client: Client, index: int | None, message: protocol.Reaction) -> None:
        text = protocol.REACTION_TEXT.get(message.id)
        if text is None:
            raise ProtocolError(
                "unknown_reaction",
                f"unknown reaction {message.id!r}; known: {', '.join(protocol.REACTION_TEXT)}",
            )
        if index is None and client not in self.spectators:
            raise ProtocolError("not_seated", "sit at or watch a table first")
        name = client.account.name if client.account is not None else "?"
        self._send_to_all(
            {"type": "reaction", "seat": index, "name": name, "id": message.id, "text": text}
        )

    def _on_sit(self, index: int, wanted: int) -> None:
        if self.status != "waiting":
            raise ProtocolError("wrong_state", "seats can change only before the match starts")
        if wanted == index:
            return
        if self.seats[wanted] is not None:
            raise ProtocolError("wrong_state", f"seat {wanted} is taken")
        self.seats[wanted], self.seats[index] = self.seats[index], None
        self._broadcast_table()

    def _require_host(self, client: Client) -> None:
        account = client.account
        if self.options.kind != "private" or account is None or account.id != self.options.host:
            raise ProtocolError("not_host", "only the host of a private table may do that")
        if self.status != "waiting":
            raise ProtocolError("wrong_state", "only before the match starts")

    async def _on_add_bot(self, client: Client, message: protocol.AddBot) -> None:
        self._require_host(client)
        if not self.options.bots_allowed:
            raise ProtocolError("wrong_state", "this table does not allow bots")
        try:  # a bot name or a difficulty level (easy/normal/hard/expert)
            name = resolve_bot(message.bot or self.options.bot)
        except ValueError as error:
            raise ProtocolError("unknown_bot", str(error)) from None
        if self.seats[message.seat] is not None:
            raise ProtocolError("wrong_state", f"seat {message.seat} is taken")
        self.seats[message.seat] = self._bot_seat(name)
        self._broadcast_table()
        await self._maybe_start()

    def _on_remove_bot(self, client: Client, index: int) -> None:
        self._require_host(client)
        seat = self.seats[index]
        if seat is None or seat.kind != "bot":
            raise ProtocolError("wrong_state", f"seat {index} holds no bot")
        self.seats[index] = None
        self._broadcast_table()

    def _bot_seat(self, name: str) -> Seat:
        return Seat(kind="bot", name=f"bot:{name}", bot_name=name, ready=True)

    async def _on_start(self, client: Client) -> None:
        self._require_host(client)
        if any(not s.ready for _, s in self.humans()):
            raise ProtocolError("wrong_state", "every player must be ready (準備) first")
        if self.free_seats and not self.options.bots_allowed:
            raise ProtocolError("wrong_state", "four players are needed (this table has no bots)")
        for index, seat in enumerate(self.seats):
            if seat is None:
                self.seats[index] = self._bot_seat(self.options.bot)
        self._broadcast_table()
        await self._maybe_start()

    async def _on_ready(self, index: int, seat: Seat, ready: bool) -> None:
        if self.status not in ("waiting", "between"):
            raise ProtocolError(
                "wrong_state", "ready (準備) only before the match or between hands"
            )
        seat.ready = ready
        self._broadcast_table()
        if self.status == "waiting":
            await self._maybe_start()
        else:
            await self._maybe_next_hand()

    async def _on_tuoguan(self, index: int, seat: Seat, on: bool) -> None:
        if not on and seat.forced_tuoguan:
            raise ProtocolError(
                "wrong_state", "your seat escaped: a bot plays it until the match ends"
            )
        seat.tuoguan = on
        seat.timeouts = 0
        self._broadcast_table()
        if self.status == "between":
            await self._maybe_next_hand()
        game = self.round
        if self.status != "playing" or game is None or self.window_open:
            return
        # re-prompt the seat's pending turn decision under its new driver
        if game.phase is Phase.TURN and game.current == index and self.released == len(game.events):
            self._prompt_turn(index)

    def _voters(self) -> list[int]:
        return [i for i, s in self.humans() if s.client is not None and not s.forced_tuoguan]

    async def _on_dissolve(self, index: int, agree: bool) -> None:
        if self.status != "between":
            raise ProtocolError("wrong_state", "解散 votes are held only between hands")
        if not agree:
            self.dissolve_votes = None
            self._broadcast_table()
            return
        if self.dissolve_votes is None:
            self.dissolve_votes = set()
        self.dissolve_votes.add(index)
        self._broadcast_table()
        if set(self._voters()) <= self.dissolve_votes:
            await self._finish_match("dissolved")

    # ------------------------------------------------------------------ match flow

    async def _maybe_start(self) -> None:
        if self.status != "waiting" or self.free_seats:
            return
        if any(not s.ready for _, s in self.humans()):
            return
        if not self.humans():
            return
        self._cancel_timer("fill")
        await self._start_match()

    async def _fill_with_bots(self) -> None:
        if self.status != "waiting" or not self.humans():
            return
        for index, seat in enumerate(self.seats):
            if seat is None:
                self.seats[index] = self._bot_seat(self.config.default_bot)
        self._broadcast_table()
        await self._maybe_start()

    async def _start_match(self) -> None:
        self.status = "playing"
        spec = MatchSpec(
            kind=self.options.kind,
            room=self.options.room or "",
            stake=self.options.stake,
            hands=self.options.hands,
            seats=tuple(SeatSpec(s.account_id, s.bot_name) for s in self.seats if s is not None),
            seed=self.seed,
            code=self.code,
            first_dealer=0,
            rules=self.options.rules.to_mapping(),
            options={
                "bots_allowed": self.options.bots_allowed,
                "bot": self.options.bot,
                "listed": self.options.listed,
                "host": self.options.host,
                "spectators": self.options.spectators,
                "claim_pause": self.options.claim_pause,
            },
        )
        self.match_id = await self._db(self.store.create_match, spec, self.manager.owner)
        self.lease = Lease(self.manager.owner, 0)  # a new match's epoch
        self.manager.by_match[self.match_id] = self
        self.dealer, self.streak, self.hand_index = 0, 0, 0  # R3
        await self._start_hand()

    async def _start_hand(self) -> None:
        assert self.match_id is not None
        self._cancel_timer("next_hand")
        self.next_hand_due = False
        self.dissolve_votes = None
        self.last_hand_end = None
        seed = hand_seed(self.seed, self.hand_index)
        game = Round(self._deal(seed), self.options.rules)
        self.hand_id = await self._db(
            self.store.start_hand,
            self.match_id,
            self.hand_index,
            seed,
            self.dealer,
            self.streak,
            self.lease,
        )
        self.round = game
        self.stored = 0
        self.released = 0
        self.seen = {viewer: 0 for viewer in (0, 1, 2, 3, None)}
        self.prompts.clear()
        self.answers.clear()
        self.pending_leaves.clear()
        self.window_open = False
        await self._store_events()
        self.status = "playing"
        for _, seat in self.humans():
            seat.ready = False
        self._broadcast_table()
        # the start event goes out as a snapshot, then play runs on
        self.released = 1
        self.moved_at = time.monotonic()
        for viewer, clients in self._viewers():
            self.seen[viewer] = len(events_for(game.events[:1], viewer))
            if clients:
                snap = self.snapshot(viewer)
                for client in clients:
                    client.send(snap) if snap is not None else None
        await self._pump()

    def _deal(self, seed: int) -> Setup:
        """The hand's deal: from its seed (R4), or from the manager's test hook."""
        if self.manager.deal is not None:
            return self.manager.deal(self.hand_index, seed, self.dealer, self.streak)
        return deal_setup(seed, dealer=self.dealer, streak=self.streak)

    async def _store_events(self) -> None:
        game = self.round
        assert game is not None and self.hand_id is not None
        if self.stored < len(game.events):
            batch = game.events[self.stored :]
            await self.manager.writer.append(self.hand_id, self.stored, list(batch), self.lease)
            self.stored += len(batch)

    def _release(self, stop: int) -> None:
        game = self.round
        assert game is not None
        batch = game.events[self.released : stop]
        self.released = stop
        for viewer, clients in self._viewers():
            if not clients:
                continue  # nobody to tell; a client arriving later gets a snapshot (and seq)
            visible = events_for(batch, viewer)
            if not visible:
                continue
            seq = self.seen.get(viewer, 0)
            self.seen[viewer] = seq + len(visible)
            text = dumps({"type": "events", "hand_id": self.hand_id, "seq": seq, "events": visible})
            for client in clients:
                client.send_text(text)

    @staticmethod
    def _holds(event: dict[str, Any]) -> bool:
        """A discard or an added kong's tile: a claim window follows it."""
        kind = event["type"]
        return kind == "discard" or (kind == "act" and event.get("action") == "added_kong")

    @staticmethod
    def _window_start(events: list[dict[str, Any]], hold: int) -> int:
        """Where the claim window after the held event at ``hold`` begins: after the private
        notices the engine writes with the discard (``win_refused``, R17/R9, seen only by its
        seat). Holding them back past the window's start left the engine "ahead" of the
        released events, so no prompt went out and a second window followed: a pause, and a
        late prompt, that told everyone a win had been refused (issue 20 item 2)."""
        stop = hold + 1
        while stop < len(events) and events[stop]["type"] == "win_refused":
            stop += 1
        return stop

    async def _pump(self) -> None:
        """Release events up to the next claim window, or all of them and prompt."""
        game = self.round
        assert game is not None
        events = game.events
        while self.released < len(events):
            hold = next(
                (i for i in range(self.released, len(events)) if self._holds(events[i])), None
            )
            if hold is None:
                self._release(len(events))
                break
            self._release(self._window_start(events, hold))
            self._open_window()
            return
        if self.pending_leaves:
            await self._apply_leaves()
        if game.is_over:
            await self._finish_hand()
        elif game.phase is Phase.TURN:
            self._prompt_turn(game.current)
        elif game.phase is Phase.CLAIMS and not self.window_open:
            self._open_window()  # restored in the middle of a claim window

    async def _apply_leaves(self) -> None:
        """Apply the R57 leaves of 血戰 winners (``Round.leave``), store and release them.

        Called only when every event has been released and no claim window is open, so the
        ``leave`` events go out in log order. A leave still pending when the hand ends is
        dropped: the hand is over, and the seat is 托管 for the rest of the match anyway."""
        game = self.round
        assert game is not None
        leaving, self.pending_leaves = sorted(self.pending_leaves), set()
        for index in leaving:
            if not game.is_over and game.won[index] and not game.left[index]:
                game.leave(index)
        await self._store_events()
        self._release(len(game.events))

    def _claim_pause(self, person_asked: bool) -> float:
        """How long the table holds what follows a discard or an added kong's tile: the one
        place that decides it. It depends on nothing hidden (issue 20 item 2): not on who may
        claim, win or was refused. ``fixed``: the one window whatever happens. ``natural``
        (issue 21 item 1): the short beat, unless a person was offered a claim: then up to the
        claim timer, ended early by that person's answer (``_on_act``). Bots answer at once, so
        a claim only a bot could make costs the same beat as a tile nobody can claim."""
        if self.options.claim_pause == "natural" and not person_asked:
            return self.config.claim_beat
        return self.config.claim_window

    def _people_to_ask(self) -> list[int]:
        """The seats a person decides for, and is connected to answer, that may claim the tile
        on the table now. A dropped person is not waited for (whether they could claim stays
        hidden, and the table does not crawl through their reconnect grace)."""
        game = self.round
        assert game is not None
        if self.released != len(game.events) or game.phase is not Phase.CLAIMS:
            return []
        return [
            i
            for i in game.to_act
            if (seat := self.seats[i]) is not None and not seat.botted and seat.client is not None
        ]

    def _open_window(self) -> None:
        """Start one claim window. The timer starts first and bots decide now, not at its
        end, so that the moment the window resolves does not depend on who could claim."""
        game = self.round
        assert game is not None
        pause = self._claim_pause(bool(self._people_to_ask()))
        self._set_timer("decision", pause, "window")
        now = time.monotonic()
        deadline = now + pause
        self.window_opened, self.window_pause = now, pause
        self.moved_at = now
        self.window_open = True
        self.answers.clear()
        self.prompts.clear()
        if self.released != len(game.events) or game.phase is not Phase.CLAIMS:
            return
        claims = game.claims
        assert claims is not None
        for seat_index in game.to_act:
            seat = self.seats[seat_index]
            assert seat is not None
            if seat.botted:
                self.answers[seat_index] = self._bot_choice(seat_index, claim=True)
                continue
            prompt = Prompt(
                "claim",
                protocol.legal_to_json(game.legal_actions(seat_index)),
                deadline,
                tile_to_str(claims.tile),
                claims.from_seat,
            )
            self.prompts[seat_index] = prompt
            if seat.client is not None:
                seat.client.send(prompt.to_json(self.hand_id))

    def _prompt_turn(self, index: int) -> None:
        game = self.round
        assert game is not None
        seat = self.seats[index]
        assert seat is not None
        self.prompts.clear()
        if seat.botted:
            # decided now and played when the think time is over, so that how long the bot
            # computed (which depends on its hand) is hidden inside the think time
            self.bot_moves[index] = (len(game.events), self._bot_choice(index))
            elapsed = time.monotonic() - self.moved_at
            self._set_timer("decision", max(0.0, self._think_time() - elapsed), "bot", index)
            return
        prompt = Prompt(
            "turn",
            protocol.legal_to_json(game.legal_actions(index)),
            time.monotonic() + self.config.turn_timer,
        )
        # R17/R25-R27: 報聽 discards after which the hand could win only by self-draw
        prompt.extra["baoting_self_draw_only"] = [
            tile_to_str(t) for t in game.baoting_self_draw_only(index)
        ]
        self.prompts[index] = prompt
        if seat.client is not None:
            seat.client.send(prompt.to_json(self.hand_id))
        self._set_timer("decision", self.config.turn_timer, "turn", index)

    def _think_time(self) -> float:
        """A bot's (or 托管 seat's) pause before its turn move, counted from the move before
        it (the claim pause after the previous discard is part of it, as a person thinks while
        others decide): short and varied like a person's quick move, and drawn independently
        of the hand, so it tells nothing."""
        low = self.config.bot_delay
        return self.think.uniform(low, max(low, self.config.bot_delay_max))

    async def _on_timer(self, name: str, *args: Any) -> None:
        if name == "decision":
            await self._on_decision_timer(*args)
        elif name == "fill":
            await self._fill_with_bots()
        elif name == "next_hand":
            await self._next_hand()
        elif name == "idle":
            if self.status == "waiting" and not self.humans():
                self.manager.drop_table(self)
        elif name.startswith("grace:"):
            index = int(args[0])
            seat = self.seats[index]
            if seat is None or seat.client is not None or seat.forced_tuoguan:
                return
            if self._shared_drop(index):
                # several people of the table lost their connections together: the network or
                # the server failed, nobody quit (issue 20 item 12). No R45: the seat is played
                # in 托管, which its player switches off on coming back.
                await self._on_tuoguan(index, seat, True)
                await self._maybe_next_hand()
                return
            # R45 when a hand is on; between hands only 托管 for the rest of the match. The
            # account stays seated (issue 20 item 6): its player may come back and watch the
            # seat finish the match, but not take it back (``tuoguan off`` is refused).
            await self._escape(index)
            self._broadcast_table()
            await self._maybe_next_hand()

    def _shared_drop(self, index: int) -> bool:
        """Whether another person at this table lost the connection within
        ``shared_drop_window`` seconds of this seat's person (before or after, back since or
        not), or the person has not been back since a restore seated them. One person leaving
        is a quit; people dropping together, or a server process dying under them, is a failure
        of the network or the server, which no player pays R45 for (issue 20 item 12). A table
        with one person cannot tell a lone drop from a quit: there a drop past the grace stays
        an escape."""
        seat = self.seats[index]
        if seat is None:
            return False
        if seat.cut_off_by_server:
            return True
        if seat.last_drop is None:
            return False
        window = self.config.shared_drop_window
        return any(
            other is not None
            and other is not seat
            and other.is_human
            and other.last_drop is not None
            and abs(other.last_drop - seat.last_drop) <= window
            for other in self.seats
        )

    async def _on_decision_timer(self, what: str, index: int | None = None) -> None:
        game = self.round
        if game is None or self.status != "playing":
            return
        if what == "window":
            self.window_open = False
            self.prompts.clear()
            # what follows goes out a fixed settle time after the window, so the work of
            # resolving claims (applying answers, storing them) does not show in the timing
            release_at = time.monotonic() + min(CLAIM_SETTLE, self.window_pause / 2)
            if game.phase is Phase.CLAIMS and self.released == len(game.events):
                await self._resolve_claims()
            await asyncio.sleep(max(0.0, release_at - time.monotonic()))
            await self._pump()
            return
        if game.phase is not Phase.TURN or game.current != index:
            return
        assert index is not None
        seat = self.seats[index]
        assert seat is not None
        if what == "bot":
            logged, action = self.bot_moves.pop(index, (-1, None))
            if action is None or logged != len(game.events):
                action = self._bot_choice(index)  # the hand moved on since: decide again
            await self._apply(action)
            return
        # a turn that ran out: the obvious move; two in a row -> 托管
        seat.timeouts += 1
        if seat.timeouts >= 2 and not seat.tuoguan:
            seat.tuoguan = True
            self._broadcast_table()
        await self._apply(self._obvious_move(index))

    def _obvious_move(self, index: int) -> Action:
        game = self.round
        assert game is not None
        legal = game.legal_actions(index)
        drawn = game.drawn_tile if game.current == index else None
        if drawn is not None:
            action = Action(index, ActionKind.DISCARD, drawn)
            if action in legal:
                return action
        discards = [a for a in legal if a.kind is ActionKind.DISCARD]
        assert discards and all(a.tile is not None for a in discards)
        return max(discards, key=lambda a: a.tile or 0)

    def _bot_choice(self, index: int, *, claim: bool = False) -> Action:
        """The bot's move for a botted seat. A claim is answered inside the claim pause, whose
        timer is already running: a search there (大師) could outlast a 0.6 s beat and so tell
        the table that a bot may claim (issue 20 item 2), so the search bot answers claims
        with its base policy, the strong bot's, in milliseconds."""
        game = self.round
        assert game is not None
        seat = self.seats[index]
        assert seat is not None
        if seat.bot is None:
            seat.bot = make_bot(seat.bot_name, seed=hand_seed(self.seed, 1000 + index))
        view = game.view(index)
        if claim and isinstance(seat.bot, SearchBot):
            return seat.bot.strong.choose(view)
        return seat.bot.choose(view)

    async def _resolve_claims(self) -> None:
        game = self.round
        assert game is not None
        for index in list(game.to_act):
            if game.phase is not Phase.CLAIMS or index not in game.to_act:
                continue
            seat = self.seats[index]
            assert seat is not None
            action = self.answers.get(index)
            if action is None:
                action = (
                    self._bot_choice(index, claim=True)
                    if seat.botted
                    else Action(index, ActionKind.PASS)
                )
            game.apply(action)
            if action.kind is not ActionKind.PASS:
                self.moved_at = time.monotonic()  # a claim: a bot thinks anew before discarding
        self.answers.clear()
        await self._store_events()

    async def _apply(self, action: Action) -> None:
        game = self.round
        assert game is not None
        self._cancel_timer("decision")
        self.prompts.clear()
        game.apply(action)
        self.moved_at = time.monotonic()
        await self._store_events()
        await self._pump()

    async def _on_act(self, index: int, seat: Seat, message: protocol.Act) -> None:
        if message.seat is not None and message.seat != index:
            raise ProtocolError(
                "not_your_seat", f"you sit at seat {index}; you cannot act for seat {message.seat}"
            )
        if seat.forced_tuoguan:
            raise ProtocolError(
                "wrong_state", "your seat escaped: a bot plays it until the match ends"
            )
        action = protocol.action_from_message(message, index)
        if message.prompt is not None:
            current = self.prompts.get(index)
            if current is None or current.id != message.prompt:
                raise ProtocolError(
                    "too_late", f"prompt {message.prompt} has closed; nothing was done"
                )
        game = self.round
        if self.status != "playing" or game is None or game.is_over:
            raise ProtocolError("not_your_turn", "no hand is being played")
        stable = self.released == len(game.events)
        if game.phase is Phase.CLAIMS and stable and self.window_open and index in game.to_act:
            legal = game.legal_actions(index)
            if action not in legal:
                options = ", ".join(a.kind.value for a in legal)
                raise ProtocolError(
                    "illegal_action", f"{action}: on this tile you may only {options}"
                )
            self.answers[index] = action
            self.prompts.pop(index, None)
            waiting = [i for i in self.prompts if i in self._people_to_ask()]
            if self.options.claim_pause == "natural" and not waiting:
                # every person asked has answered: a natural table moves on (but never before
                # the beat, so an answer given at once looks like nobody was asked)
                beat_end = self.window_opened + min(self.config.claim_beat, self.window_pause)
                self._set_timer("decision", max(0.0, beat_end - time.monotonic()), "window")
            return
        if game.phase is not Phase.TURN or not stable or game.current != index:
            raise ProtocolError("not_your_turn", "you have no decision to make now")
        if action not in game.legal_actions(index):
            try:
                game.apply(action)  # refused by the engine, which says why; nothing changes
            except IllegalActionError as error:
                raise ProtocolError("illegal_action", str(error)) from None
            raise AssertionError(f"{action} was applied although it is not legal")
        seat.timeouts = 0
        await self._apply(action)

    async def _finish_hand(self) -> None:
        game = self.round
        assert game is not None and game.result is not None and self.hand_id is not None
        self._cancel_timer("decision")
        self.prompts.clear()
        result = game.result
        end = next(e for e in reversed(game.events) if e["type"] == "end")
        wins = [e for e in game.events if e["type"] == "win"]
        stored_result = {**end, "wins": wins}
        rows = await self._db(
            self.store.finish_hand, self.hand_id, list(result.payments), stored_result, self.lease
        )
        coins = [0] * SEATS
        payments: list[dict[str, Any]] = []
        for payment, row in zip(result.payments, rows, strict=False):
            coins[payment.payer] -= row.coins
            coins[payment.payee] += row.coins
            payments.append({**payment.to_json(), "coins": row.requested, "paid": row.coins})
        await self._refresh_balances()
        self.results.append(
            HandSummary(
                self.hand_id,
                result.result,
                list(result.winners),
                list(result.totals),
                coins,
                win_summaries(wins),
            )
        )
        self.dealer, self.streak = result.next_dealer, result.next_streak
        self.hand_index += 1
        last = self.hand_index >= self.options.hands
        self.last_hand_end = {
            "type": "hand_end",
            "hand_id": self.hand_id,
            "hand_index": self.hand_index - 1,
            "result": result.result,
            "winners": list(result.winners),
            "win_kind": None if result.win_kind is None else result.win_kind.value,
            "loser": result.loser,
            "wins": wins,
            "hands": end["hands"],
            # 血戰 (R57): the winners who left the table during the hand
            "left": list(end.get("left", [False] * SEATS)),
            "payments": payments,
            "points": list(result.totals),
            "coins": coins,
            "balances": [None if s is None else s.balance for s in self.seats],
            "next_dealer": result.next_dealer,
            "next_streak": result.next_streak,
            "next_hand_in": None if last else self.config.next_hand_wait,
        }
        self._send_to_all(self.last_hand_end)
        if last:
            await self._finish_match("completed")
            return
        self.status = "between"
        for _, seat in self.humans():
            seat.ready = False
        self._set_timer("next_hand", self._next_hand_limit())
        self._broadcast_table()
        await self._maybe_next_hand()

    async def _refresh_balances(self) -> None:
        seats = [seat for _, seat in self.humans() if seat.account_id is not None]
        if not seats:
            return
        balances = await self._db(self.store.balances, [s.account_id for s in seats])
        for seat in seats:
            assert seat.account_id is not None
            seat.balance = balances[seat.account_id]

    def _next_hand_limit(self) -> float:
        """The longest the next hand waits for people who have not pressed 下一局 (issue 21
        item 4). Their page presses it by itself when its countdown (``next_hand_wait``) ends,
        unless they are reading the settlement; bots, 托管 and absent seats never hold it."""
        return max(self.config.next_hand_wait, self.config.next_hand_limit)

    async def _maybe_next_hand(self) -> None:
        if self.status != "between":
            return
        waiting_for = [
            s for _, s in self.humans() if s.client is not None and not s.tuoguan and not s.ready
        ]
        if not waiting_for or self.next_hand_due:
            await self._next_hand()

    def _graces_running(self) -> bool:
        return any(name.startswith("grace:") for name in self._timers)

    async def _next_hand(self) -> None:
        """Start the next hand, unless a dropped person's reconnect grace is still running:
        a hand started under it would charge them R45 when it runs out, for a connection
        lost between hands, and a table whose people all dropped at once would charge them
        one per hand (issue 20 item 12). The hand then starts when the last grace ends (the
        person is back, or the seat plays on in 托管 without penalty)."""
        if self.status != "between":
            return
        if self._graces_running():
            self.next_hand_due = True
            return
        await self._start_hand()

    async def _finish_match(self, reason: str) -> None:
        assert self.match_id is not None
        self._cancel_all_timers()
        await self._db(self.store.finish_match, self.match_id, reason, self.lease)
        self.status = "ended"
        self.dissolve_votes = None
        self.match_end = {
            "type": "match_end",
            "reason": reason,
            "hands_played": len(self.results),
            "points": self.match_points(),
            "coins": self.match_coins(),
            "results": [
                {
                    "hand_id": h.hand_id,
                    "result": h.result,
                    "winners": h.winners,
                    "points": h.points,
                    "coins": h.coins,
                    "wins": h.wins,
                }
                for h in self.results
            ],
        }
        self._broadcast_table()
        self._send_to_all(self.match_end)
        for _, seat in self.humans():
            if seat.account_id is not None:
                self.manager.unseat(seat.account_id, self)
            if seat.client is not None and seat.client.table is self:
                seat.client.table = None
        for client in self.spectators:
            client.spectating = None
        self.manager.drop_table(self)

    # ------------------------------------------------------------------ restore

    async def restore(self, live: LiveMatch) -> None:
        """Rebuild the table of a live match after a restart (called before the task runs)."""
        spec = live.spec
        self.match_id = live.match_id
        self.lease = live.lease
        self.manager.by_match[live.match_id] = self
        self.seed = spec.seed
        self.status = "playing"
        for index, seat_spec in enumerate(spec.seats):
            if seat_spec.account_id is None:
                self.seats[index] = self._bot_seat(seat_spec.bot or self.config.default_bot)
                continue
            account = await self._db(self.store.account, seat_spec.account_id)
            seat = Seat(
                kind="human",
                name=account.name,
                bot_name=seat_spec.bot or self.options.bot,
                account_id=account.id,
                balance=account.balance,
                tuoguan=seat_spec.forced_tuoguan,
                forced_tuoguan=seat_spec.forced_tuoguan,
            )
            self.seats[index] = seat
            if seat_spec.forced_tuoguan:
                continue  # escaped or left before the restart: its bot plays on, nobody waits
            self.manager.seated[account.id] = self
            # everyone was cut off by the failed process: a grace that runs out after a
            # restore is 托管, never R45 (issue 20 item 12)
            seat.cut_off_by_server = True
            self._set_timer(f"grace:{index}", self.config.reconnect_grace, index)
        for record in live.finished_hands:
            res = record.result or {}
            self.results.append(
                HandSummary(
                    record.hand_id,
                    str(res.get("result", "")),
                    list(res.get("winners", [])),
                    list(res.get("totals", [0] * SEATS)),
                    list(record.coins),
                    win_summaries(list(res.get("wins", []))),
                )
            )
            self.dealer = int(res.get("next_dealer", self.dealer))
            self.streak = int(res.get("next_streak", self.streak))
        self.hand_index = len(live.finished_hands)
        if live.hand is None:
            self.status = "between"
            if self.hand_index >= self.options.hands:
                await self._finish_match("completed")
                return
            self._set_timer("next_hand", self._next_hand_limit())
            return
        events = [dict(e) for e in live.hand.events]
        self.hand_index = live.hand.index
        self.dealer, self.streak = live.hand.dealer, live.hand.streak
        self.hand_id = live.hand.hand_id
        self.round = (
            replay(events, require_end=False)  # exact, but a hand in progress
            if events
            else Round(self._deal(live.hand.seed), self.options.rules)
        )
        self.stored = len(events)
        self.released = self.stored
        self.seen = {
            v: len(events_for(self.round.events[: self.released], v)) for v in (0, 1, 2, 3, None)
        }
        if not events:
            await self._store_events()
        # resume: finish a hand whose result was not stored, or reopen its pending decision
        await self._pump()


def _rid(item: tuple[Any, ...]) -> str | int | None:
    if item[0] == "message" and len(item) > 2:
        rid = getattr(item[2], "rid", None)
        return rid if isinstance(rid, str | int) else None
    return None


@dataclass(slots=True)
class TableManager:
    """Every table of this process, who is seated where, and the connections by account."""

    config: ServerConfig
    store: Store
    owner: str | None = None
    tables: dict[str, Table] = field(default_factory=dict)
    by_match: dict[int, Table] = field(default_factory=dict)
    seated: dict[int, Table] = field(default_factory=dict)
    connections: dict[int, Client] = field(default_factory=dict)
    #: tests only (never set from config or the network): deals each hand instead of its seed,
    #: ``deal(hand_index, seed, dealer, streak)``, so a test can stack the hands it needs
    deal: Callable[[int, int, int, int], Setup] | None = None
    #: every table's events go to the database through this one group-committing writer
    writer: EventWriter = field(init=False)
    #: SQLite: the tables' database calls run on one thread, in order, moves first
    #: (server/dbthread.py). PostgreSQL: the default pool, its row locks let transactions run
    #: side by side.
    db_thread: DatabaseThread | None = field(init=False)
    #: GET /metrics (issue 24 item 4)
    metrics: Metrics = field(default_factory=Metrics)

    def __post_init__(self) -> None:
        self.db_thread = DatabaseThread() if self.store.dialect == "sqlite" else None
        self.writer = EventWriter(self.store, self.run_moves)

    async def run_db(self, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` (a store call) off the event loop."""
        started = time.monotonic()
        try:
            if self.db_thread is not None:
                return await self.db_thread.run(OTHER, function, *args)
            return await asyncio.to_thread(function, *args)
        finally:
            self.metrics.store_call("other", started)

    async def run_moves(self, function: Callable[..., Any], *args: Any) -> Any:
        """The event writer's batches: ahead of every other store call still waiting."""
        started = time.monotonic()
        try:
            if self.db_thread is not None:
                return await self.db_thread.run(MOVES, function, *args)
            return await asyncio.to_thread(function, *args)
        finally:
            self.metrics.store_call("moves", started)

    def new_code(self) -> str:
        while True:
            code = f"{secrets.randbelow(1_000_000):06d}"
            if code not in self.tables:
                return code

    def add_table(self, options: TableOptions, code: str | None = None) -> Table:
        table = Table(self, code or self.new_code(), options)
        self.tables[table.code] = table
        return table

    def create_private(
        self,
        host: Account,
        *,
        stake: int,
        hands: int,
        rules: RuleSet,
        bots_allowed: bool,
        bot: str,
        listed: bool,
        spectators: bool = False,
        claim_pause: str = "natural",
        code: str | None = None,
    ) -> Table:
        table = self.add_table(
            TableOptions(
                "private",
                None,
                stake,
                hands,
                rules,
                bots_allowed,
                bot,
                listed,
                host.id,
                spectators,
                claim_pause,
            ),
            code,
        )
        table.start_task()
        return table

    def drop_table(self, table: Table) -> None:
        if self.tables.get(table.code) is table:
            del self.tables[table.code]
        if table.match_id is not None:
            self.by_match.pop(table.match_id, None)
        table.post("stop")

    def open_tables_of(self, account_id: int) -> list[str]:
        """Codes of the private tables this account created that have not ended (the cap of
        ``open_tables_per_account``, issue 20 item 13)."""
        return sorted(
            t.code
            for t in self.tables.values()
            if t.options.kind == "private" and t.options.host == account_id and t.status != "ended"
        )

    def unseat(self, account_id: int, table: Table) -> None:
        if self.seated.get(account_id) is table:
            del self.seated[account_id]

    def lobby(self) -> list[dict[str, Any]]:
        return [
            t.summary()
            for t in self.tables.values()
            if t.status == "waiting" and (t.options.kind == "room" or t.options.listed)
        ]

    def _check_free(self, client: Client) -> Account:
        account = client.account
        assert account is not None
        table = self.seated.get(account.id)
        if table is not None:
            if any(
                s is not None and s.account_id == account.id and s.forced_tuoguan
                for s in table.seats
            ):
                raise ProtocolError(
                    "already_seated",
                    f"your seat at table {table.code} escaped and a bot plays it until the "
                    "match ends; leave it to stop watching and sit elsewhere",
                )
            raise ProtocolError(
                "already_seated", f"you are seated at table {table.code}; leave it first"
            )
        return account

    async def quick_match(self, client: Client, room_id: str) -> None:
        room: Room | None = self.config.room(room_id)
        if room is None:
            known = ", ".join(r.id for r in self.config.rooms)
            raise ProtocolError("unknown_room", f"unknown room {room_id!r}; rooms: {known}")
        account = self._check_free(client)
        fresh = await asyncio.to_thread(self.store.account, account.id)
        client.account = fresh
        if fresh.balance < room.entry:
            raise ProtocolError(
                "insufficient_balance",
                f"{room.name} needs {room.entry} coins to sit down; you have {fresh.balance}",
            )
        table = next(
            (
                t
                for t in self.tables.values()
                if t.options.kind == "room"
                and t.options.room == room.id
                and t.status == "waiting"
                and t.free_seats - t.pending_joins > 0
            ),
            None,
        )
        if table is None:
            table = self.add_table(
                TableOptions(
                    "room",
                    room.id,
                    room.stake,
                    room.hands,
                    room.rules,  # a 血戰 room plays RuleSet(bloody_battle=True), R52-R57
                    True,
                    self.config.default_bot,
                    True,
                    None,
                    claim_pause=room.claim_pause,
                )
            )
            table.start_task()
        table.pending_joins += 1
        self.seated[fresh.id] = table
        client.table = table  # what the client sends next queues behind the join
        table.post("join", client, None)

    def join(self, client: Client, code: str) -> None:
        assert client.account is not None
        current = self.seated.get(client.account.id)
        if current is not None and current.code == code:
            current.post("attach", client)  # already seated there (a reload with ?join=...)
            return
        account = self._check_free(client)
        table = self.tables.get(code)
        if table is None or table.status == "ended":
            raise ProtocolError("table_not_found", f"no table with code {code}")
        if table.status != "waiting":
            raise ProtocolError("wrong_state", f"table {code} has already started; spectate it")
        self.seated[account.id] = table
        client.table = table  # what the client sends next queues behind the join
        table.post("join", client, None)

    def spectate(self, client: Client, code: str) -> None:
        table = self.tables.get(code)
        if table is None:
            raise ProtocolError("table_not_found", f"no table with code {code}")
        account = client.account
        if not table.options.spectators and (
            account is None
            or (
                account.id != table.options.host
                and not any(s is not None and s.account_id == account.id for s in table.seats)
            )
        ):  # the host and the table's own players (e.g. after an escape) may always watch
            raise ProtocolError(
                "no_spectators", f"the host of table {code} does not allow spectators"
            )
        table.post("spectate", client)

    def attach(self, client: Client) -> bool:
        """A newly authenticated client: take over the account's old connection and seat."""
        account = client.account
        assert account is not None
        old = self.connections.get(account.id)
        self.connections[account.id] = client
        if old is not None and old is not client:
            old.send(
                error_message(
                    "replaced", "another connection logged in to this account; this one is closed"
                )
            )
            old.close(4001, "replaced by a newer connection")
            if old.spectating is not None:
                old.spectating.post("unspectate", old)
        table = self.seated.get(account.id)
        if table is not None:
            table.post("attach", client)
            return True
        return False

    def detach(self, client: Client) -> None:
        account = client.account
        if account is not None and self.connections.get(account.id) is client:
            del self.connections[account.id]
        if client.spectating is not None:
            client.spectating.post("unspectate", client)
        table = client.table
        if table is not None:
            table.post("detach", client)

    async def renew_leases(self) -> None:
        """One round of keeping this process's leases (several processes on one database):
        renew them, stop the tables whose match another process took, adopt the matches of
        dead processes. Only the matches this process played when the renewal began can be
        missing from its answer for that reason: a match started while the renewal was in
        flight is simply not in it yet (at 400 tables starting together, four processes
        stopped such new tables as "moved" and left them to be adopted 30 s later)."""
        assert self.owner is not None
        checked = set(self.by_match)
        held = set(await self.run_db(self.store.renew_leases, self.owner))
        self.lost_leases(held, checked)
        await self.restore(include_own=False)

    def lost_leases(self, held: set[int], checked: set[int] | None = None) -> None:
        """Tables whose match lease this process no longer holds stop here: another process
        took the match over (this one was paused past its lease), and two must never play it.
        ``checked``: the matches the renewal that answered ``held`` covered (default: all)."""
        for match_id, table in list(self.by_match.items()):
            if match_id in held or table.status == "ended":
                continue
            if checked is not None and match_id not in checked:
                continue  # registered after the renewal began: not in its answer yet
            log.warning("match %s: lease lost to another process; its table stops here", match_id)
            self.stop_moved(table)

    def stop_moved(
        self, table: Table, message: str = "this table is now played by another server"
    ) -> None:
        """Drop a table whose match is played elsewhere now: its people are told
        ``table_moved`` and disconnected (4002); their clients reconnect and are seated
        wherever the match is played. Never a table left waiting on a write that cannot
        succeed."""
        self._send_away(self._unlist(table), message)

    def _unlist(self, table: Table) -> list[Client]:
        """Drop ``table`` (nothing it had queued runs) and unseat its players; returns whom to
        tell, or nobody when it was dropped already."""
        in_tables = self.tables.get(table.code) is table
        if not in_tables and (
            table.match_id is None or self.by_match.get(table.match_id) is not table
        ):
            return []
        while not table.inbox.empty():  # what it had queued would be done by a dead table
            table.inbox.get_nowait()
        for seat in table.seats:
            if seat is not None and seat.account_id is not None:
                self.unseat(seat.account_id, table)
        self.drop_table(table)
        return [s.client for s in table.seats if s is not None and s.client] + list(
            table.spectators
        )

    @staticmethod
    def _send_away(clients: list[Client], message: str) -> None:
        for client in clients:
            client.send(error_message("table_moved", message))
            client.close(4002, "table moved")

    async def reload(self, table: Table) -> None:
        """A write of ``table`` contradicted the store (e.g. its event sequence) while this
        process still holds the match: rebuild the table from what is stored and go on. The
        lease is taken anew (a new epoch), so nothing the old table still had in flight can be
        written after the reload read the log; its people are sent away only once the new
        table seats them, so their reconnect finds it."""
        match_id = table.match_id
        if match_id is None:
            self.stop_moved(table, "this table was lost; reconnect")
            return
        try:
            live = await asyncio.to_thread(self.store.live_match, match_id, self.owner)
        except Exception:
            log.exception("match %s: could not be reloaded", match_id)
            live = None
        clients = self._unlist(table)
        if live is None:
            log.warning("match %s: no longer this process's to reload", match_id)
        else:
            await self._adopt([live])
        self._send_away(clients, "this table was reloaded from the database; reconnect")

    async def restore(self, *, include_own: bool = True) -> int:
        """Rebuild every live match of the store (after a restart; with ``include_own`` False,
        matches whose owner died and whose lease expired); returns how many."""
        if include_own:
            lives = await asyncio.to_thread(self.store.live_matches, self.owner)
        else:
            lives = await asyncio.to_thread(self.store.live_matches, self.owner, 30.0, include_own)
        lives = [live for live in lives if live.match_id not in self.by_match]
        await self._adopt(lives)
        return len(lives)

    async def _adopt(self, lives: list[LiveMatch]) -> None:
        for live in lives:
            spec = live.spec
            try:
                rules = RuleSet.from_mapping(spec.rules)
            except ValueError:
                log.exception("match %s: stored rules unreadable; not restored", live.match_id)
                continue
            options = spec.options
            table = self.add_table(
                TableOptions(
                    spec.kind,
                    spec.room or None,
                    spec.stake,
                    spec.hands,
                    rules,
                    bool(options.get("bots_allowed", True)),
                    str(options.get("bot", self.config.default_bot)),
                    bool(options.get("listed", spec.kind == "room")),
                    options.get("host"),
                    bool(options.get("spectators", True)),
                    # matches stored before issue 21 played the fixed window
                    str(options.get("claim_pause", "fixed")),
                ),
                code=spec.code if spec.code and spec.code not in self.tables else None,
            )
            try:
                await table.restore(live)
            except Exception:
                log.exception("match %s could not be restored", live.match_id)
                self.drop_table(table)
                continue
            if table.code in self.tables:
                table.start_task()

    async def shutdown(self) -> None:
        for table in list(self.tables.values()):
            table.post("stop")
        tasks = [t.task for t in self.tables.values() if t.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        if self.db_thread is not None:
            self.db_thread.shutdown()


__all__ = ["Client", "Seat", "Table", "TableManager", "TableOptions", "hand_seed"]
