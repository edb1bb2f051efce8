"""Plain-text descriptions of engine events, for people (replays, scenarios, logs).

Pure functions of the event dicts, so every front end words things the same way.
"""

from __future__ import annotations

import re
from typing import Any

SEAT_NAMES = ("East 0", "South 1", "West 2", "North 3")

_ACTION_WORDS = {
    "discard": "discards",
    "baoting": "declares 報聽 and discards",
    "pong": "claims 碰 pong",
    "kong": "claims 直槓 kong",
    "added_kong": "declares 面下槓 added kong of",
    "concealed_kong": "declares 暗槓 concealed kong",
    "hu": "declares 胡",
    "pass": "passes 過",
    "quit": "quits (escape)",
    "leave": "leaves the table (R57)",
}

_WIN_HOW = {
    "self_draw": "自摸 self-draw",
    "discard": "點炮 on a discard",
    "rob_kong": "搶槓 robbing a kong",
}


CHINESE_RANKS = "一二三四五六七八九"
CHINESE_SUITS = {"m": "萬", "p": "筒", "s": "條"}
_RUN = re.compile(r"([1-9]+)([mps])")


def seat_name(seat: int | None) -> str:
    return "-" if seat is None else f"seat {seat}"


def chinese_tiles(text: str) -> str:
    """Tiles in R2 notation written as the table writes them with ``--chinese``:
    ``5p`` → 五筒, ``123m`` → 一萬 二萬 三萬, melds keep their brackets (``[五筒×3]``)."""

    def run(match: re.Match[str]) -> str:
        ranks, suit = match.group(1), CHINESE_SUITS[match.group(2)]
        return " ".join(f"{CHINESE_RANKS[int(r) - 1]}{suit}" for r in ranks)

    def meld(match: re.Match[str]) -> str:
        open_, ranks, suit, added, close = match.groups()
        size = len(ranks)
        return (
            f"{open_}{CHINESE_RANKS[int(ranks[0]) - 1]}{CHINESE_SUITS[suit]}×{size}{added}{close}"
        )

    text = re.sub(r"([\[(])([1-9]{3,4})([mps])(\+?)([\])])", meld, text)
    text = _RUN.sub(run, text)
    return re.sub("([萬筒條])(?=[一二三四五六七八九])", r"\1 ", text)  # 三萬 五筒, not 三萬五筒


def describe_event(event: dict[str, Any], *, chinese: bool = False) -> str | None:
    """One line for an event, or None for events that only repeat another line; with
    ``chinese`` the tiles are written 五筒 instead of 5p."""
    line = _describe(event)
    if line is None or not chinese:
        return line
    return chinese_tiles(line)


def _describe(event: dict[str, Any]) -> str | None:
    kind = event["type"]
    seat = event.get("seat")
    if kind == "start":
        hands = " | ".join(f"{i}: {h}" for i, h in enumerate(event["hands"]))
        wall = event["wall"]
        size = wall if isinstance(wall, int) else len(wall)
        return (
            f"Hand starts: dealer seat {event['dealer']}, streak {event['streak']}, "
            f"wall {size} tiles. Hands {hands}"
        )
    if kind == "act":
        if event["action"] in ("discard", "baoting", "leave"):
            return None  # the discard (or leave) event says it
        words = _ACTION_WORDS.get(event["action"], event["action"])
        tile = f" {event['tile']}" if "tile" in event else ""
        return f"{seat_name(seat)} {words}{tile}"
    if kind == "draw":
        source = "replacement tile" if event["replacement"] else "tile"
        last = " (one of the last four, R19)" if event["last_four"] else ""
        return f"{seat_name(seat)} draws {source} {event['tile']}{last}"
    if kind == "discard":
        auto = " (automatic, 報聽 R26)" if event["auto"] else ""
        return f"{seat_name(seat)} discards {event['tile']}{auto}"
    if kind == "baoting":
        return f"{seat_name(seat)} declares 報聽 (R25)"
    if kind == "win_refused":
        reason = {
            "R17": "平胡 on a discard needs a bean or a 報聽 discarder",
            "R9": "過水: a win was passed since the seat's last turn",
        }.get(event["reason"], event["reason"])
        return (
            f"{seat_name(seat)} is refused a win on {event['tile']} from seat {event['from']} "
            f"({event['pattern']}): {reason} ({event['reason']})"
        )
    if kind == "claim":
        return f"{seat_name(seat)} must win on it (R19/R26)"
    if kind == "pong":
        return f"{seat_name(seat)} pongs {event['tile']} from seat {event['from']}"
    if kind == "kong":
        names = {"direct_kong": "直槓", "added_kong": "面下槓", "concealed_kong": "暗槓"}
        return f"{seat_name(seat)} makes {names[event['kind']]} of {event['tile']}"
    if kind == "win":
        how = _WIN_HOW.get(event["how"], event["how"])
        source = f" from seat {event['from']}" if event["from"] is not None else ""
        auto = " (automatic)" if event["auto"] else ""
        extras = "".join(f" + {extra}" for extra in event.get("extras", ()))
        return (
            f"{seat_name(seat)} wins by {how}{source} on {event['tile']}{auto}: "
            f"{event['pattern']} {event['fan']} fan{extras} — {event['hand']}"
        )
    if kind == "leave":
        return f"{seat_name(seat)} has won and leaves the table (R57); the hand goes on"
    if kind == "payment":
        return (
            f"  seat {event['payer']} pays seat {event['payee']} {event['points']} points "
            f"({event['fan']} × base, {event['rule']} {event['reason']})"
        )
    if kind == "exhaustive_draw":
        ready = ", ".join(
            f"seat {i} {'won' if r is None else 'ready' if r else 'not ready'}"
            for i, r in enumerate(event["ready"])
        )  # null: a 血戰 winner, no longer in the hand (R56)
        return f"Exhaustive draw (流局): {ready}"
    if kind == "escape":
        penalty = "查大叫" if event["penalty"] == "da_jiao" else "16 × base each"
        return f"{seat_name(seat)} escapes: penalty {penalty} (R45)"
    if kind == "end":
        totals = ", ".join(f"{i}: {t:+d}" for i, t in enumerate(event["totals"]))
        winners = event.get("winners") or []
        won = f" Winners in order: {', '.join(map(str, winners))}." if "wins" in event else ""
        return (
            f"Hand ends ({event['result']}).{won} Totals {totals}. Next dealer seat "
            f"{event['next_dealer']}, streak {event['next_streak']}"
        )
    return None
