"""Reconnect graces and escapes (issue 20 items 6 and 12, docs/protocol.md "Reconnecting").

A grace belongs to the match: the next hand waits for it, a grace that ends between hands is
托管 without penalty, and nobody escapes (R45) more than once per match, also when a whole
table drops at once. An escaped seat's player stays seated and may watch the seat's bot finish
the match, but cannot take the seat back.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from duyun.server.store import Store
from duyun.server.store.database import normalize_url
from stacked_deals import slow


def settled_once(store: Store, database_url: str, hand_ids: list[int]) -> None:
    """Every finished hand has exactly the ledger rows of its payment events: one settlement
    (a hand settled twice would have twice as many)."""
    engine = create_engine(normalize_url(database_url))
    try:
        with engine.connect() as connection:
            rows: dict[int, int] = dict(
                connection.execute(
                    text(
                        "SELECT hand_id, count(*) FROM coin_ledger WHERE kind = 'hand' "
                        "GROUP BY hand_id"
                    )
                ).all()
            )
    finally:
        engine.dispose()
    for hand_id in hand_ids:
        log = store.hand_log(hand_id)
        assert log.status == "finished", hand_id
        payments = sum(e["type"] == "payment" for e in log.events)
        assert rows.get(hand_id, 0) == payments, (hand_id, rows.get(hand_id), payments)


def test_an_escaped_seat_is_watched_to_the_end_but_not_taken_back_r45(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    """Issue 20 item 6: after the grace ran out the account is still seated: welcome names the
    table, the seat's events keep coming, ``tuoguan off`` and ``act`` answer ``wrong_state``,
    ``join`` elsewhere names the table, and ``leave`` stops watching without a second escape."""
    server = live_server(reconnect_grace=0.3, turn_timer=60.0, claim_window=0.02)
    # nobody can win before bob's turn, which holds the hand until his grace runs out
    server.manager.deal = slow
    ann, bob = server.guest(), server.guest()
    code = server.create_table(ann["token"], hands=3, bot="random")
    other = server.create_table(ann["token"], hands=1)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], Any]:
        a, b = await server.seat(ws_client, code, [ann, bob])
        for seat in (2, 3):
            await a.send(type="add_bot", seat=seat)
        for client in (a, b):
            await client.send(type="ready")
        await b.expect("snapshot")
        await b.close()
        hand_end = await play(a, 3, until="hand_end")
        assert hand_end["result"] == "escape" and hand_end["loser"] == 1
        ann_play = asyncio.create_task(play(a, 4))
        back = await ws_client.connect(server.ws_url, bob["token"], name="bob again")
        welcome = back.of_type("welcome")[0]
        table = await back.expect("table", lambda m: m["table"] is not None)
        assert table["table"]["you"] == 1 and table["table"]["seats"][1]["tuoguan"]
        assert table["table"]["seats"][1]["escaped"] is True
        await back.send(type="tuoguan", on=False, rid="off")
        refused = await back.expect("error", lambda m: m.get("rid") == "off")
        await back.send(type="act", action="pass", rid="act")
        no_act = await back.expect("error", lambda m: m.get("rid") == "act")
        await back.send(type="join", code=other, rid="join")
        no_join = await back.expect("error", lambda m: m.get("rid") == "join")
        # the seat's bot plays on: bob sees a later hand's settlement from his seat
        watched = await back.expect("hand_end", lambda m: m["hand_index"] >= 1, timeout=60)
        await back.send(type="leave")
        await back.expect("table", lambda m: m["table"] is None)
        match_end = await ann_play
        await back.close()
        await a.close()
        return (
            {"welcome": welcome, "refused": refused, "no_act": no_act, "no_join": no_join},
            watched,
            match_end,
            table,
        )

    answers, watched, match_end, _ = asyncio.run(scenario())
    assert answers["welcome"]["table"] == code
    assert answers["welcome"]["match"]["status"] == "playing"
    assert answers["refused"]["code"] == "wrong_state"
    assert answers["no_act"]["code"] == "wrong_state"
    assert answers["no_join"]["code"] == "already_seated" and code in answers["no_join"]["message"]
    assert watched["hand_index"] >= 1
    assert match_end["reason"] == "completed" and match_end["hands_played"] == 3
    # one escape for the whole match, in the hand where the grace ran out
    escapes = [r for r in match_end["results"] if r["result"] == "escape"]
    assert len(escapes) == 1 and match_end["results"][0]["result"] == "escape"
    assert server.store.audit().ok
    me = server.http.get("/api/me", headers=server.auth(bob["token"])).json()
    assert me["table"] is None


def test_a_whole_table_dropping_at_once_escapes_at_most_once_each_r45(
    live_server: Any, ws_client: Any, database_url: str
) -> None:
    """Issue 20 item 12, the graces alone (drops are not matched up: shared_drop_window 0):
    four people drop at once in hand 0. The next hand waits for their graces; graces that run
    out between hands are 托管 without penalty, so at most the one whose grace ran out inside
    hand 0 pays R45, and no later hand ends in an escape."""
    grace = 0.6
    server = live_server(
        shared_drop_window=0.0,
        reconnect_grace=grace,
        turn_timer=0.1,
        claim_window=0.02,
        bot_delay=0.005,
        next_hand_wait=0.05,
    )
    sessions = [server.guest() for _ in range(4)]
    code = server.create_table(sessions[0]["token"], hands=4, bots_allowed=False, spectators=True)

    async def main() -> float:
        clients = await server.seat(ws_client, code, sessions)
        for client in clients:
            await client.send(type="ready")
        for client in clients:
            await client.expect("snapshot")
        await asyncio.gather(*(client.close() for client in clients))
        dropped = asyncio.get_running_loop().time()
        # a spectator sees the whole match through, with nobody seated connected
        watcher = await ws_client.connect(server.ws_url, server.guest()["token"], name="w")
        await watcher.send(type="spectate", code=code)
        starts = []
        while True:
            message = await watcher.expect(
                where=lambda m: m["type"] in ("snapshot", "match_end"), timeout=60
            )
            if message["type"] == "match_end":
                break
            starts.append((asyncio.get_running_loop().time(), message["hand_index"]))
        await watcher.close()
        later = [t for t, index in starts if index >= 1]
        assert later, "no later hand was started"
        return min(later) - dropped

    first_later_start = asyncio.run(main())
    # the second hand did not start before every grace had run out
    assert first_later_start >= grace - 0.05
    history = server.http.get("/api/history", headers=server.auth(sessions[0]["token"])).json()
    (match,) = history["matches"]
    hands = match["hand_records"]
    assert match["status"] == "completed" and len(hands) == 4
    escapes = Counter(h["result"]["loser"] for h in hands if h["result"]["result"] == "escape")
    assert all(count == 1 for count in escapes.values())
    assert sum(escapes.values()) <= 1  # only inside hand 0, which the first escape ends
    assert all(h["result"]["result"] != "escape" for h in hands[1:])
    for hand in hands[1:]:
        log = server.store.hand_log(hand["hand_id"])
        assert not [e for e in log.events if e["type"] == "payment" and e["rule"] == "R45"]
    assert server.store.audit().ok
    settled_once(server.store, database_url, [h["hand_id"] for h in hands])


def test_live_match_of_names_the_match_a_client_should_wait_for(store: Store) -> None:
    """welcome.match (issue 20 item 12c) comes from Store.live_match_of: the newest live match
    in which the account still plays its seat; not one it escaped from, nor a finished one."""
    from duyun.server.store import MatchSpec, SeatSpec

    ann, bob = store.create_guest(), store.create_guest()
    bots = (SeatSpec(None, "random"), SeatSpec(None, "random"))
    seats = (SeatSpec(ann.id, None), SeatSpec(bob.id, None), *bots)
    spec = MatchSpec(kind="room", room="novice", stake=1, hands=2, seats=seats, seed=3)
    assert store.live_match_of(ann.id) is None
    match = store.create_match(spec)
    assert store.live_match_of(ann.id) == match == store.live_match_of(bob.id)
    store.mark_forced_tuoguan(match, 1)  # bob escaped: nothing to wait for
    assert store.live_match_of(bob.id) is None and store.live_match_of(ann.id) == match
    store.finish_match(match, "completed")
    assert store.live_match_of(ann.id) is None


def test_a_hello_is_one_transaction_with_the_account_and_its_live_match(store: Store) -> None:
    """Store.session_of, which a websocket's hello calls: the token's account and the match
    it still plays in, as verify_token and live_match_of answer them; a revoked token is
    refused as verify_token refuses it."""
    from duyun.server.store import AuthError, MatchSpec, SeatSpec

    ann = store.create_guest()
    token = store.issue_token(ann.id)
    assert store.session_of(token) == (store.verify_token(token), None, False)
    seats = (SeatSpec(ann.id, None), *(SeatSpec(None, "random") for _ in range(3)))
    match = store.create_match(
        MatchSpec(kind="room", room="novice", stake=1, hands=2, seats=seats, seed=4)
    )
    account, live, seated = store.session_of(token)
    assert account.id == ann.id and live == match == store.live_match_of(ann.id) and seated
    # an escaped seat is no longer played (live) but still held (seated): a reconnect on
    # another process is sent to its table
    store.mark_forced_tuoguan(match, 0)
    assert store.session_of(token)[1:] == (None, True)
    store.finish_match(match, "completed")
    assert store.session_of(token)[1:] == (None, False)
    store.revoke_token(token)
    with pytest.raises(AuthError, match="revoked"):
        store.session_of(token)


def test_a_hello_is_a_single_statement_outside_any_transaction(store: Store) -> None:
    """A crowd's seating is mostly hellos: Store.session_of sends its one reading statement
    and nothing else. SQLite takes no ``BEGIN IMMEDIATE`` (the write lock) for it; on
    PostgreSQL the connection is in autocommit, so the driver sends no ``BEGIN`` before the
    statement and no ``ROLLBACK`` after it (two round trips of three)."""
    from sqlalchemy import event

    token = store.issue_token(store.create_guest().id)
    seen: list[tuple[str, object]] = []

    def spy(conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        dbapi = conn.connection.dbapi_connection
        seen.append((statement.split()[0].upper(), getattr(dbapi, "autocommit", None)))

    engine = store._engine
    event.listen(engine, "before_cursor_execute", spy)
    try:
        account = store.session_of(token).account
    finally:
        event.remove(engine, "before_cursor_execute", spy)
    assert account == store.verify_token(token)
    if engine.dialect.name == "postgresql":
        assert seen == [("SELECT", True)]
    else:
        assert [statement for statement, _ in seen] == ["SELECT"]


def test_people_dropping_together_pay_no_escape_and_take_their_seats_back_r45(
    live_server: Any, ws_client: Any, database_url: str
) -> None:
    """Issue 20 item 12: the people of a table losing their connections together is a failure
    of the network or the server, not four players quitting: their graces run out into 托管,
    nobody pays R45 in any hand, and a player who comes back switches 托管 off and plays on."""
    grace = 0.5
    server = live_server(
        reconnect_grace=grace,
        turn_timer=0.1,
        claim_window=0.02,
        bot_delay=0.005,
        next_hand_wait=0.05,
    )
    sessions = [server.guest() for _ in range(4)]
    code = server.create_table(sessions[0]["token"], hands=3, bots_allowed=False, spectators=True)

    async def main() -> dict[str, Any]:
        clients = await server.seat(ws_client, code, sessions)
        for client in clients:
            await client.send(type="ready")
        for client in clients:
            await client.expect("snapshot")
        await asyncio.gather(*(client.close() for client in clients))
        watcher = await ws_client.connect(server.ws_url, server.guest()["token"], name="w")
        await watcher.send(type="spectate", code=code)
        # every grace has run out: all four seats are in 托管, none of them escaped
        table = await watcher.expect(
            "table",
            lambda m: m["table"] and all(s["tuoguan"] for s in m["table"]["seats"]),
            timeout=30,
        )
        assert not any(seat["escaped"] for seat in table["table"]["seats"])
        # one of them comes back and takes the seat back
        back = await ws_client.connect(server.ws_url, sessions[2]["token"], name="back")
        await back.expect("snapshot", timeout=30)
        await back.send(type="tuoguan", on=False, rid="t")
        await back.expect(
            "table", lambda m: m["table"] and not m["table"]["seats"][2]["tuoguan"], timeout=30
        )
        end: dict[str, Any] = await back.expect("match_end", timeout=60)
        await back.close()
        await watcher.close()
        return end

    end = asyncio.run(main())
    assert end["reason"] == "completed"
    history = server.http.get("/api/history", headers=server.auth(sessions[0]["token"])).json()
    hands = history["matches"][0]["hand_records"]
    assert len(hands) == 3
    assert all(h["result"]["result"] != "escape" for h in hands)
    for hand in hands:
        log = server.store.hand_log(hand["hand_id"])
        assert not [
            e
            for e in log.events
            if e["type"] in ("escape", "payment") and (e["type"] == "escape" or e["rule"] == "R45")
        ]
    assert server.store.audit().ok
    settled_once(server.store, database_url, [h["hand_id"] for h in hands])


def test_a_lone_player_who_stays_away_past_the_grace_still_escapes_r45(
    live_server: Any, ws_client: Any
) -> None:
    """The other side of the shared-drop rule: with nobody else at the table who dropped, a
    person whose grace runs out in a hand has quit (R45), as before."""
    from duyun.server.config import Room

    server = live_server(
        reconnect_grace=0.3,
        turn_timer=5.0,
        rooms=(Room("novice", "新手場", stake=1, entry=100, hands=1),),
    )
    ann = server.guest()

    async def main() -> tuple[int, dict[str, Any]]:
        client = await ws_client.connect(server.ws_url, ann["token"], name="ann")
        await client.send(type="quick_match", room="novice")
        table = await client.expect(
            "table", lambda m: m["table"] and m["table"]["status"] == "playing", timeout=20
        )
        await client.expect("prompt", timeout=20)
        watcher = await ws_client.connect(server.ws_url, server.guest()["token"], name="w")
        await watcher.send(type="spectate", code=table["table"]["code"])
        await watcher.expect("snapshot", timeout=20)
        await client.close()
        end: dict[str, Any] = await watcher.expect("hand_end", timeout=30)
        await watcher.close()
        return int(table["table"]["you"]), end

    seat, end = asyncio.run(main())
    assert end["result"] == "escape" and end["loser"] == seat, end
