"""The async table: the imperative shell around a table's state machine.

One asyncio task per table. Every message, timer and connection change for a table is queued
to its task as a typed inbox message (``inbox.py``), so moves never race. The table itself is
a :class:`~duyun.server.tables.state.TableState`, plain synchronous code whose transitions
return effects; this shell runs them in order (a store is awaited before what follows it goes
out, so nobody ever sees an event that is not stored) and hands the answers of the effects
that ask something (the match's id, the settlement's coin rows, ...) back to the state, whose
effects then run before the rest of the list. That loop (:meth:`Table._drive`) is the one
place effects run: no effect calls back into a transition.

The table reaches its host (the manager's indexes, the store, the writer) only through
:class:`TableHost`, and nothing outside this shell changes the state: its host and the cluster
ask through the few methods below (:meth:`Table.keep_seats_of`, :meth:`Table.expect_join`,
:meth:`Table.consume_arrivals`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Protocol, assert_never

from duyun.bots import Bot
from duyun.bots.search import SearchBot
from duyun.engine import Action, Round
from duyun.server import protocol
from duyun.server.config import ServerConfig
from duyun.server.dbthread import OTHER
from duyun.server.metrics import Metrics
from duyun.server.protocol import ProtocolError, error_message
from duyun.server.store import ConflictError, Lease, LeaseLostError, LiveMatch, Store
from duyun.server.tables.board import DealOverride
from duyun.server.tables.effects import (
    AppendEvents,
    AttachClient,
    BalancesRead,
    CancelAllTimers,
    DetachClient,
    DropTable,
    Effect,
    HandSettled,
    HandStarted,
    HostSeat,
    HostUnseat,
    MatchCreated,
    MatchFinished,
    PostTo,
    QuickMatch,
    ReadBalances,
    RegisterMatch,
    Rematch,
    Rematched,
    Result,
    Resume,
    Send,
    SendPrompt,
    SendSnapshot,
    SendText,
    SetAccount,
    SetBotRating,
    Settled,
    StoreForcedTuoguan,
    StoreHandStart,
    StoreMatchEnd,
    StoreMatchStart,
    StoreSettlement,
    StoreTuoguan,
    Watch,
)
from duyun.server.tables.flow import (
    CancelTimer,
    DropThought,
    HandFlow,
    SetTimer,
    SettleUntil,
    Think,
)
from duyun.server.tables.inbox import (
    Call,
    Client,
    ClientMessage,
    InboxMessage,
    Join,
    Stop,
    TimerFired,
    Work,
)
from duyun.server.tables.seats import HandSummary, Seat, TableOptions
from duyun.server.tables.state import TableState
from duyun.server.tables.status import Status
from duyun.server.tables.timers import DECISION, TimerKey
from duyun.server.writer import EventWriter

log = logging.getLogger("duyun.server")


class TableHost(Protocol):
    """What a table needs from its host, and nothing more.

    A table used to write into its manager's ``by_match`` and ``seated`` dicts and set
    ``client.table`` itself, so the manager's indexes could only be understood by reading the
    table. Now the table asks its host for the few things it needs, and
    :class:`~duyun.server.tables.manager.TableManager` is the one implementation in the
    server; a test can run a table under a small fake host without a manager
    (tests/server/tables/test_tables_host.py)."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def store(self) -> Store:
        """The store whose methods the table passes to :meth:`store_call` (never called
        directly: that would block the event loop)."""
        ...

    @property
    def owner(self) -> str | None:
        """This process's name in the store's leases (None: a single process)."""
        ...

    @property
    def writer(self) -> EventWriter:
        """The group-committing writer every table's hand events go through."""
        ...

    @property
    def metrics(self) -> Metrics: ...

    @property
    def deal(self) -> DealOverride | None: ...

    @property
    def bot_ratings(self) -> dict[str, int]:
        """Each bot level's rating as last read from the store (issue 32): shown next to a
        bot seat's name; a level not in it has not played a rated match: the initial rating."""
        ...

    @property
    def search_pool(self) -> Executor:
        """Where the 大師 bots' searches run (threads of their own, not the default pool that
        store calls take)."""
        ...

    async def store_call(
        self, function: Callable[..., Any], *args: Any, priority: int = OTHER
    ) -> Any:
        """``function(*args)``, a store method, off the event loop: the one route every store
        call of the tables takes (server/dbthread.py)."""
        ...

    def register_match(self, match_id: int, table: Table) -> None:
        """``table`` plays ``match_id`` (a new match, or one restored)."""
        ...

    def seat(self, account_id: int, table: Table) -> None:
        """The account sits at ``table`` (one table per account)."""
        ...

    def unseat(self, account_id: int, table: Table) -> None:
        """The account no longer sits at ``table`` (nothing if it sits elsewhere)."""
        ...

    def attach_client(self, client: Client, table: Table | None) -> None:
        """Route what ``client`` sends next to ``table`` (None: to no table)."""
        ...

    def detach_client(self, client: Client, table: Table) -> None:
        """``client`` is no longer ``table``'s (nothing if it went elsewhere meanwhile)."""
        ...

    def watch(self, client: Client, table: Table | None) -> None:
        """``client`` spectates ``table`` now (None: nothing)."""
        ...

    def drop_table(self, table: Table) -> None:
        """Forget ``table`` and its match and stop its task."""
        ...

    def rematch(self, ended: Table) -> Table:
        """再來一局: a new waiting table under the ended private table's code, its bots back
        and its people's seats kept for them."""
        ...

    def stop_moved(self, table: Table, message: str = ...) -> None:
        """Another process plays the table's match now (its lease was lost)."""
        ...

    async def reload(self, table: Table) -> None:
        """The store contradicted the table: rebuild it from what is stored."""
        ...

    async def quick_match(self, client: Client, room_id: str) -> None:
        """Seat ``client`` at another table of the room (the one it tried filled up)."""
        ...


class Table:
    """One table's task: its inbox, its timers, and the effects of its state machine."""

    def __init__(self, host: TableHost, code: str, options: TableOptions) -> None:
        self.host = host
        self.config = host.config
        self.store = host.store
        self.code = code
        self.options = options
        self.state = TableState(
            self,
            code,
            options,
            host.config,
            owner=host.owner,
            deal=host.deal,
            bot_ratings=host.bot_ratings,
        )
        self.inbox: asyncio.Queue[InboxMessage] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        #: joins the manager queued here that the table has not handled yet (quick match
        #: counts them against the free seats)
        self.pending_joins = 0
        #: turn moves being chosen in threads (the search bot), by seat
        self._thoughts: dict[int, _Thought] = {}
        #: one thought at a time per seat's bot, which keeps state from move to move
        self._bot_locks: dict[int, threading.Lock] = {}
        # timers: key -> (id, handle); a firing timer whose id is stale is ignored
        self._timers: dict[TimerKey, tuple[int, asyncio.TimerHandle]] = {}
        self._timer_ids = itertools.count(1)
        #: the task is handling an inbox message (the watchdog's "something is moving")
        self.busy = False
        #: the match's end is being stored: the store releases the lease in that transaction,
        #: so a lease renewal answering meanwhile no longer lists the match, and the manager
        #: must not take the table for one another process took (its players would get
        #: ``table_moved`` instead of ``match_end``); a real adoption still fences the write
        self.finishing = False

    # ------------------------------------------------------------------ the state, read

    @property
    def status(self) -> Status:
        return self.state.status

    @property
    def seats(self) -> list[Seat | None]:
        return self.state.seats

    @property
    def spectators(self) -> set[Client]:
        return self.state.spectators

    @property
    def match_id(self) -> int | None:
        return self.state.match_id

    @property
    def lease(self) -> Lease | None:
        return self.state.lease

    @property
    def hand_index(self) -> int:
        return self.state.hand_index

    @property
    def results(self) -> list[HandSummary]:
        return self.state.results

    @property
    def hand(self) -> HandFlow | None:
        return self.state.hand

    @property
    def round(self) -> Round | None:
        return self.state.round

    @property
    def hand_id(self) -> int | None:
        return self.state.hand_id

    @property
    def arrivals(self) -> int:
        return self.state.arrivals

    @property
    def free_seats(self) -> int:
        return self.state.free_seats

    @property
    def seed(self) -> int:
        return self.state.seed

    @seed.setter
    def seed(self, value: int) -> None:
        """Tests only, before the match starts: the match's seed (R4)."""
        self.state.seed = value

    @property
    def stored(self) -> int:
        """How many events of the hand are stored (tests set it to provoke a conflict)."""
        return 0 if self.state.hand is None else self.state.hand.stored

    @stored.setter
    def stored(self, value: int) -> None:
        assert self.state.hand is not None
        self.state.hand.stored = value

    def humans(self) -> list[tuple[int, Seat]]:
        return self.state.humans()

    def summary(self) -> dict[str, Any]:
        return self.state.summary()

    def addresses(self) -> set[str]:
        return self.state.addresses()

    def shares_address(self, address: str | None) -> bool:
        return self.state.shares_address(address)

    def _bot(self, index: int) -> Bot:
        return self.state.bot(index)

    # ------------------------------------------------------------------ asked by the host

    def keep_seats_of(self, ended: Table) -> None:
        """再來一局: this new table (its task not started) keeps the ended table's seats."""
        self.state.keep_seats_of(ended.state)

    def expect_join(self) -> None:
        """A join was queued here (:meth:`TableManager.queue_join`, by code or quick match):
        its seat counts as taken until the join is handled (``pending_joins``)."""
        self.pending_joins += 1

    def consume_arrivals(self, published: int) -> None:
        """The cluster published ``published`` of the arrivals counted so far."""
        self.state.consume_arrivals(published)

    async def restore(self, live: LiveMatch) -> None:
        """Rebuild the table of a live match after a restart (called before the task runs):
        the seated people's accounts are read, then the state rebuilds itself from them."""
        accounts = {}
        for seat in live.spec.seats:
            if seat.account_id is not None:
                accounts[seat.account_id] = await self.host.store_call(
                    self.store.account, seat.account_id
                )
        now = time.monotonic()
        await self._drive(self.state.restore(live, accounts, now, self.store.clock()))

    # ------------------------------------------------------------------ plumbing

    def start_task(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"table-{self.code}")
        for effect in self.state.opened():
            assert isinstance(effect, SetTimer)
            self._set_timer(effect)

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
            case Call(function=function):
                await function()
                return
            case TimerFired(name=key, timer_id=timer_id, args=args):
                entry = self._timers.get(key)
                if entry is None or entry[0] != timer_id:
                    return  # cancelled or replaced
                del self._timers[key]
                if key is DECISION and args[0] == "bot":
                    await self._collect_thought(args[1])
            case Join():
                self.pending_joins = max(0, self.pending_joins - 1)
            case _:
                pass
        await self._drive(self.state.handle(item, time.monotonic()))

    async def _drive(self, effects: list[Effect]) -> None:
        """Run ``effects`` in order. An effect that asks something is answered, and the
        state's effects for the answer run next, before the rest: the one loop where effects
        run and answers go back (never a transition from inside an effect)."""
        todo = deque(effects)
        while todo:
            effect = todo.popleft()
            # the few effects of every move are done here, the rest (and every question)
            # in _perform: a coroutine per effect costs more than most effects do
            if isinstance(effect, SendText):
                for client in effect.clients:
                    client.send_text(effect.text)
            elif isinstance(effect, AppendEvents):
                await self.host.writer.append(
                    effect.hand_id, effect.first, effect.events, effect.lease
                )
            elif isinstance(effect, SetTimer):
                self._set_timer(effect)
            elif isinstance(effect, CancelTimer):
                self.cancel_timer(effect.name)
            elif isinstance(effect, SendPrompt):
                effect.client.send(effect.prompt.to_json(effect.hand_id))
            else:
                result = await self._perform(effect)
                if result is not None:
                    todo.extendleft(reversed(self.state.on_result(result, time.monotonic())))

    async def _perform(self, effect: Effect) -> Result | None:
        """Do one effect; its answer, if it asks something."""
        host = self.host
        match effect:
            case SendText(clients=clients, text=text):
                for client in clients:
                    client.send_text(text)
            case AppendEvents(hand_id=hand_id, first=first, events=events, lease=lease):
                await host.writer.append(hand_id, first, events, lease)
            case SendPrompt(client=client, prompt=prompt, hand_id=hand_id):
                client.send(prompt.to_json(hand_id))
            case SetTimer():
                self._set_timer(effect)
            case CancelTimer(name=key):
                self.cancel_timer(key)
            case Send(client=client, message=message):
                client.send(message)
            case SendSnapshot(client=client, message=message, prompt=prompt, hand_id=hand_id):
                if prompt is not None:
                    message = {**message, "prompt": prompt.to_json(hand_id)}
                client.send(message)
            case SettleUntil(at=at):
                await asyncio.sleep(max(0.0, at - time.monotonic()))
                return Settled()
            case Think(seat=index, logged=logged, game=game, deadline=deadline, ahead=ahead):
                hand = self.state.hand
                assert hand is not None
                bot = self.state.bot(index)
                assert isinstance(bot, SearchBot)
                twin = bot.fork() if ahead else None
                # a twin is this thought's alone; the seat's bot serves one thought at a time
                lock: AbstractContextManager[object] = (
                    nullcontext() if twin else self._bot_locks.setdefault(index, threading.Lock())
                )
                thinker = twin or bot
                task = asyncio.create_task(
                    self._think(thinker, lock, index, logged, game, deadline)
                )
                task.add_done_callback(_retrieve)
                self._stop_twin(index)  # thinking for a turn that did not come
                self._thoughts[index] = _Thought(hand, task, None if twin is None else (bot, twin))
            case DropThought(seat=index):
                if self._stop_twin(index):
                    del self._thoughts[index]
            case Resume(step=step):
                return step
            case StoreTuoguan(match_id=match_id, seat=index, on=on, lease=lease):
                await host.store_call(self.store.set_tuoguan, match_id, index, on, lease)
            case StoreForcedTuoguan(match_id=match_id, seat=index, lease=lease, forced=forced):
                if forced:
                    await host.store_call(self.store.mark_forced_tuoguan, match_id, index, lease)
                else:
                    await host.store_call(
                        self.store.mark_forced_tuoguan, match_id, index, lease, False
                    )
            case StoreMatchStart(spec=spec, owner=owner, lease_seconds=seconds):
                match_id = await host.store_call(self.store.create_match, spec, owner, seconds)
                return MatchCreated(match_id)
            case StoreHandStart(
                match_id=match_id,
                hand_index=index,
                seed=seed,
                dealer=dealer,
                streak=streak,
                lease=lease,
                game=game,
            ):
                hand_id = await host.store_call(
                    self.store.start_hand, match_id, index, seed, dealer, streak, lease
                )
                return HandStarted(hand_id, game)
            case StoreSettlement(hand_id=hand_id, payments=payments, end=end, lease=lease):
                rows = await host.store_call(self.store.finish_hand, hand_id, payments, end, lease)
                return HandSettled(rows)
            case ReadBalances(account_ids=account_ids):
                return BalancesRead(await host.store_call(self.store.balances, account_ids))
            case StoreMatchEnd(match_id=match_id, reason=reason, lease=lease):
                self.finishing = True
                try:
                    changes = await host.store_call(
                        self.store.finish_match, match_id, reason, lease
                    )
                finally:
                    # stored: the table is ended before it reads the next message; refused:
                    # the match is as live as before, and a lost lease stops it as ever
                    self.finishing = False
                return MatchFinished(reason, changes)
            case CancelAllTimers():
                self.cancel_all_timers()
            case RegisterMatch(match_id=match_id):
                host.register_match(match_id, self)
            case HostSeat(account_id=account_id):
                host.seat(account_id, self)
            case HostUnseat(account_id=account_id):
                host.unseat(account_id, self)
            case AttachClient(client=client, here=here):
                host.attach_client(client, self if here else None)
            case DetachClient(client=client):
                host.detach_client(client, self)
            case Watch(client=client, here=here):
                host.watch(client, self if here else None)
            case PostTo(table=table, item=item):
                table.post(item)
            case QuickMatch(client=client, room=room):
                await host.quick_match(client, room)
            case Rematch():
                return Rematched(host.rematch(self).code)
            case SetBotRating(bot=bot, rating=rating):
                host.bot_ratings[bot] = rating
            case SetAccount(client=client, account=account):
                client.account = account
            case DropTable():
                host.drop_table(self)
            case _:
                assert_never(effect)
        return None

    # ------------------------------------------------------------------ bots thinking apart

    async def _think(
        self,
        bot: SearchBot,
        lock: AbstractContextManager[object],
        index: int,
        logged: int,
        game: Round,
        deadline: float,
    ) -> tuple[int, Action]:
        """Seat ``index``'s move on ``game``, chosen by ``bot`` (the seat's, or a twin:
        :attr:`Think.ahead`) in a search thread, holding ``lock``. (How often searches are cut
        by their deadline is not counted here: per decision, that would say which of a bot's
        decisions were close, what its move's timing hides. benchmarks/think_ahead.py
        measures it.)"""

        def choose() -> Action:
            with lock:
                return bot.choose(game.view(index), deadline=deadline)

        loop = asyncio.get_running_loop()
        return logged, await loop.run_in_executor(self.host.search_pool, choose)

    def _stop_twin(self, index: int) -> bool:
        """Stop seat ``index``'s thought if a twin thinks it ahead (:attr:`Think.ahead`);
        whether one did. A thought on the seat's own bot is never stopped: it is the move."""
        entry = self._thoughts.get(index)
        if entry is None or entry.twin is None:
            return False
        entry.twin[1].stop()
        return True

    async def _collect_thought(self, index: int) -> None:
        """Hand the bot's thought to the state when its think time ends; a thought not done
        yet is waited for (a bot that is late plays late; it never decides twice). The search
        stops before the think time ends (:class:`~duyun.server.tables.flow.Think`), so a late
        thought means the process is short of CPU: it is counted."""
        hand = self.state.hand
        if hand is None or self.state.status is not Status.PLAYING:
            return
        entry = self._thoughts.pop(index, None)
        if entry is None or entry.hand is not hand:
            return
        if not entry.task.done():
            self.host.metrics.late_thoughts.inc()
        try:
            logged, action = await entry.task
        except Exception:  # the state then decides on the loop, as for any other bot
            log.exception("table %s: seat %s's bot failed to think", self.code, index)
            return
        self.state.thought(index, logged, action, entry.twin)

    # ------------------------------------------------------------------ timers

    def _set_timer(self, effect: SetTimer) -> None:
        """(Re)start timer ``effect.name``: ``delay`` seconds from now, or from ``since`` (a
        ``time.monotonic()``) when given."""
        key, delay, since = effect.name, effect.delay, effect.since
        self.cancel_timer(key)
        if since is not None:
            delay = max(0.0, since + delay - time.monotonic())
        timer_id = next(self._timer_ids)
        handle = asyncio.get_running_loop().call_later(
            delay, self.inbox.put_nowait, TimerFired(key, timer_id, effect.args)
        )
        self._timers[key] = (timer_id, handle)

    def cancel_timer(self, key: TimerKey) -> None:
        entry = self._timers.pop(key, None)
        if entry is not None:
            entry[1].cancel()

    def cancel_all_timers(self) -> None:
        for key in list(self._timers):
            self.cancel_timer(key)

    def waits_for_nothing(self) -> bool:
        """A match in play that nothing will move on: no timer (a turn, a claim window, a
        bot's think time, the next hand, a grace), no message queued and none being handled,
        or a task that is gone. Always False in a healthy process; the watchdog counts and
        logs such tables (``/metrics`` ``duyun_tables_stalled``, issue 37), since their
        players would wait for ever."""
        if self.state.status not in (Status.PLAYING, Status.BETWEEN):
            return False
        if self.task is None or self.task.done():
            return True
        return not self.busy and self.inbox.empty() and not self._timers


@dataclass(slots=True)
class _Thought:
    """A seat's turn move being chosen in a search thread (:class:`Think`)."""

    #: the hand it is for
    hand: HandFlow
    #: the log's length it was chosen on, and the move
    task: asyncio.Task[tuple[int, Action]]
    #: a thought begun ahead (:attr:`Think.ahead`): the seat's bot and the twin thinking
    twin: tuple[SearchBot, SearchBot] | None


def _retrieve(task: asyncio.Task[tuple[int, Action]]) -> None:
    """A thought nobody collected (its hand moved on) must not log "exception never
    retrieved": its failure, if any, is of no consequence."""
    if not task.cancelled():
        task.exception()
