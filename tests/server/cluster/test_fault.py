"""Durability (issue 9 §6): SIGKILL the server in the middle of a hand, restart it on the same
database, and the hand resumes exactly where it was; no coin is created or lost."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from duyun.engine import events_for
from duyun.server.store import Store
from serve_process import ServeProcess

pytestmark = pytest.mark.slow  # whole matches or server processes

SERVER_CONFIG = """
turn_timer = 60.0
claim_window = {claim_window}
bot_delay = 0.005
bot_delay_max = 0.005
reconnect_grace = {grace}
next_hand_wait = 0.05
next_hand_limit = 0.05
claim_beat = 0.02
default_bot = "random"
guests_per_minute = 0          # tests make many accounts and tables from one address
registrations_per_minute = 0
tables_per_minute = 0
code_lookups_per_minute = 0
open_tables_per_account = 0
commit_wait = {commit_wait}
"""


class _Server(ServeProcess):
    """One ``duyun serve`` on a fixed port and database, started again after a SIGKILL as an
    operator would restart it: under the same ``--owner``, as docs/deploy.md asks (without
    one, a process on PostgreSQL makes up a new name and waits for its old leases to expire)."""

    def __init__(self, database_url: str, tmp_path: Path, deal: str) -> None:
        super().__init__(
            database_url, config=tmp_path / "server.toml", owner="fault-test", deal=deal
        )

    def boot(
        self, claim_window: float = 0.02, grace: float = 60.0, commit_wait: float = 0.0
    ) -> None:
        """Write the config and start; ready when /healthz answers."""
        text = SERVER_CONFIG.format(claim_window=claim_window, grace=grace, commit_wait=commit_wait)
        assert self.config is not None
        self.config.write_text(text, encoding="utf-8")
        self.start()
        self.wait_ready()


async def _answer_pending(client: Any, snapshot: dict[str, Any]) -> None:
    """Answer the decision a resumed snapshot left pending (a win, else a discard or pass)."""
    if snapshot["prompt"] is not None:
        legal = snapshot["prompt"]["legal"]
        move = next(a for a in legal if a["action"] in ("hu", "discard", "pass"))
        await client.send(type="act", **move)


def _assert_settled(database_url: str, hand_id: int, received: list[dict[str, Any]]) -> None:
    """No coin created or lost (balances equal the ledger, zero-sum), no match left live, and
    the finished hand's stored log begins with exactly what the seat was sent before the kill."""
    store = Store.open(database_url)
    try:
        audit = store.audit()
        assert audit.ok, audit
        assert store.live_matches() == []
        stored = store.hand_log(hand_id)
        assert stored.status == "finished"
        assert events_for(stored.events, 0)[: len(received)] == received
    finally:
        store.close()


@pytest.mark.parametrize("moment", ["turn", "claim_window", "commit_wait"])
def test_sigkill_mid_hand_then_restart_resumes_the_hand(
    database_url: str, tmp_path: Path, ws_client: Any, play: Any, moment: str
) -> None:
    """``turn``: killed while a player's turn is pending; ``claim_window``: killed inside the
    claim window after a discard (the engine has already gone on when nobody could claim);
    ``commit_wait``: killed right after a discard is sent to a server that holds each move up
    to 0.1 s for others to share its commit, so most often while the move waits: a move
    nobody was shown may be lost, what anybody was shown may not.
    The slow deal keeps every hand four steps from ready, so the hand is still on at ann's
    fifth decision whatever the random bots do."""
    server = _Server(database_url, tmp_path, "stacked_deals:slow")
    url, ws_url = server.url, server.ws_url
    waits = moment == "commit_wait"
    try:
        server.boot(
            claim_window=30.0 if moment == "claim_window" else 0.02,
            commit_wait=0.1 if waits else 0.0,
        )
        session = httpx.post(f"{url}/api/guest").json()
        token = session["token"]
        created = httpx.post(
            f"{url}/api/tables",
            json={"hands": 1, "bot": "random", "stake": 7, "claim_pause": "fixed"},
            headers={"Authorization": f"Bearer {token}"},
        ).json()

        async def before_kill() -> list[dict[str, Any]]:
            ann = await ws_client.connect(ws_url, token, name="before")
            await ann.send(type="join", code=created["code"])
            for seat in (1, 2, 3):
                await ann.send(type="add_bot", seat=seat)
            await ann.send(type="ready")
            snapshot = await ann.expect("snapshot")
            received = list(snapshot["events"])
            if moment in ("turn", "commit_wait"):
                for _ in range(4):  # a few decisions into the hand
                    prompt = await ann.expect("prompt")
                    move = next(a for a in prompt["legal"] if a["action"] in ("discard", "pass"))
                    await ann.send(type="act", **move)
                prompt = await ann.expect("prompt", lambda m: m["kind"] == "turn")
                if waits:  # the discard goes, and the kill follows it at once
                    move = next(a for a in prompt["legal"] if a["action"] == "discard")
                    await ann.send(type="act", **move)
            else:
                prompt = await ann.expect("prompt")  # the dealer's first discard
                move = next(a for a in prompt["legal"] if a["action"] == "discard")
                await ann.send(type="act", **move)
                await ann.expect(
                    "events", lambda m: any(e["type"] == "discard" for e in m["events"])
                )
            for message in ann.messages:
                if message["type"] == "events" and message["hand_id"] == snapshot["hand_id"]:
                    received.extend(message["events"])
            server.kill()
            return received

        received = asyncio.run(before_kill())
        assert any(e["type"] == "discard" and e["seat"] == 0 for e in received)

        server.boot(commit_wait=0.1 if waits else 0.0)

        async def after_restart() -> tuple[dict[str, Any], dict[str, Any]]:
            ann = await ws_client.connect(ws_url, token, name="after")
            snapshot = await ann.expect("snapshot")
            if moment == "turn":
                # exactly where it was: the same events, and ann's turn is pending again
                assert snapshot["events"] == received
                assert snapshot["prompt"] is not None and snapshot["prompt"]["kind"] == "turn"
            else:
                # what the window held back was stored and comes out now; a discard killed
                # while its commit waited was never shown: either way nothing seen is lost
                assert snapshot["events"][: len(received)] == received
            if snapshot["prompt"] is not None:
                legal = snapshot["prompt"]["legal"]
                move = next(a for a in legal if a["action"] in ("discard", "pass"))
                await ann.send(type="act", **move)
            hand_end = await play(ann, 4, until="hand_end")
            end = await ann.expect("match_end")
            await ann.close()
            return hand_end, end

        hand_end, end = asyncio.run(after_restart())
        assert end["reason"] == "completed" and end["hands_played"] == 1
        assert sum(end["coins"]) == 0
        me = httpx.get(f"{url}/api/me", headers={"Authorization": f"Bearer {token}"}).json()
        assert me["balance"] == 1000 + end["coins"][0]
    finally:
        server.stop()
    _assert_settled(database_url, hand_end["hand_id"], received)


def test_sigkill_after_a_win_in_a_bloody_room_resumes_with_the_winner_out_of_play(
    database_url: str, tmp_path: Path, ws_client: Any, play: Any
) -> None:
    """R53 and issue 9 §6 together: a 血戰 hand goes on after a win, so a restart can land in
    a hand that already has a winner. Killed while the hand waits for ann's turn after a win,
    the restarted server resumes that hand with the winner still out of play (their hand open,
    never prompted) and finishes the match with every balance equal to its ledger."""
    # the kill needs a hand in which somebody other than ann won while ann plays on: ann
    # deals the first hand and discards 5p to seat 1's 報聽 (a forced win, R26), then seats
    # 2 and 3 draw and it is ann's turn
    server = _Server(database_url, tmp_path, "stacked_deals:forced_win")
    url, ws_url = server.url, server.ws_url
    hands = 6
    try:
        server.boot()
        token = httpx.post(f"{url}/api/guest").json()["token"]
        created = httpx.post(
            f"{url}/api/tables",
            json={"hands": hands, "bot": "efficient", "rules": {"bloody_battle": True}},
            headers={"Authorization": f"Bearer {token}"},
        ).json()

        async def until_a_turn_after_a_win() -> tuple[int, list[dict[str, Any]]]:
            ann = await ws_client.connect(ws_url, token, name="before")
            await ann.send(type="join", code=created["code"])
            for seat in (1, 2, 3):
                await ann.send(type="add_bot", seat=seat)
            await ann.send(type="ready")
            won_in: set[int] = set()  # hands in which somebody has won
            while True:
                message = await ann.expect(
                    where=lambda m: m["type"] in ("prompt", "events", "hand_end"), timeout=60
                )
                assert message["type"] != "hand_end", "the first hand ended before ann's turn"
                if message["type"] == "events" and any(
                    e["type"] == "win" for e in message["events"]
                ):
                    won_in.add(message["hand_id"])
                if message["type"] == "prompt":
                    if message["kind"] == "turn" and message["hand_id"] in won_in:
                        break  # unanswered, ann's turn holds the hand where it is
                    legal = message["legal"]
                    move = next(
                        (a for a in legal if a["action"] == "hu"),
                        next(
                            (a for a in legal if a["action"] == "discard" and a["tile"] == "5p"),
                            next(a for a in legal if a["action"] in ("discard", "pass")),
                        ),
                    )
                    await ann.send(type="act", **move)
            hand_id = message["hand_id"]
            received: list[dict[str, Any]] = []
            for seen in ann.messages:
                if seen["type"] == "snapshot" and seen["hand_id"] == hand_id:
                    received = list(seen["events"])
                elif seen["type"] == "events" and seen["hand_id"] == hand_id:
                    received.extend(seen["events"])
            server.kill()
            return hand_id, received

        hand_id, received = asyncio.run(until_a_turn_after_a_win())
        winners = [e["seat"] for e in received if e["type"] == "win"]
        assert winners

        server.boot()

        async def after_restart() -> dict[str, Any]:
            ann = await ws_client.connect(ws_url, token, name="after")
            snapshot = await ann.expect("snapshot")
            # exactly where it was: the same events, ann's turn pending again
            assert snapshot["hand_id"] == hand_id
            assert snapshot["events"] == received
            assert snapshot["prompt"] is not None and snapshot["prompt"]["kind"] == "turn"
            view = snapshot["view"]
            assert snapshot["seat"] not in winners
            for seat in winners:  # R53: out of play, hand laid open
                assert view["won"][seat] and view["open_hands"][seat]
            await _answer_pending(ann, snapshot)
            end = await play(ann, 5, until="match_end")
            await ann.close()
            return end

        end = asyncio.run(after_restart())
        assert end["reason"] == "completed" and end["hands_played"] == hands
        assert sum(end["coins"]) == 0
    finally:
        server.stop()
    _assert_settled(database_url, hand_id, received)


def test_a_seat_that_escaped_stays_in_tuoguan_after_a_restart(
    database_url: str, tmp_path: Path, ws_client: Any, play: Any
) -> None:
    """R45 and issue 9 §4/§6: a player who escaped is played by the 托管 bot to the end of the
    match. The restarted server must know it: it neither waits for that player again nor,
    when they stay away past the grace period, charges them a second escape. The slow deal
    keeps the first hand on until bob has left (no win before his escape ends it)."""
    server = _Server(database_url, tmp_path, "stacked_deals:slow")
    url, ws_url = server.url, server.ws_url
    try:
        server.boot()
        ann_token = httpx.post(f"{url}/api/guest").json()["token"]
        bob_token = httpx.post(f"{url}/api/guest").json()["token"]
        created = httpx.post(
            f"{url}/api/tables",
            json={"hands": 2, "bot": "random"},
            headers={"Authorization": f"Bearer {ann_token}"},
        ).json()

        async def bob_escapes_then_kill() -> int:
            ann = await ws_client.connect(ws_url, ann_token, name="ann")
            bob = await ws_client.connect(ws_url, bob_token, name="bob")
            # one join answered before the next: two joins in flight race for seat 0
            for index, client in enumerate((ann, bob)):
                await client.send(type="join", code=created["code"])
                seated = await client.expect("table", lambda m: m["table"] is not None)
                assert seated["table"]["you"] == index
            for seat in (2, 3):
                await ann.send(type="add_bot", seat=seat)
            await ann.send(type="ready")
            await bob.send(type="ready")
            first = await ann.expect("snapshot")
            await bob.expect("snapshot")
            await bob.send(type="leave")  # during a hand: an escape at once (R45)
            hand_end = await play(ann, 3, until="hand_end")
            assert hand_end["result"] == "escape" and hand_end["hand_id"] == first["hand_id"]
            second = await ann.expect("snapshot", lambda m: m["hand_id"] != first["hand_id"])
            server.kill()
            return int(second["hand_id"])

        second_hand = asyncio.run(bob_escapes_then_kill())
        # a short grace after the restart (ann is back well within it): a seat wrongly
        # waiting for bob would let its turns run out and then charge him a second escape
        server.boot(grace=5.0)

        async def after_restart() -> dict[str, Any]:
            ann = await ws_client.connect(ws_url, ann_token, name="ann-after")
            table = await ann.expect("table")
            snapshot = await ann.expect("snapshot")
            assert snapshot["hand_id"] == second_hand
            bob_seat = table["table"]["seats"][1]
            assert bob_seat["tuoguan"] is True and bob_seat["connected"] is False
            await _answer_pending(ann, snapshot)
            end = await play(ann, 4, until="match_end")
            await ann.close()
            return end

        end = asyncio.run(after_restart())
        assert end["reason"] == "completed" and end["hands_played"] == 2
        # bob is free to sit elsewhere: the restarted server did not seat him at this table
        bob_me = httpx.get(f"{url}/api/me", headers={"Authorization": f"Bearer {bob_token}"})
        assert bob_me.status_code == 200
    finally:
        server.stop()
    store = Store.open(database_url)
    try:
        assert store.audit().ok
        log_of_second = store.hand_log(second_hand)
        assert log_of_second.status == "finished"
        assert not any(e["type"] == "escape" for e in log_of_second.events)
        assert log_of_second.result is not None and log_of_second.result["result"] != "escape"
    finally:
        store.close()
