"""Whole matches over real websockets against a real uvicorn server (issue 9)."""

from __future__ import annotations

import asyncio
from typing import Any


def _create_table(server: Any, token: str, **body: Any) -> str:
    answer = server.http.post("/api/tables", json=body, headers=server.auth(token))
    assert answer.status_code == 201, answer.text
    code: str = answer.json()["code"]
    assert len(code) == 6 and code.isdigit()
    return code


def test_full_match_two_humans_two_bots_balances_equal_ledger_r41(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    server = live_server(claim_window=0.03)
    ann, bob = server.guest(), server.guest()
    code = _create_table(server, ann["token"], stake=2, hands=2, bot="random")

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
