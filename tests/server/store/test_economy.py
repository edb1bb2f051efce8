"""The house's free coins (issue 32): the daily gift and the bankruptcy top-up (破產補助).

Both are ledger rows from the house, so the zero-sum audit holds (R41); a day is the server's
configured time zone's; per account and per client address; two claims at the same moment,
from threads or from OS processes, pay once. Every test runs on SQLite and PostgreSQL (the
``database_url`` fixture).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_store import run_in_threads

from duyun.engine import Payment
from duyun.server.config import ConfigError, ServerConfig
from duyun.server.store import (
    AlreadyClaimedError,
    Economy,
    MatchSpec,
    NotEligibleError,
    SeatSpec,
    Store,
    StoreError,
)

MakeStore = Callable[..., Store]
SRC = Path(__file__).resolve().parents[3] / "src"
#: 2026-12-05 23:59:00 in Asia/Shanghai (UTC+8): a minute before the day changes there
LATE = datetime(2026, 12, 5, 15, 59, tzinfo=UTC).timestamp()
ECONOMY = Economy()


def lose(store: Store, account_id: int, coins: int) -> None:
    """The account pays ``coins`` to a bot in a one-hand match (stake 1)."""
    seats = (SeatSpec(account_id), *(SeatSpec(None, "random") for _ in range(3)))
    match = store.create_match(MatchSpec("room", "novice", 1, 1, seats, seed=1))
    hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0)
    store.finish_hand(
        hand, [Payment(0, 1, 1, coins, "R28", "test")], {"totals": [-coins, coins, 0, 0]}
    )


def test_daily_gift_once_a_day_in_the_configured_time_zone_from_the_house(
    database_url: str, make_store: MakeStore
) -> None:
    now = [LATE]
    store = make_store(database_url, clock=lambda: now[0])
    guest = store.create_guest()
    gift, topup = store.bonus_states(guest.id, "10.0.0.1", ECONOMY)
    assert (gift.kind, gift.coins, gift.available) == ("gift", 100, True)
    assert topup.available is False and "below 100" in (topup.reason or "")
    row = store.claim_bonus(guest.id, "gift", "10.0.0.1", ECONOMY)
    assert (row.kind, row.payer, row.payee, row.coins) == ("gift", store.house().id, guest.id, 100)
    assert store.account(guest.id).balance == 1100
    with pytest.raises(AlreadyClaimedError) as refused:
        store.claim_bonus(guest.id, "gift", "10.0.0.1", ECONOMY)
    # the next day starts at midnight in Asia/Shanghai, 16:00 UTC
    assert refused.value.next_at == datetime(2026, 12, 5, 16, 0, tzinfo=UTC)
    assert store.bonus_states(guest.id, None, ECONOMY)[0].next_at == refused.value.next_at
    # in UTC it would still be the same day; in the configured zone it is not
    utc = Economy(time_zone="UTC")
    with pytest.raises(AlreadyClaimedError):
        store.claim_bonus(guest.id, "gift", None, utc)
    now[0] += 61
    assert store.claim_bonus(guest.id, "gift", "10.0.0.1", ECONOMY).coins == 100
    assert [r.kind for r in store.coin_ledger(guest.id)] == ["gift", "gift", "starting"]
    report = store.audit()
    assert report.ok, report
    assert store.check_zero_sum() == 0


def test_topup_to_a_set_amount_only_below_the_cheapest_entry_at_most_three_a_day(
    database_url: str, make_store: MakeStore
) -> None:
    store = make_store(database_url, clock=lambda: LATE - 3600)
    guest = store.create_guest()
    with pytest.raises(NotEligibleError, match="below 100 coins; you have 1000") as refused:
        store.claim_bonus(guest.id, "topup", None, ECONOMY)
    assert refused.value.next_at is None  # not until the balance falls
    lose(store, guest.id, 1000)
    for claim in range(3):
        assert store.account(guest.id).balance < 100
        state = store.bonus_states(guest.id, None, ECONOMY)[1]
        assert (state.available, state.left) == (True, 3 - claim)
        row = store.claim_bonus(guest.id, "topup", None, ECONOMY)
        assert row.kind == "topup" and store.account(guest.id).balance == 300
        lose(store, guest.id, 250)
    with pytest.raises(AlreadyClaimedError, match="3 a day") as refused:
        store.claim_bonus(guest.id, "topup", None, ECONOMY)
    assert refused.value.next_at == datetime(2026, 12, 5, 16, 0, tzinfo=UTC)
    assert store.account(guest.id).balance == 50
    report = store.audit()
    assert report.ok, report
    house = store.house_report()
    # the house paid the starting balance and three top-ups: from 0, then twice from 50
    assert (house.granted, house.bonuses) == (1000, 300 + 250 + 250)
    assert house.balance == house.hands_net - house.granted - house.bonuses


def test_the_address_cap_counts_every_guest_of_one_address(
    database_url: str, make_store: MakeStore
) -> None:
    store = make_store(database_url, clock=lambda: LATE)
    economy = Economy(gifts_per_address=2)
    guests = [store.create_guest() for _ in range(4)]
    for guest in guests[:2]:
        store.claim_bonus(guest.id, "gift", "203.0.113.9", economy)
    with pytest.raises(NotEligibleError, match="your address has claimed") as refused:
        store.claim_bonus(guests[2].id, "gift", "203.0.113.9", economy)
    assert refused.value.next_at is not None
    assert store.bonus_states(guests[2].id, "203.0.113.9", economy)[0].available is False
    store.claim_bonus(guests[2].id, "gift", "198.51.100.1", economy)  # another address
    store.claim_bonus(guests[3].id, "gift", None, economy)  # address unknown: no cap


def test_refusals_name_what_is_wrong(store: Store) -> None:
    guest = store.create_guest()
    with pytest.raises(StoreError, match="gift or topup"):
        store.claim_bonus(guest.id, "coins", None, ECONOMY)  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="account id"):
        store.claim_bonus(0, "gift", None, ECONOMY)
    with pytest.raises(NotEligibleError, match="the house"):
        store.claim_bonus(store.house().id, "gift", None, ECONOMY)
    with pytest.raises(NotEligibleError, match="switched off"):
        store.claim_bonus(guest.id, "gift", None, Economy(daily_gift=0))
    with pytest.raises(StoreError, match="topup_to"):
        Economy(topup_to=50, topup_below=100)
    with pytest.raises(ConfigError, match="time_zone"):
        ServerConfig(time_zone="Mars/Olympus")
    with pytest.raises(ConfigError, match="daily_gift"):
        ServerConfig(daily_gift=-1)
    assert ServerConfig().economy().topup_below == 100  # the novice room's entry


def test_two_claims_at_once_pay_once(store: Store) -> None:
    """Eight threads claim the same account's gift together: one is paid."""
    guest = store.create_guest()
    paid: list[int] = []
    errors = run_in_threads(
        lambda _: paid.append(store.claim_bonus(guest.id, "gift", "10.0.0.2", ECONOMY).coins),
        range(8),
    )
    assert paid == [100]
    assert len(errors) == 7 and all(isinstance(e, AlreadyClaimedError) for e in errors), errors
    assert store.account(guest.id).balance == 1100
    assert store.audit().ok


CLAIM_IN_PROCESS = """
import sys
from duyun.server.store import AlreadyClaimedError, Economy, Store

url, account = sys.argv[1], int(sys.argv[2])
store = Store.open(url)
print("ready", flush=True)
sys.stdin.readline()  # start together
try:
    store.claim_bonus(account, "gift", "10.0.0.3", Economy())
    print("paid", flush=True)
except AlreadyClaimedError:
    print("refused", flush=True)
store.close()
"""


@pytest.mark.slow  # starts OS processes
def test_two_claims_at_once_from_processes_pay_once(
    fresh_postgres_url: str, make_store: MakeStore
) -> None:
    """Three OS processes (as three server processes would) claim one gift together, on
    PostgreSQL (SQLite's one writer serialises them anyway; the threads' test covers it)."""
    database_url = fresh_postgres_url
    store = make_store(database_url)
    guest = store.create_guest()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", CLAIM_IN_PROCESS, database_url, str(guest.id)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for worker in workers:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "ready", worker.communicate(timeout=30)
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    answers = []
    for worker in workers:
        out, errors = worker.communicate(timeout=60)
        assert worker.returncode == 0, errors
        answers.append(out.strip())
    assert sorted(answers) == ["paid", "refused", "refused"]
    assert store.account(guest.id).balance == 1100
    assert store.audit().ok


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(["gift", "topup", "lose", "day"]),
            st.integers(0, 2),
            st.sampled_from(["a", "b", None]),
        ),
        max_size=25,
    )
)
def test_any_claims_keep_the_caps_and_the_ledger_sound(
    store: Store, steps: list[tuple[str, int, str | None]]
) -> None:
    """Whatever players do in whatever order: at most one gift and three top-ups per account
    and day, at most the address caps per address and day, a top-up only below the line, and
    every balance equal to its ledger rows (R41)."""
    economy = Economy(gifts_per_address=2, topups_per_address=4)
    guests = [store.create_guest().id for _ in range(3)]
    store.clock = lambda: LATE  # type: ignore[method-assign]
    day = 0
    paid: dict[tuple[str, int, int], int] = {}
    by_address: dict[tuple[str, str, int], int] = {}
    for action, who, address in steps:
        account = guests[who]
        if action == "day":
            day += 1
            store.clock = lambda d=day: LATE + 86_400 * d  # type: ignore[method-assign]
            continue
        if action == "lose":
            lose(store, account, min(400, store.account(account).balance))
            continue
        before = store.account(account).balance
        try:
            row = store.claim_bonus(account, action, address, economy)  # type: ignore[arg-type]
        except (AlreadyClaimedError, NotEligibleError):
            continue
        if action == "topup":
            assert before < economy.topup_below and before + row.coins == economy.topup_to
        paid[(action, account, day)] = paid.get((action, account, day), 0) + 1
        if address:
            key = (action, address, day)
            by_address[key] = by_address.get(key, 0) + 1
    assert all(n <= (1 if kind == "gift" else 3) for (kind, _, _), n in paid.items())
    assert all(n <= (2 if kind == "gift" else 4) for (kind, _, _), n in by_address.items())
    report = store.audit()
    assert report.ok, report
