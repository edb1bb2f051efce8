"""Writes are fenced by the match lease (issue 20 item 9), on SQLite and PostgreSQL.

A process paused past its lease must not store what it had buffered once another process
adopted its match: every write names the owner and epoch its table holds, each adoption bumps
the epoch, and a stale write is refused with :class:`LeaseLostError` while the adopter's writes
go on. A lost race on the sequence while still holding the lease stays a ConflictError (the
table reloads and goes on).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duyun.engine import Payment
from duyun.server.store import (
    ConflictError,
    Lease,
    LeaseLostError,
    MatchSpec,
    SeatSpec,
    Store,
    StoreError,
)

MakeStore = Callable[..., Store]


def _spec(account: int) -> MatchSpec:
    return MatchSpec(
        kind="room",
        room="novice",
        stake=1,
        hands=2,
        seats=(
            SeatSpec(account),
            SeatSpec(None, "random"),
            SeatSpec(None, "random"),
            SeatSpec(None, "random"),
        ),
        seed=7,
    )


def _one_settlement_per_hand(store: Store, hand_id: int) -> int:
    """How many settlements (distinct sets of coin rows) the hand has: rows of one
    ``finish_hand`` share a transaction, so two settlements show up as twice the rows."""
    return len([r for r in store.coin_ledger(store.house().id, 10_000) if r.hand_id == hand_id])


def test_r41_stale_owner_writes_refused_after_takeover_new_owner_goes_on(
    database_url: str, make_store: MakeStore
) -> None:
    now = [1000.0]
    old = make_store(database_url, clock=lambda: now[0])  # the process that gets paused
    new = make_store(database_url, clock=lambda: now[0])
    player = old.create_guest()
    match = old.create_match(_spec(player.id), owner="p1")
    mine = Lease("p1", 0)
    hand = old.start_hand(match, 0, seed=11, dealer=0, streak=0, lease=mine)
    old.append_events(hand, 0, [{"type": "start", "n": 0}], lease=mine)

    now[0] += 31  # p1 paused past its lease; p2 adopts the match
    (adopted,) = new.live_matches(owner="p2", include_own=False)
    assert adopted.match_id == match
    assert adopted.lease == Lease("p2", 1)
    assert adopted.hand is not None and len(adopted.hand.events) == 1

    # p1 wakes up with a buffered move: every kind of write is refused, nothing is stored
    with pytest.raises(LeaseLostError, match="another process adopted it"):
        old.append_events(hand, 1, [{"type": "stale"}], lease=mine)
    (refused,) = old.append_events_many([(hand, 1, [{"type": "stale"}], mine)])
    assert isinstance(refused, LeaseLostError)
    with pytest.raises(LeaseLostError):
        old.finish_hand(hand, [Payment(1, 0, 1, 2, "R20", "stale")], {"stale": True}, lease=mine)
    with pytest.raises(LeaseLostError):
        old.mark_forced_tuoguan(match, 0, lease=mine)
    with pytest.raises(LeaseLostError):
        old.finish_match(match, "dissolved", lease=mine)
    with pytest.raises(LeaseLostError):
        old.start_hand(match, 1, seed=12, dealer=0, streak=0, lease=mine)
    with pytest.raises(LeaseLostError):
        old.update_seats(match, _spec(player.id).seats, lease=mine)
    log = new.hand_log(hand)
    assert [e["type"] for e in log.events] == ["start"]
    assert log.status == "playing"

    # the adopter's writes all succeed: its sequence is intact
    theirs = adopted.lease
    new.append_events(hand, 1, [{"type": "move", "n": 1}], lease=theirs)
    assert new.append_events_many([(hand, 2, [{"type": "move", "n": 2}], theirs)]) == [None]
    rows = new.finish_hand(hand, [Payment(1, 0, 1, 2, "R20", "win")], {"ok": True}, lease=theirs)
    assert [r.coins for r in rows] == [2]
    new.finish_match(match, "dissolved", lease=theirs)
    assert _one_settlement_per_hand(new, hand) == 1
    assert new.audit().ok
    assert new.account(player.id).balance == player.balance + 2


def test_an_adoption_sweep_tries_only_the_leases_it_could_take(
    database_url: str, make_store: MakeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every process sweeps for dead processes' matches every ``lease_renew_every`` seconds.
    The sweep tries to claim (one UPDATE each) only the matches whose lease is free or
    expired, never the fresh leases of live processes: at 1,600 tables on four processes a
    sweep that tried them all ran 1,200 fruitless UPDATEs per process every 10 s. Its own
    expired leases are still never taken by its own sweep (that would fence its own table)."""
    now = [1000.0]
    live = make_store(database_url, clock=lambda: now[0])  # p1: renews its leases
    sweeper = make_store(database_url, clock=lambda: now[0])  # p2
    player = live.create_guest()
    renewed = [live.create_match(_spec(player.id), owner="p1") for _ in range(3)]
    orphan = live.create_match(_spec(player.id), owner="p3")  # p3 dies at once
    own = sweeper.create_match(_spec(player.id), owner="p2")  # p2 is slow to renew it
    claims: list[int] = []
    claim = sweeper._claim

    def counted(match_id: int, owner: str, lease_seconds: float, include_own: bool) -> bool:
        claims.append(match_id)
        return claim(match_id, owner, lease_seconds, include_own)

    monkeypatch.setattr(sweeper, "_claim", counted)
    assert sweeper.live_matches(owner="p2", include_own=False) == []
    assert claims == []  # every lease fresh: not one UPDATE

    now[0] += 20
    assert live.renew_leases("p1", 30) == sorted(renewed)
    now[0] += 15  # p3's and p2's own leases have run out, p1's have not
    (adopted,) = sweeper.live_matches(owner="p2", include_own=False)
    assert adopted.match_id == orphan and claims == [orphan]
    assert sweeper.renew_leases("p2", 30) == sorted([own, orphan])  # its own kept, unfenced


def test_restart_with_the_same_owner_takes_a_new_epoch(
    database_url: str, make_store: MakeStore
) -> None:
    """An old incarnation of the same ``--owner`` (paused, not dead) is fenced out too."""
    store = make_store(database_url)
    player = store.create_guest()
    match = store.create_match(_spec(player.id), owner="p1")
    hand = store.start_hand(match, 0, seed=3, dealer=0, streak=0, lease=Lease("p1", 0))
    (restored,) = store.live_matches(owner="p1")
    assert restored.lease == Lease("p1", 1)
    with pytest.raises(LeaseLostError):
        store.append_events(hand, 0, [{"type": "start"}], lease=Lease("p1", 0))
    store.append_events(hand, 0, [{"type": "start"}], lease=restored.lease)


def test_sequence_conflict_while_holding_the_lease_is_a_conflict_not_a_lost_lease(
    database_url: str, make_store: MakeStore
) -> None:
    store = make_store(database_url)
    player = store.create_guest()
    match = store.create_match(_spec(player.id), owner="p1")
    lease = Lease("p1", 0)
    hand = store.start_hand(match, 0, seed=3, dealer=0, streak=0, lease=lease)
    store.append_events(hand, 0, [{"type": "start"}, {"type": "a"}], lease=lease)
    with pytest.raises(ConflictError) as caught:
        store.append_events(hand, 1, [{"type": "b"}], lease=lease)
    assert not isinstance(caught.value, LeaseLostError)
    (outcome,) = store.append_events_many([(hand, 1, [{"type": "b"}], lease)])
    assert isinstance(outcome, ConflictError)
    # the table reloads: the lease is taken anew and the log read back
    live = store.live_match(match, "p1")
    assert live is not None and live.lease == Lease("p1", 1)
    assert live.hand is not None and len(live.hand.events) == 2
    assert store.live_match(match, "p2") is None  # p1's unexpired lease: not p2's to reload


def test_lease_errors_are_store_errors_with_a_clear_message(
    database_url: str, make_store: MakeStore
) -> None:
    store = make_store(database_url)
    player = store.create_guest()
    match = store.create_match(_spec(player.id), owner="p1")
    with pytest.raises(StoreError, match=r"match \d+ is no longer this process's"):
        store.start_hand(match, 0, seed=3, dealer=0, streak=0, lease=Lease("p9", 0))
    with pytest.raises(StoreError, match=r"match id must be 1\.\.2147483647, got 0"):
        store.live_match(0, "p1")


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(owners=st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=6))
def test_only_the_latest_adopter_can_append(
    owners: list[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """However the match changes hands, exactly the lease of the last adoption writes and the
    log has no event of any earlier holder after its adoption."""
    now = [0.0]
    path = tmp_path_factory.mktemp("lease") / "lease.db"
    store = Store.open(f"sqlite:///{path}", clock=lambda: now[0])
    try:
        player = store.create_guest()
        match = store.create_match(_spec(player.id), owner="first")
        held = [Lease("first", 0)]
        hand = store.start_hand(match, 0, seed=1, dealer=0, streak=0, lease=held[0])
        for stored, owner in enumerate(owners):
            now[0] += 31
            live = store.live_match(match, owner) if owner == held[-1].owner else None
            if live is None:
                (live,) = store.live_matches(owner=owner, include_own=False)
            held.append(live.lease)
            for stale in held[:-1]:
                assert (
                    store.append_events_many([(hand, stored, [{"by": stale.owner}], stale)])[
                        0
                    ].__class__
                    is LeaseLostError
                )
            store.append_events(hand, stored, [{"by": owner}], lease=held[-1])
        assert [e["by"] for e in store.hand_log(hand).events] == owners
        assert len({lease.epoch for lease in held}) == len(held)
    finally:
        store.close()


def test_writer_batch_refuses_only_the_stale_table_and_writes_the_others(
    database_url: str, make_store: MakeStore
) -> None:
    """One group commit carries moves of several tables: the one whose match was adopted gets
    LeaseLostError, the others' moves are stored."""
    import asyncio

    from duyun.server.writer import EventWriter

    now = [1000.0]
    store = make_store(database_url, clock=lambda: now[0])
    player = store.create_guest()
    other = store.create_guest()
    lost_match = store.create_match(_spec(player.id), owner="p1")
    kept_match = store.create_match(_spec(other.id), owner="p1")
    lost_hand = store.start_hand(lost_match, 0, seed=1, dealer=0, streak=0)
    kept_hand = store.start_hand(kept_match, 0, seed=2, dealer=0, streak=0)
    now[0] += 31
    store.renew_leases("p1")  # kept_match renewed...
    with store._session() as session:  # ...but lost_match adopted by p2 meanwhile
        from sqlalchemy import update

        from duyun.server.store.models import MatchRow

        session.execute(
            update(MatchRow)
            .where(MatchRow.id == lost_match)
            .values(lease_owner="p2", lease_epoch=MatchRow.lease_epoch + 1)
        )

    async def main() -> list[BaseException | None]:
        writer = EventWriter(store)
        outcomes = await asyncio.gather(
            writer.append(lost_hand, 0, [{"type": "start"}], Lease("p1", 0)),
            writer.append(kept_hand, 0, [{"type": "start"}], Lease("p1", 0)),
            return_exceptions=True,
        )
        return list(outcomes)

    lost, kept = asyncio.run(main())
    assert isinstance(lost, LeaseLostError)
    assert kept is None
    assert store.hand_log(lost_hand).events == ()
    assert len(store.hand_log(kept_hand).events) == 1


def test_a_cleanly_stopped_owner_releases_its_leases_for_a_restart_under_any_name(
    database_url: str, make_store: MakeStore
) -> None:
    """A process with a made-up owner (PostgreSQL without --owner) comes back under another
    name: its matches must not wait for their leases to expire after a clean stop."""
    from fastapi.testclient import TestClient

    from duyun.server.app import create_app
    from duyun.server.config import ServerConfig

    store = make_store(database_url)
    player = store.create_guest()
    app = create_app(ServerConfig(), database_url, owner="host-1-aaaa")
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 200
        match = store.create_match(_spec(player.id), owner="host-1-aaaa")
        assert store.match_owner(match) == "host-1-aaaa"
    assert store.match_owner(match) is None
    (restored,) = store.live_matches(owner="host-2-bbbb")  # the restart, at once
    assert restored.lease == Lease("host-2-bbbb", 1)


def test_a_process_stopped_inside_a_transaction_does_not_block_the_adoption(
    fresh_postgres_url: str, make_store: MakeStore
) -> None:
    """PostgreSQL: a process stopped (SIGSTOP, a frozen VM) in the middle of a transaction that
    locked its match row -- a lease renewal's ``FOR UPDATE`` -- would keep the lock as long as
    it is stopped, and the adopter's claim would wait on it for ever. The store's sessions end
    a transaction left idle longer than ``IDLE_IN_TRANSACTION_MS``, so the claim goes through
    soon after the lease ran out."""
    import threading
    import time

    from sqlalchemy import text

    from duyun.server.store.database import IDLE_IN_TRANSACTION_MS

    now = [1000.0]
    paused = make_store(fresh_postgres_url, clock=lambda: now[0])
    adopter = make_store(fresh_postgres_url, clock=lambda: now[0])
    match = paused.create_match(_spec(paused.create_guest().id), owner="p1")
    connection = paused._engine.connect()
    connection.begin()
    connection.execute(text("SELECT id FROM matches WHERE id = :id FOR UPDATE"), {"id": match})
    # p1 is stopped here, its transaction open; its lease runs out
    now[0] += 31
    adopted: list[int] = []
    started = time.monotonic()
    claim = threading.Thread(
        target=lambda: adopted.extend(
            live.match_id for live in adopter.live_matches(owner="p2", include_own=False)
        ),
        daemon=True,
    )
    claim.start()
    claim.join(timeout=IDLE_IN_TRANSACTION_MS / 1000 + 30)
    try:
        assert not claim.is_alive(), "the adopter still waits on the stopped process's lock"
        assert adopted == [match]
        assert time.monotonic() - started >= IDLE_IN_TRANSACTION_MS / 1000 * 0.9
    finally:
        connection.invalidate()  # PostgreSQL ended it: nothing to roll back
        connection.close()
