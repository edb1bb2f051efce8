"""N server processes on one PostgreSQL database as one service (issue 24).

Each process has a name (``--owner``) and a public URL (``--public-url``); the database holds
both, every table's code, and a lock per quick-match room (``duyun.server.store.cluster``). So:

- a ``join``, ``spectate`` or reconnect for a table another live process holds is answered with
  a ``redirect`` message carrying that process's websocket URL (docs/protocol.md); the browser
  client reconnects there with its token and joins;
- codes are drawn against the database (its primary key refuses a code twice);
- the lobby lists the tables of every live process;
- quick match picks, under the room's row lock, the waiting table of the room with the most
  players on any process, so players asking on different processes sit together before bots
  fill the seats (PostgreSQL; on SQLite a process keeps its own queue, as before);
- ``drain`` (SIGUSR1 to the process, or ``duyun admin drain OWNER`` on any machine with the
  database) stops a process taking new tables: its running matches play to their end, new
  players are sent to the other processes, and ``/readyz`` answers 503 so the proxy sends no
  one new.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from duyun.server.dbthread import LEASES, OTHER
from duyun.server.protocol import ProtocolError
from duyun.server.store import Store
from duyun.server.store import cluster as shared
from duyun.server.tables import Client, Table, TableManager, TableOptions
from duyun.server.tables.seats import address_key

log = logging.getLogger("duyun.server.cluster")
T = TypeVar("T")

#: seconds between two heartbeats, which also publish this process's tables for the lobby
BEAT_EVERY = 2.0


def websocket_url(public_url: str) -> str:
    """``https://s2.play.example`` → ``wss://s2.play.example/ws`` (http → ws)."""
    parts = urlsplit(public_url)
    scheme = {"https": "wss", "http": "ws"}.get(parts.scheme, parts.scheme)
    path = parts.path.rstrip("/")
    if not path.endswith("/ws"):
        path += "/ws"
    return urlunsplit((scheme, parts.netloc, path, "", ""))


class Cluster:
    """This process's part of the shared service: heartbeat, table rows, redirects, drain."""

    def __init__(
        self, store: Store, manager: TableManager, owner: str, public_url: str | None
    ) -> None:
        self.store = store
        self.manager = manager
        self.owner = owner
        self.public_url = public_url
        #: one queue per room across processes (PostgreSQL only: SQLite is one process)
        self.shared_queue = store.dialect == "postgresql"
        self.draining = False
        self._drained_logged = False
        #: what the last beat published, to write only the tables that changed since
        self._published: dict[str, shared.TableState] = {}

    async def _db(self, function: Callable[..., T], *args: Any, priority: int = OTHER) -> T:
        # the manager's store route, like every other store call of the server (on SQLite its
        # one ordered database thread)
        result: T = await self.manager.store_call(function, *args, priority=priority)
        return result

    # ------------------------------------------------------------------ beat

    def states(self) -> list[shared.TableState]:
        return [
            state_of(table) for table in self.manager.tables.values() if table.status != "ended"
        ]

    async def beat(self) -> None:
        """Heartbeat (reading the drain flag an admin may have set) and publish the tables."""
        # the heartbeat in the leases' lane: a process whose heartbeat is older than
        # PROCESS_TIMEOUT counts as gone for every other process's quick match and lookups
        stored = await self._db(
            shared.heartbeat, self.store, self.owner, self.public_url, priority=LEASES
        )
        if stored and not self.draining:
            self.start_draining("duyun admin drain")
        elif not stored and self.draining:
            self.draining = self._drained_logged = False
            log.warning("no longer draining (duyun admin drain --undo): taking new tables")
        states = self.states()
        unchanged = {s.code for s in states if self._published.get(s.code) == s}
        await self._db(shared.publish, self.store, self.owner, states, unchanged)
        self._published = {s.code: s for s in states}
        for state in states:  # their reservations are consumed now
            table = self.manager.tables.get(state.code)
            if state.arrived and table is not None:
                table.consume_arrivals(state.arrived)
        if self.draining and not self._drained_logged and not self.manager.by_match:
            self._drained_logged = True
            log.info("drained: no match left on %s; the process can be stopped", self.owner)

    async def run(self) -> None:
        while True:
            started = time.monotonic()
            try:
                await self.beat()
            except Exception:
                log.exception("cluster heartbeat failed")
            await asyncio.sleep(max(0.1, BEAT_EVERY - (time.monotonic() - started)))

    def start_draining(self, why: str) -> None:
        if self.draining:
            return
        self.draining = True
        log.warning(
            "draining (%s): no new tables here; %d match(es) play to their end",
            why,
            len(self.manager.by_match),
        )

    async def drain(self, why: str) -> None:
        self.start_draining(why)
        await self._db(shared.heartbeat, self.store, self.owner, self.public_url, True)

    # ------------------------------------------------------------------ codes and places

    async def new_code(self, kind: str, listed: bool) -> str:
        """A code free on every process, registered for this one (raises while draining)."""
        if self.draining:
            raise ProtocolError("draining", "this server is draining; open the table elsewhere")
        state = shared.TableState("", None, kind, None, listed, "waiting", 4, 0, {})
        return await self._db(shared.reserve_code, self.store, self.owner, state)

    async def locate(self, code: str) -> shared.Location | None:
        """Where ``code`` lives if not here: another live process's table, else None."""
        if code in self.manager.tables:
            return None
        where = await self._db(shared.locate, self.store, code)
        if where is None or where.owner == self.owner:
            return None
        return where

    def redirect(
        self,
        client: Client,
        url: str,
        *,
        code: str | None,
        reason: str,
        room: str | None = None,
        rid: str | int | None = None,
    ) -> None:
        message: dict[str, Any] = {
            "type": "redirect",
            "url": websocket_url(url),
            "origin": url,
            "code": code,
            "room": room,
            "reason": reason,
        }
        if rid is not None:
            message["rid"] = rid
        self.manager.metrics.redirects.inc()
        client.send(message)

    async def join_elsewhere(
        self, client: Client, code: str, reason: str, rid: str | int | None
    ) -> bool:
        """Answer a join/spectate of a table held elsewhere with a redirect; False if it is not
        held elsewhere (the local handling then answers, ``table_not_found`` included)."""
        where = await self.locate(code)
        if where is None:
            return False
        if where.url is None:
            raise ProtocolError(
                "table_elsewhere",
                f"table {code} is played on server {where.owner}, which has no public address",
            )
        self.redirect(client, where.url, code=code, reason=reason, rid=rid)
        return True

    async def reconnect_elsewhere(self, client: Client) -> bool:
        """A player seated at a live match held by another process is sent there at once."""
        account = client.account
        if account is None or account.id in self.manager.seated:
            return False
        where = await self._db(shared.seat_elsewhere, self.store, account.id)
        if where is None or where.owner == self.owner or where.url is None:
            return False
        self.redirect(client, where.url, code=where.code, reason="reconnect")
        return True

    # ------------------------------------------------------------------ quick match

    async def quick_match(self, client: Client, room_id: str) -> None:
        """One queue per room across processes; see :func:`shared.quick_pick`."""
        manager = self.manager
        room = manager.config.room(room_id)
        if room is None or not self.shared_queue:
            if self.draining and room is not None:
                raise ProtocolError("draining", "this server is draining; try another one")
            await manager.quick_match(client, room_id)
            return
        fresh = await manager.admit(client, room)
        address = address_key(client.address)
        local_free = {
            t.code: t.free_seats - t.pending_joins
            for t in manager.tables.values()
            if t.options.kind == "room"
            and t.options.room == room.id
            and t.status == "waiting"
            and not t.shares_address(address)
        }
        state = shared.TableState("", None, "room", room.id, True, "waiting", 4, 0, {})
        pick = await self._db(
            shared.quick_pick,
            self.store,
            self.owner,
            room.id,
            local_free,
            state,
            self.draining,
            None if manager.config.same_address_tables else address,
        )
        if pick.url is not None:
            self.redirect(client, pick.url, code=pick.code, reason="quick_match", room=room.id)
            return
        if pick.code is None:
            raise ProtocolError("draining", "this server is draining and no other one answers")
        table = manager.tables.get(pick.code)
        if table is None or table.status != "waiting":
            table = manager.add_table(
                TableOptions(
                    "room",
                    room.id,
                    room.stake,
                    room.hands,
                    room.rules,
                    True,
                    manager.config.default_bot,
                    True,
                    None,
                    claim_pause=room.claim_pause,
                ),
                code=pick.code,
            )
            table.start_task()
        manager.queue_join(client, fresh.id, table)

    # ------------------------------------------------------------------ readiness

    async def processes(self) -> list[dict[str, Any]]:
        return await self._db(shared.processes, self.store)


def state_of(table: Table) -> shared.TableState:
    """What the lobby and quick match of other processes need of a table."""
    free = table.free_seats - table.pending_joins
    summary = table.summary()
    return shared.TableState(
        code=table.code,
        match_id=table.match_id,
        kind=table.options.kind,
        room=table.options.room,
        listed=table.options.kind == "room" or table.options.listed,
        status=table.status,
        free=max(0, free),
        humans=len(table.humans()),
        summary=summary,
        arrived=table.arrivals,
        addresses=tuple(sorted(table.addresses())),
    )


__all__ = ["BEAT_EVERY", "Cluster", "state_of", "websocket_url"]
