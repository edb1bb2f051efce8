"""A table runs under any host that implements ``TableHost`` (server/tables/table.py): here a
small fake one, no TableManager, plays a private one-hand match with a person and three bots.

The fake host records what the table asked of it: the table registers its match, seats the
account and attaches the client through the host (it never sets ``client.table`` itself), and
every store call of the table comes through ``store_call``, its events through the writer
(issue 22 item 3).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from duyun.bots.search import SearchBot
from duyun.engine import Action, ActionKind, SeatView, Setup
from duyun.rules import RuleSet
from duyun.server import protocol
from duyun.server.config import ServerConfig
from duyun.server.dbthread import MOVES, OTHER
from duyun.server.metrics import Metrics
from duyun.server.store import Account, Store
from duyun.server.tables import Table, TableOptions
from duyun.server.tables.inbox import ClientMessage, Join, Stop
from duyun.server.writer import EventWriter
from duyun.tiles import tile_to_str

SEED = 20261202
SRC = Path(__file__).resolve().parents[3] / "src" / "duyun" / "server" / "tables"


class Person:
    """A websocket client as a table sees it; ``table`` is set only by the host."""

    def __init__(self, account: Account) -> None:
        self.account: Account | None = account
        self.table: Table | None = None
        self.spectating: Table | None = None
        self.address: str | None = None
        self.messages: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def send(self, message: dict[str, Any]) -> None:
        self.messages.put_nowait(message)

    def send_text(self, text: str) -> None:
        self.messages.put_nowait(json.loads(text))

    def close(self, code: int, reason: str) -> None:
        raise AssertionError(f"closed: {code} {reason}")


def pass_or_discard(prompt: dict[str, Any]) -> protocol.Act:
    """A person's quick answer: pass a claim, else the first legal discard."""
    legal = prompt["legal"]
    pick = next((a for a in legal if a["action"] == "pass"), None)
    pick = pick or next(a for a in legal if a["action"] == "discard")
    return protocol.Act(type="act", prompt=prompt["id"], **pick)


class FakeHost:
    def __init__(self, store: Store) -> None:
        self.config = ServerConfig(
            claim_window=0.05, claim_beat=0.02, bot_delay=0.0, bot_delay_max=0.01
        )
        self.store = store
        self.owner: str | None = None
        self.metrics = Metrics()
        self.search_pool = ThreadPoolExecutor(2, thread_name_prefix="search")
        self.deal: Callable[[int, int, int, int], Setup] | None = None
        self.bot_ratings: dict[str, int] = {}
        self.calls: list[tuple[str, int]] = []
        self.asked: list[str] = []
        self.writer = EventWriter(store, self._moves)
        self.dropped = asyncio.Event()

    async def _moves(self, function: Callable[..., Any], *args: Any) -> Any:
        return await self.store_call(function, *args, priority=MOVES)

    async def store_call(
        self, function: Callable[..., Any], *args: Any, priority: int = OTHER
    ) -> Any:
        self.calls.append((function.__name__, priority))
        return await asyncio.to_thread(function, *args)

    def register_match(self, match_id: int, table: Table) -> None:
        self.asked.append("register_match")

    def seat(self, account_id: int, table: Table) -> None:
        self.asked.append("seat")

    def unseat(self, account_id: int, table: Table) -> None:
        self.asked.append("unseat")

    def attach_client(self, client: Any, table: Table | None) -> None:
        self.asked.append("attach_client")
        client.table = table

    def detach_client(self, client: Any, table: Table) -> None:
        self.asked.append("detach_client")
        if client.table is table:
            client.table = None

    def watch(self, client: Any, table: Table | None) -> None:
        client.spectating = table

    def drop_table(self, table: Table) -> None:
        self.asked.append("drop_table")
        self.dropped.set()

    def rematch(self, ended: Table) -> Table:
        # 再來一局: a waiting table under the same code (its task is never started here)
        self.asked.append("rematch")
        return Table(self, ended.code, ended.options)

    def stop_moved(self, table: Table, message: str = "") -> None:
        raise AssertionError("the lease is never lost here")

    async def reload(self, table: Table) -> None:
        raise AssertionError("the store never disagrees here")

    async def quick_match(self, client: Any, room_id: str) -> None:
        raise AssertionError("no rooms here")


def test_a_table_plays_a_match_under_a_fake_host(store: Store) -> None:
    async def play() -> tuple[FakeHost, Person, dict[str, Any]]:
        host = FakeHost(store)
        account = await asyncio.to_thread(store.create_guest)
        person = Person(account)
        options = TableOptions("private", None, 1, 1, RuleSet(), True, "strong", False, account.id)
        table = Table(host, "123456", options)
        table.start_task()
        table.post(Join(person))
        table.post(ClientMessage(person, protocol.Ready(type="ready")))
        table.post(ClientMessage(person, protocol.Start(type="start")))
        while True:
            message = await asyncio.wait_for(person.messages.get(), timeout=30)
            if message["type"] == "match_end":
                break
            if message["type"] == "error":
                raise AssertionError(message)
            if message["type"] != "prompt":
                continue
            table.post(ClientMessage(person, pass_or_discard(message)))
        await asyncio.wait_for(host.dropped.wait(), timeout=5)
        table.post(Stop())
        assert table.task is not None
        await asyncio.wait_for(table.task, timeout=5)
        return host, person, message

    host, person, end = asyncio.run(play())
    assert end["hands_played"] == 1
    assert host.asked[:2] == ["attach_client", "register_match"]
    assert host.asked[-4:] == ["rematch", "unseat", "detach_client", "drop_table"]
    assert end["rematch"]["code"] is not None and end["rematch"]["room"] is None  # 再來一局
    assert person.table is None  # detached by the host when the match ended
    names = [name for name, _ in host.calls]
    assert names[:2] == ["create_match", "start_hand"]
    assert names[-1] == "finish_match" and "finish_hand" in names
    assert ("append_events_many", MOVES) in host.calls
    assert all(priority == OTHER for name, priority in host.calls if name != "append_events_many")


def test_no_store_call_bypasses_the_one_route() -> None:
    """Every store call of the tables goes through ``store_call`` (server/dbthread.py's
    route): a bare ``asyncio.to_thread`` skipped the ordered SQLite thread (issue 22)."""
    for path in sorted(SRC.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"to_thread\([^)]*store", text), f"{path.name}: a bare store call"
        if path.name != "manager.py":  # only the host records where a client is
            assert not re.search(r"\.(table|spectating) = ", text), path.name


def test_a_search_bot_thinks_off_the_event_loop(store: Store, monkeypatch: Any) -> None:
    """While a 大師 (search) bot's turn move is being computed at one table, another table's
    person is answered at once (issue 22 item 3, item 5): the search runs in a thread started
    when its think time starts, and the move it chose is the one played, even when it comes
    after the think time (counted as a late thought). The search is held
    at a gate until the other table has answered, so a search on the event loop would stall
    that answer, and the test fail, whatever the machine's speed."""
    thinking = threading.Event()
    gate = threading.Event()
    chosen: list[Action] = []
    loop_threads: set[int] = set()
    searched_on: list[int] = []
    search = SearchBot.choose

    def gated(self: SearchBot, view: SeatView, deadline: float | None = None) -> Action:
        searched_on.append(threading.get_ident())
        assert threading.current_thread().name.startswith("search")  # not the default pool
        assert deadline is not None  # the search stops by the end of the think time
        thinking.set()
        if not gate.wait(timeout=30):
            raise AssertionError("the gate never opened")
        action = search(self, view, deadline)
        chosen.append(action)
        return action

    monkeypatch.setattr(SearchBot, "choose", gated)

    async def seat(bot: str, code: str) -> tuple[Table, Person]:
        host = FakeHost(store)
        account = await asyncio.to_thread(store.create_guest)
        person = Person(account)
        options = TableOptions("private", None, 1, 1, RuleSet(), True, bot, False, account.id)
        table = Table(host, code, options)
        table.seed = SEED  # the dealer's first discard is claimed by nobody
        table.start_task()
        table.post(Join(person))
        table.post(ClientMessage(person, protocol.Ready(type="ready")))
        table.post(ClientMessage(person, protocol.Start(type="start")))
        return table, person

    async def expect(person: Person, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            message = await asyncio.wait_for(person.messages.get(), timeout=10)
            assert message["type"] != "error", message
            if check(message):
                return message

    def is_turn(message: dict[str, Any]) -> bool:
        return bool(message["type"] == "prompt" and message["kind"] == "turn")

    def discard_by(seats: set[int]) -> Callable[[dict[str, Any]], bool]:
        def check(message: dict[str, Any]) -> bool:
            return message["type"] == "events" and any(
                e["type"] == "discard" and e["seat"] in seats for e in message["events"]
            )

        return check

    async def play() -> dict[str, Any]:
        loop_threads.add(threading.get_ident())
        searching, ann = await seat("search", "111111")
        waiting, bob = await seat("strong", "222222")
        first = await expect(ann, is_turn)  # the dealer's first discard, then 大師 at seat 1
        pick = next(a for a in first["legal"] if a["action"] == "discard")
        searching.post(ClientMessage(ann, protocol.Act(type="act", prompt=first["id"], **pick)))
        await asyncio.to_thread(thinking.wait, 10)
        assert thinking.is_set() and not gate.is_set()
        prompt = await expect(bob, is_turn)  # the other table goes on meanwhile
        pick = next(a for a in prompt["legal"] if a["action"] == "discard")
        waiting.post(ClientMessage(bob, protocol.Act(type="act", prompt=prompt["id"], **pick)))
        await expect(bob, discard_by({0}))
        assert not chosen  # answered while the search was still held
        # the think time (at most 0.01 s here) ends while the search is held: that thought is
        # late, counted, and waited for rather than decided again
        metrics = searching.host.metrics.registry
        for _ in range(1000):
            if metrics.get_sample_value("duyun_late_thoughts_total"):
                break
            await asyncio.sleep(0.01)
        assert metrics.get_sample_value("duyun_late_thoughts_total") == 1
        gate.set()
        played = await expect(ann, discard_by({1, 2, 3}))  # 大師's move
        for table in (searching, waiting):
            table.post(Stop())
        return played

    played = asyncio.run(play())
    discard = next(e for e in played["events"] if e["type"] == "discard" and e["seat"] != 0)
    assert chosen and chosen[0].kind is ActionKind.DISCARD
    assert chosen[0].tile is not None and discard["tile"] == tile_to_str(chosen[0].tile)
    assert searched_on and not set(searched_on) & loop_threads


def play_beside_search_bots(
    store: Store,
    answer: Callable[[dict[str, Any]], protocol.Act],
    seen: list[Table] | None = None,
    seed: int = SEED,
) -> tuple[list[Any], list[Any], list[dict[str, Any]]]:
    """One hand of a real table: a person at seat 0 answering each prompt with ``answer``,
    and three 大師. Returns the bots' seats 1-3 held when the hand was dealt and at its end,
    and the hand's events; ``seen`` is given the table as soon as it exists."""

    async def play() -> tuple[list[Any], list[Any], list[dict[str, Any]]]:
        host = FakeHost(store)
        account = await asyncio.to_thread(store.create_guest)
        person = Person(account)
        options = TableOptions("private", None, 1, 1, RuleSet(), True, "search", False, account.id)
        table = Table(host, "123456", options)
        if seen is not None:
            seen.append(table)
        table.seed = seed
        table.start_task()
        table.post(Join(person))
        table.post(ClientMessage(person, protocol.Ready(type="ready")))
        table.post(ClientMessage(person, protocol.Start(type="start")))
        first: list[Any] = []
        while True:
            message = await asyncio.wait_for(person.messages.get(), timeout=60)
            assert message["type"] != "error", message
            if not first and message["type"] == "snapshot":
                first = [table.state.bot(index) for index in range(1, 4)]
            if message["type"] == "hand_end":
                break
            if message["type"] != "prompt":
                continue
            table.post(ClientMessage(person, answer(message)))
        last = [table.state.seats[index].bot for index in range(1, 4)]  # type: ignore[union-attr]
        hand = table.state.hand
        assert hand is not None
        events = list(hand.game.events)
        table.post(Stop())
        return first, last, events

    return asyncio.run(play())


def test_a_search_bot_thinks_ahead_on_a_twin_that_takes_its_seat(
    store: Store, monkeypatch: Any
) -> None:
    """大師's search begins at the claim window before its turn (issue 35), on a twin of the
    bot (SearchBot.fork) because the turn may not come. A twin whose turn came as foreseen
    takes the seat; any other twin is dropped (a stale one told to stop) and the seat keeps
    its bot. A person plays the hand, passing every claim they are offered."""
    twins: dict[int, SearchBot] = {}  # id(twin) -> the bot it was forked from
    stopped: list[SearchBot] = []
    fork, stop = SearchBot.fork, SearchBot.stop

    def recorded_fork(self: SearchBot) -> SearchBot:
        twin = fork(self)
        twins[id(twin)] = self
        return twin

    def recorded_stop(self: SearchBot) -> None:
        stopped.append(self)
        stop(self)

    monkeypatch.setattr(SearchBot, "fork", recorded_fork)
    monkeypatch.setattr(SearchBot, "stop", recorded_stop)

    first, last, _ = play_beside_search_bots(store, pass_or_discard)
    assert len(twins) >= 3
    for origin, now in zip(first, last, strict=True):
        lineage = [now]
        while id(lineage[-1]) in twins:  # twin of a twin of ... the first bot
            lineage.append(twins[id(lineage[-1])])
        assert lineage[-1] is origin and len(lineage) > 1  # each seat's bot was replaced
        assert not set(map(id, stopped)) & set(map(id, lineage))  # never by a stopped twin


#: a deal where the person pongs three times a bot's discard, with a bot's turn next
PONG_SEED = 1


def pong_or_discard(prompt: dict[str, Any]) -> protocol.Act:
    """A person who pongs whenever they may (else :func:`pass_or_discard`)."""
    pong = next((a for a in prompt["legal"] if a["action"] == "pong"), None)
    if pong is None:
        return pass_or_discard(prompt)
    return protocol.Act(type="act", prompt=prompt["id"], **pong)


def test_a_thought_ahead_for_a_turn_a_persons_pong_took_is_stopped_at_the_window_end(
    store: Store, monkeypatch: Any
) -> None:
    """The other way a thought begun ahead ends (issue 35): the person pongs, so the bot's turn
    after a pass never comes. Its twin is told to stop when the window ends (DropThought), not
    left to search to its deadline. The bots play the strong bot's advice (no search: what
    they discard must not depend on this machine's speed), so the hand is the seed's and the
    person's pongs are known."""
    monkeypatch.setattr(
        SearchBot, "search", lambda self, view, candidates, advice, deadline: advice
    )
    seen: list[Table] = []
    stops: list[tuple[bool, int]] = []  # at each stop: the window open?, whose turn
    stop = SearchBot.stop

    def recorded_stop(self: SearchBot) -> None:
        hand = seen[0].state.hand
        assert hand is not None
        stops.append((hand.window_open, hand.game.current))
        stop(self)

    monkeypatch.setattr(SearchBot, "stop", recorded_stop)
    _, _, events = play_beside_search_bots(store, pong_or_discard, seen, PONG_SEED)
    # whom the person's pongs were of: a bot's turn after a pass was thought ahead unless the
    # person's own turn came next
    pongs = [e["from"] for e in events if e["type"] == "pong" and e["seat"] == 0]
    assert pongs, "the seed gives the person no pong: pick another"
    took_a_bots_turn = [s for s in pongs if (s + 1) % 4 != 0]
    assert took_a_bots_turn
    # each stopped when its window ended, at the person's turn; no other twin was stopped
    assert stops == [(False, 0)] * len(took_a_bots_turn)


class RoomHost(FakeHost):
    """A host of a stake room's table: a join the table hands back to quick match is
    recorded (fair matching, issue 32)."""

    def __init__(self, store: Store, same_address_tables: bool) -> None:
        super().__init__(store)
        self.config = self.config.with_overrides(
            same_address_tables=same_address_tables, bot_fill_wait=60.0
        )
        self.rerouted: list[tuple[Any, str]] = []
        self.looked_again = asyncio.Event()

    async def quick_match(self, client: Any, room_id: str) -> None:
        self.rerouted.append((client, room_id))
        self.looked_again.set()


@pytest.mark.parametrize("allowed", [False, True])
def test_a_room_table_hands_back_a_racing_join_from_the_same_address(
    store: Store, allowed: bool
) -> None:
    """Two joins of one address queued to one room table before either sat (two quick
    matches at the same moment): the first sits, the second goes back to quick match, which
    then passes this table over; with ``same_address_tables`` both sit."""

    async def run() -> tuple[RoomHost, list[Person], list[int | None]]:
        host = RoomHost(store, allowed)
        people = [Person(await asyncio.to_thread(store.create_guest)) for _ in range(2)]
        for person in people:
            person.address = "203.0.113.9"
        options = TableOptions("room", "novice", 1, 1, RuleSet(), True, "strong", True, None)
        table = Table(host, "654321", options)
        table.start_task()
        for person in people:
            table.post(Join(person))
        if allowed:
            await asyncio.wait_for(people[1].messages.get(), timeout=10)
        else:
            await asyncio.wait_for(host.looked_again.wait(), timeout=10)
        seated = [None if s is None else s.account_id for s in table.seats]
        table.post(Stop())
        assert table.task is not None
        await asyncio.wait_for(table.task, timeout=5)
        return host, people, seated

    host, people, seated = asyncio.run(run())
    assert people[0].account is not None and people[1].account is not None
    if allowed:
        assert host.rerouted == [] and seated[:2] == [people[0].account.id, people[1].account.id]
    else:
        assert host.rerouted == [(people[1], "novice")]
        assert seated == [people[0].account.id, None, None, None]
        assert people[1].table is None  # free to be seated elsewhere


def test_a_join_by_code_on_its_way_keeps_an_empty_table_open(store: Store) -> None:
    """At the open-tables cap, a host's empty tables make room for a new one
    (TableManager.close_empty_tables_of), but never one a join is on its way to. A join by code
    counts in ``pending_joins`` from the moment it is queued until the table has seated its
    player; before, only quick match counted its joins, so a friend's join queued at the very
    moment the host opened another table could be seated at a table being closed."""
    from duyun.server.tables import TableManager

    async def main() -> None:
        manager = TableManager(ServerConfig(), store, owner="p1")
        host = await asyncio.to_thread(store.create_guest)
        friend = Person(await asyncio.to_thread(store.create_guest))
        tables = [
            manager.create_private(
                host,
                stake=1,
                hands=1,
                rules=RuleSet(),
                bots_allowed=True,
                bot="strong",
                listed=False,
            )
            for _ in range(2)
        ]
        first, second = tables
        manager.join(friend, first.code)  # queued: the table has not seated the friend yet
        assert first.pending_joins == 1 and not first.humans()
        assert manager.close_empty_tables_of(host.id, keep=0) == [second.code]
        message = await asyncio.wait_for(friend.messages.get(), timeout=10)
        while message["type"] != "table":
            message = await asyncio.wait_for(friend.messages.get(), timeout=10)
        assert message["table"]["code"] == first.code
        assert first.pending_joins == 0 and first.humans()  # seated: not empty either
        assert manager.close_empty_tables_of(host.id, keep=0) == []
        manager.drop_table(first)

    asyncio.run(main())
