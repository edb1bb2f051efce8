"""``duyun admin`` as an operator runs it: grant, balance, ledger, accounts, audit, house net."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from duyun.cli.main import app
from duyun.engine import Payment
from duyun.server.store import MatchSpec, SeatSpec, Store
from duyun.server.store.database import normalize_url

runner = CliRunner()
MakeStore = Callable[..., Store]


def admin(url: str, *args: str) -> tuple[int, str]:
    command, *rest = args
    result = runner.invoke(app, ["admin", command, "--database-url", url, *rest])
    return result.exit_code, result.output


@pytest.fixture
def played(database_url: str, make_store: MakeStore) -> tuple[str, Store, int]:
    """A database with a user, a guest and one settled hand against bots (stake 10)."""
    store = make_store(database_url)
    user = store.register("Mei", "plum blossom")
    guest = store.create_guest()
    match = store.create_match(
        MatchSpec(
            kind="room",
            room="junior",
            stake=10,
            hands=1,
            seats=(SeatSpec(user.id), SeatSpec(guest.id), SeatSpec(None, "strong"), SeatSpec(None)),
            seed=1,
        )
    )
    hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    store.finish_hand(
        hand,
        [
            Payment(payer=2, payee=0, fan=2, points=12, rule="R28", reason="fed"),
            Payment(payer=1, payee=3, fan=1, points=6, rule="R29", reason="self-draw"),
        ],
        {"result": "win"},
    )
    return database_url, store, user.id


def test_grant_then_balance_and_ledger(played: tuple[str, Store, int]) -> None:
    url, store, user = played
    code, output = admin(url, "grant", "mei", "1,500", "--note", "tournament prize")
    assert code == 0, output
    assert "granted 1500 coins to Mei" in output
    assert store.account(user).balance == 1000 + 120 + 1500
    code, output = admin(url, "balance", f"#{user}", "--json")
    assert code == 0 and json.loads(output)["balance"] == 2620
    code, output = admin(url, "ledger", "Mei", "--json")
    rows = json.loads(output)["rows"]
    assert [(r["coins"], r["kind"], r["note"]) for r in rows] == [
        (1500, "grant", "tournament prize"),
        (120, "hand", "fed"),
        (1000, "starting", "welcome"),
    ]
    code, output = admin(url, "ledger", "Mei")
    assert code == 0 and "+1500" in output and "welcome" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("grant", "nobody", "10"), "unknown player 'nobody'"),
        (("grant", "Mei", "0"), "greater than 0"),
        (("grant", "Mei", "--", "-5"), "greater than 0"),
        (("grant", "Mei", "ten"), "whole number"),
        (("grant", "house", "10"), "house"),
        (("balance", "#999"), "unknown player '#999'"),
        (("ledger", "ghost"), "unknown player"),
        (("accounts", "--kind", "robot"), "--kind must be"),
    ],
)
def test_clear_errors(played: tuple[str, Store, int], args: tuple[str, ...], message: str) -> None:
    url, store, user = played
    before = store.audit()
    code, output = admin(url, *args)
    assert code == 2, output
    assert message in output
    assert "Traceback" not in output
    assert store.audit() == before and store.account(user).balance == 1120


def test_accounts_audit_and_house(played: tuple[str, Store, int]) -> None:
    url, _, _ = played
    code, output = admin(url, "accounts", "--json")
    listed = json.loads(output)
    assert [a["kind"] for a in listed] == ["house", "user", "guest"]
    assert sum(a["balance"] for a in listed) == 0
    code, output = admin(url, "accounts", "--kind", "user")
    assert code == 0 and "Mei" in output and "guest-" not in output
    code, output = admin(url, "audit")
    assert code == 0 and "audit OK" in output
    code, output = admin(url, "house", "--json")
    report = json.loads(output)
    # the bot at seat 2 paid 120, the bot at seat 3 won 60: the house is 60 down from play
    assert report == {
        "balance": -2000 - 60,
        "granted": 2000,
        "hands_net": -60,
        "hands_played": 1,
        "bonuses": 0,  # daily gifts and top-ups (issue 32)
    }


def test_audit_fails_when_a_balance_was_changed_outside_the_ledger(
    played: tuple[str, Store, int],
) -> None:
    url, _, user = played
    engine = create_engine(normalize_url(url))
    try:
        with engine.begin() as connection:
            connection.execute(
                text("UPDATE accounts SET balance = balance + 7 WHERE id = :i"), {"i": user}
            )
    finally:
        engine.dispose()
    code, output = admin(url, "audit", "--json")
    assert code == 1
    report = json.loads(output)
    assert report["ok"] is False and report["ledger_sum"] == 7
    assert report["mismatches"] == [{"id": user, "name": "Mei", "balance": 1127, "ledger": 1120}]


def test_missing_sqlite_file_is_an_error_not_a_new_database(tmp_path: Path) -> None:
    missing = tmp_path / "nope.db"
    code, output = admin(f"sqlite:///{missing}", "accounts")
    assert code == 2 and "no database file" in output
    assert not missing.exists()
    code, output = admin("mysql://x@y/z", "audit")
    assert code == 2 and "unsupported database" in output


def test_rate_bots_rates_a_level_by_stored_rated_matches(
    database_url: str, make_store: MakeStore
) -> None:
    """Issue 32: 大師 plays no quick match, so no rating would show for it; ``rate-bots`` plays
    rated room matches of one level against three of another and stores them as any match
    (hands with their logs, coin rows, rating history), the level moving round the seats."""
    store = make_store(database_url)
    code, output = admin(
        database_url, "rate-bots", "--bot", "efficient", "--against", "random",
        "--matches", "2", "--hands", "2", "--seed", "7", "--json",
    )  # fmt: skip
    assert code == 0, output
    answer = json.loads(output)
    assert [m["seat"] for m in answer["matches"]] == [0, 1]
    assert set(answer["ratings"]) == {"efficient", "random"}
    assert answer["ratings"] == store.bot_ratings()
    for played_match in answer["matches"]:
        changes = store.match_ratings(played_match["match"])
        assert [c.bot for c in changes].count("efficient") == 1  # the rating history
        mine = next(c for c in changes if c.seat == played_match["seat"])
        assert (mine.place, mine.after) == (played_match["place"], played_match["rating"])
        logs = [store.hand_log(hand) for hand in played_match["hands"]]
        assert len(logs) == 2  # every hand stored with its log, finished
        assert all(log.match_id == played_match["match"] and log.events for log in logs)
        assert {log.status for log in logs} == {"finished"}
    assert store.audit().ok


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--bot", "nobody"), "--bot 'nobody' is not a bot"),
        (("--against", "x"), "--against 'x' is not a bot"),
        (("--matches", "0"), "--matches must be 1-200"),
    ],
)
def test_rate_bots_refuses_bad_options_in_one_line(
    played: tuple[str, Store, int], args: tuple[str, ...], message: str
) -> None:
    url, store, _ = played
    code, output = admin(url, "rate-bots", *args)
    assert code == 2 and message in output and output.count("\n") == 1, output
    assert store.bot_ratings() == {}
