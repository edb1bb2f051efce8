"""Whole matches over real websockets against a real uvicorn server (issue 9)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

METRICS_TOKEN = "a-metrics-token-for-tests"


@pytest.mark.parametrize("commit_wait", [0.0, 0.01], ids=["at-once", "commit-wait"])
def test_full_match_two_humans_two_bots_balances_equal_ledger_r41(
    live_server: Any, ws_client: Any, play: Any, commit_wait: float
) -> None:
    """A whole match, its coins and its records; also with the bounded group commit
    (``commit_wait``), whose held batches /metrics counts."""
    server = live_server(claim_window=0.03, commit_wait=commit_wait, metrics_token=METRICS_TOKEN)
    ann, bob = server.guest(), server.guest()
    code = server.create_table(ann["token"], stake=2, hands=2, bot="random")

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        a = await ws_client.connect(server.ws_url, ann["token"], name="ann")
        b = await ws_client.connect(server.ws_url, bob["token"], name="bob")
        await a.send(type="join", code=code)
        await a.expect("table", lambda m: m["table"] and m["table"]["you"] == 0)
        await b.send(type="join", code=code)
        await b.expect("table", lambda m: m["table"] and m["table"]["you"] == 1)
        await a.send(type="add_bot", seat=2)
        await a.send(type="add_bot", seat=3)
        await a.send(type="ready")
        await b.send(type="ready")
        ends = await asyncio.gather(play(a, 1), play(b, 2))
        await a.close()
        await b.close()
        return ends[0], ends[1]

    end_a, end_b = asyncio.run(main())
    assert end_a == end_b
    assert end_a["reason"] == "completed" and end_a["hands_played"] == 2
    assert sum(end_a["coins"]) == 0  # R41: coins are zero-sum, the house's bots included
    audit = server.store.audit()
    assert audit.ok, audit
    for seat, session in ((0, ann), (1, bob)):
        me = server.http.get("/api/me", headers=server.auth(session["token"])).json()
        assert me["balance"] == 1000 + end_a["coins"][seat]
        ledger = server.http.get("/api/ledger", headers=server.auth(session["token"])).json()
        assert ledger["balance"] == me["balance"]
        assert (
            sum(
                row["coins"] * (1 if row["payee"] == session["account"]["id"] else -1)
                for row in ledger["rows"]
            )
            == me["balance"]
        )
    # the replay log of a finished hand: for its players only, every hand shown
    first = end_a["results"][0]["hand_id"]
    replay = server.http.get(f"/api/hands/{first}/log", headers=server.auth(bob["token"]))
    assert replay.status_code == 200
    start = replay.json()["events"][0]
    assert (
        start["type"] == "start" and "?" not in start["hands"] and isinstance(start["wall"], list)
    )
    stranger = server.guest()
    refused = server.http.get(f"/api/hands/{first}/log", headers=server.auth(stranger["token"]))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_a_player"
    history = server.http.get("/api/history", headers=server.auth(ann["token"])).json()
    record = history["matches"][0]
    assert [h["hand_id"] for h in record["hand_records"]] == [
        r["hand_id"] for r in end_a["results"]
    ]
    assert record["coins"] == end_a["coins"][0]
    scraped = server.http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    counted = {
        name: float(value)
        for name, value in re.findall(r"^(duyun_\w+_total) (\S+)$", scraped.text, re.MULTILINE)
    }
    batches, appends = counted["duyun_event_batches_total"], counted["duyun_event_appends_total"]
    assert 0 < batches <= appends
    held = counted["duyun_commit_wait_seconds_total"]
    # never more than the wait per batch, and nothing without one; whether a batch was held at
    # all depends on the machine (a move that came while a write longer than the wait ran has
    # waited enough): test_writer holds a lone move on a quiet loop
    assert (0 <= held <= batches * commit_wait) if commit_wait else held == 0


def test_quick_match_fills_empty_seats_with_house_bots(live_server: Any, ws_client: Any, play: Any):
    from duyun.server.config import Room

    server = live_server(rooms=(Room("novice", "新手場", stake=1, entry=100, hands=1),))
    ann = server.guest()

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        a = await ws_client.connect(server.ws_url, ann["token"], name="ann")
        await a.send(type="quick_match", room="novice")
        table = await a.expect(
            "table", lambda m: m["table"] and m["table"]["status"] == "playing", timeout=10
        )
        end = await play(a, 3)
        await a.close()
        return table["table"], end

    table, end = asyncio.run(main())
    kinds = [seat["kind"] for seat in table["seats"]]
    assert kinds.count("human") == 1 and kinds.count("bot") == 3
    assert table["kind"] == "room" and table["stake"] == 1
    assert end["reason"] == "completed" and end["hands_played"] == 1
    assert server.store.audit().ok
    me = server.http.get("/api/me", headers=server.auth(ann["token"])).json()
    assert me["balance"] == 1000 + end["coins"][table["you"]]
    assert me["table"] is None


def test_quick_match_needs_the_room_entry(live_server: Any, ws_client: Any) -> None:
    server = live_server(starting_balance=50)
    ann = server.guest()

    async def main() -> dict[str, Any]:
        a = await ws_client.connect(server.ws_url, ann["token"])
        await a.send(type="quick_match", room="novice", rid="q1")
        error = await a.expect("error")
        await a.send(type="quick_match", room="nowhere", rid="q2")
        unknown = await a.expect("error")
        assert unknown["code"] == "unknown_room" and unknown["rid"] == "q2"
        await a.close()
        return error

    error = asyncio.run(main())
    assert error["code"] == "insufficient_balance" and error["rid"] == "q1"
    assert "100" in error["message"]


def test_private_table_by_code_lobby_and_spectator(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    server = live_server(claim_window=0.03)
    host, guest, watcher = server.guest(), server.guest(), server.guest()
    code = server.create_table(
        host["token"], hands=1, bot="random", listed=True, stake=3, spectators=True
    )
    lobby = server.http.get("/api/lobby").json()["tables"]
    assert any(t["code"] == code and t["stake"] == 3 for t in lobby)
    info = server.http.get(f"/api/tables/{code}").json()
    assert info["status"] == "waiting" and info["seated"] == 0
    assert server.http.get("/api/tables/000000").status_code in (404,) or code == "000000"

    async def main() -> tuple[Any, Any, Any]:
        h = await ws_client.connect(server.ws_url, host["token"], name="host")
        g = await ws_client.connect(server.ws_url, guest["token"], name="guest")
        w = await ws_client.connect(server.ws_url, watcher["token"], name="watcher")
        await h.send(type="join", code=code)
        await h.expect("table", lambda m: m["table"] and m["table"]["you"] == 0)
        await g.send(type="join", code=code)
        await g.expect("table", lambda m: m["table"] and m["table"]["you"] == 1)
        await g.send(type="add_bot", seat=2, rid="not-host")
        refused = await g.expect("error")
        assert refused["code"] == "not_host" and refused["rid"] == "not-host"
        await h.send(type="add_bot", seat=2)
        await h.send(type="add_bot", seat=3, bot="efficient")
        await h.send(type="ready")
        # not everyone is ready: nothing starts
        await h.send(type="start", rid="early")
        early = await h.expect("error", lambda m: m.get("rid") == "early")
        assert early["code"] == "wrong_state"
        await w.send(type="spectate", code=code)
        await w.expect("table", lambda m: m["table"] and m["table"]["you"] is None)
        await h.send(type="reaction", id="nice")
        for client in (g, w):
            cheer = await client.expect("reaction")
            assert cheer["seat"] == 0 and cheer["text"] == "好牌！"
        await g.send(type="ready")
        started = await g.expect("snapshot")
        hand_log = server.http.get(
            f"/api/hands/{started['hand_id']}/log", headers=server.auth(guest["token"])
        )
        assert hand_log.status_code == 409  # not while the hand is played
        ends = await asyncio.gather(play(h, 5), play(g, 6), w.expect("match_end", timeout=60))
        for client in (h, g, w):
            await client.close()
        return ends, h, w

    ends, h, w = asyncio.run(main())
    assert ends[0]["reason"] == "completed"
    seats = [m for m in h.of_type("table") if m["table"]][-1]["table"]["seats"]
    assert [s["kind"] for s in seats] == ["human", "human", "bot", "bot"]
    assert seats[3]["bot"] == "efficient"
    # the spectator saw the hand, and only public information
    seen = [e for m in w.of_type("events") for e in m["events"]]
    snapshot = w.of_type("snapshot")
    assert seen and snapshot
    for message in snapshot:
        assert message["seat"] is None and message["view"]["hand"] == []
        for event in message["events"]:
            if event["type"] == "start":
                assert event["hands"] == ["?", "?", "?", "?"]
                assert isinstance(event["wall"], int) and event["seed"] is None
    for event in seen:
        if event["type"] == "draw":
            assert event["tile"] == "?"
        if event["type"] == "act":
            assert event["action"] not in ("pass", "pong", "kong", "hu")
    assert not w.of_type("prompt")


def test_quick_match_seats_players_of_a_room_together(live_server: Any, ws_client: Any) -> None:
    from duyun.server.config import Room

    server = live_server(
        bot_fill_wait=30.0, rooms=(Room("junior", "初級場", stake=5, entry=100, hands=1),)
    )
    sessions = [server.guest() for _ in range(4)]

    async def main() -> list[dict[str, Any]]:
        clients = [await ws_client.connect(server.ws_url, s["token"]) for s in sessions]
        tables = []
        for client in clients:
            await client.send(type="quick_match", room="junior")
            tables.append(await client.expect("table", lambda m: m["table"] is not None))
        # four humans: the match starts at once, long before bot_fill_wait
        started = [
            (await c.expect("table", lambda m: m["table"]["status"] == "playing"))["table"]
            for c in clients
        ]
        for client in clients:
            await client.close()
        return [t["table"] for t in tables] + started

    tables = asyncio.run(main())
    assert len({t["code"] for t in tables}) == 1
    final = tables[-1]
    assert [s["kind"] for s in final["seats"]] == ["human"] * 4
    assert sorted(t["you"] for t in tables[4:]) == [0, 1, 2, 3]
    assert final["stake"] == 5 and final["room"] == "junior"
