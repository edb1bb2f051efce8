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

from duyun.engine import events_for, redact_event
from duyun.server.protocol import fold_view

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
        json={"hands": 2, "bots_allowed": False},
        headers=server.auth(sessions[0]["token"]),
    )
    code = created.json()["code"]

    async def main() -> dict[str, Any]:
        clients = []
        for index, session in enumerate(sessions):
            client = await ws_client.connect(server.ws_url, session["token"], name=f"p{index}")
            await client.send(type="join", code=code)
            await client.expect("table", lambda m, i=index: m["table"] and m["table"]["you"] == i)
            clients.append(client)
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
