"""Nothing secret about a hand in play leaves the server (issue 20 item 1 and "Tests").

Whole matches, a normal one and a 血戰 one (R52-R57), each with a reconnect and an escape
(R45): two people, two bots and a spectator. Every message the server sends to the seats and
the spectator is recorded (with its time), and the REST endpoints a client polls (history, me,
the table, the lobby) are read at every prompt while the hand is on. Afterwards, for each hand,
the stored full log says what was secret until the hand ended: its seed (as decimal text), the
wall order, and every seat's dealt hand. None of them may appear in anything sent before the
hand's end, and what each seat received equals its redaction of the log (``events_for``).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from duyun.engine import events_for
from stacked_deals import slow

pytestmark = pytest.mark.slow  # whole matches or server processes

SentMessages = list[tuple[float, int | None, dict[str, Any]]]


def _text(message: Any) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


class Poller:
    """The REST reads of a client during a hand: (time, live hand id, response text)."""

    def __init__(self, server: Any, tokens: list[str], code: str) -> None:
        self.server = server
        self.headers = [server.auth(token) for token in tokens]
        self.code = code
        self.reads: list[tuple[float, int, str]] = []

    def poll(self, hand_id: int) -> None:
        for headers in self.headers:
            for path in ("/api/history", "/api/me", f"/api/tables/{self.code}", "/api/lobby"):
                answer = self.server.http.get(path, headers=headers)
                assert answer.status_code == 200, (path, answer.text)
                self.reads.append((time.monotonic(), hand_id, answer.text))


async def _ann(client: Any, poller: Poller) -> dict[str, Any]:
    """Seat 0: wins when it may, else the first legal action; polls REST at every prompt."""
    hand_id = None
    while True:
        message = await client.expect(
            where=lambda m: m["type"] in ("prompt", "snapshot", "match_end"), timeout=60
        )
        if message["type"] == "match_end":
            end: dict[str, Any] = message
            return end
        hand_id = message["hand_id"]
        if message["type"] == "snapshot":
            continue
        poller.poll(hand_id)
        legal = message["legal"]
        wins = [a for a in legal if a["action"] == "hu"]
        await client.send(type="act", prompt=message["id"], **(wins or legal)[0])


async def _bob(ws_client: Any, server: Any, client: Any, token: str) -> list[Any]:
    """Seat 1: drops and reconnects at its first prompt of hand 0, escapes (leave) at its first
    prompt of hand 1; returns its connections."""
    connections = [client]
    reconnected = escaped = False
    while not escaped:
        message = await client.expect(
            where=lambda m: m["type"] in ("prompt", "match_end"), timeout=60
        )
        if message["type"] == "match_end":
            break
        if not reconnected:
            reconnected = True
            await client.close()
            client = await ws_client.connect(server.ws_url, token, name="bob again")
            connections.append(client)
            snapshot = await client.expect("snapshot")
            assert snapshot["seat"] == 1
            continue  # the snapshot's prompt (if any) is answered by the next prompt or timer
        if message["hand_id"] != connections[0].of_type("snapshot")[0]["hand_id"]:
            await client.send(type="leave")
            await client.expect("table", lambda m: m["table"] is None)
            escaped = True
            break
        legal = message["legal"]
        wins = [a for a in legal if a["action"] == "hu"]
        await client.send(type="act", prompt=message["id"], **(wins or legal)[0])
    assert reconnected and escaped, "bob had no prompt to reconnect or escape at"
    return connections


@pytest.mark.parametrize("bloody", [False, True], ids=["normal", "bloody"])
def test_no_secret_of_a_hand_in_play_reaches_a_seat_a_spectator_or_rest_r4(
    live_server: Any, ws_client: Any, sent_messages: SentMessages, bloody: bool
) -> None:
    server = live_server(claim_window=0.02, turn_timer=5.0, reconnect_grace=30.0)
    # bob acts at his first prompt of each hand: a random deal could end hand 1 before it
    server.manager.deal = slow
    ann, bob, cy = server.guest(), server.guest(), server.guest()
    created = server.http.post(
        "/api/tables",
        json={"hands": 2, "bot": "random", "rules": {"bloody_battle": bloody}, "spectators": True},
        headers=server.auth(ann["token"]),
    )
    assert created.status_code == 201, created.text
    code = created.json()["code"]
    # a seat's and the spectator's reads, made while ann has a decision to make
    poller = Poller(server, [ann["token"], cy["token"]], code)

    async def main() -> dict[str, Any]:
        a = await ws_client.connect(server.ws_url, ann["token"], name="ann")
        b = await ws_client.connect(server.ws_url, bob["token"], name="bob")
        for index, client in enumerate((a, b)):
            await client.send(type="join", code=code)
            await client.expect("table", lambda m, i=index: m["table"]["you"] == i)
        c = await ws_client.connect(server.ws_url, cy["token"], name="cy")
        await c.send(type="spectate", code=code)
        await c.expect("table")
        for seat in (2, 3):
            await a.send(type="add_bot", seat=seat)
        for client in (a, b):
            await client.send(type="ready")
        await a.expect("snapshot")
        end, connections = await asyncio.gather(
            _ann(a, poller), _bob(ws_client, server, b, bob["token"])
        )
        await c.expect("match_end", timeout=60)
        for client in (a, c, *connections):
            await client.close()
        result: dict[str, Any] = end
        return result

    end = asyncio.run(main())
    assert end["reason"] == "completed"
    results = end["results"]
    assert any(r["result"] == "escape" for r in results), "no escape happened"
    viewers = {ann["account"]["id"]: 0, bob["account"]["id"]: 1, cy["account"]["id"]: None}
    for result in results:
        hand_id = result["hand_id"]
        stored = server.store.hand_log(hand_id)
        log = list(stored.events)
        start = log[0]
        secrets = [str(stored.seed), _text(start["wall"][:6])[1:-1]]
        # the end event shows every hand (the hand is over): that batch or hand_end, first
        ended_at = min(
            t
            for t, _, m in sent_messages
            if m.get("hand_id") == hand_id
            and (
                m["type"] == "hand_end"
                or (m["type"] == "events" and any(e["type"] == "end" for e in m["events"]))
            )
        )
        # from the hand's first message on: the deal is stacked (the same hands every hand,
        # R35 moving them round with the dealer), so an earlier hand's own tiles may read like
        # another seat's hand of this one
        started_at = min(t for t, _, m in sent_messages if m.get("hand_id") == hand_id)
        for account, viewer in viewers.items():
            mine = [(t, m) for t, a, m in sent_messages if a == account]
            hidden = secrets + [h for s, h in enumerate(start["hands"]) if s != viewer]
            for t, message in mine:
                if t >= ended_at:
                    break
                if t < started_at:
                    continue
                text = _text(message)
                for secret in hidden:
                    assert secret not in text, (viewer, message["type"], secret)
            received: list[dict[str, Any]] = []
            for _, message in mine:
                if message.get("hand_id") != hand_id:
                    continue
                if message["type"] == "snapshot":
                    assert message["seat"] == viewer
                    received = list(message["events"])
                elif message["type"] == "events":
                    assert message["seq"] == len(received)
                    received.extend(message["events"])
            expected = events_for(log, viewer)
            if viewer == 1 and result is results[-1]:
                assert received == expected[: len(received)]  # bob left in this hand
            else:
                assert received == expected, (viewer, hand_id)
        for t, live, text in poller.reads:
            if live == hand_id and t < ended_at:
                for secret in secrets + list(start["hands"]):
                    assert secret not in text, (live, secret)
    assert poller.reads
    assert server.store.audit().ok
