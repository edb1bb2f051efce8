"""Four ``duyun serve`` processes on one PostgreSQL database as one service (issue 24).

Clients join through random processes and are redirected to the table's owner; a quick-match
room fills with players who asked on four different processes (no bot takes a seat); the owner
is SIGKILLed mid-hand and the match resumes on another process, every player's reconnect
reaching the table by following redirects; the match ends and the ledger audit passes (R41).
Plus the store side of the cluster (codes unique through the database, owner lookup), and
/metrics and /readyz on one process.

The multi-process tests are skipped, with the reason, when DUYUN_TEST_POSTGRES_URL is unset.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from sqlalchemy import event, select

from duyun.server.metrics import JsonFormatter
from duyun.server.store import MatchSpec, SeatSpec, Store, StoreConfig
from duyun.server.store import base as store_base
from duyun.server.store import cluster as shared
from duyun.server.store.models import MatchRow, MatchSeatRow
from serve_process import ServeProcess

pytestmark = pytest.mark.slow  # whole matches or server processes

CONFIG = """
claim_window = 0.02
claim_beat = 0.02
bot_delay = 0.005
bot_delay_max = 0.005
next_hand_wait = 0.05
next_hand_limit = 0.05
bot_fill_wait = 60.0
turn_timer = 2.0
reconnect_grace = 120.0
default_bot = "efficient"
# a dead process's matches are adopted within seconds, not the production 30 + 10 s; still
# long enough that a process slowed by a busy machine keeps its own (docs/deploy.md "Leases")
lease_seconds = 8.0
lease_renew_every = 1.0
starting_balance = 1000
argon2_time_cost = 1
argon2_memory_cost = 8
allowed_origins = ["*"]

[[rooms]]
id = "four"
name = "Four processes"
stake = 1
entry = 0
hands = 2
"""
STATE = shared.TableState("", None, "private", None, False, "waiting", 4, 0, {"status": "waiting"})


def _process(database_url: str, config: Path, owner: str) -> ServeProcess:
    """``duyun serve --owner NAME --public-url http://127.0.0.1:PORT`` with JSON logs; the
    deal leaves every hand four steps from ready (the players' six answers each before the
    kill must come before anybody can win, whatever the deal)."""
    return ServeProcess(
        database_url,
        config=config,
        owner=owner,
        public_url=True,
        extra=["--log-format", "json"],
        deal="stacked_deals:slow",
    ).start()


@pytest.fixture
def four(fresh_postgres_url: str, tmp_path: Path) -> Iterator[tuple[str, list[ServeProcess]]]:
    config = tmp_path / "serve.toml"
    config.write_text(CONFIG, encoding="utf-8")
    processes = [_process(fresh_postgres_url, config, f"web-{i}") for i in range(1, 5)]
    try:
        for process in processes:
            process.wait_ready("/readyz", timeout=90.0)
        yield fresh_postgres_url, processes
    finally:
        for process in processes:
            process.stop()


class Player:
    """A websocket player that follows ``redirect`` messages the way the browser client does
    (same token in ``hello``, then ``join``), and reconnects through random processes."""

    def __init__(self, name: str, token: str, address: str | None = None) -> None:
        self.name, self.token = name, token
        #: the client address the proxy passes (X-Forwarded-For, trusted from 127.0.0.1):
        #: quick match never seats two people of one address at one table (issue 32)
        self.address = address
        self.ws: Any = None
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.redirects: list[dict[str, Any]] = []
        self.reader: asyncio.Task[None] | None = None
        self.code: str | None = None
        #: whether :meth:`play` returned on ``match_end``
        self.saw_end = False

    async def connect(self, url: str) -> dict[str, Any]:
        await self.close()
        headers = {"X-Forwarded-For": self.address} if self.address else None
        self.ws = await websockets.connect(url, open_timeout=5, additional_headers=headers)
        self.inbox = asyncio.Queue()
        self.reader = asyncio.create_task(self._read(self.ws, self.inbox))
        await self.send(type="hello", version=1, token=self.token)
        return await self.expect("welcome")

    @staticmethod
    async def _read(ws: Any, inbox: asyncio.Queue[dict[str, Any]]) -> None:
        try:
            async for raw in ws:
                await inbox.put(json.loads(raw))
        except websockets.ConnectionClosed:
            pass
        await inbox.put({"type": "_closed"})

    async def send(self, **message: Any) -> None:
        await self.ws.send(json.dumps(message))

    async def expect(self, *kinds: str, timeout: float = 20.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            message = await asyncio.wait_for(self.inbox.get(), max(0.01, end - time.monotonic()))
            if message["type"] == "_closed" and "_closed" not in kinds:
                raise ConnectionError(f"{self.name}: connection closed")
            if message["type"] == "error" and message.get("code") not in (
                "too_late",
                "not_your_turn",
            ):
                raise AssertionError(f"{self.name}: {message}")
            if message["type"] in kinds:
                return message

    async def seat(self, first: ServeProcess, **request: Any) -> dict[str, Any]:
        """Send ``request`` (join or quick_match) through ``first``; follow a redirect; return
        the ``table`` message of the table where the player sits."""
        await self.connect(first.ws_url)
        await self.send(**request)
        answer = await self.expect("table", "redirect")
        if answer["type"] == "redirect":
            self.redirects.append(answer)
            await self.connect(answer["url"])
            await self.send(type="join", code=answer["code"])
            answer = await self.expect("table")
        self.code = answer["table"]["code"]
        return answer

    async def reach_table(self, processes: list[ServeProcess], timeout: float = 120.0) -> str:
        """Reconnect through a random live process until one seats us at our table again
        (directly, or by its redirect); returns the owner's URL that answered."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            first = random.choice([p for p in processes if p.alive])
            url = first.ws_url
            for _ in range(3):  # a redirect, then possibly another after an adoption
                try:
                    welcome = await self.connect(url)
                except (OSError, websockets.InvalidHandshake, TimeoutError):
                    break  # the process we were sent to is dead: ask again
                if welcome.get("table") == self.code:
                    return url
                try:
                    redirect = await self.expect("redirect", timeout=3)
                except TimeoutError:
                    break
                self.redirects.append(redirect)
                url = redirect["url"]
            await asyncio.sleep(0.5)  # the adopter has not taken the lease yet
        raise AssertionError(f"{self.name} never got back to table {self.code}")

    async def play(self, until: str, rng: random.Random, stop_after: int | None = None) -> int:
        """Answer prompts until ``until`` (or ``stop_after`` answers); returns answers given.

        Each answer names its prompt, as the browser client does: an answer to a 0.02 s claim
        window that arrives after the window closed is then refused as ``too_late``, never
        taken for this seat's next decision (where it would be an illegal action)."""
        answered = 0
        while stop_after is None or answered < stop_after:
            message = await self.expect("prompt", until, timeout=90)
            if message["type"] == until:
                self.saw_end = until == "match_end"
                return answered
            wins = [a for a in message["legal"] if a["action"] == "hu"]
            move = wins[0] if wins else rng.choice(message["legal"])
            answered += 1
            await self.send(type="act", prompt=message["id"], rid=f"{self.name}-{answered}", **move)
        return answered

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()


def _guest(process: ServeProcess) -> str:
    answer = httpx.post(f"{process.url}/api/guest", timeout=10)
    answer.raise_for_status()
    token: str = answer.json()["token"]
    return token


def test_four_processes_redirect_shared_room_sigkill_resume_and_audit_r41(
    four: tuple[str, list[ServeProcess]],
) -> None:
    database_url, processes = four
    rng = random.Random(24)

    # a private table opened on web-1 is listed, described and joinable from every process
    host_token = _guest(processes[0])

    async def claim_everywhere() -> list[httpx.Response]:
        # the same account's daily gift asked of all four processes at once (issue 32)
        async with httpx.AsyncClient(timeout=10) as client:
            return list(
                await asyncio.gather(
                    *(
                        client.post(
                            f"{p.url}/api/bonus/gift",
                            headers={"Authorization": f"Bearer {host_token}"},
                        )
                        for p in processes
                    )
                )
            )

    claims = asyncio.run(claim_everywhere())
    assert sorted(c.status_code for c in claims) == [200, 409, 409, 409], [c.text for c in claims]
    assert {c.json()["error"]["code"] for c in claims if c.status_code == 409} == {
        "already_claimed"
    }
    created = httpx.post(
        f"{processes[0].url}/api/tables",
        json={"listed": True, "hands": 1},
        headers={"Authorization": f"Bearer {host_token}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    code = created.json()["code"]

    def published() -> bool:
        lobby = httpx.get(f"{processes[2].url}/api/lobby", timeout=10).json()["tables"]
        return any(t["code"] == code and t["url"] == processes[0].url for t in lobby)

    end = time.monotonic() + 10
    while not published():  # published at the owner's next heartbeat (2 s)
        assert time.monotonic() < end, "web-1's table never reached web-3's lobby"
        time.sleep(0.2)
    info = httpx.get(f"{processes[3].url}/api/tables/{code}", timeout=10)
    assert info.status_code == 200 and info.json()["url"] == processes[0].url
    assert httpx.get(f"{processes[3].url}/api/tables/999999", timeout=10).status_code in (404,)

    async def scenario() -> tuple[list[Player], str]:
        guest = Player("invitee", _guest(processes[1]))
        joined = await guest.seat(processes[1], type="join", code=code)  # invite link on web-2
        assert joined["table"]["code"] == code
        assert guest.redirects and guest.redirects[0]["url"] == processes[0].ws_url
        await guest.close()

        # one quick-match room, four players asking on four processes, in random order
        players = [
            Player(f"p{i}", _guest(processes[i]), address=f"198.51.100.{i + 1}") for i in range(4)
        ]
        order = list(range(4))
        rng.shuffle(order)
        for i in order:
            await players[i].seat(processes[i], type="quick_match", room="four")
        codes = {p.code for p in players}
        assert len(codes) == 1, f"the room's players were split over tables {codes}"
        room_code = codes.pop()
        assert room_code is not None
        assert sum(bool(p.redirects) for p in players) == 3  # all but the owner's own player

        def spectatable() -> bool:  # listed for spectators on every process
            return all(
                any(
                    t["code"] == room_code
                    for t in httpx.get(f"{p.url}/api/lobby").json()["playing"]
                )
                for p in processes
            )

        end = time.monotonic() + 10
        while not await asyncio.to_thread(spectatable):
            assert time.monotonic() < end, "the room's table never listed as playing everywhere"
            await asyncio.sleep(0.2)

        # play a while, then SIGKILL the owner mid-hand
        await asyncio.gather(
            *(p.play("match_end", random.Random(i), 6) for i, p in enumerate(players))
        )
        assert not any(p.saw_end for p in players), "the match ended before the kill"
        owner_url = (
            players[order[0]].redirects[0]["origin"] if players[order[0]].redirects else None
        )
        owner = next(
            p for p in processes if p.ws_url in {r["url"] for q in players for r in q.redirects}
        )
        assert owner_url is None or owner.url == owner_url
        owner.kill()
        for player in players:
            await player.close()

        # every reconnect, through a random live process, reaches the table on its adopter
        answered = await asyncio.gather(*(p.reach_table(processes) for p in players))
        assert owner.ws_url not in answered
        ends = await asyncio.gather(
            *(p.play("match_end", random.Random(10 + i)) for i, p in enumerate(players))
        )
        assert all(isinstance(n, int) for n in ends)
        for player in players:
            await player.close()
        return players, room_code

    _players, room_code = asyncio.run(scenario())

    store = Store.open(database_url)
    try:
        report = store.audit()
        assert report.ok, report
        assert store.check_zero_sum() == 0
        assert shared.locate(store, room_code) is None  # the match is over everywhere
        with store._session() as session:
            seats = session.execute(
                select(MatchSeatRow.account_id)
                .join(MatchRow, MatchRow.id == MatchSeatRow.match_id)
                .where(MatchRow.code == room_code)
            ).all()
        assert len(seats) == 4 and all(account is not None for (account,) in seats)  # no bot
        # the gift was paid once whichever process answered
        host = store.verify_token(host_token)
        assert [r.kind for r in store.coin_ledger(host.id)].count("gift") == 1
        # the match was rated once, by whichever process ended it after the adoption
        with store._session() as session:
            (match_id,) = session.execute(
                select(MatchRow.id).where(MatchRow.code == room_code)
            ).one()
        changes = store.match_ratings(match_id)
        assert len(changes) == 4 and all(c.account_id is not None for c in changes)
        for change in changes:
            assert change.account_id is not None
            assert store.account(change.account_id).rated_matches == 1
    finally:
        store.close()


# ---------------------------------------------------------------- the store's side


def test_table_codes_are_unique_through_the_database_with_a_retry(
    database_url: str, make_store: Callable[..., Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(database_url)
    draws = iter([123456, 123456, 123456, 654321])
    monkeypatch.setattr("duyun.server.store.cluster.secrets.randbelow", lambda _n: next(draws))
    first = shared.reserve_code(store, "web-1", STATE)
    second = shared.reserve_code(store, "web-2", STATE)  # 123456 is taken: drawn again
    assert (first, second) == ("123456", "654321")
    shared.heartbeat(store, "web-1", "https://s1.example")
    where = shared.locate(store, "123456")
    assert where is not None and (where.owner, where.url) == ("web-1", "https://s1.example")
    assert shared.locate(store, "000000") is None


def test_a_started_match_is_located_by_its_lease_so_an_adopter_gets_the_players(
    database_url: str, make_store: Callable[..., Store]
) -> None:
    now = [1000.0]
    store = make_store(database_url, clock=lambda: now[0])
    guest = store.create_guest()
    spec = MatchSpec(
        kind="room",
        room="four",
        stake=1,
        hands=1,
        seats=(SeatSpec(guest.id, None), *tuple(SeatSpec(None, "efficient") for _ in range(3))),
        seed=1,
        code="424242",
        first_dealer=0,
        rules={},
        options={},
    )
    match_id = store.create_match(spec, "web-1")
    shared.heartbeat(store, "web-1", "https://s1.example")
    shared.heartbeat(store, "web-2", "https://s2.example")
    state = shared.TableState("424242", match_id, "room", "four", True, "playing", 0, 1, {})
    shared.publish(store, "web-1", [state])
    seat = shared.seat_elsewhere(store, guest.id)
    assert seat is not None and (seat.code, seat.url) == ("424242", "https://s1.example")
    now[0] += 31  # web-1 died: its lease and heartbeat lapse; web-2 adopts the match
    shared.heartbeat(store, "web-2", "https://s2.example")
    assert [live.match_id for live in store.live_matches("web-2", include_own=False)] == [match_id]
    shared.publish(store, "web-2", [state])
    where = shared.locate(store, "424242")
    assert where is not None and (where.owner, where.url) == ("web-2", "https://s2.example")
    seat = shared.seat_elsewhere(store, guest.id)
    assert seat is not None and seat.url == "https://s2.example"


def test_quick_pick_sends_a_second_process_to_the_first_ones_waiting_table(
    database_url: str, make_store: Callable[..., Store]
) -> None:
    store = make_store(database_url)
    for owner in ("web-1", "web-2"):
        shared.heartbeat(store, owner, f"https://{owner}.example")
    room = shared.TableState("", None, "room", "four", True, "waiting", 4, 0, {})
    first = shared.quick_pick(store, "web-1", "four", {}, room)
    assert first.new and first.url is None and first.code is not None
    second = shared.quick_pick(store, "web-2", "four", {}, room)
    assert (second.code, second.url, second.new) == (first.code, "https://web-1.example", False)
    # a draining process opens nothing: with no waiting table it sends players elsewhere
    shared.set_draining(store, "web-1")
    third = shared.quick_pick(store, "web-2", "four", {}, room)
    assert third.new and third.code != first.code  # web-1 is draining: its table is not offered
    assert shared.quick_pick(store, "web-1", "other", {}, room, draining=True).url == (
        "https://web-2.example"
    )


def test_quick_pick_passes_over_another_process_table_holding_the_askers_address(
    database_url: str, make_store: Callable[..., Store]
) -> None:
    """Fair matching across processes (issue 32): the owner publishes the digests of its
    seated people's addresses; a quick match asked on another process by someone of one of
    those addresses opens a table of its own instead, while anyone else is sent there. The
    digests never reach the lobby's listing."""
    store = make_store(database_url)
    for owner in ("web-1", "web-2"):
        shared.heartbeat(store, owner, f"https://{owner}.example")
    room = shared.TableState("", None, "room", "four", True, "waiting", 4, 0, {})
    first = shared.quick_pick(store, "web-1", "four", {}, room, address="digest-a")
    assert first.new and first.code is not None
    seated = shared.TableState(
        first.code, None, "room", "four", True, "waiting", 3, 1, {}, addresses=("digest-a",)
    )
    shared.publish(store, "web-1", [seated])
    apart = shared.quick_pick(store, "web-2", "four", {}, room, address="digest-a")
    assert apart.new and apart.code != first.code and apart.url is None
    other = shared.quick_pick(store, "web-2", "four", {}, room, address="digest-b")
    assert (other.code, other.url) == (first.code, "https://web-1.example")
    unchecked = shared.quick_pick(store, "web-2", "four", {}, room)  # same_address_tables
    assert unchecked.code == first.code
    assert all("digest-a" not in json.dumps(t) for t in shared.lobby(store))


def test_a_beat_reads_its_changed_tables_in_a_few_statements(
    database_url: str, make_store: Callable[..., Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a crowd is seated every table changes between two heartbeats: the beat reads the
    changed rows ``KEYS_PER_READ`` at a time (here 4, over 10 tables: 3 reads), not one
    statement per table, and still writes each one's new state, and only the changed ones."""
    store = make_store(database_url)
    shared.heartbeat(store, "web-1", "https://web-1.example")
    codes = [shared.reserve_code(store, "web-1") for _ in range(10)]
    monkeypatch.setattr(store_base, "KEYS_PER_READ", 4)
    reads: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "table_codes" in statement:
            reads.append(statement)

    event.listen(store._engine, "before_cursor_execute", count)
    states = [
        shared.TableState(code, None, "private", None, False, "playing", 0, 4, {"n": i})
        for i, code in enumerate(codes)
    ]
    shared.publish(store, "web-1", states)
    # one read of the owner's codes, then the changed rows four at a time
    assert len(reads) == 1 + 3
    reads.clear()
    shared.publish(store, "web-1", states, unchanged=set(codes[:9]))
    assert len(reads) == 1 + 1
    event.remove(store._engine, "before_cursor_execute", count)
    with store._session() as session:
        rows = {
            row.code: (row.status, row.humans, row.summary)
            for row in session.scalars(select(shared.TableCodeRow))
        }
    assert rows == {code: ("playing", 4, {"n": i}) for i, code in enumerate(codes)}


def test_a_player_who_came_on_a_reservation_is_counted_once(
    database_url: str, make_store: Callable[..., Store]
) -> None:
    """A seat another process's quick match reserved is promised until the player arrives;
    once the owner publishes the table with that player seated, the reservation is used up.
    Kept on as well, it counted the player twice: with four players asking on four processes
    over more than two heartbeats, the fourth saw no free seat and opened a second table."""
    store = make_store(database_url)
    for owner in ("web-1", "web-2", "web-3", "web-4"):
        shared.heartbeat(store, owner, f"https://{owner}.example")
    room = shared.TableState("", None, "room", "four", True, "waiting", 4, 0, {})
    first = shared.quick_pick(store, "web-1", "four", {}, room)
    assert first.new and first.code is not None
    code = first.code

    def published(free: int, arrived: int) -> None:
        state = shared.TableState(code, None, "room", "four", True, "waiting", free, 4 - free, {})
        shared.publish(store, "web-1", [replace(state, arrived=arrived)])

    published(free=3, arrived=0)  # web-1's own player sat down
    for asker, free_after in (("web-2", 2), ("web-3", 1), ("web-4", 0)):
        pick = shared.quick_pick(store, asker, "four", {}, room)
        assert (pick.code, pick.url) == (code, "https://web-1.example"), asker
        published(free=free_after, arrived=1)  # the player arrived and sat down by code
    # a reservation still holds a seat for a player on the way: no more than the free seats
    # are promised
    second = shared.quick_pick(store, "web-2", "four", {}, room)
    assert second.new and second.code != code
    other = second.code
    assert other is not None
    state = shared.TableState(other, None, "room", "four", True, "waiting", 1, 3, {})
    shared.publish(store, "web-2", [state])
    assert shared.quick_pick(store, "web-3", "four", {}, room).code == other  # reserved now
    assert shared.quick_pick(store, "web-4", "four", {}, room).new  # the last seat is promised


# ---------------------------------------------------------------- one process: operations


METRICS_TOKEN = "scrape-" + "x" * 24


def test_metrics_and_readyz(live_server: Callable[..., Any]) -> None:
    server = live_server(metrics_token=METRICS_TOKEN)
    ready = server.http.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"ready": True}
    scraped = server.http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    assert scraped.status_code == 200
    text = scraped.text
    for name in (
        "duyun_tables",
        "duyun_connections",
        "duyun_decisions_total",
        "duyun_decision_seconds_bucket",
        "duyun_store_seconds",
        "duyun_errors_total",
        "duyun_event_batches_total",
        "duyun_event_appends_total",
        "duyun_commit_wait_seconds_total",
    ):
        assert name in text, name
    if sys.platform.startswith("linux"):  # the descriptors left before accept() fails
        opened = re.search(r"^process_open_fds (\d+)\.0$", text, re.MULTILINE)
        most = re.search(r"^process_max_fds (\d+)\.0$", text, re.MULTILINE)
        assert opened and most and 0 < int(opened[1]) < int(most[1]), text[-2000:]
    assert re.search(r'^duyun_tables\{status="waiting"\} 0\.0$', text, re.MULTILINE)


@pytest.mark.parametrize("token", [None, METRICS_TOKEN])
def test_metrics_are_the_operators_only(tmp_path: Path, token: str | None) -> None:
    """Off without metrics_token, else only with it as the bearer token: a person's claim pass
    moves the counters, which would tell anybody polling them that a seat held a pair."""
    from fastapi.testclient import TestClient

    from duyun.server.app import create_app
    from duyun.server.config import ServerConfig

    app = create_app(
        ServerConfig(metrics_token=token),
        f"sqlite:///{tmp_path}/metrics.db",
        store_config=StoreConfig(argon2_time_cost=1, argon2_memory_cost=8),
    )
    with TestClient(app) as client:
        player = client.post("/api/guest").json()["token"]
        refusals = [
            {},
            {"Authorization": f"Bearer {player}"},  # a player's own token is not the operator's
            {"Authorization": f"Bearer {METRICS_TOKEN[:-1]}X"},
            {"Authorization": f"Bearer {METRICS_TOKEN}{METRICS_TOKEN}"},
            {"Authorization": f"Basic {METRICS_TOKEN}"},
            {"Authorization": "Bearer 口令".encode()},
        ]
        for headers in refusals:
            answer = client.get("/metrics", headers=headers)
            assert answer.status_code == (404 if token is None else 401), headers
            error = answer.json()["error"]
            assert error["code"] == ("not_found" if token is None else "unauthorized")
            assert "metrics" in error["message"].lower() and "duyun_" not in answer.text
        scrape = client.get("/metrics", headers={"Authorization": f"bearer  {METRICS_TOKEN}"})
        if token is None:
            assert scrape.status_code == 404
        else:
            assert scrape.status_code == 200 and "duyun_decisions_total" in scrape.text


def test_json_logs_are_one_object_per_line_with_extra_fields_and_traceback() -> None:
    formatter = JsonFormatter("web-1")
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.getLogger("duyun.server").makeRecord(
            "duyun.server",
            logging.ERROR,
            __file__,
            1,
            "table %s failed",
            ("123456",),
            sys.exc_info(),
        )
    record.table = "123456"
    line = formatter.format(record)
    assert "\n" not in line
    data = json.loads(line)
    assert data["level"] == "error" and data["owner"] == "web-1"
    assert data["message"] == "table 123456 failed" and data["table"] == "123456"
    assert "ValueError: boom" in data["exc"]


def test_the_page_may_open_websockets_to_the_other_hosts_of_allowed_origins(
    live_server: Callable[..., Any],
) -> None:
    server = live_server(allowed_origins=("https://s1.example", "http://s2.example:8080"))
    policy = server.http.get("/").headers["content-security-policy"]
    connect = next(p for p in policy.split(";") if p.strip().startswith("connect-src"))
    assert "wss://s1.example" in connect and "ws://s2.example:8080" in connect
    assert "evil" not in connect


def test_draining_process_opens_no_table_and_is_not_ready(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from duyun.server.app import create_app
    from duyun.server.config import ServerConfig

    app = create_app(
        ServerConfig(public_url="http://127.0.0.1:1", metrics_token=METRICS_TOKEN),
        f"sqlite:///{tmp_path}/drain.db",
        owner="web-1",
        store_config=StoreConfig(argon2_time_cost=1, argon2_memory_cost=8),
    )
    with TestClient(app) as client:
        assert client.get("/readyz").json() == {"ready": True}
        token = client.post("/api/guest").json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        assert client.post("/api/tables", json={}, headers=auth).status_code == 201
        app.state.server.cluster.start_draining("test")
        answer = client.get("/readyz")
        assert answer.status_code == 503 and answer.json()["reason"] == "draining"
        refused = client.post("/api/tables", json={}, headers=auth)
        assert refused.status_code == 503 and refused.json()["error"]["code"] == "draining"
        scrape = {"Authorization": f"Bearer {METRICS_TOKEN}"}
        assert "duyun_draining 1.0" in client.get("/metrics", headers=scrape).text
