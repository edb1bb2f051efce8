"""What seating a crowd costs the server (issue 33): CPU per guest account made, per private
table opened and per player seated, from the websocket's handshake to the player's first
``snapshot`` (hello, join, ready, the match's start and its first deal).

``load.py --human`` seats its whole crowd while the first tables already play, so what four
processes hold is decided by the seating as much as by the play (docs/deploy.md, the seventh
and eighth rounds). This runs the seating alone, on one server with no play afterwards (the
players never act; the turn timer is long), so its figures are not mixed with decisions:

    python benchmarks/seating.py                                  # 300 tables, a SQLite file
    python benchmarks/seating.py --tables 500 --database-url postgresql+psycopg://u@h/empty_db

The players connect ``--concurrency`` at a time, as a crowd arriving at once; each table's
first player joins first, so seat 0 is the host, and its other three follow.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import websockets

from load import cpu_seconds, raise_open_files, start_load_server
from server_process import SRC

Socket = websockets.ClientConnection


@dataclass
class Figures:
    """One run's figures: server CPU seconds per guest, per table and per player seated."""

    guests: float = 0.0
    tables: float = 0.0
    seating: float = 0.0
    seating_wall: float = 0.0
    connect_times: list[float] = field(default_factory=list)
    #: messages a player received before its first snapshot, by type
    kinds: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)


async def _arrive(ws_url: str, token: str, code: str, figures: Figures) -> Socket:
    """Connect, then say hello, join and press ready without waiting for answers, as the
    web client does."""
    started = time.monotonic()
    ws = await websockets.connect(ws_url, max_size=1 << 20, ping_interval=None)
    figures.connect_times.append(time.monotonic() - started)
    for message in (
        {"type": "hello", "version": 1, "token": token},
        {"type": "join", "code": code},
        {"type": "ready"},
    ):
        await ws.send(json.dumps(message))
    return ws


async def _until_dealt(ws: Socket, figures: Figures) -> None:
    """Read until the first hand's snapshot (or an error, which is counted)."""
    while True:
        message = json.loads(await ws.recv())
        figures.kinds[message["type"]] += 1
        if message["type"] == "snapshot":
            return
        if message["type"] == "error":
            figures.errors.append(f"{message['code']}: {message['message']}")
            return


async def _run(args: argparse.Namespace, url: str, server: subprocess.Popen[bytes]) -> Figures:
    figures = Figures()
    limit = asyncio.Semaphore(args.concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:

        async def guest() -> str:
            async with limit:
                answer = await http.post("/api/guest")
                answer.raise_for_status()
                token: str = answer.json()["token"]
                return token

        async def table(host: str) -> str:
            async with limit:
                answer = await http.post(
                    "/api/tables",
                    json={"hands": 8, "bots_allowed": False},
                    headers={"Authorization": f"Bearer {host}"},
                )
                answer.raise_for_status()
                code: str = answer.json()["code"]
                return code

        cpu = cpu_seconds(server)
        tokens = list(await asyncio.gather(*(guest() for _ in range(args.tables * 4))))
        figures.guests = (cpu_seconds(server) - cpu) / len(tokens)
        cpu = cpu_seconds(server)
        codes = list(await asyncio.gather(*(table(tokens[i * 4]) for i in range(args.tables))))
        figures.tables = (cpu_seconds(server) - cpu) / args.tables

    ws_url = url.replace("http", "ws", 1) + "/ws"
    sockets: list[Socket] = []

    async def seat_table(index: int) -> None:
        async with limit:  # a table's four arrive one after another, the host first
            four = [
                await _arrive(ws_url, tokens[index * 4 + seat], codes[index], figures)
                for seat in range(4)
            ]
            sockets.extend(four)
            await asyncio.gather(*(_until_dealt(ws, figures) for ws in four))

    cpu, started = cpu_seconds(server), time.monotonic()
    await asyncio.gather(*(seat_table(i) for i in range(args.tables)))
    figures.seating = (cpu_seconds(server) - cpu) / (args.tables * 4)
    figures.seating_wall = time.monotonic() - started
    for ws in sockets:
        await ws.close()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--database-url", help="default: a fresh SQLite file")
    parser.add_argument("--concurrency", type=int, default=8, help="requests and tables at once")
    parser.add_argument("--commit-wait", type=float, default=0.01)
    args = parser.parse_args()
    raise_open_files(args.tables * 4 + 256)
    # the server's configuration is load.py's (limits off for one address, a long turn timer)
    load_args = argparse.Namespace(
        tables=args.tables,
        turn_timer=600.0,
        claim_window=4.0,
        reviews=0,
        commit_wait=args.commit_wait,
        processes=1,
        database_url=args.database_url,
    )
    with tempfile.TemporaryDirectory(prefix="duyun-seating-") as tmp:
        server, url = start_load_server(load_args, Path(tmp))
        try:
            figures = asyncio.run(_run(args, url, server))
        finally:
            server.terminate()
            server.wait(timeout=30)
    connects = sorted(figures.connect_times)
    print(
        f"seating: {args.tables} tables, {args.tables * 4} players, one server process, "
        f"{'PostgreSQL' if (args.database_url or '').startswith('postgresql') else 'SQLite'}, "
        f"concurrency {args.concurrency}"
    )
    print(f"  servers run the duyun of {SRC}")
    print(f"  server CPU per guest account made: {1000 * figures.guests:.2f} ms")
    print(f"  server CPU per table opened: {1000 * figures.tables:.2f} ms")
    print(
        f"  server CPU per player seated (handshake to first snapshot): "
        f"{1000 * figures.seating:.2f} ms; all seated in {figures.seating_wall:.1f} s"
    )
    print(
        f"  websocket handshake p50 {1000 * connects[len(connects) // 2]:.1f} ms, "
        f"p99 {1000 * connects[int(0.99 * len(connects))]:.1f} ms"
    )
    players = args.tables * 4
    kinds = ", ".join(f"{kind} {n / players:.2f}" for kind, n in figures.kinds.most_common())
    print(f"  messages per player up to its first snapshot: {kinds}")
    first = f" (the first: {figures.errors[0]})" if figures.errors else ""
    print(f"  errors: {len(figures.errors)}{first}")
    return 1 if figures.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
