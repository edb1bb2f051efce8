"""The store on SQLite and PostgreSQL: accounts, coins (R41), matches, hands, logs, leases.

Every test runs twice through the ``database_url`` fixture; the PostgreSQL run is skipped with
a reason when DUYUN_TEST_POSTGRES_URL is unset.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, inspect, text

from duyun.bots.random_bot import RandomBot
from duyun.engine import Payment, Round, deal_setup, replay
from duyun.server.store import (
    AccountError,
    ConflictError,
    MatchSpec,
    NotFoundError,
    SeatSpec,
    Store,
    StoreError,
)
from duyun.server.store import events as events_module
from duyun.server.store.database import alembic_config, normalize_url
from duyun.server.store.models import Base


def spec(
    seats: Sequence[int | None],
    stake: int = 1,
    hands: int = 4,
    kind: str = "room",
    code: str | None = None,
    rules: dict[str, object] | None = None,
) -> MatchSpec:
    return MatchSpec(
        kind=kind,  # type: ignore[arg-type]
        room="novice" if kind == "room" else "private",
        stake=stake,
        hands=hands,
        seats=tuple(SeatSpec(a, None if a else "random") for a in seats),
        seed=7,
        code=code,
        rules=rules or {},
    )


def run_in_threads(work: Callable[[int], object], items: Sequence[int]) -> list[BaseException]:
    """``work(item)`` for every item, each in a thread of its own, all at once; the errors
    they raised (none, when the store is sound under concurrency)."""
    errors: list[BaseException] = []

    def guarded(item: int) -> None:
        try:
            work(item)
        except BaseException as exc:  # collected and reported by the caller's assertion
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(item,)) for item in items]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


MakeStore = Callable[..., Store]
SRC = Path(__file__).resolve().parents[3] / "src"


def pay(payer: int, payee: int, points: int, rule: str = "R28") -> Payment:
    return Payment(payer=payer, payee=payee, fan=1, points=points, rule=rule, reason="test")


def assert_sound(store: Store) -> None:
    report = store.audit()
    assert report.ok, report
    assert store.check_zero_sum() == 0


# ---------------------------------------------------------------- schema and migrations
def test_migrations_from_empty_create_schema_matching_models(
    database_url: str, make_store: MakeStore
) -> None:
    make_store(database_url).close()
    engine = create_engine(normalize_url(database_url))
    try:
        with engine.connect() as connection:
            tables = set(inspect(connection).get_table_names())
            assert {t.name for t in Base.metadata.sorted_tables} <= tables
            assert "alembic_version" in tables
            head = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
            assert head == ScriptDirectory.from_config(alembic_config()).get_current_head()
            assert head == "0008"  # the newest script is the one that ran
            # the models and the migrations describe the same schema
            diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
            assert diff == []
        # downgrade to empty and up again: the scripts run both ways
        config = alembic_config()
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "base")
            assert set(inspect(connection).get_table_names()) <= {"alembic_version"}
            command.upgrade(config, "head")
    finally:
        engine.dispose()
    reopened = make_store(database_url)
    assert reopened.house().kind == "house" and reopened.accounts() == [reopened.house()]


def test_reopening_keeps_data_and_house(database_url: str, make_store: MakeStore) -> None:
    first = make_store(database_url)
    guest = first.create_guest()
    house = first.house()
    first.close()
    second = make_store(database_url)
    assert second.account(guest.id) == guest
    assert second.house() == house
    assert len(second.accounts(kind="house")) == 1


@pytest.mark.parametrize(
    "url", ["", "mysql://x@y/z", "not a url at all ::", "postgresql+psycopg://%zz"]
)
def test_bad_database_url_is_a_clear_error(url: str) -> None:
    with pytest.raises(StoreError):
        Store.open(url)


# ---------------------------------------------------------------- accounts and coins
def test_guest_gets_starting_balance_from_house_as_ledger_row(store: Store) -> None:
    guest = store.create_guest()
    assert guest.kind == "guest" and guest.name.startswith("guest-")
    assert guest.balance == store.config.starting_balance
    (row,) = store.coin_ledger(guest.id)
    assert (row.payer, row.payee, row.coins, row.kind) == (
        store.house().id,
        guest.id,
        store.config.starting_balance,
        "starting",
    )
    assert store.house().balance == -store.config.starting_balance
    assert_sound(store)


def test_starting_balance_is_configurable(database_url: str, make_store: MakeStore) -> None:
    store = make_store(database_url, starting_balance=0)
    guest = store.create_guest()
    assert guest.balance == 0
    assert store.coin_ledger(guest.id) == []


def test_register_and_upgrade_guest_keeps_coins(store: Store) -> None:
    guest = store.create_guest()
    store.grant(guest.id, 50, "welcome back")
    user = store.register("Mei", "long enough pw", guest_id=guest.id)
    assert (user.id, user.kind, user.name, user.balance) == (guest.id, "user", "Mei", 1050)
    with pytest.raises(AccountError, match="only a guest"):
        store.register("Other", "long enough pw", guest_id=user.id)
    with pytest.raises(AccountError, match="taken"):
        store.register("MEI", "another password")
    with pytest.raises(NotFoundError):
        store.register("Nobody", "long enough pw", guest_id=10_000)
    assert store.account_by_name("mei") == store.account(user.id)
    assert_sound(store)


def test_grant_is_ledgered_and_validated(store: Store) -> None:
    guest = store.create_guest()
    row = store.grant(guest.id, 250, "compensation")
    assert (row.payer, row.payee, row.coins, row.note) == (
        store.house().id,
        guest.id,
        250,
        "compensation",
    )
    assert store.account(guest.id).balance == 1250
    for bad in (0, -5, 1.5, True):
        with pytest.raises(StoreError):
            store.grant(guest.id, bad, "x")  # type: ignore[arg-type]
    with pytest.raises(NotFoundError):
        store.grant(99_999, 10, "x")
    with pytest.raises(StoreError, match="house"):
        store.grant(store.house().id, 10, "x")
    assert [r.coins for r in store.coin_ledger(guest.id)] == [250, 1000]
    assert_sound(store)


def test_unknown_ids_are_not_found(store: Store) -> None:
    for call in (
        lambda: store.account(12345),
        lambda: store.account_by_name("ghost"),
        lambda: store.coin_ledger(12345),
        lambda: store.history(12345),
        lambda: store.hand_log(12345),
        lambda: store.match_spec(12345),
        lambda: store.start_hand(12345, 0, 1, 0, 0),
    ):
        with pytest.raises(NotFoundError):
            call()


# ---------------------------------------------------------------- matches, hands, settlement
def test_finish_hand_R41_coins_are_points_times_stake(store: Store) -> None:
    a, b = store.create_guest(), store.create_guest()
    match = store.create_match(spec([a.id, b.id, None, None], stake=5))
    hand = store.start_hand(match, 0, seed=11, dealer=0, streak=0)
    rows = store.finish_hand(hand, [pay(0, 1, 12), pay(2, 0, 6), pay(3, 2, 6)], {"result": "win"})
    house = store.house().id
    assert [(r.payer, r.payee, r.coins, r.requested, r.cut) for r in rows] == [
        (a.id, b.id, 60, 60, 0),
        (house, a.id, 30, 30, 0),
        (house, house, 30, 30, 0),  # bot pays bot: recorded, moves nothing
    ]
    assert store.account(a.id).balance == 1000 - 60 + 30
    assert store.account(b.id).balance == 1000 + 60
    assert store.house_report().hands_net == -30
    assert_sound(store)


def test_finish_hand_R41_human_payer_cut_to_balance_and_cut_recorded(store: Store) -> None:
    poor, rich = store.create_guest(), store.create_guest()
    match = store.create_match(spec([poor.id, rich.id, None, None], stake=20))
    hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    # 40 points x 20 = 800 to rich, then 30 x 20 = 600 to a bot: only 200 left to pay
    rows = store.finish_hand(hand, [pay(0, 1, 40), pay(0, 2, 30), pay(0, 3, 6)], {})
    assert [(r.coins, r.requested, r.cut) for r in rows] == [
        (800, 800, 0),
        (200, 600, 400),
        (0, 120, 120),
    ]
    assert store.account(poor.id).balance == 0
    # winnings during the hand are paid out before later rows (engine ledger order)
    match2 = store.create_match(spec([poor.id, rich.id, None, None], stake=20))
    hand2 = store.start_hand(match2, 0, seed=1, dealer=0, streak=0)
    rows2 = store.finish_hand(hand2, [pay(2, 0, 5), pay(0, 1, 10)], {})
    assert [(r.coins, r.cut) for r in rows2] == [(100, 0), (100, 100)]
    assert store.account(poor.id).balance == 0
    assert_sound(store)


def test_house_may_go_negative_but_humans_never(store: Store) -> None:
    human = store.create_guest()
    match = store.create_match(spec([human.id, None, None, None], stake=1000, hands=2))
    hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    store.finish_hand(hand, [pay(1, 0, 500), pay(0, 2, 100)], {})
    assert store.account(human.id).balance == 1000 + 500_000 - 100_000
    assert store.house().balance == -1000 - 500_000 + 100_000
    hand = store.start_hand(match, 1, seed=2, dealer=0, streak=0)
    (row,) = store.finish_hand(hand, [pay(0, 3, 10_000)], {})
    assert (row.coins, row.cut) == (401_000, 10_000_000 - 401_000)
    assert store.account(human.id).balance == 0
    assert store.house().balance == 0
    assert_sound(store)


def test_finish_hand_is_atomic_a_failure_midway_leaves_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = store.create_guest(), store.create_guest()
    match = store.create_match(spec([a.id, b.id, None, None], stake=3))
    hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    before = (store.audit(), store.coin_ledger(a.id), store.account(a.id), store.account(b.id))

    def explode(*_args: object) -> None:
        raise RuntimeError("disk full")  # after every coin row was written and flushed

    monkeypatch.setattr(Store, "_mark_finished", explode)
    with pytest.raises(RuntimeError, match="disk full"):
        store.finish_hand(hand, [pay(0, 1, 6), pay(2, 0, 12)], {"result": "win"})
    after = (store.audit(), store.coin_ledger(a.id), store.account(a.id), store.account(b.id))
    assert after == before
    assert store.hand_log(hand).status == "playing"
    monkeypatch.undo()
    rows = store.finish_hand(hand, [pay(0, 1, 6), pay(2, 0, 12)], {"result": "win"})
    assert len(rows) == 2
    assert_sound(store)


def test_finish_hand_rejects_bad_payments_and_second_finish(store: Store) -> None:
    a = store.create_guest()
    match = store.create_match(spec([a.id, None, None, None]))
    hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    with pytest.raises(StoreError, match="seat"):
        store.finish_hand(hand, [pay(0, 4, 6)], {})
    with pytest.raises(StoreError, match="negative"):
        store.finish_hand(hand, [pay(0, 1, -6)], {})
    with pytest.raises(StoreError, match="Payment"):
        store.finish_hand(hand, [{"payer": 0}], {})  # type: ignore[list-item]
    store.finish_hand(hand, [pay(0, 1, 6)], {"ok": True})
    with pytest.raises(ConflictError, match="already finished"):
        store.finish_hand(hand, [pay(0, 1, 6)], {})
    assert store.account(a.id).balance == 994
    assert_sound(store)


def test_match_validation(store: Store) -> None:
    a = store.create_guest()
    with pytest.raises(StoreError, match="4 seats"):
        store.create_match(spec([a.id, None, None]))
    with pytest.raises(StoreError, match="two seats"):
        store.create_match(spec([a.id, a.id, None, None]))
    with pytest.raises(NotFoundError, match="4242"):
        store.create_match(spec([a.id, 4242, None, None]))
    with pytest.raises(StoreError, match="house sits as bots"):
        store.create_match(spec([a.id, store.house().id, None, None]))
    assert store.create_match(spec([None, None, None, None])) > 0  # bots only: nobody to check
    with pytest.raises(StoreError, match="stake"):
        store.create_match(spec([a.id, None, None, None], stake=-1))
    with pytest.raises(StoreError, match="kind"):
        store.create_match(
            MatchSpec(kind="x", room="r", stake=1, hands=1, seats=(), seed=1)  # type: ignore[arg-type]
        )


def test_hands_and_event_log(store: Store) -> None:
    a = store.create_guest()
    match = store.create_match(spec([a.id, None, None, None], hands=2))
    hand = store.start_hand(match, 0, seed=5, dealer=0, streak=0)
    with pytest.raises(ConflictError, match="still playing"):
        store.start_hand(match, 1, seed=6, dealer=0, streak=0)
    store.append_events(hand, 0, [{"type": "start"}, {"type": "draw", "seat": 0}])
    with pytest.raises(ConflictError):
        store.append_events(hand, 1, [{"type": "dup"}])
    with pytest.raises(ConflictError):
        store.append_events(hand, 3, [{"type": "gap"}])
    with pytest.raises(StoreError):
        store.append_events(hand, 2, ["not an object"])  # type: ignore[list-item]
    store.append_events(hand, 2, [{"type": "discard", "tile": "1m"}])
    assert [e["type"] for e in store.hand_log(hand).events] == ["start", "draw", "discard"]
    store.finish_hand(hand, [], {"result": "draw"})
    with pytest.raises(ConflictError, match="finished"):
        store.append_events(hand, 3, [{"type": "late"}])
    with pytest.raises(ConflictError):
        store.start_hand(match, 0, seed=5, dealer=0, streak=0)  # index taken
    with pytest.raises(ConflictError, match="only 2 hands"):
        store.start_hand(match, 2, seed=5, dealer=0, streak=0)
    second = store.start_hand(match, 1, seed=6, dealer=1, streak=0)
    with pytest.raises(ConflictError, match="still playing"):
        store.finish_match(match, "completed")
    store.finish_hand(second, [], {"result": "draw"})
    with pytest.raises(StoreError):
        store.finish_match(match, "exploded")
    store.finish_match(match, "completed")
    with pytest.raises(ConflictError):
        store.finish_match(match, "dissolved")
    with pytest.raises(ConflictError, match="over"):
        store.start_hand(match, 1, seed=6, dealer=1, streak=0)
    assert store.live_matches() == []


def test_group_commit_writes_many_hands_and_refuses_each_bad_append_alone(store: Store) -> None:
    """``append_events_many`` (the server's group commit): one transaction for several tables'
    moves, each append checked as ``append_events`` checks it, a refused one writing nothing
    while the others are written, and two appends of one hand in order."""
    a = store.create_guest()
    hands = []
    for n in range(3):
        match = store.create_match(spec([a.id if n == 0 else None, None, None, None], hands=1))
        hands.append(store.start_hand(match, 0, seed=n, dealer=0, streak=0))
    first, second, third = hands
    store.append_events(second, 0, [{"type": "start"}])
    store.finish_hand(third, [], {"result": "draw"})
    batch: list[Any] = [  # Any: one item is not an event object on purpose
        (first, 0, [{"type": "start"}, {"type": "draw", "seat": 0}]),
        (second, 0, [{"type": "clash"}]),  # seq 0 is taken
        (first, 2, [{"type": "discard", "tile": "1m"}]),  # follows the first append
        (third, 0, [{"type": "late"}]),  # the hand is finished
        (4242, 0, [{"type": "nowhere"}]),
        (second, 1, ["not an object"]),
        (second, 1, [{"type": "draw", "seat": 1}]),
        (first, 3, []),  # nothing to write is no error
    ]
    outcomes = store.append_events_many(batch)
    kinds = [None if o is None else type(o) for o in outcomes]
    assert kinds == [
        None,
        ConflictError,
        None,
        ConflictError,
        NotFoundError,
        StoreError,
        None,
        None,
    ]
    assert "finished" in str(outcomes[3])
    assert [e["type"] for e in store.hand_log(first).events] == ["start", "draw", "discard"]
    assert [e["type"] for e in store.hand_log(second).events] == ["start", "draw"]
    assert store.hand_log(third).events == ()


def _one_hand_matches(store: Store, count: int) -> list[int]:
    """``count`` hands in play, each the first of its own match, one guest at the first
    match's table and bots elsewhere: hands whose appends meet only in the store."""
    guest = store.create_guest()
    return [
        store.start_hand(
            store.create_match(spec([guest.id if n == 0 else None, None, None, None], hands=1)),
            0,
            seed=n,
            dealer=0,
            streak=0,
        )
        for n in range(count)
    ]


def test_group_commit_refused_insert_rolls_back_the_batch_then_settles_each_alone(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seq taken between the batch's check and its insert (another process's write, made
    here by adding a taken seq to the rows to insert): nothing of the batch is written, then
    each append is settled on its own."""
    first, second = _one_hand_matches(store, 2)
    store.append_events(first, 0, [{"type": "start"}])
    judge = events_module._judge

    def racing(*args: Any) -> list[tuple[int, int, dict[str, Any]]]:
        return [(first, 0, {"type": "taken"}), *judge(*args)]

    monkeypatch.setattr(events_module, "_judge", racing)
    outcomes = store.append_events_many(
        [(first, 1, [{"type": "draw", "seat": 0}]), (second, 0, [{"type": "start"}])]
    )
    monkeypatch.setattr(events_module, "_judge", judge)
    assert outcomes == [None, None]
    assert [e["type"] for e in store.hand_log(first).events] == ["start", "draw"]
    assert [e["type"] for e in store.hand_log(second).events] == ["start"]
    # the pooled connection goes on: the next batch is written
    assert store.append_events_many([(second, 1, [{"type": "draw", "seat": 1}])]) == [None]
    assert [e["type"] for e in store.hand_log(second).events] == ["start", "draw"]


def test_group_commit_that_fails_midway_writes_nothing_and_frees_the_kept_connection(
    store: Store,
) -> None:
    """The event writer keeps its connection between batches and spells out its own
    transaction. A batch that fails after its check (an event that is no JSON, found while
    the rows are being inserted) is rolled back whole, the write lock is released (another
    transaction of the store gets through), and the next batch is written on the same kept
    connection."""
    first, second = _one_hand_matches(store, 2)
    assert store.append_events_many([(first, 0, [{"type": "start"}])]) == [None]
    kept = store._writer_connection
    assert kept is not None
    with pytest.raises(TypeError):
        store.append_events_many(
            [(first, 1, [{"type": "draw", "seat": 0}]), (second, 0, [{"bad": object()}])]
        )
    assert [e["type"] for e in store.hand_log(first).events] == ["start"]
    assert store.hand_log(second).events == ()
    store.append_events(second, 0, [{"type": "start"}])  # a transaction of its own
    assert store.append_events_many([(first, 1, [{"type": "draw", "seat": 0}])]) == [None]
    assert store._writer_connection is kept
    assert [e["type"] for e in store.hand_log(first).events] == ["start", "draw"]


def test_group_commit_on_a_connection_the_database_dropped_is_sent_again(
    fresh_postgres_url: str,
) -> None:
    """PostgreSQL: the event writer keeps its connection between batches, without the pool's
    pre-ping. When the server has dropped it (a restart; here every connection of the store
    is terminated), the next batch still lands, exactly once: its first message, which only
    begins and reads, fails, and the batch is sent again on a fresh connection."""
    store = Store.open(fresh_postgres_url)
    try:
        a = store.create_guest()
        match = store.create_match(spec([a.id, None, None, None], hands=1))
        hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
        assert store.append_events_many([(hand, 0, [{"type": "start"}])]) == [None]
        admin = create_engine(fresh_postgres_url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as connection:
                dropped = connection.execute(
                    text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                ).scalar_one()
        finally:
            admin.dispose()
        assert dropped >= 1
        assert store.append_events_many([(hand, 1, [{"type": "draw", "seat": 0}])]) == [None]
        assert [e["type"] for e in store.hand_log(hand).events] == ["start", "draw"]
    finally:
        store.close()


def test_sqlite_writers_of_one_process_never_wait_in_the_busy_handler(tmp_path: Path) -> None:
    """Many threads appending at once on one SQLite file: every append lands, in order per
    hand, and none fails with "database is locked" (the store serialises its transactions
    in the process instead of leaving them to SQLite's sleeping busy handler)."""
    store = Store.open(f"sqlite:///{tmp_path / 'busy.db'}")
    try:
        hands = _one_hand_matches(store, 6)

        def writer(hand: int) -> None:
            for seq in range(40):
                store.append_events(hand, seq, [{"type": "draw", "n": seq}])

        assert run_in_threads(writer, hands) == []
        for hand in hands:
            assert [e["n"] for e in store.hand_log(hand).events] == list(range(40))
    finally:
        store.close()


def test_forced_tuoguan_is_stored_per_seat_and_read_back_in_the_spec(store: Store) -> None:
    a = store.create_guest()
    match = store.create_match(spec([None, a.id, None, None]))
    assert [s.forced_tuoguan for s in store.match_spec(match).seats] == [False] * 4
    store.mark_forced_tuoguan(match, 1)
    assert [s.forced_tuoguan for s in store.match_spec(match).seats] == [False, True, False, False]
    with pytest.raises(StoreError, match="not a player's seat"):
        store.mark_forced_tuoguan(match, 0)  # a bot seat
    with pytest.raises(StoreError, match="seat must be"):
        store.mark_forced_tuoguan(match, 4)
    with pytest.raises(NotFoundError):
        store.mark_forced_tuoguan(4242, 1)
    store.finish_match(match, "completed")
    with pytest.raises(ConflictError, match="over"):
        store.mark_forced_tuoguan(match, 1)


def test_a_seats_tuoguan_is_stored_and_read_back_for_a_restart(store: Store) -> None:
    """Issue 37: a seat in 托管 stays in 托管 after a restart; switched off, it stays off."""
    a, b = store.create_guest(), store.create_guest()
    match = store.create_match(spec([a.id, b.id, None, None]))
    assert [s.tuoguan for s in store.match_spec(match).seats] == [False] * 4
    store.set_tuoguan(match, 1, True)
    assert [s.tuoguan for s in store.match_spec(match).seats] == [False, True, False, False]
    (live,) = store.live_matches()
    assert [s.tuoguan for s in live.spec.seats] == [False, True, False, False]
    store.set_tuoguan(match, 1, False)
    store.mark_forced_tuoguan(match, 0)  # an escape is 托管 too, for good
    assert [s.tuoguan for s in store.match_spec(match).seats] == [True, False, False, False]
    with pytest.raises(StoreError, match="not a player's seat"):
        store.set_tuoguan(match, 2, True)  # a bot seat
    with pytest.raises(StoreError, match="true or false"):
        store.set_tuoguan(match, 1, 1)  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="seat must be"):
        store.set_tuoguan(match, 4, True)
    store.finish_match(match, "completed")
    with pytest.raises(ConflictError, match="over"):
        store.set_tuoguan(match, 1, True)


def test_balances_of_several_accounts_in_one_read(store: Store) -> None:
    a, b = store.create_guest(), store.create_guest()
    store.grant(a.id, 25, "test")
    assert store.balances([b.id, a.id, a.id]) == {
        a.id: store.account(a.id).balance,
        b.id: store.account(b.id).balance,
    }
    assert store.balances([a.id])[a.id] == b.balance + 25
    with pytest.raises(NotFoundError, match="4242"):
        store.balances([a.id, 4242])
    with pytest.raises(StoreError):
        store.balances([0])


def test_update_seats_only_before_first_hand(store: Store) -> None:
    a, b = store.create_guest(), store.create_guest()
    match = store.create_match(spec([a.id, None, None, None]))
    store.update_seats(
        match, [SeatSpec(a.id), SeatSpec(b.id), SeatSpec(None, "strong"), SeatSpec(None)]
    )
    assert store.match_spec(match).seats[1] == SeatSpec(b.id)
    store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    with pytest.raises(ConflictError, match="fixed"):
        store.update_seats(match, [SeatSpec(None)] * 4)


def test_real_hand_stored_as_played_replays_to_the_same_settlement(store: Store) -> None:
    """The table's job in miniature: store each event as it happens, settle, replay the log."""
    a, b = store.create_guest(), store.create_guest()
    match = store.create_match(spec([a.id, None, b.id, None], stake=2))
    game = Round(deal_setup(2024, dealer=0, streak=0))
    hand = store.start_hand(match, 0, seed=2024, dealer=0, streak=0)
    bots = [RandomBot(seed) for seed in range(4)]
    written = 0
    while True:
        store.append_events(hand, written, game.events[written:])
        written = len(game.events)
        if game.is_over:
            break
        seat = game.to_act[0]
        game.apply(bots[seat].choose(game.view(seat)))
    assert game.result is not None
    store.finish_hand(hand, game.result.payments, {"result": game.result.result})
    log = store.hand_log(hand)
    replayed = replay(list(log.events))
    assert replayed.result is not None
    assert replayed.result.payments == game.result.payments
    record = store.history(a.id)[0].hand_records[0]
    rows = {
        r.id: r
        for account in (a.id, b.id, store.house().id)
        for r in store.coin_ledger(account, limit=1000)
        if r.hand_id == hand
    }
    assert len(rows) == len(game.result.payments)
    ordered = [rows[i] for i in sorted(rows)]
    assert [r.requested for r in ordered] == [p.points * 2 for p in game.result.payments]
    assert [r.rule for r in ordered] == [p.rule for p in game.result.payments]
    assert sum(record.coins) == 0
    assert_sound(store)


# ---------------------------------------------------------------- restore, leases, history
def test_live_matches_restore_the_unfinished_hand_with_its_events(store: Store) -> None:
    a = store.create_guest()
    match = store.create_match(spec([a.id, None, None, None], hands=3, rules={"baoting": True}))
    first = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    store.finish_hand(first, [pay(1, 0, 6)], {"result": "win"})
    second = store.start_hand(match, 1, seed=2, dealer=0, streak=1)
    store.append_events(second, 0, [{"type": "start", "n": 1}, {"type": "draw", "n": 2}])
    (live,) = store.live_matches()
    assert live.match_id == match
    assert live.spec == store.match_spec(match)
    assert live.spec.rules == {"baoting": True}
    assert [h.hand_id for h in live.finished_hands] == [first]
    assert live.finished_hands[0].coins == (6, -6, 0, 0)
    assert live.hand is not None
    assert (live.hand.hand_id, live.hand.index, live.hand.seed, live.hand.streak) == (
        second,
        1,
        2,
        1,
    )
    assert live.hand.events == ({"type": "start", "n": 1}, {"type": "draw", "n": 2})


def test_leases_one_owner_per_match_until_expiry(database_url: str, make_store: MakeStore) -> None:
    now = [1000.0]
    store = make_store(database_url, clock=lambda: now[0])
    a = store.create_guest()
    owned = store.create_match(spec([a.id, None, None, None]), owner="p1")
    free = store.create_match(spec([None, None, None, None]))
    assert [m.match_id for m in store.live_matches(owner="p2")] == [free]
    assert store.match_owner(owned) == "p1" and store.match_owner(free) == "p2"
    assert [m.match_id for m in store.live_matches(owner="p1")] == [owned]
    now[0] += 20
    assert store.renew_leases("p1", 30) == [owned]
    now[0] += 25  # p2's lease (30 s from t=1000) expired, p1's renewed one has not
    assert store.match_owner(free) is None
    assert [m.match_id for m in store.live_matches(owner="p3")] == [free]
    assert store.renew_leases("p2") == []
    store.release_leases("p1")
    assert store.match_owner(owned) is None
    assert [m.match_id for m in store.live_matches(owner="p3")] == [owned, free]
    store.finish_match(owned, "dissolved")
    assert store.match_owner(owned) is None


def test_running_process_adopts_only_other_processes_expired_matches(
    database_url: str, make_store: MakeStore
) -> None:
    now = [0.0]
    store = make_store(database_url, clock=lambda: now[0])
    mine = store.create_match(spec([None] * 4), owner="p1")
    theirs = store.create_match(spec([None] * 4), owner="p2")
    assert store.live_matches(owner="p1", include_own=False) == []  # p2's lease is fresh
    now[0] += 31  # both leases expired: p2 died; p1 was slow to renew
    assert store.match_owner(mine) is None
    late = store.renew_leases("p1")  # nobody took p1's match meanwhile: it is still p1's
    assert late == [mine] and store.match_owner(mine) == "p1"
    adopted = store.live_matches(owner="p1", include_own=False)
    assert [m.match_id for m in adopted] == [theirs]  # never its own running table again
    assert store.match_owner(theirs) == "p1"
    assert store.renew_leases("p2") == []  # p2 wakes up: its match is gone, its table must stop
    assert [m.match_id for m in store.live_matches(owner="p1")] == [mine, theirs]


def test_history_and_hand_log(store: Store) -> None:
    a, b = store.create_guest(), store.create_guest()
    user = store.register("Lin", "s3cret-pass")
    first = store.create_match(
        spec([a.id, b.id, None, None], stake=2, code="123456", kind="private")
    )
    h1 = store.start_hand(first, 0, seed=1, dealer=0, streak=0)
    store.append_events(h1, 0, [{"type": "start"}])
    store.finish_hand(h1, [pay(1, 0, 6)], {"result": "win", "winners": [0]})
    store.finish_match(first, "completed")
    second = store.create_match(spec([b.id, a.id, user.id, None], stake=1))
    h2 = store.start_hand(second, 0, seed=2, dealer=0, streak=0)
    store.finish_hand(h2, [pay(1, 2, 12)], {"result": "win"})
    history = store.history(a.id)
    assert [m.match_id for m in history] == [second, first]
    newest, oldest = history
    assert (newest.seat, newest.coins, newest.status) == (1, -12, "playing")
    assert (oldest.seat, oldest.coins, oldest.status, oldest.reason) == (
        0,
        12,
        "completed",
        "completed",
    )
    assert oldest.code == "123456" and oldest.kind == "private"
    assert oldest.seat_names[:2] == (a.name, b.name)
    assert oldest.seat_names[2].startswith("bot:")
    assert oldest.hand_records[0].result == {"result": "win", "winners": [0]}
    assert store.history(a.id, limit=1)[0].match_id == second
    log = store.hand_log(h1)
    assert (log.match_id, log.stake, log.seat_accounts) == (first, 2, (a.id, b.id, None, None))
    assert log.events == ({"type": "start"},)


# ---------------------------------------------------------------- invariants and concurrency
payment_lists = st.lists(
    st.builds(
        pay,
        st.integers(0, 3),
        st.integers(0, 3),
        st.integers(0, 400),
    ).filter(lambda p: p.payer != p.payee),
    max_size=12,
)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    payments=payment_lists,
    humans=st.lists(st.booleans(), min_size=4, max_size=4),
    stake=st.integers(0, 50),
)
def test_R41_ledger_zero_sum_and_balances_match_for_any_payments(
    store: Store, payments: list[Payment], humans: list[bool], stake: int
) -> None:
    seats = [store.create_guest().id if human else None for human in humans]
    before = {s: store.account(s).balance for s in seats if s is not None}
    match = store.create_match(spec(seats, stake=stake))
    hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    rows = store.finish_hand(hand, payments, {})
    assert len(rows) == len(payments)
    for row, payment in zip(rows, payments, strict=True):
        assert row.requested == payment.points * stake
        assert row.coins + row.cut == row.requested and row.cut >= 0
    for account_id, balance in before.items():
        after = store.account(account_id).balance
        assert after >= 0
        moved = sum(r.coins for r in rows if r.payee == account_id) - sum(
            r.coins for r in rows if r.payer == account_id
        )
        assert after == balance + moved
    assert_sound(store)


def test_concurrent_finish_hand_from_threads_loses_no_update(store: Store) -> None:
    players = [store.create_guest() for _ in range(3)]
    ids = [p.id for p in players]
    hands = []
    for i in range(12):
        seats = [ids[i % 3], ids[(i + 1) % 3], None, ids[(i + 2) % 3]]
        match = store.create_match(spec(seats, stake=3))
        hands.append(store.start_hand(match, 0, seed=i, dealer=0, streak=0))

    def settle(hand: int) -> None:
        store.finish_hand(hand, [pay(0, 1, 30), pay(2, 3, 18), pay(3, 0, 6)], {})

    assert run_in_threads(settle, hands) == []
    # every player sat at each seat position 4 times: per round of 3 hands the nets cancel
    # except through the bot at seat 2, which paid 18 x 3 to seat 3 each hand
    total = sum(store.account(i).balance for i in ids)
    assert total == 3 * 1000 + 12 * 18 * 3
    assert_sound(store)


SETTLE_IN_PROCESS = """
import sys
from duyun.engine import Payment
from duyun.server.store import Store

url, hands = sys.argv[1], [int(h) for h in sys.argv[2:]]
store = Store.open(url)
rows = [
    Payment(0, 1, 1, 30, "R28", "x"),
    Payment(2, 3, 1, 18, "R28", "y"),
    Payment(3, 0, 1, 6, "R29", "z"),
]
print("ready", flush=True)
sys.stdin.readline()  # start together
for hand in hands:
    store.finish_hand(hand, rows, {"by": "process"})
store.close()
"""


def test_concurrent_finish_hand_from_processes_loses_no_update(
    database_url: str, make_store: MakeStore
) -> None:
    """Three OS processes settle hands of the same three accounts at the same time."""
    store = make_store(database_url)
    ids = [store.create_guest().id for _ in range(3)]
    hands = []
    for i in range(12):
        seats = [ids[i % 3], ids[(i + 1) % 3], None, ids[(i + 2) % 3]]
        match = store.create_match(spec(seats, stake=3))
        hands.append(store.start_hand(match, 0, seed=i, dealer=0, streak=0))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", SETTLE_IN_PROCESS, database_url, *map(str, hands[w::3])],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(3)
    ]
    for worker in workers:  # every process has its connection pool ready
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "ready", worker.communicate(timeout=30)
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    for worker in workers:
        _, errors = worker.communicate(timeout=120)
        assert worker.returncode == 0, errors
    assert sum(store.account(i).balance for i in ids) == 3 * 1000 + 12 * 18 * 3
    assert all(store.hand_log(h).status == "finished" for h in hands)
    assert_sound(store)
