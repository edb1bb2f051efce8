"""A whole match through ten SIGKILLs completes within a bound derived from its timers
(issue 37 item 3), on SQLite and on PostgreSQL.

Four seats: ann plays (she answers every prompt at once and presses 下一局 when the page's
countdown ends, and reconnects after every kill as the page does), bob is gone for good (he
leaves his browser at the first deal: his grace runs out, R45, and his seat's bot plays on),
cat is in 托管 (she turned it on at the first deal and stays connected, reconnecting after
every kill, but never acts), and a bot. The server is killed at the moments a restore must
get right, as ann sees them: a claim prompt, the ``end`` event of a hand, a ``hand_end``, a new
hand's deal, during the restore that follows a kill, and at random moments. Each time it is
restarted on the same database under the same ``--owner``.

What the match may take: its hands at the bots' pace, the page's countdown between hands, bob's
one grace, and each restart's own seconds (measured) with a reconnect. What it must not take:
a turn timer for a seat in 托管 (its 托管 forgotten by the restart), a next-hand limit counted
from a restore, or a wait for a 下一局 nobody will press (a client sent no settlement): each of
those alone is longer than the slack the bound allows.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from duyun.server.store import Store
from serve_process import TEST_SERVER_BASICS, ServeProcess

pytestmark = pytest.mark.slow  # whole matches or server processes

#: bob's escape ends the first hand before anyone claims; the ten kills need five more hands
#: (MOMENTS), and one more is spare for a moment that slips to the next hand
HANDS = 7
#: seconds: the page's countdown; the timers a broken restore would fall back on are far
#: longer than the slack below
WAIT = 1.0
LIMIT = 60.0
TURN = 20.0
GRACE = 2.0
CLAIM_WINDOW = 0.5
BOT_DELAY = 0.005
#: the turns of one hand at most: the live wall's 55 draws and 8 replacement draws for kongs
TURNS = 63
#: seconds a turn takes at most when nobody waits on a timer: a bot's delay, the claim beat or
#: a person's answer at once, the store's write and the messages
PACE = 0.06
#: what a reconnect and the answers of one hand may take on a busy machine
SLACK = 3.0

CONFIG = f"""
turn_timer = {TURN}
claim_window = {CLAIM_WINDOW}
claim_beat = 0.02
bot_delay = {BOT_DELAY}
bot_delay_max = {BOT_DELAY}
reconnect_grace = {GRACE}
next_hand_wait = {WAIT}
next_hand_limit = {LIMIT}
default_bot = "efficient"
{TEST_SERVER_BASICS}"""

#: where the server is killed, in order ("restore": while it restores after the kill before).
#: A claim comes only while ann is connected (a restored hand plays on while she reconnects,
#: and a seat that is away is not asked): the second claim follows a kill between hands, so
#: that the next hand, dealt when she presses 下一局, offers her its first-round claim live
#: (stacked_deals.claims).
MOMENTS = (
    "claim",
    "end",
    "deal",
    "restore",
    "hand_end",
    "claim",
    "deal",
    "random",
    "hand_end",
    "random",
)


class Service:
    """``duyun serve`` restarted after each kill; counts the seconds the restarts took."""

    def __init__(self, database_url: str, tmp_path: Path) -> None:
        config = tmp_path / "server.toml"
        config.write_text(CONFIG, encoding="utf-8")
        self.process = ServeProcess(
            database_url,
            config=config,
            owner="ten-kills",
            log_level="info",
            deal="stacked_deals:claims",
        )
        self.kills = 0
        self.restarting = 0.0

    def boot(self) -> None:
        self.process.start()
        self.process.wait_ready()

    def kill_and_restart(self, during_restore: bool) -> None:
        """SIGKILL, then start again; ``during_restore``: killed again while that start
        restores its matches (the log line saying so), then started once more."""
        killed = time.monotonic()
        self.process.kill()
        self.kills += 1
        if during_restore:
            self.process.start()
            self._until_restoring()
            self.process.kill()
            self.kills += 1
        self.boot()
        self.restarting += time.monotonic() - killed

    def _until_restoring(self) -> None:
        end = time.monotonic() + 60
        while not any("restored" in line for line in self.process.lines[-5:]):
            assert time.monotonic() < end, f"no restore in 60 s:\n{self.process.tail()}"
            assert self.process.alive, f"exited:\n{self.process.tail()}"
            time.sleep(0.005)  # polling the process's own output


async def _connect(ws_client: Any, service: Service, token: str, name: str) -> Any:
    """Connect as a page does after losing its server: try again until one answers."""
    while True:
        try:
            return await ws_client.connect(service.process.ws_url, token, name=name)
        except (OSError, websockets.WebSocketException, AssertionError):
            await asyncio.sleep(0.05)


def _answer(prompt: dict[str, Any]) -> dict[str, Any]:
    """ann: a win when offered, a pass on claims (so she is offered more), else a discard."""
    legal = prompt["legal"]
    wins = [a for a in legal if a["action"] == "hu"]
    if wins:
        return dict(wins[0])
    if prompt["kind"] == "claim":
        return {"action": "pass"}
    discards = [a for a in legal if a["action"] == "discard"]
    return dict(discards[-1] if discards else legal[0])


class Ann:
    """The player who plays on through every kill, and the one who says when to kill."""

    def __init__(self, ws_client: Any, service: Service, token: str) -> None:
        self.ws_client, self.service, self.token = ws_client, service, token
        self.moments = list(MOMENTS)
        self.rng = random.Random(37)
        self.random_at: float | None = None
        self.hands_seen: set[int] = set()
        self.ends_seen: set[int] = set()
        self.ready_task: asyncio.Task[None] | None = None
        self.answered = 0
        self.prompts_answered: set[Any] = set()
        self.client: Any = None
        #: 托管 turned off after restarts (``_take_back``), and whether it is being turned off
        self.took_back = 0
        self.taking_back = False
        #: the kills so far: (moment, the message it was due at, its hand)
        self.kills: list[tuple[str, Any, Any]] = []

    def _due(self, message: dict[str, Any]) -> bool:
        """Whether the next kill is due at ``message`` (None: a time with no message)."""
        if not self.moments:
            return False
        moment = self.moments[0]
        kind = message.get("type")
        if moment == "claim":
            return kind == "prompt" and message["kind"] == "claim"
        if moment == "end":
            return kind == "events" and any(e["type"] == "end" for e in message["events"])
        if moment == "hand_end":  # between two hands (after the last one the match is over)
            return (
                kind == "hand_end"
                and message["hand_id"] not in self.ends_seen
                and message["next_hand_in"] is not None
            )
        if moment == "deal":
            return kind == "snapshot" and message["hand_id"] not in self.hands_seen
        assert moment == "random"
        if self.random_at is None:
            self.random_at = time.monotonic() + self.rng.uniform(0.2, 2.0)
        return time.monotonic() >= self.random_at

    async def _kill(self, client: Any, message: dict[str, Any]) -> None:
        self.kills.append((self.moments[0], message.get("type"), message.get("hand_id")))
        self.moments.pop(0)
        self.random_at = None
        during_restore = bool(self.moments) and self.moments[0] == "restore"
        if during_restore:
            self.moments.pop(0)
        if self.ready_task is not None:
            self.ready_task.cancel()
        await client.close()
        await asyncio.to_thread(self.service.kill_and_restart, during_restore)

    async def play(self, client: Any) -> dict[str, Any]:
        """Play from ``client`` on, reconnecting after every kill, until the match ends."""
        while True:
            ended = await self._play_on(client)
            if ended is not None:
                await client.close()
                return ended
            client = await _connect(self.ws_client, self.service, self.token, "ann")
            self.taking_back = False
            self.prompts_answered.clear()  # a restarted process numbers its prompts anew
            welcome = client.of_type("welcome")[0]
            assert welcome["table"] is not None, f"ann is not seated after {self.kills}"

    async def _play_on(self, client: Any) -> dict[str, Any] | None:
        """Play on one connection; the match's end, or None after a kill."""
        self.client = client
        while True:
            try:
                message = await client.expect(timeout=0.1)
            except AssertionError:
                if client.closed is not None:
                    raise
                message = {}  # no message within 0.1 s: a random kill may be due
            if self._due(message):
                await self._kill(client, message)
                return None
            kind = message.get("type")
            if kind == "match_end":
                return message
            if kind == "snapshot":
                self.hands_seen.add(message["hand_id"])
                if message["prompt"] is not None:
                    await self._send_answer(client, message["prompt"])
            elif kind == "prompt":
                await self._send_answer(client, message)
            elif kind == "table" and message["table"] is not None:
                await self._take_back(client, message["table"])
            elif kind == "hand_end":
                self.ends_seen.add(message["hand_id"])
                if message["next_hand_in"] is not None:
                    self.ready_task = asyncio.create_task(
                        self._press_next(client, message["next_hand_in"])
                    )

    async def _take_back(self, client: Any, table: dict[str, Any]) -> None:
        """Turn 托管 off, as the page's button does, when a restart put ann's seat in it: a
        grace after a restore runs out into 托管 (never R45), and on a loaded machine ann's
        reconnect can come after her two seconds. She would then never be asked again, and
        the kills due at her claim prompts would never come (issue 30)."""
        you = table.get("you")
        seat = table["seats"][you] if you is not None else None
        if seat is not None and seat.get("tuoguan") and not self.taking_back:
            self.taking_back = True
            self.took_back += 1
            await client.send(type="tuoguan", on=False)
        elif seat is not None and not seat.get("tuoguan"):
            self.taking_back = False

    async def _send_answer(self, client: Any, prompt: dict[str, Any]) -> None:
        if prompt["id"] in self.prompts_answered:
            return  # a deal's prompt comes in its snapshot and as a prompt message
        self.prompts_answered.add(prompt["id"])
        self.answered += 1
        await client.send(
            type="act", prompt=prompt["id"], rid=f"ann-{self.answered}", **_answer(prompt)
        )

    @staticmethod
    async def _press_next(client: Any, after: float) -> None:
        await asyncio.sleep(after)  # the page's countdown, shown to its reader
        with contextlib.suppress(websockets.ConnectionClosed):
            await client.send(type="ready")


async def _cat_in_tuoguan(
    client: Any, ws_client: Any, service: Service, token: str, done: asyncio.Event
) -> None:
    """cat's page, 托管 on: connected (again after every kill) and idle."""
    while True:
        while not done.is_set() and client.closed is None:
            await asyncio.sleep(0.05)  # a page left open, its player away
        await client.close()
        if done.is_set():
            return
        client = await _connect(ws_client, service, token, "cat")


def test_a_match_through_ten_kills_completes_within_its_timers_r45(
    database_url: str, tmp_path: Path, ws_client: Any
) -> None:
    service = Service(database_url, tmp_path)
    service.boot()
    url = service.process.url
    try:
        tokens = [httpx.post(f"{url}/api/guest").json()["token"] for _ in range(3)]
        created = httpx.post(
            f"{url}/api/tables",
            json={"hands": HANDS, "bot": "efficient"},
            headers={"Authorization": f"Bearer {tokens[0]}"},
        ).json()

        async def main() -> tuple[dict[str, Any], float, Ann]:
            people = []
            for index, (token, name) in enumerate(zip(tokens, ("ann", "bob", "cat"), strict=True)):
                client = await ws_client.connect(service.process.ws_url, token, name=name)
                await client.send(type="join", code=created["code"])
                await client.expect("table", lambda m, i=index: m["table"]["you"] == i)
                people.append(client)
            await people[0].send(type="add_bot", seat=3)
            for client in people:
                await client.send(type="ready")
            started = time.monotonic()
            for client in people:
                await client.expect("snapshot")
            await people[2].send(type="tuoguan", on=True)
            await people[2].expect("table", lambda m: m["table"]["seats"][2]["tuoguan"])
            await people[1].close()  # bob is gone for good: R45 when his grace runs out
            done = asyncio.Event()
            cat = asyncio.create_task(
                _cat_in_tuoguan(people[2], ws_client, service, tokens[2], done)
            )
            ann = Ann(ws_client, service, tokens[0])
            try:
                people[0].cursor = 0  # ann's page has seen nothing yet: the deal, the prompt
                end = await asyncio.wait_for(ann.play(people[0]), timeout=300)
            except TimeoutError:
                raise AssertionError(
                    f"no match_end in 300 s; kills {ann.kills}, to come {ann.moments}, ann's last "
                    "messages "
                    f"{[m.get('type') for m in ann.client.messages[-12:]]}, the server's last "
                    f"words:\n{service.process.tail()}"
                ) from None
            finally:
                done.set()
                await cat
            return end, time.monotonic() - started, ann

        end, took, ann = asyncio.run(main())
    finally:
        service.process.stop()
    assert not ann.moments, (
        f"the match ended ({end['reason']}, {end['hands_played']} hands) before the kills "
        f"{ann.moments}; kills {ann.kills}"
    )
    assert service.kills == len(MOMENTS)
    assert end["reason"] == "completed" and end["hands_played"] == HANDS
    # bob escaped once (R45), in the first hand; cat, in 托管 throughout, never did
    assert [r["result"] == "escape" for r in end["results"]] == [True] + [False] * (HANDS - 1)
    bound = HANDS * (TURNS * PACE + WAIT) + GRACE + service.restarting + service.kills * SLACK
    assert took <= bound, (took, bound, service.restarting)
    store = Store.open(database_url)
    try:
        assert store.audit().ok
        assert store.live_matches() == []
    finally:
        store.close()
