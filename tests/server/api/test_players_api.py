"""Issue 32 through the running server: the bonus endpoints and their errors, two tabs
claiming at once, the per-address caps by the address behind the proxy, leaderboards (and
their cache), profiles and display names over REST; a rated quick match shown at the table
and in the match summary, a private table its host made unrated; fair matching of quick match
by address (the address as uvicorn gives it behind the trusted proxy, X-Forwarded-For from
127.0.0.1)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import websockets

from duyun.engine import Payment
from duyun.server.app import WS_MAX_FRAME
from duyun.server.config import Room
from duyun.server.store import MatchSpec, SeatSpec, Store

ONE_HAND = (Room("novice", "新手場", stake=1, entry=100, hands=1),)


def _auth(session: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {session['token']}"}


def test_bonus_endpoints_answer_already_claimed_and_not_eligible_with_when_next(
    live_server: Any,
) -> None:
    server = live_server(daily_gift=150, topup_to=400)
    ann = server.guest()
    http = server.http
    offered = http.get("/api/bonus", headers=_auth(ann)).json()
    gift, topup = offered["bonuses"]
    assert (gift["kind"], gift["coins"], gift["available"]) == ("gift", 150, True)
    assert (topup["kind"], topup["available"], topup["next"]) == ("topup", False, None)
    claimed = http.post("/api/bonus/gift", headers=_auth(ann))
    assert claimed.status_code == 200 and claimed.json()["balance"] == 1150
    again = http.post("/api/bonus/gift", headers=_auth(ann))
    assert again.status_code == 409
    error = again.json()["error"]
    assert error["code"] == "already_claimed" and error["next"].endswith("16:00:00+00:00")
    refused = http.post("/api/bonus/topup", headers=_auth(ann))
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "not_eligible"
    assert "below 100" in refused.json()["error"]["message"]
    assert refused.json()["error"]["next"] is None
    assert http.post("/api/bonus/coins", headers=_auth(ann)).status_code == 400
    assert http.post("/api/bonus/gift").status_code == 401
    ledger = http.get("/api/ledger", headers=_auth(ann)).json()["rows"]
    assert [row["kind"] for row in ledger] == ["gift", "starting"]


def test_two_tabs_claiming_at_once_are_paid_once(live_server: Any) -> None:
    server = live_server()
    ann = server.guest()

    async def claims() -> list[int]:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            answers = await asyncio.gather(
                *(client.post("/api/bonus/gift", headers=_auth(ann)) for _ in range(4))
            )
        return sorted(a.status_code for a in answers)

    assert asyncio.run(claims()) == [200, 409, 409, 409]
    assert server.store.account(ann["account"]["id"]).balance == 1100


def test_guests_of_one_address_share_its_daily_caps_behind_the_proxy(live_server: Any) -> None:
    """Guests are free to make, so the gift counts per address too: the address the server
    sees behind the trusted proxy (X-Forwarded-For from 127.0.0.1), not the proxy's own."""
    server = live_server(gifts_per_address=2)
    home = {"X-Forwarded-For": "203.0.113.5"}
    guests = [server.guest() for _ in range(4)]

    def claim(session: dict[str, Any], address: dict[str, str]) -> httpx.Response:
        return server.http.post("/api/bonus/gift", headers={**_auth(session), **address})

    assert [claim(g, home).status_code for g in guests[:2]] == [200, 200]
    offered = server.http.get("/api/bonus", headers={**_auth(guests[2]), **home}).json()
    assert offered["bonuses"][0]["available"] is False
    refused = claim(guests[2], home)
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "not_eligible" and "your address" in error["message"]
    assert error["next"].endswith("16:00:00+00:00")  # midnight in Asia/Shanghai
    # the same guest from another address, and one more guest from a third, are paid
    assert claim(guests[2], {"X-Forwarded-For": "198.51.100.7"}).status_code == 200
    assert claim(guests[3], {"X-Forwarded-For": "192.0.2.1"}).status_code == 200
    assert server.store.audit().ok


def _rated_win(store: Store, account_id: int) -> None:
    """A finished one-hand room match the account won against three bots (so rated)."""
    seats = (SeatSpec(account_id), *(SeatSpec(None, "efficient") for _ in range(3)))
    match = store.create_match(MatchSpec("room", "novice", 1, 1, seats, seed=1))
    hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    store.finish_hand(hand, [Payment(1, 0, 1, 12, "R28", "t")], {"totals": [12, -12, 0, 0]})
    store.finish_match(match, "completed")


def test_leaderboards_are_reused_for_the_cache_period(live_server: Any) -> None:
    """A leaderboard answer is reused for ``leaderboard_cache`` seconds: the rating board per
    asking player, the week's ranking once for everybody. A match rated meanwhile shows in
    an answer read afresh (bob's first), not in one still cached (ann's)."""
    server = live_server(leaderboard_cache=3600.0)
    ann, bob = server.guest(), server.guest()
    http = server.http
    first = http.get("/api/leaderboard/rating", headers=_auth(ann)).json()
    week = http.get("/api/leaderboard/weekly", headers=_auth(ann)).json()
    assert first["top"] == [] and week["top"] == []
    _rated_win(server.store, ann["account"]["id"])
    assert http.get("/api/leaderboard/rating", headers=_auth(ann)).json() == first  # cached
    fresh = http.get("/api/leaderboard/rating", headers=_auth(bob)).json()
    assert [line["account_id"] for line in fresh["top"]] == [ann["account"]["id"]]
    # the week's ranking was read once and is shared: bob's answer is the cached one too
    assert http.get("/api/leaderboard/weekly", headers=_auth(bob)).json()["top"] == []


@pytest.mark.slow  # plays a match
def test_a_private_table_its_host_made_unrated_changes_no_rating(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    """Two people sit, so the table would be rated by default; its host said not."""
    server = live_server()
    ann, bob = server.guest(), server.guest()
    code = server.create_table(ann["token"], hands=1, rated=False, bot="random")

    async def main() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        clients = await server.seat(ws_client, code, [ann, bob])
        await clients[0].send(type="add_bot", seat=2)
        await clients[0].send(type="add_bot", seat=3)
        table = await clients[0].expect("table", lambda m: m["table"]["seats"][3] is not None)
        for client in clients:
            await client.send(type="ready")
        ends = await asyncio.gather(*(play(c, i) for i, c in enumerate(clients)))
        for client in clients:
            await client.close()
        return table["table"], ends

    table, ends = asyncio.run(main())
    assert table["rated"] is False
    assert all(end["reason"] == "completed" and end["ratings"] is None for end in ends)
    for session in (ann, bob):
        profile = server.http.get("/api/profile", headers=_auth(session)).json()
        assert (profile["rated_matches"], profile["history"], profile["matches"]) == (0, [], 1)


def test_names_leaderboards_and_profiles(live_server: Any) -> None:
    server = live_server(leaderboard_cache=0.0, renames_per_minute=2)
    ann, bob = server.guest(), server.guest()
    http = server.http
    renamed = http.post("/api/name", json={"name": "阿小明"}, headers=_auth(ann))
    assert renamed.status_code == 200 and renamed.json()["name"] == "阿小明"
    taken = http.post("/api/name", json={"name": "阿小明"}, headers=_auth(bob))
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "name_taken"
    bad = http.post("/api/name", json={"name": "a!"}, headers=_auth(bob))
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_account"
    assert http.post("/api/name", json={"name": 5}, headers=_auth(bob)).status_code == 400
    # two renames written from this address this minute: a refused name is not counted, the
    # 409 name_taken included (docs/protocol.md "REST and account limits")
    assert http.post("/api/name", json={"name": "Bobby"}, headers=_auth(bob)).status_code == 200
    limited = http.post("/api/name", json={"name": "Bobbie"}, headers=_auth(bob))
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
    assert "name changes" in limited.json()["error"]["message"]

    board = http.get("/api/leaderboard/rating", headers=_auth(ann)).json()
    assert board == {"board": "rating", "top": [], "own": None}
    weekly = http.get("/api/leaderboard/weekly", headers=_auth(ann)).json()
    assert weekly["top"] == [] and weekly["since"]
    assert http.get("/api/leaderboard/coins", headers=_auth(ann)).status_code == 400

    mine = http.get("/api/profile", headers=_auth(ann)).json()
    assert (mine["name"], mine["rating"], mine["matches"], mine["balance"]) == (
        "阿小明",
        1000,
        0,
        1000,
    )
    assert mine["win_rate"] is None and mine["history"] == [] and mine["recent"] == []
    theirs = http.get(f"/api/profile/{ann['account']['id']}", headers=_auth(bob)).json()
    assert theirs["name"] == "阿小明" and "balance" not in theirs
    missing = http.get("/api/profile/999999", headers=_auth(bob))
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert http.get("/api/profile/0", headers=_auth(bob)).status_code == 400
    assert http.get("/api/ratings/bots").json() == {"bots": {}}


@pytest.mark.slow  # plays a match
def test_a_rated_quick_match_shows_ratings_at_the_table_and_its_change_in_the_summary(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    server = live_server(rooms=ONE_HAND)
    ann = server.guest()

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        a = await ws_client.connect(server.ws_url, ann["token"], name="ann")
        await a.send(type="quick_match", room="novice")
        table = await a.expect(
            "table", lambda m: m["table"] and m["table"]["status"] == "playing", timeout=10
        )
        end = await play(a, 5)
        await a.close()
        return table["table"], end

    table, end = asyncio.run(main())
    assert table["seats"][0]["rating"] == 1000
    assert table["rated"] is True
    lines = end["ratings"]
    assert [line["seat"] for line in lines] == [0, 1, 2, 3]
    assert all(line["change"] == line["after"] - line["before"] for line in lines)
    assert lines[0]["before"] == 1000
    profile = server.http.get("/api/profile", headers=_auth(ann)).json()
    assert profile["rating"] == lines[0]["after"] and profile["rated_matches"] == 1
    assert [(p["rating"], p["change"]) for p in profile["history"]] == [
        (lines[0]["after"], lines[0]["change"])
    ]
    assert profile["recent"][0]["hand_records"][0]["replay"].startswith("/api/hands/")
    bots = server.http.get("/api/ratings/bots").json()["bots"]
    assert set(bots) == {server.config.default_bot}
    board = server.http.get("/api/leaderboard/rating", headers=_auth(ann)).json()
    assert board["own"]["place"] == 1 and board["top"][0]["account_id"] == ann["account"]["id"]
    week = server.http.get("/api/leaderboard/weekly", headers=_auth(ann)).json()
    moved = [r for r in server.store.coin_ledger(ann["account"]["id"]) if r.kind == "hand"]
    if moved:  # what the hand moved for her, from the ledger
        assert week["own"]["value"] == end["coins"][0]
        assert [line["account_id"] for line in week["top"]] == [ann["account"]["id"]]
    else:  # a draw that moved nothing: no line this week
        assert week["own"] is None and week["top"] == []


async def _connect(server: Any, client_class: Any, session: dict[str, Any], address: str) -> Any:
    """A websocket client (the ``ws_client`` fixture's class) whose proxy says it comes from
    ``address`` (X-Forwarded-For, believed from 127.0.0.1: config ``forwarded_allow_ips``)."""
    ws = await websockets.connect(
        server.ws_url, additional_headers={"X-Forwarded-For": address}, max_size=WS_MAX_FRAME
    )
    client = client_class(ws, address)
    await client.send(type="hello", version=1, token=session["token"])
    await client.expect("welcome")
    return client


async def _quick(client: Any) -> str:
    await client.send(type="quick_match", room="novice")
    table = await client.expect("table", lambda m: bool(m["table"]))
    code: str = table["table"]["code"]
    return code


@pytest.mark.parametrize("allowed", [False, True])
def test_quick_match_never_seats_two_accounts_of_one_address_together_unless_allowed(
    live_server: Any, ws_client: Any, allowed: bool
) -> None:
    """Quick match keeps one address's accounts apart (unless the config allows it); a
    private table, for friends, seats them together either way."""
    server = live_server(bot_fill_wait=60.0, same_address_tables=allowed)
    ann, ann2, bob = server.guest(), server.guest(), server.guest()
    friend, friend2 = server.guest(), server.guest()
    carl, carl2 = server.guest(), server.guest()
    code = server.create_table(friend["token"])

    async def main() -> tuple[list[str], list[int]]:
        a = await _connect(server, ws_client, ann, "203.0.113.7")
        a2 = await _connect(server, ws_client, ann2, "203.0.113.7")  # the same person again
        b = await _connect(server, ws_client, bob, "198.51.100.20")
        codes = [await _quick(a), await _quick(a2), await _quick(b)]
        # two more of one address asking at the same moment in another room: the second
        # join, queued to the same table before the first sat down, looks again
        # (seating.join)
        c = await _connect(server, ws_client, carl, "192.0.2.44")
        c2 = await _connect(server, ws_client, carl2, "192.0.2.44")
        await asyncio.gather(
            c.send(type="quick_match", room="junior"), c2.send(type="quick_match", room="junior")
        )
        racing = [
            (await client.expect("table", lambda m: bool(m["table"])))["table"]["code"]
            for client in (c, c2)
        ]
        codes.append(str(racing[0] == racing[1]))
        seats, clients = [], [a, a2, b, c, c2]
        for session in (friend, friend2):
            client = await _connect(server, ws_client, session, "203.0.113.8")
            await client.send(type="join", code=code)
            table = await client.expect("table", lambda m: bool(m["table"]))
            seats.append(table["table"]["you"])
            clients.append(client)
        for client in clients:
            await client.close()
        return codes, seats

    (first, second, stranger, raced_together), seats = asyncio.run(main())
    assert (first == second) is allowed
    assert raced_together == str(allowed)
    assert stranger == first  # a stranger joins the fullest table
    assert seats == [0, 1]  # friends of one address at a private table
