"""REST input (issue 20 items 3, 7 and 17): every path and query parameter is checked with
bounds and refused with the documented error body; nothing answers 500, a traceback or
``{"detail": ...}``; a kept-alive connection survives a refusal; one kind of error, one code."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Callable
from typing import Any

import pytest

from duyun.server.store import AccountError, auth

# ------------------------------------------------------------------ helpers


@pytest.fixture
def live_server(shared_live_server: Any) -> Callable[[], Any]:
    """The module's one server per database: every test here sends requests that the server
    answers or refuses without changing anything another test reads (a server of its own
    for each of these 300 tests cost a minute of the suite in starts and stops)."""
    return lambda: shared_live_server


def _error(answer: Any, status: int, code: str) -> str:
    """The message of a documented error answer, after checking its status and code."""
    assert answer.status_code == status, (answer.status_code, answer.text)
    body = answer.json()
    assert set(body) == {"error"}, body
    assert body["error"]["code"] == code, body
    assert "Traceback" not in answer.text
    message: str = body["error"]["message"]
    assert message
    return message


def _raw_requests(url: str, requests: list[str]) -> list[tuple[int, bytes]]:
    """Send HTTP/1.1 requests one after another on ONE kept-alive socket; (status, body) each.

    A server that drops the connection after a refusal fails here with a closed socket."""
    host, port = url.removeprefix("http://").split(":")
    answers = []
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        stream = sock.makefile("rb")
        for request in requests:
            sock.sendall(request.encode())
            status_line = stream.readline()
            assert status_line, f"connection dropped after {len(answers)} answers"
            status = int(status_line.split()[1])
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
                assert not (name.lower() == "connection" and "close" in value.lower()), (
                    f"server closes the connection after {status}"
                )
            answers.append((status, stream.read(length)))
    return answers


# ------------------------------------------------------------------ item 3: parameters


@pytest.mark.parametrize("hand_id", ["-1", "0", str(10**23), str(2**63), "abc", "1.5", "%00"])
def test_bad_hand_ids_are_refused_with_400_not_500(live_server: Any, hand_id: str) -> None:
    server = live_server()
    token = server.guest()["token"]
    answer = server.http.get(f"/api/hands/{hand_id}/log", headers=server.auth(token))
    assert "hand_id" in _error(answer, 400, "bad_request")


def test_largest_hand_id_is_a_plain_not_found(live_server: Any) -> None:
    server = live_server()
    token = server.guest()["token"]
    answer = server.http.get(f"/api/hands/{2**63 - 1}/log", headers=server.auth(token))
    _error(answer, 404, "hand_not_found")


def test_a_refusal_keeps_the_kept_alive_connection(live_server: Any) -> None:
    """The old server answered 500 for these and then dropped the connection."""
    server = live_server()
    token = server.guest()["token"]
    auth_line = f"Authorization: Bearer {token}\r\n"
    get = "GET {} HTTP/1.1\r\nHost: test\r\n" + auth_line + "\r\n"
    answers = _raw_requests(
        server.url,
        [
            get.format("/api/hands/-1/log"),
            get.format(f"/api/hands/{10**23}/log"),
            get.format("/api/history?limit=99999999999999999999999"),
            get.format("/api/me"),
        ],
    )
    assert [status for status, _ in answers] == [400, 400, 400, 200]
    for _, body in answers[:3]:
        assert json.loads(body)["error"]["code"] == "bad_request"


@pytest.mark.parametrize(
    ("path", "limit"),
    [
        ("/api/history", "0"),
        ("/api/history", "201"),
        ("/api/history", "-5"),
        ("/api/history", "x"),
        ("/api/history", str(10**30)),
        ("/api/ledger", "0"),
        ("/api/ledger", "1001"),
        ("/api/ledger", "1e3"),
    ],
)
def test_limits_outside_their_documented_range_are_refused(
    live_server: Any, path: str, limit: str
) -> None:
    server = live_server()
    token = server.guest()["token"]
    answer = server.http.get(path, params={"limit": limit}, headers=server.auth(token))
    assert "limit" in _error(answer, 400, "bad_request")


def test_limits_inside_their_range_answer(live_server: Any) -> None:
    server = live_server()
    headers = server.auth(server.guest()["token"])
    assert server.http.get("/api/history?limit=200", headers=headers).status_code == 200
    assert server.http.get("/api/ledger?limit=1000", headers=headers).status_code == 200
    assert server.http.get("/api/ledger?limit=1", headers=headers).json()["rows"]


@pytest.mark.parametrize("code", ["12345", "1234567", "abcdef", "12345a", "-12345", "１２３４５６"])
def test_table_codes_must_be_six_digits(live_server: Any, code: str) -> None:
    server = live_server()
    assert "code" in _error(server.http.get(f"/api/tables/{code}"), 400, "bad_request")


def test_unknown_paths_and_methods_answer_the_error_body(live_server: Any) -> None:
    server = live_server()
    _error(server.http.get("/api/nothing-here"), 404, "not_found")
    _error(server.http.delete("/api/rooms"), 405, "method_not_allowed")


def test_an_unparseable_body_answers_the_error_body_not_detail(live_server: Any) -> None:
    server = live_server()
    for body in (b"{", b"\xff\xfe", b"[1, 2", b"null", b'"text"', b'{"name": NaN}'):
        answer = server.http.post(
            "/api/login", content=body, headers={"Content-Type": "application/json"}
        )
        _error(answer, 400, "bad_request")
    answer = server.http.post(
        "/api/login", content=b"{", headers={"Content-Type": "application/json"}
    )
    assert "not valid JSON" in _error(answer, 400, "bad_request")


@pytest.mark.parametrize(
    "body",
    [
        {"stake": "5"},
        {"hands": "8"},
        {"bots_allowed": "no"},
        {"listed": 1},
        {"spectators": "yes"},
        {"stake": 5.5},
        {"stake": 10**30},
        {"bot": "x" * 65},
        {"surprise": True},
    ],
)
def test_create_table_refuses_wrong_types_instead_of_converting(
    live_server: Any, body: dict[str, Any]
) -> None:
    server = live_server()
    token = server.guest()["token"]
    answer = server.http.post("/api/tables", json=body, headers=server.auth(token))
    _error(answer, 400, "bad_request")
    assert not server.manager.tables


# ------------------------------------------------------------------ item 7: one code per error


@pytest.mark.parametrize("length", [2, 21, 40, 64, 65, 300])
def test_every_bad_name_length_is_bad_account(live_server: Any, length: int) -> None:
    server = live_server()
    answer = server.http.post(
        "/api/register", json={"name": "n" * length, "password": "long enough pw"}
    )
    assert "3 to 20 characters" in _error(answer, 400, "bad_account")


@pytest.mark.parametrize("password", ["short", "p" * 129, "p" * 300, "p" * 5000])
def test_every_bad_password_length_is_bad_account(live_server: Any, password: str) -> None:
    server = live_server()
    answer = server.http.post("/api/register", json={"name": "meimei", "password": password})
    assert "8 to 128" in _error(answer, 400, "bad_account")


@pytest.mark.parametrize("name", ["n" * 21, "n" * 65, "n" * 300])
def test_a_login_with_an_impossible_name_is_just_a_bad_login(live_server: Any, name: str) -> None:
    server = live_server()
    answer = server.http.post("/api/login", json={"name": name, "password": "p" * 300})
    _error(answer, 401, "bad_login")


# ------------------------------------------------------------------ item 17: lookalike names


@pytest.mark.parametrize(
    "name",
    [
        "\u0430dmin",  # Cyrillic а + Latin
        "\u0430\u0501\u043c\u0456\u043f",  # all Cyrillic, looks like admin
        "guest_123456",
        "GUEST_654321",
        "ＡＤＭＩＮ",  # fullwidth
        "h0use",
        "Hóuse",
        "system",
        "b\u043et_x",  # Cyrillic о in bot
        "b0t-mei",
    ],
)
def test_names_imitating_reserved_ones_are_refused(live_server: Any, name: str) -> None:
    server = live_server()
    answer = server.http.post("/api/register", json={"name": name, "password": "long enough pw"})
    _error(answer, 400, "bad_account")


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Al\u0438\u0441\u0430", "different scripts"),  # Latin + Cyrillic
        ("\u03b1lpha", "different scripts"),  # Greek α + Latin
        ("x\u0338\u0338y", "not allowed"),  # stacked combining marks
        ("١٢٣abc", "not allowed"),  # Arabic-Indic digits
    ],
)
def test_mixed_scripts_and_odd_characters_are_refused(name: str, why: str) -> None:
    with pytest.raises(AccountError, match=why):
        auth.validate_name(name)


@pytest.mark.parametrize(
    "name", ["王小明", "Алиса", "José", "Mei王", "さくら_99", "김민준", "lin-99"]
)
def test_real_names_of_one_script_family_are_accepted(name: str) -> None:
    assert auth.validate_name(name) == name


def test_skeleton_maps_lookalikes_to_latin() -> None:
    assert auth.skeleton("\u0430dm\u0456n") == auth.skeleton("ADMIN") == "admin"
    assert auth.skeleton("guest_1") == "guest-l"


# ------------------------------------------------------------------ item 17: headers


def test_the_page_and_the_api_carry_security_headers(live_server: Any) -> None:
    server = live_server()
    for path in ("/", "/api/rooms", "/static/js/main.js", "/api/nothing"):
        answer = server.http.get(path)
        policy = answer.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy, path
        assert "unsafe-eval" not in policy
        assert answer.headers.get("x-content-type-options") == "nosniff"
        assert answer.headers.get("referrer-policy") == "no-referrer"
    assert server.http.get("/api/rooms").headers.get("cache-control") == "no-store"


def test_the_page_has_no_inline_script_that_the_policy_would_block() -> None:
    """script-src 'self': every script of the page must be an external same-origin file."""
    from duyun.server.app import STATIC_DIR

    page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    scripts = page.split("<script")[1:]
    assert scripts and all('src="/static/' in s.split(">")[0] for s in scripts)
    assert not re.search(r"\son\w+\s*=", page)  # no onload=/onclick= handlers
    for js in (STATIC_DIR / "js").glob("*.js"):
        text = js.read_text(encoding="utf-8")
        assert "eval(" not in text and "new Function" not in text, js.name


@pytest.mark.parametrize("hand_id", [2**31 - 1, 2**31, 2**62])
def test_ids_beyond_the_id_column_are_not_found_on_every_database(
    live_server: Any, hand_id: int
) -> None:
    """PostgreSQL's INTEGER ids end at 2**31-1; a larger id is simply no hand (not a 500)."""
    server = live_server()
    token = server.guest()["token"]
    answer = server.http.get(f"/api/hands/{hand_id}/log", headers=server.auth(token))
    _error(answer, 404, "hand_not_found")


def test_an_unexpected_fault_is_a_json_500_without_traceback_and_keeps_the_connection(
    live_server: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    server = live_server()
    token = server.guest()["token"]

    def broken(*_args: Any) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(server.store, "history", broken)
    get = "GET {} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer " + token + "\r\n\r\n"
    answers = _raw_requests(server.url, [get.format("/api/history"), get.format("/api/me")])
    assert [status for status, _ in answers] == [500, 200]
    body = json.loads(answers[0][1])
    assert body == {"error": {"code": "internal", "message": body["error"]["message"]}}
    assert b"secret internals" not in answers[0][1] and b"Traceback" not in answers[0][1]
    assert any("secret internals" in r.getMessage() or r.exc_info for r in caplog.records)
