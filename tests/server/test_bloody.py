"""血戰 rooms on the server (issue 14, R52-R57): room config, whole matches, winners leaving.

The matches here are made deterministic: the table's match seed is set before the match
starts, the bots are seeded from it, and the websocket player follows a fixed policy (win when
offered, else pass, else discard the last legal discard), so the same hands are played
whatever the timing: a late claim answer is a pass, which is what the policy answers anyway
except for a win, and the player at seat 0 wins only by self-draw (a turn decision, under a
long turn timer). SEED was chosen offline: in its first hand seat 0 wins first by self-draw
with 39 tiles left, seat 2 wins later and the hand ends at the exhaustive draw with two
players still in it (R56); in its second hand three bots win.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from duyun.engine import events_for, redact_event
from duyun.rules import RuleSet
from duyun.server.config import DEFAULT_ROOMS, ConfigError, Room, config_from_mapping
from duyun.server.protocol import fold_view
from play_policies import win_pass_else_last_discard as policy

pytestmark = pytest.mark.slow  # whole matches or server processes

SEED = 327
STARTING = 1000
BLOODY = {"bloody_battle": True}


def test_rooms_carry_rule_options_checked_by_ruleset_r52() -> None:
    ids = {room.id: room for room in DEFAULT_ROOMS}
    assert ids["bloody-novice"].rules == RuleSet(bloody_battle=True)
    assert (ids["bloody-novice"].stake, ids["bloody-novice"].entry) == (1, 100)
    assert (ids["bloody-junior"].stake, ids["bloody-junior"].entry) == (5, 1000)
    assert ids["novice"].rules == RuleSet()
    assert ids["bloody-junior"].to_json()["rules"]["bloody_battle"] is True
    config = config_from_mapping(
        {
            "rooms": [
                {"id": "a", "stake": 1, "rules": {"bloody_battle": True, "base_points": 2}},
                {"id": "b", "stake": 2},
            ]
        }
    )
    room_a, room_b = config.room("a"), config.room("b")
    assert room_a is not None and room_b is not None
    assert room_a.rules == RuleSet(bloody_battle=True, base_points=2)
    assert room_b.rules == RuleSet()
    with pytest.raises(ConfigError, match=r"rooms\[0\]\.rules: unknown rule option\(s\) blody"):
        config_from_mapping({"rooms": [{"id": "x", "stake": 1, "rules": {"blody": True}}]})
    with pytest.raises(ConfigError, match=r"rooms\[1\]\.rules: .*'bloody_battle' must be bool"):
        config_from_mapping(
            {
                "rooms": [
                    {"id": "x", "stake": 1},
                    {"id": "y", "stake": 1, "rules": {"bloody_battle": 1}},
                ]
            }
        )
    with pytest.raises(ConfigError, match=r"rooms\[0\]\.rules must be a table"):
        config_from_mapping({"rooms": [{"id": "x", "stake": 1, "rules": "bloody"}]})
    with pytest.raises(ConfigError, match=r"rooms\[0\]\.rules: flower_pig"):
        config_from_mapping({"rooms": [{"id": "x", "stake": 1, "rules": {"flower_pig": True}}]})


def test_room_rules_from_a_toml_file(tmp_path: Any) -> None:
    from duyun.server.config import load_config

    path = tmp_path / "duyun.toml"
    path.write_text(
        '[[rooms]]\nid = "bloody"\nname = "血戰場"\nstake = 3\nrules = {bloody_battle = true}\n',
        encoding="utf-8",
    )
    room = load_config(path).room("bloody")
    assert room == Room("bloody", "血戰場", stake=3, entry=0, rules=RuleSet(bloody_battle=True))


async def _seeded_table(
    server: Any,
    ws_client: Any,
    session: dict[str, Any],
    hands: int,
    seed: int = SEED,
    others: tuple[Any, ...] = (),
) -> Any:
    """A private 血戰 table: the websocket player at seat 0, house bots on the other seats
    except seat 2 when ``others`` holds a second player's client, and the match seed."""
    answer = server.http.post(
        "/api/tables",
        json={"hands": hands, "rules": BLOODY, "bot": "efficient", "spectators": True},
        headers=server.auth(session["token"]),
    )
    assert answer.status_code == 201, answer.text
    code = answer.json()["code"]
    assert answer.json()["table"]["rules"]["bloody_battle"] is True
    server.manager.tables[code].seed = seed  # before the match starts (it is stored with it)
    client = await ws_client.connect(server.ws_url, session["token"], name="p0")
    await client.send(type="join", code=code)
    await client.expect("table", lambda m: m["table"] and m["table"]["you"] == 0)
    for other in others:
        await other.send(type="join", code=code)
        await other.expect("table", lambda m: m["table"] and m["table"]["you"] == 1)
        await other.send(type="sit", seat=2)
        await other.expect("table", lambda m: m["table"] and m["table"]["you"] == 2)
    for seat in (1, 3) if others else (1, 2, 3):
        await client.send(type="add_bot", seat=seat)
    await client.send(type="ready")
    for other in others:
        await other.send(type="ready")
    return client


def _check_coins(
    server: Any, session: dict[str, Any], coins: int, starting: int = STARTING
) -> None:
    """R41: the balance is the starting balance plus the match's coins, and equals the ledger."""
    assert server.store.audit().ok
    me = server.http.get("/api/me", headers=server.auth(session["token"])).json()
    assert me["balance"] == starting + coins
    ledger = server.http.get("/api/ledger", headers=server.auth(session["token"])).json()
    own = session["account"]["id"]
    assert ledger["balance"] == me["balance"]
    net = sum(r["coins"] * (1 if r["payee"] == own else -1) for r in ledger["rows"])
    assert net == me["balance"]  # the starting grant is a ledger row too


def test_whole_bloody_match_several_winners_balances_equal_ledger_r53_r54_r55(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    server = live_server(claim_window=0.08, turn_timer=10.0, starting_balance=STARTING)
    rooms = server.http.get("/api/rooms").json()
    listed = {room["id"]: room["rules"]["bloody_battle"] for room in rooms}
    assert listed["bloody-novice"] is True and listed["novice"] is False
    session = server.guest()

    async def main() -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
        client = await _seeded_table(server, ws_client, session, hands=2)
        end = await play(client, choose=policy)
        ends = client.of_type("hand_end")
        snapshots = client.of_type("snapshot")
        await client.close()
        return ends, end, snapshots

    hand_ends, end, snapshots = asyncio.run(main())
    assert end["reason"] == "completed" and end["hands_played"] == 2
    assert [len(h["winners"]) for h in hand_ends] == [2, 3]  # R53: the hand goes on after a win
    assert hand_ends[0]["winners"] == [0, 2] and 0 not in hand_ends[1]["winners"]
    assert hand_ends[0]["wins"][0]["how"] == "self_draw"
    for hand_end in hand_ends:
        assert hand_end["result"] == "win"
        # every win with its hand and tile, in the order they happened
        assert [w["seat"] for w in hand_end["wins"]] == hand_end["winners"]
        for win in hand_end["wins"]:
            assert (
                win["tile"] and win["hand"] and win["how"] in ("self_draw", "discard", "rob_kong")
            )
        assert hand_end["next_streak"] == 0  # R55
        assert hand_end["next_dealer"] == hand_end["winners"][0]  # R55: the first winner
        assert sum(hand_end["coins"]) == 0 and sum(hand_end["points"]) == 0
        log = server.store.hand_log(hand_end["hand_id"]).events
        stored = [p for e in log if e["type"] == "payment" for p in [e]]
        assert len(stored) == len(hand_end["payments"])  # every payment of the hand settled
        for row in hand_end["payments"]:
            assert row["paid"] <= row["coins"]  # a cut is recorded, never more than asked
    assert hand_ends[1]["hands"] and snapshots[1]["hand_index"] == 1
    assert snapshots[1]["view"]["won"] == [False] * 4  # a new hand starts with nobody out
    assert sum(end["coins"]) == 0
    _check_coins(server, session, end["coins"][0])


@pytest.mark.parametrize("how", ["disconnect", "leave"])
def test_a_winner_leaving_mid_hand_pays_nothing_and_the_hand_goes_on_r57(
    live_server: Any, ws_client: Any, how: str
) -> None:
    server = live_server(claim_window=0.08, turn_timer=10.0, reconnect_grace=0.05)
    session, watcher = server.guest(), server.guest()

    async def main() -> tuple[Any, ...]:
        client = await _seeded_table(server, ws_client, session, hands=1)
        code = next(iter(server.manager.tables))
        spectator = await ws_client.connect(server.ws_url, watcher["token"], name="watcher")
        await spectator.send(type="spectate", code=code)
        received: list[dict[str, Any]] = []
        while True:
            message = await client.expect(
                where=lambda m: m["type"] in ("prompt", "snapshot", "events", "hand_end")
            )
            assert message["type"] != "hand_end", "seat 0 did not win in the seeded hand"
            if message["type"] == "prompt":
                await client.send(type="act", prompt=message["id"], **policy(message))
            elif message["type"] == "snapshot":
                received = list(message["events"])
            else:
                received += message["events"]
                if any(e["type"] == "win" and e["seat"] == 0 for e in message["events"]):
                    break
        # what a reconnecting client of seat 0 would be shown now (R53)
        view = fold_view(received, 0)
        if how == "leave":
            await client.send(type="leave")
            await client.expect("table", lambda m: m["table"] is None)
        await client.close()
        # the hand goes on without seat 0 (托管 afterwards) and the match ends
        match_end = await spectator.expect("match_end", timeout=60)
        seen = [e for m in spectator.of_type("events") for e in m["events"]]
        snapshot = spectator.of_type("snapshot")[0]
        hand_end = spectator.of_type("hand_end")[0]
        await spectator.close()
        return view, match_end, [*snapshot["events"], *seen], hand_end

    view, match_end, spectator_events, hand_end = asyncio.run(main())
    assert hand_end["left"] == [True, False, False, False]
    assert hand_end["winners"] == match_end["results"][0]["winners"]
    assert view["won"] == [True, False, False, False] and view["in_hand"] == [1, 2, 3]
    assert view["open_hands"][0] and view["win_tiles"][0] is not None
    hand_id = match_end["results"][0]["hand_id"]
    log = list(server.store.hand_log(hand_id).events)
    assert spectator_events == events_for(log, None)  # public facts only, every one of them
    kinds = [e["type"] for e in log]
    leave = kinds.index("leave")
    assert log[leave]["seat"] == 0 and "escape" not in kinds  # R57: a leave, not an escape
    assert log[leave - 1] == {"type": "act", "seat": 0, "action": "leave"}
    won_at = next(i for i, e in enumerate(log) if e["type"] == "win" and e["seat"] == 0)
    assert won_at < leave
    after = log[leave + 1 :]
    assert any(e["type"] == "draw" for e in after)  # the hand went on
    assert all(0 not in (e["payer"], e["payee"]) for e in after if e["type"] == "payment")
    end = log[-1]
    assert end["type"] == "end" and end["left"] == [True, False, False, False]
    assert end["winners"] == [0, 2] and end["result"] == "win"
    assert sum(match_end["coins"]) == 0
    _check_coins(server, session, match_end["coins"][0])


def test_several_winners_with_payers_short_of_coins_cuts_are_recorded_r41_r53(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    """Seed 41 (found offline): bots at seats 1 and 3 both win; the players at seats 0 and 2
    owe more than their 40 coins (84 and 42 points at stake 1): payments are cut to what they
    hold, the cuts recorded, and every balance still equals its ledger."""
    starting = 40
    server = live_server(claim_window=0.08, turn_timer=10.0, starting_balance=starting)
    ann, bob = server.guest(), server.guest()

    async def main() -> list[dict[str, Any]]:
        b = await ws_client.connect(server.ws_url, bob["token"], name="p2")
        a = await _seeded_table(server, ws_client, ann, hands=1, seed=41, others=(b,))
        ends = await asyncio.gather(play(a, choose=policy), play(b, choose=policy))
        hand_end = a.of_type("hand_end")[0]
        assert hand_end == b.of_type("hand_end")[0]
        await a.close()
        await b.close()
        return [hand_end, ends[0]]

    hand_end, match_end = asyncio.run(main())
    assert hand_end["winners"] == [1, 3] and hand_end["result"] == "win"
    assert {w["seat"] for w in hand_end["wins"]} == {1, 3}
    cut = [row for row in hand_end["payments"] if row["paid"] < row["coins"]]
    assert {row["payer"] for row in cut} == {0, 2}  # R41: cut to the payer's balance
    assert all(row["paid"] <= row["coins"] for row in hand_end["payments"])
    assert hand_end["balances"][0] == 0 and hand_end["balances"][2] >= 0
    assert sum(hand_end["coins"]) == 0 and sum(match_end["coins"]) == 0
    for seat, session in ((0, ann), (2, bob)):
        _check_coins(server, session, match_end["coins"][seat], starting)


LEAK_WINDOW = 0.06


def test_leak_scan_over_whole_bloody_matches_r53(
    live_server: Any,
    ws_client: Any,
    play: Any,
    sent_messages: list[tuple[float, int | None, dict[str, Any]]],
) -> None:
    """Issue 9 §4 in a 血戰 room: every message sent to a seat, over whole matches with wins
    that do not end the hand, is exactly the seat's redaction of the stored log; snapshots fold
    to the view; and after every discard the next batch waits one full claim window whether
    or not anyone could claim (winners are never asked, so that must not show either)."""
    server = live_server(claim_window=LEAK_WINDOW, turn_timer=30.0)
    sessions = [server.guest() for _ in range(2)]
    created = server.http.post(
        "/api/tables",
        json={"hands": 3, "rules": BLOODY, "bot": "efficient", "claim_pause": "fixed"},
        headers=server.auth(sessions[0]["token"]),
    )
    code = created.json()["code"]
    server.manager.tables[code].seed = SEED  # reproducible hands (the bots win in them)

    async def main() -> dict[str, Any]:
        clients = await server.seat(ws_client, code, sessions)
        await clients[0].send(type="add_bot", seat=2)
        await clients[0].send(type="add_bot", seat=3)
        for client in clients:
            await client.send(type="ready")
        ends = await asyncio.gather(*(play(c, 20 + i) for i, c in enumerate(clients)))
        for client in clients:
            await client.close()
        return ends[0]

    end = asyncio.run(main())
    assert end["reason"] == "completed"
    seat_of = {session["account"]["id"]: seat for seat, session in enumerate(sessions)}
    gaps: dict[bool, list[float]] = {True: [], False: []}
    wins = 0
    for result in end["results"]:
        hand_id = result["hand_id"]
        log = list(server.store.hand_log(hand_id).events)
        wins += sum(e["type"] == "win" for e in log)
        for account, seat in seat_of.items():
            mine = [
                (t, m) for t, a, m in sent_messages if a == account and m.get("hand_id") == hand_id
            ]
            assert {m["type"] for _, m in mine} <= {"snapshot", "events", "prompt", "hand_end"}
            received: list[dict[str, Any]] = []
            for _, message in mine:
                if message["type"] == "snapshot":
                    assert message["seat"] == seat
                    received = list(message["events"])
                    assert message["view"] == fold_view(received, seat)
                elif message["type"] == "events":
                    assert message["seq"] == len(received)
                    received.extend(message["events"])
            assert received == events_for(log, seat)
            # winners (R53) are never prompted: no prompt after the seat's own win
            won_at = next((t for t, m in mine if _wins(m, seat)), None)
            if won_at is not None:
                assert not [m for t, m in mine if m["type"] == "prompt" and t > won_at]
            positions = [i for i, e in enumerate(log) if redact_event(e, seat) is not None]
            seen = 0
            batches: list[tuple[float, int]] = []
            for t, message in mine:
                if message["type"] == "snapshot":
                    seen = len(message["events"])
                elif message["type"] == "events":
                    seen += len(message["events"])
                    batches.append((t, positions[seen - 1]))
            for (t0, last), (t1, _) in itertools.pairwise(batches):
                if log[last]["type"] == "discard":
                    gaps[log[last + 1]["type"] in ("act", "claim")].append(t1 - t0)
    assert wins >= 2, "the matches had no 血戰 wins to scan"
    assert gaps[True] and gaps[False], "no claimable discard to compare"
    assert min(gaps[True]) >= LEAK_WINDOW - 0.003 and min(gaps[False]) >= LEAK_WINDOW - 0.003


def _wins(message: dict[str, Any], seat: int) -> bool:
    return message["type"] == "events" and any(
        e["type"] == "win" and e["seat"] == seat for e in message["events"]
    )


def test_quick_match_in_a_bloody_room_an_escape_still_ends_the_hand_r57(
    live_server: Any, ws_client: Any
) -> None:
    """Quick match plays the room's rules; a player still in the hand who leaves escapes
    (R45), which ends a 血戰 hand too (R57), and its penalty is settled as usual."""
    room = Room("bloody-novice", "血戰新手場", stake=1, entry=100, hands=1, rules=RuleSet(**BLOODY))
    server = live_server(rooms=(room,), turn_timer=30.0)
    session, watcher = server.guest(), server.guest()

    async def main() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        client = await ws_client.connect(server.ws_url, session["token"], name="p")
        await client.send(type="quick_match", room="bloody-novice")
        table = await client.expect(
            "table", lambda m: m["table"] and m["table"]["status"] == "playing"
        )
        spectator = await ws_client.connect(server.ws_url, watcher["token"], name="watcher")
        await spectator.send(type="spectate", code=table["table"]["code"])
        await client.expect("prompt")  # a winner is never prompted: this seat is in the hand
        await client.send(type="leave")
        await client.expect("table", lambda m: m["table"] is None)
        await client.close()
        match_end = await spectator.expect("match_end", timeout=60)
        hand_end = spectator.of_type("hand_end")[0]
        await spectator.close()
        return table["table"], hand_end, match_end

    table, hand_end, match_end = asyncio.run(main())
    assert table["rules"]["bloody_battle"] is True and table["kind"] == "room"
    seat = table["you"]
    assert hand_end["result"] == "escape" and hand_end["loser"] == seat
    assert seat not in hand_end["winners"]
    log = server.store.hand_log(hand_end["hand_id"]).events
    escape = next(e for e in log if e["type"] == "escape")
    assert escape["seat"] == seat and log[-1]["type"] == "end"
    assert hand_end["coins"][seat] < 0 and sum(hand_end["coins"]) == 0  # R45 penalty paid
    _check_coins(server, session, match_end["coins"][seat])
