"""The part that must never break (issue 9, "Beyond one machine"): two ``duyun serve``
processes on ONE PostgreSQL database, playing matches at the same time with the SAME accounts,
end with every balance equal to its ledger and the ledger summing to zero (R41).

Also: both processes migrate the empty database at the same moment (the advisory lock), a
token issued by one process is accepted by the other (the secret lives in the database), and
each process restores and holds only its own matches (leases, docs/deploy.md).

Skipped, with the reason, when DUYUN_TEST_POSTGRES_URL is unset (.ci/run sets it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from duyun.server.store import Store
from serve_process import TEST_SERVER_BASICS, ServeProcess

pytestmark = pytest.mark.slow  # whole matches or server processes

CONFIG = f"""
claim_window = 0.02
claim_beat = 0.02
bot_delay = 0.005
bot_delay_max = 0.005
next_hand_wait = 0.05
next_hand_limit = 0.05
bot_fill_wait = 0.05
turn_timer = 10.0
reconnect_grace = 10.0
default_bot = "efficient"
# a dead process's matches are adopted within seconds, not the production 30 + 10 s; still
# long enough that a process slowed by a busy machine keeps its own (docs/deploy.md "Leases")
lease_seconds = 8.0
lease_renew_every = 1.0
starting_balance = 1000
{TEST_SERVER_BASICS}"""


@pytest.fixture
def two_servers(fresh_postgres_url: str, tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    config = tmp_path / "serve.toml"
    config.write_text(CONFIG, encoding="utf-8")
    # both start on the empty database at once: migrations serialise on the advisory lock
    processes = [
        ServeProcess(fresh_postgres_url, config=config, owner=owner, log_level="info").start()
        for owner in ("proc-a", "proc-b")
    ]
    try:
        for process in processes:
            process.wait_ready()
        yield fresh_postgres_url, [p.url for p in processes]
    finally:
        for process in processes:
            process.stop()


def _post(url: str, path: str, token: str | None = None, **body: Any) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = httpx.post(f"{url}{path}", json=body, headers=headers, timeout=10)
    assert answer.status_code in (200, 201), answer.text
    data: dict[str, Any] = answer.json()
    return data


def test_two_processes_one_postgres_same_accounts_balances_equal_ledger_r41(
    two_servers: tuple[str, list[str]], ws_client: Any, play: Callable[..., Any]
) -> None:
    database_url, (url_a, url_b) = two_servers
    ann = _post(url_a, "/api/register", name="Ann", password="ann password")
    bob = _post(url_b, "/api/register", name="Bob", password="bob password")
    cy = _post(url_a, "/api/guest")
    # a token from one process is good on the other: the signing secret is in the database
    assert (
        httpx.get(
            f"{url_b}/api/me", headers={"Authorization": f"Bearer {ann['token']}"}
        ).status_code
        == 200
    )

    # the same two accounts sit at a table on each process, both tables playing at once
    tables = [
        (
            url_a,
            _post(url_a, "/api/tables", ann["token"], stake=1, hands=3, bot="random")["code"],
            [ann, bob],
        ),
        (
            url_b,
            _post(url_b, "/api/tables", bob["token"], stake=2, hands=3, bot="random")["code"],
            [bob, ann],
        ),
    ]

    async def run_table(
        url: str, code: str, players: list[dict[str, Any]], seed: int
    ) -> list[tuple[int, dict[str, Any]]]:
        ws_url = url.replace("http://", "ws://") + "/ws"
        clients = []
        for i, player in enumerate(players):
            client = await ws_client.connect(ws_url, player["token"], name=f"{code}-{i}")
            await client.send(type="join", code=code)
            await client.expect("table", lambda m, i=i: bool(m["table"]) and m["table"]["you"] == i)
            clients.append(client)
        await clients[0].send(type="add_bot", seat=2)
        await clients[0].send(type="add_bot", seat=3)
        for client in clients:
            await client.send(type="ready")
        ends = await asyncio.gather(
            *(play(c, seed + i, timeout=120) for i, c in enumerate(clients))
        )
        for client in clients:
            await client.close()
        return [(players[i]["account"]["id"], end) for i, end in enumerate(ends)]

    async def main() -> list[list[tuple[int, dict[str, Any]]]]:
        return list(
            await asyncio.gather(
                *(run_table(u, c, p, 10 * n) for n, (u, c, p) in enumerate(tables))
            )
        )

    results = asyncio.run(main())

    store = Store.open(database_url)
    try:
        audit = store.audit()
        assert audit.ok, audit
        assert audit.rows > 0
        expected = {ann["account"]["id"]: 1000, bob["account"]["id"]: 1000}
        for table_result in results:
            end = table_result[0][1]
            assert end["reason"] == "completed" and end["hands_played"] == 3
            assert all(e == end for _, e in table_result)  # every seat saw the same result
            assert sum(end["coins"]) == 0
            for seat, (account_id, _) in enumerate(table_result):
                expected[account_id] += end["coins"][seat]
        for account_id, balance in expected.items():
            account = store.account(account_id)
            assert account.balance == balance, (account, expected)
            ledger = store.coin_ledger(account_id, limit=10_000)
            assert balance == sum(r.coins if r.payee == account_id else -r.coins for r in ledger)
            assert {m.status for m in store.history(account_id)} == {"completed"}
        assert store.account(cy["account"]["id"]).balance == 1000
        # both processes settled every hand of their match: nothing left live, and each
        # account's history holds both matches with all three hands finished (whether the
        # house paid or received in them depends on the play, so it is not asserted)
        assert store.live_matches() == []
        for account_id in expected:
            records = store.history(account_id)
            assert len(records) == 2
            for record in records:
                assert [h.status for h in record.hand_records] == ["finished"] * 3
            # two people sat at each private table: both matches were rated, each once, by the
            # process that played it (issue 32)
            assert store.account(account_id).rated_matches == 2
            assert len(store.profile(account_id).history) == 2
    finally:
        store.close()
