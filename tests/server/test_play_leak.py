"""Leak check over whole matches (issue 9 §4): every message sent to a seat is scanned.

A seat must never receive another seat's concealed tiles, draws or the wall, and nothing that
tells whether another seat could claim a discard: neither what is sent after a discard nor
when. Four websocket players (random legal play, so pongs, kongs and wins happen) play whole
matches while the server's own send path is recorded with its clock; afterwards the stored
logs say which discards were claimable, and the recording is checked against them.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from duyun.engine import events_for, redact_event
from duyun.server.protocol import fold_view

pytestmark = pytest.mark.slow  # whole matches or server processes

WINDOW = 0.06


def test_no_seat_learns_more_than_events_for_allows(
    live_server: Any,
    ws_client: Any,
    play: Any,
    sent_messages: list[tuple[float, int | None, dict[str, Any]]],
) -> None:
    server = live_server(claim_window=WINDOW, turn_timer=30.0)
    sessions = [server.guest() for _ in range(4)]
    created = server.http.post(
        "/api/tables",
        json={"hands": 2, "bots_allowed": False, "claim_pause": "fixed"},
        headers=server.auth(sessions[0]["token"]),
    )
    code = created.json()["code"]

    async def main() -> dict[str, Any]:
        clients = await server.seat(ws_client, code, sessions)
        for client in clients:
            await client.send(type="ready")
        ends = await asyncio.gather(*(play(c, 10 + i) for i, c in enumerate(clients)))
        for client in clients:
            await client.close()
        return ends[0]

    end = asyncio.run(main())
    assert end["reason"] == "completed"
    seat_of = {session["account"]["id"]: seat for seat, session in enumerate(sessions)}
    claimable_gaps: list[float] = []
    free_gaps: list[float] = []
    for result in end["results"]:
        hand_id = result["hand_id"]
        log = list(server.store.hand_log(hand_id).events)
        for account, seat in seat_of.items():
            mine = [
                (t, m) for t, a, m in sent_messages if a == account and m.get("hand_id") == hand_id
            ]
            kinds = {m["type"] for _, m in mine}
            assert kinds <= {"snapshot", "events", "prompt", "hand_end"}, kinds
            received: list[dict[str, Any]] = []
            for _, message in mine:
                if message["type"] == "snapshot":
                    assert message["seat"] == seat
                    received = list(message["events"])
                    assert message["view"] == fold_view(received, seat)
                elif message["type"] == "events":
                    assert message["seq"] == len(received)
                    received.extend(message["events"])
            # exactly the seat's redaction of the full log: no concealed tile, draw or wall of
            # another seat, no other seat's claim answer
            assert received == events_for(log, seat)
            for event in received:
                if event["type"] == "start":
                    assert isinstance(event["wall"], int) and event["seed"] is None
                    assert [h == "?" for h in event["hands"]] == [s != seat for s in range(4)]
                if event["type"] == "draw" and event["seat"] != seat:
                    assert event["tile"] == "?"
            # timing: after every discard the next batch comes one full window later,
            # whether or not anybody could claim it
            positions = [i for i, e in enumerate(log) if redact_event(e, seat) is not None]
            seen = 0
            batches: list[tuple[float, int]] = []  # send time, log index of the batch's last event
            for t, message in mine:
                if message["type"] == "snapshot":
                    seen = len(message["events"])
                elif message["type"] == "events":
                    seen += len(message["events"])
                    batches.append((t, positions[seen - 1]))
            for (t0, last), (t1, _) in itertools.pairwise(batches):
                if log[last]["type"] != "discard":
                    continue
                claimable = log[last + 1]["type"] in ("act", "claim")
                (claimable_gaps if claimable else free_gaps).append(t1 - t0)
    assert claimable_gaps and free_gaps, "the matches had no claimable discard to compare"
    assert min(claimable_gaps) >= WINDOW - 0.003
    assert min(free_gaps) >= WINDOW - 0.003
    median = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    assert abs(median(claimable_gaps) - median(free_gaps)) < 0.03


def test_history_of_a_live_hand_holds_nothing_that_reproduces_it_r4(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    """Issue 20 item 1: a hand's seed deals its four hands and the wall again (R4, new_round), so
    while it is played the history shows it without seed, result or replay link, and its log is
    refused; once it has finished, all three are there."""
    from duyun.server.config import Room

    server = live_server(rooms=(Room("novice", "新手場", stake=1, entry=100, hands=1),))
    ann = server.guest()
    headers = server.auth(ann["token"])

    async def main() -> tuple[str, dict[str, Any], dict[str, Any]]:
        client = await ws_client.connect(server.ws_url, ann["token"], name="ann")
        await client.send(type="quick_match", room="novice")
        await client.expect("prompt", timeout=20)  # the hand is dealt and waits for ann
        during = server.http.get("/api/history", headers=headers)
        end = await play(client, 5)
        await client.close()
        return during.text, during.json(), end

    during_text, during, end = asyncio.run(main())
    (match,) = during["matches"]
    (live,) = match["hand_records"]
    assert live["status"] == "playing"
    assert live["seed"] is None and live["result"] is None and live["replay"] is None
    stored = server.store.hand_log(live["hand_id"])
    assert str(stored.seed) not in during_text  # not under any other name either
    assert end["reason"] == "completed"
    after = server.http.get("/api/history", headers=headers).json()
    (finished,) = after["matches"][0]["hand_records"]
    assert finished["status"] == "finished" and finished["seed"] == stored.seed
    assert finished["replay"] == f"/api/hands/{live['hand_id']}/log"
    assert finished["result"]["type"] == "end"


def test_the_log_of_a_live_hand_is_refused_to_its_own_player(
    live_server: Any, ws_client: Any
) -> None:
    """The full log (wall and every hand) of a hand in play leaves the server for nobody."""
    from duyun.server.config import Room

    server = live_server(rooms=(Room("novice", "新手場", stake=1, entry=100, hands=1),))
    ann = server.guest()

    async def main() -> Any:
        client = await ws_client.connect(server.ws_url, ann["token"], name="ann")
        await client.send(type="quick_match", room="novice")
        await client.expect("prompt", timeout=20)
        hand_id = server.http.get("/api/history", headers=server.auth(ann["token"])).json()[
            "matches"
        ][0]["hand_records"][0]["hand_id"]
        answer = server.http.get(f"/api/hands/{hand_id}/log", headers=server.auth(ann["token"]))
        await client.close()
        return answer

    answer = asyncio.run(main())
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "hand_not_finished"
    assert "wall" not in answer.text and "seed" not in answer.text
