"""牌譜解析 on the server (issue 36 item 4): a review is computed once per (hand, seat), in
worker processes, only for the hand's players, within a queue limit and an hourly budget per
account, with its progress readable while it runs; docs/protocol.md "Reviews".

The end-to-end test plays a real one-hand match and reviews it through the REST API with the
real process pool; the bounds are tested on :class:`Reviewer` with an executor the test holds
back, so that "the queue is full" is a state the test makes, not a race it hopes to win.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import pickle
import time
from collections import OrderedDict
from concurrent.futures import Executor, Future
from typing import Any

import pytest

from duyun.bots import make_bot
from duyun.engine import Round
from duyun.engine.setup import deal_setup
from duyun.review import HandPlan, decision_events, hand_review_json, review_hand
from duyun.rules import DUYUN
from duyun.server import reviews
from duyun.server.config import ServerConfig
from duyun.server.metrics import Metrics
from duyun.server.reviews import REVIEW_SEED, Reviewer, ReviewRefused

pytestmark = pytest.mark.slow  # a server, a match and a process pool

SAMPLES = 4
METRICS_TOKEN = "reviews-" + "r" * 24


def _finished_hand(server: Any, ws_client: Any, play: Any) -> tuple[dict[str, Any], ...]:
    """ann (seat 0) plays one hand against three bots; her session, the hand id, bob (who
    was not at the table)."""
    ann, bob = server.guest(), server.guest()
    code = server.create_table(ann["token"], hands=1, bot="efficient")

    async def main() -> dict[str, Any]:
        (client,) = await server.seat(ws_client, code, [ann])
        for seat in (1, 2, 3):
            await client.send(type="add_bot", seat=seat)
        await client.send(type="ready")
        end: dict[str, Any] = await play(client, 3)
        await client.close()
        return end

    end = asyncio.run(main())
    return ann, {"hand_id": end["results"][0]["hand_id"]}, bob


def _wait_done(server: Any, path: str, token: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Poll the review until it is done (a readiness check), keeping every answer seen."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer = server.http.get(path, headers=server.auth(token))
        assert answer.status_code == 200, answer.text
        seen.append(answer.json())
        if seen[-1]["status"] == "done":
            return seen[-1], seen
        assert seen[-1]["status"] in ("queued", "running"), seen[-1]
        time.sleep(0.05)  # polling the server's answer, not waiting for a guess of the time
    raise AssertionError(f"no review after 120 s: {seen[-3:]}")


def test_a_players_review_is_computed_once_and_is_the_librarys_review(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    server = live_server(review_samples=SAMPLES, metrics_token=METRICS_TOKEN)
    ann, hand, bob = _finished_hand(server, ws_client, play)
    path = f"/api/hands/{hand['hand_id']}/review"
    headers = server.auth(ann["token"])
    assert server.http.get(path, headers=headers).json()["status"] == "none"
    # only the hand's players may ask, as only they may replay it
    refused = server.http.post(path, headers=server.auth(bob["token"]))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_a_player"

    started = server.http.post(path, headers=headers)
    assert started.status_code == 202, started.text
    progress = started.json()
    assert progress["seat"] == 0 and progress["status"] in ("queued", "running")
    assert progress["total"] >= 1 and 0 <= progress["done"] <= progress["total"]
    again = server.http.post(path, headers=headers)  # joins the review under way
    assert again.status_code in (200, 202)
    done, seen = _wait_done(server, path, ann["token"])
    counts = [answer["done"] for answer in seen if answer["status"] != "done"]
    assert counts == sorted(counts)  # progress never goes back

    log = server.http.get(f"/api/hands/{hand['hand_id']}/log", headers=headers).json()
    expected = review_hand(log["events"], 0, samples=SAMPLES, seed=REVIEW_SEED).to_json()
    assert done["review"] == expected  # decision by decision in workers, the same review
    stored = server.store.stored_review(hand["hand_id"], 0)
    assert stored is not None and stored.cpu_seconds > 0

    # asked again, it is read back, not computed again
    read = server.http.post(path, headers=headers)
    assert read.status_code == 200 and read.json()["review"] == expected
    metrics = server.http.get("/metrics", headers=server.auth(METRICS_TOKEN)).text
    assert 'duyun_reviews_total{outcome="done"} 1.0' in metrics
    assert "duyun_reviews_pending 0.0" in metrics


def test_reviews_are_refused_clearly(live_server: Any, ws_client: Any, play: Any) -> None:
    server = live_server(review_workers=0)
    ann, hand, _ = _finished_hand(server, ws_client, play)
    path = f"/api/hands/{hand['hand_id']}/review"
    headers = server.auth(ann["token"])
    off = server.http.post(path, headers=headers)
    assert off.status_code == 503 and off.json()["error"]["code"] == "reviews_off"
    for query, field in (("?seat=4", "seat"), ("?seat=x", "seat")):
        bad = server.http.post(path + query, headers=headers)
        assert bad.status_code == 400 and field in bad.json()["error"]["message"], bad.text
    missing = server.http.post("/api/hands/999999/review", headers=headers)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "hand_not_found"
    anonymous = server.http.post(path)
    assert anonymous.status_code == 401


def test_public_replays_open_logs_and_reviews_to_everyone_signed_in(
    live_server: Any, ws_client: Any, play: Any
) -> None:
    server = live_server(review_workers=0, public_replays=True)
    _, hand, bob = _finished_hand(server, ws_client, play)
    headers = server.auth(bob["token"])
    assert server.http.get(f"/api/hands/{hand['hand_id']}/log", headers=headers).status_code == 200
    path = f"/api/hands/{hand['hand_id']}/review"
    unnamed = server.http.get(path, headers=headers)  # bob has no seat in it: he must name one
    assert unnamed.status_code == 400 and "seat" in unnamed.json()["error"]["message"]
    named = server.http.get(path + "?seat=2", headers=headers)
    assert named.status_code == 200 and named.json() == {
        "hand_id": hand["hand_id"],
        "seat": 2,
        "status": "none",
    }
    # and may ask for it: past the access check, this server (no workers) says it does not review
    asked = server.http.post(path + "?seat=2", headers=headers)
    assert asked.status_code == 503 and asked.json()["error"]["code"] == "reviews_off"


# ------------------------------------------------------------------ the bounds, on Reviewer


class HeldExecutor(Executor):
    """Runs nothing until the test releases it: the state "every worker is busy"."""

    def __init__(self) -> None:
        self.waiting: list[tuple[Future[Any], Any, tuple[Any, ...]]] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self.waiting.append((future, fn, args))
        return future

    def release(self) -> None:
        for future, fn, args in self.waiting:
            try:
                future.set_result(fn(*args))
            except Exception as error:
                future.set_exception(error)
        self.waiting.clear()


class MemoryStore:
    def __init__(self) -> None:
        self.saved: dict[tuple[int, int], Any] = {}

    def save_review(self, hand_id: int, seat: int, *rest: Any) -> Any:
        self.saved[(hand_id, seat)] = rest
        return rest


async def _call(function: Any, *args: Any) -> Any:
    return function(*args)


def _events(seed: int = 7) -> list[dict[str, Any]]:
    """A finished hand of four efficient bots, as its log."""
    game = Round(deal_setup(seed), DUYUN)
    bots = [make_bot("efficient", seed=index) for index in range(4)]
    while not game.is_over:
        seat = game.to_act[0]
        game.apply(bots[seat].choose(game.view(seat)))
    events: list[dict[str, Any]] = json.loads(json.dumps(game.events, ensure_ascii=False))
    return events


def test_the_queue_and_the_hourly_budget_bound_the_work() -> None:
    events = _events()
    clock = [0.0]
    executor = HeldExecutor()
    store = MemoryStore()
    config = ServerConfig(review_queue=2, reviews_per_hour=3, review_samples=4)
    reviewer = Reviewer(config, store, _call, Metrics(), executor, clock=lambda: clock[0])  # type: ignore[arg-type]

    async def main() -> None:
        first = reviewer.start(1, 10, 0, events)
        assert reviewer.start(2, 10, 0, events) is first  # a second asker joins it, free
        second = reviewer.start(1, 10, 1, events)
        await asyncio.sleep(0)  # the jobs hand their decisions to the executor
        assert second.total == sum(e.get("seat") == 1 for e in events if e["type"] == "act")
        assert reviewer.progress(10, 1) == {
            "status": "queued",
            "done": 0,
            "total": second.total,
            "ahead": 1,
        }
        with pytest.raises(ReviewRefused) as busy:
            reviewer.start(3, 11, 0, events)
        assert busy.value.code == "review_busy" and busy.value.retry_after > 0
        executor.release()
        for job in list(reviewer.jobs.values()):
            assert job.task is not None
            await job.task
        assert set(store.saved) == {(10, 0), (10, 1)} and reviewer.pending == 0
        reviewer.start(1, 11, 0, events)  # account 1's third new review this hour
        with pytest.raises(ReviewRefused) as spent:
            reviewer.start(1, 11, 1, events)
        assert spent.value.code == "rate_limited" and 0 < spent.value.retry_after <= 3600
        clock[0] += 3601  # an hour later the budget is back
        reviewer.start(1, 11, 1, events)
        await asyncio.sleep(0)
        executor.release()
        for job in list(reviewer.jobs.values()):
            assert job.task is not None
            await job.task
        assert set(store.saved) == {(10, 0), (10, 1), (11, 0), (11, 1)}

    asyncio.run(main())


def test_a_hand_that_cannot_be_reviewed_fails_with_a_reason_and_may_be_asked_again() -> None:
    events = _events()
    cut = [e for e in events if e.get("type") != "end"]  # the log of an unfinished hand
    executor = HeldExecutor()
    reviewer = Reviewer(ServerConfig(), MemoryStore(), _call, Metrics(), executor)  # type: ignore[arg-type]

    async def main() -> None:
        job = reviewer.start(1, 5, 0, cut)
        await asyncio.sleep(0)
        executor.release()
        assert job.task is not None and await job.task is None
        failed = reviewer.progress(5, 0)
        assert failed is not None and failed["status"] == "failed"
        assert "cannot be reviewed" in failed["reason"]
        reviewer.start(1, 5, 0, events)  # asked again: a new attempt
        assert reviewer.progress(5, 0) is not None
        assert reviewer.progress(5, 0)["status"] == "queued"  # type: ignore[index]

    asyncio.run(main())


def test_a_worker_replays_a_hand_once_for_all_its_decisions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The log travels as one pickled blob and a worker replays it (with the strong bot's
    advice) once, not once per decision; the parts still make the library's review."""
    events = _events()
    built: list[int] = []

    class CountedPlan(HandPlan):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(reviews, "HandPlan", CountedPlan)
    monkeypatch.setattr(reviews, "_plans", OrderedDict())
    blob = pickle.dumps(events)
    digest = hashlib.blake2b(blob, digest_size=16).digest()
    decisions: list[dict[str, Any]] = []
    points = 0
    parts = decision_events(events, 2)
    for event in parts:
        found, points, _ = reviews.review_part(digest, blob, 2, 4, REVIEW_SEED, event)
        decisions.extend(found)
    assert len(parts) > 3 and built == [1]
    expected = review_hand(events, 2, samples=4, seed=REVIEW_SEED).to_json()
    assert hand_review_json(2, 4, REVIEW_SEED, points, decisions) == expected


def test_a_poll_while_the_review_is_stored_never_says_none() -> None:
    """A review is stored and then its job dropped; a poll that reads the store just before
    the save and the job just after saw neither and answered "none" (a CI dry run), which a
    page polling for the review would take as "never asked". The poll reads the job first."""
    from types import SimpleNamespace

    from duyun.server.api.reviews import Target, _status

    jobs: dict[tuple[int, int], dict[str, Any]] = {
        (5, 0): {"status": "running", "done": 3, "total": 4, "ahead": 0}
    }
    saved: dict[tuple[int, int], Any] = {}

    def stored_review(hand_id: int, seat: int) -> Any:
        found = saved.get((hand_id, seat))  # read before the save commits ...
        saved[(hand_id, seat)] = SimpleNamespace(review={"decisions": []})
        jobs.pop((hand_id, seat), None)  # ... and the job ends while the answer travels
        return found

    async def store_call(function: Any, *args: Any) -> Any:
        return function(*args)

    reviewer = SimpleNamespace(progress=lambda hand, seat: jobs.get((hand, seat)))
    target = Target(
        5,
        0,
        None,  # type: ignore[arg-type]
        reviewer,  # type: ignore[arg-type]
        SimpleNamespace(stored_review=stored_review),  # type: ignore[arg-type]
        SimpleNamespace(store_call=store_call),  # type: ignore[arg-type]
    )
    first = asyncio.run(_status(target))
    assert first is not None and first["status"] == "running"
    second = asyncio.run(_status(target))
    assert second is not None and second["status"] == "done"
