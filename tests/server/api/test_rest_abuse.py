"""Abuse of the REST surface (issue 20 items 11, 13, 14, 15 and 17), with small configured limits
so that every test runs in a second or two: body sizes, creations and code lookups per address,
open tables per account, who may watch a private table, the login limit behind a proxy,
cross-site requests, and logging out."""

from __future__ import annotations

import asyncio
import logging
import select
import socket
from pathlib import Path
from typing import Any

import pytest

from duyun.server.limits import LimitExceeded, SlidingWindow


def _error(answer: Any, status: int, code: str) -> str:
    assert answer.status_code == status, (answer.status_code, answer.text)
    body = answer.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    message: str = body["error"]["message"]
    return message


def _accounts(server: Any) -> int:
    return len(server.store.accounts(limit=10_000))


def _read_answer(sock: socket.socket) -> str:
    """One whole HTTP answer (headers and a Content-Length body) from a raw socket."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = sock.recv(65536)
        assert more, f"connection closed after {data!r}"
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length:")
    )
    while len(body) < length:
        more = sock.recv(65536)
        assert more, "connection closed inside the body"
        body += more
    return (head + b"\r\n\r\n" + body).decode()


def _rss_bytes() -> int:
    """This process's resident memory now (the live server runs in it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


# ------------------------------------------------------------------ item 11: body size


def test_a_declared_large_body_is_refused_before_it_is_sent(live_server: Any) -> None:
    server = live_server(max_body_bytes=4096)
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            b"POST /api/register HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Content-Length: 200000000\r\n\r\n"
        )  # no body at all: the answer must come from the headers alone
        answer = _read_answer(sock)
    assert answer.startswith("HTTP/1.1 413"), answer
    assert '"too_large"' in answer and "4096" in answer


def test_a_chunked_body_is_counted_as_it_streams_and_does_not_grow_the_process(
    live_server: Any,
) -> None:
    """The old server read 200 MB whole (138 MB → 741 MB) before refusing it. Now the count
    stops the read past the limit: sending 64 MiB grows the process by far less than that."""
    server = live_server(max_body_bytes=16 * 1024)
    host, port = server.url.removeprefix("http://").split(":")
    chunk = b"x" * 65536
    frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
    before = _rss_bytes()
    sent = 0
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(
            b"POST /api/register HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        try:
            while sent < 64 * 1024 * 1024 and not select.select([sock], [], [], 0)[0]:
                sock.sendall(frame)
                sent += len(chunk)
        except OSError:  # refused and closed: the server stopped reading
            pass
        answer = _read_answer(sock)
    assert answer.startswith("HTTP/1.1 413"), answer[:200]
    assert '"too_large"' in answer
    assert sent < 64 * 1024 * 1024, "the server read the whole 64 MiB body"
    assert _rss_bytes() - before < 32 * 1024 * 1024


def test_bodies_under_the_limit_still_work(live_server: Any) -> None:
    server = live_server(max_body_bytes=1024)
    body = {"name": "meimei", "password": "p" * 100}
    assert server.http.post("/api/register", json=body).status_code == 200


# ------------------------------------------------------------------ item 17: cross-site requests


def test_a_cross_site_text_plain_post_creates_no_guest(live_server: Any) -> None:
    server = live_server()
    before = _accounts(server)
    plain = server.http.post("/api/guest", content=b"{}", headers={"Content-Type": "text/plain"})
    assert "application/json" in _error(plain, 415, "bad_content_type")
    form = server.http.post(
        "/api/guest",
        content=b"a=b",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    _error(form, 415, "bad_content_type")
    foreign = server.http.post("/api/guest", json={}, headers={"Origin": "https://evil.example"})
    _error(foreign, 403, "bad_origin")
    assert _accounts(server) == before
    # our own page (same origin) and non-browser clients (no Origin, no body) are served
    own = server.http.post("/api/guest", json={}, headers={"Origin": server.url})
    assert own.status_code == 200
    assert server.http.post("/api/guest").status_code == 200


# ------------------------------------------------------------------ item 13: per-address limits


def test_guest_creation_is_rate_limited_per_address(live_server: Any) -> None:
    server = live_server(guests_per_minute=3)
    for _ in range(3):
        server.guest()
    before = _accounts(server)
    refused = server.http.post("/api/guest")
    message = _error(refused, 429, "rate_limited")
    assert "guest accounts" in message and "try again in" in message
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert _accounts(server) == before
    # another address (through the trusted local proxy) has its own budget
    other = server.http.post("/api/guest", headers={"X-Forwarded-For": "203.0.113.7"})
    assert other.status_code == 200


def test_registration_is_rate_limited_per_address(live_server: Any) -> None:
    server = live_server(registrations_per_minute=2)
    for i in range(2):
        body = {"name": f"user{i}", "password": "long enough pw"}
        assert server.http.post("/api/register", json=body).status_code == 200
    refused = server.http.post("/api/register", json={"name": "user9", "password": "pw123456!"})
    assert "registrations" in _error(refused, 429, "rate_limited")
    assert "retry-after" in refused.headers


def test_table_creation_is_rate_limited_and_open_tables_are_capped(
    live_server: Any, ws_client: Any
) -> None:
    """Issue 20 item 13: one account holds at most open_tables_per_account private tables
    open, here two, each with a friend sitting at it; creations are rate-limited per
    address."""
    server = live_server(tables_per_minute=3, open_tables_per_account=2)
    ann, bob, cat = server.guest(), server.guest(), server.guest()

    async def main() -> None:
        codes, friends = [], []
        for friend in (bob, cat):
            codes.append(await create(server, ann))
            friends.append(await sit(server, ws_client, friend, codes[-1]))
        capped = await asyncio.to_thread(
            server.http.post, "/api/tables", json={}, headers=server.auth(ann["token"])
        )
        message = _error(capped, 409, "too_many_tables")
        assert "limit is 2" in message and all(code in message for code in codes)
        assert sorted(server.manager.tables) == sorted(codes)  # none closed to make room
        await create(server, bob)  # the cap is per account; the rate is per address
        refused = await asyncio.to_thread(
            server.http.post, "/api/tables", json={}, headers=server.auth(bob["token"])
        )
        assert "tables created" in _error(refused, 429, "rate_limited")
        assert len(server.manager.tables) == 3
        for client in friends:
            await client.close()

    asyncio.run(main())


def test_a_hosts_empty_tables_make_room_for_a_new_one(live_server: Any, ws_client: Any) -> None:
    """A table its host left with nobody at it (nor a join on its way) would close by itself
    after 10 minutes, and counted toward the cap until then: a host who opened tables and
    left them (or whose join expired on a dropped connection) was refused a new one. At the
    cap, the oldest empty one now closes for the new one; one a friend sits at stays."""
    server = live_server(tables_per_minute=0, open_tables_per_account=2)
    ann, bob = server.guest(), server.guest()

    def tables() -> list[str]:
        return sorted(server.manager.tables)

    async def main() -> None:
        first, second = await create(server, ann), await create(server, ann)  # nobody sat
        third = await create(server, ann)
        assert tables() == sorted([second, third])  # the oldest closed
        looked = await asyncio.to_thread(server.http.get, f"/api/tables/{first}")
        _error(looked, 404, "table_not_found")
        friend = await sit(server, ws_client, bob, third)
        fourth = await create(server, ann)
        assert tables() == sorted([third, fourth])  # bob's table stays
        server.manager.tables[fourth].expect_join()  # a join on its way to the empty one
        capped = await asyncio.to_thread(
            server.http.post, "/api/tables", json={}, headers=server.auth(ann["token"])
        )
        assert all(code in _error(capped, 409, "too_many_tables") for code in (third, fourth))
        await friend.close()

    asyncio.run(main())


async def create(server: Any, session: dict[str, Any]) -> str:
    """A private table created over REST by ``session``; its code."""
    made = await asyncio.to_thread(
        server.http.post, "/api/tables", json={}, headers=server.auth(session["token"])
    )
    assert made.status_code == 201, made.text
    return str(made.json()["code"])


async def sit(server: Any, ws_client: Any, session: dict[str, Any], code: str) -> Any:
    """``session`` joins table ``code`` over the websocket and stays connected (a waiting
    table lets a dropped seat go); its client."""
    client = await ws_client.connect(server.ws_url, session["token"])
    await client.send(type="join", code=code)
    await client.expect("table", lambda m: m["table"] is not None and m["table"]["code"] == code)
    return client


def test_code_lookups_are_rate_limited_over_rest_and_websocket(
    live_server: Any, ws_client: Any
) -> None:
    """Probing 6-digit codes (3,000 probes found 7 of 2,000 tables) is slowed to a budget
    shared by GET /api/tables/{code} and the websocket join/spectate."""
    server = live_server(code_lookups_per_minute=3)
    session = server.guest()
    for code in ("000001", "000002"):
        _error(server.http.get(f"/api/tables/{code}"), 404, "table_not_found")

    async def main() -> list[dict[str, Any]]:
        client = await ws_client.connect(server.ws_url, session["token"])
        await client.send(type="join", code="000003", rid="a")
        await client.send(type="spectate", code="000004", rid="b")
        first = await client.expect("error", lambda m: m.get("rid") == "a")
        second = await client.expect("error", lambda m: m.get("rid") == "b")
        await client.close()
        return [first, second]

    first, second = asyncio.run(main())
    assert first["code"] == "table_not_found"
    assert second["code"] == "rate_limited" and "table-code lookups" in second["message"]
    refused = server.http.get("/api/tables/000005")
    _error(refused, 429, "rate_limited")
    assert int(refused.headers["retry-after"]) >= 1


def test_sliding_window_lets_requests_through_again_after_the_window() -> None:
    now = [100.0]
    window = SlidingWindow("things", 2, window=60.0, clock=lambda: now[0])
    window.hit("a")
    now[0] += 10
    window.hit("a")
    with pytest.raises(LimitExceeded) as refused:
        window.hit("a")
    assert refused.value.retry_after == pytest.approx(50.0)
    assert "try again in 50 s" in str(refused.value)
    window.hit("b")  # other addresses are not affected
    now[0] += 50.5
    window.hit("a")  # the first one left the window
    unlimited = SlidingWindow("things", 0)
    for _ in range(1000):
        unlimited.hit("a")


def test_sliding_window_forgets_idle_addresses() -> None:
    now = [0.0]
    window = SlidingWindow("things", 5, window=60.0, clock=lambda: now[0])
    for i in range(5000):
        window.hit(f"10.0.{i // 256}.{i % 256}")
    now[0] += 61
    window.hit("fresh")
    assert len(window) < 5000


# ------------------------------------------------------------------ item 13: spectators


def test_strangers_may_watch_a_private_table_only_if_the_host_allows(
    live_server: Any, ws_client: Any
) -> None:
    server = live_server()
    host, stranger = server.guest(), server.guest()
    headers = server.auth(host["token"])
    closed = server.http.post("/api/tables", json={}, headers=headers).json()
    opened = server.http.post("/api/tables", json={"spectators": True}, headers=headers).json()
    assert closed["table"]["spectators_allowed"] is False
    assert opened["table"]["spectators_allowed"] is True
    assert server.http.get(f"/api/tables/{closed['code']}").json()["spectators_allowed"] is False

    async def main() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        watcher = await ws_client.connect(server.ws_url, stranger["token"])
        await watcher.send(type="spectate", code=closed["code"], rid="closed")
        refused = await watcher.expect("error", lambda m: m.get("rid") == "closed")
        await watcher.send(type="spectate", code=opened["code"])
        watching = await watcher.expect("table")
        owner = await ws_client.connect(server.ws_url, host["token"])
        await owner.send(type="spectate", code=closed["code"])  # the host may watch
        hosting = await owner.expect("table")
        await watcher.close()
        await owner.close()
        return refused, watching, hosting

    refused, watching, hosting = asyncio.run(main())
    assert refused["code"] == "no_spectators" and "does not allow" in refused["message"]
    assert watching["table"]["code"] == opened["code"] and watching["table"]["you"] is None
    assert hosting["table"]["code"] == closed["code"]


# ------------------------------------------------------------------ item 14: behind a proxy


def _wrong_logins(server: Any, address: str, count: int, first: int = 0) -> None:
    """Wrong logins on distinct names (so only the per-address limit can bite)."""
    for i in range(first, first + count):
        answer = server.http.post(
            "/api/login",
            json={"name": f"nobody{i}", "password": "wrong password"},
            headers={"X-Forwarded-For": address},
        )
        assert answer.status_code == 401, answer.text


def test_behind_a_trusted_proxy_one_address_cannot_lock_out_another(live_server: Any) -> None:
    """20 wrong logins from one forwarded address (the per-address limit) leave a correct login
    from another forwarded address alone; the first address is refused."""
    server = live_server(forwarded_allow_ips="127.0.0.1")
    body = {"name": "carol", "password": "carol's password"}
    assert server.http.post("/api/register", json=body).status_code == 200
    _wrong_logins(server, "203.0.113.5", 20)
    blocked = server.http.post("/api/login", json=body, headers={"X-Forwarded-For": "203.0.113.5"})
    _error(blocked, 429, "rate_limited")
    other = server.http.post("/api/login", json=body, headers={"X-Forwarded-For": "198.51.100.9"})
    assert other.status_code == 200, other.text
    # a chain of proxies: the client is the address nearest the trusted proxy
    chained = server.http.post(
        "/api/login", json=body, headers={"X-Forwarded-For": "203.0.113.5, 198.51.100.10"}
    )
    assert chained.status_code == 200, chained.text


def test_an_untrusted_peer_cannot_spoof_its_address(live_server: Any) -> None:
    """This peer (127.0.0.1) is not in forwarded_allow_ips: its X-Forwarded-For is ignored, so
    changing the header on every attempt does not escape the per-address limit."""
    server = live_server(forwarded_allow_ips="192.0.2.1")
    body = {"name": "carol", "password": "carol's password"}
    assert server.http.post("/api/register", json=body).status_code == 200
    for i in range(20):
        _wrong_logins(server, f"203.0.113.{i}", 1, first=i)
    spoofed = server.http.post("/api/login", json=body, headers={"X-Forwarded-For": "198.51.100.9"})
    _error(spoofed, 429, "rate_limited")


# ------------------------------------------------------------------ item 15: logout


def test_a_logged_out_token_is_refused_everywhere(
    live_server: Any, ws_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server = live_server()
    body = {"name": "dora", "password": "dora's password"}
    assert server.http.post("/api/register", json=body).status_code == 200
    first = server.http.post("/api/login", json=body).json()["token"]
    second = server.http.post("/api/login", json=body).json()["token"]
    assert first != second

    async def open_socket() -> Any:
        return await ws_client.connect(server.ws_url, first)

    async def main() -> tuple[Any, dict[str, Any]]:
        live = await open_socket()
        answer = await asyncio.to_thread(
            server.http.post, "/api/logout", headers=server.auth(first)
        )
        assert answer.status_code == 200 and answer.json()["everywhere"] is False
        closing = await live.expect("error")
        await asyncio.wait_for(live.ws.wait_closed(), 10)
        assert live.ws.close_code == 4005  # logged out: a client must not reconnect
        await live.close()
        again = await ws_client.connect(server.ws_url)
        await again.send(type="hello", version=1, token=first)
        refused = await again.expect("error")
        await again.close()
        return closing, refused

    closing, refused = asyncio.run(main())
    assert closing["code"] == "unauthorized"
    assert refused["code"] == "unauthorized" and "logged out" in refused["message"]
    assert "logged out" in _error(
        server.http.get("/api/me", headers=server.auth(first)), 401, "unauthorized"
    )
    _error(server.http.post("/api/logout", headers=server.auth(first)), 401, "unauthorized")
    # the other session is untouched until "log out everywhere"
    assert server.http.get("/api/me", headers=server.auth(second)).status_code == 200
    everywhere = server.http.post(
        "/api/logout", json={"everywhere": True}, headers=server.auth(second)
    )
    assert everywhere.json() == {"logged_out": True, "everywhere": True}
    _error(server.http.get("/api/me", headers=server.auth(second)), 401, "unauthorized")
    third = server.http.post("/api/login", json=body).json()["token"]
    assert server.http.get("/api/me", headers=server.auth(third)).status_code == 200
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert not any(token in logged for token in (first, second, third))


def test_revoked_tokens_are_kept_only_until_they_would_expire(store: Any) -> None:
    from duyun.server.store.models import RevokedTokenRow

    account = store.create_guest()
    token = store.issue_token(account.id)
    store.revoke_token(token)
    with store._session() as session:
        rows = session.query(RevokedTokenRow).all()
        assert len(rows) == 1 and token not in rows[0].token_hash  # a digest, not the token
        rows[0].expires = 0.0  # as if the token had expired long ago
    store.revoke_token(store.issue_token(account.id))  # a later logout sweeps it
    with store._session() as session:
        assert session.query(RevokedTokenRow).count() == 1


def test_serve_passes_the_trusted_proxies_to_uvicorn(
    serve_configs: list[Any], tmp_path: Path
) -> None:
    """``--forwarded-allow-ips`` (or config ``forwarded_allow_ips``) reaches uvicorn with
    ``proxy_headers`` on: without it the documented proxy makes every player 127.0.0.1."""
    from typer.testing import CliRunner

    from duyun.cli.main import app

    database = f"sqlite:///{tmp_path}/serve.db"
    config = tmp_path / "server.toml"
    config.write_text('forwarded_allow_ips = "10.0.0.0/8"\n', encoding="utf-8")
    runner = CliRunner()
    for extra, expected in (
        ([], "127.0.0.1"),
        (["--config", str(config)], "10.0.0.0/8"),
        (
            ["--config", str(config), "--forwarded-allow-ips", "192.0.2.1,192.0.2.2"],
            "192.0.2.1,192.0.2.2",
        ),
    ):
        result = runner.invoke(app, ["serve", "--database-url", database, "--port", "0", *extra])
        assert result.exit_code == 0, result.output
        assert serve_configs[-1].proxy_headers is True
        assert serve_configs[-1].forwarded_allow_ips == expected


def test_refused_registrations_do_not_use_up_the_budget(live_server: Any) -> None:
    """Only a registration that will hash a password counts: typing a too-short password a few
    times does not lock a person out of registering."""
    server = live_server(registrations_per_minute=1)
    for _ in range(5):
        bad = server.http.post("/api/register", json={"name": "erin", "password": "short"})
        _error(bad, 400, "bad_account")
    good = server.http.post("/api/register", json={"name": "erin", "password": "long enough"})
    assert good.status_code == 200, good.text
