"""What self-play keeps of a hand: a small, picklable record, by player rather than by seat.

A *player* is a position in the lineup (``--bots a,b,c,d``: players 0..3). In duplicate mode
the players change seats between the four plays of a wall, so everything a summary needs is
re-indexed by player here, in the worker, and the (large) event log is dropped unless the
caller asked to keep it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

SEATS = 4

RULE_EVENTS: tuple[tuple[str, str], ...] = (
    ("win", "won hands R16"),
    ("self_draw", "自摸 R29"),
    ("discard_win", "點炮 R28"),
    ("rob_kong", "搶槓 R13"),
    ("gang_shang_hua", "槓上花 R21"),
    ("gang_shang_pao", "槓上炮 R28"),
    ("multi_win", "一炮多響 R18"),
    ("auto_win", "auto win R19/26"),
    ("bean_direct", "直槓 bean R12"),
    ("bean_added", "面下槓 bean R12"),
    ("bean_concealed", "暗槓 bean R12"),
    ("baoting", "報聽 R25"),
    ("exhaustive_draw", "流局 R30"),
    ("cha_da_jiao", "查大叫 rows R30"),
    ("huang_dou", "黃豆 rows R14"),
)
"""Counter key -> label, in the order the summary table prints them."""


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One played hand, indexed by player (lineup position)."""

    unit: int
    rotation: int
    hand: int
    seat_of: tuple[int, ...]
    """seat_of[player] = the seat that player sat at."""
    points: tuple[int, ...]
    result: str
    winners: tuple[int, ...]
    feeder: int | None
    """The player who paid for a discard win or a robbed kong (點炮), else None; in a 血戰
    room (R53), the one who paid for the first win."""
    win_kind: str | None
    patterns: tuple[tuple[int, str], ...]
    """(player, pattern) for every winner."""
    rule_events: dict[str, int] = field(default_factory=dict)
    player_events: tuple[dict[str, int], ...] = ()
    """Per player: baoting, kongs, ... (the same keys as rule_events where they apply)."""
    events: list[dict[str, Any]] | None = None
    feeders: tuple[int, ...] = ()
    """Every player who paid for a discard win or a robbed kong in this hand (a 血戰 hand,
    R53, can have several), each once, in order."""


def summarise_events(
    events: list[dict[str, Any]],
    seat_of: tuple[int, ...],
    *,
    unit: int,
    rotation: int,
    hand: int,
    keep_events: bool,
) -> HandRecord:
    """Read a finished hand's event log into a :class:`HandRecord`."""
    player_at = {seat: player for player, seat in enumerate(seat_of)}
    counts: Counter[str] = Counter()
    per_player: list[Counter[str]] = [Counter() for _ in range(SEATS)]
    patterns: list[tuple[int, str]] = []
    feeders: list[int] = []
    end: dict[str, Any] | None = None
    wins = 0
    for event in events:
        kind = event["type"]
        if kind == "kong":
            key = {
                "direct_kong": "bean_direct",
                "added_kong": "bean_added",
                "concealed_kong": "bean_concealed",
            }[event["kind"]]
            counts[key] += 1
            per_player[player_at[event["seat"]]][key] += 1
        elif kind == "baoting":
            counts["baoting"] += 1
            per_player[player_at[event["seat"]]]["baoting"] += 1
        elif kind == "win":
            wins += 1
            player = player_at[event["seat"]]
            patterns.append((player, event["pattern"]))
            how = event["how"]
            key = {"self_draw": "self_draw", "discard": "discard_win", "rob_kong": "rob_kong"}[how]
            counts[key] += 1
            per_player[player][key] += 1
            per_player[player]["win"] += 1
            # events with an actor are counted for that player too (the winner)
            if how != "self_draw" and player_at[event["from"]] not in feeders:
                feeders.append(player_at[event["from"]])
            if event.get("auto"):
                counts["auto_win"] += 1
                per_player[player]["auto_win"] += 1
            if "槓上花" in event["extras"]:
                counts["gang_shang_hua"] += 1
                per_player[player]["gang_shang_hua"] += 1
            if "槓上炮" in event["extras"]:
                counts["gang_shang_pao"] += 1
                per_player[player]["gang_shang_pao"] += 1
        elif kind == "payment":
            if event["rule"] == "R30":
                counts["cha_da_jiao"] += 1
            elif event["rule"] == "R14":
                counts["huang_dou"] += 1
        elif kind == "exhaustive_draw":
            counts["exhaustive_draw"] += 1
        elif kind == "end":
            end = event
    if end is None:
        raise ValueError("the hand's event log has no 'end' event: it is not finished")
    if wins:
        counts["win"] += 1
    totals = end["totals"]
    feeder = None
    if end["result"] == "win" and end["win_kind"] in ("discard", "rob_kong"):
        feeder = player_at[end["loser"]]
    # 一炮多響 (R18): one discard or robbed kong won by several; a 血戰 hand (R53) lists its
    # wins in the end event, and several wins one after another are not a multiple win.
    # It is the discarder's (or robbed player's) event.
    groups = end.get("wins")
    if groups is None:
        multi_from = [end["loser"]] if wins > 1 and feeder is not None else []
        multi = wins > 1
    else:
        multi_from = [g["from"] for g in groups if len(g["seats"]) > 1]
        multi = bool(multi_from)
    if multi:
        counts["multi_win"] += 1
    for seat in multi_from:
        per_player[player_at[seat]]["multi_win"] += 1
    return HandRecord(
        unit=unit,
        rotation=rotation,
        hand=hand,
        seat_of=seat_of,
        points=tuple(totals[seat_of[player]] for player in range(SEATS)),
        result=end["result"],
        winners=tuple(player_at[seat] for seat in end["winners"]),
        feeder=feeder,
        win_kind=end["win_kind"],
        patterns=tuple(patterns),
        rule_events=dict(counts),
        player_events=tuple(dict(c) for c in per_player),
        events=events if keep_events else None,
        feeders=tuple(feeders),
    )
