"""The async table: the imperative shell around a hand's flow.

One asyncio task per table owns the match and the hand being played. Every message, timer and
connection change for a table is queued to its task as a typed inbox message (``inbox.py``),
so moves never race. The hand itself is a :class:`~duyun.server.tables.flow.HandFlow`, plain
synchronous code that returns effects; this shell executes them in order, storing the
resulting events before anyone sees them (a move is durable before it is shown). Seating and
escapes are in ``seating.py``, the players' table messages in ``messages.py``, the end of a
hand and of the match in ``ending.py``, the rebuild of a table after a restart in
``restore.py``. The table reaches its host (the manager's indexes,
the store, the writer) only through :class:`~duyun.server.tables.host.TableHost`.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import secrets
import threading
import time
from typing import Any, assert_never

from duyun.bots import Bot, make_bot
from duyun.bots.search import SearchBot
from duyun.engine import Action, Round, SeatView, Setup, deal_setup
from duyun.server import protocol
from duyun.server.protocol import ProtocolError, error_message
from duyun.server.store import ConflictError, Lease, LeaseLostError, LiveMatch, MatchSpec, SeatSpec
from duyun.server.store.base import INITIAL_RATING
from duyun.server.tables import ending, messages, seating
from duyun.server.tables.flow import (
    BroadcastTable,
    CancelTimer,
    Effect,
    FinishHand,
    HandFlow,
    SendEvents,
    SendPrompt,
    SendSnapshot,
    SetTimer,
    SettleUntil,
    StoreEvents,
    StoreTuoguan,
    Think,
)
from duyun.server.tables.host import TableHost
from duyun.server.tables.inbox import (
    Attach,
    Call,
    ClientMessage,
    Detach,
    InboxMessage,
    Join,
    Spectate,
    Stop,
    TimerFired,
    Unspectate,
    Work,
)
from duyun.server.tables.restore import restore_table
from duyun.server.tables.seats import (
    PRIVATE_TABLE_IDLE,
    SEATS,
    Client,
    HandSummary,
    Prompt,
    Seat,
    Status,
    TableOptions,
    Viewer,
    bot_seat,
    dumps,
    hand_seed,
)

log = logging.getLogger("duyun.server")


class Table:
    """One table: seats, spectators, the match and the hand being played."""

    def __init__(self, host: TableHost, code: str, options: TableOptions) -> None:
        self.host = host
        self.config = host.config
        self.store = host.store
        self.code = code
        self.options = options
        self.seats: list[Seat | None] = [None] * SEATS
        self.spectators: set[Client] = set()
        self.status: Status = "waiting"
        self.inbox: asyncio.Queue[InboxMessage] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.pending_joins = 0
        #: 再來一局: the seat each person of the match before had, kept for them
        self.reserved: dict[int, int] = {}
        #: seats taken at this room table by code since the cluster last published it: players
        #: another process's quick match sent here, each holding a seat that process reserved
        #: (the next publish consumes their reservations; cluster.py)
        self.arrivals = 0
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
        #: when the last hand's end was stored (``time.monotonic()``): the next hand's wait
        #: counts from it, also for a table restored after a crash (issue 37)
        self.hand_ended_at: float | None = None
        self.match_end: dict[str, Any] | None = None
        #: the hand being played, or the last one (its view stays shown between hands)
        self.hand: HandFlow | None = None
        #: bots' think times: random, and drawn from nothing about the hand
        self.think = random.Random()
        #: turn moves being chosen in threads (the search bot): seat -> (its hand, the task)
        self._thoughts: dict[int, tuple[HandFlow, asyncio.Task[tuple[int, Action]]]] = {}
        #: one thought at a time per seat's bot, which keeps state from move to move
        self._bot_locks: dict[int, threading.Lock] = {}
        self.dissolve_votes: set[int] | None = None
        # timers: name -> (id, handle); a firing timer whose id is stale is ignored
        self._timers: dict[str, tuple[int, asyncio.TimerHandle]] = {}
        self._timer_ids = itertools.count(1)
        self.fill_at: float | None = None
        #: the wait between hands is over but a reconnect grace still runs (``next_hand``)
        self.next_hand_due = False
        #: the task is handling an inbox message (the watchdog's "something is moving")
        self.busy = False

    # ------------------------------------------------------------------ the hand's state

    @property
    def round(self) -> Round | None:
        return None if self.hand is None else self.hand.game

    @property
    def hand_id(self) -> int | None:
        return None if self.hand is None else self.hand.hand_id

    @property
    def stored(self) -> int:
        """How many events of the hand are stored (tests set it to provoke a conflict)."""
        return 0 if self.hand is None else self.hand.stored

    @stored.setter
    def stored(self, value: int) -> None:
        assert self.hand is not None
        self.hand.stored = value

    def new_hand(self, game: Round, hand_id: int) -> HandFlow:
        self.hand = HandFlow(
            game,
            hand_id,
            self.seats,
            self.config,
            self.options.claim_pause,
            self._decide,
            self.think,
            spectated=lambda: bool(self.spectators),
            thinks_apart=self._thinks_apart,
        )
        return self.hand

    def _bot(self, index: int) -> Bot:
        seat = self.seats[index]
        assert seat is not None
        if seat.bot is None:
            seat.bot = make_bot(
                seat.bot_name, seed=hand_seed(self.seed, 1000 + index), rules=self.options.rules
            )
        return seat.bot

    def _thinks_apart(self, index: int) -> bool:
        """The search bot (大師) chooses its turn moves in a thread: its search, about 80 ms
        and up to a second, would otherwise stall every table of the process."""
        return isinstance(self._bot(index), SearchBot)

    async def _think(
        self, index: int, logged: int, game: Round, deadline: float
    ) -> tuple[int, Action]:
        bot = self._bot(index)
        assert isinstance(bot, SearchBot)
        lock = self._bot_locks.setdefault(index, threading.Lock())

        def choose() -> Action:
            with lock:
                return bot.choose(game.view(index), deadline=deadline)

        loop = asyncio.get_running_loop()
        return logged, await loop.run_in_executor(self.host.search_pool, choose)

    async def _collect_thought(self, hand: HandFlow, index: int) -> None:
        """Hand the bot's thought to the flow when its think time ends; a thought not done
        yet is waited for (a bot that is late plays late; it never decides twice). The search
        stops before the think time ends (:class:`~duyun.server.tables.flow.Think`), so a late
        thought means the process is short of CPU: it is counted."""
        entry = self._thoughts.pop(index, None)
        if entry is None or entry[0] is not hand:
            return
        if not entry[1].done():
            self.host.metrics.late_thoughts.inc()
        try:
            logged, action = await entry[1]
        except Exception:  # the flow then decides on the loop, as for any other bot
            log.exception("table %s: seat %s's bot failed to think", self.code, index)
            return
        hand.thought(index, logged, action)

    def _decide(self, index: int, view: SeatView, claim: bool) -> Action:
        """The bot's move for a botted seat, on the event loop. A claim is answered inside the
        claim pause, whose timer is already running: a search there (大師) could outlast a
        0.6 s beat and so tell the table that a bot may claim (issue 20 item 2), so the search
        bot answers claims with its base policy, the strong bot's, in milliseconds."""
        bot = self._bot(index)
        if claim and isinstance(bot, SearchBot):
            return bot.strong.choose(view)
        return bot.choose(view)

    async def run_effects(self, effects: list[Effect]) -> None:
        """Do what the hand flow asked, in order: a store is awaited before what follows it
        goes out, so nobody ever sees an event that is not stored."""
        for effect in effects:
            hand = self.hand
            assert hand is not None
            match effect:
                case StoreEvents(first=first, events=events):
                    await self.host.writer.append(hand.hand_id, first, events, self.lease)
                case SendEvents(viewer=viewer, seq=seq, events=events):
                    message = {"type": "events", "hand_id": hand.hand_id, "seq": seq}
                    text = dumps({**message, "events": events})
                    for client in self._clients_of(viewer):
                        client.send_text(text)
                case SendSnapshot(viewer=viewer, events=events, prompt=prompt):
                    snap = self._snapshot_message(hand, viewer, events, prompt)
                    for client in self._clients_of(viewer):
                        client.send(snap)
                case SendPrompt(seat=index, prompt=prompt):
                    seat = self.seats[index]
                    if seat is not None and seat.client is not None:
                        seat.client.send(prompt.to_json(hand.hand_id))
                case SetTimer(name=name, delay=delay, args=args, since=since):
                    self.set_timer(name, delay, *args, since=since)
                case CancelTimer(name=name):
                    self.cancel_timer(name)
                case SettleUntil(at=at):
                    await asyncio.sleep(max(0.0, at - time.monotonic()))
                    await self.run_effects(hand.pump(time.monotonic()))
                case Think(seat=index, logged=logged, game=game, deadline=deadline):
                    task = asyncio.create_task(self._think(index, logged, game, deadline))
                    task.add_done_callback(_retrieve)
                    self._thoughts[index] = (hand, task)
                case FinishHand():
                    await ending.finish_hand(self)
                case BroadcastTable():
                    self.broadcast_table()
                case StoreTuoguan(seat=index):
                    await self.keep_tuoguan(index)
                case _:
                    assert_never(effect)

    async def keep_tuoguan(self, index: int) -> None:
        """Store seat ``index``'s 托管 as it is now (a person's seat of a match in play), so a
        restart neither waits for a player who left their seat to the bot nor takes it back
        from the bot for them (issue 37)."""
        seat = self.seats[index]
        if self.match_id is None or seat is None or seat.account_id is None:
            return
        await self.host.store_call(
            self.store.set_tuoguan, self.match_id, index, seat.tuoguan, self.lease
        )

    # ------------------------------------------------------------------ plumbing

    def start_task(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"table-{self.code}")
        if self.options.kind == "private" and self.status == "waiting":
            self.set_timer("idle", PRIVATE_TABLE_IDLE)

    def post(self, item: InboxMessage) -> None:
        """Queue ``item`` for the table's task: everything that changes a table runs there, in
        the order it arrived."""
        self.inbox.put_nowait(item)

    async def _run(self) -> None:
        while True:
            item = await self.inbox.get()
            if isinstance(item, Stop):
                self.cancel_all_timers()
                return
            started = time.monotonic()
            self.busy = True
            try:
                await self._handle(item)
                if isinstance(item, ClientMessage) and isinstance(item.message, protocol.Act):
                    self.host.metrics.decision(started)
            except ProtocolError as error:
                if not isinstance(item, TimerFired | Call):  # else there is nobody to tell
                    rid = item.rid if isinstance(item, ClientMessage) else None
                    item.client.send(error_message(error.code, error.message, rid))
            except LeaseLostError as error:  # another process adopted the match: stop at once
                log.warning("table %s: %s; its table stops here", self.code, error)
                self.host.stop_moved(self)
            except ConflictError as error:  # the store disagrees but the match is still ours
                log.warning("table %s: %s; reloading its match from the store", self.code, error)
                await self.host.reload(self)
            except Exception:  # a bug must not take the table down for everyone
                self.host.metrics.error("internal")
                log.exception("table %s: error handling %s", self.code, type(item).__name__)
            finally:
                self.busy = False

    async def _handle(self, item: Work) -> None:
        match item:
            case TimerFired(name=name, timer_id=timer_id, args=args):
                entry = self._timers.get(name)
                if entry is None or entry[0] != timer_id:
                    return  # cancelled or replaced
                del self._timers[name]
                await self._on_timer(name, args)
            case ClientMessage(client=client, message=message):
                await messages.handle(self, client, message)
            case Join(client=client, seat=seat, by_code=by_code):
                await seating.join(self, client, seat, by_code)
            case Attach(client=client):
                seating.attach(self, client)
                await self.maybe_next_hand()
            case Detach(client=client):
                await seating.detach(self, client)
            case Spectate(client=client):
                seating.spectate(self, client)
            case Unspectate(client=client):
                seating.unspectate(self, client)
            case Call(function=function):
                await function()
            case _:
                assert_never(item)

    def set_timer(self, name: str, delay: float, *args: Any, since: float | None = None) -> None:
        """(Re)start timer ``name``: ``delay`` seconds from now, or from ``since`` (a
        ``time.monotonic()``) when given."""
        self.cancel_timer(name)
        if since is not None:
            delay = max(0.0, since + delay - time.monotonic())
        timer_id = next(self._timer_ids)
        handle = asyncio.get_running_loop().call_later(
            delay, self.inbox.put_nowait, TimerFired(name, timer_id, args)
        )
        self._timers[name] = (timer_id, handle)

    def cancel_timer(self, name: str) -> None:
        entry = self._timers.pop(name, None)
        if entry is not None:
            entry[1].cancel()

    def has_timer(self, name: str) -> bool:
        return name in self._timers

    def waits_for_nothing(self) -> bool:
        """A match in play that nothing will move on: no timer (a turn, a claim window, a
        bot's think time, the next hand, a grace), no message queued and none being handled,
        or a task that is gone. Always False in a healthy process; the watchdog counts and
        logs such tables (``/metrics`` ``duyun_tables_stalled``, issue 37), since their
        players would wait for ever."""
        if self.status not in ("playing", "between"):
            return False
        if self.task is None or self.task.done():
            return True
        return not self.busy and self.inbox.empty() and not self._timers

    def cancel_all_timers(self) -> None:
        for name in list(self._timers):
            self.cancel_timer(name)

    async def _on_timer(self, name: str, args: tuple[Any, ...]) -> None:
        if name == "decision":
            hand = self.hand
            if hand is None or self.status != "playing":
                return
            what, index = args[0], (args[1] if len(args) > 1 else None)
            if what == "bot" and index is not None:
                await self._collect_thought(hand, index)
            await self.run_effects(hand.on_timer(what, index, time.monotonic()))
        elif name == "fill":
            await self._fill_with_bots()
        elif name == "next_hand":
            await self.next_hand()
        elif name == "countdown":
            await self.maybe_next_hand()
        elif name == "idle":
            if self.status == "waiting" and not self.humans():
                self.host.drop_table(self)
        elif name.startswith("grace:"):
            await seating.grace_over(self, int(args[0]))

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
            "rated": self.options.kind == "room" or self.options.rated,
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
                    None if seat is None else self._seat_json(seat, i, points[i], coins[i])
                    for i, seat in enumerate(self.seats)
                ],
                "dissolve": None
                if self.dissolve_votes is None
                else {"agreed": sorted(self.dissolve_votes), "needed": self.voters()},
                "invite": f"/?join={self.code}",
            }
        )
        return data

    def addresses(self) -> set[str]:
        """The address digests of the people seated (fair matching, issue 32)."""
        return {s.address for s in self.seats if s is not None and s.address is not None}

    def _seat_json(self, seat: Seat, index: int, points: int, coins: int) -> dict[str, Any]:
        data = seat.to_json(index, points, coins)
        if seat.kind == "bot":  # a bot seat plays as its level: the level's rating
            data["rating"] = self.host.bot_ratings.get(seat.bot_name, INITIAL_RATING)
        return data

    def voters(self) -> list[int]:
        """The seats whose 解散 vote counts: people connected and playing their own seat."""
        return [i for i, s in self.humans() if s.client is not None and not s.forced_tuoguan]

    def broadcast_table(self) -> None:
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.client is not None:
                seat.client.send({"type": "table", "table": self.table_json(index)})
        if self.spectators:
            text = dumps({"type": "table", "table": self.table_json(None)})
            for client in self.spectators:
                client.send_text(text)

    def _clients_of(self, viewer: Viewer) -> list[Client]:
        if viewer is None:
            return list(self.spectators)
        seat = self.seats[viewer]
        return [seat.client] if seat is not None and seat.client is not None else []

    def send_to_all(self, message: dict[str, Any]) -> None:
        text = dumps(message)
        for viewer in (*range(SEATS), None):
            for client in self._clients_of(viewer):
                client.send_text(text)

    def snapshot(self, viewer: Viewer) -> dict[str, Any] | None:
        hand = self.hand
        if hand is None or hand.released == 0:
            return None
        prompt = hand.prompts.get(viewer) if viewer is not None else None
        return self._snapshot_message(hand, viewer, hand.released_events(viewer), prompt)

    def _snapshot_message(
        self, hand: HandFlow, viewer: Viewer, events: list[dict[str, Any]], prompt: Prompt | None
    ) -> dict[str, Any]:
        return {
            "type": "snapshot",
            "hand_id": hand.hand_id,
            "hand_index": self.hand_index,
            "seat": viewer,
            "view": protocol.fold_view(events, viewer),
            "events": events,
            "prompt": None if prompt is None else prompt.to_json(hand.hand_id),
        }

    def send_state(self, client: Client, viewer: Viewer) -> None:
        """table + snapshot (+ the last settlement between hands) for a client arriving."""
        client.send({"type": "table", "table": self.table_json(viewer)})
        snap = self.snapshot(viewer)
        if snap is not None:
            client.send(snap)
            assert self.hand is not None
            self.hand.seen[viewer] = len(snap["events"])  # the next events batch follows on
        if self.status in ("between", "ended") and self.last_hand_end is not None:
            client.send(self.hand_end_now())
        if self.status == "ended" and self.match_end is not None:
            client.send(self.match_end)

    # ------------------------------------------------------------------ match flow

    async def maybe_start(self) -> None:
        if self.status != "waiting" or self.free_seats:
            return
        if any(not s.ready for _, s in self.humans()):
            return
        if not self.humans():
            return
        self.cancel_timer("fill")
        await self._start_match()

    async def _fill_with_bots(self) -> None:
        if self.status != "waiting" or not self.humans():
            return
        for index, seat in enumerate(self.seats):
            if seat is None:
                self.seats[index] = bot_seat(self.config.default_bot)
        self.broadcast_table()
        await self.maybe_start()

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
                "rated": self.options.rated,
            },
        )
        self.match_id = await self.host.store_call(
            self.store.create_match, spec, self.host.owner, self.config.lease_seconds
        )
        self.lease = Lease(self.host.owner, 0)  # a new match's epoch
        self.host.register_match(self.match_id, self)
        self.dealer, self.streak, self.hand_index = 0, 0, 0  # R3
        await self._start_hand()

    async def _start_hand(self) -> None:
        assert self.match_id is not None
        self.cancel_timer("next_hand")
        self.cancel_timer("countdown")
        self.next_hand_due = False
        self.dissolve_votes = None
        self.last_hand_end = None
        self.hand_ended_at = None
        seed = hand_seed(self.seed, self.hand_index)
        game = Round(self.deal(seed), self.options.rules)
        hand_id = await self.host.store_call(
            self.store.start_hand,
            self.match_id,
            self.hand_index,
            seed,
            self.dealer,
            self.streak,
            self.lease,
        )
        hand = self.new_hand(game, hand_id)
        await self.run_effects(hand.store_new())
        self.status = "playing"
        for _, seat in self.humans():
            seat.ready = False
        self.broadcast_table()
        # the start event goes out as a snapshot, then play runs on
        await self.run_effects(hand.start(time.monotonic()))

    def deal(self, seed: int) -> Setup:
        """The hand's deal: from its seed (R4), or from the host's test hook."""
        if self.host.deal is not None:
            return self.host.deal(self.hand_index, seed, self.dealer, self.streak)
        return deal_setup(seed, dealer=self.dealer, streak=self.streak)

    def hand_end_now(self) -> dict[str, Any]:
        """The last hand's ``hand_end`` for a client arriving between hands (a reconnect, a
        reload, a restart or an adoption): its ``next_hand_in`` is what is left of the page's
        countdown, which counts from the hand's end, so the page presses 下一局 when the
        others' do and the settlement it shows is the one everybody saw."""
        end = self.last_hand_end
        assert end is not None
        if end["next_hand_in"] is None or self.hand_ended_at is None:
            return end
        return {**end, "next_hand_in": round(self._countdown_left(), 3)}

    def next_hand_limit(self) -> float:
        """The longest the next hand waits for people who have not pressed 下一局 (issue 21
        item 4). Their page presses it by itself when its countdown (``next_hand_wait``) ends,
        unless they are reading the settlement; bots, 托管 and absent seats never hold it."""
        return max(self.config.next_hand_wait, self.config.next_hand_limit)

    async def maybe_next_hand(self) -> None:
        if self.status != "between":
            return
        if self.next_hand_due:
            await self.next_hand()
            return
        waiting_for = [
            s for _, s in self.humans() if s.client is not None and not s.tuoguan and not s.ready
        ]
        if waiting_for:
            return
        left = self._countdown_left()
        if left > 0 and self._cut_off_and_away():
            # people cut off by a failed process are not back yet: their pages, once back,
            # show this hand's settlement and press 下一局 when its countdown ends, so the
            # hand waits for that countdown (counted from the hand's end), no longer. Dealt at
            # once, it would come before they are back and they would never see the
            # settlement (issue 37 item 2)
            self.set_timer("countdown", left)
            return
        await self.next_hand()

    def _countdown_left(self) -> float:
        """Seconds left of the settlement's countdown (``next_hand_wait`` from the hand's end)."""
        if self.hand_ended_at is None:
            return 0.0
        return max(0.0, self.config.next_hand_wait - (time.monotonic() - self.hand_ended_at))

    def _cut_off_and_away(self) -> bool:
        """A person cut off by a failed server process has not reconnected yet."""
        return any(
            seat is not None
            and seat.cut_off_by_server
            and seat.client is None
            and not seat.forced_tuoguan
            and f"grace:{index}" in self._timers
            for index, seat in enumerate(self.seats)
        )

    async def next_hand(self) -> None:
        """Start the next hand, unless a dropped person's reconnect grace is still running:
        a hand started under it would charge them R45 when it runs out, for a connection
        lost between hands, and a table whose people all dropped at once would charge them
        one per hand (issue 20 item 12). The hand then starts when the last grace ends (the
        person is back, or the seat plays on in 托管 without penalty)."""
        if self.status != "between":
            return
        if any(self._grace_holds(index) for index in range(SEATS)):
            self.next_hand_due = True
            return
        await self._start_hand()

    def _grace_holds(self, index: int) -> bool:
        """Whether seat ``index``'s reconnect grace holds the next hand back. A seat whose
        person was cut off by a failed server process never pays R45 when its grace runs out
        (``seating.grace_over``), so its grace holds nothing: after a restart the next hand
        comes when its wait, counted from the hand's stored end, is over (issue 37)."""
        seat = self.seats[index]
        return f"grace:{index}" in self._timers and seat is not None and not seat.cut_off_by_server

    async def finish_match(self, reason: str) -> None:
        """The match is over (played out, or dissolved between hands, 解散)."""
        await ending.finish_match(self, reason)

    async def restore(self, live: LiveMatch) -> None:
        """Rebuild the table of a live match after a restart (called before the task runs)."""
        await restore_table(self, live)


def _retrieve(task: asyncio.Task[tuple[int, Action]]) -> None:
    """A thought nobody collected (its hand moved on) must not log "exception never
    retrieved": its failure, if any, is of no consequence."""
    if not task.cancelled():
        task.exception()
