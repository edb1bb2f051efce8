"""Every table of this process: the codes, who is seated where, the connections by account.

:class:`TableManager` is the tables' host (``TableHost``, table.py): it keeps the indexes a
table used to write into itself (``by_match``, ``seated``, ``client.table``) and the one route
of every store call (:meth:`TableManager.store_call`, server/dbthread.py), and it opens, finds,
restores and drops tables for the websocket and REST endpoints.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from duyun.rules import RuleSet
from duyun.server.config import Room, ServerConfig
from duyun.server.dbthread import LEASES, MOVES, OTHER, StoreRoute
from duyun.server.metrics import Metrics
from duyun.server.protocol import ProtocolError, error_message
from duyun.server.store import Account, LiveMatch, Store
from duyun.server.tables.board import DealOverride
from duyun.server.tables.inbox import Attach, Client, Detach, Join, Spectate, Stop, Unspectate
from duyun.server.tables.seats import TableOptions, address_key
from duyun.server.tables.table import Table
from duyun.server.writer import EventWriter

log = logging.getLogger("duyun.server")

#: the ``kind`` label of ``duyun_store_seconds`` for each priority of the store route
_CALL_KINDS = {MOVES: "moves", LEASES: "leases", OTHER: "other"}

#: 大師 searches that may run at once in one process. They hold the GIL (engine and rollouts
#: are compiled, not released), so more threads would only take turns with the event loop; a
#: search that waits for a thread starts late and is cut at its deadline all the same
#: (server/tables/flow.py ``Think``), so a crowd of searches never delays a move.
SEARCH_THREADS = 2


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
    deal: DealOverride | None = None
    #: every table's events go to the database through this one group-committing writer
    writer: EventWriter = field(init=False)
    #: SQLite: the tables' database calls run on one thread, in order, moves first
    #: (server/dbthread.py). PostgreSQL: a pool of threads of its own, its row locks let
    #: transactions run side by side.
    route: StoreRoute = field(init=False)
    #: GET /metrics (issue 24 item 4)
    metrics: Metrics = field(default_factory=Metrics)
    #: each bot level's rating (issue 32), read at start and after every rated match
    bot_ratings: dict[str, int] = field(default_factory=dict)
    #: the codes of the stalled tables the watchdog has logged (:meth:`watch_stalled`)
    stalled_logged: set[str] = field(default_factory=set)
    #: the 大師 bots' searches: threads of their own, so that a busy hour of searches never
    #: queues the store calls (their route's threads) or logins' hashing (the default pool)
    search_pool: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(SEARCH_THREADS, thread_name_prefix="search")
    )

    def __post_init__(self) -> None:
        self.route = StoreRoute(self.store.dialect)
        self.writer = EventWriter(
            self.store,
            functools.partial(self.store_call, priority=MOVES),
            wait=self.config.commit_wait,
            observe=self.metrics.event_batch,
        )

    async def store_call(
        self, function: Callable[..., Any], *args: Any, priority: int = OTHER
    ) -> Any:
        """``function(*args)``, a store call, off the event loop: the one route of the tables,
        their restore, this manager and the event writer (whose batches come with ``MOVES``,
        ahead of every other call still waiting on SQLite)."""
        started = time.monotonic()
        try:
            return await self.route.call(priority, function, *args)
        finally:
            self.metrics.store_call(_CALL_KINDS.get(priority, "other"), started)

    # ------------------------------------------------------------------ the host of tables

    def register_match(self, match_id: int, table: Table) -> None:
        self.by_match[match_id] = table

    def seat(self, account_id: int, table: Table) -> None:
        self.seated[account_id] = table

    def attach_client(self, client: Client, table: Table | None) -> None:
        client.table = table

    def detach_client(self, client: Client, table: Table) -> None:
        if client.table is table:
            client.table = None

    def watch(self, client: Client, table: Table | None) -> None:
        client.spectating = table

    # ------------------------------------------------------------------ tables

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
        rated: bool = True,
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
                rated,
            ),
            code,
        )
        table.start_task()
        return table

    def rematch(self, ended: Table) -> Table:
        """再來一局 at a private table (issue 31 item 5): a new table under the same code and
        options, waiting, with the bots back in their seats and each person's seat kept for
        them. Whoever comes back (a ``join`` of the code) sits in their old seat; the match
        starts as any private table's does, when four sit and every person is ready, so each
        person agrees by coming back, and the host may give a seat nobody took to a bot.
        Registered before the ended table is dropped, so the code never points at nothing."""
        table = self.add_table(ended.options, ended.code)
        table.keep_seats_of(ended)
        table.start_task()
        return table

    def drop_table(self, table: Table) -> None:
        if self.tables.get(table.code) is table:
            del self.tables[table.code]
        if table.match_id is not None:
            self.by_match.pop(table.match_id, None)
        table.post(Stop())

    def open_tables_of(self, account_id: int) -> list[str]:
        """Codes of the private tables this account created that have not ended (the cap of
        ``open_tables_per_account``, issue 20 item 13)."""
        return sorted(
            t.code
            for t in self.tables.values()
            if t.options.kind == "private" and t.options.host == account_id and t.status != "ended"
        )

    def close_empty_tables_of(self, account_id: int, keep: int) -> list[str]:
        """Close the private tables this account created that wait with nobody at them (no
        one seated or watching, no join on its way), the oldest first, until at most ``keep``
        of its tables are open; the codes closed.

        Such a table would close by itself after ``PRIVATE_TABLE_IDLE`` (10 minutes), and
        until then it counts toward ``open_tables_per_account``. A host who left a table, or
        whose join never arrived (it expired on a dropped connection, the client's outbox),
        or who went back to the lobby from a 再來一局 table, and now opens another, would
        otherwise be refused for up to 10 minutes for tables nobody uses (the seats a
        再來一局 table keeps for the last match's players do not make it used: nobody came
        back to it). A table anyone sits at, watches or is joining stays: the cap still
        bounds what one account holds open."""
        empty = [
            t
            for t in self.tables.values()  # in the order they were opened
            if t.options.kind == "private"
            and t.options.host == account_id
            and t.status == "waiting"
            and not t.humans()
            and not t.state.spectators
            and t.pending_joins == 0
        ]
        excess = len(self.open_tables_of(account_id)) - keep
        closed = empty[: max(0, excess)]
        for table in closed:
            log.info("table %s: closed, empty, for its host's new table", table.code)
            self.drop_table(table)
        return [t.code for t in closed]

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

    async def admit(self, client: Client, room: Room) -> Account:
        """The client's account, fresh from the store, if it may sit down in ``room``: not
        seated elsewhere and holding the room's entry (the one check of every quick match,
        this process's queue or the shared one of several processes)."""
        account = self._check_free(client)
        fresh: Account = await self.store_call(self.store.account, account.id)
        client.account = fresh
        if fresh.balance < room.entry:
            raise ProtocolError(
                "insufficient_balance",
                f"{room.name} needs {room.entry} coins to sit down; you have {fresh.balance}",
            )
        return fresh

    async def quick_match(self, client: Client, room_id: str) -> None:
        room: Room | None = self.config.room(room_id)
        if room is None:
            known = ", ".join(r.id for r in self.config.rooms)
            raise ProtocolError("unknown_room", f"unknown room {room_id!r}; rooms: {known}")
        fresh = await self.admit(client, room)
        address = address_key(client.address)
        table = next(
            (
                t
                for t in self.tables.values()
                if t.options.kind == "room"
                and t.options.room == room.id
                and t.status == "waiting"
                and t.free_seats - t.pending_joins > 0
                and not t.shares_address(address)
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
        self.queue_join(client, fresh.id, table)

    def join(self, client: Client, code: str) -> None:
        assert client.account is not None
        current = self.seated.get(client.account.id)
        if current is not None and current.code == code:
            current.post(Attach(client))  # already seated there (a reload with ?join=...)
            return
        account = self._check_free(client)
        table = self.tables.get(code)
        if table is None or table.status == "ended":
            raise ProtocolError("table_not_found", f"no table with code {code}")
        # a match in play takes back only its own players (one who left between hands)
        if table.status != "waiting" and not any(
            s is not None and s.account_id == account.id for s in table.seats
        ):
            raise ProtocolError("wrong_state", f"table {code} has already started; spectate it")
        self.queue_join(client, account.id, table, by_code=True)

    def seats_in_play(self, account_id: int) -> list[dict[str, Any]]:
        """The matches in play on this process where the account holds a seat, seated or
        not (left between hands, escaped): the lobby's way back to them (issue 31 item 1)."""
        found = []
        for table in self.tables.values():
            if table.status not in ("playing", "between"):
                continue
            for index, seat in enumerate(table.seats):
                if seat is not None and seat.account_id == account_id:
                    found.append(
                        {
                            "code": table.code,
                            "match_id": table.match_id,
                            "seat": index,
                            "hand_index": table.hand_index,
                            "hands": table.options.hands,
                            "stake": table.options.stake,
                            "room": table.options.room,
                            "seated": seat.client is not None,
                            "tuoguan": seat.tuoguan,
                            "escaped": seat.forced_tuoguan and not seat.may_return,
                            "may_return": not seat.forced_tuoguan or seat.may_return,
                            "coins": sum(h.coins[index] for h in table.results),
                        }
                    )
        return found

    def queue_join(
        self, client: Client, account_id: int, table: Table, *, by_code: bool = False
    ) -> None:
        """Seat the account at ``table`` here at once, and queue its join there: what the
        client sends next queues behind the join. Until the table has handled it, the join
        counts in ``pending_joins`` (its seat is taken for quick match, and the table is not
        empty for :meth:`close_empty_tables_of`), whether it came by code or quick match."""
        self.seated[account_id] = table
        client.table = table
        table.expect_join()
        table.post(Join(client, None, by_code))

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
        table.post(Spectate(client))

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
                old.spectating.post(Unspectate(old))
        table = self.seated.get(account.id)
        if table is not None:
            table.post(Attach(client))
            return True
        return False

    def detach(self, client: Client) -> None:
        account = client.account
        if account is not None and self.connections.get(account.id) is client:
            del self.connections[account.id]
        if client.spectating is not None:
            client.spectating.post(Unspectate(client))
        table = client.table
        if table is not None:
            table.post(Detach(client))

    def stalled(self) -> list[Table]:
        """The tables whose match nothing will move on (:meth:`Table.waits_for_nothing`)."""
        return [table for table in self.tables.values() if table.waits_for_nothing()]

    def watch_stalled(self) -> int:
        """The watchdog's look: log each table newly found waiting for nothing once, by its
        code and state, so an operator can find it; returns how many there are now."""
        stalled = self.stalled()
        codes = {table.code for table in stalled}
        for table in stalled:
            if table.code not in self.stalled_logged:
                log.error(
                    "table %s (match %s) waits for nothing: status %s, hand %s, no timer, "
                    "no message queued; its players are stuck",
                    table.code,
                    table.match_id,
                    table.status,
                    table.hand_index,
                )
        self.stalled_logged = codes
        return len(stalled)

    async def keep_leases(self) -> None:
        """Keep this process's leases (several processes on one database): renew them and
        stop the tables whose match another process took. The adoption of dead processes'
        matches (``restore(include_own=False)``) runs beside it, in
        ``duyun.server.app.renew_leases``. Only the matches this process played when the
        renewal began can be missing from its answer for that reason: a match started while
        the renewal was in flight is simply not in it yet (at 400 tables starting together,
        four processes stopped such new tables as "moved" and left them to be adopted 30 s
        later)."""
        assert self.owner is not None
        checked = set(self.by_match)
        started = time.monotonic()
        held = set(
            await self.store_call(
                self.store.renew_leases, self.owner, self.config.lease_seconds, priority=LEASES
            )
        )
        took = time.monotonic() - started
        if took > self.config.lease_renew_every:
            # the margin before the leases run out (lease_seconds) is being eaten: the database
            # or this process is too slow for its tables, and the next late renewal loses them
            log.warning(
                "renewing this process's %d lease(s) took %.1f s (leases last %g s)",
                len(checked),
                took,
                self.config.lease_seconds,
            )
        self.lost_leases(held, checked)

    def lost_leases(self, held: set[int], checked: set[int] | None = None) -> None:
        """Tables whose match lease this process no longer holds stop here: another process
        took the match over (this one was paused past its lease), and two must never play it.
        ``checked``: the matches the renewal that answered ``held`` covered (default: all)."""
        for match_id, table in list(self.by_match.items()):
            if match_id in held or table.status == "ended" or table.finishing:
                continue  # a match whose end is being stored left the lease with its end
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
            live = await self.store_call(
                self.store.live_match, match_id, self.owner, self.config.lease_seconds
            )
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
        lives = await self.store_call(
            self.store.live_matches, self.owner, self.config.lease_seconds, include_own
        )
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
                    bool(options.get("rated", True)),
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
            table.post(Stop())
        tasks = [t.task for t in self.tables.values() if t.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        self.route.shutdown()
        self.search_pool.shutdown(wait=False, cancel_futures=True)
