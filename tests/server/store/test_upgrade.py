"""Migrations upgrade an existing database without losing a row (issue 32 item 6).

A database made by revision 0006 (the schema before issue 32), holding a row in every table (a
user, a finished match with its hand, events and ledger rows, a table code, a login attempt, a
revoked token, a queued room, the settings), is upgraded to head: every row is still there,
the ledger still audits, and the new features work on it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from alembic import command
from sqlalchemy import Connection, create_engine, inspect, text

from duyun.server.store import Economy, Store
from duyun.server.store.database import alembic_config, normalize_url

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
ROWS_0006 = [
    "INSERT INTO accounts (id, name, name_key, kind, balance, created, token_generation) "
    "VALUES (2, 'Old', 'old', 'user', 1006, :now, 0)",
    "UPDATE accounts SET balance = -1006 WHERE kind = 'house'",
    "INSERT INTO matches (id, kind, room, code, stake, hands, seed, first_dealer, rules, "
    "options, status, created, lease_epoch) VALUES (1, 'room', 'novice', '123456', 1, 1, 5, 0, "
    "'{}', '{}', 'completed', :now, 0)",
    "INSERT INTO match_seats (match_id, seat, account_id, bot, forced_tuoguan, tuoguan) "
    "VALUES (1, 0, 2, NULL, false, false), (1, 1, NULL, 'random', false, false), "
    "(1, 2, NULL, 'random', false, false), (1, 3, NULL, 'random', false, false)",
    "INSERT INTO hands (id, match_id, index, seed, dealer, streak, status, result, created) "
    "VALUES (1, 1, 0, 9, 0, 0, 'finished', '{\"totals\": [6, -6, 0, 0]}', :now)",
    'INSERT INTO hand_events (hand_id, seq, event) VALUES (1, 0, \'{"type": "start"}\')',
    "INSERT INTO coin_ledger (payer_id, payee_id, coins, requested, cut, kind, rule, note, "
    "created) VALUES (1, 2, 1000, 1000, 0, 'starting', '', 'welcome', :now)",
    "INSERT INTO coin_ledger (payer_id, payee_id, coins, requested, cut, kind, rule, note, "
    "hand_id, payer_seat, payee_seat, created) "
    "VALUES (1, 2, 6, 6, 0, 'hand', 'R28', 'x', 1, 1, 0, :now)",
    "INSERT INTO login_attempts (name_key, client, at) VALUES ('old', '10.0.0.1', 1.0)",
    "INSERT INTO server_processes (owner, url, heartbeat, draining) "
    "VALUES ('web-1', NULL, 1.0, false)",
    "INSERT INTO revoked_tokens (token_hash, expires) VALUES ('ab12', 99.0)",
    "INSERT INTO quick_queue_rooms (room) VALUES ('novice')",
    "INSERT INTO table_codes (code, owner, match_id, kind, room, listed, status, free, humans, "
    "reserved, reserved_until, summary, created, updated) VALUES ('654321', 'web-1', NULL, "
    "'room', 'novice', true, 'waiting', 3, 1, 0, 0, '{}', 1.0, 1.0)",
]


def _counts(connection: Connection) -> dict[str, int]:
    """Rows per table (Alembic's own table aside)."""
    counts = {}
    for name in sorted(inspect(connection).get_table_names()):
        if name != "alembic_version":
            counts[name] = int(
                connection.execute(text(f'SELECT count(*) FROM "{name}"')).scalar_one()
            )
    return counts


def test_upgrade_from_0006_keeps_every_row(
    database_url: str, make_store: Callable[..., Store]
) -> None:
    engine = create_engine(normalize_url(database_url))
    config = alembic_config()
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "0006")
            for statement in ROWS_0006:
                connection.execute(text(statement.replace("index,", '"index",')), {"now": NOW})
            before = _counts(connection)
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            after = _counts(connection)
            assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar() == (
                "0008"
            )
    finally:
        engine.dispose()
    assert all(before.values()), before  # every table of 0006 holds a row to keep
    assert {name: after[name] for name in before} == before
    assert before["coin_ledger"] == 2 and before["hand_events"] == 1
    store = make_store(database_url)
    report = store.audit()
    assert report.ok and report.rows == 2, report
    old = store.account(2)
    assert (old.name, old.balance, old.rating, old.rated_matches) == ("Old", 1006, 1000, 0)
    assert store.claim_bonus(2, "gift", "10.0.0.9", Economy()).coins == 100
    assert store.history(2)[0].coins == 6
    assert store.audit().ok
