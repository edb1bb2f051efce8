"""The group-committing event writer (server/writer.py): the moves of many tables that arrive
while one write runs are stored together by the next, each caller hears its own outcome."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from duyun.server.config import MAX_COMMIT_WAIT, ConfigError, ServerConfig
from duyun.server.metrics import Metrics
from duyun.server.store import ConflictError, MatchSpec, SeatSpec, Store
from duyun.server.writer import EventWriter


def _hands(store: Store, count: int) -> list[int]:
    guest = store.create_guest()
    hands = []
    for n in range(count):
        human = SeatSpec(guest.id, None) if n == 0 else SeatSpec(None, "random")
        seats = (human, *(SeatSpec(None, "random") for _ in range(3)))
        match = store.create_match(
            MatchSpec(kind="room", room="novice", stake=1, hands=1, seats=seats, seed=n)
        )
        hands.append(store.start_hand(match, 0, seed=n, dealer=0, streak=0))
    return hands


def _count_transactions(store: Store) -> list[int]:
    """The sizes of the store's ``append_events_many`` calls (the writer's transactions), as
    they are made."""
    calls: list[int] = []
    original = store.append_events_many

    def counting(appends: Any) -> Any:
        calls.append(len(appends))
        return original(appends)

    store.append_events_many = counting  # type: ignore[method-assign]
    return calls


def test_writer_batches_concurrent_tables_and_reports_each_error(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'writer.db'}")
    calls = _count_transactions(store)
    try:
        hands = _hands(store, 12)

        async def play() -> list[BaseException | None]:
            writer = EventWriter(store)
            await writer.append(hands[0], 0, [{"type": "start"}])
            jobs = [writer.append(hand, 0, [{"type": "start", "hand": hand}]) for hand in hands[1:]]
            jobs.append(writer.append(hands[0], 0, [{"type": "again"}]))  # seq 0 is taken
            return await asyncio.gather(*jobs, return_exceptions=True)

        outcomes = asyncio.run(play())
        assert outcomes[:-1] == [None] * 11
        assert isinstance(outcomes[-1], ConflictError)
        # the first append ran alone; the twelve that came while nothing was in flight, or
        # while one write ran, took at most two more transactions
        assert calls[0] == 1 and sum(calls) == 13 and len(calls) <= 3
        for hand in hands[1:]:
            assert [e.get("hand") for e in store.hand_log(hand).events] == [hand]
        assert [e["type"] for e in store.hand_log(hands[0]).events] == ["start"]
    finally:
        store.close()


def test_writer_passes_a_database_failure_to_every_waiter(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'down.db'}")
    hands = _hands(store, 2)

    def broken(appends: Any) -> Any:
        raise RuntimeError("database unreachable")

    store.append_events_many = broken  # type: ignore[method-assign]
    try:

        async def play() -> list[BaseException | None]:
            writer = EventWriter(store)
            return await asyncio.gather(
                *(writer.append(hand, 0, [{"type": "start"}]) for hand in hands),
                return_exceptions=True,
            )

        outcomes = asyncio.run(play())
        assert len(outcomes) == 2 and all(isinstance(o, RuntimeError) for o in outcomes)
        assert store.hand_log(hands[0]).events == ()
    finally:
        store.close()


def test_commit_wait_gathers_the_moves_of_its_window_into_one_commit_and_counts_the_wait(
    tmp_path: Path,
) -> None:
    """``commit_wait``: a move waits (at most that long) for other tables' moves, which then
    share its transaction; each move is stored before its append returns, as without the
    wait, and the observer hears each batch's size and how long it was held. Without the
    wait the same moves, coming a turn of the loop apart, take a commit each but the ones
    that came while a write ran."""
    store = Store.open(f"sqlite:///{tmp_path / 'wait.db'}")
    calls = _count_transactions(store)
    observed: list[tuple[int, float]] = []
    try:
        hands = _hands(store, 8)

        async def play(writer: EventWriter, tables: list[int], seq: int) -> float:
            loop = asyncio.get_running_loop()
            started = loop.time()
            moves = []
            for hand in tables:  # the tables move a turn of the loop apart
                moves.append(asyncio.create_task(writer.append(hand, seq, [{"type": "start"}])))
                await asyncio.sleep(0)
            await asyncio.gather(*moves)
            return loop.time() - started

        def record(n: int, held: float) -> None:
            observed.append((n, held))

        async def both() -> tuple[float, float]:
            waiting = EventWriter(store, wait=MAX_COMMIT_WAIT, observe=record)
            together = await play(waiting, hands[:4], 0)
            alone = await play(waiting, hands[:1], 1)  # a move alone waits its window, then goes
            await play(EventWriter(store, observe=record), hands[4:], 0)
            return together, alone

        together, alone = asyncio.run(both())
        assert calls[:2] == [4, 1] and len(calls) > 3 and sum(calls) == 9
        assert [n for n, _ in observed] == calls
        for _, held in observed[:2]:
            assert 0 < held <= MAX_COMMIT_WAIT
        assert all(held == 0.0 for _, held in observed[2:])
        assert together >= MAX_COMMIT_WAIT and alone >= MAX_COMMIT_WAIT
        for hand in hands:
            assert store.hand_log(hand).events  # stored before the appends returned
    finally:
        store.close()


def test_without_commit_wait_a_move_is_written_at_once() -> None:
    """The default: no wait, the observer hears held 0.0; a wait outside 0..0.1 s is refused."""

    class Recording:
        def append_events_many(self, appends: Any) -> list[None]:
            return [None] * len(appends)

    observed: list[tuple[int, float]] = []

    async def play() -> None:
        writer = EventWriter(Recording(), observe=lambda n, held: observed.append((n, held)))  # type: ignore[arg-type]
        await writer.append(1, 0, [{"type": "start"}])

    asyncio.run(play())
    assert observed == [(1, 0.0)]
    for wait in (-0.01, 0.2):
        with pytest.raises(ValueError, match=r"commit wait must be 0\.\.0\.1 s"):
            EventWriter(Recording(), wait=wait)  # type: ignore[arg-type]


def test_the_batches_and_the_commit_wait_are_counted_in_metrics() -> None:
    metrics = Metrics()
    metrics.event_batch(3, 0.008)
    metrics.event_batch(1, 0.0)
    text = metrics.render().decode()
    assert "duyun_event_batches_total 2.0" in text
    assert "duyun_event_appends_total 4.0" in text
    assert "duyun_commit_wait_seconds_total 0.008" in text


@pytest.mark.parametrize("wait", [-0.001, 0.11, float("nan")])
def test_a_commit_wait_outside_its_range_is_refused_by_the_config(wait: float) -> None:
    with pytest.raises(ConfigError, match="commit_wait must be"):
        ServerConfig(commit_wait=wait)
