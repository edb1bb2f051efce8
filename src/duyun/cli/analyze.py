"""``duyun analyze HAND``: shanten, waits and their fan, best discards, or the winning pattern.

The JSON object is a fixed contract for scripts (docs/analyze.md); the Rich report is for
people. ``-`` as HAND turns on batch mode: one hand per stdin line, one JSON object per output
line, in one process so thousands of hands cost milliseconds each, not a process start each.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Annotated, Any

import typer

from duyun.analysis import is_win, rank_discards, shanten, useful_tiles, waits
from duyun.cli.common import cut, fail, one_line
from duyun.hand import Hand
from duyun.scoring import best_pattern, max_fan, waits_fan
from duyun.tiles import NotationError, tile_to_str

EXIT_BATCH_HAD_ERRORS = 1


class HandInputError(ValueError):
    """A hand the analysis cannot take: bad notation, wrong size or too many copies."""


def parse_hand(text: str) -> Hand:
    """Parse and check size: 13 or 14 tiles with kongs counted as three (R10, R11)."""
    try:
        hand = Hand.parse(text)
    except NotationError as error:
        raise HandInputError(str(error)) from None
    if hand.tile_count not in (13, 14):
        raise HandInputError(
            f"hand {cut(text.strip())} has {hand.tile_count} tiles, kongs counted as "
            "three; a hand has 13 (waiting) or 14"
        )
    return hand


def _discard_waits(hand: Hand, discard: int) -> dict[str, dict[str, Any]]:
    """The waits (R11) left after ``discard`` and the fan each would score (R20)."""
    rest = list(hand.concealed)
    rest.remove(discard)
    after = Hand(tuple(rest), hand.melds)
    fans = waits_fan(after, waits(after.counts(), after.all_counts()))
    return {tile_to_str(t): {"pattern": r.name, "fan": r.fan} for t, r in fans.items()}


def shanten_wording(value: int, tiles: int) -> str:
    """What a shanten number means for a hand of this size.

    A 14-tile hand with shanten 0 is not ready: it becomes ready after the right discard.
    """
    if value < 0:
        return "complete"
    if tiles == 14:
        if value == 0:
            return "one discard from ready (打一張聽)"
        return f"{value} from ready, after the best discard"
    return "ready (聽牌)" if value == 0 else f"{value} from ready"


def analyze_hand(hand: Hand) -> dict[str, Any]:
    """The JSON contract of docs/analyze.md for one hand."""
    counts = hand.counts()
    held = hand.all_counts()  # R11 and useful counts: what the hand itself can see
    result: dict[str, Any] = {
        "hand": str(hand),
        "tiles": hand.tile_count,
        "shanten": shanten(counts),
    }
    if hand.tile_count == 14:
        winning = is_win(counts)
        pattern = best_pattern(hand) if winning else None
        result["winning"] = winning
        result["pattern"] = pattern.name if pattern else None
        result["fan"] = pattern.fan if pattern else None
        result["discards"] = (
            []
            if winning
            else [
                {
                    "discard": tile_to_str(option.discard),
                    "shanten": option.shanten,
                    "useful": [tile_to_str(t) for t in option.useful],
                    "useful_count": option.useful_count,
                    "waits": _discard_waits(hand, option.discard) if option.shanten == 0 else {},
                }
                for option in rank_discards(counts, held)
            ]
        )
    else:
        hand_waits = waits(counts, held)
        fans = waits_fan(hand, hand_waits)
        biggest = max_fan(hand, hand_waits)
        useful = useful_tiles(counts, held)
        result["ready"] = bool(hand_waits)
        result["waits"] = [tile_to_str(t) for t in hand_waits]
        result["waits_fan"] = {
            tile_to_str(t): {"pattern": r.name, "fan": r.fan} for t, r in fans.items()
        }
        result["max_fan"] = biggest.fan if biggest else None
        result["useful"] = [tile_to_str(t) for t in sorted(useful)]
        result["useful_count"] = sum(useful.values())
    return result


def _dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False)


BATCH_ECHO_LIMIT = 100


def _stdin_lines() -> Iterator[bytes | str]:
    """stdin line by line as bytes when possible (so one bad byte spoils one line only)."""
    stream = getattr(sys.stdin, "buffer", None)
    return iter(stream if stream is not None else sys.stdin)


def _run_batch() -> int:
    had_error = False
    out = sys.stdout
    for number, raw in enumerate(_stdin_lines(), start=1):
        if isinstance(raw, bytes):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError:
                had_error = True
                shown = raw.decode("utf-8", "replace").strip()
                obj = {"input": shown[:BATCH_ECHO_LIMIT], "error": "not UTF-8 text"}
                out.write(_dumps(obj) + "\n")
                continue
        else:
            line = raw
        text = line.strip()
        if not text:
            continue
        try:
            obj = analyze_hand(parse_hand(text))
        except HandInputError as error:
            had_error = True
            obj = {"input": text[:BATCH_ECHO_LIMIT], "error": one_line(str(error))}
        out.write(_dumps(obj) + "\n")
    out.flush()
    return EXIT_BATCH_HAD_ERRORS if had_error else 0


def _grouped_waits(waits_fan_: dict[str, dict[str, Any]]) -> str:
    """``1m 4m 平胡 1, 7m 對對胡 3``: waits that score the same pattern share its name."""
    groups: dict[tuple[str, int], list[str]] = {}
    for tile, won in waits_fan_.items():
        groups.setdefault((won["pattern"], won["fan"]), []).append(tile)
    return ", ".join(f"{' '.join(tiles)} {name} {fan}" for (name, fan), tiles in groups.items())


def _report(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(f"[bold]{result['hand']}[/bold]  ({result['tiles']} tiles)")
    value = result["shanten"]
    console.print(f"shanten (向聽): {value}  — {shanten_wording(value, result['tiles'])}")
    if result["tiles"] == 14:
        if result["winning"]:
            console.print(
                f"[green]winning hand[/green]: {result['pattern']} {result['fan']} fan (R20)"
            )
            return
        table = Table(title="discards, best first")
        for column in ("discard", "shanten", "waits · fan", "unseen useful"):
            table.add_column(column, justify="right" if column == "shanten" else "left")
        for option in result["discards"]:
            waits_cell = _grouped_waits(option["waits"])
            table.add_row(
                option["discard"],
                str(option["shanten"]),
                waits_cell or "-",
                f"{option['useful_count']}: {' '.join(option['useful'])}",
            )
        console.print(table)
        return
    if result["ready"]:
        table = Table(title="waits (R11) and the fan each would score (R20)")
        for column in ("wait", "pattern", "fan"):
            table.add_column(column)
        for tile, won in result["waits_fan"].items():
            table.add_row(tile, won["pattern"], str(won["fan"]))
        console.print(table)
        console.print(f"大叫 (largest fan, R30): {result['max_fan']}")
    else:
        console.print("[yellow]not ready[/yellow]")
    console.print(
        f"useful tiles: {' '.join(result['useful']) or '-'}  ({result['useful_count']} unseen)"
    )


def analyze(
    hand: Annotated[
        str,
        typer.Argument(
            help="Hand in R2 notation, e.g. '11m234p678s [555p] (9999s)'; '-' reads one hand "
            "per stdin line and writes one JSON object per line."
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Analyse a 13- or 14-tile hand: shanten, waits with fan, best discards or the win."""
    if hand == "-":
        raise typer.Exit(_run_batch())
    try:
        parsed = parse_hand(hand)
    except HandInputError as error:
        fail(str(error))
    result = analyze_hand(parsed)
    if as_json:
        typer.echo(_dumps(result))
    else:
        _report(result)


def register(app: typer.Typer) -> None:
    app.command("analyze")(analyze)
