"""Seats over time: ready and dissolve (解散), reconnect snapshots, the turn timer and 托管,
and R45 escapes when a dropped player does not come back (issue 9)."""

from __future__ import annotations

import asyncio
from typing import Any

from duyun.server.protocol import view_to_json
from stacked_deals import slow


async def _fill_and_ready(clients: list[Any], free: list[int]) -> None:
    for seat in free:
        await clients[0].send(type="add_bot", seat=seat)
    for client in clients:
        await client.send(type="ready")


def test_ready_between_hands_and_unanimous_dissolve(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    server = live_server(next_hand_wait=60.0, claim_window=0.03)
    ann, bob = server.guest(), server.guest()
    code = server.create_table(ann["token"], hands=4, bot="random")

    async def main() -> tuple[dict[str, Any], Any, Any]:
        a, b = await server.seat(ws_client, code, [ann, bob])
        await _fill_and_ready([a, b], [2, 3])
        await a.expect("snapshot")
        await a.send(type="dissolve", agree=True, rid="during")
        during = await a.expect("error", lambda m: m.get("rid") == "during")
        assert during["code"] == "wrong_state"
        await asyncio.gather(play(a, 1, until="hand_end"), play(b, 2, until="hand_end"))
        # 準備: both ready starts the next hand at once (next_hand_wait is a minute)
        await a.send(type="ready")
        await b.send(type="ready")
        second = await a.expect("snapshot")
        assert second["hand_index"] == 1
        await asyncio.gather(play(a, 3, until="hand_end"), play(b, 4, until="hand_end"))
        await a.send(type="dissolve", agree=True)
        vote = await b.expect("table", lambda m: m["table"]["dissolve"] is not None)
        assert vote["table"]["dissolve"] == {"agreed": [0], "needed": [0, 1]}
        await b.send(type="dissolve", agree=False)
        await a.expect("table", lambda m: m["table"]["dissolve"] is None)
        await a.send(type="dissolve", agree=True)
        await b.send(type="dissolve", agree=True)
        end = await a.expect("match_end")
        await b.expect("match_end")
        return end, a, b

    end, _, _ = asyncio.run(main())
    assert end["reason"] == "dissolved" and end["hands_played"] == 2
    assert len(end["results"]) == 2 and sum(end["coins"]) == 0
    assert server.store.audit().ok
    history = server.http.get("/api/history", headers=server.auth(ann["token"])).json()
    assert history["matches"][0]["reason"] == "dissolved"
    assert len(history["matches"][0]["hand_records"]) == 2


def test_reconnect_gets_a_snapshot_equal_to_the_seat_view(live_server: Any, ws_client: Any) -> None:
    server = live_server(turn_timer=60.0)
    ann = server.guest()
    code = server.create_table(ann["token"], hands=1, bot="random")

    async def main() -> None:
        (a,) = await server.seat(ws_client, code, [ann])
        await _fill_and_ready([a], [1, 2, 3])
        first = await a.expect("snapshot")
        prompt = await a.expect("prompt")  # seat 0 deals (R3) and acts first
        assert prompt["kind"] == "turn"
        received = list(first["events"]) + [
            e for m in a.of_type("events") if m["hand_id"] == first["hand_id"] for e in m["events"]
        ]
        await a.close()
        again = await ws_client.connect(server.ws_url, ann["token"], name="again")
        welcome = again.of_type("welcome")[0]
        assert welcome["table"] == code
        snapshot = await again.expect("snapshot")
        table = server.manager.tables[code]
        assert table.round is not None
        assert snapshot["view"] == view_to_json(table.round.view(0))
        assert snapshot["events"] == received
        assert snapshot["prompt"]["legal"] == prompt["legal"]
        assert 0 < snapshot["prompt"]["deadline"] <= 60.0
        # and play goes on from the new connection
        discard = next(a for a in prompt["legal"] if a["action"] == "discard")
        await again.send(type="act", **discard)
        batch = await again.expect("events")
        assert batch["events"][0] == {"type": "act", "seat": 0, **discard}
        assert batch["seq"] == len(received)
        await again.close()

    asyncio.run(main())


def test_turn_timeouts_play_the_obvious_move_then_tuoguan(live_server: Any, ws_client: Any) -> None:
    server = live_server(turn_timer=0.15, claim_window=0.02)
    server.manager.deal = slow  # the hand is still on at ann's second draw
    ann = server.guest()
    code = server.create_table(ann["token"], hands=1, bot="random")

    async def main() -> None:
        (a,) = await server.seat(ws_client, code, [ann])
        await _fill_and_ready([a], [1, 2, 3])
        snapshot = await a.expect("snapshot")
        hand = snapshot["view"]["hand"]
        await a.expect("prompt", lambda m: m["kind"] == "turn")
        # first timeout: no drawn tile (the dealer's first turn), so the last tile goes
        first = await a.expect("events", lambda m: m["events"][0].get("seat") == 0)
        assert first["events"][0] == {
            "type": "act",
            "seat": 0,
            "action": "discard",
            "tile": hand[-1],
        }
        # second timeout: the drawn tile is discarded, and the seat goes to 托管
        draw = await a.expect(
            "events", lambda m: any(e["type"] == "draw" and e["seat"] == 0 for e in m["events"])
        )
        drawn = next(e["tile"] for e in draw["events"] if e["type"] == "draw" and e["seat"] == 0)
        await a.expect("prompt", lambda m: m["kind"] == "turn")
        tuoguan = await a.expect("table", lambda m: m["table"]["seats"][0]["tuoguan"])
        assert tuoguan["table"]["seats"][0]["connected"]
        moved = await a.expect(
            "events", lambda m: m["events"][0].get("seat") == 0 and m["events"][0]["type"] == "act"
        )
        assert moved["events"][0]["tile"] == drawn
        # in 托管 the seat is played without prompts until the player takes it back
        before = len(a.of_type("prompt"))
        await a.expect(
            "events",
            lambda m: (
                any(e["type"] == "act" and e.get("seat") == 0 for e in m["events"])
                or any(e["type"] == "end" for e in m["events"])
            ),
        )
        assert len(a.of_type("prompt")) == before or a.of_type("hand_end")
        await a.send(type="tuoguan", on=False)
        off = await a.expect("table", lambda m: not m["table"]["seats"][0]["tuoguan"])
        assert off["table"]["seats"][0]["tuoguan"] is False
        await a.close()

    asyncio.run(main())


def test_no_reconnect_within_grace_is_an_r45_escape(live_server: Any, ws_client: Any, play: Any):
    server = live_server(reconnect_grace=0.3, turn_timer=60.0, claim_window=0.02)
    # nobody can win before bob's turn, which holds the hand until his grace runs out
    server.manager.deal = slow
    ann, bob = server.guest(), server.guest()
    code = server.create_table(ann["token"], hands=2, bot="random")

    async def main() -> tuple[dict[str, Any], dict[str, Any], Any]:
        a, b = await server.seat(ws_client, code, [ann, bob])
        await _fill_and_ready([a, b], [2, 3])
        await b.expect("snapshot")
        await b.close()
        gone = await a.expect(
            "table",
            lambda m: m["table"]["status"] == "playing" and not m["table"]["seats"][1]["connected"],
        )
        assert gone["table"]["status"] == "playing"
        hand_end = await play(a, 7, until="hand_end")
        table = await a.expect("table", lambda m: m["table"]["seats"][1]["tuoguan"])
        end = await play(a, 8)
        return hand_end, end, table

    hand_end, end, table = asyncio.run(main())
    assert hand_end["result"] == "escape" and hand_end["loser"] == 1
    penalty = [p for p in hand_end["payments"] if p["rule"] == "R45"]
    assert {p["payer"] for p in penalty} == {1}
    assert sorted(p["payee"] for p in penalty) == [0, 2, 3]
    assert all(p["points"] == 16 * 6 for p in penalty)  # R45 (a): 16 × base to each
    assert table["table"]["seats"][1]["connected"] is False
    assert end["reason"] == "completed" and end["hands_played"] == 2
    assert server.store.audit().ok
    me = server.http.get("/api/me", headers=server.auth(bob["token"])).json()
    assert me["balance"] == 1000 + end["coins"][1]
    assert me["table"] is None


def test_a_private_invite_survives_its_host_reloading(live_server: Any, ws_client: Any) -> None:
    server = live_server()
    ann = server.guest()
    code = server.create_table(ann["token"], hands=1)

    async def main() -> None:
        (a,) = await server.seat(ws_client, code, [ann])
        await a.send(type="join", code=code)  # joining one's own table again just resends it
        again_seated = await a.expect("table", lambda m: m["table"]["seated"] == 1)
        assert again_seated["table"]["you"] == 0 and not a.of_type("error")
        await a.close()  # a page reload while waiting frees the seat, not the table
        info = server.http.get(f"/api/tables/{code}")
        assert info.status_code == 200 and info.json()["seated"] in (0, 1)
        again = await ws_client.connect(server.ws_url, ann["token"])
        await again.send(type="join", code=code)
        table = await again.expect("table", lambda m: m["table"] and m["table"]["you"] == 0)
        assert table["table"]["host"] == 0 and table["table"]["seated"] == 1
        await again.send(type="leave")
        await again.expect("table", lambda m: m["table"] is None)
        assert server.manager.seated.get(ann["account"]["id"]) is None
        await again.close()

    asyncio.run(main())


def test_leaving_during_a_hand_is_an_escape_at_once(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    server = live_server(reconnect_grace=60.0, turn_timer=60.0)
    ann, bob = server.guest(), server.guest()
    code = server.create_table(ann["token"], hands=1, bot="random")

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        a, b = await server.seat(ws_client, code, [ann, bob])
        await _fill_and_ready([a, b], [2, 3])
        await b.expect("snapshot")
        table = server.manager.tables[code]  # this match's table (再來一局 reuses the code)
        await b.send(type="leave")
        await b.expect("table", lambda m: m["table"] is None)
        # bob is free at once: he may sit elsewhere while his seat plays on in 托管
        await b.send(type="quick_match", room="novice")
        elsewhere = await b.expect("table", lambda m: m["table"] is not None)
        assert elsewhere["table"]["code"] != code
        hand_end = await play(a, 9, until="hand_end")
        await b.close()
        return hand_end, {"tuoguan": table.seats[1].tuoguan}

    hand_end, seat = asyncio.run(main())
    assert hand_end["result"] == "escape" and hand_end["loser"] == 1
    assert seat["tuoguan"]


def test_a_seat_left_between_hands_can_be_taken_back_an_escaped_one_cannot_r45(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    """Leaving between hands costs nothing and the seat plays on in 托管; a ``join`` of the
    table's code takes it back (回到牌桌), and ``/api/me`` lists the match meanwhile. A seat
    that escaped during a hand (R45) stays its bot's: its player may only watch."""
    server = live_server(next_hand_wait=60.0, next_hand_limit=120.0, claim_window=0.03)
    ann, bob = server.guest(), server.guest()
    code = server.create_table(ann["token"], hands=3, bot="random")

    async def main() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        a, b = await server.seat(ws_client, code, [ann, bob])
        await _fill_and_ready([a, b], [2, 3])
        await asyncio.gather(play(a, 1, until="hand_end"), play(b, 2, until="hand_end"))
        await a.send(type="leave")  # between hands: nothing to pay
        await a.expect("table", lambda m: m["table"] is None)
        away = server.http.get("/api/me", headers=server.auth(ann["token"])).json()
        await a.send(type="join", code=code)
        back = await a.expect("table", lambda m: m["table"] is not None)
        # bob escapes during the next hand, then tries to come back
        await a.send(type="ready")
        await b.send(type="ready")
        await b.expect("snapshot", lambda m: m["hand_index"] == 1)
        await b.send(type="leave")
        await b.expect("table", lambda m: m["table"] is None)
        await b.send(type="join", code=code)
        refused = await b.expect("error", lambda m: m["code"] == "wrong_state")
        await a.close()
        await b.close()
        return away, back, refused

    away, back, refused = asyncio.run(main())
    (in_play,) = away["in_play"]
    assert away["table"] is None and in_play["code"] == code and in_play["seat"] == 0
    assert in_play["may_return"] and not in_play["escaped"] and in_play["tuoguan"]
    assert not in_play["seated"]
    mine = back["table"]["seats"][0]
    assert back["table"]["you"] == 0 and not mine["tuoguan"] and not mine["escaped"]
    assert refused["code"] == "wrong_state" and "escaped" in refused["message"]
    assert server.store.audit().ok


def test_play_again_at_a_private_table_keeps_the_seats_and_the_bots(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    """再來一局 (issue 31 item 5): the ended private table waits again under its code, bots in
    their seats; each person comes back to their own seat and the match starts when both are
    ready. A room's match_end offers its room instead."""
    server = live_server(claim_window=0.03)
    ann, bob = server.guest(), server.guest()
    code = server.create_table(ann["token"], hands=1, bot="random")

    async def main() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        a, b = await server.seat(ws_client, code, [ann, bob])
        await _fill_and_ready([a, b], [2, 3])
        ends = await asyncio.gather(play(a, 1), play(b, 2))
        # bob comes back first; he must get his own seat (1), not the lowest free one (0)
        for client in (b, a):
            await client.send(type="join", code=code)
        again_b = await b.expect(
            "table", lambda m: m["table"] and m["table"]["status"] == "waiting"
        )
        again_a = await a.expect(
            "table", lambda m: m["table"] and m["table"]["you"] == 0 and m["table"]["seats"][1]
        )
        for client in (a, b):
            await client.send(type="ready")
        started = await a.expect("snapshot")
        await a.close()
        await b.close()
        return ends[0], {"a": again_a, "b": again_b}, started

    end, again, started = asyncio.run(main())
    assert end["rematch"] == {"code": code, "room": None}
    assert again["b"]["table"]["you"] == 1 and again["a"]["table"]["you"] == 0
    seats = again["a"]["table"]["seats"]
    assert [s["kind"] for s in seats] == ["human", "human", "bot", "bot"]
    assert started["hand_index"] == 0  # a new match
