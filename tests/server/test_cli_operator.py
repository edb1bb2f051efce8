"""Issue 20 items 16 and 17: what an operator types into ``duyun serve`` and ``duyun admin``.

Every bad input is one line ``error: ...`` on stderr, exit status 2, and nothing is created:
no database file, no tables in somebody else's file, no server half started. ``duyun admin
audit`` looks at a database as it is (never migrating it) and also checks that every hand was
settled exactly once. On PostgreSQL a ``duyun serve`` without ``--owner`` makes up a name no
other process has, so it can never restore and play the matches of another process.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import socket
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, text

from cli_helpers import assert_clean_error, run
from duyun.cli.serve import _owner
from duyun.engine import Payment
from duyun.server.store import MatchSpec, SeatSpec, Store
from duyun.server.store.database import normalize_url

SRC = Path(__file__).resolve().parents[2] / "src"
MakeStore = Callable[..., Store]


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def serve(tmp_path: Path, *args: str) -> tuple[int, str]:
    """``duyun serve`` in-process with a database in ``tmp_path`` unless one is given; returns
    (status, stderr) after checking that nothing was created in ``tmp_path``."""
    before = _listing(tmp_path)
    options = list(args)
    if "--database-url" not in options:
        options += ["--database-url", f"sqlite:///{tmp_path / 'new.db'}"]
    status, _, err = run(["serve", "--port", "0", *options])
    assert _listing(tmp_path) == before, "something was created or changed"
    return status, err


# ------------------------------------------------------------------ duyun serve


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("nonsense", "cannot parse database URL"),
        ("sqlite:///{tmp}/no/such/folder/x.db", "folder"),
        ("sqlite:///{tmp}/notes.txt", "not a duyun database: not an SQLite file"),
        ("sqlite:///{tmp}/other.db", "is not a duyun database"),
        ("mysql://user@localhost/duyun", "unsupported database 'mysql'"),
        ("postgresql://duyun@127.0.0.1:{port}/duyun?connect_timeout=2", "cannot open database"),
        ("sqlite:///{tmp}", "is a folder"),
    ],
)
def test_r16_serve_bad_database_url(tmp_path: Path, url: str, named: str) -> None:
    (tmp_path / "notes.txt").write_text("shopping: rice, tea\n", encoding="utf-8")
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)")
    other.commit()
    other.close()
    status, err = serve(tmp_path, "--database-url", url.format(tmp=tmp_path, port=_free_port()))
    assert_clean_error(status, err, named)


@pytest.mark.parametrize(
    ("content", "named"),
    [
        (bytes(range(256)), "not UTF-8"),
        ("turn_timer = 5.0\n".encode("utf-16"), "not UTF-8"),
        (b"argon2_memory_cost = 1\n", "argon2_memory_cost"),
        (b"argon2_time_cost = 0\n", "argon2_time_cost"),
        (b"argon2_memory_cost = 100000000000\n", "argon2_memory_cost"),
        (b"token_max_age = -1\n", "token_max_age"),
        (b"token_max_age = 100000000000000\n", "token_max_age"),
        (b"login_attempts = 0\n", "login_attempts"),
        (b"login_window = 0\n", "login_window"),
        (b"secret_key = 'short'\n", "secret_key"),
        (b"lease_renew_every = 20.0\n", "lease_renew_every"),  # more than half the lease
        (b"lease_renew_every = 0\n", "lease_renew_every"),
        (b"lease_seconds = -1\n", "lease_seconds"),
        (b"metrics_token = 'short'\n", "metrics_token"),
        (b"metrics_token = 'sixteen chars with spaces'\n", "metrics_token"),
        (b"metrics_token = 12345678901234567890\n", "metrics_token"),
        (b"starting_balance = 100000000000000000000\n", "starting_balance"),
        (b"starting_balance = 9223372036854775807\n", "starting_balance"),
        (b"turn_timer = nan\n", "turn_timer"),
        (b"claim_window = inf\n", "claim_window"),
        (b"[[rooms]]\nid = 'x'\nstake = 100000000000\n", "stake"),
    ],
)
def test_r16_serve_bad_config_file(tmp_path: Path, content: bytes, named: str) -> None:
    config = tmp_path / "server.toml"
    config.write_bytes(content)
    status, err = serve(tmp_path, "--config", str(config))
    assert_clean_error(status, err, named)


def test_r16_serve_port_in_use_is_found_before_the_database_is_created(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, _, err = run(
            ["serve", "--port", str(port), "--database-url", f"sqlite:///{tmp_path / 'x.db'}"]
        )
    assert_clean_error(status, err, "cannot listen", str(port), "in use")
    assert not (tmp_path / "x.db").exists()


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--host", "no such host.invalid"), "--host"),
        (("--host", "256.1.1.1"), "--host"),
        (("--host", ""), "--host"),
        (("--host", "192.0.2.1"), "cannot listen"),  # an address this machine does not have
        (("--log-level", "bogus"), "--log-level"),
        (("--owner", " "), "--owner"),
        (("--owner", "x" * 200), "--owner"),
        (("--port", "70000"), "--port"),
        (("--metrics-token", "guessable"), "metrics_token"),
    ],
)
def test_r16_serve_bad_options(tmp_path: Path, args: tuple[str, ...], named: str) -> None:
    status, err = serve(tmp_path, *args)
    assert_clean_error(status, err, named)


def test_serve_never_echoes_a_refused_metrics_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a token one character short, from the environment as docs/deploy.md advises
    monkeypatch.setenv("DUYUN_METRICS_TOKEN", "nearly-secret-1")
    status, err = serve(tmp_path)
    assert_clean_error(status, err, "metrics_token")
    assert "nearly-secret-1" not in err


def test_r17_owner_made_up_on_postgresql_is_unique_and_none_on_sqlite() -> None:
    names = {_owner(None, postgres=True) for _ in range(50)}
    assert len(names) == 50
    host = socket.gethostname()[:80]
    assert all(n is not None and n.startswith(f"{host}-{os.getpid()}-") for n in names)
    assert all(len(n or "") <= 128 for n in names)
    assert _owner(None, postgres=False) is None
    assert _owner("  web-1 ", postgres=True) == "web-1"


def test_r17_serve_on_postgresql_without_owner_prints_its_made_up_owner_and_holds_leases(
    fresh_postgres_url: str,
) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from duyun.cli.main import main; main()",
            "serve",
            "--port",
            "0",
            "--database-url",
            fresh_postgres_url,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if "Uvicorn running on" in line:
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert ready.wait(60), "".join(lines)
        owners = [
            m.group(1) for line in lines if (m := re.match(r"duyun serve: owner (\S+)", line))
        ]
        assert len(owners) == 1, "".join(lines)
        assert owners[0].startswith(socket.gethostname()[:80] + "-")
        store = Store.open(fresh_postgres_url)
        try:
            guest = store.create_guest()
            match = store.create_match(
                MatchSpec("room", "novice", 1, 1, (SeatSpec(guest.id),) + (SeatSpec(None),) * 3, 1),
                owner="gone",
            )
            # a match of another process whose lease is fresh is not this process's to take
            assert store.match_owner(match) == "gone"
        finally:
            store.close()
    finally:
        process.terminate()
        process.wait(timeout=20)


# ------------------------------------------------------------------ duyun admin


@pytest.fixture
def duyun_db(tmp_path: Path) -> tuple[str, Store]:
    url = f"sqlite:///{tmp_path / 'duyun.db'}"
    store = Store.open(url)
    return url, store


def admin(*args: str) -> tuple[int, str, str]:
    status, out, err = run(["admin", *args])
    return int(status), str(out), str(err)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("balance", "#99999999999999999999999"), "out of range"),
        (("balance", "#2147483648"), "out of range"),
        (("grant", "#1" + "0" * 30, "5"), "out of range"),
        (("ledger", "#1", "--limit", str(10**20)), "--limit"),
        (("accounts", "--limit", str(10**20)), "--limit"),
        (("grant", "house", str(10**20)), "coins"),
    ],
)
def test_r16_admin_huge_ids_and_limits(
    duyun_db: tuple[str, Store], args: tuple[str, ...], named: str
) -> None:
    url, store = duyun_db
    try:
        before = store.audit()
        status, _, err = admin(*args, "--database-url", url)
        assert_clean_error(status, err, named)
        assert store.audit() == before
    finally:
        store.close()


def _text_file(path: Path) -> None:
    path.write_text("not a database\n", encoding="utf-8")


def _empty_file(path: Path) -> None:
    path.write_bytes(b"")


def _photos_db(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as other:
        other.execute("CREATE TABLE photos (id INTEGER)")
        other.commit()


def _other_alembic_db(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as other:
        other.execute("CREATE TABLE alembic_version (version_num VARCHAR(32))")
        other.execute("INSERT INTO alembic_version VALUES ('ae1027a6acf')")
        other.commit()


@pytest.mark.parametrize(
    ("make", "named"),
    [
        (_text_file, "not a duyun database: not an SQLite file"),
        (_empty_file, "not a duyun database"),
        (_photos_db, "not a duyun database"),
        (_other_alembic_db, "not duyun's"),
    ],
)
@pytest.mark.parametrize("command", ["audit", "accounts", "house"])
def test_r16_admin_on_a_file_that_is_not_a_duyun_database_creates_nothing(
    tmp_path: Path, make: Callable[[Path], object], named: str, command: str
) -> None:
    target = tmp_path / "other.db"
    make(target)
    before = _listing(tmp_path)
    status, out, err = admin(command, "--database-url", f"sqlite:///{target}")
    assert_clean_error(status, err, named)
    assert "audit OK" not in out
    assert _listing(tmp_path) == before  # not one byte written, no -wal or -shm file


def test_r16_admin_audit_never_migrates_an_older_database(tmp_path: Path) -> None:
    from alembic import command

    from duyun.server.store.database import alembic_config

    url = f"sqlite:///{tmp_path / 'old.db'}"
    Store.open(url).close()
    engine = create_engine(normalize_url(url))
    try:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "0002")
    finally:
        engine.dispose()
    status, _, err = admin("audit", "--database-url", url)
    assert_clean_error(status, err, "0002", "duyun serve")
    with sqlite3.connect(tmp_path / "old.db") as check:
        assert check.execute("SELECT version_num FROM alembic_version").fetchone() == ("0002",)


def _settled_hand(store: Store) -> tuple[int, int]:
    """A match with one hand settled (stake 10: seat 2's bot pays seat 0's player 12 points,
    seat 1's player pays seat 3's bot 6); returns (match id, hand id)."""
    mei, guest = store.register("Mei", "plum blossom"), store.create_guest()
    match = store.create_match(
        MatchSpec(
            "room",
            "junior",
            10,
            2,
            (SeatSpec(mei.id), SeatSpec(guest.id), SeatSpec(None), SeatSpec(None)),
            1,
        )
    )
    hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    store.finish_hand(
        hand,
        [Payment(2, 0, 2, 12, "R28", "fed"), Payment(1, 3, 1, 6, "R29", "self-draw")],
        {"result": "win", "totals": [12, -6, -12, 6]},
    )
    return match, hand


def test_r41_audit_reports_a_hand_settled_twice_even_when_balances_match(
    duyun_db: tuple[str, Store],
) -> None:
    url, store = duyun_db
    try:
        _, hand = _settled_hand(store)
        status, out, _ = admin("audit", "--database-url", url)
        assert status == 0 and "audit OK" in out
        # a second settlement: the same rows again, balances moved to match them
        engine = create_engine(normalize_url(url))
        try:
            with engine.begin() as connection:
                for row in (
                    connection.execute(
                        text("SELECT * FROM coin_ledger WHERE hand_id = :h"), {"h": hand}
                    )
                    .mappings()
                    .all()
                ):
                    copy = {k: v for k, v in row.items() if k != "id"}
                    connection.execute(
                        text(
                            "INSERT INTO coin_ledger ("
                            + ", ".join(copy)
                            + ") VALUES ("
                            + ", ".join(f":{k}" for k in copy)
                            + ")"
                        ),
                        copy,
                    )
                    for account, sign in ((row["payer_id"], -1), (row["payee_id"], 1)):
                        connection.execute(
                            text("UPDATE accounts SET balance = balance + :d WHERE id = :i"),
                            {"d": sign * row["coins"], "i": account},
                        )
        finally:
            engine.dispose()
        report = store.audit()
        assert report.ledger_sum == 0 and report.mismatches == ()  # the balances agree...
        assert not report.ok  # ...but the hand was settled twice
        assert report.settlements == (
            (
                hand,
                "settled 2 times: coin rows [240, -120, -240, 120], "
                "result totals × stake [120, -60, -120, 60]",
            ),
        )
        status, out, _ = admin("audit", "--database-url", url)
        assert status == 1 and f"SETTLEMENT hand {hand}: settled 2 times" in out
        assert "audit FAILED" in out
    finally:
        store.close()


def test_r41_audit_reports_coin_rows_of_a_hand_not_finished(duyun_db: tuple[str, Store]) -> None:
    url, store = duyun_db
    try:
        match, _ = _settled_hand(store)
        playing = store.start_hand(match, 1, seed=2, dealer=0, streak=0)
        engine = create_engine(normalize_url(url))
        try:
            with engine.begin() as connection:
                connection.execute(
                    text("UPDATE coin_ledger SET hand_id = :p WHERE kind = 'hand'"), {"p": playing}
                )
        finally:
            engine.dispose()
        report = store.audit()
        assert report.mismatches == () and not report.ok
        problems = dict(report.settlements)
        assert problems[playing] == "coin rows for a hand that is not finished"
        assert len(problems) == 2  # and the finished hand now has none of its rows
    finally:
        store.close()


@settings(max_examples=200, deadline=None)
@given(
    content=st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200).map(lambda t: t.encode("utf-8")),
        st.dictionaries(
            st.sampled_from(
                [
                    "starting_balance",
                    "turn_timer",
                    "claim_window",
                    "token_max_age",
                    "login_attempts",
                    "login_window",
                    "argon2_time_cost",
                    "argon2_memory_cost",
                    "secret_key",
                    "metrics_token",
                    "rate_burst",
                ]
            ),
            st.one_of(
                st.integers(min_value=-(2**70), max_value=2**70),
                st.floats(allow_nan=True, allow_infinity=True),
                st.text(max_size=30),
                st.booleans(),
            ),
            max_size=4,
        ).map(
            lambda d: "\n".join(
                f"{k} = {json.dumps(v) if not isinstance(v, float) or math.isfinite(v) else v}"
                for k, v in d.items()
            ).encode("utf-8")
        ),
    )
)
def test_r16_any_config_file_is_a_config_or_a_config_error(content: bytes) -> None:
    """Whatever an operator's editor saved, the config is read or named as wrong: never
    another exception (which ``duyun serve`` would show as a traceback)."""
    import tempfile

    from duyun.server.config import ConfigError, ServerConfig, load_config

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "server.toml"
        path.write_bytes(content)
        try:
            loaded = load_config(path)
        except ConfigError as error:
            assert str(error).strip()  # serve prints it as one line (cli.common.fail)
        else:
            assert isinstance(loaded, ServerConfig)
            assert 0 <= loaded.starting_balance <= 10**12


def test_r16_admin_and_serve_refuse_a_postgresql_database_that_is_not_duyuns(
    fresh_postgres_url: str,
) -> None:
    status, _, err = admin("audit", "--database-url", fresh_postgres_url)
    assert_clean_error(status, err, "not a duyun database", "empty")
    engine = create_engine(normalize_url(fresh_postgres_url))
    try:
        with engine.connect() as connection:
            assert (
                connection.execute(
                    text("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
                ).scalar()
                == 0
            )
            connection.execute(text("CREATE TABLE invoices (id integer)"))
            connection.commit()
        status, _, err = run(["serve", "--port", "0", "--database-url", fresh_postgres_url])
        assert_clean_error(status, err, "not a duyun database", "invoices")
        with engine.connect() as connection:
            tables = (
                connection.execute(
                    text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
                )
                .scalars()
                .all()
            )
        assert tables == ["invoices"]  # no duyun table was created in it
    finally:
        engine.dispose()
