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
