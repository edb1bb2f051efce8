"""Difficulty levels at the table (issues 11, 23): the server lists 簡單/普通/困難/高手/大師
and accepts a level wherever a bot is chosen (a private table's bot, add_bot), seating the bot
behind it."""

from __future__ import annotations

import asyncio
from typing import Any

from duyun.bots import DIFFICULTY_LEVELS


def test_levels_are_listed_weakest_first(live_server: Any) -> None:
    server = live_server()
    listed = server.http.get("/api/bots").json()
    assert [entry["level"] for entry in listed] == ["easy", "normal", "hard", "expert", "master"]
    assert [entry["bot"] for entry in listed] == [level.bot for level in DIFFICULTY_LEVELS]
    assert [entry["label_zh"] for entry in listed] == ["簡單", "普通", "困難", "高手", "大師"]
    assert listed[-1]["bot"] == "search"


def test_a_level_seats_its_bot_and_an_unknown_one_is_refused(
    live_server: Any, ws_client: Any
) -> None:
    server = live_server()
    token = server.guest()["token"]
    refused = server.http.post(
        "/api/tables", json={"bot": "grandmaster"}, headers=server.auth(token)
    )
    assert refused.status_code == 400 and "grandmaster" in refused.text
    created = server.http.post(
        "/api/tables", json={"bot": "expert", "hands": 1}, headers=server.auth(token)
    )
    assert created.status_code == 201, created.text
    code = created.json()["code"]

    async def seat_bots() -> tuple[list[Any], dict[str, Any]]:
        host = await ws_client.connect(server.ws_url, token, name="host")
        await host.send(type="join", code=code)
        await host.expect("table")
        await host.send(type="add_bot", seat=1)  # the table's level: expert
        await host.send(type="add_bot", seat=2, bot="hard")
        table = await host.expect(
            "table", lambda m: m["table"] and m["table"]["seats"][2] is not None
        )
        await host.send(type="add_bot", seat=3, bot="nonsense")
        error = await host.expect("error")
        await host.close()
        return table["table"]["seats"], error

    seats, error = asyncio.run(seat_bots())
    assert error["code"] == "unknown_bot" and "nonsense" in error["message"]
    assert seats[1]["bot"] == "strong" and seats[2]["bot"] == "heuristic"
    assert seats[3] is None


def test_master_bots_answer_claims_without_searching_so_the_pause_tells_nothing_r6(
    live_server: Any, ws_client: Any, play: Any, monkeypatch: Any
) -> None:
    """Issue 20 item 2 with the 大師 level: a claim is answered while the claim pause already
    runs, and a search there could outlast the beat and tell the table that a bot may claim.
    The search bot answers claims with its base policy; its searches run only on turns, whose
    move is chosen when the think time starts and played when it ends."""
    from duyun.bots.search import SearchBot

    searched: list[bool] = []
    original = SearchBot.search

    def recording(
        self: SearchBot, view: Any, candidates: Any, advice: Any, deadline: Any = None
    ) -> Any:
        searched.append(view.claim_tile is not None)
        assert deadline is not None  # a table's search always stops by the think time's end
        return original(self, view, candidates, advice, deadline)

    monkeypatch.setattr(SearchBot, "search", recording)
    claim_answers: list[bool] = []
    original_choose = SearchBot.choose

    def choosing(self: SearchBot, view: Any, deadline: Any = None) -> Any:
        claim_answers.append(view.claim_tile is not None)
        return original_choose(self, view, deadline)

    monkeypatch.setattr(SearchBot, "choose", choosing)
    server = live_server(claim_beat=0.05)
    ann = server.guest()
    created = server.http.post(
        "/api/tables",
        json={"hands": 2, "bot": "master", "bots_allowed": True, "claim_pause": "natural"},
        headers=server.auth(ann["token"]),
    )
    assert created.status_code == 201, created.text
    code = created.json()["code"]

    async def main() -> dict[str, Any]:
        client = await ws_client.connect(server.ws_url, ann["token"], name="ann")
        await client.send(type="join", code=code)
        await client.expect("table", lambda m: m["table"] and m["table"]["you"] == 0)
        for seat in (1, 2, 3):
            await client.send(type="add_bot", seat=seat)
        await client.send(type="ready")
        end: dict[str, Any] = await play(client, 3, timeout=120)
        await client.close()
        return end

    end = asyncio.run(main())
    assert end["reason"] == "completed"
    assert claim_answers and not any(claim_answers)  # the claims never reached the search
    assert searched and not any(searched)  # the bots did search, on their turns only


def test_a_tables_bots_play_its_rules_r53(live_server: Any, ws_client: Any) -> None:
    """A 血戰 table's 大師 bot is made with the table's RuleSet: its rollouts play on after
    the first win (R53), which its view alone tells only once a seat has won."""
    server = live_server()
    token = server.guest()["token"]
    code = server.create_table(token, bot="master", hands=1, rules={"bloody_battle": True})

    async def seat_bot() -> None:
        host = await ws_client.connect(server.ws_url, token, name="host")
        await host.send(type="join", code=code)
        await host.expect("table", lambda m: m["table"] and m["table"]["you"] == 0)
        await host.send(type="add_bot", seat=1)
        await host.expect("table", lambda m: m["table"]["seats"][1] is not None)
        await host.close()

    asyncio.run(seat_bot())
    table = server.manager.tables[code]
    bot = table._bot(1)
    assert bot.name == "search"
    assert bot.rules == table.options.rules and bot.rules.bloody_battle
