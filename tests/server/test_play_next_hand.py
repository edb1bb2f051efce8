"""Between hands (issue 21 item 4): the next hand waits for the people reading the settlement.

The page counts ``hand_end.next_hand_in`` down and presses 下一局 (``ready``) itself, unless
its reader holds the settlement open; the server then waits for that person, up to config
``next_hand_limit``. ``match_end.results`` repeats each hand's wins (pattern, fan), for a page
that joined in the middle of the match.

One person (seat 0) and three bots play stacked hands whose dealer discards 5p at once to a
seat that declared 報聽 waiting on it (a forced win, R26), so hands end in a moment.
"""

from __future__ import annotations

import asyncio
from typing import Any

from stacked_deals import forced_win

#: seconds: the page's countdown, the server's limit, and when the person presses 下一局
COUNTDOWN = 0.05
LIMIT = 1.2
PRESS = 0.4


def _choose(prompt: dict[str, Any]) -> dict[str, Any]:
    legal = prompt["legal"]
    if prompt["kind"] == "claim":
        return {"action": "pass"}
    discards = [a for a in legal if a["action"] == "discard"]
    five = [a for a in discards if a["tile"] == "5p"]
    chosen: dict[str, Any] = five[0] if five else discards[-1]
    return chosen


def test_next_hand_waits_for_the_person_reading_up_to_the_limit_r26(
    live_server: Any,
    ws_client: Any,
    play: Any,
    sent_messages: list[tuple[float, int | None, dict[str, Any]]],
) -> None:
    server = live_server(next_hand_wait=COUNTDOWN, next_hand_limit=LIMIT, turn_timer=30.0)
    server.manager.deal = forced_win
    session = server.guest()
    created = server.http.post(
        "/api/tables", json={"hands": 3, "bot": "efficient"}, headers=server.auth(session["token"])
    )
    assert created.status_code == 201, created.text
    code = created.json()["code"]

    async def main() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        ann = await ws_client.connect(server.ws_url, session["token"], name="ann")
        await ann.send(type="join", code=code)
        await ann.expect("table", lambda m: m["table"] and m["table"]["you"] == 0)
        for seat in (1, 2, 3):
            await ann.send(type="add_bot", seat=seat)
        await ann.send(type="ready")
        ends = []
        # hand 1: ann reads the settlement, then presses 下一局 (after the page's countdown)
        ends.append(await play(ann, until="hand_end", choose=_choose))
        await asyncio.sleep(PRESS)  # a person reading, not a wait for the server
        await ann.send(type="ready")
        # hand 2: ann never presses; the limit starts the hand anyway
        ends.append(await play(ann, until="hand_end", choose=_choose))
        ends.append(await play(ann, until="hand_end", choose=_choose))
        match_end = await ann.expect("match_end")
        await ann.close()
        return ends, match_end

    ends, match_end = asyncio.run(main())
    assert [e["next_hand_in"] for e in ends] == [COUNTDOWN, COUNTDOWN, None]
    account = session["account"]["id"]
    sent = [(t, m) for t, a, m in sent_messages if a == account]

    def sent_at(kind: str, hand_id: int) -> float:
        return next(t for t, m in sent if m["type"] == kind and m.get("hand_id") == hand_id)

    snapshots = [m["hand_id"] for _, m in sent if m["type"] == "snapshot"]
    assert len(snapshots) == 3
    pressed = sent_at("snapshot", snapshots[1]) - sent_at("hand_end", ends[0]["hand_id"])
    assert PRESS <= pressed < LIMIT, pressed  # waited past the countdown for the press
    limited = sent_at("snapshot", snapshots[2]) - sent_at("hand_end", ends[1]["hand_id"])
    assert LIMIT - 0.003 <= limited < LIMIT + 0.5, limited  # nobody pressed: the limit
    # the match summary repeats each hand's wins (pattern, fan) as its hand_end had them
    assert match_end["reason"] == "completed"
    results = match_end["results"]
    assert [r["hand_id"] for r in results] == [e["hand_id"] for e in ends]
    for result, end in zip(results, ends, strict=True):
        assert result["wins"] == [
            {key: win[key] for key in ("seat", "how", "from", "tile", "pattern", "fan", "extras")}
            for win in end["wins"]
        ]
    first = results[0]["wins"]
    assert first and first[0]["seat"] == 1 and first[0]["pattern"] and first[0]["fan"] >= 1


def test_bots_and_tuoguan_never_hold_the_next_hand(
    live_server: Any,
    ws_client: Any,
    play: Any,
    sent_messages: list[tuple[float, int | None, dict[str, Any]]],
) -> None:
    """A person in 托管 is not reading: the next hand follows at once, not at the limit."""
    server = live_server(next_hand_wait=30.0, next_hand_limit=60.0, turn_timer=30.0)
    server.manager.deal = forced_win
    session = server.guest()
    created = server.http.post(
        "/api/tables", json={"hands": 2, "bot": "efficient"}, headers=server.auth(session["token"])
    )
    code = created.json()["code"]

    async def main() -> dict[str, Any]:
        ann = await ws_client.connect(server.ws_url, session["token"], name="ann")
        await ann.send(type="join", code=code)
        await ann.expect("table", lambda m: m["table"] and m["table"]["you"] == 0)
        for seat in (1, 2, 3):
            await ann.send(type="add_bot", seat=seat)
        await ann.send(type="ready")
        await play(ann, until="hand_end", choose=_choose)
        await ann.send(type="tuoguan", on=True)
        end: dict[str, Any] = await ann.expect("match_end", timeout=10.0)
        await ann.close()
        return end

    end = asyncio.run(main())
    assert end["hands_played"] == 2
