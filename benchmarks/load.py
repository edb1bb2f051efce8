"""Load test of the online server: N concurrent tables of four websocket players on loopback.

Starts ``duyun serve`` as a subprocess on a fresh SQLite file (or uses ``--url`` of a running
server), creates N private tables without bots, seats four guest clients at each and lets them
play (a win when offered, else a random legal action) for a bounded time. It reports the action
round trip (from sending a turn action to receiving the events batch that carries it, p50/p99/
max) and every error. Claim answers are left out of the round trip: they are applied when the
claim window ends, by design (docs/protocol.md "Timing").

    python benchmarks/load.py                      # 100 tables, 400 clients, 60 s
    python benchmarks/load.py --tables 20 --duration 20 --claim-window 0.2
    python benchmarks/load.py --human --tables 300 --processes 4 \
        --database-url postgresql://user:pw@host/empty_db   # four processes, people's pace

``--processes N`` (PostgreSQL, an empty or throwaway database) starts N ``duyun serve``
processes with distinct ``--owner`` names and public URLs; the tables are opened round-robin on
them and each table's players talk to its process, as the proxy of docs/deploy.md routes them.
``--human`` answers every prompt after 1-3 s (a person's pace) with the server's default
4 s claim window, so a table makes a decision every second or two instead of every few
milliseconds: what a machine holds at that pace is its capacity in tables.
``--client-processes K`` drives the players from K processes (the tables dealt out among
them): one event loop reading thousands of sockets is late, and its lateness counts in the
round trip; its own figures are summed, the load generator's CPU included. The players read
with orjson and keep one deadline each: on this 2-core machine the load generator took as much
CPU as the server it measured, CPU the servers beside it did not get. (They stay on asyncio's
loop: uvloop installed beside the servers would be picked up by them too, docs/deploy.md.)
``--reviews N`` keeps N reviews (牌譜解析, docs/protocol.md "Reviews") of hands just played
asked for and polled during the run, as players opening 解析 would: the tables' round trip
beside a run without it shows what reviews cost them (issue 36 item 4).

Target (issue 9): 100 tables with p99 < 100 ms and zero errors on a 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson
import websockets

from server_process import SRC, free_port, start_server


@dataclass
class Stats:
    round_trips: list[float] = field(default_factory=list)
    #: when each of those turn actions was sent (monotonic): the steady state's round trips
    #: are those sent once every player was dealt in
    round_trip_starts: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    actions: int = 0
    claim_answers: int = 0
    hands: int = 0
    matches: int = 0
    messages: int = 0
    #: messages received by type: what a decision costs in frames (docs/deploy.md)
    kinds: Counter[str] = field(default_factory=Counter)
    late: int = 0
    #: how late the load generator's own event loop woke up (s): its share of any round trip
    loop_lags: list[float] = field(default_factory=list)
    #: server CPU seconds when play began (after the accounts and tables were made)
    cpu_at_play: float = 0.0
    play_started: float = 0.0
    #: finished hands a review may be asked for: (url, token of seat 0, hand id)
    reviewable: list[tuple[str, str, int]] = field(default_factory=list)
    #: seconds from asking for a review to reading it done
    review_times: list[float] = field(default_factory=list)
    review_refusals: int = 0
    #: when each player had its first hand's snapshot (monotonic, the same clock in every
    #: process of the machine); once all have, every table plays and the seating (hello,
    #: join, the match's start) is over: the steady state begins
    dealt_times: list[float] = field(default_factory=list)
    #: when each decision (turn action or claim answer) was sent
    decision_times: list[float] = field(default_factory=list)
    players: int = 0
    #: CPU seconds of the client processes (``--client-processes``; the main one is apart)
    client_cpu: float = 0.0
    #: (time, the servers' CPU seconds) every quarter second of play
    cpu_samples: list[tuple[float, float]] = field(default_factory=list)

    def decisions(self) -> int:
        return self.actions + self.claim_answers

    def add(self, other: Stats) -> None:
        """Take in a client process's figures (``--client-processes``)."""
        for name in (
            "round_trips",
            "round_trip_starts",
            "errors",
            "loop_lags",
            "dealt_times",
            "decision_times",
        ):
            getattr(self, name).extend(getattr(other, name))
        for name in (
            "actions",
            "claim_answers",
            "hands",
            "matches",
            "messages",
            "late",
            "client_cpu",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.kinds.update(other.kinds)
        self.reviewable.extend(other.reviewable)


def start_load_server(
    args: argparse.Namespace, workdir: Path, index: int = 0, log_dir: Path | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    config = workdir / f"load-{index}.toml"
    config.write_text(
        "\n".join(
            [
                f"turn_timer = {args.turn_timer}",
                f"claim_window = {args.claim_window}",
                "bot_delay = 0.05",
                "reconnect_grace = 60.0",
                "next_hand_wait = 0.2",
                # the load players never press 下一局, and the beat follows the window given
                "next_hand_limit = 0.2",
                f"claim_beat = {args.claim_window}",
                "rate_limit = 50.0",
                "rate_burst = 100",
                # every client of the load test comes from 127.0.0.1
                f"max_connections_per_address = {args.tables * 4 + 100}",
                f"max_connections = {args.tables * 4 + 100}",
                # hundreds of guests and tables from one address: the abuse limits are off
                "guests_per_minute = 0",
                "tables_per_minute = 0",
                "code_lookups_per_minute = 0",
                "open_tables_per_account = 0",
                'allowed_origins = ["*"]',
                # --reviews: the players asking are few and each asks many times
                "reviews_per_hour = 0",
                f"review_queue = {max(8, args.reviews)}",
                f"commit_wait = {args.commit_wait}",
            ]
        ),
        encoding="utf-8",
    )
    extra = ["--config", str(config)]
    if args.processes > 1:
        extra += ["--owner", f"load-{index}", "--public-url", f"http://127.0.0.1:{port}"]
    database_url = args.database_url or f"sqlite:///{workdir / 'load.db'}"
    log_path = (log_dir or workdir) / f"server-{index}.log"
    return start_server(database_url, log_path, extra, port)


async def _player(
    ws_url: str,
    http_url: str,
    token: str,
    code: str,
    seed: int,
    stats: Stats,
    stop_at: float,
    joined: asyncio.Event,
    think: tuple[float, float],
) -> None:
    # no pings of its own: a browser's WebSocket never sends one (the server's keepalive pings,
    # which a browser answers, still go out and are answered by the library)
    async with websockets.connect(ws_url, max_size=1 << 20, ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "version": 1, "token": token}))
        await ws.send(json.dumps({"type": "join", "code": code}))
        await ws.send(json.dumps({"type": "ready"}))
        joined.set()
        # one deadline for the whole run: a timer and a task for every message (`wait_for`)
        # cost this load generator more than reading the message did
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout_at(_loop_time_of(stop_at)):
                await _play(ws, http_url, token, random.Random(seed), stats, think)


async def _play(
    ws: websockets.ClientConnection,
    http_url: str,
    token: str,
    rng: random.Random,
    stats: Stats,
    think: tuple[float, float],
) -> None:
    """A seated player's part: answer every prompt, until its match ends."""
    pending: float | None = None  # when our last turn action was sent
    dealt_in = False
    seat: int | None = None
    while True:
        raw = await ws.recv()
        stats.messages += 1
        message = orjson.loads(raw)
        kind = message["type"]
        stats.kinds[kind] += 1
        if kind == "snapshot" and not dealt_in:
            dealt_in = True
            stats.dealt_times.append(time.monotonic())
        if kind == "table" and message["table"] is not None:
            seat = message["table"]["you"]
        elif kind == "error":
            if message["code"] == "too_late":  # a claim answer after its window closed
                stats.late += 1
            else:
                stats.errors.append(f"{message['code']}: {message['message']}")
        elif kind == "events" and pending is not None:
            first = message["events"][0]
            if first["type"] == "act" and first.get("seat") == seat:
                stats.round_trips.append(time.monotonic() - pending)
                stats.round_trip_starts.append(pending)
                pending = None
        elif kind == "prompt":
            legal = message["legal"]
            wins = [a for a in legal if a["action"] == "hu"]
            action = wins[0] if wins else rng.choice(legal)
            if think[1] > 0:  # people take a moment; it also keeps tables out of lockstep
                await asyncio.sleep(rng.uniform(*think))
            if message["kind"] == "turn":
                pending = time.monotonic()
                stats.actions += 1
            else:
                stats.claim_answers += 1
            stats.decision_times.append(time.monotonic())
            await ws.send(json.dumps({"type": "act", "prompt": message["id"], **action}))
        elif kind == "hand_end":
            if seat == 0:
                stats.hands += 1
                stats.reviewable.append((http_url, token, message["hand_id"]))
        elif kind == "match_end":
            if seat == 0:
                stats.matches += 1
            return


def _loop_time_of(monotonic: float) -> float:
    """``monotonic`` on the running loop's clock (``asyncio.timeout_at`` takes that clock)."""
    return asyncio.get_running_loop().time() + (monotonic - time.monotonic())


@dataclass(frozen=True)
class TableJob:
    """One table's four players, as a client process needs them."""

    ws_url: str
    http_url: str
    code: str
    tokens: tuple[str, str, str, str]
    seed: int


async def _run(
    args: argparse.Namespace, urls: list[str], processes: list[subprocess.Popen[bytes]]
) -> Stats:
    stats = Stats(players=args.tables * 4)
    limit = asyncio.Semaphore(8)

    async def guest(http: httpx.AsyncClient) -> str:
        async with limit:
            answer = await http.post("/api/guest")
            answer.raise_for_status()
            token: str = answer.json()["token"]
            return token

    clients = [httpx.AsyncClient(base_url=url, timeout=60) for url in urls]

    async def table(index: int, four: list[str]) -> TableJob:
        where = index % len(urls)  # round-robin over the processes
        async with limit:
            answer = await clients[where].post(
                "/api/tables",
                json={"hands": args.hands, "bots_allowed": False},
                headers={"Authorization": f"Bearer {four[0]}"},
            )
        answer.raise_for_status()
        ws_url = urls[where].replace("http", "ws", 1) + "/ws"
        code = answer.json()["code"]
        return TableJob(ws_url, urls[where], code, (four[0], four[1], four[2], four[3]), index * 4)

    try:
        # each table's guests are made on the process that will hold it: on one process alone
        # the setup of 2,000 tables took a minute and a half (it is not part of the figures)
        tokens = list(
            await asyncio.gather(
                *(guest(clients[(i // 4) % len(urls)]) for i in range(args.tables * 4))
            )
        )
        jobs = list(
            await asyncio.gather(*(table(i, tokens[i * 4 : i * 4 + 4]) for i in range(args.tables)))
        )
    finally:
        for client in clients:
            await client.aclose()
    stats.cpu_at_play = sum(cpu_seconds(p) for p in processes)
    stats.play_started = time.monotonic()
    stop_at = time.monotonic() + args.duration
    think = (1.0, 3.0) if args.human else (0.0, args.think)
    sampler = asyncio.create_task(_sample_cpu(processes, stats.cpu_samples, stop_at))
    reviewers = [asyncio.create_task(_reviewer(stats, stop_at)) for _ in range(args.reviews)]
    if args.client_processes == 1:
        await _play_tables(jobs, stats, stop_at, think)
    else:
        # the tables dealt out to several processes, each with its own event loop: one loop
        # driving thousands of sockets is late to read them, and that lateness would count
        # in the server's round trip
        loop = asyncio.get_running_loop()
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(args.client_processes, mp_context=spawn) as pool:
            parts = await asyncio.gather(
                *(
                    loop.run_in_executor(
                        pool, _client_process, jobs[i :: args.client_processes], stop_at, think
                    )
                    for i in range(args.client_processes)
                )
            )
        for part in parts:
            stats.add(part)
    sampler.cancel()
    for reviewer in reviewers:
        reviewer.cancel()
    return stats


async def _play_tables(
    jobs: list[TableJob], stats: Stats, stop_at: float, think: tuple[float, float]
) -> None:
    tasks = []
    for job in jobs:
        for seat in range(4):
            joined = asyncio.Event()
            player = _player(
                job.ws_url,
                job.http_url,
                job.tokens[seat],
                job.code,
                job.seed + seat,
                stats,
                stop_at,
                joined,
                think,
            )
            tasks.append(asyncio.create_task(player))
            await joined.wait()  # join in seat order, so seat 0 is the table's host
    monitor = asyncio.create_task(_watch_loop(stats, stop_at))
    results = await asyncio.gather(*tasks, return_exceptions=True)
    monitor.cancel()
    for result in results:
        if isinstance(result, BaseException):
            stats.errors.append(f"client failed: {result!r}")


def _client_process(jobs: list[TableJob], stop_at: float, think: tuple[float, float]) -> Stats:
    """A client process of ``--client-processes``: plays its share of the tables until
    ``stop_at`` (the machine's monotonic clock, shared by its processes)."""
    raise_open_files(len(jobs) * 4 + 256)
    stats = Stats(players=len(jobs) * 4)
    asyncio.run(_play_tables(jobs, stats, stop_at, think))
    stats.client_cpu = time.process_time()
    return stats


async def _sample_cpu(
    processes: list[subprocess.Popen[bytes]], samples: list[tuple[float, float]], stop_at: float
) -> None:
    """The servers' CPU time every quarter second: the steady figure starts at the first
    sample after the last player was dealt in."""
    while time.monotonic() < stop_at + 1.0:
        samples.append((time.monotonic(), sum(cpu_seconds(p) for p in processes)))
        await asyncio.sleep(0.25)


async def _reviewer(stats: Stats, stop_at: float) -> None:
    """One player after another opening 解析 on a hand just played: ask for its review and
    poll it each second until it is done, then the next."""
    async with httpx.AsyncClient(timeout=60) as http:
        while time.monotonic() < stop_at:
            if not stats.reviewable:
                await asyncio.sleep(0.5)
                continue
            url, token, hand_id = stats.reviewable.pop()
            path = f"{url}/api/hands/{hand_id}/review"
            headers = {"Authorization": f"Bearer {token}"}
            asked = time.monotonic()
            answer = await http.post(path, headers=headers)
            while answer.status_code in (200, 202) and answer.json()["status"] != "done":
                if time.monotonic() >= stop_at:
                    return
                await asyncio.sleep(1.0)
                answer = await http.get(path, headers=headers)
            if answer.status_code in (429, 503):
                stats.review_refusals += 1
                await asyncio.sleep(float(answer.headers.get("Retry-After", "5")))
            elif answer.status_code == 200:
                stats.review_times.append(time.monotonic() - asked)
            else:
                stats.errors.append(f"review {hand_id}: {answer.status_code} {answer.text[:120]}")


async def _watch_loop(stats: Stats, stop_at: float, period: float = 0.01) -> None:
    """Sleep ``period`` again and again and record how much later than asked each wake-up came:
    a message that reached this process waits about that long before a client reads it."""
    while time.monotonic() < stop_at:
        asked = time.monotonic() + period
        await asyncio.sleep(period)
        stats.loop_lags.append(max(0.0, time.monotonic() - asked))


def cpu_seconds(process: subprocess.Popen[bytes] | None) -> float:
    """CPU time (user + system) the server process has used so far (Linux /proc)."""
    if process is None:
        return 0.0
    try:
        fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def raise_open_files(wanted: int) -> None:
    """Thousands of client sockets need more descriptors than the usual soft limit of 1,024."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ImportError, OSError, ValueError):
        pass


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of play")
    parser.add_argument("--hands", type=int, default=8, help="hands per match")
    parser.add_argument(
        "--claim-window", type=float, default=0.3, help="seconds (the server default is 4)"
    )
    parser.add_argument("--turn-timer", type=float, default=30.0)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="each answer waits a random 0..THINK seconds before it is sent (not counted in "
        "the round trip); 0 = answer at once, every table in lockstep (the harshest case)",
    )
    parser.add_argument(
        "--human",
        action="store_true",
        help="people's pace: every answer waits 1-3 s (and the claim window is 4 s unless "
        "--claim-window says otherwise)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="server processes on one PostgreSQL database (needs --database-url postgresql://)",
    )
    parser.add_argument(
        "--database-url",
        help="the servers' database (default: a fresh SQLite file); an empty or throwaway one",
    )
    parser.add_argument(
        "--reviews",
        type=int,
        default=0,
        help="keep this many reviews (牌譜解析) of hands just played asked for during the run",
    )
    parser.add_argument(
        "--client-processes",
        type=int,
        default=1,
        help="drive the players from this many processes (thousands of sockets are more than "
        "one event loop reads on time); the figures are summed",
    )
    parser.add_argument(
        "--commit-wait",
        type=float,
        default=0.0,
        help="the servers' commit_wait: seconds a move may wait for other tables' moves to "
        "share its commit (0..0.1; 0 = off, the default)",
    )
    parser.add_argument("--url", help="use a running server instead of starting one")
    parser.add_argument(
        "--log-dir",
        type=Path,
        help="keep the servers' logs (server-N.log) in this folder instead of discarding them",
    )
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    if args.processes > 1 and not (args.database_url or "").startswith("postgresql"):
        parser.error("--processes above 1 needs --database-url postgresql://... (one database)")
    if args.processes > 1 and args.url:
        parser.error("--processes starts its own servers; leave out --url")
    if args.client_processes < 1:
        parser.error("--client-processes must be at least 1")
    if args.client_processes > 1 and args.reviews:
        parser.error("--reviews asks for hands as they end: use one client process")
    if args.human and "--claim-window" not in " ".join(argv if argv is not None else sys.argv):
        args.claim_window = 4.0
    raise_open_files(args.tables * 4 + 256)

    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="duyun-load-") as tmp:
        try:
            if args.url:
                urls = [args.url.rstrip("/")]
            else:
                urls = []
                for index in range(args.processes):
                    process, url = start_load_server(args, Path(tmp), index, args.log_dir)
                    processes.append(process)
                    urls.append(url)
            started = time.monotonic()
            client_cpu = time.process_time()
            stats = asyncio.run(_run(args, urls, processes))
            client_cpu = time.process_time() - client_cpu + stats.client_cpu
            elapsed = time.monotonic() - started
            played = time.monotonic() - stats.play_started
            server_cpu_now = sum(cpu_seconds(p) for p in processes)
            server_cpu = server_cpu_now - stats.cpu_at_play
        finally:
            for process in processes:
                process.send_signal(signal.SIGTERM)
            for process in processes:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
    trips = stats.round_trips
    pace = "1..3 s (human)" if args.human else f"0..{args.think} s"
    print(
        f"load: {args.tables} tables, {args.tables * 4} clients, {max(1, len(processes))} "
        f"server process(es), claim window {args.claim_window} s, think time {pace}, "
        f"commit wait {1000 * args.commit_wait:g} ms, {elapsed:.1f} s (setup included)"
    )
    if not args.url:
        print(f"  servers run the duyun of {SRC}")
    print(
        f"  turn actions {stats.actions}, claim answers {stats.claim_answers}, hands "
        f"{stats.hands}, matches {stats.matches}, messages received {stats.messages}"
    )
    per_decision = max(1, stats.decisions())
    print(
        f"  messages per decision {stats.messages / per_decision:.1f}: "
        + ", ".join(f"{kind} {n / per_decision:.2f}" for kind, n in stats.kinds.most_common())
    )
    if trips:
        print(
            "  action round trip: "
            f"p50 {1000 * statistics.median(trips):.1f} ms, "
            f"p99 {1000 * _percentile(trips, 0.99):.1f} ms, "
            f"max {1000 * max(trips):.1f} ms ({len(trips)} samples)"
        )
    if processes:
        decisions = max(1, stats.actions + stats.claim_answers)
        print(
            f"  server CPU during play {server_cpu:.1f} s in {played:.1f} s "
            f"({100 * server_cpu / played:.0f}% of one core), "
            f"{1000 * server_cpu / decisions:.2f} ms per decision; machine load "
            f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        )
        if len(stats.dealt_times) == stats.players and stats.cpu_samples:
            # the figure above spreads the seating of every player (hello, join, each match's
            # start) over the decisions of the run: at people's pace they are few, and most of
            # it is seating; this one is playing only
            last_dealt = max(stats.dealt_times)
            since, cpu_then = next(
                (sample for sample in stats.cpu_samples if sample[0] >= last_dealt),
                stats.cpu_samples[-1],
            )
            steady_cpu = server_cpu_now - cpu_then
            steady_decisions = max(1, sum(1 for t in stats.decision_times if t >= since))
            steady_time = max(0.001, stats.play_started + args.duration - since)
            print(
                f"  once every table was dealt in ({since - stats.play_started:.1f} s into play): "
                f"server CPU {steady_cpu:.1f} s in {steady_time:.1f} s "
                f"({100 * steady_cpu / steady_time:.0f}% of one core), "
                f"{1000 * steady_cpu / steady_decisions:.2f} ms per decision "
                f"({steady_decisions} decisions)"
            )
            # the round trips of the same span: a room's worth of people arriving within
            # seconds is its own test (the figure above, which includes it)
            steady_trips = [
                trip
                for trip, sent in zip(stats.round_trips, stats.round_trip_starts, strict=True)
                if sent >= last_dealt
            ]
            if steady_trips:
                print(
                    "  the action round trips sent then: "
                    f"p50 {1000 * statistics.median(steady_trips):.1f} ms, "
                    f"p99 {1000 * _percentile(steady_trips, 0.99):.1f} ms, "
                    f"max {1000 * max(steady_trips):.1f} ms ({len(steady_trips)} samples)"
                )
        else:
            print(f"  not every player was dealt in: {len(stats.dealt_times)} of {stats.players}")
    if stats.loop_lags:
        lags = stats.loop_lags
        print(
            f"  load generator: CPU {client_cpu:.1f} s ({100 * client_cpu / elapsed:.0f}% of one "
            f"core), event-loop lag p50 {1000 * statistics.median(lags):.1f} ms, p99 "
            f"{1000 * _percentile(lags, 0.99):.1f} ms (a round trip includes this lag)"
        )
    if args.reviews:
        times = stats.review_times
        done = (
            f"mean {statistics.mean(times):.1f} s, max {max(times):.1f} s" if times else "none done"
        )
        print(
            f"  reviews: {len(times)} done ({done} from asking to reading), "
            f"{stats.review_refusals} refused (busy)"
        )
    print(f"  claim answers after their window closed (too_late): {stats.late}")
    print(f"  errors: {len(stats.errors)}")
    for error in stats.errors[:10]:
        print(f"    {error}")
    return 1 if stats.errors or not trips else 0


if __name__ == "__main__":
    raise SystemExit(main())
