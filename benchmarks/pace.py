"""The pace of a table as a person feels it (issue 21 item 2): one person and three bots.

Starts a fresh ``duyun serve`` with the DEFAULT config on a temporary SQLite file (awaited by
its ``/healthz``, stopped at the end), takes a guest account, quick-matches into the first
room and plays through the websocket as a person would: every prompt is answered one second
after it arrives (a win when offered, else the drawn tile or the last legal discard; claims
are passed), and 下一局 is pressed one second after each settlement. It prints

* quick match → first deal: from sending ``quick_match`` to the hand's ``snapshot``
  (target ≤ 2 s);
* turn to turn: the median time between two of the person's own turn prompts when nobody
  claimed anything in between and the person was not asked to claim (target ≤ 4 s);
* hand: the median time from a hand's ``snapshot`` to its ``hand_end`` (target ≤ 100 s);

with the machine's load average, so a figure can be read against how busy the machine was.

    python benchmarks/pace.py              # 4 hands
    python benchmarks/pace.py --hands 2    # what `make bench` runs
    python benchmarks/pace.py --bot search # a 大師 table

A benchmark, not a test: it exits 0 whether or not the targets are met (it fails only when
the play itself goes wrong), and says which were.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

from duyun.bots import BOT_NAMES
from server_process import start_server

#: how long the person takes over every decision, and over the settlement
THINK = 1.0
TARGETS = {"quick match → first deal": 2.0, "turn to turn": 4.0, "hand": 100.0}
#: events that mean somebody claimed the discard (the turn order was broken)
CLAIMS = ("pong", "kong", "hu")


@dataclass
class Figures:
    first_deal: float | None = None
    turn_gaps: list[float] = field(default_factory=list)
    hands: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _start_server(workdir: Path, bot: str | None) -> tuple[subprocess.Popen[bytes], str]:
    """``duyun serve`` with the default config (only the quick match's bots changed when
    ``bot`` is given), ready when ``/healthz`` answers."""
    extra: list[str] = []
    if bot is not None:
        config = workdir / "pace.toml"
        config.write_text(f"default_bot = {json.dumps(bot)}\n", encoding="utf-8")
        extra = ["--config", str(config)]
    return start_server(f"sqlite:///{workdir / 'pace.db'}", workdir / "server.log", extra)


def _choose(prompt: dict[str, Any], drawn: str | None) -> dict[str, Any]:
    legal: list[dict[str, Any]] = prompt["legal"]
    wins = [a for a in legal if a["action"] == "hu"]
    if wins:
        return wins[0]
    if prompt["kind"] == "claim":
        return {"action": "pass"}
    discards = [a for a in legal if a["action"] == "discard"]
    same = [a for a in discards if a["tile"] == drawn]
    return same[0] if same else discards[-1]


async def _play(url: str, hands: int, figures: Figures) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        answer = await http.post("/api/guest")
        answer.raise_for_status()
        token = answer.json()["token"]
        rooms = (await http.get("/api/rooms")).json()
    room = rooms[0]["id"]  # the first room of the default config (新手場)
    ws_url = url.replace("http", "ws", 1) + "/ws"
    async with websockets.connect(ws_url, max_size=1 << 20) as ws:
        await ws.send(json.dumps({"type": "hello", "version": 1, "token": token}))
        asked_at = time.monotonic()
        await ws.send(json.dumps({"type": "quick_match", "room": room}))
        seat: int | None = None
        hand_start: float | None = None
        last_turn: float | None = None
        broken = False  # a claim (anyone's) or a claim prompt since the person's last turn
        drawn: str | None = None
        played = 0
        while played < hands:
            message = json.loads(await asyncio.wait_for(ws.recv(), 120))
            kind = message["type"]
            now = time.monotonic()
            if kind == "error":
                figures.errors.append(f"{message['code']}: {message['message']}")
            elif kind == "table" and message["table"] is not None:
                seat = message["table"]["you"]
            elif kind == "snapshot" and message["seat"] is not None:
                if figures.first_deal is None:
                    figures.first_deal = now - asked_at
                if hand_start is None:
                    hand_start, last_turn, broken = now, None, False
                drawn = message["view"].get("drawn_tile")
            elif kind == "events":
                for event in message["events"]:
                    if event["type"] == "act" and event.get("action") in CLAIMS:
                        broken = True
                    if event["type"] == "draw" and event.get("seat") == seat:
                        drawn = event.get("tile")
            elif kind == "prompt":
                if message["kind"] == "turn":
                    if last_turn is not None and not broken:
                        figures.turn_gaps.append(now - last_turn)
                    last_turn, broken = now, False
                else:
                    broken = True  # the person's own hesitation is not the table's pace
                await asyncio.sleep(THINK)
                action = _choose(message, drawn)
                await ws.send(json.dumps({"type": "act", "prompt": message["id"], **action}))
            elif kind == "hand_end":
                if hand_start is not None:
                    figures.hands.append(now - hand_start)
                hand_start = None
                played += 1
                if played < hands and message.get("next_hand_in") is not None:
                    await asyncio.sleep(THINK)  # reads the settlement, presses 下一局
                    await ws.send(json.dumps({"type": "ready", "ready": True}))
                elif message.get("next_hand_in") is None:
                    break


def _report(figures: Figures, hands: int, bot: str) -> None:
    load = os.getloadavg()
    print(
        f"pace: 1 person (answers after {THINK:g} s) + 3 bots ({bot}), default config, "
        f"{hands} hands; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs"
    )
    values = {
        "quick match → first deal": figures.first_deal,
        "turn to turn": statistics.median(figures.turn_gaps) if figures.turn_gaps else None,
        "hand": statistics.median(figures.hands) if figures.hands else None,
    }
    counts = {
        "quick match → first deal": 1,
        "turn to turn": len(figures.turn_gaps),
        "hand": len(figures.hands),
    }
    for name, value in values.items():
        target = TARGETS[name]
        if value is None:
            print(f"  {name:<26} no measurement")
            continue
        verdict = "ok" if value <= target else "OVER TARGET"
        label = "" if name.startswith("quick") else f" median of {counts[name]}"
        print(f"  {name:<26} {value:6.2f} s{label:<16} (target ≤ {target:g} s) {verdict}")
    for error in figures.errors:
        print(f"  error: {error}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=4, help="hands to play (default 4)")
    parser.add_argument(
        "--bot",
        choices=BOT_NAMES,
        help="the bots quick match seats (default: the config's default_bot, strong); "
        "search (大師) takes at least bot_delay after the claim pause, so its table is slower",
    )
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    figures = Figures()
    with tempfile.TemporaryDirectory(prefix="duyun-pace-") as tmp:
        process, url = _start_server(Path(tmp), args.bot)
        try:
            asyncio.run(_play(url, args.hands, figures))
        except (TimeoutError, websockets.ConnectionClosed) as error:
            figures.errors.append(f"play stopped: {error!r}")
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    _report(figures, args.hands, args.bot or "default")
    return 1 if figures.errors or not figures.hands else 0


if __name__ == "__main__":
    sys.exit(main())
